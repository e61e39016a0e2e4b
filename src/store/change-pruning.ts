/**
 * Pruning the change log (the pruning job in `jobs/` drives it, across calendars: the log and its
 * numbers are the whole database's): rows older than their calendar's sync history that are not
 * their record's newest row in their calendar go, and `changes_pruned` records how far, per
 * calendar, so that sync tokens of that calendar from before it are refused.
 *
 * A calendar whose own history is longer than the installation's (its SYNC_HISTORY_DAYS) is
 * `exempt` from the installation's cut: its rows go at its own, earlier one.
 *
 * @example
 *   let at = 0;
 *   for (;;) { const b = await pruneChangesBatch(db, { after: at, upTo: head, beforeGmt, limit: 1000 }); at = b.next; if (b.done) break; }
 *   await prunedThrough(db) // in a calendar: 0 until the job deletes rows of it
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './schema.js';
import { chunksOf } from './lists.js';
import { calendarIdNow, isAcrossCalendars } from './calendar-scope.js';

/** Calendars whose history is longer than the installation's: calendar id → its own cut (`created_gmt` before it goes). */
export type ExemptCalendars = ReadonlyMap<number, string>;

/**
 * Calendars a durable reader of their own rows holds back (a webhook endpoint, an outbox): calendar
 * id → the highest sequence number of theirs that may go (their reader's position).
 */
export type HeldCalendars = ReadonlyMap<number, number>;

/**
 * How far the log rows of the calendar of the work at hand were pruned: the highest sequence
 * number deleted (0: none). The number servers of versions before migration 041 keep for the whole
 * log (`settings.changes_pruned_seq`) counts too: one still running while this one starts may prune.
 */
export async function prunedThrough(db: Executor): Promise<number> {
  // Across calendars there is no one answer (any calendar's row would come first).
  if (isAcrossCalendars()) throw new Error('prunedThrough is a calendar’s: read it in one');
  const r = await sql<{ seq: number | string | null }>`select max("s") as "seq" from (
      select "seq" as "s" from "changes_pruned" where "calendar_id" = ${calendarIdNow()}
      union all select cast("value" as bigint) from "settings" where "name" = 'changes_pruned_seq') "p"`.execute(db);
  return Number(r.rows[0]?.seq ?? 0);
}

/** Record, for each calendar, the highest sequence number deleted (never moves back: pruners may finish in any order). */
async function raisePrunedThrough(db: Executor, gone: Array<{ calendar_id: number | string; seq: number | string }>): Promise<void> {
  const highest = new Map<number, number>();
  for (const r of gone) highest.set(Number(r.calendar_id), Math.max(highest.get(Number(r.calendar_id)) ?? 0, Number(r.seq)));
  for (const chunk of chunksOf([...highest])) {
    await sql`insert into "changes_pruned" ("calendar_id", "seq") values ${sql.join(chunk.map(([calendar, seq]) => sql`(${calendar}, ${seq})`))}
      on conflict ("calendar_id") do update set "seq" = case when excluded."seq" > "changes_pruned"."seq" then excluded."seq" else "changes_pruned"."seq" end`.execute(db);
  }
}

/**
 * Delete the log rows matching `where` that have a newer row of their record in their calendar
 * (never a record's newest row, whoever else deletes meanwhile: a calendar's settings are record 0
 * of every calendar, each its own), raising each calendar's `changes_pruned` to the highest of its
 * rows deleted in the same transaction; returns how many went.
 */
async function deleteSuperseded(db: Executor, where: RawBuilder<unknown>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const gone = await sql<{ seq: number | string; calendar_id: number | string }>`delete from "changes" where ${where}
        and exists (select 1 from "changes" "n" where "n"."record_type" = "changes"."record_type" and "n"."record_id" = "changes"."record_id" and "n"."calendar_id" = "changes"."calendar_id" and "n"."seq" > "changes"."seq")
      returning "seq", "calendar_id"`.execute(trx);
    if (gone.rows.length) await raisePrunedThrough(trx, gone.rows);
    return gone.rows.length;
  });
}

/**
 * Pruning after a first pass (`pruneChangesBatch`): of the records logged in the rows after
 * `after` (at most `limit` rows, in order, up to `to`), delete their older rows at or below
 * `below` (and a `held` calendar's position) committed before their calendar's cut (`beforeGmt`, or
 * an exempt calendar's own): rows a pass kept as their record's newest, superseded since. `next`: the position to go on from;
 * `done`: no rows left up to `to`.
 *
 * @example await pruneSupersededBatch(db, { after: { seq: 5000, idx: -1 }, to: 5400, below: 4100, beforeGmt, limit: 1000 })
 */
export async function pruneSupersededBatch(
  db: Executor,
  options: { after: { seq: number; idx: number }; to: number; below: number; beforeGmt: string; exempt?: ExemptCalendars; held?: HeldCalendars; limit: number },
): Promise<{ next: { seq: number; idx: number }; deleted: number; done: boolean }> {
  const { after, to, below, beforeGmt, limit } = options;
  const rows = await db
    .selectFrom('changes')
    .select(['seq', 'idx', 'record_type', 'record_id', 'calendar_id'])
    .where((eb) => eb.or([eb('seq', '>', after.seq), eb.and([eb('seq', '=', after.seq), eb('idx', '>', after.idx)])]))
    .where('seq', '<=', to)
    .orderBy('seq')
    .orderBy('idx')
    .limit(limit)
    .execute();
  if (rows.length === 0) return { next: after, deleted: 0, done: true };
  const last = rows[rows.length - 1]!;
  const next = { seq: Number(last.seq), idx: Number(last.idx) };
  const byType = new Map<string, { type: string; calendar: number; ids: Set<number> }>();
  for (const r of rows) {
    const key = `${r.calendar_id}:${r.record_type}`;
    let group = byType.get(key);
    if (!group) byType.set(key, (group = { type: r.record_type, calendar: Number(r.calendar_id), ids: new Set() }));
    group.ids.add(Number(r.record_id));
  }
  let deleted = 0;
  for (const { type, calendar, ids } of byType.values()) {
    const cut = options.exempt?.get(calendar) ?? beforeGmt;
    const upTo = Math.min(below, options.held?.get(calendar) ?? below);
    for (const chunk of chunksOf([...ids])) {
      deleted += await deleteSuperseded(db, sql`"record_type" = ${type} and "calendar_id" = ${calendar} and "record_id" in (${sql.join(chunk)}) and "seq" <= ${upTo} and "created_gmt" < ${cut}`);
    }
  }
  return { next, deleted, done: rows.length < limit };
}

/** When the first change after `seq` was committed (undefined: none), of one calendar when given. */
export async function firstChangeTimeAfter(db: Executor, seq: number, calendar?: number): Promise<string | undefined> {
  let q = db.selectFrom('changes').select('created_gmt').where('seq', '>', seq);
  if (calendar !== undefined) q = q.where('calendar_id', '=', calendar);
  const r = await q.orderBy('seq').orderBy('idx').limit(1).executeTakeFirst();
  return r?.created_gmt;
}

/**
 * One batch of pruning: of the log rows after `after` (at most `limit`, in order, up to `upTo`),
 * deletes those committed before `beforeGmt` that are not the newest row of their record (a
 * record's version, its ETag and `Last-Modified`, is read from its newest row and the newest `all`
 * row: they stay). The rows of an `exempt` calendar go only when committed before its own cut, and
 * those of a `held` calendar only up to its reader's position: the pass goes past the others, and a
 * later pass from the start finds them. Records the highest
 * sequence number deleted of each calendar (`changes_pruned`) in the same transaction. `next`:
 * where the next batch starts; `done`: nothing older is left in range.
 *
 * @example
 *   let at = 0;
 *   for (;;) { const b = await pruneChangesBatch(db, { after: at, upTo: head, beforeGmt: '2026-10-27 00:00:00', limit: 1000 }); at = b.next; if (b.done) break; }
 */
export async function pruneChangesBatch(
  db: Executor,
  options: { after: number; upTo: number; beforeGmt: string; exempt?: ExemptCalendars; held?: HeldCalendars; limit: number },
): Promise<{ next: number; deleted: number; done: boolean }> {
  const { after, upTo, beforeGmt, limit } = options;
  if (upTo <= after) return { next: after, deleted: 0, done: true };
  const rows = await db.selectFrom('changes').select(['seq', 'created_gmt', 'calendar_id']).where('seq', '>', after).where('seq', '<=', upTo).orderBy('seq').orderBy('idx').limit(limit).execute();
  let old = 0;
  while (old < rows.length && rows[old]!.created_gmt < beforeGmt) old++;
  if (old === 0) return { next: after, deleted: 0, done: true };
  const end = Number(rows[old - 1]!.seq);
  const done = old < rows.length || rows.length < limit;
  // The exempt and held calendars among these rows: each at its own cut and up to its reader's
  // position, the others at the installation's cut.
  const special = new Set<number>();
  for (let i = 0; i < old; i++) {
    const calendar = Number(rows[i]!.calendar_id);
    if (options.exempt?.has(calendar) || options.held?.has(calendar)) special.add(calendar);
  }
  const range = sql`"seq" > ${after} and "seq" <= ${end}`;
  let deleted = await deleteSuperseded(
    db,
    special.size ? sql`${range} and "created_gmt" < ${beforeGmt} and "calendar_id" not in (${sql.join([...special])})` : sql`${range} and "created_gmt" < ${beforeGmt}`,
  );
  for (const calendar of special) {
    const cut = options.exempt?.get(calendar) ?? beforeGmt;
    const held = options.held?.get(calendar);
    if (held === undefined) deleted += await deleteSuperseded(db, sql`${range} and "calendar_id" = ${calendar} and "created_gmt" < ${cut}`);
    else if (held > after) deleted += await deleteSuperseded(db, sql`${range} and "calendar_id" = ${calendar} and "created_gmt" < ${cut} and "seq" <= ${held}`);
  }
  return { next: end, deleted, done };
}
