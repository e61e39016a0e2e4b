/**
 * The editor's post locks (migrations 024 and 038, `edit_locks`): who has an event open in the admin
 * app's editor, one row per event, user and holder (an editor page's token, so that a page
 * releases its own lock and no other; '' for callers without one), until `expires_ms`; and who
 * changed an event last
 * (`events.modified_by`, its author when no signed-in user updated it). Plain statements, outside
 * the change log: a lock is presence, not content (no ETag, sync token or webhook moves with it).
 *
 * @example
 *   await takeEditLock(db, 42, 7, { nowMs: Date.now(), ttlMs: 150_000, startedGmt: '2026-11-29 02:00:00' }, 'page-3f2a');
 *   await activeEditLocks(db, 42, Date.now()); // [{ user_id: 7, name: 'Edna', started_gmt, expires_ms }]
 */
import type { Executor, Scoped } from './schema.js';

export interface EditLocksTable {
  post_id: number;
  user_id: number;
  started_gmt: string;
  expires_ms: number | string;
  holder: string;
}

export interface EditLockRow {
  user_id: number;
  name: string;
  started_gmt: string;
  expires_ms: number;
}

const tables = (db: Executor) => db.withTables<{ edit_locks: Scoped<EditLocksTable> }>();

/**
 * Take or refresh the holder's lock on the event for the user (until `nowMs + ttlMs`; no holder:
 * the one callers without one share); a refresh keeps its start. Expired locks of the event go in
 * the same step.
 */
export async function takeEditLock(db: Executor, postId: number, userId: number, at: { nowMs: number; ttlMs: number; startedGmt: string }, holder = ''): Promise<void> {
  const t = tables(db);
  await t.deleteFrom('edit_locks').where('post_id', '=', postId).where('expires_ms', '<=', at.nowMs).execute();
  await t
    .insertInto('edit_locks')
    .values({ post_id: postId, user_id: userId, holder, started_gmt: at.startedGmt, expires_ms: at.nowMs + at.ttlMs })
    .onConflict((oc) => oc.columns(['calendar_id', 'post_id', 'user_id', 'holder']).doUpdateSet({ expires_ms: at.nowMs + at.ttlMs }))
    .execute();
}

/**
 * Release the holder's lock on the event (without a holder: every lock of the user on it); answers
 * whether there was one.
 */
export async function releaseEditLock(db: Executor, postId: number, userId: number, holder?: string): Promise<boolean> {
  let q = tables(db).deleteFrom('edit_locks').where('post_id', '=', postId).where('user_id', '=', userId);
  if (holder !== undefined) q = q.where('holder', '=', holder);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * The users with an unexpired lock on the event, each once (since its oldest lock, until its
 * latest), first come first, with their display names.
 */
export async function activeEditLocks(db: Executor, postId: number, nowMs: number): Promise<EditLockRow[]> {
  const rows = await tables(db)
    .selectFrom('edit_locks as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select((eb) => ['l.user_id', 'u.display_name', 'u.login', eb.fn.min('l.started_gmt').as('started_gmt'), eb.fn.max('l.expires_ms').as('expires_ms')])
    .where('l.post_id', '=', postId)
    .where('l.expires_ms', '>', nowMs)
    .groupBy(['l.user_id', 'u.display_name', 'u.login'])
    .orderBy('started_gmt')
    .orderBy('l.user_id')
    .execute();
  return rows.map((r) => ({ user_id: Number(r.user_id), name: r.display_name || r.login, started_gmt: String(r.started_gmt), expires_ms: Number(r.expires_ms) }));
}

/** Who changed the event last (its author when no signed-in user has updated it), with their display name; undefined: no such event. */
export async function lastEditorOf(db: Executor, postId: number): Promise<{ user_id: number; name: string } | undefined> {
  const row = await db
    .selectFrom('posts as p')
    .innerJoin('events as e', 'e.post_id', 'p.id')
    .leftJoin('users as u', (j) => j.on((eb) => eb('u.id', '=', eb.fn.coalesce('e.modified_by', 'p.author_id'))))
    .select(['p.author_id', 'e.modified_by', 'u.display_name', 'u.login'])
    .where('p.id', '=', postId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { user_id: Number(row.modified_by ?? row.author_id), name: row.display_name || row.login || '' };
}
