/**
 * The event list filtered by venue or by organizer reads those events alone: a venue's through
 * `events_venue_start (venue_id, start_local, post_id)` (migration 025), an organizer's from
 * `event_organizers` by organizer first, instead of walking the listing index (`events_listing`) in
 * start order and checking every event until the page filled (1-4 s at 1,000,000 events,
 * bench/RESULTS.md). The plans are checked with SQLite statistics like those of a large calendar
 * (`PRAGMA optimize` samples: thousands of events at every venue, hardly more under
 * `hide_from_listings = 0`), under which SQLite walked the listing index; the answers (events,
 * order, totals) are those of the filters' meaning, for one venue or organizer, several, every
 * one, and both filters together; the plans also for a long list, bound as one value (lists.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { startServer, STORES, type TestServer } from '../support/harness.js';
import { eventPageStatements } from '../../src/store/event-pages.js';
import type { EventListFilter } from '../../src/store/event-list-results.js';

/** Statistics of a seeded calendar of 1,000,000 events (`PRAGMA optimize`), as SQLite's planner reads them. */
const LARGE_CALENDAR_STATS: Array<[string, string, string]> = [
  // The listing indexes lead with the calendar (one calendar here: every row has the same id).
  ['events', 'events_listing', '1000000 1000000 2001 3 1 1'],
  ['events', 'events_venue', '1000000 2001'],
  ['events', 'events_venue_start', '1000000 1000000 2001 2 1'],
  ['events', 'events_start', '1000000 1000000 24 1'],
  ['event_organizers', 'event_organizers_organizer', '1098524 2001 1'],
  ['event_organizers', 'sqlite_autoindex_event_organizers_1', '1098524 2 1'],
  ['posts', 'posts_type_status_local', '1090000 1090000 2001 2001 2 1'],
  ['posts', 'posts_type_status_date', '1090000 1090000 2001 2001 3 1'],
];

const WINDOW = { start_date: '2032-01-01', end_date: '2032-12-31' };

for (const kind of STORES) {
  describe(`event lists by venue and organizer read those events alone [${kind.name}]`, () => {
    let t: TestServer;
    const venues: number[] = [];
    const organizers: number[] = [];
    /** Every event made: its id, start, venue, organizers and whether a list shows it. */
    const made: Array<{ id: number; start: string; venue?: number; organizers: number[]; listed: boolean }> = [];

    before(async () => {
      t = await startServer(kind);
      for (const name of ['Hall A', 'Hall B', 'Hall C']) {
        const res = await t.api.post('/venues', { as: 'admin', json: { venue: name } });
        assert.equal(res.status, 201, res.text);
        venues.push(res.body.id);
      }
      for (const name of ['Org X', 'Org Y', 'Org Z']) {
        const res = await t.api.post('/organizers', { as: 'admin', json: { organizer: name } });
        assert.equal(res.status, 201, res.text);
        organizers.push(res.body.id);
      }
      // Starts out of id order (and two at one time), venues and organizers spread over them; a
      // hidden event, a draft and events without either link.
      for (let i = 0; i < 24; i++) {
        const day = String(28 - ((i * 7) % 27)).padStart(2, '0');
        const hour = i === 5 ? '10' : String(8 + (i % 10)).padStart(2, '0');
        const start = `2032-03-${i === 5 ? '28' : day} ${hour}:00:00`;
        const venue = i % 4 === 3 ? undefined : venues[i % 3];
        const orgs = i % 5 === 4 ? [] : i % 2 ? [organizers[i % 3]!, organizers[(i + 1) % 3]!] : [organizers[i % 3]!];
        const hidden = i === 7;
        const draft = i === 11;
        const res = await t.api.post('/events', {
          as: 'admin',
          json: {
            title: `Event ${i}`,
            start_date: start,
            end_date: start.replace(/ (\d\d)/, (_, h: string) => ` ${String(Number(h) + 1).padStart(2, '0')}`),
            ...(venue ? { venue: venue } : {}),
            ...(orgs.length ? { organizer: orgs } : {}),
            ...(hidden ? { hide_from_listings: true } : {}),
            ...(draft ? { status: 'draft' } : {}),
          },
        });
        assert.equal(res.status, 201, res.text);
        made.push({ id: res.body.id, start, ...(venue ? { venue } : {}), organizers: orgs, listed: !hidden && !draft });
      }
    });
    after(async () => t?.close());

    /** The ids a filter shows, in list order (start, then id). */
    const expected = (venueIds?: number[], organizerIds?: number[]) =>
      made
        .filter((e) => e.listed && (!venueIds || (e.venue !== undefined && venueIds.includes(e.venue))) && (!organizerIds || e.organizers.some((o) => organizerIds.includes(o))))
        .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id - b.id))
        .map((e) => e.id);

    /** Every page of the list (anonymous), and the totals each page says. */
    const listed = async (query: Record<string, string>) => {
      const ids: number[] = [];
      const totals = new Set<number>();
      for (let page = 1; ; page++) {
        const res = await t.api.get('/events', { query: { ...WINDOW, ...query, per_page: '3', page: String(page) } });
        if (res.status === 404 && page > 1) break;
        assert.equal(res.status, 200, res.text);
        ids.push(...res.body.events.map((e: { id: number }) => e.id));
        totals.add(res.body.total);
        if (res.body.events.length < 3) break;
      }
      return { ids, totals: [...totals] };
    };

    it('answers the events of one venue or organizer, several, every one, and both together, in order, with their totals', async () => {
      const [a, b, c] = venues as [number, number, number];
      const [x, y, z] = organizers as [number, number, number];
      const cases: Array<[Record<string, string>, number[]]> = [
        [{ venue: String(a) }, expected([a])],
        [{ venue: `${a},${b}` }, expected([a, b])],
        [{ venue: `${c},${a},${b}` }, expected([a, b, c])],
        [{ organizer: String(x) }, expected(undefined, [x])],
        [{ organizer: `${x},${y}` }, expected(undefined, [x, y])],
        [{ organizer: `${z},${x},${y}` }, expected(undefined, [x, y, z])],
        [{ venue: String(a), organizer: String(y) }, expected([a], [y])],
        [{ venue: `${b},${c}`, organizer: `${x},${z}` }, expected([b, c], [x, z])],
      ];
      for (const [query, ids] of cases) {
        const what = JSON.stringify(query).slice(0, 80);
        const got = await listed(query);
        assert.deepEqual(got.ids, ids, what);
        assert.deepEqual(got.totals, [ids.length], `total: ${what}`);
      }
    });

    if (kind.name === 'sqlite') {
      it('reads a venue’s events through events_venue_start and an organizer’s from event_organizers, whatever the statistics say (EXPLAIN QUERY PLAN)', async () => {
        const { db, dialect } = t.built.store;
        await sql`analyze`.execute(db);
        for (const [tbl, idx, stat] of LARGE_CALENDAR_STATS) {
          await sql`delete from "sqlite_stat1" where "tbl" = ${tbl} and "idx" = ${idx}`.execute(db);
          await sql`insert into "sqlite_stat1" ("tbl", "idx", "stat") values (${tbl}, ${idx}, ${stat})`.execute(db);
        }
        // The planner reads the statistics again.
        await sql`analyze "sqlite_schema"`.execute(db);
        const base: EventListFilter = { statuses: ['publish'], order: 'start', startFrom: '2032-01-01 00:00:00', endUntil: '2032-12-31 23:59:59' };
        const plan = async (filter: EventListFilter, what: string) => {
          const [page] = eventPageStatements(db, dialect, filter, { limit: 10, offset: 0 });
          // The total counts through the same statement, without its order, limit and offset (its last two values).
          const counted = { sql: page!.sql.replace(/^select .*? from /, 'select count(*) from ').replace(/ order by .*$/, ''), parameters: page!.parameters.slice(0, -2) };
          const out: string[] = [];
          for (const [name, q] of [
            ['page', page!],
            ['count', counted],
          ] as const) {
            const rows = (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]))).rows;
            out.push(`${what}, ${name}: ${rows.map((r) => r.detail).join(' / ')}`);
          }
          return out;
        };
        const [a, b] = venues as [number, number];
        const [x, y] = organizers as [number, number];
        const venueCases: Array<[EventListFilter, string]> = [
          [{ ...base, venueIds: [a] }, 'one venue'],
          [{ ...base, venueIds: [a, b] }, 'two venues'],
          [{ ...base, venueIds: [...Array.from({ length: 600 }, (_, i) => 900000 + i), a] }, 'a long list of venues'],
          [{ ...base, venueIds: [a], organizerIds: [x] }, 'a venue and an organizer'],
        ];
        for (const [filter, what] of venueCases) {
          for (const p of await plan(filter, what)) {
            assert.match(p, /SEARCH events USING (COVERING )?INDEX events_venue_start \(calendar_id=\? AND venue_id=\?/, p);
            assert.doesNotMatch(p, /events_listing/, p);
          }
        }
        const organizerCases: Array<[EventListFilter, string]> = [
          [{ ...base, organizerIds: [x] }, 'one organizer'],
          [{ ...base, organizerIds: [x, y] }, 'two organizers'],
          [{ ...base, organizerIds: [...Array.from({ length: 600 }, (_, i) => 900000 + i), x] }, 'a long list of organizers'],
        ];
        for (const [filter, what] of organizerCases) {
          for (const p of await plan(filter, what)) {
            // The organizers' events first (a list read once), each then looked up by its key.
            assert.match(p, /LIST SUBQUERY \d+ \/ SEARCH event_organizers USING COVERING INDEX event_organizers_organizer \(organizer_id=\?\)/, p);
            assert.match(p, /SEARCH events USING INTEGER PRIMARY KEY/, p);
            assert.doesNotMatch(p, /events_listing|CORRELATED/, p);
          }
        }
      });
    } else {
      it('reads a venue’s events through events_venue_start (EXPLAIN)', async () => {
        // PostgreSQL's statistics see the venues as they are (its plans by organizer were already
        // driven from event_organizers); a tiny table is cheapest read whole: ask which index it would read.
        const { db, dialect } = t.built.store;
        const base: EventListFilter = { statuses: ['publish'], order: 'start', startFrom: '2032-01-01 00:00:00', endUntil: '2032-12-31 23:59:59' };
        const [page] = eventPageStatements(db, dialect, { ...base, venueIds: [venues[0]!] }, { limit: 10, offset: 0 });
        const plan = await db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${page!.sql}`, [...page!.parameters]));
          return r.rows.map((row) => row['QUERY PLAN']).join('\n');
        });
        assert.match(plan, /Index (Only )?Scan (using|on) events_venue_start on events|Bitmap Index Scan on events_venue_start/, plan);
        assert.match(plan, /Index Cond: \(\(calendar_id = \d+\) AND \(venue_id = /, plan);
      });
    }
  });
}
