/**
 * Issue 15, `seed --series` in bulk: the same series written by the bulk seed on one server and
 * created through `POST /events` on another (both over the same seeded calendar, so ids line up)
 * leave the same rows in every table the service writes (posts, events, event_series,
 * event_occurrences, links, term counts), and answer the same JSON (lists, `?post_parent=`, the
 * series, an occurrence, term counts, totals). Only the write time differs between the two: dates
 * written "now" are checked to be the write time, then compared as `NOW`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { seedCalendar } from '../../src/seed/calendar.js';
import { generateSeries } from '../../src/domain/series-generation.js';
import { seedSeries, seriesInputs } from '../../src/seed/series.js';
import { seriesLinkCandidates } from '../../src/store/seed.js';
import { utcToWall } from '../../src/domain/dates/wall.js';
import { sanitizeSlug } from '../../src/domain/slugs.js';

const ENV = { CALENDAR_TIMEZONE: 'Europe/Berlin', RECURRENCE_HORIZON_MONTHS: '24' };
const SERIES = 6;
const SEED = 5;
const WIDE = { start_date: '2000-01-01', end_date: '2100-01-01' };

/** Every row of the tables a series write touches, ordered, as plain values. */
async function rowsOf(t: TestServer): Promise<Record<string, unknown[]>> {
  const db = t.built.store.db;
  const plain = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v === null ? null : typeof v === 'number' ? v : String(v)])));
  return {
    posts: plain(await db.selectFrom('posts').selectAll().orderBy('id').execute()),
    events: plain(await db.selectFrom('events').selectAll().orderBy('post_id').execute()),
    event_series: plain(await db.selectFrom('event_series').selectAll().orderBy('post_id').execute()),
    event_occurrences: plain(await db.selectFrom('event_occurrences').selectAll().orderBy('post_id').execute()),
    event_terms: plain(await db.selectFrom('event_terms').selectAll().orderBy('event_id').orderBy('term_id').execute()),
    event_organizers: plain(await db.selectFrom('event_organizers').selectAll().orderBy('event_id').orderBy('position').execute()),
    terms: plain(await db.selectFrom('terms').selectAll().orderBy('id').execute()),
  };
}

/** Wall times written at the write time (between `from` and `to`, UTC or site zone) become `NOW`. */
function normaliser(fromGmt: string, toGmt: string, tz: string) {
  const windows = [
    [fromGmt, toGmt],
    [utcToWall(fromGmt, tz), utcToWall(toGmt, tz)],
  ];
  const isNow = (v: unknown) => typeof v === 'string' && /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d$/.test(v) && windows.some(([a, b]) => v.replace('T', ' ') >= a! && v.replace('T', ' ') <= b!);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return isNow(v) ? 'NOW' : v;
  };
  return walk;
}

const gmtNow = (ms = Date.now()) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

for (const kind of STORES) {
  describe(`seed --series in bulk writes what the API writes [${kind.name}]`, () => {
    let api: TestServer;
    let bulk: TestServer;
    before(async () => {
      api = await startServer(kind, ENV);
      bulk = await startServer(kind, ENV);
    });
    after(async () => {
      await bulk?.close();
      await api?.close();
    });

    it('the same series, bulk-loaded or created through the API, leave the same rows and answer the same JSON', async () => {
      const tz = api.config.timezone;
      const calendarNow = new Date(Date.now() - 86_400_000);
      for (const t of [api, bulk]) {
        const admin = (await t.built.services.users.list()).find((u) => u.login === 'admin')!;
        await seedCalendar(t.built.store, { events: 40, authorId: Number(admin.id), timezone: tz, seed: 3, now: calendarNow, batchSize: 100 });
      }
      const admin = (await api.built.services.users.list()).find((u) => u.login === 'admin')!;
      const startedGmt = gmtNow(Date.now() - 1000);
      const now = new Date();
      const inputs = seriesInputs({ series: SERIES, kind: 'mixed', seed: SEED, timezone: tz, now, ...(await seriesLinkCandidates(api.built.store.db)) });
      assert.ok(inputs.some((i) => i.venue !== undefined) && inputs.some((i) => i.categories?.length));
      assert.ok(inputs.some((i) => i.recurrence[0]!.includes('WEEKLY')) && inputs.some((i) => i.recurrence[0]!.includes('MONTHLY')));

      // An event already holding the slug of the first series' first occurrence: that occurrence is numbered.
      const clash = `${sanitizeSlug(inputs[0]!.title)}-${inputs[0]!.start_date.slice(0, 10)}`;
      for (const t of [api, bulk]) {
        const r = await t.api.post('/events', { as: 'admin', json: { title: clash, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', status: 'publish' } });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.slug, clash);
      }

      // A write generates at most 100 occurrences, the horizon job the rest (issue 24): here each series
      // is finished before the next is created, as the bulk seed writes them, so the ids line up.
      await api.built.horizonJob.stop();
      // Twice over: the second round's series slugs are numbered (`yoga-1-2`), as are their occurrences' bases.
      for (let round = 0; round < 2; round++) {
        for (const input of inputs) {
          const r = await api.api.post('/events', { as: 'admin', json: input });
          assert.equal(r.status, 201, r.text);
          await generateSeries(api.built.services, r.body.id);
        }
        const made = await seedSeries(bulk.built.store, {
          series: SERIES,
          kind: 'mixed',
          seed: SEED,
          authorId: Number(admin.id),
          timezone: tz,
          horizonMonths: bulk.config.recurrenceHorizonMonths,
          now,
          batchSize: 150,
        });
        assert.equal(made.series, SERIES);
        assert.ok(made.occurrences > SERIES * 24);
      }
      const endedGmt = gmtNow(Date.now() + 1000);
      const norm = normaliser(startedGmt, endedGmt, tz);

      // Rows: the same, table by table, once the write times are set aside.
      const [a, b] = [await rowsOf(api), await rowsOf(bulk)];
      for (const rows of [a, b]) {
        for (const p of rows.posts as Array<Record<string, string>>) {
          if (p.date_gmt! < startedGmt) continue;
          assert.equal(p.date_local, utcToWall(p.date_gmt!, tz), `post ${p.id}: date_local in the site zone`);
          assert.equal(p.modified_local, utcToWall(p.modified_gmt!, tz), `post ${p.id}: modified_local in the site zone`);
        }
      }
      const seriesPosts = (b.posts as Array<Record<string, unknown>>).filter((p) => p.type === 'tribe_event_series');
      assert.equal(seriesPosts.length, SERIES * 2);
      assert.ok((b.posts as Array<Record<string, unknown>>).some((p) => p.slug === `${clash}-2`));
      for (const table of Object.keys(a)) assert.deepEqual(norm(b[table]), norm(a[table]), `table ${table}`);

      // Answers: the same JSON (origins and write times aside), totals included.
      const seriesIds = seriesPosts.map((p) => Number(p.id));
      const occurrenceId = Number((b.event_occurrences as Array<Record<string, unknown>>)[5]!.post_id);
      const categoryId = inputs.find((i) => i.categories?.length)!.categories![0]!;
      const reads: Array<[string, Record<string, string | number> | undefined]> = [
        ['/events', undefined],
        ['/events', { ...WIDE, per_page: 50, page: 3 }],
        ['/events', { ...WIDE, categories: categoryId, per_page: 20 }],
        ...seriesIds.flatMap((id): Array<[string, Record<string, string | number> | undefined]> => [
          [`/events/${id}`, undefined],
          ['/events', { ...WIDE, post_parent: id, per_page: 30 }],
        ]),
        [`/events/${occurrenceId}`, undefined],
        [`/categories/${categoryId}`, undefined],
        ['/categories', { per_page: 100 }],
      ];
      for (const [path, query] of reads) {
        const [x, y] = [await api.api.get(path, { query }), await bulk.api.get(path, { query })];
        assert.equal(x.status, 200, `${path} ${x.text}`);
        assert.equal(y.status, x.status, path);
        assert.equal(y.headers.get('x-tec-total'), x.headers.get('x-tec-total'), `${path} total`);
        const body = (r: typeof x, t: TestServer) => norm(JSON.parse(r.text.split(t.origin).join('ORIGIN')));
        assert.deepEqual(body(y, bulk), body(x, api), `${path} ${JSON.stringify(query)}`);
      }
      const listed = await bulk.api.get('/events', { query: { ...WIDE, post_parent: seriesIds[0]!, per_page: 1 } });
      assert.ok(Number(listed.headers.get('x-tec-total')) >= 24);
    });
  });
}
