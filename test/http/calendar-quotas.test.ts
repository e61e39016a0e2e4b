/**
 * Each calendar's quotas (docs/calendars.md, "Quotas"): past a limit the write it limits is
 * refused with `calendar_quota_exceeded` (403 events and webhook endpoints, 413 media bytes, 429
 * with Retry-After submissions a day and requests a minute), below it allowed; creates at once
 * never pass the limit together; one calendar's used-up quota leaves the others alone; the
 * requests a minute hold across two instances on one database; the installation's defaults
 * (CALENDAR_QUOTA_*) apply where a calendar names none, and 0 means no limit.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, forEachStore, startTwoInstances, type TestServer } from '../support/harness.js';
import { plainImage, authOf } from '../support/media.js';
import { EVENT, OPEN } from '../support/submissions.js';
import { clearOfWindowEnd } from '../support/rate-window.js';

const REST = '/api/calendar/events/v1';
const ADMIN = '/api/calendar/admin/v1';
const at = (t: TestServer, slug: string | null, path: string) => `${t.origin}${slug ? `/c/${slug}` : ''}${path}`;
let n = 0;
const event = (extra: Record<string, unknown> = {}) => ({ title: `Quota ${++n}`, start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00', ...extra });

function assertExceeded(r: { status: number; body: any; headers: Headers }, status: number, quota: string, limit: number, used: number) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.code, 'calendar_quota_exceeded');
  assert.equal(r.body.data.status, status);
  assert.equal(r.body.data.quota, quota);
  assert.equal(r.body.data.limit, limit);
  assert.equal(r.body.data.used, used);
  if (status === 429) assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After');
}

async function upload(t: TestServer, slug: string, bytes: Buffer): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(at(t, slug, `${ADMIN}/media`), { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'admin') }, body: new Uint8Array(bytes) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

forEachStore(
  'calendar quotas',
  (t) => {
    before(async () => {
      const c = t.built.services.calendars;
      await c.create({ slug: 'small', name: 'Small', quotas: { events: 2, webhook_endpoints: 1, submissions_per_day: 2 } });
      await c.create({ slug: 'crowd', name: 'Crowd', quotas: { events: 3 } });
      await c.create({ slug: 'series', name: 'Series', quotas: { events: 2 } });
      await c.create({ slug: 'pictures', name: 'Pictures', quotas: { media_bytes: 10_000_000 } });
      await c.create({ slug: 'free', name: 'Free' });
    });

    it('refuses an event past the events quota with 403 and what it counts; trashed events still count', async () => {
      for (let i = 0; i < 2; i++) assert.equal((await t.api.post(at(t, 'small', `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      const third = await t.api.post(at(t, 'small', `${REST}/events`), { as: 'admin', json: event() });
      assertExceeded(third, 403, 'events', 2, 2);
      // A trashed event is still kept (and may be restored): it counts until deleted permanently.
      const list = await t.api.get(at(t, 'small', `${REST}/events`), { query: { start_date: '2031-01-01', end_date: '2032-01-01' } });
      assert.equal((await t.api.delete(at(t, 'small', `${REST}/events/${list.body.events[0].id}`), { as: 'admin' })).status, 200);
      assertExceeded(await t.api.post(at(t, 'small', `${REST}/events`), { as: 'admin', json: event() }), 403, 'events', 2, 2);
      // The other calendars are not limited by it.
      assert.equal((await t.api.post(at(t, 'free', `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assert.equal((await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() })).status, 201);
    });

    it('counts a recurring event once, whatever its occurrences', async () => {
      const series = await t.api.post(at(t, 'series', `${REST}/events`), { as: 'admin', json: event({ recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] }) });
      assert.equal(series.status, 201, series.text);
      assert.equal((await t.api.post(at(t, 'series', `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assertExceeded(await t.api.post(at(t, 'series', `${REST}/events`), { as: 'admin', json: event() }), 403, 'events', 2, 2);
    });

    it('refuses a series split or a series made single that would pass the events quota, writing nothing', async () => {
      await t.built.services.calendars.create({ slug: 'split', name: 'Split', quotas: { events: 2 } });
      const events = at(t, 'split', `${REST}/events`);
      const window = { start_date: '2031-01-01', end_date: '2032-01-01', per_page: 50 };
      const occurrences = async (seriesId: number) => (await t.api.get(events, { as: 'admin', query: { ...window, post_parent: seriesId } })).body.events as Array<Record<string, any>>;
      const series = await t.api.post(events, { as: 'admin', json: event({ title: 'Split weekly', status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] }) });
      assert.equal(series.status, 201, series.text);
      const before = await occurrences(series.body.id);
      assert.equal(before.length, 4);
      // One occurrence edited alone: an exception, which a series made single keeps as an event.
      assert.equal((await t.api.post(`${events}/${before[1]!.id}`, { as: 'admin', json: { title: 'Split weekly (kept)' } })).status, 200);
      assert.equal((await t.api.post(events, { as: 'admin', json: event() })).status, 201);

      // Split from the third occurrence: a new series, one event more than the quota.
      const split = await t.api.post(`${events}/${before[2]!.id}`, { as: 'admin', json: { title: 'Split weekly (new room)', recurrence_scope: 'following' } });
      assertExceeded(split, 403, 'events', 2, 2);
      // Made single: its exception would become a third event.
      const single = await t.api.post(`${events}/${series.body.id}`, { as: 'admin', json: { recurrence: [] } });
      assertExceeded(single, 403, 'events', 2, 2);
      const fromOccurrence = await t.api.post(`${events}/${before[0]!.id}`, { as: 'admin', json: { recurrence: [], recurrence_scope: 'all' } });
      assertExceeded(fromOccurrence, 403, 'events', 2, 2);
      // Nothing written: the series, its rules and its occurrences as they were.
      const after = await occurrences(series.body.id);
      assert.deepEqual(
        after.map((e) => [e.id, e.title]),
        before.map((e, i) => [e.id, i === 1 ? 'Split weekly (kept)' : 'Split weekly']),
      );
      assert.deepEqual((await t.api.get(`${events}/${series.body.id}`, { as: 'admin' })).body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=4']);
      const usage = await t.built.services.calendars.within((await t.built.services.calendars.get('split')).id, () => t.built.services.quotas.usage());
      assert.equal(usage.events.used, 2);
      // With room for them, both are allowed.
      await t.built.services.calendars.update('split', { quotas: { events: 4 } });
      const splitOk = await t.api.post(`${events}/${before[2]!.id}`, { as: 'admin', json: { title: 'Split weekly (new room)', recurrence_scope: 'following' } });
      assert.equal(splitOk.status, 200, splitOk.text);
      assert.equal((await t.api.post(`${events}/${series.body.id}`, { as: 'admin', json: { recurrence: [] } })).status, 200);
    });

    it('10 creates at once with a quota of 3 leave exactly 3', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => t.api.post(at(t, 'crowd', `${REST}/events`), { as: 'admin', json: event() })));
      const statuses = answers.map((a) => a.status).sort();
      assert.equal(answers.filter((a) => a.status === 201).length, 3, statuses.join(','));
      for (const a of answers.filter((x) => x.status !== 201)) assertExceeded(a, 403, 'events', 3, 3);
      const list = await t.api.get(at(t, 'crowd', `${REST}/events`), { as: 'admin', query: { start_date: '2031-01-01', end_date: '2032-01-01', per_page: 50 } });
      assert.equal(list.body.total, 3, JSON.stringify(list.body).slice(0, 500));
    });

    it('refuses a webhook endpoint past the webhook_endpoints quota with 403', async () => {
      const first = await t.api.post(at(t, 'small', `${ADMIN}/webhooks`), { as: 'admin', json: { url: 'http://127.0.0.1:9/one' } });
      assert.equal(first.status, 201, first.text);
      assertExceeded(await t.api.post(at(t, 'small', `${ADMIN}/webhooks`), { as: 'admin', json: { url: 'http://127.0.0.1:9/two' } }), 403, 'webhook_endpoints', 1, 1);
      assert.equal((await t.api.post(at(t, 'free', `${ADMIN}/webhooks`), { as: 'admin', json: { url: 'http://127.0.0.1:9/two' } })).status, 201);
    });

    it('refuses an upload past the media_bytes quota with 413, storing nothing', async () => {
      const first = await upload(t, 'pictures', await plainImage(64, 64));
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const used = first.body.filesize as number;
      assert.ok(used > 0);
      await t.built.services.calendars.update('pictures', { quotas: { media_bytes: used + 10 } });
      const second = await upload(t, 'pictures', await plainImage(64, 64));
      assertExceeded(second, 413, 'media_bytes', used + 10, used);
      const library = await t.api.get(at(t, 'pictures', `${ADMIN}/media`), { as: 'admin' });
      assert.equal(library.body.length, 1);
      assert.equal((await upload(t, 'free', await plainImage(64, 64))).status, 201);
    });

    it('refuses public submissions past submissions_per_day with 429 and Retry-After', async () => {
      const send = (slug: string | null, i: number) => t.api.post(at(t, slug, '/api/calendar/submissions/v1/submissions'), { json: { ...EVENT, title: `Fair ${i}`, email: `s${i}@example.org` } });
      // The small calendar's events quota is used up: raise it, so that only the submissions' counts.
      await t.built.services.calendars.update('small', { quotas: { events: 100, webhook_endpoints: 1, submissions_per_day: 2 } });
      for (let i = 0; i < 2; i++) {
        const ok = await send('small', i);
        assert.equal(ok.status, 201, ok.text);
      }
      assertExceeded(await send('small', 2), 429, 'submissions_per_day', 2, 2);
      assert.equal((await send('free', 3)).status, 201);
      assert.equal((await send(null, 4)).status, 201);
    });

    it('answers a submission refused by the events quota as such, and gives its day’s place back', async () => {
      await t.built.services.calendars.create({ slug: 'brim', name: 'Brim', quotas: { events: 1, submissions_per_day: 2 } });
      const made = await t.api.post(at(t, 'brim', `${REST}/events`), { as: 'admin', json: event() });
      assert.equal(made.status, 201, made.text);
      const send = (i: number) => t.api.post(at(t, 'brim', '/api/calendar/submissions/v1/submissions'), { json: { ...EVENT, title: `Brim ${i}`, email: `brim${i}@example.org` } });
      // More submissions than the day's places: each is refused for the events quota, none for the day's.
      for (let i = 0; i < 4; i++) assertExceeded(await send(i), 403, 'events', 1, 1);
      // Sent at once, too.
      for (const r of await Promise.all([6, 7, 8, 9].map(send))) assertExceeded(r, 403, 'events', 1, 1);
      await t.built.services.calendars.update('brim', { quotas: { events: 10, submissions_per_day: 2 } });
      assert.equal((await send(5)).status, 201);
    });

    it('tells a network administrator each quota of a calendar and what it uses of it', async () => {
      const c = t.built.services.calendars;
      const { id } = await c.create({ slug: 'usage', name: 'Usage', quotas: { events: 5, webhook_endpoints: 2, submissions_per_day: 3 } });
      const other = await c.create({ slug: 'usage-other', name: 'Usage other' });
      const created = await t.api.post(at(t, 'usage', `${REST}/events`), { as: 'admin', json: event() });
      assert.equal(created.status, 201, created.text);
      assert.equal((await t.api.delete(at(t, 'usage', `${REST}/events/${created.body.id}`), { as: 'admin' })).status, 200);
      assert.equal((await t.api.post(at(t, 'usage', `${ADMIN}/webhooks`), { as: 'admin', json: { url: 'http://127.0.0.1:9/hook' } })).status, 201);
      const submitted = await t.api.post(at(t, 'usage', '/api/calendar/submissions/v1/submissions'), { json: { ...EVENT, title: 'Usage', email: 'usage@example.org' } });
      assert.equal(submitted.status, 201, submitted.text);
      assert.equal((await t.api.post(at(t, 'usage-other', `${REST}/events`), { as: 'admin', json: event() })).status, 201);

      const usage = await t.api.get(at(t, null, `/api/calendar/network/v1/calendars/${id}/usage`), { as: 'admin' });
      assert.equal(usage.status, 200, usage.text);
      // The trashed event still counts (it is kept); the submission is a pending event of the calendar.
      assert.deepEqual(usage.body, {
        events: { limit: 5, used: 2 },
        media_bytes: { limit: 0, used: 0 },
        requests_per_minute: { limit: 0, used: null },
        webhook_endpoints: { limit: 2, used: 1 },
        submissions_per_day: { limit: 3, used: 1 },
        sync_history_days: { limit: 0, used: 30 },
      });
      // Another calendar's use is its own; the namespace answers the same under any calendar's path.
      const theirs = await t.api.get(at(t, 'usage', `/api/calendar/network/v1/calendars/${other.id}/usage`), { as: 'admin' });
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual([theirs.body.events.used, theirs.body.webhook_endpoints.used, theirs.body.submissions_per_day.used], [1, 0, 0]);
      // Network administrators only; an unknown calendar is 404.
      const editor = await t.user('editor', 'quota-editor');
      assert.equal((await t.api.get(at(t, null, `/api/calendar/network/v1/calendars/${id}/usage`), { as: editor.credentials })).status, 403);
      assert.equal((await t.api.get(at(t, null, `/api/calendar/network/v1/calendars/${id}/usage`), { as: null })).status, 401);
      const missing = await t.api.get(at(t, null, '/api/calendar/network/v1/calendars/99999/usage'), { as: 'admin' });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'calendar_not_found');
    });

    it('keeps a quota only as the exact whole number given: past 2^53 refused, digits from a form taken', async () => {
      const N = `${t.origin}/api/calendar/network/v1/calendars`;
      const made = await t.api.post(N, { as: 'admin', json: { slug: 'exact', name: 'Exact' } });
      assert.equal(made.status, 201, made.text);
      for (const events of [1e300, 2 ** 53 + 2, 1.5, -1, '12a', '']) {
        const refused = await t.api.patch(`${N}/${made.body.id}`, { as: 'admin', json: { quotas: { events } } });
        assert.equal(refused.status, 400, `${String(events)}: ${refused.text}`);
        assert.equal(refused.body.data.details.quotas.data.quota, 'events');
      }
      const big = await t.api.patch(`${N}/${made.body.id}`, { as: 'admin', json: { quotas: { media_bytes: 2 ** 53 - 1 } } });
      assert.equal(big.status, 200, big.text);
      assert.equal(big.body.quotas.media_bytes, 2 ** 53 - 1);
      const text = await t.api.patch(`${N}/${made.body.id}`, { as: 'admin', json: { quotas: { events: '25' } } });
      assert.equal(text.status, 200, text.text);
      assert.equal(text.body.quotas.events, 25);
    });
  },
  { ...OPEN, WEBHOOKS_ALLOW_PRIVATE: 'true' },
);

forEachStore(
  'calendar quotas: the installation’s defaults',
  (t) => {
    before(async () => {
      await t.built.services.calendars.create({ slug: 'own', name: 'Own', quotas: { events: 0 } });
      await t.built.services.calendars.create({ slug: 'plain', name: 'Plain' });
    });

    it('limits every calendar that names no quota, the default one included; a calendar’s 0 means no limit', async () => {
      assert.equal((await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assertExceeded(await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() }), 403, 'events', 1, 1);
      assert.equal((await t.api.post(at(t, 'plain', `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assertExceeded(await t.api.post(at(t, 'plain', `${REST}/events`), { as: 'admin', json: event() }), 403, 'events', 1, 1);
      for (let i = 0; i < 3; i++) assert.equal((await t.api.post(at(t, 'own', `${REST}/events`), { as: 'admin', json: event() })).status, 201);
    });

    it('takes the default calendar’s own quota once it is set', async () => {
      await t.built.services.calendars.update(1, { quotas: { events: 3 } });
      assert.equal((await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assert.equal((await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() })).status, 201);
      assertExceeded(await t.api.post(at(t, null, `${REST}/events`), { as: 'admin', json: event() }), 403, 'events', 3, 3);
    });

    it('bounds every calendar’s SYNC_HISTORY_DAYS by the installation’s sync_history_days quota, where its own names none', async () => {
      const put = (slug: string | null, days: number) => t.api.put(at(t, slug, `${ADMIN}/settings`), { as: 'admin', json: { SYNC_HISTORY_DAYS: days } });
      for (const slug of [null, 'plain']) {
        const refused = await put(slug, 21);
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.code, 'rest_invalid_param');
        assert.match(refused.body.data.params.SYNC_HISTORY_DAYS, /at most 20 days in this calendar \(its sync_history_days quota\)/);
        assert.equal((await put(slug, 20)).status, 200);
      }
      // Its own 0: no limit.
      await t.built.services.calendars.update('own', { quotas: { events: 0, sync_history_days: 0 } });
      assert.equal((await put('own', 365)).status, 200);
    });
  },
  { CALENDAR_QUOTA_EVENTS: '1', CALENDAR_QUOTA_SYNC_HISTORY_DAYS: '20' },
);

for (const kind of STORES) {
  describe(`calendar quotas: requests a minute across two instances [${kind.name}]`, () => {
    it('answers a calendar’s requests_per_minute over every client and instance, then 429 with Retry-After', async () => {
      const { a, b, close } = await startTwoInstances(kind, 'calendar-quotas');
      try {
        await a.built.services.calendars.create({ slug: 'busy', name: 'Busy', quotas: { requests_per_minute: 10 } });
        // The count is per minute since the epoch: start well inside one.
        await clearOfWindowEnd(60, 15_000);
        const answers = [];
        for (let i = 0; i < 16; i++) {
          const server = i % 2 ? b : a;
          answers.push(await server.api.get(at(server, 'busy', `${REST}/events`), i % 4 === 0 ? {} : { as: 'admin' }));
        }
        assert.deepEqual(
          answers.map((r) => r.status),
          [...Array<number>(10).fill(200), ...Array<number>(6).fill(429)],
        );
        for (const r of answers.slice(10)) assertExceeded(r, 429, 'requests_per_minute', 10, 10);
        // Another calendar, and the default one, answer on both instances.
        assert.equal((await b.api.get(at(b, null, `${REST}/events`))).status, 200);
        assert.equal((await a.api.get(at(a, null, `${REST}/events`))).status, 200);
      } finally {
        await close();
      }
    });
  });
}
