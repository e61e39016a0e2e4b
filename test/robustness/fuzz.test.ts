/**
 * Property-based robustness suite (issue 13, item 8): random and hostile requests to every route
 * the namespace index lists (every method, path ids and slugs, every declared argument plus a few
 * undeclared and global ones), in the query, a JSON body, a form body, a malformed JSON body or a
 * body of another content type, as the administrator, another role, anonymously or with bad
 * credentials. Values: wrong types, huge, negative and fractional numbers (`1e+308`, `Infinity`,
 * `2147483648`), nested brackets and objects, NUL bytes, long strings, malformed percent-encoding,
 * SQL/markup/template injection strings, `%` and `_`.
 *
 * Every answer must be below 500, JSON, and an error must have WordPress' shape
 * `{code, message, data: {status}}` with `data.status` equal to the HTTP status; and a 4xx must not
 * have written anything: the change log's position and the row counts of every data table are the
 * same before and after (requests run one at a time, so a change belongs to the request).
 *
 * Bounded work (issue 24): each request's latency and how long it held the server's event loop
 * (the server's own loop watch, `src/http/loop-delay.ts`, in CPU time) are reported (p50, p99,
 * max, the longest holds); the p99 of the holds must stay under 100 ms, and no request may hold
 * the loop that long each time it is sent again (a single long hold can be a GC pause).
 *
 * Bounded: `FUZZ_RUNS` requests per store (default 800), fixed seed `FUZZ_SEED` (default below);
 * a failure prints the seed and the request, e.g. `FUZZ_SEED=123 FUZZ_RUNS=5000 node --test …`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ADMIN, STORES, startServer, type TestServer } from '../support/harness.js';
import { KEY_EXTRAS, INJECTIONS, asText, assertBoundedHolds, encodeParams, encodePart, valueArb, type Timing } from '../support/hostile.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 800);
/** Exploration: collect every failing answer instead of stopping at the first (FUZZ_COLLECT=1). */
const COLLECT = process.env.FUZZ_COLLECT === '1';
const collected: string[] = [];

/** A route of the index: its path with `{id}` / `{slug}` placeholders and its endpoints' args. */
interface IndexedRoute {
  path: string;
  endpoints: Array<{ methods: string[]; args: string[] }>;
}

type Encoding = 'query' | 'json' | 'form' | 'malformed-json' | 'text-plain' | 'xml' | 'multipart' | 'json-array' | 'json-scalar' | 'raw-query' | 'deep-brackets';
type Auth = 'admin' | 'editor' | 'author' | 'contributor' | 'subscriber' | 'anonymous' | 'bad';

interface FuzzRequest {
  route: number;
  method: string;
  pathValue: string;
  params: Array<[string, unknown]>;
  encoding: Encoding;
  auth: Auth;
  /** Start from a valid create of the route's kind, so that hostile fields meet real writes. */
  validBase: boolean;
}

/** A valid create body per collection (the hostile params are added over it). */
function validBase(path: string, n: number): Array<[string, unknown]> {
  switch (path) {
    case '/events':
      return [
        ['title', `Fuzz event ${n}`],
        ['start_date', '2030-02-03 10:00'],
        ['end_date', '2030-02-03 12:00'],
      ];
    case '/venues':
      return [['venue', `Fuzz venue ${n}`]];
    case '/organizers':
      return [['organizer', `Fuzz organizer ${n}`]];
    case '/categories':
    case '/tags':
      return [['name', `fuzz term ${n}`]];
    default:
      return [];
  }
}

/** Counts of every data table and the change log's position: all equal before and after a 4xx. */
async function writeState(t: TestServer): Promise<string> {
  const db = t.built.store.db;
  const r = await sql<Record<string, unknown>>`select
      (select value from change_counter where id = 1) as seq,
      (select count(*) from posts) as posts, (select count(*) from events) as events,
      (select count(*) from venues) as venues, (select count(*) from organizers) as organizers,
      (select count(*) from terms) as terms, (select count(*) from event_terms) as event_terms,
      (select count(*) from event_organizers) as event_organizers, (select count(*) from images) as images,
      (select count(*) from users) as users`.execute(db);
  return JSON.stringify(Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)])));
}

for (const kind of STORES) {
  describe(`robustness: hostile requests to every route [${kind.name}]`, () => {
    let t: TestServer;
    const routes: IndexedRoute[] = [];
    const ids = { event: 0, venue: 0, organizer: 0, category: 0, tag: 0 };
    const slugs: string[] = [];
    const credentials: Record<string, string> = {};

    before(async () => {
      t = await startServer(kind, { RATE_LIMIT_MAX: '0', LOGIN_MAX_FAILURES: '0' });
      credentials.admin = `${ADMIN.login}:${ADMIN.password}`;
      for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) credentials[role] = (await t.user(role)).credentials;
      const ev = await t.api.post('/events', {
        as: 'admin',
        json: {
          title: 'Fuzz target',
          start_date: '2030-01-01 10:00:00',
          end_date: '2030-01-01 12:00:00',
          venue: { venue: 'Fuzz hall', city: 'Springfield' },
          organizer: [{ organizer: 'Fuzz org' }],
          categories: ['Fuzz category'],
          tags: ['fuzz-tag'],
        },
      });
      assert.equal(ev.status, 201, ev.text);
      ids.event = ev.body.id;
      ids.venue = ev.body.venue.id;
      ids.organizer = ev.body.organizer[0].id;
      ids.category = ev.body.categories[0].id;
      ids.tag = ev.body.tags[0].id;
      slugs.push(ev.body.slug, ev.body.venue.slug, ev.body.organizer[0].slug);
      const index = await t.api.get('');
      assert.equal(index.status, 200);
      for (const [key, entry] of Object.entries(index.body.routes as Record<string, { endpoints: Array<{ methods: string[]; args: Record<string, unknown> | unknown[] }> }>)) {
        const path = key.replace(/^\/calendar\/events\/v1/, '').replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}');
        routes.push({ path, endpoints: entry.endpoints.map((e) => ({ methods: e.methods, args: Array.isArray(e.args) ? [] : Object.keys(e.args) })) });
      }
      assert.ok(routes.length >= 10, `the index lists ${routes.length} routes`);
    });
    after(async () => {
      await t?.close();
    });

    it(`answers ${RUNS} random hostile requests without 5xx, in WordPress' error shape, writing nothing on 4xx`, { timeout: 600_000 }, async () => {
      const counts = { sent: 0, byStatus: new Map<number, number>() };
      const timings: Timing[] = [];
      collected.length = 0;
      const requestArb: fc.Arbitrary<FuzzRequest> = fc.integer({ min: 0, max: routes.length - 1 }).chain((route) => {
        const r = routes[route]!;
        const declared = [...new Set(r.endpoints.flatMap((e) => e.args))];
        const methods = [...new Set(r.endpoints.flatMap((e) => e.methods)), 'POST', 'PUT', 'PATCH', 'DELETE', 'GET'];
        const keyArb = declared.length ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...declared) }, { weight: 1, arbitrary: fc.constantFrom(...KEY_EXTRAS) }) : fc.constantFrom(...KEY_EXTRAS);
        const pathArb = r.path.includes('{id}')
          ? fc.oneof(fc.constantFrom(...Object.values(ids).map(String)), fc.constantFrom('0', '1', '2147483647', '2147483648', '99999999999', '1' + '0'.repeat(30), '007'), fc.nat().map(String))
          : r.path.includes('{slug}')
            ? fc.oneof(
                fc.constantFrom(...slugs),
                fc.constantFrom(...INJECTIONS).map((s) => encodePart(s, false)),
                fc.constantFrom('%zz', '%00', 'a%2Fb', 'x'.repeat(3000), '..'),
              )
            : fc.constant('');
        return fc.record({
          route: fc.constant(route),
          method: fc.constantFrom(...methods),
          pathValue: pathArb,
          params: fc.array(fc.tuple(keyArb, valueArb), { maxLength: 6 }),
          encoding: fc.constantFrom<Encoding>(
            'query',
            'query',
            'json',
            'json',
            'form',
            'form',
            'malformed-json',
            'text-plain',
            'xml',
            'multipart',
            'json-array',
            'json-scalar',
            'raw-query',
            'deep-brackets',
          ),
          auth: fc.constantFrom<Auth>('admin', 'admin', 'admin', 'editor', 'author', 'contributor', 'subscriber', 'anonymous', 'anonymous', 'bad'),
          validBase: fc.boolean(),
        });
      });

      const send = async (request: FuzzRequest) => {
        let req = request;
        const r = routes[req.route]!;
        const path = r.path.replace(/\{id\}|\{slug\}/, req.pathValue);
        if (req.validBase) req = { ...req, params: [...validBase(r.path, counts.sent), ...req.params.slice(0, 2)] };
        const headers: Record<string, string> = {};
        if (req.auth === 'bad') headers.authorization = 'Basic ' + Buffer.from('nobody:wrong\u0000pw').toString('base64');
        else if (req.auth !== 'anonymous') headers.authorization = 'Basic ' + Buffer.from(credentials[req.auth]!).toString('base64');
        let query = '';
        let body: string | undefined;
        switch (req.encoding) {
          case 'query':
            query = encodeParams(req.params, false);
            break;
          case 'raw-query':
            query = encodeParams(req.params, true).replace(/#/g, '%23');
            break;
          case 'deep-brackets':
            query = req.params.map(([k], i) => `${encodePart(k, false)}${'[a]'.repeat(3 + i * 4)}[]=1`).join('&') + '&x[[[]]]=1&[]=2&a]=3';
            break;
          case 'json':
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(req.params));
            break;
          case 'json-array':
            headers['content-type'] = 'application/json';
            body = JSON.stringify(req.params);
            break;
          case 'json-scalar':
            headers['content-type'] = 'application/json; charset=utf-8';
            body = JSON.stringify(req.params[0]?.[1] ?? 42) ?? 'null';
            break;
          case 'malformed-json':
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(req.params)).slice(0, -1) + ',,}';
            break;
          case 'form':
            headers['content-type'] = 'application/x-www-form-urlencoded';
            body = encodeParams(req.params, false);
            break;
          case 'text-plain':
            headers['content-type'] = 'text/plain';
            body = encodeParams(req.params, false);
            break;
          case 'xml':
            headers['content-type'] = 'application/xml';
            body = `<event><title>${asText(req.params[0]?.[1] ?? '')}</title></event>`;
            break;
          case 'multipart':
            headers['content-type'] = 'multipart/form-data; boundary=zzz';
            body = `--zzz\r\nContent-Disposition: form-data; name="title"\r\n\r\n${asText(req.params[0]?.[1] ?? 'x')}\r\n--zzz--\r\n`;
            break;
        }
        const method = req.method;
        const url = `${t.base}${path}${query ? '?' + query : ''}`;
        // Client and server share this process: the server's loop watch over the request's span
        // (requests run one at a time) is how long this request held the loop.
        const timed = async () => {
          const started = performance.now();
          const res = await fetch(url, { method, headers, body: method === 'GET' ? undefined : body });
          const text = await res.text();
          return { res, text, ms: performance.now() - started, held: t.built.loopWatch.heldSince(started) };
        };
        const { res, text, ms, held } = await timed();
        timings.push({
          ms,
          held,
          what: `${method} ${url.slice(t.base.length, t.base.length + 160)} (${url.length} characters${body ? `, body ${body.length}` : ''}) → ${res.status}`,
          again: async () => (await timed()).held,
        });
        return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, url, method, body };
      };

      try {
        await fc.assert(
          fc.asyncProperty(requestArb, async (req) => {
            const before = await writeState(t);
            let res: Awaited<ReturnType<typeof send>>;
            try {
              res = await send(req);
            } catch (e) {
              throw new Error(`no answer (${(e as Error).message}; ${String((e as { cause?: unknown }).cause)}) to ${JSON.stringify(req).slice(0, 600)}`);
            }
            if (COLLECT) {
              try {
                await check(before, res);
              } catch (e) {
                collected.push((e as Error).message.split('\n').slice(0, 3).join(' | '));
              }
              return;
            }
            await check(before, res);
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
        );
        async function check(before: string, res: Awaited<ReturnType<typeof send>>): Promise<void> {
          counts.sent++;
          counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
          const where = `${res.method} ${res.url.slice(0, 400)}${res.body ? ` body ${res.body.slice(0, 300)}` : ''}\n→ ${res.status} ${res.text.slice(0, 500)}`;
          assert.ok(res.status < 500, `5xx answer: ${where}`);
          assert.match(res.contentType, /^application\/json/, `not JSON: ${where}`);
          let parsed: any;
          assert.doesNotThrow(() => (parsed = JSON.parse(res.text)), `invalid JSON: ${where}`);
          // `_envelope` wraps every answer in a 200: its status is inside.
          const enveloped = res.status === 200 && parsed && typeof parsed === 'object' && 'status' in parsed && 'headers' in parsed && 'body' in parsed;
          const status = enveloped ? Number(parsed.status) : res.status;
          const payload = enveloped ? parsed.body : parsed;
          assert.ok(status < 500, `5xx answer (enveloped): ${where}`);
          if (status >= 400) {
            assert.equal(typeof payload?.code, 'string', `error without code: ${where}`);
            assert.equal(typeof payload?.message, 'string', `error without message: ${where}`);
            assert.equal(payload?.data?.status, status, `error data.status differs: ${where}`);
            assert.equal(await writeState(t), before, `a ${status} answer wrote: ${where}`);
          }
        }
      } catch (err) {
        console.error(`robustness [${kind.name}]: failed with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} after ${counts.sent} requests`);
        throw err;
      }
      if (COLLECT) {
        console.log(`robustness [${kind.name}]: ${collected.length} failing answers`);
        for (const c of collected) console.log('  ' + c.slice(0, 700));
        assert.equal(collected.length, 0);
      }
      const summary = [...counts.byStatus.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ');
      console.log(`robustness [${kind.name}]: ${counts.sent} requests (seed ${SEED}), statuses ${summary}`);
      assert.equal(counts.sent, RUNS);
      await assertBoundedHolds(timings, `robustness [${kind.name}]`);
    });
  });
}
