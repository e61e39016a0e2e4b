import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createReplay, markReplayable, MAX_BYTES, type Replay, type ReplayDeps } from '../../src/web/replay.js';

/**
 * src/web/replay.ts over a plain HTTP server whose own listener stands for Fastify: it marks what
 * it answers as the pipeline does, with headers and bodies the test decides.
 */
describe('replay (web/replay.ts)', () => {
  let server: Server;
  let origin: string;
  let replay: Replay;
  let revision = 1;
  let fastify = 0;
  let allowed = true;
  let holds = true;
  let open = true;
  /** whether the requests' host name is a calendar's own now, and whether the next sync makes it so */
  let hostTaken = false;
  let takeHostOnSync = false;
  let logged: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  /** `/moving`'s answers wait for these, by the calendar they are of (1: the default one), while set */
  const gates = new Map<number, Promise<void>>();
  /**
   * `/moving`: the default calendar's answer while the host name is no calendar's, calendar 7's once
   * it is (each with an ETag of its own, 304 to its own `If-None-Match`), held at its gate if any.
   */
  const moving = async (req: IncomingMessage, res: ServerResponse) => {
    const calendar = hostTaken ? 7 : 1;
    if (calendar === 7) markReplayable(req, { route: '/moving', calendar });
    else markReplayable(req, { route: '/moving' });
    await gates.get(calendar);
    const etag = `"c${calendar}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { 'x-request-id': `slow-${fastify}`, etag });
      return void res.end();
    }
    const body = `{"calendar":${calendar}}`;
    res.writeHead(200, { 'x-request-id': `slow-${fastify}`, etag, 'content-type': 'application/json', 'content-length': String(body.length) });
    res.end(body);
  };
  /** what the stand-in for Fastify answers: per URL path */
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    fastify++;
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/moving') return void moving(req, res);
    const size = Number(url.searchParams.get('size') ?? 10);
    const headers: Record<string, string> = {
      'x-request-id': `slow-${fastify}`,
      'x-ratelimit-limit': '9',
      'x-ratelimit-remaining': '8',
      'x-ratelimit-reset': '60',
      etag: '"v1"',
      'content-type': 'application/json',
    };
    if (url.pathname === '/cookie') headers['set-cookie'] = 'a=1';
    if (url.pathname === '/held') markReplayable(req, { route: '/route/:x', holds: () => holds });
    else if (url.pathname !== '/unmarked') markReplayable(req, { route: '/route/:x' });
    const body = url.pathname === '/changing' ? `{"n":${fastify}}` : `{"r":${revision},"pad":"${'x'.repeat(size)}"}`;
    if (url.pathname.startsWith('/chunked')) {
      // Sent in pieces without a length (as a compressed answer is).
      res.writeHead(200, headers);
      for (let i = 0; i < body.length; i += 1000) res.write(body.slice(i, i + 1000));
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(url.pathname.startsWith('/pooled') ? Buffer.concat([Buffer.from(body)]) : body);
  };
  const deps: ReplayDeps = {
    revision: () => String(revision),
    stamp: () => revision,
    revisionSince: (_calendar, stamp) => (stamp === revision ? String(revision) : undefined),
    arrive: () => {},
    open: () => open,
    sync: async () => {
      if (takeHostOnSync) hostTaken = true;
      return revision;
    },
    // The requests' host name becomes a calendar's in one test (test/http/calendars-replay-mcp.test.ts moves a real one).
    isCalendarHost: () => hostTaken,
    requestId: (req) => (typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : 'fresh-id'),
    clientAddress: (req) => req.socket.remoteAddress ?? '',
    rateLimit: () => (allowed ? { limit: 9, remaining: 5, reset: 30 } : undefined),
    log: { requests: () => true, info: (obj, msg) => logged.push({ obj: obj as Record<string, unknown>, msg }) },
  };
  before(async () => {
    server = createServer(answer);
    replay = createReplay(deps);
    replay.install(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    allowed = true;
    logged = [];
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; raw: string[]; body: string }>((resolve, reject) => {
      const req = request(`${origin}${path}`, { agent: false, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: res.rawHeaders, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('replays from the third request, with the request id and rate limit made again in their places', async () => {
    const before = fastify;
    await get('/a');
    await get('/a');
    const third = await get('/a');
    assert.equal(fastify, before + 2, 'the third was not answered by the stand-in');
    assert.equal(third.headers['x-request-id'], 'fresh-id');
    assert.equal(third.headers['x-ratelimit-remaining'], '5');
    assert.equal(third.headers['x-ratelimit-reset'], '30');
    assert.deepEqual(third.raw.filter((_, i) => i % 2 === 0).slice(0, 7), [
      'x-request-id',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'etag',
      'content-type',
      'content-length',
    ]);
    assert.equal(JSON.parse(third.body).r, revision);
  });

  it('logs a replayed request as Fastify does', async () => {
    await get('/a');
    assert.deepEqual(
      logged.map((l) => l.msg),
      ['incoming request', 'request completed'],
    );
    assert.equal(logged[0]!.obj.reqId, 'fresh-id');
    assert.equal((logged[0]!.obj.req as { url: string }).url, '/a');
    assert.deepEqual(logged[1]!.obj.res, { statusCode: 200 });
    assert.equal(typeof logged[1]!.obj.responseTime, 'number');
  });

  it('goes to the stand-in when the host name became a calendar’s while the feed was brought up to date (the look after the sync)', async () => {
    await get('/hosted');
    await get('/hosted');
    const before = fastify;
    await get('/hosted');
    assert.equal(fastify, before, 'replayed while the host is no calendar’s');
    // The default calendar's answer: the host names read during this request's sync make the host a calendar's.
    takeHostOnSync = true;
    try {
      await get('/hosted');
      assert.equal(fastify, before + 1, 'answered by the stand-in: the request is another calendar’s now');
    } finally {
      takeHostOnSync = false;
      hostTaken = false;
    }
  });

  it('never puts answers of two calendars under one key together: the default calendar’s answers in flight when a host name became another’s', async () => {
    // The two calendars' revisions are equal here (the stand-in's deps have one for all), so only
    // the calendar of each answer tells them apart when it is kept.
    const release = new Map<number, () => void>();
    for (const calendar of [1, 7]) gates.set(calendar, new Promise<void>((resolve) => release.set(calendar, resolve)));
    try {
      const before = fastify;
      const reached = async (n: number) => {
        while (fastify < before + n) await new Promise((resolve) => setTimeout(resolve, 5));
      };
      // Two of the default calendar's answers, in flight while the host name becomes calendar 7's.
      const old = [get('/moving'), get('/moving')];
      await reached(2);
      hostTaken = true;
      // Two of calendar 7's, asked with its ETag (304): they finish after the default calendar's.
      const conditional = [get('/moving', { 'if-none-match': '"c7"' }), get('/moving', { 'if-none-match': '"c7"' })];
      await reached(4);
      release.get(1)!();
      for (const r of await Promise.all(old)) assert.equal(JSON.parse(r.body).calendar, 1);
      release.get(7)!();
      for (const r of await Promise.all(conditional)) assert.equal(r.status, 304);
      // Calendar 7's 304 was kept twice; its 200 never was: the default calendar's body is not it.
      const plain = await get('/moving');
      assert.equal(plain.status, 200);
      assert.equal(JSON.parse(plain.body).calendar, 7, 'calendar 7 is answered its own body, not the one kept of the default calendar');
      assert.equal(fastify, before + 5, 'answered by the stand-in');
    } finally {
      gates.clear();
      hostTaken = false;
    }
  });

  it('goes to the stand-in when the revision moved, and replays the new answer once admitted again', async () => {
    revision++;
    const before = fastify;
    assert.equal(JSON.parse((await get('/a')).body).r, revision);
    await get('/a');
    assert.equal(fastify, before + 2);
    assert.equal(JSON.parse((await get('/a')).body).r, revision);
    assert.equal(fastify, before + 2);
  });

  it("goes to the stand-in once the route's own condition no longer holds (a list's day)", async () => {
    for (let i = 0; i < 3; i++) await get('/held');
    const before = fastify;
    await get('/held');
    assert.equal(fastify, before, 'replayed while it holds');
    holds = false;
    await get('/held');
    assert.equal(fastify, before + 1);
    holds = true;
  });

  it('goes to the stand-in for a request over the rate limit', async () => {
    const before = fastify;
    allowed = false;
    await get('/a');
    assert.equal(fastify, before + 1);
  });

  it('never admits an answer that differs each time, one with Set-Cookie, or one not marked', async () => {
    for (const path of ['/changing', '/cookie', '/unmarked']) {
      const before = fastify;
      for (let i = 0; i < 4; i++) await get(path);
      assert.equal(fastify, before + 4, path);
    }
  });

  it('keeps an answer sent in pieces whole, and replays it in the same framing; not one past 1 MiB', async () => {
    for (let i = 0; i < 2; i++) await get('/chunked?size=5000');
    const before = fastify;
    const replayed = await get('/chunked?size=5000');
    assert.equal(fastify, before, 'replayed');
    assert.equal(JSON.parse(replayed.body).pad.length, 5000);
    assert.equal(replayed.headers['transfer-encoding'], 'chunked', 'as it was sent');
    assert.equal(replayed.headers['content-length'], undefined);
    for (let i = 0; i < 3; i++) await get(`/chunked?size=${2 * 1024 * 1024}`);
    assert.equal(fastify, before + 3, 'too big to gather: never kept');
  });

  it('keeps answers apart by X-Forwarded-Proto and X-Forwarded-Host', async () => {
    for (let i = 0; i < 2; i++) await get('/fwd', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'a.example' });
    const before = fastify;
    await get('/fwd', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'a.example' });
    assert.equal(fastify, before, 'the same forwarded request: replayed');
    await get('/fwd', { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'a.example' });
    await get('/fwd', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'b.example' });
    await get('/fwd');
    assert.equal(fastify, before + 3, 'another scheme, another host, none: each its own answer');
  });

  it('replays nothing while the server closes', async () => {
    for (let i = 0; i < 2; i++) await get('/closing');
    const before = fastify;
    await get('/closing');
    assert.equal(fastify, before, 'kept');
    open = false;
    try {
      await get('/closing');
      assert.equal(fastify, before + 1, 'closing: Fastify answers');
    } finally {
      open = true;
    }
  });

  it('keeps each body in memory of its own, and counts that memory (a pooled slice would hold its whole slab)', async () => {
    const before = replay.stats();
    // Small bodies, sent as a text and as a slice of a shared slab (as Buffer.concat makes a list's body).
    for (const path of ['/own-a', '/own-b', '/own-c', '/pooled-a', '/pooled-b', '/pooled-c']) {
      await get(path);
      await get(path);
    }
    const replayedBefore = fastify;
    await get('/pooled-a');
    assert.equal(fastify, replayedBefore, 'kept and replayed');
    const after = replay.stats();
    assert.equal(after.entries - before.entries, 6);
    // Each entry: its key, about 200 bytes of headers, a body of 32: far below a slab (8 KiB or more).
    const each = (after.bytes - before.bytes) / 6;
    assert.ok(each < 1024, `${each.toFixed(0)} bytes held per kept answer`);
  });

  it('keeps at most MAX_BYTES of answers, the oldest going first', async () => {
    const size = 1024 * 1024;
    for (let i = 0; i < 24; i++) {
      await get(`/big${i}?size=${size}`);
      await get(`/big${i}?size=${size}`);
    }
    const { bytes, entries } = replay.stats();
    assert.ok(bytes <= MAX_BYTES, `${bytes} bytes kept`);
    assert.ok(entries < 24 + 4, `${entries} entries`);
    const before = fastify;
    await get(`/big23?size=${size}`);
    assert.equal(fastify, before, 'the newest is kept');
    await get(`/big0?size=${size}`);
    assert.equal(fastify, before + 1, 'the oldest went');
  });
});
