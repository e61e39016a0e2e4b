/**
 * Imports and quotas across calendars, probed as a hostile reviewer would:
 * - an `.ics` import in calendar B whose UIDs are calendar A's (its export's `event-ID@host`, the
 *   UIDs A imported, a cancelled one, a recurring one with its overrides) writes B's own events
 *   and leaves A's records and A's import map as they were;
 * - a TEC import into B from A's own API (the same ids wanted) writes new records in B and
 *   touches none of A's;
 * - an import's state is not readable, nor its review list writable, through another calendar;
 *   URLs on private addresses are refused in every calendar;
 * - a suspended calendar's import waits (queued) until the calendar is resumed, and one whose
 *   calendar was deleted while it ran leaves nothing behind;
 * - the `events` quota holds for imports, and for 40 creates at once through REST's two
 *   namespaces, tec/v1 and MCP, on one instance and across two on one database; the
 *   `webhook_endpoints` and `media_bytes` quotas hold for creates at once: exactly the limit,
 *   every other answer a 403/413 `calendar_quota_exceeded`, never a 500.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { forEachStore, startTwoInstances, STORES, ADMIN, type TestServer, type ApiResponse } from '../support/harness.js';
import { EEA } from '../support/tec-v1.js';
import { plainImage, authOf } from '../support/media.js';
import { acrossCalendars, inCalendar } from '../../src/store/calendar-scope.js';
import { viewerOf } from '../../src/domain/permissions.js';

const BASIC = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');
const calendarOf = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//probe//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (uid: string, summary: string, ...extra: string[]) =>
  ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, 'DTSTART:20340105T100000Z', 'DTEND:20340105T110000Z', ...extra, 'END:VEVENT'].join('\r\n');
const WINDOW = { start_date: '2034-01-01', end_date: '2034-12-31', per_page: 50, status: 'any' };
let n = 0;
const event = (extra: Record<string, unknown> = {}) => ({ title: `Probe ${++n}`, start_date: '2034-03-01 10:00', end_date: '2034-03-01 11:00', status: 'publish', ...extra });

/** A calendar's bases on a server ('' : the default calendar). */
const on = (t: TestServer, slug: string) => {
  const prefix = slug ? `/c/${slug}` : '';
  return {
    events: `${t.origin}${prefix}/api/calendar/events/v1`,
    tribe: `${t.origin}${prefix}/api/tribe/events/v1`,
    tec: `${t.origin}${prefix}/wp-json/tec/v1`,
    admin: `${t.origin}${prefix}/api/calendar/admin/v1`,
    mcp: `${t.origin}${prefix}/mcp`,
  };
};

/** Poll an import (through its calendar) until it ends. */
async function until(t: TestServer, slug: string, id: number): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const res = await t.api.get(`${on(t, slug).admin}/imports/${id}`, { as: 'admin' });
    assert.equal(res.status, 200, res.text);
    if (res.body.status === 'done' || res.body.status === 'failed') return res.body;
    await sleep(50);
  }
  throw new Error(`import ${id} did not end`);
}

async function importFile(t: TestServer, slug: string, text: string): Promise<any> {
  const queued = await t.api.post(`${on(t, slug).admin}/imports`, { as: 'admin', json: { file: text } });
  assert.equal(queued.status, 202, queued.text);
  return until(t, slug, queued.body.id);
}

/** Every answer is one of `allowed`, and none a 5xx. */
function statusesOf(answers: ApiResponse[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const a of answers) out.set(a.status, (out.get(a.status) ?? 0) + 1);
  return out;
}

function assertRefusedByQuota(a: { status: number; body: any }, status: number, quota: string, limit: number) {
  assert.equal(a.status, status, typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  assert.equal(a.body.code, 'calendar_quota_exceeded');
  assert.equal(a.body.data.quota, quota);
  assert.equal(a.body.data.limit, limit);
  assert.equal(a.body.data.used, limit);
}

/** How many records (and import map rows) name a calendar id (the change log's notes of a calendar's own changes aside). */
async function rowsOfCalendar(t: TestServer, id: number): Promise<number> {
  const db = t.built.store.db;
  return acrossCalendars(async () => {
    let total = 0;
    for (const table of ['posts', 'events', 'terms', 'import_map', 'event_locations'] as const) {
      const row = await db
        .selectFrom(table as 'posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('calendar_id', '=', id)
        .executeTakeFirstOrThrow();
      total += Number(row.n);
    }
    return total;
  });
}

forEachStore('probes: imports and quotas across calendars', (t) => {
  before(async () => {
    const c = t.built.services.calendars;
    await c.create({ slug: 'imp-a', name: 'Import A' });
    await c.create({ slug: 'imp-b', name: 'Import B' });
  });

  it('an .ics import in B carrying A’s UIDs (its export’s, its imported ones, cancelled, recurring with overrides) writes B’s own events only', async () => {
    const A = on(t, 'imp-a');
    const B = on(t, 'imp-b');
    const made = await t.api.post(`${A.events}/events`, { as: 'admin', json: { title: 'A made here', start_date: '2034-01-05 10:00', end_date: '2034-01-05 11:00', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    const host = new URL(t.origin).host;
    const series = (summary: string) => [
      vevent('weekly@probe', summary, 'RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE:20340112T100000Z'),
      ['BEGIN:VEVENT', 'UID:weekly@probe', 'RECURRENCE-ID:20340119T100000Z', `SUMMARY:${summary} (moved)`, 'DTSTART:20340119T120000Z', 'DTEND:20340119T130000Z', 'END:VEVENT'].join('\r\n'),
    ];
    const aFile = calendarOf(vevent('plain@probe', 'A plain'), vevent('cancel@probe', 'A to cancel'), ...series('A weekly'));
    const first = await importFile(t, 'imp-a', aFile);
    assert.equal(first.status, 'done', JSON.stringify(first));
    const aBefore = await t.api.get(`${A.events}/events`, { as: 'admin', query: WINDOW });
    assert.equal(aBefore.status, 200, aBefore.text);

    const bFile = calendarOf(
      vevent(`event-${made.body.id}@${host}`, 'B over A’s own'),
      vevent('plain@probe', 'B plain'),
      vevent('cancel@probe', 'B cancelled', 'STATUS:CANCELLED'),
      ...series('B weekly'),
      ['BEGIN:VEVENT', 'UID:weekly@probe', 'RECURRENCE-ID:20340126T100000Z', 'SUMMARY:B weekly', 'STATUS:CANCELLED', 'DTSTART:20340126T100000Z', 'DTEND:20340126T110000Z', 'END:VEVENT'].join('\r\n'),
    );
    const inB = await importFile(t, 'imp-b', bFile);
    assert.equal(inB.status, 'done', JSON.stringify(inB));
    assert.equal(inB.counts.created, 3, JSON.stringify(inB.counts));
    assert.equal(inB.counts.updated, 0, JSON.stringify(inB.counts));

    // A's records are as they were: titles, statuses, occurrences.
    const aAfter = await t.api.get(`${A.events}/events`, { as: 'admin', query: WINDOW });
    const shape = (r: ApiResponse) => r.body.events.map((e: any) => [e.id, e.title, e.status, e.start_date]);
    assert.deepEqual(shape(aAfter), shape(aBefore));
    assert.equal((await t.api.get(`${A.events}/events/${made.body.id}`, { as: 'admin' })).body.title, 'A made here');
    // A's import map is A's: the same file again changes nothing there.
    const again = await importFile(t, 'imp-a', aFile);
    assert.equal(again.counts.unchanged, 3, JSON.stringify(again.counts));
    assert.equal(again.counts.created + again.counts.updated, 0, JSON.stringify(again.counts));
    // B's events are B's, none of them with an id of A's.
    const bAfter = await t.api.get(`${B.events}/events`, { as: 'admin', query: WINDOW });
    const aIds = new Set(aAfter.body.events.map((e: any) => e.id));
    assert.ok(bAfter.body.events.length > 0);
    for (const e of bAfter.body.events) {
      assert.ok(!aIds.has(e.id), `B lists A's event ${e.id}`);
      assert.match(e.title, /^B /);
    }
  });

  it('an import’s state, its review list and its venues are not reachable through another calendar', async () => {
    const done = await importFile(t, 'imp-a', calendarOf(vevent('review@probe', 'Needs a venue', 'LOCATION:Hall of A')));
    assert.equal(done.counts.venues_for_review.length, 1, JSON.stringify(done.counts));
    const B = on(t, 'imp-b');
    assert.equal((await t.api.get(`${B.admin}/imports/${done.id}`, { as: 'admin' })).status, 404);
    const venues = await t.api.post(`${B.admin}/imports/${done.id}/venues`, { as: 'admin', json: { location: 'Hall of A' } });
    assert.equal(venues.status, 404, venues.text);
    const list = await t.api.get(`${B.admin}/imports`, { as: 'admin', query: { per_page: 100 } });
    assert.equal(list.status, 200, list.text);
    assert.ok(!JSON.stringify(list.body).includes('review@probe') && !(list.body.imports ?? list.body).some?.((i: any) => i.id === done.id), 'B lists A’s import');
    // Nothing was made in B, nor in A.
    assert.equal((await t.api.get(`${B.events}/venues`, { query: { search: 'Hall of A' } })).body.venues?.length ?? 0, 0);
    assert.equal((await t.api.get(`${on(t, 'imp-a').events}/venues`, { query: { search: 'Hall of A' } })).body.venues?.length ?? 0, 0);
  });

  it('refuses import URLs on private addresses in every calendar', async () => {
    for (const slug of ['imp-b', '']) {
      for (const url of [
        'http://127.0.0.1/feed.ics',
        'http://10.1.2.3/feed.ics',
        'http://[::ffff:127.0.0.1]/feed.ics',
        'http://169.254.169.254/latest',
        'http://localhost/feed.ics',
        'http://0x7f000001/x.ics',
      ]) {
        const res = await t.api.post(`${on(t, slug).admin}/imports`, { as: 'admin', json: { url } });
        assert.equal(res.status, 400, `${slug} ${url}: ${res.status} ${res.text}`);
        const tec = await t.api.post(`${on(t, slug).admin}/imports`, { as: 'admin', json: { kind: 'tec', from: url } });
        assert.equal(tec.status, 400, `${slug} tec ${url}: ${tec.status} ${tec.text}`);
      }
    }
  });

  it('a suspended calendar’s queued import waits, writing nothing, and runs once the calendar is resumed', async () => {
    const c = t.built.services.calendars;
    const view = await c.create({ slug: 'imp-sleep', name: 'Sleeping' });
    await c.update('imp-sleep', { status: 'suspended' });
    // Queued as the admin API queues it (the API of a suspended calendar answers 503), which wakes the job.
    const queued = await inCalendar(view.id, () =>
      t.built.services.imports.queue.enqueue(viewerOf({ id: 1, login: ADMIN.login, role: 'administrator' }), {
        kind: 'ics',
        upload: { name: 'late.ics', text: calendarOf(vevent('late@probe', 'Written while suspended')) },
      }),
    );
    const id = queued.id;
    await sleep(1500);
    const row = await inCalendar(view.id, () => t.built.services.imports.queue.get(id));
    assert.equal(row?.status, 'queued', JSON.stringify(row));
    assert.equal(await rowsOfCalendar(t, view.id), 0, 'a suspended calendar’s import wrote records');
    await c.update('imp-sleep', { status: 'active' });
    const final = await until(t, 'imp-sleep', id);
    assert.equal(final.status, 'done', JSON.stringify(final));
    assert.equal(final.counts.created, 1);
  });

  it('an import whose calendar is suspended while it runs stops, queued, and goes on once resumed, writing each event once', async () => {
    const c = t.built.services.calendars;
    const view = await c.create({ slug: 'imp-pause', name: 'Paused' });
    const many = Array.from({ length: 400 }, (_, i) => vevent(`pause-${i}@probe`, `Pause ${i}`));
    const queued = await t.api.post(`${on(t, 'imp-pause').admin}/imports`, { as: 'admin', json: { file: calendarOf(...many) } });
    assert.equal(queued.status, 202, queued.text);
    const get = () => inCalendar(view.id, () => t.built.services.imports.queue.get(queued.body.id));
    for (let i = 0; i < 400; i++) {
      const row = await get();
      if (row?.status === 'running' && row.progress.done > 0) break;
      assert.notEqual(row?.status, 'done', 'the import ended before the calendar could be suspended');
      await sleep(20);
    }
    await c.update('imp-pause', { status: 'suspended' });
    let row = await get();
    for (let i = 0; i < 100 && row?.status === 'running'; i++) {
      await sleep(100);
      row = await get();
    }
    assert.equal(row?.status, 'queued', JSON.stringify(row));
    const written = await rowsOfCalendar(t, view.id);
    await sleep(1500);
    assert.equal(await rowsOfCalendar(t, view.id), written, 'the import went on writing in a suspended calendar');
    assert.ok(row!.progress.done < 400, JSON.stringify(row!.progress));
    await c.update('imp-pause', { status: 'active' });
    const final = await until(t, 'imp-pause', queued.body.id);
    assert.equal(final.status, 'done', JSON.stringify(final));
    assert.equal(final.counts.created + final.counts.unchanged, 400, JSON.stringify(final.counts));
    const listed = await t.api.get(`${on(t, 'imp-pause').events}/events`, { as: 'admin', query: { ...WINDOW, per_page: 1 } });
    assert.equal(Number(listed.headers.get('x-wp-total')), 400);
  });

  it('an import whose calendar is deleted while it runs leaves no record of that calendar behind', async () => {
    const c = t.built.services.calendars;
    const view = await c.create({ slug: 'imp-gone', name: 'Gone' });
    const many = Array.from({ length: 600 }, (_, i) => vevent(`gone-${i}@probe`, `Gone ${i}`));
    const queued = await t.api.post(`${on(t, 'imp-gone').admin}/imports`, { as: 'admin', json: { file: calendarOf(...many) } });
    assert.equal(queued.status, 202, queued.text);
    for (let i = 0; i < 400; i++) {
      const res = await t.api.get(`${on(t, 'imp-gone').admin}/imports/${queued.body.id}`, { as: 'admin' });
      if (res.body.status === 'running' && res.body.progress.done > 0) break;
      assert.notEqual(res.body.status, 'done', 'the import ended before the calendar could be deleted');
      await sleep(20);
    }
    const deleted = await t.api.delete(`${t.origin}/api/calendar/network/v1/calendars/${view.id}`, { as: 'admin', query: { force: 'true' } });
    assert.equal(deleted.status, 200, deleted.text);
    // Wait until nothing more is written under its id (the import stopped, or went on to its end).
    let last = -1;
    for (let i = 0; i < 100; i++) {
      const now = await rowsOfCalendar(t, view.id);
      if (now === last && i > 5) break;
      last = now;
      await sleep(300);
    }
    assert.equal(await rowsOfCalendar(t, view.id), 0, 'rows written under a deleted calendar’s id');
  });

  it('an .ics import counts against the events quota: past it each event fails as such, a series counts once, nothing half written', async () => {
    const c = t.built.services.calendars;
    await c.create({ slug: 'imp-small', name: 'Small imports', quotas: { events: 3 } });
    const S = on(t, 'imp-small');
    assert.equal((await t.api.post(`${S.events}/events`, { as: 'admin', json: event() })).status, 201);
    const file = calendarOf(
      vevent('q-series@probe', 'Quota series', 'RRULE:FREQ=WEEKLY;COUNT=5'),
      vevent('q-1@probe', 'Quota one'),
      vevent('q-2@probe', 'Quota two'),
      vevent('q-3@probe', 'Quota three'),
    );
    const done = await importFile(t, 'imp-small', file);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.counts.created, 2, JSON.stringify(done.counts));
    assert.equal(done.counts.failed, 2, JSON.stringify(done.counts));
    for (const m of done.messages.filter((x: any) => x.type === 'failed')) assert.match(m.message, /calendar_quota_exceeded: This calendar has used its events quota \(3 of 3\)/);
    const usage = await t.api.get(`${t.origin}/api/calendar/network/v1/calendars/${(await c.get('imp-small')).id}/usage`, { as: 'admin' });
    assert.equal(usage.body.events.used, 3, usage.text);
    // The refused ones left no import map row (a later run with room creates them).
    await c.update('imp-small', { quotas: { events: 5 } });
    const again = await importFile(t, 'imp-small', file);
    assert.equal(again.counts.created, 2, JSON.stringify(again.counts));
    assert.equal(again.counts.unchanged, 2, JSON.stringify(again.counts));
  });

  it('40 creates at once through REST’s two namespaces, tec/v1 and MCP leave exactly the events quota, each other answer a 403', async () => {
    await t.built.services.calendars.create({ slug: 'crowd-ways', name: 'Crowd', quotas: { events: 5 } });
    const C = on(t, 'crowd-ways');
    const mcpCreate = async (): Promise<ApiResponse> => {
      const client = new Client({ name: 'quota-probe', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(C.mcp), { requestInit: { headers: { authorization: BASIC } } }));
      try {
        const res = (await client.callTool({ name: 'create_event', arguments: { title: `MCP ${++n}`, start_date: '2034-03-01 10:00', end_date: '2034-03-01 11:00' } })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        const text = res.content.map((x) => x.text).join('\n');
        if (!res.isError) return { status: 201, body: text, text, headers: new Headers() };
        // A refusal names its error as the REST answer would.
        return { status: /calendar_quota_exceeded/.test(text) ? 403 : 500, body: text, text, headers: new Headers() };
      } finally {
        await client.close();
      }
    };
    const ways: Array<() => Promise<ApiResponse>> = [
      () => t.api.post(`${C.events}/events`, { as: 'admin', json: event() }),
      () => t.api.post(`${C.tribe}/events`, { as: 'admin', json: event() }),
      () => t.api.post(`${C.tec}/events`, { as: 'admin', headers: { 'x-tec-eea': EEA }, json: event() }),
      mcpCreate,
    ];
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => ways[i % ways.length]!()));
    const seen = statusesOf(answers);
    assert.deepEqual([...seen.keys()].sort(), [201, 403], JSON.stringify([...seen]) + answers.find((a) => a.status >= 500)?.text);
    assert.equal(seen.get(201), 5, JSON.stringify([...seen]));
    for (const a of answers.filter((x) => x.status === 403 && typeof x.body === 'object')) assertRefusedByQuota(a, 403, 'events', 5);
    const list = await t.api.get(`${C.events}/events`, { as: 'admin', query: { ...WINDOW, per_page: 1 } });
    assert.equal(Number(list.headers.get('x-wp-total')), 5);
  });

  it('20 webhook endpoints and 12 uploads at once leave exactly their quotas', async () => {
    const c = t.built.services.calendars;
    await c.create({ slug: 'crowd-hooks', name: 'Hooks', quotas: { webhook_endpoints: 2 } });
    const H = on(t, 'crowd-hooks');
    const hooks = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api.post(`${H.admin}/webhooks`, { as: 'admin', json: { url: `http://93.184.215.14/h${i}` } })));
    assert.equal(hooks.filter((h) => h.status === 201).length, 2, JSON.stringify([...statusesOf(hooks)]));
    for (const h of hooks.filter((x) => x.status !== 201)) assertRefusedByQuota(h, 403, 'webhook_endpoints', 2);

    await c.create({ slug: 'crowd-media', name: 'Media' });
    const M = on(t, 'crowd-media');
    const image = await plainImage(64, 64);
    const send = async () => {
      const res = await fetch(`${M.admin}/media`, { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'admin') }, body: new Uint8Array(image) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const first = await send();
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const size = Number(first.body.filesize);
    await c.update('crowd-media', { quotas: { media_bytes: size * 3 } });
    const uploads = await Promise.all(Array.from({ length: 12 }, send));
    assert.equal(uploads.filter((u) => u.status === 201).length, 2, JSON.stringify(uploads.map((u) => u.status)));
    for (const u of uploads.filter((x) => x.status !== 201)) assertRefusedByQuota(u, 413, 'media_bytes', size * 3);
  });
});

for (const kind of STORES) {
  describe(`probes: the events quota across two instances on one database [${kind.name}]`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>;
    before(async () => {
      pair = await startTwoInstances(kind, 'quota-probes');
      await pair.a.built.services.calendars.create({ slug: 'crowd-two', name: 'Two', quotas: { events: 5 } });
    });
    after(async () => pair.close());

    it('40 creates at once, split over both instances and both namespaces, leave exactly 5', async () => {
      const servers = [pair.a, pair.b];
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const s = servers[i % 2]!;
          return s.api.post(`${i % 4 < 2 ? on(s, 'crowd-two').events : on(s, 'crowd-two').tribe}/events`, { as: 'admin', json: event() });
        }),
      );
      const seen = statusesOf(answers);
      assert.deepEqual([...seen.keys()].sort(), [201, 403], JSON.stringify([...seen]) + answers.find((a) => a.status >= 500)?.text);
      assert.equal(seen.get(201), 5, JSON.stringify([...seen]));
      for (const a of answers.filter((x) => x.status === 403)) assertRefusedByQuota(a, 403, 'events', 5);
      for (const s of servers) {
        const list = await s.api.get(`${on(s, 'crowd-two').events}/events`, { as: 'admin', query: { ...WINDOW, per_page: 1 } });
        assert.equal(Number(list.headers.get('x-wp-total')), 5);
      }
    });
  });
}
