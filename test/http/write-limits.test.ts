/**
 * Issue 24, bounded writes: a recurring event's write inserts at most OCCURRENCES_PER_WRITE
 * occurrences and the horizon job generates the rest (the series then answers as if written
 * whole); an event write names at most MAX_TERMS_PER_WRITE categories (and tags) and creates at
 * most MAX_NEW_TERMS_PER_WRITE terms (400 `rest_invalid_param` beyond, nothing written); store
 * functions given more ids than a statement can bind answer (chunked, or one bound value).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, forEachStore, type TestServer } from '../support/harness.js';
import { OCCURRENCES_PER_WRITE } from '../../src/domain/series.js';
import { MAX_NEW_TERMS_PER_WRITE, MAX_TERMS_PER_WRITE } from '../../src/domain/terms/index.js';
import { extendHorizons, generateSeries } from '../../src/domain/series-generation.js';
import * as eventsStore from '../../src/store/events.js';
import * as eventPages from '../../src/store/event-pages.js';
import * as termsStore from '../../src/store/terms.js';
import * as linkedStore from '../../src/store/linked-posts.js';
import { findImagesByIds } from '../../src/store/images.js';
import { LOCK_TIMEOUT_MS, MIN_ROWS, refreshAfterBulkWrite } from '../../src/store/statistics.js';
import { sql } from 'kysely';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importIcs } from '../../src/import/ics.js';
import { viewerOf } from '../../src/domain/permissions.js';

/** More ids than SQLite (32,766) or PostgreSQL (65,535) bind in one statement. */
const MANY = 70_000;
const manyIds = (first = 1) => Array.from({ length: MANY }, (_, i) => first + i);

async function occurrenceRows(t: TestServer, seriesId: number): Promise<number> {
  const r = await t.built.store.db
    .selectFrom('event_occurrences')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('series_id', '=', seriesId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function termRows(t: TestServer): Promise<number> {
  const r = await t.built.store.db
    .selectFrom('terms')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function postRows(t: TestServer): Promise<number> {
  const r = await t.built.store.db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function listTotal(t: TestServer, query: Record<string, string | number>): Promise<number> {
  const res = await t.api.get('/events', { as: 'admin', query: { per_page: 1, ...query } });
  assert.equal(res.status, 200, res.text);
  return Number(res.body.total);
}

forEachStore('issue 24: a recurring event write is bounded, the horizon job finishes it', (t) => {
  it('the job, nudged by the write, generates what the write left', async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Nudged', status: 'publish', start_date: '2026-01-01 08:00:00', end_date: '2026-01-01 09:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=700'] },
    });
    assert.equal(res.status, 201, res.text);
    // No timing asserted: the job runs on its own; wait (bounded) for its count.
    for (let i = 0; i < 600 && (await occurrenceRows(t, res.body.id)) < 700; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await occurrenceRows(t, res.body.id), 700);
    assert.equal(await listTotal(t, { post_parent: res.body.id, start_date: '2026-01-01', end_date: '2028-01-01' }), 700);
  });

  it('a daily rule of 10,000 from 2000 writes at most OCCURRENCES_PER_WRITE occurrences; the series answers right once the job has run', async () => {
    // The job is stopped: what the request wrote is what is counted, then the job is run here.
    await t.built.horizonJob.stop();
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Ten Thousand Days', status: 'publish', start_date: '2000-01-01 10:00:00', end_date: '2000-01-01 11:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=10000'] },
    });
    assert.equal(res.status, 201, res.text);
    const id = res.body.id as number;
    assert.deepEqual(res.body.recurrence, ['RRULE:FREQ=DAILY;COUNT=10000']);
    const written = await occurrenceRows(t, id);
    assert.ok(written > 0 && written <= OCCURRENCES_PER_WRITE, `the request wrote ${written} occurrences`);
    const row = await t.built.store.db.selectFrom('event_series').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(Number(row.complete), 2, 'left pending for the job');
    // The first ones exist already, in start order.
    assert.equal(await listTotal(t, { post_parent: id, start_date: '2000-01-01', end_date: '2000-01-31 23:59:59' }), 31);
    assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).status, 200);

    assert.equal(await extendHorizons(t.built.services), 1);
    assert.equal(await occurrenceRows(t, id), 10_000);
    // PostgreSQL's planner was told of the 10,000 new rows by the job itself (ANALYZE, not
    // autovacuum's later one, which sets last_autoanalyze): before, each list below took 15-20 s.
    if (t.built.store.dialect === 'postgres') {
      const { rows } = await sql<{ last_analyze: Date | null }>`select last_analyze from pg_stat_user_tables where relid = to_regclass('events')`.execute(t.built.store.db);
      assert.ok(rows[0]?.last_analyze, 'the job analysed the events table');
    }
    // 2000-01-01 + 9,999 days = 2027-05-18, the last.
    assert.equal(await listTotal(t, { post_parent: id, start_date: '2027-05-01', end_date: '2027-05-31 23:59:59' }), 18);
    assert.equal(await listTotal(t, { post_parent: id, start_date: '2000-01-01', end_date: '2030-01-01' }), 10_000);
    assert.equal(await listTotal(t, { post_parent: id, start_date: '2013-03-01', end_date: '2013-03-31 23:59:59' }), 31);
    const after = await t.built.store.db.selectFrom('event_series').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(Number(after.complete), 1);
    // Nothing more to do: one step that inserts nothing.
    assert.equal(await generateSeries(t.built.services, id), 1);
    assert.equal(await occurrenceRows(t, id), 10_000);
    // Ids are stable through a later rewrite of the series (a new title).
    const firstIds = (await t.api.get('/events', { as: 'admin', query: { post_parent: id, start_date: '2000-01-01', end_date: '2000-01-05', per_page: 10 } })).body.events.map(
      (e: { id: number }) => e.id,
    );
    const changed = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Ten Thousand Days, renamed' } });
    assert.equal(changed.status, 200, changed.text);
    const again = (await t.api.get('/events', { as: 'admin', query: { post_parent: id, start_date: '2000-01-01', end_date: '2000-01-05', per_page: 10 } })).body.events;
    assert.deepEqual(
      again.map((e: { id: number }) => e.id),
      firstIds,
    );
    assert.equal(again[0].title, 'Ten Thousand Days, renamed');
  });
});

forEachStore('planner statistics after a bulk write', (t) => {
  it('are refreshed on PostgreSQL for 1,000 rows or more on a never-analysed table; never for fewer, never on SQLite', async () => {
    const db = t.built.store.db;
    assert.equal(await refreshAfterBulkWrite(db, MIN_ROWS - 1), false);
    assert.equal(await refreshAfterBulkWrite(db, 100_000), t.built.store.dialect === 'postgres');
  });

  it('gives up after its lock timeout while a VACUUM or ANALYZE holds a table (PostgreSQL), instead of waiting for it', async () => {
    const db = t.built.store.db;
    // SQLite runs no ANALYZE: nothing to wait for.
    if (t.built.store.dialect !== 'postgres') return assert.equal(await refreshAfterBulkWrite(db, 100_000), false);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Another connection holds what VACUUM and ANALYZE take (SHARE UPDATE EXCLUSIVE) on events.
    const holder = db.transaction().execute(async (trx) => {
      await sql`lock table ${sql.table('events')} in share update exclusive mode`.execute(trx);
      locked();
      await held;
    });
    await isLocked;
    const started = Date.now();
    try {
      assert.equal(await refreshAfterBulkWrite(db, 100_000), false);
      assert.ok(Date.now() - started < LOCK_TIMEOUT_MS + 5000, 'it did not wait for the lock');
    } finally {
      release();
      await holder;
    }
    assert.equal(await refreshAfterBulkWrite(db, 100_000), true, 'once the lock is gone it analyses');
  });
});

forEachStore('planner statistics after an .ics import of several series', (t) => {
  it('count the occurrences of the series imported, not only the events written (PostgreSQL analyses; SQLite has them all)', async () => {
    // Three daily series of 600: 3 events written, 1,800 occurrences, no series reaching 1,000 alone.
    const day = (n: number) => `2026010${n}T100000Z`;
    const vevent = (n: number) =>
      ['BEGIN:VEVENT', `UID:daily-${n}@test`, `DTSTAMP:${day(1)}`, `DTSTART:${day(n)}`, `DTEND:2026010${n}T110000Z`, `SUMMARY:Daily ${n}`, 'RRULE:FREQ=DAILY;COUNT=600', 'END:VEVENT'].join('\r\n');
    const dir = mkdtempSync(join(tmpdir(), 'ics-stats-'));
    try {
      const input = join(dir, 'daily.ics');
      writeFileSync(input, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', vevent(1), vevent(2), vevent(3), 'END:VCALENDAR', ''].join('\r\n'));
      const services = t.built.services;
      const user = (await services.users.list()).find((u) => u.login === ADMIN.login)!;
      const report = await importIcs(services, viewerOf({ id: Number(user.id), login: user.login, role: user.role }), { input, status: 'publish', dryRun: false, retries: 0, retryDelayMs: 0 });
      assert.equal(report.failed, 0, report.lines().join('\n'));
      assert.equal(report.written(), 3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const occurrences = await t.built.store.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'tribe_events')
      .where('parent_id', 'is not', null)
      .executeTakeFirstOrThrow();
    assert.equal(Number(occurrences.n), 1800);
    if (t.built.store.dialect === 'postgres') {
      const { rows } = await sql<{ last_analyze: Date | null }>`select last_analyze from pg_stat_user_tables where relid = to_regclass('events')`.execute(t.built.store.db);
      assert.ok(rows[0]?.last_analyze, 'the import analysed the events table');
    }
  });

  it('analyse once per import, even when one series alone generates 1,000 occurrences or more', async () => {
    const db = t.built.store.db;
    const analyses = async () => {
      await sql`select pg_stat_clear_snapshot()`.execute(db);
      const { rows } = await sql<{ n: number | string }>`select analyze_count as n from pg_stat_user_tables where relid = to_regclass('events')`.execute(db);
      return Number(rows[0]?.n ?? 0);
    };
    // The import generates the series alone (the horizon job would share the work, each part
    // under 1,000 rows: the last test of this server).
    await t.built.horizonJob.stop();
    const before = t.built.store.dialect === 'postgres' ? await analyses() : 0;
    const dir = mkdtempSync(join(tmpdir(), 'ics-stats-'));
    try {
      const input = join(dir, 'long.ics');
      const vevent = [
        'BEGIN:VEVENT',
        'UID:long-daily@test',
        'DTSTAMP:20260101T100000Z',
        'DTSTART:20260101T120000Z',
        'DTEND:20260101T130000Z',
        'SUMMARY:Long daily',
        'RRULE:FREQ=DAILY;COUNT=1200',
        'END:VEVENT',
      ].join('\r\n');
      writeFileSync(input, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', vevent, 'END:VCALENDAR', ''].join('\r\n'));
      const services = t.built.services;
      const user = (await services.users.list()).find((u) => u.login === ADMIN.login)!;
      const report = await importIcs(services, viewerOf({ id: Number(user.id), login: user.login, role: user.role }), { input, status: 'publish', dryRun: false, retries: 0, retryDelayMs: 0 });
      assert.equal(report.failed, 0, report.lines().join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const made = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('title', '=', 'Long daily')
      .where('parent_id', '<>', 0)
      .executeTakeFirstOrThrow();
    assert.equal(Number(made.n), 1200, 'every occurrence');
    if (t.built.store.dialect === 'postgres') {
      // The statistics collector reports a backend's counts within about a second.
      let after = await analyses();
      for (let i = 0; i < 30 && after === before; i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await analyses();
      }
      await new Promise((r) => setTimeout(r, 1200));
      assert.equal((await analyses()) - before, 1, 'one ANALYZE for the import');
    }
  });
});

forEachStore('issue 24: the categories and tags of one event write are bounded', (t) => {
  const event = (extra: Record<string, unknown>) => ({ title: 'Tagged', status: 'publish', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:00:00', ...extra });

  it('more names than MAX_TERMS_PER_WRITE: 400 rest_invalid_param, nothing written', async () => {
    const [terms, posts] = [await termRows(t), await postRows(t)];
    for (const n of [MAX_TERMS_PER_WRITE + 1, 20_000]) {
      const names = Array.from({ length: n }, (_, i) => `Flood ${n} ${i}`);
      const res = await t.api.post('/events', { as: 'admin', json: event({ categories: names }) });
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.ok(res.body.data.params.categories, res.text.slice(0, 300));
    }
    const tags = await t.api.post('/events', { as: 'admin', json: event({ tags: Array.from({ length: MAX_TERMS_PER_WRITE + 1 }, (_, i) => `Tag flood ${i}`) }) });
    assert.equal(tags.status, 400);
    assert.ok(tags.body.data.params.tags);
    assert.equal(await termRows(t), terms);
    assert.equal(await postRows(t), posts);
  });

  it('more new terms than MAX_NEW_TERMS_PER_WRITE (categories and tags together): 400, nothing written', async () => {
    const [terms, posts] = [await termRows(t), await postRows(t)];
    const half = Math.ceil((MAX_NEW_TERMS_PER_WRITE + 1) / 2);
    const res = await t.api.post('/events', {
      as: 'admin',
      json: event({ categories: Array.from({ length: half }, (_, i) => `New cat ${i}`), tags: Array.from({ length: MAX_NEW_TERMS_PER_WRITE + 1 - half }, (_, i) => `New tag ${i}`) }),
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.equal(await termRows(t), terms);
    assert.equal(await postRows(t), posts);
  });

  it('the most a write may name, MAX_NEW_TERMS_PER_WRITE of them new: 201 with every term', async () => {
    const existing: number[] = [];
    for (let i = 0; i < MAX_TERMS_PER_WRITE - MAX_NEW_TERMS_PER_WRITE; i++) {
      const c = await t.api.post('/categories', { as: 'admin', json: { name: `Existing ${i}` } });
      assert.equal(c.status, 201, c.text);
      existing.push(c.body.id);
    }
    const fresh = Array.from({ length: MAX_NEW_TERMS_PER_WRITE }, (_, i) => `Fresh ${i}`);
    const res = await t.api.post('/events', { as: 'admin', json: event({ categories: [...existing, ...fresh] }) });
    assert.equal(res.status, 201, res.text.slice(0, 500));
    assert.equal(res.body.categories.length, MAX_TERMS_PER_WRITE);
    // A series naming as many: its occurrences' links (200 × 100 rows) go in statements of a bounded size.
    const series = await t.api.post('/events', {
      as: 'admin',
      json: event({ title: 'Linked series', categories: existing.concat(res.body.categories.slice(0, 20).map((c: { id: number }) => c.id)), recurrence: ['RRULE:FREQ=WEEKLY;COUNT=200'] }),
    });
    assert.equal(series.status, 201, series.text.slice(0, 500));
    await generateSeries(t.built.services, series.body.id);
    assert.equal(await listTotal(t, { post_parent: series.body.id, categories: existing[0]!, start_date: '2027-01-01', end_date: '2035-01-01' }), 200);
    // The same names again are no longer new: they may be sent with new ones.
    const again = await t.api.post('/events', { as: 'admin', json: event({ categories: [...fresh, 'One more'] }) });
    assert.equal(again.status, 201, again.text.slice(0, 300));
    assert.equal(again.body.categories.length, MAX_NEW_TERMS_PER_WRITE + 1);
  });
});

forEachStore('issue 24: store functions take more ids than one statement binds', (t) => {
  it('look-ups and list filters with 70,000 ids answer (chunked, or bound as one value)', async () => {
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Chunked' } });
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Chunk Hall' } });
    const made = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Chunked event', status: 'publish', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:00:00', categories: [cat.body.id], venue: venue.body.id },
    });
    assert.equal(made.status, 201, made.text);
    const db = t.built.store.db;
    const dialect = t.built.store.dialect;
    const ids = manyIds();
    assert.ok((await termsStore.findTermsByIds(db, ids)).some((r) => Number(r.id) === cat.body.id));
    assert.ok((await termsStore.findTermsByIds(db, ids, { current: false })).length >= 1);
    assert.deepEqual(await termsStore.descendantTermIds(db, 'tribe_events_cat', ids), []);
    assert.ok((await eventsStore.findEventsByIds(db, ids)).some((r) => Number(r.id) === made.body.id));
    assert.ok((await eventsStore.termLinksOf(db, ids)).some((l) => Number(l.event_id) === made.body.id));
    assert.ok(Array.isArray(await eventsStore.organizerLinksOf(db, ids)));
    assert.ok((await linkedStore.findLinkedByIds(db, 'venue', ids)).some((v) => Number(v.id) === venue.body.id));
    assert.ok(Array.isArray(await findImagesByIds(db, ids)));
    const terms = await termsStore.listTerms(db, { taxonomy: 'tribe_events_cat', include: ids, hideEmpty: false, keepAncestors: false, orderBy: 'name', order: 'asc', limit: 10, offset: 0 } as never);
    assert.ok(terms.rows.some((r) => Number(r.id) === cat.body.id));
    const excluded = await termsStore.listTerms(db, {
      taxonomy: 'tribe_events_cat',
      exclude: ids,
      hideEmpty: false,
      keepAncestors: false,
      orderBy: 'name',
      order: 'asc',
      limit: 10,
      offset: 0,
    } as never);
    assert.equal(excluded.total, 0);
    const filter = { statuses: ['publish'], include: ids, categoryIds: ids, venueIds: ids };
    const page = await eventPages.findEventPageIds(db, dialect, filter as never, { limit: 10, offset: 0 });
    assert.deepEqual(page.ids, [made.body.id]);
  });
});
