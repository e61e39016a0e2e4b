/**
 * What the event list keeps per store (`findEventPageIds`): pages of ids and totals by filter,
 * adjusted from the change feed's transitions (an event that enters or leaves a filter moves its
 * total by one) instead of counted again, and dropped when a transition cannot be told.
 *
 * @example
 *   matchesFilter({ statuses: ['publish'], order: 'start' }, state, text, 'sqlite') // true
 */
import type { ChangeFeed, EventText, EventTransition } from './change-feed.js';
import type { DialectName } from './dialect.js';
import { slot, slotKey, type StoreParts } from './handle.js';
import type { ListingState } from './listing-states.js';
import type { Executor } from './schema.js';
import { withinRadius, type NearFilter } from './geo.js';
import { registerKept } from '../metrics.js';
import { calendarIdNow } from './calendar-scope.js';

/** What the list can filter on (already resolved to ids by the domain). */
export interface EventListFilter {
  statuses: readonly string[];
  /** Non-editors: records not published are only listed when this user wrote them. */
  onlyPublishedOrAuthor?: number;
  /** start_local >= startFrom */
  startFrom?: string;
  /** end_local <= endUntil */
  endUntil?: string;
  /** end_local >= endFrom (pages: events still running at or after this time) */
  endFrom?: string;
  /** start_local <= startUntil (pages: events begun at or before this time) */
  startUntil?: string;
  /**
   * The events overlapping [from, until] (wall times, inclusive, either open): start_local <= until
   * and end_local >= from, whatever their length, read at the cost of a start-date window
   * (`event-overlaps.ts`).
   */
  overlaps?: { from?: string; until?: string };
  /** every word must appear in title, excerpt or content; words starting with '-' must not */
  searchWords?: string[];
  /**
   * With `searchWords`: password-protected events are left out, whatever matched (WordPress'
   * search for a visitor who is not signed in: the words of a protected content are no oracle).
   */
  searchPublicOnly?: boolean;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  include?: number[];
  postParent?: number;
  /**
   * Each series once: an occurrence is listed only when no other occurrence of its series that
   * matches the window and statuses starts before it (the pages' LIST_SERIES_ONCE).
   */
  firstOfSeries?: boolean;
  /**
   * Geolocation: only events whose venue has coordinates, and with `near`, whose venue
   * lies inside that circle (bounding box on the indexed coordinates, then the great-circle cut).
   */
  geo?: { near?: NearFilter };
  /**
   * 'start': by start date then id; 'date': by publication date then id (with include);
   * 'start_desc': by start date then id, latest first (the pages' past events)
   */
  order: 'start' | 'date' | 'start_desc';
}

/**
 * Whether an event in this listing state (with this text) matches a list filter, exactly as
 * `applyFilter` decides in SQL; undefined when it cannot be told (state or needed text unknown).
 * Search words follow the dialect's LIKE: SQLite folds ASCII letters only; PostgreSQL's ILIKE
 * folds through `lower()`, which JavaScript's `toLowerCase` matches for ASCII words (other words
 * answer undefined).
 */
export function matchesFilter(filter: EventListFilter, state: ListingState | null | undefined, text: EventText | undefined, dialect: DialectName): boolean | undefined {
  if (state === undefined) return undefined;
  if (state === null) return false;
  if (state.hide_from_listings !== 0) return false;
  if (!filter.statuses.includes(state.status)) return false;
  if (filter.onlyPublishedOrAuthor !== undefined && state.status !== 'publish' && state.author_id !== filter.onlyPublishedOrAuthor) return false;
  if (filter.startFrom !== undefined && !(state.start_local >= filter.startFrom)) return false;
  if (filter.endUntil !== undefined && !(state.end_local <= filter.endUntil)) return false;
  if (filter.endFrom !== undefined && !(state.end_local >= filter.endFrom)) return false;
  if (filter.startUntil !== undefined && !(state.start_local <= filter.startUntil)) return false;
  if (filter.overlaps?.until !== undefined && !(state.start_local <= filter.overlaps.until)) return false;
  if (filter.overlaps?.from !== undefined && !(state.end_local >= filter.overlaps.from)) return false;
  const anyOf = (ids: number[] | undefined, have: number[]) => ids === undefined || have.some((id) => ids.includes(id));
  if (!anyOf(filter.categoryIds, state.terms) || !anyOf(filter.tagIds, state.terms)) return false;
  if (filter.venueIds && (state.venue_id === null || !filter.venueIds.includes(state.venue_id))) return false;
  if (!anyOf(filter.organizerIds, state.organizers)) return false;
  if (filter.featured !== undefined && state.featured !== (filter.featured ? 1 : 0)) return false;
  if (filter.include && !filter.include.includes(state.id)) return false;
  if (filter.postParent !== undefined && state.parent_id !== filter.postParent) return false;
  // Whether it is its series' first in the window depends on the other occurrences: cannot tell.
  if (filter.firstOfSeries && state.parent_id !== 0) return undefined;
  if (filter.geo) {
    if (state.venue_id === null) return false;
    // States logged before venue coordinates were kept in them: cannot tell.
    if (state.venue_lat === undefined || state.venue_lng === undefined) return undefined;
    if (state.venue_lat === null || state.venue_lng === null) return false;
    if (filter.geo.near && !withinRadius(filter.geo.near, state.venue_lat, state.venue_lng)) return false;
  }
  if (filter.searchWords?.length) {
    if (filter.searchPublicOnly) {
      // States logged before they said so cannot tell.
      if (state.protected === undefined) return undefined;
      if (state.protected) return false;
    }
    if (!text) return undefined;
    const fold = dialect === 'sqlite' ? (v: string) => v.replace(/[A-Z]+/g, (c) => c.toLowerCase()) : (v: string) => v.toLowerCase();
    const fields = [fold(text.title), fold(text.excerpt), fold(text.content)];
    for (const raw of filter.searchWords) {
      const exclude = raw.startsWith('-') && raw.length > 1;
      const word = exclude ? raw.slice(1) : raw;
      if (dialect !== 'sqlite' && /[^\x00-\x7f]/.test(word)) return undefined;
      const found = fields.some((f) => f.includes(fold(word)));
      if (found === exclude) return false;
    }
  }
  return true;
}

/** The list order's key of an event: by start (or publication date with `include`), then id. */
export type SortKey = [string, number];
export function sortKeyOf(filter: EventListFilter, state: ListingState): SortKey {
  return [filter.order === 'date' ? state.date_gmt : state.start_local, state.id];
}
/** Whether key `a` comes at or before key `b` in the filter's order. */
export function keyAtOrBefore(filter: EventListFilter, a: SortKey, b: SortKey): boolean {
  if (filter.order === 'start_desc') [a, b] = [b, a];
  return a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
}

/**
 * List results kept per database: the total of each filter and the ids of its pages,
 * each valid at the change feed's sequence number. A change to an event adjusts the totals it
 * affects (+1 when it starts matching a filter, -1 when it stops) and drops only the pages whose
 * range it falls in; nothing else is recomputed.
 */
export interface KeptPage {
  filter: EventListFilter;
  limit: number;
  ids: number[];
  /** the order key of the page's last event, when the page is full */
  last: SortKey | undefined;
}
export interface ListResults {
  dialect: DialectName;
  /**
   * The feed's number after the last batch that changed a venue. A venue's coordinates decide
   * which events a geo-filtered list holds without any event changing: such a change drops the
   * kept geo-filtered results, and one computed before it is not kept.
   */
  venuesChangedAt: number;
  totals: Map<string, { filter: EventListFilter; total: number }>;
  pages: Map<string, KeptPage>;
}
/** What a store keeps of event lists (handle.ts). */
const RESULTS = slotKey<ListResults>('event list results');
/** Counts running now, per store, by filter. */
export type CountsInFlight = Map<string, Promise<{ n: number; seq: number | undefined }>>;
export const COUNTS_IN_FLIGHT = slotKey<CountsInFlight>('event counts in flight');
export const RESULTS_KEPT = 2000;

/** The total after these transitions, or undefined when one of them cannot be told. */
export function adjustedTotal(total: number, filter: EventListFilter, transitions: readonly EventTransition[], dialect: DialectName): number | undefined {
  for (const t of transitions) {
    const before = matchesFilter(filter, t.before, t.beforeText, dialect);
    const after = matchesFilter(filter, t.after, t.afterText, dialect);
    if (before === undefined || after === undefined) return undefined;
    total += (after ? 1 : 0) - (before ? 1 : 0);
  }
  return total;
}

/** Whether these transitions may change the page's ids. */
export function pageTouched(page: KeptPage, transitions: readonly EventTransition[], dialect: DialectName): boolean {
  for (const t of transitions) {
    for (const [state, text] of [
      [t.before, t.beforeText],
      [t.after, t.afterText],
    ] as const) {
      const m = matchesFilter(page.filter, state, text, dialect);
      if (m === undefined) return true;
      if (m && (page.last === undefined || keyAtOrBefore(page.filter, sortKeyOf(page.filter, state!), page.last))) return true;
    }
  }
  return false;
}

export function resultsOf(db: Executor, parts: StoreParts, dialect: DialectName): ListResults {
  return slot(parts, RESULTS, () => makeResults(db, parts.feed, dialect));
}

function makeResults(db: Executor, feed: ChangeFeed, dialect: DialectName): ListResults {
  const kept: ListResults = { dialect, venuesChangedAt: -1, totals: new Map(), pages: new Map() };
  registerKept(db, 'event_totals', { entries: () => kept.totals.size, maxEntries: RESULTS_KEPT });
  registerKept(db, 'event_pages', { entries: () => kept.pages.size, maxEntries: RESULTS_KEPT });
  // The results are the calendar's of the work at hand (they are kept in its slots): its changes alone move them.
  feed.subscribe(
    (batch) => {
      if (batch.reset || batch.listsReset) {
        kept.totals.clear();
        kept.pages.clear();
        kept.venuesChangedAt = batch.to;
        return;
      }
      if (batch.venues.size > 0) {
        kept.venuesChangedAt = batch.to;
        for (const [key, entry] of kept.totals) if (entry.filter.geo) kept.totals.delete(key);
        for (const [key, page] of kept.pages) if (page.filter.geo) kept.pages.delete(key);
      }
      if (batch.events.length === 0) return;
      for (const [key, entry] of kept.totals) {
        const total = adjustedTotal(entry.total, entry.filter, batch.events, dialect);
        if (total === undefined) kept.totals.delete(key);
        else entry.total = total;
      }
      for (const [key, page] of kept.pages) if (pageTouched(page, batch.events, dialect)) kept.pages.delete(key);
    },
    { calendar: calendarIdNow() },
  );
  return kept;
}

/**
 * A result computed at sequence number `at`, made current: the feed's transitions since `at` are
 * applied (or, when `at` is ahead of the feed, the feed is brought up first). Undefined when that
 * cannot be done; then the result is used once and not kept.
 */
export async function transitionsSince(feed: ChangeFeed, at: number | undefined): Promise<readonly EventTransition[] | undefined> {
  if (at === undefined) return undefined;
  if (at > feed.seq()) await feed.sync();
  return feed.transitionsBetween(at, feed.seq());
}
