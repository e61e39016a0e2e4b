/**
 * The SQL of an event list: a filter (`EventListFilter`) made a query over posts and events, with
 * how it reads its search words (the SQLite index or LIKE) and an overlap's two parts. The pages and
 * totals that run these queries are `event-pages.ts`. Dialect differences (case-insensitive LIKE,
 * index hints) stay here.
 *
 * @example
 *   const ids = await listQuery(db, 'sqlite', { statuses: ['publish'], order: 'start' }).select('posts.id').limit(10).execute();
 */
import { inList } from './lists.js';
import { sql, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, Executor, EventRow } from './schema.js';
import type { DialectName } from './handle.js';
import { readOffLoop } from './handle.js';
import { nearCondition } from './geo.js';
import { LONG_EVENT_CONDITION, LONG_EVENTS_INDEX, lookbackStart } from './event-overlaps.js';
import { VENUE_EVENTS_INDEX } from './migrations/025_filter_indexes.js';
import { ftsPhrases, indexableWord, SEARCH_TABLE } from './search-index.js';
import type { EventListFilter } from './event-list-results.js';
import { calendarFilter } from './calendar-scope.js';

export type EventQuery = SelectQueryBuilder<Database, 'posts' | 'events', object>;

export function baseQuery(db: Executor): EventQuery {
  return db.selectFrom('posts').innerJoin('events', 'events.post_id', 'posts.id') as EventQuery;
}

/**
 * How a list reads its search words on SQLite (`search-index.ts`): 'index' finds the posts holding
 * the words of three characters or more through `posts_search` (exactly the rows LIKE finds) and
 * reads the list from them; 'probe' walks the list in its order and checks each event against the
 * index's matches (taken once); 'scan' walks the list and checks each post's text with LIKE.
 * PostgreSQL always writes ILIKE, which its trigram indexes serve.
 */
export type SearchMode = 'scan' | 'probe' | 'index';

/**
 * Up to this many posts matching a search's indexed words, a page is read from them (each looked
 * up, then sorted: about 10 ms per thousand at 1,000,000 events); over it, in list order, checking
 * each event against them.
 */
const INDEX_PAGE_MATCHES = 5000;
/**
 * Over this many matches (a tenth of a million-event calendar), taking them all costs more than
 * checking each post's text in list order, where a page fills after a few dozen events.
 */
const PROBE_PAGE_MATCHES = 100_000;

/** The search words (not exclusions) the SQLite index can find. */
function indexedWords(f: EventListFilter): string[] {
  return (f.searchWords ?? []).filter((w) => !(w.startsWith('-') && w.length > 1) && indexableWord(w));
}

/**
 * Posts whose text holds every one of these words (the SQLite index; see `ftsPhrases`). 'probe':
 * as a check of each event only (the unary `+` keeps SQLite from reading the list from the matches).
 */
function inSearchIndex(words: string[], mode: 'probe' | 'index') {
  const table = sql.table(SEARCH_TABLE);
  const matches = sql`(select rowid from ${table} where ${table} match ${ftsPhrases(words)})`;
  return mode === 'index' ? sql<boolean>`${sql.ref('posts.id')} in ${matches}` : sql<boolean>`+${sql.ref('events.post_id')} in ${matches}`;
}

/** How a page of this filter reads its search, by how many posts match its indexed words (counted up to a bound). */
export async function pageSearchMode(db: Executor, dialect: DialectName, f: EventListFilter): Promise<SearchMode> {
  const words = dialect === 'sqlite' ? indexedWords(f) : [];
  if (words.length === 0) return 'scan';
  const table = sql.table(SEARCH_TABLE);
  const matchesUpTo = async (bound: number) => {
    const probe = db.selectNoFrom(sql<number>`(select count(*) from (select rowid from ${table} where ${table} match ${ftsPhrases(words)} limit ${bound + 1}))`.as('n'));
    const [row] = await readOffLoop(db, dialect, probe);
    return Number(row?.n ?? 0);
  };
  if ((await matchesUpTo(INDEX_PAGE_MATCHES)) <= INDEX_PAGE_MATCHES) return 'index';
  return (await matchesUpTo(PROBE_PAGE_MATCHES)) <= PROBE_PAGE_MATCHES ? 'probe' : 'scan';
}

/** How a count of this filter reads its search: from the index's matches whenever it can (a count reads every match either way). */
export function countSearchMode(dialect: DialectName, f: EventListFilter): SearchMode {
  return dialect === 'sqlite' && indexedWords(f).length > 0 ? 'index' : 'scan';
}

function likeAny(dialect: DialectName, word: string) {
  const pattern = `%${word.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  return (eb: ExpressionBuilder<Database, 'posts' | 'events'>) => {
    const op = dialect === 'postgres' ? sql`ILIKE` : sql`LIKE`;
    const cols = ['posts.title', 'posts.excerpt', 'posts.content'] as const;
    return eb.or(cols.map((c) => eb(sql`${sql.ref(c)}`, op as never, sql`${pattern} ESCAPE '\\'`)));
  };
}

/** The event is linked to one of these terms (a correlated EXISTS: a primary-key probe per row). */
function hasTermIn(ids: number[], dialect: DialectName) {
  return (eb: ExpressionBuilder<Database, 'posts' | 'events'>) =>
    eb.exists(
      eb
        .selectFrom('event_terms')
        .select('event_terms.event_id')
        .whereRef('event_terms.event_id', '=', 'posts.id')
        .where((e) => inList(e, dialect, 'event_terms.term_id', ids.length ? ids : [0])),
    );
}

/**
 * LIST_SERIES_ONCE: a single event, or an occurrence no other listed occurrence of its series
 * precedes within the same window and statuses (correlated NOT EXISTS over its siblings, read
 * through the posts' parent index).
 */
function firstOfItsSeries(f: EventListFilter) {
  return (eb: ExpressionBuilder<Database, 'posts' | 'events'>) => {
    const conds = [
      sql`sib.parent_id = ${sql.ref('posts.parent_id')}`,
      sql`sib.type = 'tribe_events'`,
      sql`sev.hide_from_listings = 0`,
      sql`sib.status in (${sql.join([...f.statuses])})`,
      sql`(sev.start_local < ${sql.ref('events.start_local')} or (sev.start_local = ${sql.ref('events.start_local')} and sib.id < ${sql.ref('posts.id')}))`,
    ];
    if (f.onlyPublishedOrAuthor !== undefined) conds.push(sql`(sib.status = 'publish' or sib.author_id = ${f.onlyPublishedOrAuthor})`);
    if (f.startFrom !== undefined) conds.push(sql`sev.start_local >= ${f.startFrom}`);
    if (f.startUntil !== undefined) conds.push(sql`sev.start_local <= ${f.startUntil}`);
    if (f.endFrom !== undefined) conds.push(sql`sev.end_local >= ${f.endFrom}`);
    if (f.endUntil !== undefined) conds.push(sql`sev.end_local <= ${f.endUntil}`);
    return eb.or([
      eb('posts.parent_id', '=', 0),
      sql<SqlBool>`not exists (select 1 from posts sib inner join events sev on sev.post_id = sib.id where ${sql.join(conds, sql` and `)}${calendarFilter('sib')}${calendarFilter('sev')})`,
    ]);
  };
}

/**
 * The part of an overlap (`event-overlaps.ts`) a statement reads: the events that begin in the
 * start-date window, or the long ones that began before it. Without a part, the overlap's own
 * condition (a list by publication date, or an overlap open at its start).
 */
export type OverlapPart = 'recent' | 'long';

/** Whether the filter's overlap is read in two parts (then in start order, ascending or not). */
export function overlapParts(f: EventListFilter): OverlapPart[] | undefined {
  if (f.overlaps?.from === undefined || f.order === 'date') return undefined;
  return f.order === 'start_desc' ? ['recent', 'long'] : ['long', 'recent'];
}

function applyOverlap(q: EventQuery, overlaps: NonNullable<EventListFilter['overlaps']>, part: OverlapPart | undefined): EventQuery {
  const { from, until } = overlaps;
  // The long part's conditions are its events table's (`longEvents`).
  if (part === 'long') return q;
  if (until !== undefined) q = q.where('events.start_local', '<=', until);
  if (from === undefined) return q;
  q = q.where('events.end_local', '>=', from);
  if (part === 'recent') q = q.where('events.start_local', '>=', lookbackStart(from));
  return q;
}

/**
 * The long part's events (`event-overlaps.ts`): the rows of `events_long` that began before the
 * start-date window and end in or after the range, as a table of their own. Both planners would
 * otherwise walk `events_listing` in start order up to the window (every event before it) hoping to
 * fill the page early: SQLite is told the index (INDEXED BY), and PostgreSQL plans this table alone
 * (OFFSET 0 keeps it from being merged into the query), where the small index is the cheapest read.
 */
function longEvents(dialect: DialectName, overlaps: NonNullable<EventListFilter['overlaps']>) {
  const from = overlaps.from!;
  const until = overlaps.until !== undefined ? sql` and "start_local" <= ${overlaps.until}` : sql``;
  const table = dialect === 'sqlite' ? sql`"events" indexed by ${sql.raw(`"${LONG_EVENTS_INDEX}"`)}` : sql`"events"`;
  const fence = dialect === 'postgres' ? sql` offset 0` : sql``;
  return sql`(select * from ${table} where ${sql.raw(LONG_EVENT_CONDITION)}${calendarFilter('events')} and "end_local" >= ${from} and "start_local" < ${lookbackStart(from)}${until}${fence})`;
}

/**
 * The long part's rows: its events, each joined to its post. Without statistics of the span
 * (migration 021 makes them; they need PostgreSQL 14 and an ANALYZE) PostgreSQL guesses a third of
 * the events long where a thousandth are, and for that many would read every published post to
 * hash-join them (4 s at 1,000,000 events, measured): each post is looked up by its key instead (a
 * lateral subquery, kept apart by OFFSET 0), whatever the estimate.
 */
function longPartQuery(db: Executor, dialect: DialectName, overlaps: NonNullable<EventListFilter['overlaps']>): EventQuery {
  const events = longEvents(dialect, overlaps).as('events');
  if (dialect !== 'postgres') return db.selectFrom('posts').innerJoin(events, 'events.post_id' as never, 'posts.id') as unknown as EventQuery;
  return db.selectFrom(events).innerJoinLateral(
    (eb) =>
      eb
        .selectFrom('posts')
        .selectAll()
        .whereRef('posts.id', '=', sql.ref('events.post_id') as never)
        .offset(0)
        .as('posts'),
    (join) => join.onTrue(),
  ) as unknown as EventQuery;
}

/** The query of a list (of one part of an overlap), its filter applied. */
export function listQuery(db: Executor, dialect: DialectName, f: EventListFilter, part?: OverlapPart, search: SearchMode = 'scan'): EventQuery {
  if (part === 'long') return applyFilter(longPartQuery(db, dialect, f.overlaps!), dialect, f, part, search);
  return applyFilter(dialect === 'sqlite' ? linkedQuery(db, f) : baseQuery(db), dialect, f, part, search);
}

/**
 * The events of a list by venue or organizer on SQLite, read those events alone: a venue's through
 * `events_venue_start` (migration 025; in start order for one venue), an organizer's by their keys
 * from `event_organizers` (the index of events is then left unused, their key still looked up).
 * SQLite's statistics (`PRAGMA optimize` samples a few hundred rows of each index) put thousands of
 * events at every venue and organizer and hardly more under `hide_from_listings = 0`, so it would
 * walk `events_listing` in start order instead, checking each event's venue or organizers until
 * the page fills: every row of it for their few events (1-4 s at 1,000,000 events). Told, a page
 * costs at most what its total's count does (the same events). PostgreSQL's statistics see the
 * venues and organizers as they are.
 */
function linkedQuery(db: Executor, f: EventListFilter): EventQuery {
  // Given ids (`include`, a sync's chunks) are read by key whatever the venue.
  const hint = f.venueIds !== undefined && f.include === undefined ? sql`indexed by ${sql.raw(`"${VENUE_EVENTS_INDEX}"`)}` : f.organizerIds !== undefined ? sql`not indexed` : undefined;
  if (!hint) return baseQuery(db);
  const events = sql<EventRow>`"events"`.as<'events'>(sql`"events" ${hint}`);
  return db.selectFrom('posts').innerJoin(events, 'events.post_id', 'posts.id') as unknown as EventQuery;
}

function applyFilter(q: EventQuery, dialect: DialectName, f: EventListFilter, part?: OverlapPart, search: SearchMode = 'scan'): EventQuery {
  q = q.where('posts.type', '=', 'tribe_events').where('events.hide_from_listings', '=', 0);
  if (f.statuses.length === 1) q = q.where('posts.status', '=', f.statuses[0]);
  else q = q.where('posts.status', 'in', [...f.statuses]);
  if (f.onlyPublishedOrAuthor !== undefined) {
    const author = f.onlyPublishedOrAuthor;
    q = q.where((eb) => eb.or([eb('posts.status', '=', 'publish'), eb('posts.author_id', '=', author)]));
  }
  if (f.startFrom !== undefined) q = q.where('events.start_local', '>=', f.startFrom);
  if (f.endUntil !== undefined) q = q.where('events.end_local', '<=', f.endUntil);
  if (f.endFrom !== undefined) q = q.where('events.end_local', '>=', f.endFrom);
  if (f.startUntil !== undefined) q = q.where('events.start_local', '<=', f.startUntil);
  if (f.overlaps) q = applyOverlap(q, f.overlaps, part);
  const indexed = search !== 'scan' && dialect === 'sqlite' ? indexedWords(f) : [];
  if (indexed.length) q = q.where(inSearchIndex(indexed, search === 'probe' ? 'probe' : 'index'));
  if (f.searchWords?.length && f.searchPublicOnly) q = q.where('posts.password', '=', '');
  for (const raw of f.searchWords ?? []) {
    if (raw.startsWith('-') && raw.length > 1) {
      const like = likeAny(dialect, raw.slice(1));
      q = q.where((eb) => eb.not(like(eb)));
    } else if (!indexed.includes(raw)) q = q.where(likeAny(dialect, raw));
  }
  // Term filters are correlated EXISTS (a primary-key probe per candidate row) rather than
  // `id IN (subquery)`, which SQLite materializes in full (every event of a popular category).
  // Lists (a category's descendants too) are bound as one value when long (lists.ts).
  if (f.categoryIds) q = q.where(hasTermIn(f.categoryIds, dialect));
  if (f.tagIds) q = q.where(hasTermIn(f.tagIds, dialect));
  if (f.venueIds) {
    const ids = f.venueIds;
    q = q.where((eb) => inList(eb, dialect, 'events.venue_id', ids.length ? ids : [0]));
  }
  if (f.organizerIds) {
    // An organizer's events are few next to a term's, and read from `event_organizers_organizer`
    // first: the planners then look up those events alone. Checked per row (EXISTS), a page
    // walked the listing index in start order until it filled, for an organizer's few events every
    // row of it (2-4 s at 1,000,000 events); a popular organizer's events are all read either way
    // by its total's count.
    const ids = f.organizerIds;
    q = q.where('posts.id', 'in', (eb) =>
      eb
        .selectFrom('event_organizers')
        .select('event_organizers.event_id')
        .where((e) => inList(e, dialect, 'event_organizers.organizer_id', ids.length ? ids : [0])),
    );
  }
  if (f.featured !== undefined) q = q.where('events.featured', '=', f.featured ? 1 : 0);
  if (f.include) {
    const ids = f.include;
    q = q.where((eb) => inList(eb, dialect, 'posts.id', ids.length ? ids : [0]));
  }
  if (f.postParent !== undefined) q = q.where('posts.parent_id', '=', f.postParent);
  if (f.firstOfSeries) q = q.where(firstOfItsSeries(f));
  if (f.geo) {
    // The venues inside the box and circle (a few, read through the venues_geo index), then a
    // probe per event; venues without coordinates never match.
    const near = f.geo.near;
    q = q.where('events.venue_id', 'in', (eb) => {
      const venues = eb.selectFrom('venues').select('venues.post_id').where('venues.geo_lat', 'is not', null).where('venues.geo_lng', 'is not', null);
      return near ? venues.where(nearCondition(near, 'venues.geo_lat', 'venues.geo_lng')) : venues;
    });
  }
  return q;
}
