/**
 * The event list filtered by venue or by organizer on a large database: the first page (what
 * `GET /events?venue=ID` reads, the default window from yesterday on) and its total, timed through
 * the store for venues and organizers that hold about 20 events each, and the plan SQLite or
 * PostgreSQL chooses for the page. Nothing is kept between reads (the store's change feed is not
 * started), so every read is the statement itself.
 *
 * Usage:
 *   node --import tsx bench/src/filter-pages.ts DATABASE_URL
 * Settings (environment): FILTER_COUNT (venues and organizers each, default 20).
 *
 * @example
 *   node --import tsx bench/src/filter-pages.ts sqlite:/tmp/events-1000000.db
 */
import { performance } from 'node:perf_hooks';
import { CompiledQuery, sql } from 'kysely';
import { DateTime } from 'luxon';
import { openStore } from '../../src/store/db.js';
import { eventPageStatements, findEventPageIds } from '../../src/store/event-pages.js';
import type { EventListFilter } from '../../src/store/event-list-results.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: filter-pages.ts DATABASE_URL');
  process.exit(2);
}
const count = Number(process.env.FILTER_COUNT ?? 20);
// Migrated to this build (its indexes), as the server opening it would.
const store = await openStore(url);
const { db, dialect } = store;

/** Ids of `count` venues or organizers holding 15-25 events, spread over the range of ids. */
async function sample(kind: 'venue' | 'organizer'): Promise<number[]> {
  const q =
    kind === 'venue'
      ? sql<{ id: number }>`select "venue_id" as "id" from "events" where "venue_id" is not null group by "venue_id" having count(*) between 15 and 25 order by "venue_id"`
      : sql<{ id: number }>`select "organizer_id" as "id" from "event_organizers" group by "organizer_id" having count(*) between 15 and 25 order by "organizer_id"`;
  const ids = (await q.execute(db)).rows.map((r) => Number(r.id));
  const step = Math.max(1, Math.floor(ids.length / count));
  return ids.filter((_, i) => i % step === 0).slice(0, count);
}

const start = DateTime.utc().minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0 });
const base: EventListFilter = {
  statuses: ['publish'],
  order: 'start',
  startFrom: start.toFormat('yyyy-MM-dd') + ' 00:00:00',
  endUntil: start.plus({ months: 24 }).toFormat('yyyy-MM-dd') + ' 23:59:59',
};

async function plan(filter: EventListFilter): Promise<string> {
  const [statement] = eventPageStatements(db, dialect, filter, { limit: 10, offset: 0 });
  const text = dialect === 'sqlite' ? `explain query plan ${statement!.sql}` : `explain ${statement!.sql}`;
  const rows = (await db.executeQuery<Record<string, string>>(CompiledQuery.raw(text, [...statement!.parameters]))).rows;
  return rows.map((r) => r.detail ?? r['QUERY PLAN']).join('\n');
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const fmt = (ms: number) => ms.toFixed(1);

for (const kind of ['venue', 'organizer'] as const) {
  const ids = await sample(kind);
  const filterOf = (id: number): EventListFilter => (kind === 'venue' ? { ...base, venueIds: [id] } : { ...base, organizerIds: [id] });
  console.log(`\n${kind}: plan of the page\n${await plan(filterOf(ids[0]!))}`);
  const pages: number[] = [];
  const totals: number[] = [];
  let events = 0;
  for (const id of ids) {
    let t = performance.now();
    const page = await findEventPageIds(db, dialect, filterOf(id), { limit: 10, offset: 0, count: false });
    pages.push(performance.now() - t);
    events += page.ids.length;
    // One row a page: the total is counted (the first page is full).
    t = performance.now();
    await findEventPageIds(db, dialect, filterOf(id), { limit: 1, offset: 0 });
    totals.push(performance.now() - t);
  }
  const row = (what: string, xs: number[]) => `| ${dialect} | ${kind} | ${what} | ${ids.length} | ${fmt(quantile(xs, 0.5))} | ${fmt(quantile(xs, 0.9))} | ${fmt(Math.max(...xs))} |`;
  console.log(`\n${events} events on ${ids.length} first pages`);
  console.log('| store | filter | read | reads | p50 ms | p90 ms | max ms |\n|---|---|---|---:|---:|---:|---:|');
  console.log(row('first page (10)', pages));
  console.log(row('one row and the total', totals));
}
await store.close();
