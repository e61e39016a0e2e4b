/**
 * Issue 13, operations: /metrics, compression, rate limits, failed-login throttling, TRUST_PROXY,
 * CORS_ORIGINS and request ids, on every store.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { STORES, forEachStore, startServer, type TestServer } from '../support/harness.js';
import { clearOfWindowEnd } from '../support/rate-window.js';

/** A GET (or other method) with node:http: the body as sent (no transparent decompression). */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const EVENT = (i: number) => ({
  title: `Operations event ${i} with a title long enough to make the list bigger than a kilobyte`,
  description: 'A description that repeats. '.repeat(10),
  start_date: `2027-03-${String(10 + i).padStart(2, '0')} 10:00:00`,
  end_date: `2027-03-${String(10 + i).padStart(2, '0')} 12:00:00`,
  status: 'publish',
});

/** The value of a metric line with these labels (exact label text), or undefined. */
function metric(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

forEachStore('metrics', (t) => {
  it('counts requests by route pattern and status, with latency histograms, pool state, kept-result hits and process metrics', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await t.api.post('/events', { as: 'admin', json: EVENT(i) })).status, 201);
    // Event representations are kept at their second miss (`admitOnSecondUse`): the third list has them.
    // Each list through the pipeline, whose kept results are counted here (a header the replay does
    // not know sends a request to Fastify: web/replay.ts).
    for (let i = 0; i < 3; i++) assert.equal((await t.api.get('/events', { headers: { 'x-test-through': 'pipeline' } })).status, 200);
    assert.equal((await t.api.get('/events/987654')).status, 404);
    await t.api.get('/no/such/thing/at/all');
    const res = await fetch(`${t.origin}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const list = 'method="GET",route="/api/calendar/events/v1/events",status="200"';
    assert.ok((metric(text, 'http_requests_total', list) ?? 0) >= 2, text.slice(0, 2000));
    assert.ok((metric(text, 'http_request_duration_seconds_count', list) ?? 0) >= 2);
    assert.ok(metric(text, 'http_request_duration_seconds_bucket', 'le="0.1",method="GET",route="/api/calendar/events/v1/events",status="200"') !== undefined);
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/calendar\/events\/v1\/events\/:id[^"]*",status="404"\} 1/);
    assert.match(text, /route="\(unmatched\)",status="404"/);
    assert.ok(!text.includes('987654'), 'raw URLs are not labels');
    if (t.built.store.dialect === 'postgres') {
      for (const state of ['total', 'idle', 'waiting']) assert.ok(metric(text, 'calendar_db_connections', `state="${state}"`) !== undefined, state);
      assert.ok(metric(text, 'calendar_db_connections', 'state="total"')! >= 1);
    } else {
      assert.equal(metric(text, 'calendar_db_connections', 'state="total"'), 1);
    }
    // The later anonymous lists came from kept results.
    assert.ok(metric(text, 'calendar_kept_results_total', 'kind="event_pages",result="hit"')! >= 1);
    assert.ok(metric(text, 'calendar_kept_results_total', 'kind="event_pages",result="miss"')! >= 1);
    assert.ok(metric(text, 'calendar_kept_results_total', 'kind="public_events",result="hit"')! >= 3);
    assert.ok(metric(text, 'calendar_kept_results_total', 'kind="public_events",result="miss"')! >= 3);
    assert.ok(metric(text, 'calendar_kept_results_total', 'kind="event_totals",result="hit"') !== undefined);
    // Commits and the writes they carried (the three creates above, sequential: one commit each at least).
    const commits = Number(/^calendar_write_commits_total (\d+)$/m.exec(text)?.[1]);
    const writes = Number(/^calendar_writes_committed_total (\d+)$/m.exec(text)?.[1]);
    assert.ok(writes >= 3 && commits >= 1 && commits <= writes, `${commits} commits, ${writes} writes`);
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.match(text, /^nodejs_heap_size_used_bytes /m);
  });

  it('is per app: a second app in the same process counts apart', async () => {
    const other = await startServer(STORES.find((s) => s.name === t.built.store.dialect)!);
    try {
      const text = await (await fetch(`${other.origin}/metrics`)).text();
      assert.equal(metric(text, 'http_requests_total', 'route="/api/calendar/events/v1/events",status="200"'), undefined);
    } finally {
      await other.close();
    }
  });
});

describe('metrics settings [sqlite]', () => {
  it('METRICS=false: no /metrics (404)', async () => {
    const t = await startServer(STORES[0]!, { METRICS: 'false' });
    try {
      const res = await t.api.get(`${t.origin}/metrics`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'rest_no_route');
    } finally {
      await t.close();
    }
  });
  it('METRICS_TOKEN: Bearer token required (401 otherwise)', async () => {
    const t = await startServer(STORES[0]!, { METRICS_TOKEN: 's3cret-token' });
    try {
      const none = await t.api.get(`${t.origin}/metrics`);
      assert.equal(none.status, 401);
      assert.equal(none.body.data.status, 401);
      assert.equal((await t.api.get(`${t.origin}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      assert.equal((await t.api.get(`${t.origin}/metrics`, { as: 'admin' })).status, 401, 'HTTP Basic credentials are not the token');
      const ok = await t.api.get(`${t.origin}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } });
      assert.equal(ok.status, 200);
      assert.match(ok.text, /http_requests_total/);
    } finally {
      await t.close();
    }
  });
});

forEachStore('compression', (t) => {
  before(async () => {
    for (let i = 0; i < 4; i++) assert.equal((await t.api.post('/events', { as: 'admin', json: EVENT(i) })).status, 201);
  });

  it('answers gzip and brotli by Accept-Encoding, the same bytes once decompressed', async () => {
    const url = `${t.base}/events`;
    const plain = await raw(url);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.length > 1024, `list is ${plain.body.length} bytes`);
    const gz = await raw(url, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers.vary), /accept-encoding/i);
    assert.match(String(gz.headers.vary), /origin/i);
    assert.ok(gz.body.length < plain.body.length);
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    const br = await raw(url, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.equal(br.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(br.headers['x-wp-total'], plain.headers['x-wp-total']);
  });

  it('works for kept (serialized) representations, JSONP, HEAD and the /docs files; not for small bodies', async () => {
    const first = (await t.api.get('/events')).body.events[0];
    const single = `${t.base}/events/${first.id}`;
    await raw(single);
    const plain = await raw(single);
    const br = await raw(single, { 'accept-encoding': 'br' });
    if (plain.body.length > 1024) assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    const jsonpPlain = await raw(`${t.base}/events?_jsonp=cb`);
    const jsonp = await raw(`${t.base}/events?_jsonp=cb`, { 'accept-encoding': 'gzip' });
    assert.equal(jsonp.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(jsonp.body), jsonpPlain.body);
    assert.match(gunzipSync(jsonp.body).toString(), /^\/\*\*\/cb\(/);
    const head = await raw(`${t.base}/events`, { 'accept-encoding': 'br' }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.match(String(head.headers.vary), /accept-encoding/i);
    const small = await raw(`${t.base}/events/987654`, { 'accept-encoding': 'gzip, br' });
    assert.equal(small.status, 404);
    assert.equal(small.headers['content-encoding'], undefined, 'bodies under 1 KB are sent as they are');
    assert.equal(JSON.parse(small.body.toString()).code, 'rest-event-not-found');
    const cssPlain = await raw(`${t.origin}/docs/swagger-ui.css`);
    const css = await raw(`${t.origin}/docs/swagger-ui.css`, { 'accept-encoding': 'gzip' });
    assert.equal(css.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(css.body), cssPlain.body);
    const page = await raw(`${t.origin}/docs`, { 'accept-encoding': 'br' });
    assert.equal(page.status, 200);
  });
});

forEachStore(
  'rate limits',
  (t) => {
    it('answers 429 rest_too_many_requests with Retry-After and the X-RateLimit and IETF RateLimit fields', async () => {
      await clearOfWindowEnd(60);
      const first = await t.api.get('/events');
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-limit'), '3');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '2');
      assert.equal(first.headers.get('ratelimit-policy'), '"default";q=3;w=60');
      assert.match(first.headers.get('ratelimit') ?? '', /^"default";r=2;t=\d+$/);
      await t.api.get('/events');
      assert.equal((await t.api.get('/no-such-route')).status, 404, 'unknown URLs count too');
      const over = await t.api.get('/events');
      assert.equal(over.status, 429);
      assert.deepEqual(Object.keys(over.body), ['code', 'message', 'data']);
      assert.equal(over.body.code, 'rest_too_many_requests');
      assert.deepEqual(over.body.data, { status: 429 });
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
      assert.match(over.headers.get('ratelimit') ?? '', /^"default";r=0;t=\d+$/);
      // Metrics are not limited.
      assert.equal((await fetch(`${t.origin}/metrics`)).status, 200);
      // An authenticated user has a budget of their own, not the IP's.
      const admin = await t.api.get('/events', { as: 'admin' });
      assert.equal(admin.status, 200);
      assert.equal(admin.headers.get('x-ratelimit-remaining'), '2');
      await t.api.get('/events', { as: 'admin' });
      await t.api.get('/events', { as: 'admin' });
      assert.equal((await t.api.get('/events', { as: 'admin' })).status, 429);
      // Bad credentials are anonymous: the IP's (spent) budget.
      assert.equal((await t.api.get('/events', { as: 'admin:wrong' })).status, 429);
    });
  },
  { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW: '1m' },
);

describe('rate limit settings and TRUST_PROXY [sqlite]', () => {
  it('RATE_LIMIT_MAX=0 turns rate limiting off', async () => {
    const t = await startServer(STORES[0]!, { RATE_LIMIT_MAX: '0' });
    try {
      const res = await t.api.get('/events');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), null);
      assert.equal(res.headers.get('ratelimit'), null);
    } finally {
      await t.close();
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For does not change the client', async () => {
    await clearOfWindowEnd(60, 15_000);
    const t = await startServer(STORES[0]!, { RATE_LIMIT_MAX: '2' });
    try {
      await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.1' } });
      await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.2' } });
      assert.equal((await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.3' } })).status, 429);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY, the forwarded client IP is the rate-limit key', async () => {
    await clearOfWindowEnd(60, 15_000);
    const t = await startServer(STORES[0]!, { RATE_LIMIT_MAX: '2', TRUST_PROXY: 'true' });
    try {
      await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.1' } });
      await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.1' } });
      assert.equal((await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.1' } })).status, 429);
      assert.equal((await t.api.get('/events', { headers: { 'x-forwarded-for': '10.0.0.2' } })).status, 200);
    } finally {
      await t.close();
    }
  });

  it('TRUST_PROXY (true, a list of addresses/CIDRs) gives request.ip, protocol and host from X-Forwarded-*; not from other peers', async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'events.example.org' };
    const seen = async (trust: string | undefined) => {
      const built = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', ...(trust ? { TRUST_PROXY: trust } : {}) }), { logger: false });
      built.app.get('/__client', async (req) => ({ ip: req.ip, protocol: req.protocol, host: req.host }));
      try {
        return (await built.app.inject({ url: '/__client', headers: forwarded, remoteAddress: '127.0.0.1' })).json();
      } finally {
        await built.close();
      }
    };
    const proxied = { ip: '203.0.113.7', protocol: 'https', host: 'events.example.org' };
    assert.deepEqual(await seen('true'), proxied);
    assert.deepEqual(await seen('127.0.0.1, 10.0.0.0/8'), proxied);
    assert.deepEqual(await seen('1'), proxied);
    assert.equal((await seen('10.0.0.0/8')).ip, '127.0.0.1', 'the peer is not a trusted proxy');
    assert.equal((await seen(undefined)).protocol, 'http');
  });
});

describe('CORS_ORIGINS [sqlite]', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer(STORES[0]!, { CORS_ORIGINS: 'https://good.example, http://localhost:3000' });
  });
  after(async () => t.close());

  it('allows listed origins only, on answers and preflights', async () => {
    const good = await t.api.get('/events', { headers: { origin: 'https://good.example' } });
    assert.equal(good.headers.get('access-control-allow-origin'), 'https://good.example');
    assert.equal(good.headers.get('access-control-allow-credentials'), 'true');
    const local = await t.api.get('/events', { headers: { origin: 'http://localhost:3000' } });
    assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    const evil = await t.api.get('/events', { headers: { origin: 'https://evil.example' } });
    assert.equal(evil.status, 200);
    for (const h of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-credentials']) assert.equal(evil.headers.get(h), null, h);
    const preflight = (origin: string) => t.api.request('OPTIONS', '/events', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    const okPre = await preflight('https://good.example');
    assert.equal(okPre.headers.get('access-control-allow-origin'), 'https://good.example');
    assert.match(okPre.headers.get('access-control-allow-methods') ?? '', /POST/);
    const badPre = await preflight('https://evil.example');
    assert.equal(badPre.headers.get('access-control-allow-origin'), null);
    assert.equal(badPre.headers.get('access-control-allow-methods'), null);
  });

  it('by default reflects any origin (as WordPress does)', async () => {
    const other = await startServer(STORES[0]!);
    try {
      const res = await other.api.get('/events', { headers: { origin: 'https://anywhere.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://anywhere.example');
    } finally {
      await other.close();
    }
  });

  it('never allows credentials cross-origin on calendar/admin/v1 (answers, errors and preflights), while the legacy namespace keeps them', async () => {
    const origin = 'https://good.example';
    const admin = `${t.origin}/api/calendar/admin/v1`;
    for (const [method, url, headers] of [
      ['GET', `${admin}/webhooks`, { authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64') }],
      ['GET', `${admin}/webhooks`, {}],
      ['GET', `${admin}/no-such-route`, {}],
      ['GET', admin, {}],
      ['OPTIONS', `${admin}/webhooks`, { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' }],
      ['GET', `${t.origin}/wp-json/calendar/admin/v1/sessions`, {}],
    ] as const) {
      const res = await fetch(url, { method, headers: { origin, ...headers } });
      await res.arrayBuffer();
      assert.equal(res.headers.get('access-control-allow-origin'), origin, `${method} ${url}`);
      assert.equal(res.headers.get('access-control-allow-credentials'), null, `${method} ${url}`);
    }
    const legacy = await t.api.get('/events', { headers: { origin } });
    assert.equal(legacy.headers.get('access-control-allow-credentials'), 'true');
    const searched = await t.api.get('/events', { query: { search: '/calendar/admin/v1' }, headers: { origin } });
    assert.equal(searched.headers.get('access-control-allow-credentials'), 'true', 'the namespace is read from the path, not the query');
  });
});

describe('request ids [sqlite]', () => {
  it('takes a sane X-Request-Id or makes one, answers it and logs it on every line of the request', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    });
    const built = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:' }), { logger: { level: 'info', stream } });
    try {
      const sent = await built.app.inject({ url: '/api/calendar/events/v1/events', headers: { 'x-request-id': 'abc-123.XYZ' } });
      assert.equal(sent.headers['x-request-id'], 'abc-123.XYZ');
      const mine = lines.filter((l) => l.reqId === 'abc-123.XYZ');
      assert.ok(mine.some((l) => l.msg === 'incoming request'));
      assert.ok(mine.some((l) => l.msg === 'request completed'));
      for (const bad of ['<script>', 'x'.repeat(129), 'a b']) {
        const res = await built.app.inject({ url: '/api/calendar/events/v1/events', headers: { 'x-request-id': bad } });
        assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, bad);
      }
      const none = await built.app.inject({ url: '/api/calendar/events/v1/nothing-here' });
      const id = String(none.headers['x-request-id']);
      assert.match(id, /^[0-9a-f-]{36}$/);
      const logged = lines.filter((l) => l.reqId === id);
      assert.ok(logged.length >= 2);
      // Every line written about a request carries its id.
      for (const l of lines) if (l.req !== undefined || l.res !== undefined) assert.ok(typeof l.reqId === 'string', JSON.stringify(l));
    } finally {
      await built.close();
    }
  });
});

forEachStore('failed logins', (t) => {
  it('a success resets the login counter; bad credentials stay anonymous below the threshold', async () => {
    await t.user('author', 'bob');
    for (let i = 0; i < 3; i++) {
      const res = await t.api.post('/events', { as: 'bob:wrong', json: EVENT(1) });
      assert.equal(res.status, 401, `attempt ${i + 1}`);
    }
    assert.equal((await t.api.get('/events', { as: 'bob:wrong' })).status, 200, 'a bad password on a read is an anonymous read (4th failure)');
    assert.equal((await t.api.post('/events', { as: 'bob', json: EVENT(1) })).status, 201);
    for (let i = 0; i < 4; i++) assert.equal((await t.api.post('/events', { as: 'bob:wrong', json: EVENT(1) })).status, 401);
  });

  it('after 5 failures for a login, attempts get 429 rest_too_many_requests with Retry-After, even with the right password', async () => {
    await t.user('editor', 'ann');
    for (let i = 0; i < 5; i++) assert.equal((await t.api.post('/events', { as: 'ann:wrong', json: EVENT(1) })).status, 401);
    const blocked = await t.api.post('/events', { as: 'ann', json: EVENT(1) });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.code, 'rest_too_many_requests');
    assert.deepEqual(blocked.body.data, { status: 429 });
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    // Other logins and anonymous requests are not affected.
    assert.equal((await t.api.get('/events')).status, 200);
    assert.equal((await t.api.post('/events', { as: 'admin', json: EVENT(2) })).status, 201);
    // Once the wait is over, the right password works and resets the counter.
    await new Promise((r) => setTimeout(r, 1100 * Number(blocked.headers.get('retry-after'))));
    assert.equal((await t.api.post('/events', { as: 'ann', json: EVENT(1) })).status, 201);
  });
});
