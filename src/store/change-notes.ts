/**
 * Writing the change log (migration 005): the store's write functions note which records they
 * touch on the transaction they run in; at the transaction's end (`writeTransaction`,
 * `changes.ts`) `flushChanges` appends those notes to `changes` as its last statements, under one
 * sequence number taken from `change_counter`, with the term counts the transaction moved.
 *
 * Noting happens in the store, next to each write, so no write path can forget it. For events, the
 * first note of a transaction also keeps the event's listing fields as they were before (status,
 * dates, flags, venue, terms, organizers): readers that keep list totals adjust them from the
 * before and after states instead of counting again (`change-feed.ts`).
 *
 * @example
 *   await writeTransaction(db, async (trx) => {
 *     await updatePost(trx, 42, { title: 'New' }); // notes ('event', 42, 'update') with its before state
 *   });
 */
import { PostgresAdapter, sql, type RawBuilder } from 'kysely';
import type { Executor } from './schema.js';
import { directOf } from './sqlite-direct.js';
import { chunksOf } from './lists.js';
import { readListingStates, type ChangeAction, type EventChangeDetail, type RecordChangeDetail, type RecordType } from './listing-states.js';
import { calendarCondition, calendarFilter, calendarIdNow, inCalendar, isAcrossCalendars } from './calendar-scope.js';

interface Pending {
  type: RecordType;
  id: number;
  action: ChangeAction;
  detail?: EventChangeDetail | RecordChangeDetail;
  /** a term noted by `addTermCounts` only: its log row says the count's net move (`detail.count`) */
  countOnly?: boolean;
  /** links (organizers, terms) were written for this record in this transaction (`noteLinksWritten`) */
  linked?: boolean;
}

const pendingByTrx = new WeakMap<object, Map<string, Pending>>();
/** Term count changes of a transaction, by term id, applied with its notes (see `addTermCounts`). */
const countsByTrx = new WeakMap<object, Map<number, number>>();

/**
 * Add `delta` to the `count` of these terms. Inside a transaction the change waits for the
 * transaction's last statements (`flushChanges`): popular terms' rows are locked by every write
 * that links to them, and on PostgreSQL a row lock is held until the commit, so they are taken as
 * late as possible (in one statement with the change log's counter). The transaction's own reads
 * of these counts, if any, would see them unchanged until then (no write reads them back).
 */
export async function addTermCounts(db: Executor, termIds: number[], delta: number): Promise<void> {
  const ids = [...new Set(termIds)];
  if (ids.length === 0 || delta === 0) return;
  const pending = pendingOf(db);
  if (!pending) {
    await applyTermCounts(db, new Map(ids.map((id) => [id, delta])));
    await appendChanges(
      db,
      ids.map((id) => ({ type: 'term', id, action: 'update', detail: { count: delta } })),
    );
    return;
  }
  // A term noted for its count only; any other note of it in this transaction makes it a change.
  for (const id of ids) if (!pending.has(`term:${id}`)) pending.set(`term:${id}`, { type: 'term', id, action: 'update', countOnly: true });
  let counts = countsByTrx.get(db);
  if (!counts) countsByTrx.set(db, (counts = new Map()));
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + delta);
}

/** Terms whose counts a transaction recounts at its end (PostgreSQL, `noteTermRecount`). */
const recountsByTrx = new WeakMap<object, Set<number>>();

/**
 * These terms' counts are set from the published events linked to them (`recountTerms`): their
 * pending moves (`addTermCounts`) are dropped, since a count made from the links includes this
 * transaction's own. Answers whether the count is deferred: on PostgreSQL inside a transaction it
 * is made by `flushChanges`, after locking the terms (a count read before the lock
 * missed a concurrent write's link or status change that committed before this write set the
 * count, and set it wrong by one); elsewhere (SQLite runs one writer at a time; outside a
 * transaction) the caller counts now.
 */
export function noteTermRecount(db: Executor, termIds: readonly number[]): boolean {
  const pending = pendingOf(db);
  if (!pending) return false;
  const counts = countsByTrx.get(db);
  if (counts) for (const id of termIds) counts.delete(id);
  if (!isPostgres(db) || statementWrites.has(db)) return false;
  let recounts = recountsByTrx.get(db);
  if (!recounts) recountsByTrx.set(db, (recounts = new Set()));
  for (const id of termIds) recounts.add(id);
  return true;
}

/**
 * PostgreSQL, at a transaction's end: lock the terms it moves or recounts, in id order (as every
 * writer takes them), then set the recounted ones from their links in a statement of its own,
 * whose snapshot (READ COMMITTED) sees every write that held those rows before: a concurrent
 * writer that changed links or statuses but has not moved its counts yet will do so after this
 * commit, from the counts this one leaves.
 */
async function recountLocked(trx: Executor, recounts: ReadonlySet<number>, counts: Map<number, number> | undefined): Promise<void> {
  const recounted = [...recounts].sort((a, b) => a - b);
  for (const id of recounted) counts?.delete(id);
  const locked = [...new Set([...recounted, ...(counts?.keys() ?? [])])].sort((a, b) => a - b);
  await sql`select "id" from "terms" where "id" = any(${locked}::int[])${calendarFilter('terms')} order by "id" for no key update`.execute(trx);
  // What counts: published `tribe_events` posts (a recurring event's series is not counted; its occurrences are), as `recountTerms`.
  await sql`update "terms" set "count" = (select count(*) from "event_terms" et inner join "posts" p on p."id" = et."event_id"
    where et."term_id" = "terms"."id" and p."status" = 'publish' and p."type" = 'tribe_events' and et."calendar_id" = "terms"."calendar_id" and p."calendar_id" = "terms"."calendar_id") where "id" = any(${recounted}::int[])${calendarFilter('terms')}`.execute(
    trx,
  );
}

/** Term ids grouped by the delta they get, in id order (every writer locks them in the same order). */
function byDelta(counts: Map<number, number>): Array<[number, number[]]> {
  const groups = new Map<number, number[]>();
  for (const [id, delta] of [...counts].sort((a, b) => a[0] - b[0])) {
    if (delta === 0) continue;
    let ids = groups.get(delta);
    if (!ids) groups.set(delta, (ids = []));
    ids.push(id);
  }
  return [...groups];
}

async function applyTermCounts(db: Executor, counts: Map<number, number>): Promise<void> {
  const direct = directOf(db);
  for (const [delta, all] of byDelta(counts)) {
    // In chunks: never more bound values than a statement takes (lists.ts).
    for (const ids of chunksOf(all)) {
      if (direct) {
        direct.run(`update "terms" set "count" = "count" + ? where "id" in (${ids.map(() => '?').join(', ')})${calendarCondition('terms').text}`, [
          delta,
          ...ids,
          ...calendarCondition('terms').params,
        ]);
        continue;
      }
      await db
        .updateTable('terms')
        .set((eb) => ({ count: eb('count', '+', delta) }))
        .where('id', 'in', ids)
        .execute();
    }
  }
}

/** Whether a handle or transaction runs on PostgreSQL. */
export const isPostgres = (db: Executor) => db.getExecutor().adapter instanceof PostgresAdapter;

const POST_TYPES: Record<string, RecordType> = { tribe_events: 'event', tribe_venue: 'venue', tribe_organizer: 'organizer' };

/** The record type of a post type. */
export function recordTypeOfPost(postType: string): RecordType {
  return POST_TYPES[postType] ?? 'event';
}

const RANK: Record<ChangeAction, number> = { update: 0, create: 1, trash: 2, delete: 3, reset: 4 };

function pendingOf(db: Executor): Map<string, Pending> | undefined {
  if (!db.isTransaction && !statementWrites.has(db)) return undefined;
  let pending = pendingByTrx.get(db);
  if (!pending) pendingByTrx.set(db, (pending = new Map()));
  return pending;
}

/**
 * Note that a write touched a record. Outside a transaction the note is written at once (its own
 * sequence number); inside one it waits for `flushChanges`.
 */
export async function noteChange(db: Executor, type: RecordType, id: number, action: ChangeAction, detail?: EventChangeDetail | RecordChangeDetail): Promise<void> {
  const pending = pendingOf(db);
  if (!pending) {
    await appendChanges(db, [{ type, id, action, ...(detail ? { detail } : {}) }]);
    return;
  }
  const key = `${type}:${id}`;
  const known = pending.get(key);
  if (known?.countOnly) known.countOnly = false;
  if (!known) pending.set(key, { type, id, action, ...(detail ? { detail } : {}) });
  // Venues, organizers, terms: a later note may bring the detail a first one lacked.
  else if (!known.detail && detail && type !== 'event') known.detail = detail;
  // A record created in this transaction stays a create (unless deleted again); otherwise the
  // strongest action wins (update < trash < delete).
  else if (known.action === 'create' ? action === 'delete' : RANK[action] > RANK[known.action]) known.action = action;
}

/** Note several records of one type at once (no before states: list readers recount). */
export async function noteChanges(db: Executor, type: RecordType, ids: Iterable<number>, action: ChangeAction): Promise<void> {
  for (const id of new Set(ids)) await noteChange(db, type, id, action);
}

/**
 * Before an event's listing fields, links or text change: note the change, keeping its state before
 * the write when this is the transaction's first note of it. `text` says the write changes its text.
 */
export async function noteEventBefore(db: Executor, id: number, text = false, action: ChangeAction = 'update'): Promise<void> {
  const pending = pendingOf(db);
  const known = pending?.get(`event:${id}`);
  if (known) {
    if (text && known.detail) (known.detail as EventChangeDetail).text = true;
    await noteChange(db, 'event', id, action);
    return;
  }
  const [before] = await readListingStates(db, [id]);
  await noteChange(db, 'event', id, action, { before: before ?? null, text });
}

/**
 * Before a post changes (any type): events keep their before state (see `noteEventBefore`); venues
 * and organizers are noted by type.
 */
export async function notePostBefore(db: Executor, id: number, text: boolean, action: ChangeAction = 'update'): Promise<void> {
  const pending = pendingOf(db);
  if (pending) {
    for (const type of ['event', 'venue', 'organizer'] as const) {
      const known = pending.get(`${type}:${id}`);
      if (known) {
        if (type === 'event' && text && known.detail) (known.detail as EventChangeDetail).text = true;
        if (type !== 'event' && !known.detail && known.action !== 'create') {
          const row = await db.selectFrom('posts').select(['status', 'author_id']).where('id', '=', id).executeTakeFirst();
          if (row) known.detail = { before: { status: row.status, author_id: Number(row.author_id) } };
        }
        await noteChange(db, type, id, action);
        return;
      }
    }
  }
  const row = await db.selectFrom('posts').select(['type', 'status', 'author_id']).where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const type = recordTypeOfPost(row.type);
  if (type === 'event') await noteEventBefore(db, id, text, action);
  else await noteChange(db, type, id, action, { before: { status: row.status, author_id: Number(row.author_id) } });
}

/**
 * Whether this record was created in this transaction and has no links yet (nothing to replace or
 * read back). A write that copies links into a record it just created (a series split) notes them
 * with `noteLinksWritten`, so that a later write in the same transaction replaces them.
 */
export function isCreatedHere(db: Executor, type: RecordType, id: number): boolean {
  const pending = pendingByTrx.get(db)?.get(`${type}:${id}`);
  return pending?.action === 'create' && pending.linked !== true;
}

/** Links of a record were written in this transaction: it is no longer one without links (`isCreatedHere`). */
export function noteLinksWritten(db: Executor, type: RecordType, id: number): void {
  const pending = pendingByTrx.get(db)?.get(`${type}:${id}`);
  if (pending) pending.linked = true;
}

function nowGmt(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

/** Take the next sequence number and write these notes under it. Returns the number. */
async function appendChanges(db: Executor, notes: Pending[]): Promise<number> {
  const direct = directOf(db);
  const counter = `update "change_counter" set "value" = "value" + 1 where "id" = 1 returning "value"`;
  const seq = Number(direct ? direct.get<{ value: number }>(counter, [])!.value : (await sql<{ value: number | string }>`${sql.raw(counter)}`.execute(db)).rows[0]!.value);
  const created = nowGmt();
  for (let i = 0; i < notes.length; i += 200) {
    const rows = notes.slice(i, i + 200).map((n, j) => ({
      seq,
      idx: i + j,
      record_type: n.type,
      record_id: n.id,
      action: n.action,
      detail: n.detail ? JSON.stringify(n.detail) : null,
      created_gmt: created,
    }));
    if (direct) {
      direct.insertMany('changes', rows);
      continue;
    }
    await db.insertInto('changes').values(rows).execute();
  }
  return seq;
}

/**
 * Write the notes of a transaction to the log, with its term count changes (its last statements).
 * Nothing noted: nothing written. On PostgreSQL this is one statement, so that the rows every
 * writer updates (the log's counter, popular terms) stay locked only for it and the commit.
 */
export async function flushChanges(trx: Executor): Promise<number | undefined> {
  const pending = pendingByTrx.get(trx);
  const counts = countsByTrx.get(trx);
  const recounts = recountsByTrx.get(trx);
  pendingByTrx.delete(trx);
  countsByTrx.delete(trx);
  recountsByTrx.delete(trx);
  if (recounts?.size) await recountLocked(trx, recounts, counts);
  if (!pending || pending.size === 0) {
    if (counts) await applyTermCounts(trx, counts);
    return undefined;
  }
  // A term whose count alone moved says by how much (net of this transaction's links and unlinks).
  const notes = [...pending.values()].map((n): Pending => (n.countOnly ? { type: n.type, id: n.id, action: n.action, detail: { count: counts?.get(n.id) ?? 0 } } : n));
  if (isPostgres(trx)) return appendChangesPostgres(trx, notes, counts ? byDelta(counts) : []);
  if (counts) await applyTermCounts(trx, counts);
  return appendChanges(trx, notes);
}

/**
 * CTEs (each `, "name" as (…)`) that move term counts on PostgreSQL, for statements that then take
 * the log's counter: one update per term, in id order, each waiting for the one before, so every
 * writer locks the terms it moves in the same order (and then the counter). One update of several
 * rows (`where id = any(…)`) locks them in the order its scan meets them, which concurrent
 * statements need not share once rows have moved: two writers moving two popular terms then
 * deadlock. The first waits for the CTE `after` (when given), each runs only when `onlyIf` holds;
 * `last` names the CTE the counter's update must wait for.
 */
function termCountCtes(groups: Array<[number, number[]]>, after: string | undefined, onlyIf?: string): { ctes: RawBuilder<unknown>; last: string | undefined; names: string[] } {
  const deltas = new Map<number, number>();
  for (const [delta, ids] of groups) for (const id of ids) deltas.set(id, (deltas.get(id) ?? 0) + delta);
  const ids = [...deltas.keys()].sort((a, b) => a - b);
  const names = ids.map((_, i) => `"tc${i}"`);
  const parts = ids.map((id, i) => {
    const before = i > 0 ? names[i - 1] : after;
    const conditions = `${before ? ` and (select count(*) from ${before}) >= 0` : ''}${onlyIf ? ` and ${onlyIf}` : ''}`;
    return sql`, ${sql.raw(names[i]!)} as (update "terms" set "count" = "count" + ${deltas.get(id)} where "id" = ${id}${calendarFilter('terms')}${sql.raw(conditions)} returning "id", "count")`;
  });
  return { ctes: sql.join(parts, sql``), last: names.length ? names[names.length - 1] : after, names };
}

/** PostgreSQL: term counts, the counter and every note in one statement; returns the sequence number. */
async function appendChangesPostgres(db: Executor, notes: Pending[], counts: Array<[number, number[]]>): Promise<number> {
  // Term rows first (in id order), then the counter: every writer takes them in this order.
  const terms = termCountCtes(counts, undefined);
  const r = await sql<{
    seq: number | string;
  }>`with "start" as (select 1)${terms.ctes}, c as (update "change_counter" set "value" = "value" + 1 where "id" = 1${terms.last ? sql.raw(` and (select count(*) from ${terms.last}) >= 0`) : sql``} returning "value")
    insert into "changes" ("seq", "idx", "record_type", "record_id", "action", "detail", "created_gmt", "calendar_id")
    select c."value", v."idx", v."record_type", v."record_id", v."action", v."detail", ${nowGmt()}, ${calendarIdNow()}
    from c, unnest(${notes.map((_, i) => i)}::int[], ${notes.map((n) => n.type)}::text[], ${notes.map((n) => n.id)}::int[], ${notes.map((n) => n.action)}::text[], ${notes.map((n) => (n.detail ? JSON.stringify(n.detail) : null))}::text[])
      as v("idx", "record_type", "record_id", "action", "detail")
    returning "seq"`.execute(db);
  return Number(r.rows[0]!.seq);
}

/** Handles of PostgreSQL writes made of one statement (`writeStatement`). */
const statementWrites = new WeakSet<object>();

/** Whether `db` is the handle of a one-statement write (`writeStatement`): its last store write must write the log too. */
export function isStatementWrite(db: Executor): boolean {
  return statementWrites.has(db);
}

/**
 * The change log's part of a one-statement write (PostgreSQL, `writeStatement`), to end a
 * statement whose CTE `"p"` inserts the record noted here (its id comes from `"p"`): CTEs that move
 * the counts of `counts`' terms (+1 each), take the next sequence number and insert the notes (the
 * new record first, then the terms, whose rows state their count's move), in that order, after the
 * CTE `after` and only when `onlyIf` holds (each depends on the one before, so the rows every
 * writer locks, the terms and then the counter as `flushChanges` takes them, are locked last and
 * held only for the rest of the statement and its commit). The statement must select `counts` (the
 * terms' counts as it left them) and `done` (which runs the log's insert). Nothing may have been
 * noted on the handle before (it would have been written by a statement of its own, not
 * atomically with this one): otherwise it throws.
 */
export function statementLog(
  db: Executor,
  created: { type: RecordType; action: ChangeAction },
  options: { after: string; onlyIf: string; counts: readonly number[] },
): { ctes: RawBuilder<unknown>; counts: RawBuilder<unknown>; done: RawBuilder<unknown> } {
  if (pendingByTrx.get(db)?.size || countsByTrx.get(db)?.size) throw new Error('a one-statement write wrote something before its statement');
  const termIds = [...new Set(options.counts)].sort((a, b) => a - b);
  const groups: Array<[number, number[]]> = termIds.length ? [[1, termIds]] : [];
  const rows = [
    { type: created.type, id: null as number | null, action: created.action, detail: null as string | null },
    ...termIds.map((id) => ({ type: 'term' as RecordType, id, action: 'update' as ChangeAction, detail: JSON.stringify({ count: 1 }) })),
  ];
  const terms = termCountCtes(groups, options.after, options.onlyIf);
  const afterTerms = sql.raw(` and (select count(*) from ${terms.last}) >= 0 and ${options.onlyIf}`);
  // The terms' counts as this write left them (the answer shows them without reading them again).
  const countsLeft = terms.names.length
    ? sql.raw(`(select json_agg(json_build_array(x."id", x."count")) from (${terms.names.map((n) => `select "id", "count" from ${n}`).join(' union all ')}) x)`)
    : sql.raw(`null`);
  const ctes = sql`${terms.ctes}, "c" as (update "change_counter" set "value" = "value" + 1 where "id" = 1${afterTerms} returning "value"),
    "l" as (insert into "changes" ("seq", "idx", "record_type", "record_id", "action", "detail", "created_gmt", "calendar_id")
      select c."value", v."idx", v."record_type", coalesce(v."record_id", (select "id" from "p")), v."action", v."detail", ${nowGmt()}, ${calendarIdNow()}
      from "c" c, unnest(${rows.map((_, i) => i)}::int[], ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.id)}::int[], ${rows.map((r) => r.action)}::text[], ${rows.map((r) => r.detail)}::text[])
        as v("idx", "record_type", "record_id", "action", "detail") returning 1)`;
  return { ctes, counts: countsLeft, done: sql.raw(`(select count(*) from "l")`) };
}

/**
 * Make `w` the handle of a one-statement write (`writeStatement`): its notes wait for the
 * statement that writes them (`statementLog`) instead of being written at once.
 */
export function beginStatementWrite(w: Executor): void {
  statementWrites.add(w);
}

/** Whether notes on this handle wait to be written (a write that must end with the statement writing them). */
export function hasPendingNotes(db: Executor): boolean {
  return (pendingByTrx.get(db)?.size ?? 0) > 0;
}

/**
 * Inside the transaction `db`, run `fn` as work of calendar `id` (an account's records in each
 * calendar, say): what it notes is written to that calendar's log when it ends, under a sequence
 * number of its own, since a log row belongs to the calendar it is written in. What the
 * transaction noted before stays pending for its own end, in its own calendar; in that calendar
 * `fn` simply runs (its notes join the transaction's).
 */
export async function inCalendarNoted<T>(db: Executor, id: number, fn: () => Promise<T>): Promise<T> {
  if (id === calendarIdNow() && !isAcrossCalendars()) return fn();
  const pending = pendingByTrx.get(db);
  const counts = countsByTrx.get(db);
  const recounts = recountsByTrx.get(db);
  dropNotes(db);
  recountsByTrx.delete(db);
  try {
    return await inCalendar(id, async () => {
      const out = await fn();
      await flushChanges(db);
      return out;
    });
  } finally {
    // Anything `fn` left (it failed: the transaction rolls back) is not the caller's.
    dropNotes(db);
    recountsByTrx.delete(db);
    if (pending) pendingByTrx.set(db, pending);
    if (counts) countsByTrx.set(db, counts);
    if (recounts) recountsByTrx.set(db, recounts);
  }
}

/** Forget the notes and term count moves of a handle whose write failed or is over (nothing of them is written). */
export function dropNotes(db: Executor): void {
  pendingByTrx.delete(db);
  countsByTrx.delete(db);
}
