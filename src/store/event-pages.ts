/**
 * Pages of events: the ids of one page of a list filter and its total, kept between requests and
 * brought up to date by the change feed (`event-list-results.ts`), keyset pages for long walks, and
 * the statements a page runs (for EXPLAIN). The queries themselves are `event-list-query.ts`.
 *
 * @example
 *   const page = await findEventPage(db, 'sqlite', { statuses: ['publish'], order: 'start' }, { limit: 10, offset: 0 });
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import type { DialectName } from './handle.js';
import { revisionExpression } from './revision.js';
import { backgroundReaderOf, partsOf, readOffLoop, slot } from './handle.js';
import { keptCountersOf } from '../metrics.js';
import { findEventsInOrder, type EventRecord } from './events.js';
import { countSearchMode, listQuery, overlapParts, pageSearchMode, type OverlapPart, type SearchMode } from './event-list-query.js';
import {
  adjustedTotal,
  COUNTS_IN_FLIGHT,
  pageTouched,
  RESULTS_KEPT,
  resultsOf,
  transitionsSince,
  type CountsInFlight,
  type EventListFilter,
  type KeptPage,
  type SortKey,
} from './event-list-results.js';

/**
 * A page of the ids a list filter (without `overlaps`) shows, by start then id, after `after` (the
 * previous page's last row): keyset pages, so that the thousandth page of a large calendar costs
 * what the first does (an offset walks every row before it again). Nothing is kept.
 */
export async function findEventIdsAfter(
  db: Executor,
  dialect: DialectName,
  filter: EventListFilter,
  after: { start: string; id: number } | undefined,
  limit: number,
): Promise<Array<{ id: number; start: string }>> {
  let q = listQuery(db, dialect, { ...filter, order: 'start' }).select(['posts.id', 'events.start_local']);
  if (after) q = q.where((eb) => eb.or([eb('events.start_local', '>', after.start), eb.and([eb('events.start_local', '=', after.start), eb('events.post_id', '>', after.id)])]));
  const rows = await q.orderBy('events.start_local').orderBy('events.post_id').limit(limit).execute();
  return rows.map((r) => ({ id: Number(r.id), start: String(r.start_local) }));
}

async function countMatches(db: Executor, dialect: DialectName, filter: EventListFilter): Promise<{ n: number; seq: number | undefined }> {
  // The change log's number in the same statement: the count's own snapshot (see transitionsSince).
  const parts = overlapParts(filter);
  const search = countSearchMode(dialect, filter);
  const q = parts
    ? // An overlap: its two parts counted in one statement (one snapshot).
      db.selectNoFrom(() => [
        sql<number>`${sql.join(
          parts.map((part) => sql`(${listQuery(db, dialect, filter, part, search).select((eb) => eb.fn.countAll<number>().as('n'))})`),
          sql` + `,
        )}`.as('n'),
        revisionExpression(dialect).as('__seq'),
      ])
    : listQuery(db, dialect, filter, undefined, search).select((eb) => [eb.fn.countAll<number>().as('n'), revisionExpression(dialect).as('__seq')]);
  const reader = backgroundReaderOf(db);
  if (reader) {
    try {
      const compiled = q.compile();
      const [row] = await reader.all<{ n: number; __seq: string | null }>(compiled.sql, compiled.parameters);
      return { n: Number(row?.n ?? 0), seq: row?.__seq == null ? undefined : Number(row.__seq) };
    } catch {
      // The worker is gone or failed: count here.
    }
  }
  const row = await q.executeTakeFirstOrThrow();
  return { n: Number(row.n), seq: row.__seq == null ? undefined : Number(row.__seq) };
}

/** From this many rows before a page, the page is read off the loop (walking the index to an offset costs about 1 µs a row). */
const DEEP_OFFSET = 5000;

/**
 * The ids of one page of events matching the filter, in list order, plus the total number of
 * matches, and the data revision they belong to (outside transactions). Both are kept (see
 * `ListResults`) and brought up to date by the change feed. With `count: false` nothing is counted:
 * `total` is then the matches up to this page (`offset` + the ids found), for callers that only
 * need to know whether more follow (they ask one row more than they show).
 */
export async function findEventPageIds(
  db: Executor,
  dialect: DialectName,
  filter: EventListFilter,
  page: { limit: number; offset: number; count?: boolean },
  /** the data revision, when the caller has just read it (before anything it computed for this list) */
  knownRevision?: string,
): Promise<{ ids: number[]; total: number; revision?: string }> {
  // A search: read through the index when its matches are few, else in list order; off the loop (`readOffLoop`).
  const searching = (filter.searchWords?.length ?? 0) > 0;
  // A page whose filter may match few events spread over the whole listing (a term, a place,
  // featured events) walks the listing index until it fills; a venue's or an organizer's page did
  // (it held the loop 2-3.4 s of CPU at 1,000,000 events) and now reads their events alone
  // (`linkedQuery`), but sorts them all for a list of popular ones. Those are read off the loop
  // too, as every count is, and so is a deep page (the index walked to its offset: page 5,000 of
  // the default list held the loop 190 ms of CPU); the plain lists' first pages (a window, a
  // range, ids) fill from the index's first entries and stay here.
  const offLoop =
    page.offset >= DEEP_OFFSET ||
    searching ||
    filter.venueIds !== undefined ||
    filter.organizerIds !== undefined ||
    filter.categoryIds !== undefined ||
    filter.tagIds !== undefined ||
    filter.geo !== undefined ||
    filter.featured !== undefined;
  let search: Promise<SearchMode> | undefined;
  const rowsOf = async (part: OverlapPart | undefined, limit: number, offset: number) => {
    const mode = searching ? await (search ??= pageSearchMode(db, dialect, filter)) : 'scan';
    let q = listQuery(db, dialect, filter, part, mode).select(['posts.id', 'events.start_local', 'posts.date_gmt', revisionExpression(dialect).as('__seq')]);
    // By start, ties by id: `events.post_id` (= posts.id) so that the events_listing index gives this order.
    if (filter.order === 'date') q = q.orderBy('posts.date_gmt').orderBy('posts.id');
    else if (filter.order === 'start_desc') q = q.orderBy('events.start_local', 'desc').orderBy('events.post_id', 'desc');
    else q = q.orderBy('events.start_local').orderBy('events.post_id');
    const paged = q.limit(limit).offset(offset);
    const rows = offLoop ? await readOffLoop(db, dialect, paged) : await paged.execute();
    return { rows, seq: rows.length && rows[0]!.__seq != null ? Number(rows[0]!.__seq) : undefined };
  };
  /** An overlap's page: its first part's rows, then the second part's after the first part's last. */
  const overlapRows = async (parts: OverlapPart[]) => {
    // What a part that finds no rows is current as of: the feed's position before it was read (every
    // change up to it was committed before the statement began). A part's rows say their own.
    const floor = partsOf(db)?.feed?.seq();
    const first = await rowsOf(parts[0], page.limit, page.offset);
    if (first.rows.length === page.limit) return first;
    // How many rows the first part holds: those before this page and on it, counted only when the page is past them all.
    const before = first.rows.length > 0 || page.offset === 0 ? page.offset + first.rows.length : await countPart(parts[0]!);
    const second = await rowsOf(parts[1], page.limit - first.rows.length, Math.max(0, page.offset - before));
    // The page is as current as its older statement (a change between the two is applied from there).
    const a = first.seq ?? floor;
    const b = second.seq ?? floor;
    return { rows: [...first.rows, ...second.rows], seq: a === undefined || b === undefined ? undefined : Math.min(a, b) };
  };
  const countPart = async (part: OverlapPart) => {
    const q = listQuery(db, dialect, filter, part, countSearchMode(dialect, filter)).select((eb) => eb.fn.countAll<number>().as('n'));
    const [row] = offLoop ? await readOffLoop(db, dialect, q) : await q.execute();
    return Number(row?.n ?? 0);
  };
  const pageRows = async () => {
    const parts = overlapParts(filter);
    const { rows, seq } = parts ? await overlapRows(parts) : await rowsOf(undefined, page.limit, page.offset);
    const lastRow = rows.length === page.limit ? rows[rows.length - 1] : undefined;
    return {
      ids: rows.map((r) => Number(r.id)),
      last: lastRow ? ([filter.order === 'date' ? lastRow.date_gmt : lastRow.start_local, Number(lastRow.id)] as SortKey) : undefined,
      seq,
    };
  };
  const parts = partsOf(db);
  const feed = parts?.feed;
  if (!parts || !feed) {
    const { ids } = await pageRows();
    if (page.count === false) return { ids, total: page.offset + ids.length };
    return { ids, total: page.offset === 0 && ids.length < page.limit ? ids.length : (await countMatches(db, dialect, filter)).n };
  }
  const revision = knownRevision ?? (await feed.sync(), feed.revision());
  const results = resultsOf(db, parts, dialect);
  const key = JSON.stringify(filter);
  const pageKey = `${page.limit}:${page.offset}:${key}`;
  const counters = keptCountersOf(db);
  let ids = results.pages.get(pageKey)?.ids;
  if (ids !== undefined) counters.eventPages.hits++;
  else {
    counters.eventPages.misses++;
    const fresh = await pageRows();
    ids = fresh.ids;
    const kept: KeptPage = { filter, limit: page.limit, ids, last: fresh.last };
    const since = await transitionsSince(feed, fresh.seq);
    if (since && !pageTouched(kept, since, dialect) && !(filter.geo && (fresh.seq === undefined || fresh.seq < results.venuesChangedAt))) {
      if (results.pages.size >= RESULTS_KEPT) results.pages.clear();
      results.pages.set(pageKey, kept);
    }
  }
  if (page.count === false) return { ids, total: page.offset + ids.length, revision };
  if (page.offset === 0 && ids.length < page.limit) return { ids, total: ids.length, revision };
  let total = results.totals.get(key)?.total;
  if (total !== undefined) counters.eventTotals.hits++;
  else {
    counters.eventTotals.misses++;
    // Requests arriving while this total is being counted wait for the same count.
    const inFlight = slot(parts, COUNTS_IN_FLIGHT, (): CountsInFlight => new Map());
    let flight = inFlight.get(key);
    if (!flight) {
      flight = countMatches(db, dialect, filter).finally(() => inFlight.delete(key));
      inFlight.set(key, flight);
    }
    const counted = await flight;
    total = counted.n;
    const since = await transitionsSince(feed, counted.seq);
    const adjusted = since && adjustedTotal(counted.n, filter, since, dialect);
    const venuesMoved = filter.geo !== undefined && (counted.seq === undefined || counted.seq < results.venuesChangedAt);
    if (adjusted !== undefined && !venuesMoved) {
      // Another request may have kept it meanwhile (from the same count): keep one.
      total = results.totals.get(key)?.total ?? adjusted;
      if (results.totals.size >= RESULTS_KEPT) results.totals.clear();
      results.totals.set(key, { filter, total });
    }
  }
  return { ids, total, revision };
}

/**
 * The statements one page of this filter runs (an overlap's two parts, else one), compiled: what
 * the planner is asked, for EXPLAIN in the tests and benchmarks.
 */
export function eventPageStatements(
  db: Executor,
  dialect: DialectName,
  filter: EventListFilter,
  page: { limit: number; offset: number },
  /** how its search words are read (SQLite; a page chooses with `pageSearchMode`) */
  search: SearchMode = 'scan',
): Array<{ sql: string; parameters: readonly unknown[] }> {
  const parts = overlapParts(filter) ?? [undefined];
  return parts.map((part) => {
    const q = listQuery(db, dialect, filter, part, search).select(['posts.id', 'events.start_local']);
    const ordered = filter.order === 'start_desc' ? q.orderBy('events.start_local', 'desc').orderBy('events.post_id', 'desc') : q.orderBy('events.start_local').orderBy('events.post_id');
    return ordered.limit(page.limit).offset(page.offset).compile();
  });
}

/**
 * One page of event records matching the filter, plus the total number of matches.
 */
export async function findEventPage(db: Executor, dialect: DialectName, filter: EventListFilter, page: { limit: number; offset: number }): Promise<{ rows: EventRecord[]; total: number }> {
  const { ids, total } = await findEventPageIds(db, dialect, filter, page);
  return { rows: await findEventsInOrder(db, ids), total };
}
