/**
 * `events-calendar import tec` between two instances of this service (issue 25): a weekly series
 * with one occurrence changed and one trashed arrives as a series (the series id answers, the
 * occurrences keep their ids and starts, the exceptions are kept), with the credentials and without
 * them; an event hidden from listings arrives through the source's event index
 * (`GET calendar/admin/v1/events`, editors and administrators only), which leaves the legacy lists
 * as they were; and two spellings of the source's URL are one source in the import map, a map
 * written under the URL as typed by an earlier version included.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { ADMIN, STORES, startServer, type TestServer } from '../support/harness.js';

const target = cliTarget;

const env = (url: string) => cliEnv(url);

/** The event index's entry of the weekly series' third occurrence, trashed alone at the source. */
const trashedEntry = (id: number, seriesId: number) => ({
  id,
  type: 'event',
  status: 'trash',
  hide_from_listings: false,
  recurring_event_id: seriesId,
  original_start_date: '2027-03-16 19:00:00',
  exception: true,
});
const credentials = ['--user', ADMIN.login, '--app-password', ADMIN.password];
const tec = (from: string, ...more: string[]) => ['import', 'tec', '--from', from, '--namespace', 'calendar/events/v1', '--no-progress', '--allow-private', '--retry-delay', '5', ...more];
const ALL = { start_date: '1900-01-01', end_date: '2200-12-31' };

/** What a list shows of each event, host aside. */
const listed = (events: any[]) =>
  events.map((e) => ({
    id: e.id,
    title: e.title,
    status: e.status,
    start: e.utc_start_date,
    end: e.utc_end_date,
    slug: e.slug,
    recurrence: e.recurrence,
    series: e.recurring_event_id,
    original: e.original_start_date,
  }));

for (const kind of STORES) {
  describe(`import tec: series, hidden events, one source [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-import-series-'));
    let source: TestServer;
    const servers: TestServer[] = [];
    let seriesId: number;
    let occurrenceIds: number[];
    let hiddenId: number;
    before(async () => {
      source = await startServer(kind);
      // Something first, so that the source's ids are not the first ones a fresh target allocates.
      await source.api.post('/events', { as: 'admin', json: { title: 'Opening', start_date: '2027-02-01 10:00', end_date: '2027-02-01 11:00', status: 'publish' } });
      const series = await source.api.post('/events', {
        as: 'admin',
        json: {
          title: 'Yoga',
          status: 'publish',
          start_date: '2027-03-02 19:00',
          end_date: '2027-03-02 20:00',
          timezone: 'America/New_York',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=5'],
        },
      });
      assert.equal(series.status, 201, JSON.stringify(series.body));
      seriesId = series.body.id;
      const occurrences = (await source.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: seriesId } })).body.events;
      occurrenceIds = occurrences.map((o: any) => o.id);
      assert.equal(occurrenceIds.length, 5);
      // One occurrence changed alone (a new title and time), one trashed alone.
      const changed = await source.api.post(`/events/${occurrenceIds[1]}`, { as: 'admin', json: { title: 'Yoga (outdoors)', start_date: '2027-03-09 18:00:00', end_date: '2027-03-09 19:30:00' } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal((await source.api.delete(`/events/${occurrenceIds[2]}`, { as: 'admin' })).status, 200);
      hiddenId = (
        await source.api.post('/events', { as: 'admin', json: { title: 'Hidden one', start_date: '2027-10-01 10:00', end_date: '2027-10-01 11:00', status: 'publish', hide_from_listings: true } })
      ).body.id;
    });
    after(async () => {
      for (const s of servers) await s.close();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** The series, its occurrences and the hidden event as `as` reads them on a server. */
    async function seriesOn(t: TestServer) {
      const series = await t.api.get(`/events/${seriesId}`, { as: 'admin' });
      const list = await t.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: seriesId } });
      const trashed = await t.api.get(`/events/${occurrenceIds[2]}`, { as: 'admin' });
      return {
        status: series.status,
        series: series.body && { ...listed([series.body])[0], id: series.body.id },
        occurrences: listed(list.body.events ?? []),
        trashed: [trashed.status, trashed.body.status],
      };
    }

    it('a weekly series with a changed and a trashed occurrence arrives as a series, with its ids; the hidden event arrives through the event index', async () => {
      const { server, url } = await target(kind, dir, 'series');
      servers.push(server);
      const run = await cli(tec(`${source.origin}/api`, ...credentials, '--author', ADMIN.login), env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.doesNotMatch(run.stderr, /hidden from listings/);
      assert.doesNotMatch(run.stdout, /mapped event/, 'every id is kept');
      // The series id answers with its rules; the occurrences are the source's, ids included;
      // the changed one keeps its change, the trashed one is in the trash.
      const there = await seriesOn(source);
      const here = await seriesOn(server);
      assert.equal(here.status, 200);
      assert.deepEqual(here.series!.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5;BYDAY=TU'], 'as the source answers it (normalised)');
      assert.deepEqual(here, there);
      // The whole legacy list is the source's (occurrences as events, the series never listed).
      const sourceList = (await source.api.get('/events', { as: 'admin', query: ALL })).body.events;
      const targetList = (await server.api.get('/events', { as: 'admin', query: ALL })).body.events;
      assert.deepEqual(listed(targetList), listed(sourceList));
      assert.deepEqual(
        here.occurrences.map((o) => o.id),
        [occurrenceIds[0], occurrenceIds[1], occurrenceIds[3], occurrenceIds[4]],
      );
      const changed = here.occurrences.find((o) => o.id === occurrenceIds[1])!;
      assert.equal(changed.title, 'Yoga (outdoors)');
      assert.equal(changed.original, '2027-03-09 19:00:00');
      // The trashed one answers as at the source (an occurrence trashed alone: 403), and is a trashed exception with its id.
      const indexed = (await server.api.get(`${server.origin}/api/calendar/admin/v1/events`, { as: 'admin', query: { per_page: 100 } })).body.find((r: any) => r.id === occurrenceIds[2]);
      assert.deepEqual(indexed, trashedEntry(occurrenceIds[2]!, seriesId));
      // It is an exception here too: a change to the series leaves it alone.
      assert.equal((await server.api.post(`/events/${seriesId}`, { as: 'admin', json: { title: 'Yoga class' } })).status, 200);
      const after = await seriesOn(server);
      assert.equal(after.occurrences.find((o) => o.id === occurrenceIds[1])!.title, 'Yoga (outdoors)');
      assert.equal(after.occurrences.find((o) => o.id === occurrenceIds[0])!.title, 'Yoga class');
      assert.deepEqual(after.trashed, there.trashed);
      // The hidden event.
      const hidden = await server.api.get(`/events/${hiddenId}`, { as: 'admin' });
      assert.equal(hidden.status, 200);
      assert.equal(hidden.body.hide_from_listings, true);

      // Nothing changed at the source: nothing is written.
      const again = await cli(tec(`${source.origin}/api`, ...credentials, '--author', ADMIN.login), env(url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /events: 0 created, 0 updated, \d+ skipped, 0 failed/);

      // Changes at the source (the series, then its changed occurrence again) arrive on the next run.
      assert.equal((await source.api.post(`/events/${seriesId}`, { as: 'admin', json: { title: 'Yoga for all', description: 'Bring a mat' } })).status, 200);
      assert.equal((await source.api.post(`/events/${occurrenceIds[1]}`, { as: 'admin', json: { title: 'Yoga (park)' } })).status, 200);
      const sync = await cli(tec(`${source.origin}/api`, ...credentials, '--author', ADMIN.login), env(url));
      assert.equal(sync.code, 0, sync.stderr);
      assert.match(sync.stdout, /events: 0 created, 1 updated, \d+ skipped, 0 failed/);
      const synced = await seriesOn(server);
      assert.deepEqual(synced, await seriesOn(source));
      assert.equal(synced.occurrences.find((o) => o.id === occurrenceIds[1])!.title, 'Yoga (park)');
      assert.equal(synced.occurrences.find((o) => o.id === occurrenceIds[0])!.title, 'Yoga for all');
    });

    it('without credentials (no event index): the series comes across with its exceptions, and hidden events are reported left behind', async () => {
      const { server, url } = await target(kind, dir, 'anonymous');
      servers.push(server);
      const run = await cli(tec(`${source.origin}/api`, '--author', ADMIN.login), env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stderr, /hidden from listings .* not imported .*--app-password/);
      const here = await seriesOn(server);
      const there = await seriesOn(source);
      assert.equal(here.status, 200);
      assert.deepEqual(here.series, there.series);
      assert.deepEqual(
        here.occurrences.map(({ id: _id, ...o }) => o),
        there.occurrences.map(({ id: _id, ...o }) => o),
      );
      assert.deepEqual(
        here.occurrences.map((o) => o.id),
        [occurrenceIds[0], occurrenceIds[1], occurrenceIds[3], occurrenceIds[4]],
      );
      // Nothing hidden here (the trashed occurrence, whose id the source's lists do not name, got a new one).
      const index = (await server.api.get(`${server.origin}/api/calendar/admin/v1/events`, { as: 'admin', query: { per_page: 100 } })).body;
      assert.ok(index.length > 0 && index.every((r: any) => !r.hide_from_listings));
    });

    it('without the index, occurrences past the source horizon are not taken for trashed ones', async () => {
      const near = await startServer(kind, { RECURRENCE_HORIZON_MONTHS: '2' });
      servers.push(near);
      const made = await near.api.post('/events', {
        as: 'admin',
        json: { title: 'Weekly', status: 'publish', start_date: '2026-12-01 19:00', end_date: '2026-12-01 20:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY'] },
      });
      assert.equal(made.status, 201);
      const theirs = (await near.api.get('/events', { query: { ...ALL, post_parent: made.body.id } })).body.events.length;
      const { server, url } = await target(kind, dir, 'horizon');
      servers.push(server);
      const run = await cli(tec(`${near.origin}/api`, '--author', ADMIN.login), env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const ours = (await server.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: made.body.id, per_page: 50 } })).body;
      assert.ok(ours.total > theirs, `more occurrences here (${ours.total}) than at the source (${theirs})`);
      const index = (await server.api.get(`${server.origin}/api/calendar/admin/v1/events`, { as: 'admin', query: { per_page: 500 } })).body;
      assert.deepEqual(
        index.filter((r: any) => r.status === 'trash'),
        [],
      );
    });

    it('two spellings of the source are one source, and a map written under the URL as typed still matches', async () => {
      const { server, url } = await target(kind, dir, 'spellings');
      servers.push(server);
      const first = await cli(tec(`${source.origin}/api`, ...credentials), env(url));
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stdout, /events: [1-9]\d* created/);
      // The site's address without the REST root (found under /wp-json): the same source.
      const second = await cli(tec(`${source.origin}`, ...credentials), env(url));
      assert.equal(second.code, 0, second.stderr + second.stdout);
      assert.match(second.stdout, /events: 0 created, 0 updated, \d+ skipped, 0 failed/);
      const third = await cli(tec(`${source.origin}/wp-json/`, ...credentials), env(url));
      assert.match(third.stdout, /events: 0 created, 0 updated, \d+ skipped, 0 failed/);
      const db = server.built.store.db;
      const sources = async () => (await db.selectFrom('import_map').select('source').distinct().execute()).map((r) => r.source);
      assert.deepEqual(await sources(), [`tec:${source.origin}/api/calendar/events/v1`]);

      // A map an earlier version wrote under the URL as typed (`--from http://host` found at /wp-json).
      const legacy = `tec:${source.origin}/wp-json/calendar/events/v1`;
      await db.updateTable('import_map').set({ source: legacy }).execute();
      const upgraded = await cli(tec(`${source.origin}`, ...credentials), env(url));
      assert.equal(upgraded.code, 0, upgraded.stderr);
      assert.match(upgraded.stdout, /events: 0 created, 0 updated, \d+ skipped, 0 failed/);
      assert.deepEqual(await sources(), [`tec:${source.origin}/api/calendar/events/v1`], 'moved to the canonical key');
    });

    it('occurrences an earlier version imported as single events give way to the series', async () => {
      const { server, url } = await target(kind, dir, 'flattened');
      servers.push(server);
      // What an earlier version left: occurrences imported as plain events, in the import map.
      const there = (await source.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: seriesId } })).body.events;
      const db = server.built.store.db;
      const flattened: number[] = [];
      for (const o of there.slice(0, 2)) {
        const made = await server.api.post('/events', { as: 'admin', json: { title: o.title, start_date: o.start_date, end_date: o.end_date, timezone: o.timezone, status: 'publish', slug: o.slug } });
        assert.equal(made.status, 201);
        flattened.push(made.body.id);
        await db
          .insertInto('import_map')
          .values({ source: `tec:${source.origin}/api/calendar/events/v1`, kind: 'event', source_id: String(o.id), local_id: made.body.id, fingerprint: 'old', updated_gmt: '2026-01-01 00:00:00' })
          .execute();
      }
      const run = await cli(tec(`${source.origin}/api`, ...credentials, '--author', ADMIN.login), env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stderr, /2 of its occurrences had been imported as single events by an earlier version; those were trashed/);
      const index = (await server.api.get(`${server.origin}/api/calendar/admin/v1/events`, { as: 'admin', query: { per_page: 100 } })).body;
      for (const id of flattened) assert.equal(index.find((r: any) => r.id === id).status, 'trash');
      // Each occurrence once, as at the source (the two whose ids the old copies hold got new ones).
      const localSeries = (await db.selectFrom('import_map').select('local_id').where('source_id', '=', String(seriesId)).where('kind', '=', 'event').executeTakeFirstOrThrow()).local_id;
      const here = (await server.api.get('/events', { as: 'admin', query: { ...ALL, post_parent: localSeries } })).body.events;
      // (Slugs aside: the trashed copies keep theirs, so those two occurrences are numbered `-2`.)
      const shape = (list: any[]) => listed(list).map(({ id: _id, series: _series, slug, ...o }) => ({ ...o, slug: slug.replace(/-2$/, '') }));
      assert.deepEqual(shape(here), shape(there));
      const all = (await server.api.get('/events', { as: 'admin', query: ALL })).body.events;
      assert.equal(all.length, (await source.api.get('/events', { as: 'admin', query: ALL })).body.events.length);
    });

    it('the event index is for editors and administrators, declared in the index and /doc; the legacy lists are unchanged', async () => {
      const index = await source.api.get(`${source.origin}/api/calendar/admin/v1/events`, { as: 'admin', query: { per_page: 100 } });
      assert.equal(index.status, 200);
      const byId = new Map<number, any>(index.body.map((r: any) => [r.id, r]));
      assert.deepEqual(byId.get(seriesId), { id: seriesId, type: 'series', status: 'publish', hide_from_listings: false });
      assert.deepEqual(byId.get(occurrenceIds[2]!), trashedEntry(occurrenceIds[2]!, seriesId));
      assert.equal(byId.get(occurrenceIds[1]!).exception, true);
      assert.equal(byId.get(occurrenceIds[0]!).exception, false);
      assert.equal(byId.get(hiddenId).hide_from_listings, true);
      assert.equal(index.headers.get('x-wp-total'), String(index.body.length));
      assert.equal((await source.api.get(`${source.origin}/api/calendar/admin/v1/events`)).status, 401);
      await source.user('author');
      assert.equal((await source.api.get(`${source.origin}/api/calendar/admin/v1/events`, { as: 'author' })).status, 403);
      await source.user('editor');
      assert.equal((await source.api.get(`${source.origin}/api/calendar/admin/v1/events`, { as: 'editor' })).status, 200);
      // Declared once: the namespace index and /doc name it.
      const ns = await source.api.get(`${source.origin}/api/calendar/admin/v1`);
      assert.ok(Object.keys(ns.body.routes).includes('/calendar/admin/v1/events'));
      const doc = await source.api.get(`${source.origin}/api/calendar/admin/v1/doc`);
      assert.ok(JSON.stringify(doc.body).includes('/events'), 'in /doc');
      // A legacy client: the list shows neither the hidden event nor the series, nor the trashed occurrence.
      for (const as of [undefined, 'admin'] as const) {
        const list = (await source.api.get('/events', { ...(as ? { as } : {}), query: ALL })).body.events.map((e: any) => e.id);
        assert.ok(!list.includes(hiddenId) && !list.includes(seriesId) && !list.includes(occurrenceIds[2]));
        assert.ok(list.includes(occurrenceIds[0]) && list.includes(occurrenceIds[1]));
      }
      assert.ok(!Object.keys((await source.api.get('')).body.routes).some((r: string) => r.includes('admin')), 'the calendar namespace is unchanged');
    });
  });
}
