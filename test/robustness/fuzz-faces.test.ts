/**
 * Property-based robustness suite over the faces beyond the REST API (issue 44), as
 * fuzz.test.ts is over the REST API: random and hostile requests, one at a time, to
 *
 * - CalDAV (`/dav/…`, `/.well-known/caldav`): every method (OPTIONS, PROPFIND with Depth 0, 1,
 *   infinity and nonsense, REPORT calendar-query, calendar-multiget and sync-collection, GET,
 *   HEAD, and the refused writes PUT, DELETE, MKCALENDAR, PROPPATCH, MOVE, COPY, LOCK, …) on
 *   every path, with valid, malformed, deep, namespace-heavy, attribute-heavy, entity-laden (XXE,
 *   billion laughs), huge and wrongly typed bodies, random Depth, If-Match, Brief, Prefer and
 *   Content-Length headers (those over a raw socket: non-numeric, conflicting, shorter or far
 *   longer than the body);
 * - the public submissions: `calendar/submissions/v1` (every route of its index) and the HTML form
 *   and status pages (`/events/submit/…`);
 * - the admin API `calendar/admin/v1` (every route of its index) as an administrator, an editor,
 *   an author, an application password, a cookie with its nonce, anonymously and with bad
 *   credentials;
 * - federation (FEDERATION=true): WebFinger, NodeInfo, the actor, outbox, followers, objects, and
 *   the inboxes with hostile JSON-LD, deep and huge bodies, no, garbage, stale, tampered and
 *   valid signatures (a Fedify follower of our own on a loopback port signs them);
 * - the embeds: `/embed/`, `/embed/snippet`, the component's files and `calendar/embed/v1` (the
 *   FullCalendar source) with hostile parameters;
 * - the admin face's HTML: sign-in, its code step (a user with two-factor on), the account page,
 *   the language choice, the REST nonce, sign-out and two-factor forms, with valid, stale and
 *   garbage cookies and nonces.
 *
 * Every answer must be below 500 and, when an error, in its face's own shape: CalDAV a DAV error
 * document (`<d:error>`, XML) or, for what Node's HTTP parser refuses itself, a bare status; the
 * JSON faces WordPress' `{code, message, data: {status}}` with `data.status` the HTTP status; the
 * HTML pages an HTML page. A multistatus is well-formed XML. A 4xx must not have written anything:
 * the change log's position and the row counts of the tables requests write are the same before
 * and after (requests run one at a time; after an accepted inbox request the suite waits for the
 * inbox queue to be worked off, so a follower it adds is not blamed on the next request).
 *
 * Bounded work: each request's latency and how long it held the server's event loop (the server's
 * own loop watch, src/web/loop-delay.ts, in CPU time) are reported; the p99 must stay under
 * 100 ms, and no request may hold the loop that long each time it is sent again (test/support/hostile.ts).
 *
 * Bounded: `FACES_FUZZ_RUNS` requests per store (default below), fixed seed `FACES_FUZZ_SEED`;
 * `FACES_FUZZ_ONLY=caldav,federation` draws from those faces only; `FUZZ_COLLECT=1` lists every
 * failing answer instead of stopping at the first. A failure prints the seed and the request, e.g.
 * `FACES_FUZZ_SEED=123 FACES_FUZZ_RUNS=5000 node --test …`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import fc from 'fast-check';
import { sql } from 'kysely';
import { XMLValidator } from 'fast-xml-parser';
import { signRequest } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, STORES, startServer, type TestServer } from '../support/harness.js';
import { startFollower, type Follower } from '../http/federation-follower.js';
import { INJECTIONS, KEY_EXTRAS, asText, assertBoundedHolds, encodeParams, encodePart, valueArb, type Timing } from '../support/hostile.js';

const SEED = Number(process.env.FACES_FUZZ_SEED ?? 20261201);
const RUNS = Number(process.env.FACES_FUZZ_RUNS ?? 700);
const COLLECT = process.env.FUZZ_COLLECT === '1';

const FACES = ['caldav', 'submissions-api', 'submissions-html', 'admin-api', 'federation', 'embed', 'admin-html'] as const;
type Face = (typeof FACES)[number];
const ONLY = new Set<Face>((process.env.FACES_FUZZ_ONLY ?? FACES.join(',')).split(',').map((s) => s.trim() as Face));
for (const f of ONLY) if (!FACES.includes(f)) throw new Error(`FACES_FUZZ_ONLY: unknown face ${f} (known: ${FACES.join(', ')})`);
/** How often each face is drawn (CalDAV and the admin API have the most routes and bodies). */
const WEIGHTS: Record<Face, number> = { caldav: 6, 'submissions-api': 2, 'submissions-html': 2, 'admin-api': 5, federation: 4, embed: 3, 'admin-html': 3 };

/** Every face on, the limits that would answer 429 to a burst from one address off (they are tested on their own). */
const ENV = {
  RATE_LIMIT_MAX: '0',
  LOGIN_MAX_FAILURES: '0',
  SUBMISSIONS: 'anyone',
  SUBMISSIONS_MIN_FILL: '0',
  SUBMISSIONS_MAX_PER_ADDRESS: '0',
  SUBMISSIONS_MAX_PER_EMAIL: '0',
  SUBMISSIONS_NOTIFY: 'off',
  FEDERATION: 'true',
  // The suite's own follower (and hostile key ids) are on loopback addresses.
  FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true',
  FEDERATION_INBOX_RATE_LIMIT: '0',
  FEDERATION_RETRY_SCHEDULE: '1h',
};

const REST = '/api';
const ADMIN_NS = `${REST}/calendar/admin/v1`;
const SUB_NS = `${REST}/calendar/submissions/v1`;
const EMBED_NS = `${REST}/calendar/embed/v1`;

/**
 * The tables requests write (their row counts), and the change log's position. Left out: what the
 * background jobs write after an earlier accepted request (federation deliveries, activities and
 * their state, webhook deliveries), Fedify's key-value cache and the inbox's replay memory
 * (`federation_kv`: a refused signed request is remembered too, by design), and settings.
 */
const COUNTED = [
  'posts',
  'events',
  'venues',
  'organizers',
  'terms',
  'event_terms',
  'event_organizers',
  'images',
  'users',
  'app_passwords',
  'sessions',
  'user_totp',
  'submissions',
  'submission_log',
  'webhook_endpoints',
  'imports',
  'federation_followers',
  'federation_received',
  'federation_queue',
] as const;

async function writeState(t: TestServer): Promise<Record<string, number>> {
  const counts = COUNTED.map((table) => sql`(select count(*) from ${sql.table(table)}) as ${sql.ref(table)}`);
  const r = await sql<Record<string, unknown>>`select (select value from change_counter where id = 1) as seq, ${sql.join(counts)}`.execute(t.built.store.db);
  return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)]));
}

/**
 * What a 4xx changed, or '' when nothing: every count and the change log's position the same. A
 * refusal may end sessions (a sign-in step refused too often ends its half-signed-in session),
 * never add one.
 */
function writtenBetween(before: Record<string, number>, after: Record<string, number>): string {
  return Object.keys(before)
    .filter((k) => (k === 'sessions' ? after[k]! > before[k]! : after[k] !== before[k]))
    .map((k) => `${k} ${before[k]} → ${after[k]}`)
    .join(', ');
}

// ------------------------------------------------------------------ requests

/** How a request's body is signed when sent (the Date must be fresh; a resend is signed anew). */
interface Signing {
  keyId: string;
  spec: 'draft-cavage-http-signatures-12' | 'rfc9421';
  /** change the body after signing (its digest no longer matches), or sign with a date an hour old */
  tamper?: 'body' | 'stale';
}

interface Req {
  face: Face;
  method: string;
  /** path and query, from the origin */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** sent over a socket as it is (the request head's Content-Length and Transfer-Encoding are the test's) */
  raw?: { head: string; body: string };
  sign?: Signing;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  raw: boolean;
  /** whether it carries an X-Request-Id (every answer of a route does; Node's parser's refusals do not) */
  requestId: boolean;
}

/** One request over a socket, `Connection: close`: the first answer's status, headers and body. */
function rawRequest(port: number, data: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(timer);
      // A reset after an answer (the server closed while we were still writing) still answered.
      if (chunks.length) done();
      else reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const headEnd = text.indexOf('\r\n\r\n');
      const head = headEnd < 0 ? text : text.slice(0, headEnd);
      const contentType = /\r\ncontent-type:\s*([^\r\n]*)/i.exec(head)?.[1] ?? '';
      resolve({
        status: Number(m[1]),
        contentType,
        text: headEnd < 0 ? '' : Buffer.from(text.slice(headEnd + 4), 'latin1').toString('utf8'),
        raw: true,
        requestId: /\r\nx-request-id:/i.test(head),
      });
    };
    socket.write(data, 'latin1');
  });
}

/** A signed copy of the request's headers (draft-cavage or RFC 9421), by the suite's follower. */
async function signed(url: string, req: Req, key: CryptoKey): Promise<{ headers: Record<string, string>; body: string | Uint8Array | undefined }> {
  const s = req.sign!;
  const stale = s.tamper === 'stale';
  const base: Record<string, string> = { ...req.headers, ...(stale ? { date: new Date(Date.now() - 3_600_000).toUTCString() } : {}) };
  const r = await signRequest(new Request(url, { method: 'POST', headers: base, body: req.body as BodyInit }), key as never, new URL(s.keyId), {
    spec: s.spec,
    ...(stale ? { currentTime: Temporal.Instant.fromEpochMilliseconds(Date.now() - 3_600_000) } : {}),
  });
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    headers[k] = v;
  });
  const body = s.tamper === 'body' && typeof req.body === 'string' ? req.body.replace(/"/, ' "') : req.body;
  return { headers, body };
}

// ------------------------------------------------------------------ shared arbitraries

const AUTHS = ['admin', 'editor', 'author', 'app-password', 'cookie', 'anonymous', 'bad', 'malformed'] as const;
type Auth = (typeof AUTHS)[number];

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom('%zz', '%00', '%E0%A4%A', '..%2F..%2F', '%2e%2e', 'a%2Fb', '\r\nX-Injected: 1') },
);

/** Headers anyone may send anywhere: conditional, language, forwarding, odd ones. */
const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom(
    'if-match',
    'if-none-match',
    'if-modified-since',
    'if-unmodified-since',
    'accept-language',
    'x-forwarded-for',
    'x-forwarded-proto',
    'x-http-method-override',
    'range',
    'x-wp-nonce',
    'origin',
    'accept',
  ),
  fc.oneof(
    fc.constantFrom(
      '*',
      '"x"',
      'W/"1"',
      '"a", "b"',
      'Thu, 01 Jan 1970 00:00:00 GMT',
      'yesterday',
      'fr',
      'fr-CA,fr;q=0.9,*;q=0.1',
      'xx-' + 'y'.repeat(300),
      '127.0.0.1, 10.0.0.1',
      'bytes=0-1',
      'DELETE',
      'null',
      'https://evil.example',
    ),
    fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, ' ').replace(/[^\x20-\x7e]/g, '?')),
  ),
  { maxKeys: 3 },
);

// ------------------------------------------------------------------ the suite

/** What the suite made before the run: records, users, sessions, tokens (the ids the generators address). */
interface World {
  eventId: number;
  eventSlug: string;
  categorySlug: string;
  syncToken: string;
  credentials: Record<string, string>;
  victims: number[];
  appPassword: { user: number; uuid: string; secret: string };
  webhookId: number;
  importId: number;
  submissionTokens: string[];
  submissionIds: number[];
  sessionIds: number[];
  followerIds: number[];
  deliveryIds: number[];
  /** admin's browser session (cookie, REST nonce, form nonce) */
  adminSession: { cookie: string; restNonce: string; formNonce: string };
  /** a session that forms may sign out (a user of its own) */
  throwaway: { cookie: string; formNonce: string };
  /** a session past the password, waiting for its TOTP code */
  halfSession: { cookie: string; formNonce: string };
  /** a pre-session cookie of the login form and its nonce */
  login: { cookie: string; nonce: string };
  formStamp: string;
  follower: Follower;
  actorUrl: string;
  embedHash: string;
}

interface IndexedRoute {
  path: string;
  endpoints: Array<{ methods: string[]; args: string[] }>;
}

async function indexOf(t: TestServer, ns: string): Promise<IndexedRoute[]> {
  const res = await t.api.get(ns, { as: 'admin' });
  assert.equal(res.status, 200, res.text);
  const prefix = ns.slice(REST.length);
  return Object.entries(res.body.routes as Record<string, { endpoints: Array<{ methods: string[]; args: Record<string, unknown> | unknown[] }> }>).map(([key, entry]) => ({
    path: key.slice(prefix.length).replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}'),
    endpoints: entry.endpoints.map((e) => ({ methods: e.methods, args: Array.isArray(e.args) ? [] : Object.keys(e.args) })),
  }));
}

const formNonceOf = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';
const restNonceOf = (html: string) => /name="calendar-rest-nonce" content="([^"]*)"/.exec(html)?.[1] ?? '';
const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

async function formPost(t: TestServer, path: string, fields: Record<string, string>, cookie = ''): Promise<Response> {
  return fetch(t.origin + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
  });
}

async function htmlPage(t: TestServer, path: string, cookie = ''): Promise<string> {
  const res = await fetch(t.origin + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return res.text();
}

/** Sign in through the admin face's form: the session cookie. */
async function signIn(t: TestServer, login: string, password: string): Promise<string> {
  const form = await fetch(`${t.origin}/admin/login`);
  const res = await formPost(t, '/admin/login', { log: login, pwd: password, _wpnonce: formNonceOf(await form.text()) }, cookieOf(form));
  assert.equal(res.status, 303, `sign-in of ${login}`);
  return cookieOf(res);
}

async function makeWorld(t: TestServer): Promise<World> {
  const credentials: Record<string, string> = { admin: `${ADMIN.login}:${ADMIN.password}` };
  for (const role of ['editor', 'author'] as const) credentials[role] = (await t.user(role)).credentials;
  const victims = [(await t.user('subscriber', 'victim1')).id, (await t.user('contributor', 'victim2')).id];
  await t.user('author', 'throwaway');
  await t.user('editor', 'twofa');

  const ev = await t.api.post('/events', {
    as: 'admin',
    json: {
      title: 'Faces fuzz target',
      status: 'publish',
      start_date: '2031-01-01 10:00:00',
      end_date: '2031-01-01 12:00:00',
      venue: { venue: 'Fuzz hall', city: 'Springfield' },
      organizer: [{ organizer: 'Fuzz org' }],
      categories: ['Fuzz category'],
      tags: ['fuzz-tag'],
    },
  });
  assert.equal(ev.status, 201, ev.text);

  const app = await t.api.post(`${ADMIN_NS}/users/${victims[0]}/application-passwords`, { as: 'admin', json: { name: 'fuzz' } });
  assert.equal(app.status, 201, app.text);
  const mine = await t.api.post(`${ADMIN_NS}/users/1/application-passwords`, { as: 'admin', json: { name: 'fuzz-admin' } });
  assert.equal(mine.status, 201, mine.text);
  credentials['app-password'] = `${ADMIN.login}:${mine.body.password}`;

  const hook = await t.api.post(`${ADMIN_NS}/webhooks`, { as: 'admin', json: { url: 'https://hooks.example.invalid/fuzz', events: ['*'] } });
  assert.equal(hook.status, 201, hook.text);
  const imp = await t.api.post(`${ADMIN_NS}/imports`, { as: 'admin', json: { file: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n' } });
  assert.equal(imp.status, 202, imp.text);

  const submissionTokens: string[] = [];
  for (let i = 0; i < 4; i++) {
    const s = await t.api.post(`${SUB_NS}/submissions`, {
      json: { title: `Submitted ${i}`, start_date: '2031-06-21 18:00', end_date: '2031-06-21 23:00', name: 'Ann', email: `ann${i}@example.org` },
    });
    assert.equal(s.status, 201, s.text);
    submissionTokens.push(s.body.token);
  }
  const queue = await t.api.get(`${ADMIN_NS}/submissions`, { as: 'admin' });
  assert.equal(queue.status, 200, queue.text);
  const submissionIds = (queue.body as Array<{ id: number }>).map((s) => s.id);

  // Browser sessions: the administrator's, one a form may end, and one waiting for its TOTP code.
  const adminCookie = await signIn(t, ADMIN.login, ADMIN.password);
  const account = await htmlPage(t, '/admin/account', adminCookie);
  const throwawayCookie = await signIn(t, 'throwaway', 'throwaway-pw');
  const twofaCookie = await signIn(t, 'twofa', 'twofa-pw');
  const twofaAccount = await htmlPage(t, '/admin/account', twofaCookie);
  assert.equal((await formPost(t, '/admin/two-factor/start', { _wpnonce: formNonceOf(twofaAccount) }, twofaCookie)).status, 303);
  const pending = await htmlPage(t, '/admin/account', twofaCookie);
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(pending)![1]!;
  const confirmed = await formPost(t, '/admin/two-factor/confirm', { _wpnonce: formNonceOf(pending), code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() }, twofaCookie);
  assert.equal(confirmed.status, 200);
  const halfCookie = await signIn(t, 'twofa', 'twofa-pw');
  const codePage = await htmlPage(t, '/admin/login', halfCookie);
  assert.match(codePage, /name="code"/);
  const sessions = await t.api.get(`${ADMIN_NS}/sessions`, { as: 'admin' });
  assert.equal(sessions.status, 200, sessions.text);
  const loginForm = await fetch(`${t.origin}/admin/login`);

  const stampPage = await htmlPage(t, '/events/submit/');
  const formStamp = /name="_started" value="([^"]*)"/.exec(stampPage)![1]!;

  // A follower of our own (Fedify on a loopback port): it follows, and its key signs inbox requests.
  const follower = await startFollower('alice');
  const actor = await follower.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
  await follower.follow(actor);
  await follower.waitFor((a) => a.type === 'Accept');
  const followers = await t.api.get(`${ADMIN_NS}/federation/followers`, { as: 'admin' });
  const deliveries = await t.api.get(`${ADMIN_NS}/federation/deliveries`, { as: 'admin' });

  const dav = await fetch(`${t.origin}/dav/public/calendars/events/`, {
    method: 'PROPFIND',
    headers: { depth: '0', 'content-type': 'application/xml' },
    body: '<d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>',
  });
  const syncToken = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(await dav.text())?.[1] ?? '';
  assert.ok(syncToken, 'a sync token');

  const script = await fetch(`${t.origin}/embed/events-calendar.js`);
  const preload = script.headers.get('link') ?? '';
  await script.arrayBuffer();

  return {
    eventId: ev.body.id,
    eventSlug: ev.body.slug,
    categorySlug: ev.body.categories[0].slug,
    syncToken: syncToken.replace(/&amp;/g, '&'),
    credentials,
    victims,
    appPassword: { user: victims[0]!, uuid: app.body.uuid, secret: app.body.password },
    webhookId: hook.body.id,
    importId: imp.body.id,
    submissionTokens,
    submissionIds,
    sessionIds: (sessions.body as Array<{ id: number }>).map((s) => s.id),
    followerIds: ((followers.body ?? []) as Array<{ id: number }>).map((f) => f.id),
    deliveryIds: ((deliveries.body ?? []) as Array<{ id: number }>).map((d) => d.id),
    adminSession: { cookie: adminCookie, restNonce: restNonceOf(account), formNonce: formNonceOf(account) },
    throwaway: { cookie: throwawayCookie, formNonce: formNonceOf(await htmlPage(t, '/admin/account', throwawayCookie)) },
    halfSession: { cookie: halfCookie, formNonce: formNonceOf(codePage) },
    login: { cookie: cookieOf(loginForm), nonce: formNonceOf(await loginForm.text()) },
    formStamp,
    follower,
    actorUrl: `${t.origin}/federation/actors/events`,
    embedHash: /events-calendar\.([^.]+)\.js/.exec(preload)?.[1] ?? 'nohash',
  };
}

/** The Authorization (and cookie) headers of a role. */
function authHeaders(w: World, auth: Auth): Record<string, string> {
  const basic = (c: string) => ({ authorization: 'Basic ' + Buffer.from(c).toString('base64') });
  switch (auth) {
    case 'anonymous':
      return {};
    case 'bad':
      return basic('nobody:wrong\u0000pw');
    case 'malformed':
      return { authorization: 'Basic !!!not-base64' };
    case 'cookie':
      return { cookie: w.adminSession.cookie, 'x-wp-nonce': w.adminSession.restNonce };
    default:
      return basic(w.credentials[auth]!);
  }
}

// ------------------------------------------------------------------ REST-like namespaces

/** Requests to a namespace's routes (its index), as fuzz.test.ts sends them to the REST API. */
function namespaceArb(
  face: Face,
  ns: string,
  routes: IndexedRoute[],
  w: World,
  ids: (path: string, name: string) => string[],
  base: (path: string, method: string) => Array<[string, unknown]>,
  auths: readonly Auth[],
): fc.Arbitrary<Req> {
  return fc.integer({ min: 0, max: routes.length - 1 }).chain((i) => {
    const r = routes[i]!;
    const declared = [...new Set(r.endpoints.flatMap((e) => e.args))];
    const methods = [...new Set(r.endpoints.flatMap((e) => e.methods)), 'GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'];
    const keyArb = declared.length ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...declared) }, { weight: 1, arbitrary: fc.constantFrom(...KEY_EXTRAS) }) : fc.constantFrom(...KEY_EXTRAS);
    const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const pathArbs = names.map((name) =>
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...ids(r.path, name), '0', '1') },
        { weight: 1, arbitrary: fc.constantFrom('2147483648', '99999999999', '1' + '0'.repeat(30), '007', '-1', '1.5', '%zz', '%00', 'x'.repeat(3000), '..') },
        { weight: 1, arbitrary: fc.constantFrom(...INJECTIONS).map((s) => encodePart(s, false)) },
      ),
    );
    return fc
      .record({
        method: fc.constantFrom(...methods),
        values: fc.tuple(...pathArbs),
        params: fc.array(fc.tuple(keyArb, valueArb), { maxLength: 6 }),
        encoding: fc.constantFrom('query', 'query', 'json', 'json', 'form', 'malformed-json', 'text-plain', 'multipart', 'json-scalar', 'raw-query', 'deep-brackets'),
        auth: fc.constantFrom(...auths),
        validBase: fc.boolean(),
        headers: extraHeaders,
      })
      .map((x): Req => {
        let k = 0;
        const path = ns + r.path.replace(/\{\w+\}/g, () => x.values[k++]!);
        const params: Array<[string, unknown]> = x.validBase ? [...base(r.path, x.method), ...x.params.slice(0, 2)] : x.params;
        const headers: Record<string, string> = { ...x.headers, ...authHeaders(w, x.auth) };
        let query = '';
        let body: string | undefined;
        switch (x.encoding) {
          case 'query':
            query = encodeParams(params, false);
            break;
          case 'raw-query':
            query = encodeParams(params, true).replace(/#/g, '%23');
            break;
          case 'deep-brackets':
            query = params.map(([key], j) => `${encodePart(key, false)}${'[a]'.repeat(3 + j * 4)}[]=1`).join('&') + '&x[[[]]]=1&[]=2&a]=3';
            break;
          case 'json':
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(params));
            break;
          case 'json-scalar':
            headers['content-type'] = 'application/json; charset=utf-8';
            body = JSON.stringify(params[0]?.[1] ?? 42) ?? 'null';
            break;
          case 'malformed-json':
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(params)).slice(0, -1) + ',,}';
            break;
          case 'form':
            headers['content-type'] = 'application/x-www-form-urlencoded';
            body = encodeParams(params, false);
            break;
          case 'text-plain':
            headers['content-type'] = 'text/plain';
            body = encodeParams(params, false);
            break;
          case 'multipart':
            headers['content-type'] = 'multipart/form-data; boundary=zzz';
            body = `--zzz\r\nContent-Disposition: form-data; name="${params[0]?.[0] ?? 'file'}"; filename="a.ics"\r\nContent-Type: text/calendar\r\n\r\n${asText(params[0]?.[1] ?? 'x')}\r\n--zzz--\r\n`;
            break;
        }
        return { face, method: x.method, path: path + (query ? `?${query}` : ''), headers, ...(body !== undefined && x.method !== 'GET' && x.method !== 'HEAD' ? { body } : {}) };
      });
  });
}

// ------------------------------------------------------------------ CalDAV

const DAV_METHODS = [
  'OPTIONS',
  'PROPFIND',
  'PROPFIND',
  'PROPFIND',
  'REPORT',
  'REPORT',
  'REPORT',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'POST',
  'MKCALENDAR',
  'MKCOL',
  'PROPPATCH',
  'MOVE',
  'COPY',
  'LOCK',
  'UNLOCK',
  'ACL',
  'PATCH',
  'SEARCH',
];
const NS = 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:x="urn:x-fuzz"';
const PROPS = [
  'd:getetag',
  'd:displayname',
  'd:resourcetype',
  'd:sync-token',
  'd:current-user-principal',
  'd:current-user-privilege-set',
  'd:supported-report-set',
  'd:getlastmodified',
  'd:getcontentlength',
  'd:getcontenttype',
  'd:owner',
  'd:principal-URL',
  'd:principal-collection-set',
  'c:calendar-data',
  'c:calendar-home-set',
  'c:calendar-description',
  'c:calendar-timezone',
  'c:supported-calendar-component-set',
  'c:calendar-user-address-set',
  'cs:getctag',
  'x:unknown',
];
const TIMES = [
  '20310101T000000Z',
  '20300101T000000Z',
  '20320101T000000Z',
  '19000101T000000Z',
  '99991231T235959Z',
  '00000000T000000Z',
  '2031-01-01',
  '20310101T000000',
  '',
  'x',
  '20311340T250000Z',
  '1e308',
];

function davArb(w: World): fc.Arbitrary<Req> {
  const member = `/dav/calendars/events/${w.eventId}.ics`;
  const category = `/dav/calendars/category-${encodeURIComponent(w.categorySlug)}/`;
  const paths = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(
        '/dav',
        '/dav/',
        '/dav/principals/',
        '/dav/public/',
        '/dav/public/principals/',
        '/dav/public/principals/anonymous/',
        '/dav/public/calendars/',
        '/dav/public/calendars/events/',
        member.replace('/dav/', '/dav/public/'),
        category.replace('/dav/', '/dav/public/'),
        '/dav/principals/users/admin/',
        '/dav/principals/users/editor/',
        '/dav/calendars/',
        '/dav/calendars/events/',
        '/dav/calendars/events/',
        category,
        member,
        member,
        `${category}${w.eventId}.ics`,
        '/.well-known/caldav',
        '/.well-known/caldav/',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/dav/calendars/events/0.ics',
        '/dav/calendars/events/999999999999999.ics',
        '/dav/calendars/events/1e3.ics',
        '/dav/calendars/nope/',
        '/dav/calendars/category-%00/',
        '/dav/calendars/category-%zz/',
        '/dav/calendars/events/x/y/z',
        '/dav//calendars//events//',
        '/dav/calendars/events/?x=1&x[]=2',
        '/dav/' + 'a/'.repeat(500),
        '/dav/%E0%A4%A',
        '/dav/principals/users/%zz/',
        '/dav/principals/users/' + 'x'.repeat(3000) + '/',
        '/dav/calendars/events/../../admin/',
        '/.well-known/caldav?x=%zz',
      ),
    },
    { weight: 1, arbitrary: hostileString.map((s) => `/dav/calendars/${encodePart(s, false)}/`) },
  );
  const depth = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('0', '1', 'infinity') },
    { weight: 1, arbitrary: fc.constantFrom('', '2', '-1', 'Infinity ', ' 1', '0, 1', 'x'.repeat(500)) },
    { weight: 2, arbitrary: fc.constant(undefined) },
  );
  const props = fc.array(fc.constantFrom(...PROPS), { maxLength: 12 }).map((p) => p.map((n) => `<${n}/>`).join(''));
  const propfind = fc.oneof(
    props.map((p) => `<?xml version="1.0" encoding="utf-8"?><d:propfind ${NS}><d:prop>${p}</d:prop></d:propfind>`),
    fc.constant(`<d:propfind ${NS}><d:allprop/></d:propfind>`),
    props.map((p) => `<d:propfind ${NS}><d:allprop/><d:include>${p}</d:include></d:propfind>`),
    fc.constant(`<d:propfind ${NS}><d:propname/></d:propfind>`),
    fc.constant(`<d:propfind ${NS}></d:propfind>`),
    fc.constant(`<d:propfind xmlns:d="urn:not-dav"><d:prop><d:getetag/></d:prop></d:propfind>`),
    fc.integer({ min: 100, max: 20_000 }).map((n) => `<d:propfind ${NS}><d:prop>${'<d:getetag/>'.repeat(n)}</d:prop></d:propfind>`),
    fc.integer({ min: 100, max: 5_000 }).map((n) => `<d:propfind ${NS}><d:prop>${Array.from({ length: n }, (_, i) => `<x:p${i}/>`).join('')}</d:prop></d:propfind>`),
  );
  const comp = fc.oneof(
    fc.tuple(fc.constantFrom(...TIMES), fc.constantFrom(...TIMES)).map(([s, e]) => `<c:comp-filter name="VEVENT"><c:time-range start="${s}" end="${e}"/></c:comp-filter>`),
    fc.constantFrom(...TIMES).map((s) => `<c:comp-filter name="VEVENT"><c:time-range start="${s}"/></c:comp-filter>`),
    fc.constant('<c:comp-filter name="VEVENT"/>'),
    fc.constant('<c:comp-filter name="VTODO"/>'),
    fc.constant('<c:comp-filter name="VEVENT"><c:is-not-defined/></c:comp-filter>'),
    fc.constant('<c:comp-filter name="VEVENT"><c:prop-filter name="SUMMARY"><c:text-match>x</c:text-match></c:prop-filter></c:comp-filter>'),
    fc.constant('<c:comp-filter name="VEVENT"><c:comp-filter name="VALARM"/></c:comp-filter>'),
    fc.constant('<c:comp-filter name="VEVENT"/><c:comp-filter name="VTODO"/>'),
    fc.constant(''),
  );
  const calendarQuery = fc
    .tuple(props, comp, fc.constantFrom('VCALENDAR', 'vcalendar', 'VEVENT', ''), fc.boolean())
    .map(
      ([p, c, top, hasFilter]) =>
        `<?xml version="1.0"?><c:calendar-query ${NS}><d:prop>${p}</d:prop>${hasFilter ? `<c:filter><c:comp-filter name="${top}">${c}</c:comp-filter></c:filter>` : ''}</c:calendar-query>`,
    );
  const href = fc.oneof(
    fc.constant(`/dav/calendars/events/${w.eventId}.ics`),
    fc.nat().map((n) => `/dav/calendars/events/${n}.ics`),
    fc.constant(`${category}${w.eventId}.ics`),
    fc.constant(`http://127.0.0.1/dav/calendars/events/${w.eventId}.ics`),
    fc.constantFrom('', '%zz', '/dav/', 'javascript:x', '../../etc/passwd', 'http://[::1', '/dav/calendars/events/' + '9'.repeat(40) + '.ics'),
    hostileString,
  );
  const multiget = fc
    .tuple(props, fc.array(href, { maxLength: 8 }), fc.constantFrom(0, 0, 0, 100, 1_000, 5_000, 20_000))
    .map(
      ([p, hrefs, many]) =>
        `<c:calendar-multiget ${NS}><d:prop>${p}</d:prop>${hrefs.map((h) => `<d:href>${h.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</d:href>`).join('')}${`<d:href>/dav/calendars/events/${w.eventId}.ics</d:href>`.repeat(many)}</c:calendar-multiget>`,
    );
  const sync = fc
    .tuple(
      props,
      fc.oneof(fc.constant(w.syncToken), fc.constantFrom('', 'garbage', 'http://x/sync/abc', 'data:,1', `${w.syncToken}x`, w.syncToken.slice(0, -3)), hostileString),
      fc.constantFrom('1', 'infinite', '2', '', undefined),
      fc.constantFrom(undefined, '0', '1', '10', '999999999', 'x', '-1', '1e9'),
    )
    .map(
      ([p, token, level, limit]) =>
        `<d:sync-collection ${NS}><d:sync-token>${token.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</d:sync-token>${level === undefined ? '' : `<d:sync-level>${level}</d:sync-level>`}${limit === undefined ? '' : `<d:limit><d:nresults>${limit}</d:nresults></d:limit>`}<d:prop>${p}</d:prop></d:sync-collection>`,
    );
  const valid = fc.oneof(propfind, calendarQuery, multiget, sync, fc.constant(`<d:unknown-report ${NS}/>`), fc.constant(`<c:free-busy-query ${NS}/>`));
  const hostile = fc.oneof(
    // Truncated, or garbage.
    fc.tuple(valid, fc.nat()).map(([b, n]) => b.slice(0, n % Math.max(1, b.length))),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom('<', '<d:propfind', '</d:propfind>', '<a><b></a></b>', '<?xml version="1.0"?>', '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag></d:prop></d:propfind>', '<x:y/>', '<a/><b/>'),
    // Deep.
    fc.constantFrom(31, 32, 33, 200, 5_000, 100_000).map((n) => `<d:propfind ${NS}>${'<d:prop>'.repeat(n)}${'</d:prop>'.repeat(n)}</d:propfind>`),
    // Namespace-heavy: declarations in scope, copied per element.
    fc
      .tuple(fc.constantFrom(10, 300, 2_000, 4_000), fc.constantFrom(10, 1_000, 4_000))
      .map(
        ([decls, elements]) =>
          `<d:propfind ${NS} ${Array.from({ length: decls }, (_, i) => `xmlns:n${i}="urn:n${i}"`).join(' ')}><d:prop>${Array.from({ length: elements }, (_, i) => `<n${i % decls}:p/>`).join('')}</d:prop></d:propfind>`,
      ),
    fc.constantFrom(50, 500, 2_000).map((n) => `<d:propfind ${NS}>${Array.from({ length: n }, (_, i) => `<d:prop xmlns:q${i}="urn:q${i}">`).join('')}${'</d:prop>'.repeat(n)}</d:propfind>`),
    // Attribute-heavy.
    fc.constantFrom(100, 10_000, 60_000).map((n) => `<d:propfind ${NS} ${Array.from({ length: n }, (_, i) => `a${i}="${i}"`).join(' ')}><d:allprop/></d:propfind>`),
    // Entities: external (XXE), exponential (billion laughs), parameter, undefined, many references.
    fc.constantFrom(
      `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><d:propfind ${NS}><d:prop><x:a>&xxe;</x:a></d:prop></d:propfind>`,
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]><d:propfind ${NS}><d:prop><x:a>&lol4;</x:a></d:prop></d:propfind>`,
      `<?xml version="1.0"?><!DOCTYPE d SYSTEM "http://127.0.0.1:1/evil.dtd"><d:propfind ${NS}><d:allprop/></d:propfind>`,
      `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY % p SYSTEM "http://127.0.0.1:1/p">%p;]><d:propfind ${NS}><d:allprop/></d:propfind>`,
      `<!doctype d><d:propfind ${NS}><d:allprop/></d:propfind>`,
      `<d:propfind ${NS}><d:prop><x:a>&undefined;&#0;&#x110000;&#xD800;</x:a></d:prop></d:propfind>`,
      `<d:sync-collection ${NS}><d:sync-token>${'&amp;'.repeat(100_000)}</d:sync-token><d:prop/></d:sync-collection>`,
      `<d:propfind ${NS}><d:prop><x:a>${'&#x1F600;'.repeat(50_000)}</x:a></d:prop></d:propfind>`,
      `<d:propfind ${NS}><!--${'-'.repeat(1)}${'c'.repeat(400_000)}--><d:allprop/></d:propfind>`,
      `<d:propfind ${NS}><d:prop><x:a><![CDATA[${'c'.repeat(400_000)}]]></x:a></d:prop></d:propfind>`,
      `<?xml version="1.0"?>${'<?pi x?>'.repeat(20_000)}<d:propfind ${NS}><d:allprop/></d:propfind>`,
      `\ufeff<?xml version="1.0" encoding="UTF-7"?><d:propfind ${NS}><d:allprop/></d:propfind>`,
    ),
    // More than the body limit.
    fc.constant(`<d:propfind ${NS}><d:prop><x:a>${'x'.repeat(1_100_000)}</x:a></d:prop></d:propfind>`),
  );
  const body = fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 6, arbitrary: valid }, { weight: 5, arbitrary: hostile });
  const bytes = fc.oneof(
    { weight: 12, arbitrary: body.map((b): string | Uint8Array | undefined => b) },
    // UTF-16 with its byte order mark, and invalid UTF-8.
    { weight: 1, arbitrary: valid.map((b) => new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(b, 'utf16le')]))) },
    { weight: 1, arbitrary: valid.map((b) => new Uint8Array(Buffer.concat([Buffer.from(b.slice(0, 20)), Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]), Buffer.from(b.slice(20))]))) },
  );
  const contentType = fc.constantFrom(
    'application/xml; charset=utf-8',
    'application/xml; charset=utf-8',
    'text/xml',
    undefined,
    'text/plain',
    'application/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml; charset=ISO-8859-1',
    'application/xml; charset=utf-16',
    'x/y; ;;; =',
  );
  const davHeaders = fc.record(
    {
      brief: fc.constantFrom('t', 'f', 'T', ''),
      prefer: fc.constantFrom('return=minimal', 'return-minimal', 'return=representation', 'x'.repeat(200)),
      'if-match': fc.constantFrom('*', '"x"', `"${w.syncToken}"`, 'W/"1"', ''),
      'if-none-match': fc.constantFrom('*', '"x"'),
      destination: fc.constantFrom('/dav/calendars/events/2.ics', 'http://evil.example/x', '%zz'),
      overwrite: fc.constantFrom('T', 'F', 'x'),
      timeout: fc.constantFrom('Second-60', 'Infinite', 'x'),
      'lock-token': fc.constantFrom('<opaquelocktoken:x>', 'x'),
      'x-fuzz': fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, '?')),
    },
    { requiredKeys: [] },
  );
  const auths = fc.constantFrom<Auth>('anonymous', 'anonymous', 'anonymous', 'admin', 'editor', 'app-password', 'bad', 'malformed');
  const fetched = fc.record({ method: fc.constantFrom(...DAV_METHODS), path: paths, depth, body: bytes, contentType, headers: davHeaders, auth: auths }).map((x): Req => {
    const headers: Record<string, string> = { ...x.headers, ...authHeaders(w, x.auth) };
    if (x.depth !== undefined) headers.depth = x.depth;
    if (x.contentType !== undefined) headers['content-type'] = x.contentType;
    return { face: 'caldav', method: x.method, path: x.path, headers, ...(x.body !== undefined && x.method !== 'GET' && x.method !== 'HEAD' ? { body: x.body } : {}) };
  });
  // Content-Length and Transfer-Encoding that do not match the body: over a socket.
  const raw = fc
    .record({
      method: fc.constantFrom('PROPFIND', 'REPORT', 'PUT', 'OPTIONS'),
      path: paths,
      body: valid,
      framing: fc.constantFrom('not-a-number', 'negative', 'conflicting', 'shorter', 'huge', 'chunked-and-length', 'bad-chunks', 'space', 'plus'),
    })
    .map((x): Req => {
      const len = Buffer.byteLength(x.body);
      const framing: Record<string, string> = {
        'not-a-number': 'Content-Length: abc\r\n',
        negative: 'Content-Length: -5\r\n',
        conflicting: `Content-Length: ${len}\r\nContent-Length: ${len + 7}\r\n`,
        shorter: `Content-Length: ${Math.max(0, len - 10)}\r\n`,
        huge: 'Content-Length: 99999999999999\r\n',
        'chunked-and-length': `Content-Length: ${len}\r\nTransfer-Encoding: chunked\r\n`,
        'bad-chunks': 'Transfer-Encoding: chunked\r\n',
        space: `Content-Length : ${len}\r\n`,
        plus: `Content-Length: +${len}\r\n`,
      };
      const body = x.framing === 'bad-chunks' ? `zz\r\n${x.body}\r\n0\r\n\r\n` : x.framing === 'huge' ? x.body.slice(0, 50) : x.body;
      return {
        face: 'caldav',
        method: x.method,
        path: x.path,
        headers: {},
        raw: { head: `${x.method} ${x.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/xml\r\nDepth: 1\r\n${framing[x.framing]}\r\n`, body },
      };
    });
  // What clients send (a read method with its body, a Depth the resource takes, credentials that
  // work), so that the answers' own paths (multistatus, calendar data) meet hostile values too.
  const plausible = fc
    .record({
      request: fc.oneof(
        fc.tuple(fc.constant('PROPFIND'), propfind, fc.constantFrom('0', '1')),
        fc.tuple(fc.constant('REPORT'), fc.oneof(calendarQuery, multiget, sync), fc.constantFrom('0', '1', '1')),
        fc.tuple(fc.constantFrom('GET', 'HEAD', 'OPTIONS'), fc.constant(''), fc.constantFrom('0', '1')),
      ),
      path: fc.constantFrom('/dav/', '/dav/calendars/', '/dav/calendars/events/', '/dav/calendars/events/', category, member, '/dav/principals/public/', '/dav/principals/users/admin/'),
      auth: fc.constantFrom<Auth>('anonymous', 'anonymous', 'admin', 'app-password', 'editor'),
      minimal: fc.boolean(),
    })
    .map(({ request, path, auth, minimal }): Req => {
      const [method, body, depth] = request as [string, string, string];
      // The calendar reports are the calendars' (and their members'); principals are the others'.
      const at = method === 'REPORT' && !path.startsWith('/dav/calendars/') ? '/dav/calendars/events/' : path;
      return {
        face: 'caldav',
        method,
        path: at,
        headers: { depth, 'content-type': 'application/xml; charset=utf-8', ...(minimal ? { prefer: 'return=minimal' } : {}), ...authHeaders(w, auth) },
        ...(body ? { body } : {}),
      };
    });
  return fc.oneof({ weight: 8, arbitrary: plausible }, { weight: 12, arbitrary: fetched }, { weight: 1, arbitrary: raw });
}

// ------------------------------------------------------------------ federation

/** Ids of the activities and objects the suite sends: new each time (Fedify handles an id once). */
let sequence = 0;
const nextId = () => `${process.pid}-${++sequence}`;

function federationArb(w: World, t: TestServer): fc.Arbitrary<Req> {
  const host = new URL(t.origin).host;
  const f = w.follower;
  const accept = fc.constantFrom(
    'application/activity+json',
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
    'application/json',
    'application/jrd+json',
    'text/html',
    '*/*',
    'text/html, application/activity+json',
    'x/y;;q=x',
    '',
  );
  const gets = fc.oneof(
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(`acct:events@${host}`, `acct:EVENTS@${host}`, `acct:events@evil.example`, 'acct:', 'acct:@', `acct:alice@${host}`, w.actorUrl, `${t.origin}/`, 'mailto:x@y'),
          hostileString,
        ),
        fc.constantFrom('', '&rel=self', '&rel=http://webfinger.net/rel/profile-page', `&resource=acct:other@${host}`, '&resource[]=x', '&rel=' + 'x'.repeat(2000)),
      )
      .map(([resource, extra]) => `/.well-known/webfinger?resource=${encodePart(resource, false)}${extra}`),
    fc.constantFrom('/.well-known/webfinger', '/.well-known/webfinger?resource', '/.well-known/nodeinfo', '/nodeinfo/2.1', '/nodeinfo/2.1?x=%zz', '/nodeinfo/2.0'),
    fc.constantFrom('events', 'EVENTS', 'alice', '%zz', 'x'.repeat(3000), '..', 'events%00').map((h) => `/federation/actors/${h}`),
    fc
      .tuple(
        fc.constantFrom('events', 'other'),
        fc.constantFrom('', '?page=1', '?page=2', '?page=0', '?page=-1', '?page=1e9', '?page=99999999999999999', '?page=1.5', '?page=x', '?page[]=1', '?page=5000', '?page=1e20', '?page=2147483648'),
      )
      .map(([h, q]) => `/federation/actors/${h}/outbox${q}`),
    fc.constantFrom('events', 'x').map((h) => `/federation/actors/${h}/followers`),
    fc.constantFrom(String(w.eventId), '0', '-1', '1.5', '99999999999999999999', '2147483648', 'x', '%zz').map((id) => `/federation/events/${id}`),
    fc
      .oneof(
        fc.constantFrom('x', '%zz', '..', ''),
        hostileString.map((s) => encodePart(s, false)),
      )
      .map((id) => `/federation/activities/${id}`),
    fc.constantFrom(w.eventSlug, 'nope', '%zz').map((s) => `/event/${s}/`),
  );
  const getReq = fc
    .record({ path: gets, accept, method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS') })
    .map((x): Req => ({ face: 'federation', method: x.method, path: x.path, headers: x.accept ? { accept: x.accept } : {} }));

  const ref = fc.oneof(
    fc.constantFrom(
      f.actorId,
      w.actorUrl,
      `${w.actorUrl}/inbox`,
      'http://127.0.0.1:1/u',
      'https://actor.invalid/u',
      `${t.origin}/federation/events/${w.eventId}`,
      'not a url',
      'javascript:alert(1)',
      '',
    ),
    hostileString,
  );
  const context = fc.constantFrom<unknown>(
    'https://www.w3.org/ns/activitystreams',
    ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    'http://127.0.0.1:1/context.jsonld',
    'https://context.invalid/ld',
    { '@vocab': 'urn:x:' },
    [{ '@context': { '@context': 'x' } }],
    null,
    42,
    [],
  );
  const object: fc.Arbitrary<unknown> = fc.oneof(
    ref,
    fc.record(
      {
        type: fc.constantFrom('Note', 'Event', 'Person', 'Tombstone', 'Follow', 'x'),
        id: ref,
        content: hostileString,
        name: hostileString,
        startTime: fc.constantFrom('2031-01-01T00:00:00Z', 'x', ''),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('Follow'), actor: ref, object: ref }),
    fc.array(ref, { maxLength: 5 }),
    valueArb,
  );
  const activity = fc
    .record(
      {
        '@context': context,
        id: fc.oneof(
          fc.nat().map((n) => `${f.origin}/activities/${n}-${nextId()}`),
          ref,
        ),
        type: fc.constantFrom('Follow', 'Follow', 'Undo', 'Delete', 'Create', 'Update', 'Like', 'Announce', 'Accept', 'Reject', 'Block', 'Flag', 'Move', 'Question', 'Note', 'x:Evil', '', 42),
        actor: fc.oneof({ weight: 3, arbitrary: fc.constant(f.actorId) }, { weight: 2, arbitrary: ref }, { weight: 1, arbitrary: fc.record({ id: ref, type: fc.constant('Person'), inbox: ref }) }),
        object,
        to: fc.oneof(
          fc.constant(['https://www.w3.org/ns/activitystreams#Public']),
          fc.array(ref, { maxLength: 3 }),
          fc.constantFrom(1_000, 20_000).map((n) => Array.from({ length: n }, (_, i) => `${f.origin}/u/${i}`)),
        ),
        extra: fc.dictionary(fc.constantFrom('cc', 'bto', 'signature', 'published', 'tag', 'attachment', '@id', '@type', '__proto__', 'x'), valueArb, { maxKeys: 3 }),
      },
      { requiredKeys: ['type'] },
    )
    .map(({ extra, ...a }) => JSON.stringify({ ...a, ...extra }));
  const bodyArb = fc.oneof(
    { weight: 8, arbitrary: activity },
    { weight: 1, arbitrary: valueArb.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: activity.map((b) => b.slice(0, -1) + ',,}') },
    { weight: 1, arbitrary: fc.constantFrom(100, 5_000, 50_000).map((n) => `{"type":"Follow","actor":${'['.repeat(n)}1${']'.repeat(n)}}`) },
    { weight: 1, arbitrary: fc.constantFrom(100, 5_000, 50_000).map((n) => `${'{"object":'.repeat(n)}{"type":"Note"}${'}'.repeat(n)}`) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify({ type: 'Note', content: 'x'.repeat(300_000) })) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
  );
  const signing = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    {
      weight: 6,
      arbitrary: fc.record(
        {
          keyId: fc.oneof({ weight: 5, arbitrary: fc.constant(`${f.actorId}#main-key`) }, { weight: 1, arbitrary: fc.constant(`${w.actorUrl}#main-key`) }),
          spec: fc.constantFrom<Signing['spec']>('draft-cavage-http-signatures-12', 'draft-cavage-http-signatures-12', 'rfc9421'),
          tamper: fc.constantFrom<Signing['tamper']>('body', 'stale'),
        },
        { requiredKeys: ['keyId', 'spec'] },
      ),
    },
  );
  // Signature headers that are not signatures: key ids the server would fetch, garbage.
  const forged = fc
    .tuple(
      fc.constantFrom(
        'http://127.0.0.1:1/key',
        'https://key.invalid/actor#main-key',
        `${f.actorId}#main-key`,
        `${w.actorUrl}#main-key`,
        `${t.origin}/dav/`,
        `${t.origin}/federation/actors/events/inbox`,
        'not a url',
        'javascript:alert(1)',
        'x'.repeat(5000),
      ),
      fc.constantFrom('cavage', 'rfc9421', 'garbage'),
    )
    .map(([keyId, kind]): Record<string, string> => {
      if (kind === 'garbage') return { signature: `keyId="${keyId}",signature=!!!,headers=(((`, date: 'yesterday', digest: 'SHA-256=nope' };
      if (kind === 'rfc9421')
        return { 'signature-input': `sig1=("@method" "@target-uri");keyid="${keyId}";created=${Math.floor(Date.now() / 1000)}`, signature: 'sig1=:AAAA:', date: new Date().toUTCString() };
      return { signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"`, date: new Date().toUTCString() };
    });
  const inbox = fc
    .record({
      path: fc.constantFrom('/federation/inbox', '/federation/actors/events/inbox', '/federation/actors/other/inbox'),
      body: bodyArb,
      contentType: fc.constantFrom(
        'application/activity+json',
        'application/activity+json',
        'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        undefined,
      ),
      sign: signing,
      forged: fc.option(forged, { freq: 3 }),
    })
    .map((x): Req => {
      const headers: Record<string, string> = { ...(x.contentType ? { 'content-type': x.contentType } : {}), ...(x.sign === undefined && x.forged ? x.forged : {}) };
      return { face: 'federation', method: 'POST', path: x.path, headers, body: x.body, ...(x.sign ? { sign: x.sign } : {}) };
    });
  // Activities as fediverse servers send them, signed by the suite's follower: accepted (202) and
  // queued, so that what the inbox does with an accepted activity meets hostile fields too.
  const plausible = fc
    .record({
      path: fc.constantFrom('/federation/inbox', '/federation/actors/events/inbox'),
      type: fc.constantFrom('Follow', 'Undo', 'Like', 'Announce', 'Create', 'Update', 'Delete', 'Accept'),
      object: fc.oneof(
        fc.constant<unknown>(w.actorUrl),
        fc.constant<unknown>(`${t.origin}/federation/events/${w.eventId}`),
        fc.record({ type: fc.constantFrom('Note', 'Event'), content: hostileString, name: hostileString }).map((o) => ({ ...o, id: `${f.origin}/notes/${nextId()}`, attributedTo: f.actorId })),
        fc.constant<unknown>({ type: 'Follow', actor: f.actorId, object: w.actorUrl }),
      ),
      spec: fc.constantFrom<Signing['spec']>('draft-cavage-http-signatures-12', 'rfc9421'),
      extra: fc.dictionary(fc.constantFrom('summary', 'published', 'tag', 'cc'), valueArb, { maxKeys: 2 }),
    })
    .map((x): Req => ({
      face: 'federation',
      method: 'POST',
      path: x.path,
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${f.origin}/activities/${nextId()}`,
        type: x.type,
        actor: f.actorId,
        object: x.object,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        ...x.extra,
      }),
      sign: { keyId: `${f.actorId}#main-key`, spec: x.spec },
    }));
  return fc.oneof({ weight: 2, arbitrary: getReq }, { weight: 3, arbitrary: inbox }, { weight: 2, arbitrary: plausible });
}

// ------------------------------------------------------------------ embeds

const EMBED_OPTIONS = ['view', 'month', 'limit', 'category', 'categories', 'tag', 'tags', 'venue', 'organizer', 'featured', 'search', 'locale', 'time-zone', 'refresh', 'xyz'];

function embedArb(w: World, embedApi: fc.Arbitrary<Req>): fc.Arbitrary<Req> {
  const value = fc.oneof(
    fc.constantFrom(
      'list',
      'month',
      'upcoming',
      '2031-01',
      '2031-13',
      '0000-00',
      '9999-12',
      '1',
      '5',
      '0',
      '-1',
      '1000',
      'en',
      'fr',
      'viewer',
      'event',
      'true',
      'no',
      w.categorySlug,
      'fuzz-tag',
      '60',
    ),
    hostileString,
  );
  const options = fc.array(fc.tuple(fc.constantFrom(...EMBED_OPTIONS), fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.array(value, { maxLength: 3 }) })), { maxLength: 6 });
  const page = fc
    .record({
      path: fc.constantFrom('/embed/', '/embed/', '/embed/snippet', '/embed'),
      options,
      raw: fc.boolean(),
      many: fc.constantFrom(0, 0, 0, 1_000),
      headers: extraHeaders,
      method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS'),
    })
    .map((x): Req => {
      const query = [encodeParams(x.options, x.raw).replace(/#/g, '%23'), ...Array.from({ length: x.many }, (_, i) => `category=c${i}`)].filter(Boolean).join('&');
      return { face: 'embed', method: x.method, path: `${x.path}${query ? `?${query}` : ''}`, headers: x.headers };
    });
  const script = fc
    .record({
      path: fc.constantFrom('/embed/events-calendar.js', `/embed/events-calendar.${w.embedHash}.js`, '/embed/events-calendar.0000.js', '/embed/events-calendar.%zz.js', '/embed/events-calendar..js'),
      headers: extraHeaders,
    })
    .map((x): Req => ({ face: 'embed', method: 'GET', path: x.path, headers: x.headers }));
  return fc.oneof({ weight: 4, arbitrary: page }, { weight: 1, arbitrary: script }, { weight: 4, arbitrary: embedApi });
}

// ------------------------------------------------------------------ submissions' pages

function submissionPagesArb(w: World): fc.Arbitrary<Req> {
  const fields: Array<[string, string]> = [
    ['title', 'Jazz by the river'],
    ['description', 'Bring a chair.'],
    ['start_date', '2031-07-14'],
    ['start_time', '20:00'],
    ['end_date', '2031-07-14'],
    ['end_time', '22:30'],
    ['timezone', 'Europe/Paris'],
    ['venue[venue]', 'River Stage'],
    ['venue[city]', 'Lyon'],
    ['organizer[organizer]', 'River Jazz Club'],
    ['organizer[email]', 'club@example.org'],
    ['name', 'Bob Form'],
    ['email', 'bob@example.org'],
    ['homepage', ''],
    ['_started', w.formStamp],
  ];
  const keys = [
    ...fields.map(([k]) => k),
    'all_day',
    'venue_id',
    'organizer_id',
    'categories[]',
    'image',
    'cost',
    'website',
    'altcha',
    '_wpnonce',
    '_action',
    'title[]',
    'venue[venue][x]',
    'categories[a][b]',
    'xyz',
  ];
  const hostileFields = fc.array(fc.tuple(fc.constantFrom(...keys), fc.oneof(hostileString, fc.constantFrom('', '1', 'edit', 'withdraw', '0', '99999999999', w.formStamp))), { maxLength: 6 });
  const encode = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${encodePart(k, false).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodePart(v, false)}`).join('&');
  const token = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...w.submissionTokens) }, { weight: 1, arbitrary: fc.constantFrom('x', '%zz', 'A'.repeat(43), 'a'.repeat(5000), '..', '%00') });
  const body = fc.record({ base: fc.boolean(), extra: hostileFields, encoding: fc.constantFrom('form', 'form', 'form', 'multipart', 'json', 'text', 'malformed-form', 'none') }).map((x) => {
    const pairs = [...(x.base ? fields : []), ...x.extra];
    switch (x.encoding) {
      case 'form':
        return { type: 'application/x-www-form-urlencoded', body: encode(pairs) };
      case 'multipart':
        return {
          type: 'multipart/form-data; boundary=zzz',
          body: pairs.map(([k, v]) => `--zzz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + '--zzz--\r\n',
        };
      case 'json':
        return { type: 'application/json', body: JSON.stringify(Object.fromEntries(pairs)) };
      case 'text':
        return { type: 'text/plain', body: encode(pairs) };
      case 'malformed-form':
        return { type: 'application/x-www-form-urlencoded', body: `${encode(pairs)}&%zz=%&a[=1&b]]=2&${'c[d]'.repeat(50)}=3` };
      default:
        return undefined;
    }
  });
  const headers = fc.record(
    {
      'accept-language': fc.constantFrom('fr', 'en', 'fr-CA,fr;q=0.9', '*', 'zz', 'x'.repeat(500), ';;q=', ''),
      cookie: fc.constantFrom(w.adminSession.cookie, 'calendar_session=garbage', `calendar_session=${'a'.repeat(43)}`, 'a=b; =; ;;', ''),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      kind: fc.constantFrom('form-get', 'form-post', 'form-post', 'status-get', 'status-post', 'status-post', 'asset'),
      token,
      body,
      headers,
      query: fc.constantFrom('', '?sent=1', '?sent[]=1&x=%zz', '?' + 'a=1&'.repeat(500)),
      asset: fc.constantFrom('/events/submit/pow.js', '/events/submit/submit.css'),
    })
    .map((x): Req => {
      const headers: Record<string, string> = Object.fromEntries(Object.entries(x.headers).filter(([, v]) => v !== ''));
      const withBody = (method: string, path: string): Req => {
        if (x.body) headers['content-type'] = x.body.type;
        return { face: 'submissions-html', method, path, headers, ...(x.body ? { body: x.body.body } : {}) };
      };
      switch (x.kind) {
        case 'form-get':
          return { face: 'submissions-html', method: 'GET', path: `/events/submit/${x.query}`, headers };
        case 'form-post':
          return withBody('POST', `/events/submit/${x.query}`);
        case 'status-get':
          return { face: 'submissions-html', method: 'GET', path: `/events/submit/status/${x.token}${x.query}`, headers };
        case 'status-post':
          return withBody('POST', `/events/submit/status/${x.token}`);
        default:
          return { face: 'submissions-html', method: 'GET', path: x.asset, headers };
      }
    });
}

// ------------------------------------------------------------------ the admin face's pages

function adminPagesArb(w: World): fc.Arbitrary<Req> {
  const cookie = fc.constantFrom(
    w.adminSession.cookie,
    w.throwaway.cookie,
    w.halfSession.cookie,
    `${w.login.cookie}`,
    `${w.adminSession.cookie}; ${w.login.cookie}; calendar_lang=fr`,
    'calendar_session=garbage',
    `calendar_session=${'A'.repeat(43)}`,
    'calendar_login=x; calendar_lang=zz',
    '=; ;; a',
    '',
  );
  const redirect = fc.oneof(fc.constantFrom('/admin/', '/admin/events/1', '//evil.example/', 'https://evil.example/', '/admin/login', '/admin/\\evil', '/admin/%0d%0aX: 1', ''), hostileString);
  const nonce = (valid: string) => fc.oneof(fc.constant(valid), fc.constantFrom('', 'x', '0'.repeat(10), valid.slice(0, -1) + 'x'), hostileString);
  const encode = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${encodePart(k, false)}=${encodePart(v, false)}`).join('&');
  const login = fc
    .record({
      log: fc.oneof(fc.constantFrom(ADMIN.login, 'twofa', 'nobody', 'admin@example.invalid', ''), hostileString),
      pwd: fc.oneof(fc.constantFrom(ADMIN.password, 'twofa-pw', 'wrong', ''), hostileString),
      nonce: nonce(w.login.nonce),
      redirect,
      cookie: fc.constantFrom(w.login.cookie, w.login.cookie, 'calendar_login=' + 'A'.repeat(43), '', w.adminSession.cookie),
    })
    .map((x): Req => ({
      face: 'admin-html',
      method: 'POST',
      path: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(x.cookie ? { cookie: x.cookie } : {}) },
      body: encode([
        ['log', x.log],
        ['pwd', x.pwd],
        ['_wpnonce', x.nonce],
        ['redirect_to', x.redirect],
      ]),
    }));
  const code = fc
    .record({
      code: fc.oneof(
        fc.integer({ min: 0, max: 999999 }).map((n) => String(n).padStart(6, '0')),
        hostileString,
      ),
      nonce: nonce(w.halfSession.formNonce),
      cookie,
    })
    .map((x): Req => ({
      face: 'admin-html',
      method: 'POST',
      path: '/admin/login/code',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(x.cookie ? { cookie: x.cookie } : {}) },
      body: encode([
        ['code', x.code],
        ['_wpnonce', x.nonce],
      ]),
    }));
  const pages = fc
    .record({
      path: fc.oneof(
        fc.constantFrom(
          '/admin/login',
          '/admin/account',
          '/admin/',
          '/admin',
          '/admin/events/42',
          '/admin/rest-nonce',
          '/admin/assets/x.js',
          '/admin/assets/..%2F..%2Fpackage.json',
          '/admin/assets/%zz',
          '/admin/login/code',
        ),
        redirect.map((r) => `/admin/login?redirect_to=${encodePart(r, false)}`),
        fc.tuple(fc.constantFrom('fr', 'en', 'zz', '', '%zz'), redirect).map(([l, r]) => `/admin/language?lang=${l}&redirect_to=${encodePart(r, false)}`),
        hostileString.map((s) => `/admin/${encodePart(s, false)}`),
      ),
      cookie,
      method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
      headers: extraHeaders,
    })
    .map((x): Req => ({ face: 'admin-html', method: x.method, path: x.path, headers: { ...x.headers, ...(x.cookie ? { cookie: x.cookie } : {}) } }));
  // The account page's forms: the throwaway session's nonce is the only valid one sent (signing out
  // or enrolling it harms no other session of the run).
  const forms = fc
    .record({
      path: fc.constantFrom('/admin/sign-out', '/admin/sign-out-everywhere', '/admin/sessions/revoke', '/admin/two-factor/start', '/admin/two-factor/confirm', '/admin/two-factor/disable'),
      cookie,
      nonce: fc.oneof(fc.constant(w.throwaway.formNonce), fc.constant(w.adminSession.formNonce.slice(0, -2) + 'zz'), fc.constantFrom('', 'x'), hostileString),
      fields: fc.array(fc.tuple(fc.constantFrom('code', 'id', 'xyz'), fc.oneof(hostileString, fc.constantFrom('123456', '1', String(w.sessionIds[0] ?? 1)))), { maxLength: 3 }),
      encoding: fc.constantFrom('form', 'form', 'form', 'json', 'multipart', 'none'),
    })
    .map((x): Req => {
      const cookieValue = x.nonce === w.throwaway.formNonce ? w.throwaway.cookie : x.cookie;
      const pairs: Array<[string, string]> = [['_wpnonce', x.nonce], ...x.fields];
      const headers: Record<string, string> = cookieValue ? { cookie: cookieValue } : {};
      let body: string | undefined;
      if (x.encoding === 'form') {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = encode(pairs);
      } else if (x.encoding === 'json') {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(Object.fromEntries(pairs));
      } else if (x.encoding === 'multipart') {
        headers['content-type'] = 'multipart/form-data; boundary=zzz';
        body = pairs.map(([k, v]) => `--zzz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + '--zzz--\r\n';
      }
      return { face: 'admin-html', method: 'POST', path: x.path, headers, ...(body !== undefined ? { body } : {}) };
    });
  return fc.oneof({ weight: 3, arbitrary: login }, { weight: 2, arbitrary: code }, { weight: 3, arbitrary: pages }, { weight: 3, arbitrary: forms });
}

// ------------------------------------------------------------------ the checks

/** The server's answers to what Node's HTTP parser cannot read (src/web/hostile-input.ts, `clientErrorOf`). */
const PARSER_REFUSALS = new Set(
  [
    ['rest_request_timeout', 'The request was not received in time.', 408],
    ['rest_headers_too_large', 'The request headers (with the URL) are too large.', 431],
    ['rest_uri_too_long', 'The URL is too long.', 414],
    ['rest_bad_request', 'The request could not be read.', 400],
  ].map(([code, message, status]) => JSON.stringify({ code, message, data: { status } })),
);

/**
 * The answer is below 500 and, when an error, in the shape of its face. One 5xx is the protocol's:
 * CalDAV answers a calendar or a sync too large to list (over `CALDAV_MAX_EVENTS`, or over the
 * `limit` a sync asks for) 507 with `<d:number-of-matches-within-limits/>` (RFC 6578 §3.7).
 */
function checkShape(req: Req, res: Answer, where: string): void {
  const tooMany = req.face === 'caldav' && res.status === 507 && /<d:number-of-matches-within-limits\/>/.test(res.text);
  assert.ok(res.status < 500 || tooMany, `5xx answer: ${where}`);
  const head = req.method === 'HEAD';
  const error = res.status >= 400;
  const json = () => {
    assert.match(res.contentType, /^application\/json/, `not JSON: ${where}`);
    let parsed: any;
    assert.doesNotThrow(() => (parsed = JSON.parse(res.text)), `invalid JSON: ${where}`);
    return parsed;
  };
  const wordpressError = () => {
    if (head) return;
    let parsed = json();
    let status = res.status;
    // `_envelope` wraps every answer in a 200: its status is inside.
    if (res.status === 200 && parsed && typeof parsed === 'object' && 'status' in parsed && 'headers' in parsed && 'body' in parsed) {
      status = Number(parsed.status);
      parsed = parsed.body;
      assert.ok(status < 500, `5xx answer (enveloped): ${where}`);
    }
    if (status < 400) return;
    assert.equal(typeof parsed?.code, 'string', `error without code: ${where}`);
    assert.equal(typeof parsed?.message, 'string', `error without message: ${where}`);
    assert.equal(parsed?.data?.status, status, `error data.status differs: ${where}`);
  };
  const htmlError = () => {
    if (!error) return;
    assert.match(res.contentType, /^text\/html/, `error not HTML: ${where}`);
    if (!head) assert.match(res.text, /^<!DOCTYPE html>/i, `error not an HTML page: ${where}`);
  };
  // What Node's HTTP parser refuses (framing: Content-Length, Transfer-Encoding; a request line and
  // headers over 16 KB) is answered before any route, so before any face knows the request is its own.
  if (error && (PARSER_REFUSALS.has(res.text) || (res.raw && res.text === ''))) return;
  if (error && head && !res.requestId && /^application\/json/.test(res.contentType) && [400, 408, 414, 431].includes(res.status)) return;
  switch (req.face) {
    case 'caldav': {
      if (error || res.status === 207) {
        assert.match(res.contentType, /^application\/xml/, `not XML: ${where}`);
        if (!head) {
          assert.equal(XMLValidator.validate(res.text), true, `not well-formed XML: ${where}`);
          if (error) assert.match(res.text, /<d:error[\s>]/, `not a DAV error: ${where}`);
        }
      }
      return;
    }
    case 'submissions-api':
    case 'admin-api':
      if (error || /^application\/json/.test(res.contentType)) wordpressError();
      return;
    case 'embed':
      if (req.path.startsWith(EMBED_NS)) {
        if (error || /^application\/json/.test(res.contentType)) wordpressError();
      } else if (req.path.startsWith('/embed/events-calendar.')) {
        if (error) assert.match(res.contentType, /^text\/plain/, `not a plain error: ${where}`);
      } else htmlError();
      return;
    case 'federation':
      // An event's page is the pages face's (HTML) unless the event is there to negotiate.
      if (req.path.startsWith('/event/')) return;
      if (error) wordpressError();
      else if (res.status === 200 && !head) {
        assert.match(res.contentType, /^application\/(activity\+|ld\+|jrd\+)?json/, `not JSON: ${where}`);
        assert.doesNotThrow(() => JSON.parse(res.text), `invalid JSON: ${where}`);
      }
      return;
    case 'submissions-html':
      if (req.path.endsWith('.js') || req.path.endsWith('.css')) return;
      htmlError();
      return;
    case 'admin-html':
      // The REST nonce is WordPress' admin-ajax answer (text, `0` when signed out); the app's files are files.
      if (req.path.startsWith('/admin/rest-nonce') || req.path.startsWith('/admin/assets/')) {
        if (error && !/^text\/plain/.test(res.contentType)) htmlError();
        return;
      }
      htmlError();
      return;
  }
}

for (const kind of STORES) {
  describe(`robustness: hostile requests to the faces beyond the REST API [${kind.name}]`, () => {
    let t: TestServer;
    let w: World;
    const routes: Record<'admin' | 'submissions' | 'embed', IndexedRoute[]> = { admin: [], submissions: [], embed: [] };

    before(async () => {
      t = await startServer(kind, ENV);
      w = await makeWorld(t);
      routes.admin = await indexOf(t, ADMIN_NS);
      routes.submissions = await indexOf(t, SUB_NS);
      routes.embed = await indexOf(t, EMBED_NS);
      assert.ok(routes.admin.length >= 20, `the admin index lists ${routes.admin.length} routes`);
    });
    after(async () => {
      await w?.follower.close();
      await t?.close();
    });

    it(`answers ${RUNS} random hostile requests without 5xx, in each face's error shape, writing nothing on 4xx`, { timeout: 900_000 }, async () => {
      const counts = { sent: 0, byFace: new Map<string, Map<number, number>>() };
      const timings: Timing[] = [];
      const collected: string[] = [];

      const adminIds = (path: string, name: string): string[] => {
        if (name === 'uuid') return [w.appPassword.uuid];
        if (name === 'token') return w.submissionTokens;
        if (path.startsWith('/users')) return w.victims.map(String);
        if (path.startsWith('/webhooks')) return [String(w.webhookId)];
        if (path.startsWith('/imports')) return [String(w.importId)];
        if (path.startsWith('/sessions')) return w.sessionIds.map(String);
        if (path.startsWith('/submissions')) return w.submissionIds.map(String);
        if (path.startsWith('/federation/followers')) return w.followerIds.map(String);
        if (path.startsWith('/federation/deliveries')) return w.deliveryIds.map(String);
        return [String(w.eventId)];
      };
      const adminBase = (path: string, method: string): Array<[string, unknown]> => {
        if (method === 'GET' || method === 'DELETE') return [];
        if (path === '/users')
          return [
            ['username', `fuzz${counts.sent}`],
            ['password', 'pw'],
            ['role', 'subscriber'],
          ];
        if (path === '/webhooks')
          return [
            ['url', 'https://hooks.example.invalid/x'],
            ['events', ['*']],
          ];
        if (path.endsWith('/application-passwords')) return [['name', `fuzz ${counts.sent}`]];
        if (path === '/recurrence/preview')
          return [
            ['start_date', '2031-01-01 10:00:00'],
            ['recurrence', { rules: [{ type: 'Weekly' }] }],
          ];
        if (path.endsWith('/reject') || path.endsWith('/request-changes')) return [['reason', 'fuzz']];
        return [];
      };
      const submissionBase = (path: string, method: string): Array<[string, unknown]> =>
        method === 'POST' || method === 'PUT' || method === 'PATCH'
          ? [
              ['title', `Fuzz submission ${counts.sent}`],
              ['start_date', '2031-06-21 18:00'],
              ['end_date', '2031-06-21 23:00'],
              ['name', 'Fuzz'],
              ['email', `fuzz${counts.sent}@example.org`],
            ]
          : [];
      const embedBase = (path: string): Array<[string, unknown]> =>
        path === '/fullcalendar'
          ? [
              ['start', '2030-12-01'],
              ['end', '2031-02-01'],
            ]
          : [];
      const arbs: Record<Face, fc.Arbitrary<Req>> = {
        caldav: davArb(w),
        'submissions-api': namespaceArb('submissions-api', SUB_NS, routes.submissions, w, (_p, name) => (name === 'token' ? w.submissionTokens : ['1']), submissionBase, [
          'anonymous',
          'anonymous',
          'anonymous',
          'admin',
          'cookie',
          'bad',
        ]),
        'admin-api': namespaceArb('admin-api', ADMIN_NS, routes.admin, w, adminIds, adminBase, AUTHS),
        federation: federationArb(w, t),
        embed: embedArb(
          w,
          namespaceArb('embed', EMBED_NS, routes.embed, w, () => ['1'], embedBase, ['anonymous', 'anonymous', 'anonymous', 'admin', 'bad']),
        ),
        'submissions-html': submissionPagesArb(w),
        'admin-html': adminPagesArb(w),
      };
      const requestArb = fc.oneof(...FACES.filter((f) => ONLY.has(f)).map((f) => ({ weight: WEIGHTS[f], arbitrary: arbs[f] })));

      const send = async (req: Req): Promise<Answer> => {
        if (req.raw) return rawRequest(Number(new URL(t.origin).port), req.raw.head + req.raw.body);
        let headers = req.headers;
        let body = req.body;
        if (req.sign) ({ headers, body } = await signed(t.origin + req.path, req, w.follower.keys[0]!.privateKey));
        // A request the server never answers fails here, not at the runner's time limit.
        const res = await fetch(t.origin + req.path, { method: req.method, headers, body: body as BodyInit | undefined, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
        const contentType = res.headers.get('content-type') ?? '';
        // A change stream never ends: its head is the answer.
        if (contentType.startsWith('text/event-stream')) {
          await res.body?.cancel();
          return { status: res.status, contentType, text: '', raw: false, requestId: true };
        }
        return { status: res.status, contentType, text: await res.text(), raw: false, requestId: res.headers.has('x-request-id') };
      };
      const describeReq = (req: Req) => {
        const body = req.raw ? req.raw.head + req.raw.body : req.body;
        const text = body === undefined ? '' : typeof body === 'string' ? body : `(bytes) ${Buffer.from(body).toString('latin1')}`;
        return `${req.face}: ${req.method} ${req.path.slice(0, 300)}${req.path.length > 300 ? `… (${req.path.length} characters)` : ''} ${JSON.stringify(req.headers).slice(0, 300)}${req.sign ? ` signed ${JSON.stringify(req.sign)}` : ''}${text ? ` body (${text.length}) ${text.slice(0, 300)}` : ''}`;
      };
      /** After an accepted inbox request, its queued activity is handled in the background: wait for it. */
      const settle = async () => {
        const end = Date.now() + 10_000;
        while (Date.now() < end) {
          const r = await sql<{ n: number }>`select count(*) as n from federation_queue`.execute(t.built.store.db);
          if (Number(r.rows[0]!.n) === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };

      const timed = async (req: Req) => {
        const started = performance.now();
        const res = await send(req);
        return { res, ms: performance.now() - started, held: t.built.loopWatch.heldSince(started) };
      };

      async function check(req: Req, before: Record<string, number>): Promise<void> {
        let r: Awaited<ReturnType<typeof timed>>;
        try {
          r = await timed(req);
        } catch (e) {
          throw new Error(`no answer (${(e as Error).message}; ${String((e as { cause?: unknown }).cause)}) to ${describeReq(req)}`);
        }
        const { res } = r;
        counts.sent++;
        const byStatus = counts.byFace.get(req.face) ?? new Map<number, number>();
        counts.byFace.set(req.face, byStatus);
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
        timings.push({ ms: r.ms, held: r.held, what: `${describeReq(req).slice(0, 400)} → ${res.status}`, again: async () => (await timed(req)).held });
        if (req.face === 'federation' && req.method === 'POST' && res.status < 300) await settle();
        const where = `${describeReq(req)}\n→ ${res.status} ${res.contentType} ${res.text.slice(0, 500)}`;
        checkShape(req, res, where);
        if (res.status >= 400 && res.status < 500) assert.equal(writtenBetween(before, await writeState(t)), '', `a ${res.status} answer wrote: ${where}`);
      }

      try {
        await fc.assert(
          fc.asyncProperty(requestArb, async (req) => {
            const before = await writeState(t);
            if (!COLLECT) return check(req, before);
            try {
              await check(req, before);
            } catch (e) {
              collected.push((e as Error).message.split('\n').slice(0, 3).join(' | '));
            }
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
        );
      } catch (err) {
        console.error(`robustness (faces) [${kind.name}]: failed with FACES_FUZZ_SEED=${SEED} FACES_FUZZ_RUNS=${RUNS} after ${counts.sent} requests`);
        throw err;
      }
      for (const [face, byStatus] of [...counts.byFace.entries()].sort()) {
        const summary = [...byStatus.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ');
        console.log(`robustness (faces) [${kind.name}] ${face}: ${[...byStatus.values()].reduce((a, b) => a + b, 0)} requests, statuses ${summary}`);
      }
      if (COLLECT) {
        console.log(`robustness (faces) [${kind.name}]: ${collected.length} failing answers`);
        for (const c of collected) console.log('  ' + c.slice(0, 900));
      }
      await assertBoundedHolds(timings, `robustness (faces) [${kind.name}] (seed ${SEED})`);
      assert.deepEqual(collected, []);
      assert.equal(counts.sent, RUNS);
    });
  });
}
