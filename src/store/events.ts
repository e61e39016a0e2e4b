/**
 * Event records and their writes: the rows joined with their post, a new event written in as few
 * statements as the store allows, its details, and its links to organizers and terms. The lists'
 * queries are `event-list-query.ts`; their pages and totals `event-pages.ts`.
 *
 * @example
 *   const [record] = await findEventsByIds(db, [42]);
 */
import { byChunks, chunksOf, ID_CHUNK, rowsPerStatement } from './lists.js';
import { directOf } from './sqlite-direct.js';
import { PostgresAdapter, sql } from 'kysely';
import type { EventsTable, Executor, NewPost, PostRow, EventRow, StoredPostType } from './schema.js';
import type { Insertable, Updateable } from 'kysely';
import { addTermCounts, isCreatedHere, isStatementWrite, noteChange, noteEventBefore, noteLinksWritten, recordTypeOfPost, statementLog } from './change-notes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { calendarCondition, calendarFilter, calendarIdNow } from './calendar-scope.js';

/** A post row with its event fields (who changed it last is read apart, `edit-locks.ts`). */
export type EventRecord = PostRow & Omit<EventRow, 'post_id' | 'modified_by'>;

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
    return direct.all<EventRecord>(
      `select ${EVENT_SELECT_TEXT} from "posts" inner join "events" on "events"."post_id" = "posts"."id" where "posts"."id" in (${ids.map(() => '?').join(', ')})${calendarCondition('posts').text}`,
      [...ids, ...calendarCondition('posts').params],
    );
  const r =
    await sql<EventRecord>`select ${EVENT_SELECT} from "posts" inner join "events" on "events"."post_id" = "posts"."id" where "posts"."id" in (${sql.join(ids)})${calendarFilter('posts')}`.execute(db);
  return r.rows;
}

/**
 * A new event: its post, its events row and its organizer and term links (none of them there
 * yet), written as few statements as the store allows, and the record as stored, built from what
 * was written instead of read back (an event create is about a dozen statements fewer).
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
    ? sql`select not exists (select 1 from "posts" where "slug" = ${post.slug} and "type" = any(${[...statement.slugSpace.types]}::text[])${calendarFilter('posts')}) as "ok"`
    : sql`select true as "ok"`;
  const log = statement
    ? statementLog(db, { type: recordTypeOfPost(post.type), action: 'create' }, { after: '"t"', onlyIf: 'exists (select 1 from "p")', counts: statement.counted ? terms : [] })
    : { ctes: sql``, counts: sql`null`, done: sql`null` };
  // Written as text: each row names the calendar of the work at hand itself (calendar-scope.ts).
  const calendar = calendarIdNow();
  const r = await sql<{ id: number | string | null; counts: Array<[number, number]> | null }>`with "free" as (${free}),
    "p" as (insert into "posts" ("calendar_id", ${list(postColumns)}) select ${calendar}, ${values(post, postColumns)} from "free" where "free"."ok" returning "id"),
    "e" as (insert into "events" ("calendar_id", "post_id", ${list(detailColumns)}) select ${calendar}, "p"."id", ${values(details, detailColumns)} from "p" returning "post_id"),
    "o" as (insert into "event_organizers" ("calendar_id", "event_id", "organizer_id", "position")
      select ${calendar}, "p"."id", x."organizer_id", (x."n" - 1)::int from "p", unnest(${organizers}::int[]) with ordinality as x("organizer_id", "n")
      where (select count(*) from "e") >= 0 returning "event_id"),
    "t" as (insert into "event_terms" ("calendar_id", "event_id", "term_id") select ${calendar}, "p"."id", x."term_id" from "p", unnest(${terms}::int[]) as x("term_id")
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
    // In chunks (never more bound values than a statement takes), then in the order one statement gives.
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
/** Event records for these ids, in this order (ids without a record are left out). */
export async function findEventsInOrder(db: Executor, ids: number[]): Promise<EventRecord[]> {
  const byId = new Map((await findEventsByIds(db, ids)).map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id)).filter((r): r is EventRecord => r !== undefined);
}
