/**
 * Bounded work per request (issue 24, item 2, the HTTP layer): every list argument takes at most
 * its maximum number of items (400 `rest_invalid_param`, `rest_too_many_items`, before any item is
 * looked up); query strings and form bodies over MAX_PARAMETERS parameters or nested deeper than
 * MAX_PARAMETER_DEPTH are refused with a clear 400 instead of being parsed; the event loop's delay
 * is a histogram in `/metrics`; a request during which the loop was held past SLOW_REQUEST_LOG_MS
 * is logged (warn) and counted. No timed assertions: statuses, codes, counts and log lines.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { MAX_PARAMETER_DEPTH, MAX_PARAMETERS } from '../../src/web/query-string.js';
import { MAX_LIST_ITEMS } from '../../src/http/route.js';
import { countListItems } from '../../src/http/coerce.js';
import { loadConfig } from '../../src/config.js';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { generateSeries } from '../../src/domain/series-generation.js';

/** The ids 1..n as a CSV list. */
const csv = (n: number, from = 1) => Array.from({ length: n }, (_, i) => String(from + i)).join(',');

function tooManyItems(res: ApiResponse, param: string, max = MAX_LIST_ITEMS): void {
  assert.equal(res.status, 400, res.text.slice(0, 300));
  assert.equal(res.body.code, 'rest_invalid_param');
  assert.equal(res.body.data.status, 400);
  assert.equal(res.body.data.params[param], `${param} must contain at most ${max} items.`);
  assert.equal(res.body.data.details[param].code, 'rest_too_many_items');
}

async function writeState(t: TestServer): Promise<string> {
  const r = await sql<Record<string, unknown>>`select (select value from change_counter where id = 1) as seq, (select count(*) from posts) as posts, (select count(*) from terms) as terms`.execute(
    t.built.store.db,
  );
  return JSON.stringify(Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)])));
}

/** Busy the event loop (this process serves the test's requests too) for `ms`. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* hold */
  }
}

/** The value of one sample line of a Prometheus text exposition (0 when absent). */
function sample(text: string, line: string): number {
  const found = text.split('\n').find((l) => l.startsWith(line + ' '));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

describe('list items counted without walking huge values', () => {
  it('counts CSV parts (%2C too), array elements, object keys; stops past the limit', () => {
    assert.equal(countListItems('1,2, 3,,%2C4', 'comma', 100), 4);
    assert.equal(countListItems('Jazz Night, Rock Concert', 'comma', 100), 2);
    assert.equal(countListItems('a b,c', 'comma-or-space', 100), 3);
    assert.equal(countListItems('RRULE:FREQ=DAILY;BYDAY=MO,TU\r\nEXDATE:20300101,20300102\n\n', 'line', 100), 2);
    assert.equal(countListItems(['a', 'b'], 'comma', 100), 2);
    assert.equal(countListItems({ 500: 'x', 501: 'y' }, 'comma', 100), 2);
    assert.equal(countListItems(7, 'comma', 100), 1);
    assert.equal(countListItems(csv(1_000_000), 'comma', 100), 101);
  });
});

forEachStore('bounded work per request', (t) => {
  it(`every list argument takes at most ${MAX_LIST_ITEMS} items: 400 rest_invalid_param beyond, before any look-up`, async () => {
    // The event list's filters, as a CSV list and as an array.
    tooManyItems(await t.api.get(`/events?categories=${csv(MAX_LIST_ITEMS + 1)}`), 'categories');
    tooManyItems(await t.api.get(`/events?${Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `tags[]=t${i}`).join('&')}`), 'tags');
    tooManyItems(await t.api.get(`/events?venue=${csv(MAX_LIST_ITEMS + 1)}`), 'venue');
    tooManyItems(await t.api.get(`/events?organizer=${csv(MAX_LIST_ITEMS + 1)}`), 'organizer');
    tooManyItems(await t.api.get(`/events?include=${csv(MAX_LIST_ITEMS + 1).replace(/,/g, '%2C')}`), 'include');
    // Indexes beyond qs' array limit make an object: its keys are counted.
    tooManyItems(await t.api.get(`/events?${Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `include[${300 + i}]=${i + 1}`).join('&')}`), 'include');
    // Term lists.
    tooManyItems(await t.api.get(`/categories?include=${csv(MAX_LIST_ITEMS + 1)}`), 'include');
    tooManyItems(await t.api.get(`/tags?exclude=${csv(MAX_LIST_ITEMS + 1)}`), 'exclude');
    // A million items in a 2 MB form body: refused as quickly as 101.
    tooManyItems(await t.api.request('POST', '/events', { form: `include=${csv(250_000)}`, headers: { 'x-http-method-override': 'GET' } }), 'include');
    // Exactly the maximum is accepted (not refused for its length).
    const atMax = await t.api.get(`/events?include=${csv(MAX_LIST_ITEMS)}`);
    assert.equal(atMax.status, 200, atMax.text.slice(0, 300));
    const termsAtMax = await t.api.get(`/categories?include=${csv(MAX_LIST_ITEMS)}`);
    assert.notEqual(termsAtMax.body?.data?.details?.include?.code, 'rest_too_many_items');
  });

  it('an event write with too many categories, tags or organizers is refused whole and writes nothing', async () => {
    const before = await writeState(t);
    const base = { title: 'Many terms', start_date: '2030-03-01 10:00', end_date: '2030-03-01 11:00' };
    const names = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `bulk term ${i}`);
    tooManyItems(await t.api.post('/events', { as: 'admin', json: { ...base, categories: names } }), 'categories');
    tooManyItems(await t.api.post('/events', { as: 'admin', json: { ...base, tags: names.join(',') } }), 'tags');
    tooManyItems(await t.api.post('/events', { as: 'admin', json: { ...base, organizer: names.map((organizer) => ({ organizer })) } }), 'organizer');
    assert.equal(await writeState(t), before);
    // The recurrence rules are counted by line, not by comma: one RDATE line of 150 dates is one item.
    const dates = Array.from({ length: 150 }, (_, i) => new Date(Date.UTC(2030, 3, 1 + i)).toISOString().slice(0, 10).replace(/-/g, '') + 'T100000').join(',');
    const recurring = await t.api.post('/events', { as: 'admin', json: { ...base, recurrence: `RDATE:${dates}` } });
    assert.equal(recurring.status, 201, recurring.text.slice(0, 300));
    // Its occurrences past the first 100 come from the horizon job (write limits): finished here, so
    // that the next test sees no write it did not send.
    await generateSeries(t.built.services, recurring.body.id);
    tooManyItems(await t.api.post('/events', { as: 'admin', json: { ...base, recurrence: Array.from({ length: MAX_LIST_ITEMS + 1 }, () => `RDATE:${dates.slice(0, 15)}`) } }), 'recurrence');
  });

  it(`a query string or form body over ${MAX_PARAMETERS} parameters or ${MAX_PARAMETER_DEPTH} levels answers a clear 400, never a 500, and writes nothing`, async () => {
    const before = await writeState(t);
    const many = Array.from({ length: MAX_PARAMETERS + 1 }, (_, i) => `p${i}=1`).join('&');
    for (const res of [
      await t.api.get(`/events?${many}`),
      await t.api.request('OPTIONS', `/venues?${Array.from({ length: MAX_PARAMETERS + 1 }, () => 'a[]=1').join('&')}`),
      await t.api.post('/events', { as: 'admin', form: many }),
      await t.api.post('/events', { as: 'admin', form: Array.from({ length: 20_000 }, (_, i) => `a[b${i}][c][d][e]=1`).join('&') }),
    ]) {
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.code, 'rest_too_many_params');
      assert.equal(res.body.data.status, 400);
    }
    for (const res of [await t.api.get(`/events?a${'[a]'.repeat(MAX_PARAMETER_DEPTH + 1)}=1`), await t.api.post('/tags', { as: 'admin', form: `name=x&a${'[a]'.repeat(40)}=1` })]) {
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.code, 'rest_params_too_deep');
    }
    assert.equal(await writeState(t), before);
    // At the limits, as before.
    assert.equal((await t.api.get(`/events?${Array.from({ length: MAX_PARAMETERS }, (_, i) => `p${i}=1`).join('&')}`)).status, 200);
    assert.equal((await t.api.get(`/events?a${'[a]'.repeat(MAX_PARAMETER_DEPTH)}=1`)).status, 200);
  });

  it('/metrics has the event loop delay histogram, and it moves when the loop is held', async () => {
    const first = await t.api.get(`${t.origin}/metrics`);
    assert.equal(first.status, 200);
    assert.match(first.text, /# TYPE calendar_event_loop_delay_seconds histogram/);
    assert.match(first.text, /calendar_event_loop_delay_seconds_bucket\{le="0\.1"\} \d+/);
    assert.match(first.text, /# TYPE calendar_slow_requests_total counter/);
    const sumBefore = sample(first.text, 'calendar_event_loop_delay_seconds_sum');
    const overBefore = sample(first.text, 'calendar_event_loop_delay_seconds_count') - sample(first.text, 'calendar_event_loop_delay_seconds_bucket{le="0.05"}');
    // Held, then scraped; on a busy machine the monitor's sample of the hold can land after the
    // scrape: hold and scrape again, at most three times (a histogram that never moves still fails).
    let second = first;
    let sumAfter = sumBefore;
    let overAfter = overBefore;
    for (let attempt = 0; attempt < 3 && !(sumAfter >= sumBefore + 0.1 && overAfter >= overBefore + 1); attempt++) {
      holdLoop(150);
      await new Promise((r) => setTimeout(r, 100));
      second = await t.api.get(`${t.origin}/metrics`);
      sumAfter = sample(second.text, 'calendar_event_loop_delay_seconds_sum');
      overAfter = sample(second.text, 'calendar_event_loop_delay_seconds_count') - sample(second.text, 'calendar_event_loop_delay_seconds_bucket{le="0.05"}');
    }
    assert.ok(sample(second.text, 'calendar_event_loop_delay_seconds_count') > 0);
    assert.ok(sumAfter >= sumBefore + 0.1, `sum ${sumBefore} → ${sumAfter}`);
    assert.ok(overAfter >= overBefore + 1, `delays over 50 ms: ${overBefore} → ${overAfter}`);
  });
});

describe('slow requests: logged and counted', () => {
  it('a request during which the loop was held past SLOW_REQUEST_LOG_MS is named in a warn line and counted in /metrics', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', SLOW_REQUEST_LOG_MS: '40', LOG_LEVEL: 'warn' });
    const built = await buildApp(config, { logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line)) } }, webhooks: false });
    try {
      built.app.get('/test/hold', async () => {
        holdLoop(120);
        return { held: true };
      });
      built.app.get('/test/quick', async () => ({ quick: true }));
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = built.app.server.address() as { port: number };
      const origin = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${origin}/test/hold?x=1`)).status, 200);
      const logged = lines.filter((l) => l.msg === 'request held the event loop');
      assert.equal(logged.length >= 1, true, JSON.stringify(lines));
      const line = logged.find((l) => l.route === '/test/hold');
      assert.ok(line, JSON.stringify(logged));
      assert.equal(line.level, 40);
      assert.equal(line.method, 'GET');
      assert.equal(line.url, '/test/hold?x=1');
      assert.equal(line.status, 200);
      assert.equal(typeof line.reqId, 'string');
      assert.ok(Number(line.heldMs) >= 100, JSON.stringify(line));
      assert.ok(Number(line.cpuMs) >= 0);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      assert.ok(
        sample(metrics, 'calendar_slow_requests_total{method="GET",route="/test/hold"}') >= 1,
        metrics
          .split('\n')
          .filter((l) => l.includes('slow'))
          .join('\n'),
      );
    } finally {
      await built.close();
    }
  });

  it('SLOW_REQUEST_LOG_MS is a setting (default 100; 0 names every request that saw a hold)', () => {
    assert.equal(loadConfig({}).slowRequestLogMs, 100);
    assert.equal(loadConfig({ SLOW_REQUEST_LOG_MS: '0' }).slowRequestLogMs, 0);
    assert.throws(() => loadConfig({ SLOW_REQUEST_LOG_MS: '-5' }));
  });
});
