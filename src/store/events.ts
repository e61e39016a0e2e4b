/**
 * Event queries: rows joined with their post, links to organizers and terms, and the filtered,
 * paged list. Dialect differences (case-insensitive LIKE) stay here.
 *
 * @example
 *   const page = await findEventPage(db, 'sqlite', { statuses: ['publish'], order: 'start' }, { limit: 10, offset: 0 });
 */
import { byChunks, chunksOf, ID_CHUNK, inList, rowsPerStatement } from './lists.js';
import { directOf } from './sqlite-direct.js';
import { PostgresAdapter, sql, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database, EventsTable, Executor, NewPost, PostRow, EventRow, StoredPostType } from './schema.js';
import type { DialectName } from './handle.js';
import { revisionExpression } from './revision.js';
import { backgroundReaderOf, partsOf, readOffLoop, slot } from './handle.js';
import type { Insertable, Updateable } from 'kysely';
import { addTermCounts, isCreatedHere, isStatementWrite, noteChange, noteEventBefore, noteLinksWritten, recordTypeOfPost, statementLog } from './changes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { keptCountersOf } from '../metrics.js';
import { nearCondition } from './geo.js';
import { LONG_EVENT_CONDITION, LONG_EVENTS_INDEX, lookbackStart } from './event-overlaps.js';
import { VENUE_EVENTS_INDEX } from './migrations/025_filter_indexes.js';
import { ftsPhrases, indexableWord, SEARCH_TABLE } from './search-index.js';
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

export { matchesFilter, type EventListFilter } from './event-list-results.js';

/** A post row with its event fields (who changed it last is read apart, `edit-locks.ts`). */
export type EventRecord = PostRow & Omit<EventRow, 'post_id' | 'modified_by'>;

type EventQuery = SelectQueryBuilder<Database, 'posts' | 'events', object>;

const EVENT_COLUMNS = [
  'posts.id',
  'posts.type',
  'posts.author_id',
  'posts.status',
  'posts.pre_trash_status',
  'posts.title',
  'posts.content',
  'posts.excerpt',
  'posts.slug',
  'posts.date_local',
  'posts.date_gmt',
  'posts.modified_local',
  'posts.modified_gmt',
  'posts.parent_id',
  'posts.image_id',
  'posts.password',
  'events.start_local',
  'events.end_local',
  'events.start_utc',
  'events.end_utc',
  'events.timezone',
  'events.all_day',
  'events.cost',
  'events.currency_symbol',
  'events.currency_position',
  'events.website',
  'events.show_map',
  'events.show_map_link',
  'events.hide_from_listings',
  'events.sticky',
  'events.featured',
  'events.venue_id',
] as const;

function baseQuery(db: Executor): EventQuery {
  return db.selectFrom('posts').innerJoin('events', 'events.post_id', 'posts.id') as EventQuery;
}

/**
 * EVENT_COLUMNS as SQL, quoted once: selecting thirty-one columns through the query builder
 * (parsing each reference, then compiling) costs more than running the query.
 */
const EVENT_SELECT_TEXT = EVENT_COLUMNS.map((c) =>
  c
    .split('.')
    .map((part) => `"${part}"`)
    .join('.'),
).join(', ');
const EVENT_SELECT = sql.raw(EVENT_SELECT_TEXT);

/** Event records for these ids (any status), in no particular order. */
export async function findEventsByIds(db: Executor, ids: number[]): Promise<EventRecord[]> {
  if (ids.length === 0) return [];
  if (ids.length > ID_CHUNK) return byChunks(ids, (chunk) => findEventsByIds(db, chunk));
  const direct = directOf(db);
  if (direct)
    return direct.all<EventRecord>(`select ${EVENT_SELECT_TEXT} from "posts" inner join "events" on "events"."post_id" = "posts"."id" where "posts"."id" in (${ids.map(() => '?').join(', ')})`, ids);
  const r = await sql<EventRecord>`select ${EVENT_SELECT} from "posts" inner join "events" on "events"."post_id" = "posts"."id" where "posts"."id" in (${sql.join(ids)})`.execute(db);
  return r.rows;
}

/**
 * A new event: its post, its events row and its organizer and term links (none of them there
 * yet), written as few statements as the store allows, and the record as stored, built from what
 * was written instead of read back (issue 9: an event create is about a dozen statements fewer).
 * On PostgreSQL the four inserts are one statement (data-modifying CTEs: one round trip); on
 * SQLite they run on the write transaction's connection directly (`sqlite-direct.ts`). A
 * published event (not a series: its occurrences count) adds one to each of its terms' counts.
 * In a one-statement write (`writeStatement`, PostgreSQL) the statement also moves those counts
 * and writes the change log, and PostgreSQL commits it alone.
 *
 * @example const record = await insertEvent(trx, post, details, [organizerId], [categoryId, tagId]);
 */
export async function insertEvent(
  db: Executor,
  post: NewPost,
  details: Omit<Insertable<EventsTable>, 'post_id'>,
  organizerIds: number[],
  termIds: number[],
  /**
   * A one-statement write's slug (PostgreSQL, `writeStatement`): `post.slug` is the first candidate,
   * not checked yet; the statement writes only if no post of `types` has it, else `next()` (the
   * caller's numbering, which looks) picks one and the statement runs again.
   */
  slugSpace?: { types: readonly StoredPostType[]; next: () => Promise<string> },
): Promise<EventRecord> {
  // An import may ask for the id the record had at its source (import-context.ts).
  const wanted = await takeWantedId(db, 'post');
  const postValues: NewPost = wanted === undefined ? post : { ...post, id: wanted };
  const organizers = [...new Set(organizerIds)];
  const terms = [...new Set(termIds)];
  const counted = post.status === 'publish' && post.type === 'tribe_events' && terms.length > 0;
  const direct = directOf(db);
  let id: number;
  if (direct) {
    id = direct.insert('posts', postValues, 'id');
    direct.insert('events', { post_id: id, ...details });
    if (organizers.length)
      direct.insertMany(
        'event_organizers',
        organizers.map((organizer_id, position) => ({ event_id: id, organizer_id, position })),
      );
    if (terms.length)
      direct.insertMany(
        'event_terms',
        terms.map((term_id) => ({ event_id: id, term_id })),
      );
  } else if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const statement = isStatementWrite(db);
    let values = postValues;
    for (let attempt = 0; ; attempt++) {
      const written = await insertEventPostgres(db, values, details, organizers, terms, statement ? { counted, slugSpace } : undefined);
      if (written !== undefined) {
        if (statement) return written;
        id = Number(written.id);
        break;
      }
      // The slug was taken (a one-statement write checks it in its statement): number it, once.
      if (attempt > 0 || !slugSpace) throw Object.assign(new Error(`the slug ${values.slug} was taken meanwhile`), { code: '23505' });
      values = { ...values, slug: await slugSpace.next() };
    }
  } else {
    id = Number((await db.insertInto('posts').values(postValues).returning('id').executeTakeFirstOrThrow()).id);
    await db
      .insertInto('events')
      .values({ post_id: id, ...details })
      .execute();
    for (const chunk of chunksOf(
      organizers.map((organizer_id, position) => ({ event_id: id, organizer_id, position })),
      rowsPerStatement(3),
    ))
      await db.insertInto('event_organizers').values(chunk).execute();
    for (const chunk of chunksOf(
      terms.map((term_id) => ({ event_id: id, term_id })),
      rowsPerStatement(2),
    ))
      await db.insertInto('event_terms').values(chunk).execute();
  }
  if (wanted !== undefined) await afterExplicitId(db, 'post');
  await noteChange(db, recordTypeOfPost(post.type), id, 'create');
  if (counted) await addTermCounts(db, terms, 1);
  return storedEventRecord(id, postValues, details);
}

/**
 * PostgreSQL: the inserts of `insertEvent` in one statement, in order (each waits for the one
 * before). In a one-statement write (`statement`) the statement also checks the slug (it inserts
 * nothing, and answers undefined, when a post of `slugSpace.types` has it), moves the terms'
 * counts, takes the log's number and writes the log (`statementLog`): the rows every writer
 * locks (popular terms, the counter) are taken last.
 */
async function insertEventPostgres(
  db: Executor,
  post: NewPost,
  details: Omit<Insertable<EventsTable>, 'post_id'>,
  organizers: number[],
  terms: number[],
  statement?: { counted: boolean; slugSpace?: { types: readonly StoredPostType[] } },
): Promise<EventRecord | undefined> {
  const postColumns = Object.keys(post).filter((k) => (post as Record<string, unknown>)[k] !== undefined);
  const detailColumns = Object.keys(details).filter((k) => (details as Record<string, unknown>)[k] !== undefined);
  const list = (columns: string[]) => sql.join(columns.map((c) => sql.ref(c)));
  const values = (row: object, columns: string[]) => sql.join(columns.map((c) => sql`${(row as Record<string, unknown>)[c]}`));
  const free = statement?.slugSpace
    ? sql`select not exists (select 1 from "posts" where "slug" = ${post.slug} and "type" = any(${[...statement.slugSpace.types]}::text[])) as "ok"`
    : sql`select true as "ok"`;
  const log = statement
    ? statementLog(db, { type: recordTypeOfPost(post.type), action: 'create' }, { after: '"t"', onlyIf: 'exists (select 1 from "p")', counts: statement.counted ? terms : [] })
    : { ctes: sql``, counts: sql`null`, done: sql`null` };
  const r = await sql<{ id: number | string | null; counts: Array<[number, number]> | null }>`with "free" as (${free}),
    "p" as (insert into "posts" (${list(postColumns)}) select ${values(post, postColumns)} from "free" where "free"."ok" returning "id"),
    "e" as (insert into "events" ("post_id", ${list(detailColumns)}) select "p"."id", ${values(details, detailColumns)} from "p" returning "post_id"),
    "o" as (insert into "event_organizers" ("event_id", "organizer_id", "position")
      select "p"."id", x."organizer_id", (x."n" - 1)::int from "p", unnest(${organizers}::int[]) with ordinality as x("organizer_id", "n")
      where (select count(*) from "e") >= 0 returning "event_id"),
    "t" as (insert into "event_terms" ("event_id", "term_id") select "p"."id", x."term_id" from "p", unnest(${terms}::int[]) as x("term_id")
      where (select count(*) from "o") >= 0 returning "event_id")${log.ctes}
    select (select "id" from "p") as "id", ${log.counts} as "counts", ${log.done} as "logged"`.execute(db);
  const row = r.rows[0];
  if (row?.id === null || row?.id === undefined) return undefined;
  const record = storedEventRecord(Number(row.id), post, details);
  if (statement) countsWritten.set(record, new Map((row.counts ?? []).map(([term, count]) => [Number(term), Number(count)])));
  return record;
}

/** The term counts a one-statement create left (by term id), by the record it answered with. */
const countsWritten = new WeakMap<EventRecord, ReadonlyMap<number, number>>();

/**
 * The counts of the terms a one-statement create (`writeStatement`) moved, as its statement left
 * them, when `record` is what that create answered with: its answer shows them without bringing
 * the change feed up to date first (a round trip on PostgreSQL). Undefined for any other record.
 */
export function termCountsWrittenWith(record: EventRecord): ReadonlyMap<number, number> | undefined {
  return countsWritten.get(record);
}

/**
 * The record `findEventsByIds` reads for a post and events row just inserted with these values
 * (the columns' defaults where a value was not given). `test/unit/insert-event.test.ts` compares
 * the two on both stores.
 */
function storedEventRecord(id: number, post: NewPost, details: Omit<Insertable<EventsTable>, 'post_id'>): EventRecord {
  return {
    id,
    type: post.type,
    author_id: post.author_id,
    status: post.status,
    pre_trash_status: post.pre_trash_status ?? '',
    title: post.title,
    content: post.content,
    excerpt: post.excerpt,
    slug: post.slug,
    date_local: post.date_local,
    date_gmt: post.date_gmt,
    modified_local: post.modified_local,
    modified_gmt: post.modified_gmt,
    parent_id: post.parent_id ?? 0,
    image_id: post.image_id ?? null,
    password: post.password ?? '',
    start_local: details.start_local,
    end_local: details.end_local,
    start_utc: details.start_utc,
    end_utc: details.end_utc,
    timezone: details.timezone,
    all_day: details.all_day,
    cost: details.cost ?? null,
    currency_symbol: details.currency_symbol,
    currency_position: details.currency_position,
    website: details.website ?? null,
    show_map: details.show_map,
    show_map_link: details.show_map_link,
    hide_from_listings: details.hide_from_listings,
    sticky: details.sticky,
    featured: details.featured,
    venue_id: details.venue_id ?? null,
  };
}

export async function insertEventDetails(db: Executor, details: Insertable<EventsTable>): Promise<void> {
  await noteEventBefore(db, Number(details.post_id));
  const direct = directOf(db);
  if (direct) direct.insert('events', details);
  else await db.insertInto('events').values(details).execute();
}

export async function updateEventDetails(db: Executor, id: number, patch: Updateable<EventsTable>): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await noteEventBefore(db, id);
  await db.updateTable('events').set(patch).where('post_id', '=', id).execute();
}

/** Replace the event's organizers, keeping the given order. */
export async function setEventOrganizers(db: Executor, eventId: number, organizerIds: number[]): Promise<void> {
  // A new event has no links yet: nothing to note or delete.
  if (!isCreatedHere(db, 'event', eventId)) {
    await noteEventBefore(db, eventId);
    await db.deleteFrom('event_organizers').where('event_id', '=', eventId).execute();
  }
  const unique = [...new Set(organizerIds)];
  if (unique.length === 0) return;
  noteLinksWritten(db, 'event', eventId);
  const rows = unique.map((organizer_id, position) => ({ event_id: eventId, organizer_id, position }));
  const direct = directOf(db);
  if (direct) direct.insertMany('event_organizers', rows);
  else for (const chunk of chunksOf(rows, rowsPerStatement(3))) await db.insertInto('event_organizers').values(chunk).execute();
}

/** Organizer links of these events, ordered by event then position. */
export async function organizerLinksOf(db: Executor, eventIds: number[]): Promise<Array<{ event_id: number; organizer_id: number }>> {
  if (eventIds.length === 0) return [];
  if (eventIds.length > ID_CHUNK) {
    // In chunks (issue 24), then in the order one statement gives.
    const rows = await byChunks(eventIds, (chunk) => db.selectFrom('event_organizers').select(['event_id', 'organizer_id', 'position']).where('event_id', 'in', chunk).execute());
    rows.sort((a, b) => Number(a.event_id) - Number(b.event_id) || Number(a.position) - Number(b.position));
    return rows.map(({ event_id, organizer_id }) => ({ event_id, organizer_id }));
  }
  return db.selectFrom('event_organizers').select(['event_id', 'organizer_id']).where('event_id', 'in', eventIds).orderBy('event_id').orderBy('position').execute();
}

/** Term links of these events. */
export async function termLinksOf(db: Executor, eventIds: number[]): Promise<Array<{ event_id: number; term_id: number }>> {
  return byChunks(eventIds, (chunk) => db.selectFrom('event_terms').select(['event_id', 'term_id']).where('event_id', 'in', chunk).execute());
}

/** Term ids of one taxonomy linked to an event. */
export async function eventTermIds(db: Executor, eventId: number, taxonomy: string): Promise<number[]> {
  const rows = await db
    .selectFrom('event_terms')
    .innerJoin('terms', 'terms.id', 'event_terms.term_id')
    .select('terms.id')
    .where('event_terms.event_id', '=', eventId)
    .where('terms.taxonomy', '=', taxonomy as never)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Replace the event's terms of one taxonomy. Returns the ids whose link changed (for recounting). */
export async function setEventTerms(db: Executor, eventId: number, taxonomy: string, termIds: number[]): Promise<number[]> {
  const before = isCreatedHere(db, 'event', eventId) ? [] : await eventTermIds(db, eventId, taxonomy);
  const wanted = [...new Set(termIds)];
  const removed = before.filter((id) => !wanted.includes(id));
  const added = wanted.filter((id) => !before.includes(id));
  if (removed.length || added.length) await noteEventBefore(db, eventId);
  if (added.length) noteLinksWritten(db, 'event', eventId);
  for (const chunk of chunksOf(removed)) await db.deleteFrom('event_terms').where('event_id', '=', eventId).where('term_id', 'in', chunk).execute();
  for (const chunk of chunksOf(added, rowsPerStatement(2)))
    await db
      .insertInto('event_terms')
      .values(chunk.map((term_id) => ({ event_id: eventId, term_id })))
      .execute();
  return [...removed, ...added];
}

/** Links a new event (no links yet) to these terms; returns the ids linked. */
export async function addEventTerms(db: Executor, eventId: number, termIds: number[]): Promise<number[]> {
  const added = [...new Set(termIds)];
  if (added.length === 0) return added;
  noteLinksWritten(db, 'event', eventId);
  const rows = added.map((term_id) => ({ event_id: eventId, term_id }));
  const direct = directOf(db);
  if (direct) direct.insertMany('event_terms', rows);
  else for (const chunk of chunksOf(rows, rowsPerStatement(2))) await db.insertInto('event_terms').values(chunk).execute();
  return added;
}

/**
 * How a list reads its search words on SQLite (`search-index.ts`): 'index' finds the posts holding
 * the words of three characters or more through `posts_search` (exactly the rows LIKE finds) and
 * reads the list from them; 'probe' walks the list in its order and checks each event against the
 * index's matches (taken once); 'scan' walks the list and checks each post's text with LIKE.
 * PostgreSQL always writes ILIKE, which its trigram indexes serve.
 */
type SearchMode = 'scan' | 'probe' | 'index';

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
async function pageSearchMode(db: Executor, dialect: DialectName, f: EventListFilter): Promise<SearchMode> {
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
function countSearchMode(dialect: DialectName, f: EventListFilter): SearchMode {
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
    return eb.or([eb('posts.parent_id', '=', 0), sql<SqlBool>`not exists (select 1 from posts sib inner join events sev on sev.post_id = sib.id where ${sql.join(conds, sql` and `)})`]);
  };
}

/**
 * The part of an overlap (`event-overlaps.ts`) a statement reads: the events that begin in the
 * start-date window, or the long ones that began before it. Without a part, the overlap's own
 * condition (a list by publication date, or an overlap open at its start).
 */
type OverlapPart = 'recent' | 'long';

/** Whether the filter's overlap is read in two parts (then in start order, ascending or not). */
function overlapParts(f: EventListFilter): OverlapPart[] | undefined {
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
  return sql`(select * from ${table} where ${sql.raw(LONG_EVENT_CONDITION)} and "end_local" >= ${from} and "start_local" < ${lookbackStart(from)}${until}${fence})`;
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

function listQuery(db: Executor, dialect: DialectName, f: EventListFilter, part?: OverlapPart, search: SearchMode = 'scan'): EventQuery {
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
  for (const raw of f.searchWords ?? []) {
    if (raw.startsWith('-') && raw.length > 1) {
      const like = likeAny(dialect, raw.slice(1));
      q = q.where((eb) => eb.not(like(eb)));
    } else if (!indexed.includes(raw)) q = q.where(likeAny(dialect, raw));
  }
  // Term filters are correlated EXISTS (a primary-key probe per candidate row) rather than
  // `id IN (subquery)`, which SQLite materializes in full (every event of a popular category).
  // Lists (a category's descendants too) are bound as one value when long (lists.ts, issue 24).
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

/** Event records for these ids, in this order (ids without a record are left out). */
export async function findEventsInOrder(db: Executor, ids: number[]): Promise<EventRecord[]> {
  const byId = new Map((await findEventsByIds(db, ids)).map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id)).filter((r): r is EventRecord => r !== undefined);
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
