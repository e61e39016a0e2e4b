import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { clearOfWindowEnd } from '../support/rate-window.js';
import { openStore, type Store } from '../../src/store/db.js';
import { writeTransaction } from '../../src/store/changes.js';
import { updateEventDetails } from '../../src/store/events.js';

/**
 * Issue 27, item 2: repeated anonymous reads are answered from the bytes of the same answer, below
 * Fastify (src/web/replay.ts), while the data is unchanged. A replay is the pipeline's answer:
 * the same headers in the same order and the same body, with the request's own headers made again
 * (request id, rate limit, a list's sync token); every write, this instance's or another's, ends
 * it; requests with credentials or other headers go to Fastify.
 */

interface Raw {
  status: number;
  /** header names and values in the order they were sent (Node adds Date, Connection, Keep-Alive) */
  headers: Array<[string, string]>;
  body: string;
}

function get(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const header = (r: Raw, name: string) => r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
/** The headers a request makes of its own (and Node's), left out where two answers are compared. */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'date', 'x-sync-token']);
const fixed = (r: Raw) => r.headers.filter(([n]) => !PER_REQUEST.has(n.toLowerCase()));

async function replays(t: TestServer, status = '200'): Promise<number> {
  const text = await (await fetch(`${t.origin}/metrics`)).text();
  const m = new RegExp(`^calendar_replayed_answers_total\\{status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

for (const kind of STORES) {
  describe(`replayed answers [${kind.name}]`, () => {
    let t: TestServer;
    let other: Store;
    let dir: string | undefined;
    let id: number;
    let path: string;
    let api: string;
    before(async () => {
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'replay-'));
        t = await startServer({ name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` }, { RATE_LIMIT_MAX: '1000' });
        other = await openStore(`sqlite:${join(dir, 'calendar.db')}`);
      } else {
        t = await startServer(kind, { RATE_LIMIT_MAX: '1000' });
        // A second pool on the same schema stands for another instance.
        other = await openStore(t.storeUrl, { schema: t.built.store.schema, skipMigrations: true, poolSize: 1 });
      }
      api = new URL(t.base).pathname;
      const res = await t.api.post('/events', { as: 'admin', json: { title: 'Replayed', status: 'publish', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00', venue: { venue: 'Hall' } } });
      assert.equal(res.status, 201);
      id = res.body.id;
      path = `${api}/events/${id}`;
    });
    after(async () => {
      await other?.close();
      await t?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('replays the third read of an event with the same headers in the same order and the same body', async () => {
      await clearOfWindowEnd(60);
      const before = await replays(t);
      const first = await get(t.origin, path);
      const second = await get(t.origin, path);
      const third = await get(t.origin, path);
      const fourth = await get(t.origin, path);
      assert.equal(await replays(t), before + 2, 'the third and fourth reads were replayed');
      for (const r of [first, second, third, fourth]) assert.equal(r.status, 200);
      // The second answer was admitted (it matched the first outside the request's own headers): the replays are it.
      assert.deepEqual(fixed(third), fixed(second));
      assert.deepEqual(fixed(fourth), fixed(second));
      assert.equal(third.body, second.body);
      assert.equal(JSON.parse(third.body).title, 'Replayed');
      // Each replay has its own request id, and is counted by the rate limit in the same store as the others.
      const ids = [first, second, third, fourth].map((r) => header(r, 'x-request-id'));
      assert.equal(new Set(ids).size, 4);
      for (const v of ids) assert.match(v!, /^[0-9a-f-]{36}$/);
      const remaining = [first, second, third, fourth].map((r) => Number(header(r, 'x-ratelimit-remaining')));
      assert.deepEqual(remaining, [remaining[0]!, remaining[0]! - 1, remaining[0]! - 2, remaining[0]! - 3]);
      assert.equal(header(fourth, 'ratelimit'), `"default";r=${remaining[3]};t=${header(fourth, 'x-ratelimit-reset')}`);
      // Where Fastify put them: the request id first, the rate limit's after it.
      assert.deepEqual(
        fourth.headers.slice(0, 4).map(([n]) => n),
        ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      );
      assert.equal(header(fourth, 'content-length'), String(Buffer.byteLength(second.body)));
    });

    it('counts replays in the request metrics under their route', async () => {
      const text = await (await fetch(`${t.origin}/metrics`)).text();
      const route = /^http_requests_total\{method="GET",route="([^"]*events\/:id[^"]*)",status="200"\} (\d+)$/m.exec(text);
      assert.ok(route, 'the route is counted');
      assert.ok(Number(route[2]) >= 4);
      assert.match(text, /^calendar_kept_entries\{kind="replayed_answers"\} [1-9]\d*$/m);
      assert.match(text, /^calendar_kept_bytes_max\{kind="replayed_answers"\} \d+$/m);
    });

    it('answers a write of this instance at once, and one of another instance at the next request', async () => {
      for (let i = 0; i < 3; i++) await get(t.origin, path);
      const res = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Renamed here' } });
      assert.equal(res.status, 200);
      assert.equal(JSON.parse((await get(t.origin, path)).body).title, 'Renamed here');
      for (let i = 0; i < 3; i++) await get(t.origin, path);
      const before = await replays(t);
      assert.equal(JSON.parse((await get(t.origin, path)).body).title, 'Renamed here');
      assert.equal(await replays(t), before + 1, 'replayed again once the new answer was admitted');
      await writeTransaction(other.db, (trx) => updateEventDetails(trx, id, { start_local: '2031-01-05 10:00:00', end_local: '2031-01-05 11:00:00' }));
      const after = JSON.parse((await get(t.origin, path)).body);
      assert.equal(after.start_date, '2031-01-05 10:00:00');
    });

    it('replays the 304 of a matching If-None-Match and the 200 of another', async () => {
      for (let i = 0; i < 2; i++) await get(t.origin, path);
      const ok = await get(t.origin, path);
      const etag = header(ok, 'etag')!;
      const before304 = await replays(t, '304');
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await get(t.origin, path, { 'if-none-match': etag }));
      for (const a of answers) {
        assert.equal(a.status, 304);
        assert.equal(a.body, '');
        assert.equal(header(a, 'etag'), etag);
      }
      assert.deepEqual(fixed(answers[2]!), fixed(answers[1]!));
      assert.equal(await replays(t, '304'), before304 + 1);
      const other200 = await get(t.origin, path, { 'if-none-match': '"not-this-one"' });
      assert.equal(other200.status, 200);
      assert.equal(other200.body, ok.body);
      const weak = await get(t.origin, path, { 'if-none-match': `W/${etag}` });
      assert.equal(weak.status, 304, 'the weak comparison, as the pipeline');
    });

    it('keeps answers apart by Origin (CORS) and Accept-Encoding (compression)', async () => {
      for (let i = 0; i < 3; i++) await get(t.origin, path, { origin: 'https://a.example' });
      const a = await get(t.origin, path, { origin: 'https://a.example' });
      const b = await get(t.origin, path, { origin: 'https://b.example' });
      assert.equal(header(a, 'access-control-allow-origin'), 'https://a.example');
      assert.equal(header(b, 'access-control-allow-origin'), 'https://b.example');
      for (let i = 0; i < 3; i++) await get(t.origin, path, { 'accept-encoding': 'gzip' });
      const before = await replays(t);
      const gz = await get(t.origin, path, { 'accept-encoding': 'gzip' });
      assert.equal(await replays(t), before + 1, 'the compressed answer replayed');
      assert.equal(header(gz, 'content-encoding'), 'gzip');
      const plain = await get(t.origin, path);
      assert.equal(header(plain, 'content-encoding'), undefined);
      assert.equal(JSON.parse(plain.body).id, id);
    });

    it("answers a client's own sane X-Request-Id as Fastify does, a replay too", async () => {
      for (let i = 0; i < 3; i++) await get(t.origin, path);
      const before = await replays(t);
      const mine = await get(t.origin, path, { 'x-request-id': 'my-request-1' });
      assert.equal(header(mine, 'x-request-id'), 'my-request-1');
      const insane = await get(t.origin, path, { 'x-request-id': 'no spaces <allowed>' });
      assert.match(header(insane, 'x-request-id')!, /^[0-9a-f-]{36}$/);
      assert.equal(await replays(t), before + 2);
    });

    it('leaves requests with credentials, cookies or HEAD to Fastify', async () => {
      for (let i = 0; i < 3; i++) await get(t.origin, path);
      const before = await replays(t);
      const admin = await get(t.origin, path, { authorization: `Basic ${Buffer.from('admin:admin-password').toString('base64')}` });
      assert.match(header(admin, 'cache-control')!, /^private, no-cache/);
      await get(t.origin, path, { cookie: 'x=1' });
      const head = await get(t.origin, path, {}, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal(await replays(t), before, 'none of them replayed');
    });

    it('replays a list with a fresh sync token each second, which a sync answers', async () => {
      const list = `${api}/events?per_page=5`;
      for (let i = 0; i < 2; i++) await get(t.origin, list);
      const before = await replays(t);
      const one = await get(t.origin, list);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const two = await get(t.origin, list);
      assert.equal(await replays(t), before + 2);
      assert.equal(one.body, two.body);
      const tokens = [header(one, 'x-sync-token'), header(two, 'x-sync-token')];
      assert.ok(tokens[0] && tokens[1]);
      assert.notEqual(tokens[0], tokens[1], 'signed with the second it was sent in');
      const since = await t.api.get('/events', { query: { sync_token: tokens[1]! } });
      assert.equal(since.status, 200);
      assert.equal(since.body.events.length, 0);
      // A sync answer's own token is never replayed: it is made per request.
      const sync = `${api}/events?sync_token=${encodeURIComponent(tokens[1]!)}`;
      const beforeSync = await replays(t);
      for (let i = 0; i < 3; i++) assert.equal((await get(t.origin, sync)).status, 200);
      assert.equal(await replays(t), beforeSync);
    });

    it('sends a request over the rate limit to Fastify, which answers 429', async () => {
      await clearOfWindowEnd(60, 15_000);
      const limited = await startServer(kind, { RATE_LIMIT_MAX: '4' });
      try {
        const p = `${new URL(limited.base).pathname}/events?per_page=1`;
        const statuses = [];
        for (let i = 0; i < 6; i++) statuses.push((await get(limited.origin, p)).status);
        assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      } finally {
        await limited.close();
      }
    });
  });
}

describe('replayed answers behind a proxy (TRUST_PROXY)', () => {
  it("counts a replayed request under the forwarded client's address, as Fastify counts the others", async () => {
    await clearOfWindowEnd(60, 15_000);
    const t = await startServer(STORES[0]!, { TRUST_PROXY: 'true', RATE_LIMIT_MAX: '5' });
    try {
      const p = `${new URL(t.base).pathname}/events?per_page=1`;
      const from = (ip: string) => get(t.origin, p, { 'x-forwarded-for': ip });
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await from('203.0.113.7'));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200, 429],
      );
      assert.deepEqual(
        answers.slice(0, 5).map((a) => header(a, 'x-ratelimit-remaining')),
        ['4', '3', '2', '1', '0'],
      );
      assert.ok((await replays(t)) >= 2, 'the later reads were replayed');
      // Another client behind the same proxy has a limit of its own.
      assert.equal((await from('203.0.113.8')).status, 200);
    } finally {
      await t.close();
    }
  });
});

describe('REPLAY_ANSWERS=false', () => {
  it('answers every read through Fastify', async () => {
    const t = await startServer(STORES[0]!, { REPLAY_ANSWERS: 'false' });
    try {
      const p = `${new URL(t.base).pathname}/events?per_page=1`;
      for (let i = 0; i < 4; i++) assert.equal((await get(t.origin, p)).status, 200);
      assert.equal(await replays(t), 0);
    } finally {
      await t.close();
    }
  });
});
