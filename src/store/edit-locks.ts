/**
 * The editor's post locks (migration 024, `edit_locks`): who has an event open in the admin app's
 * editor, one row per event and user, until `expires_ms`; and who changed an event last
 * (`events.modified_by`, its author when no signed-in user updated it). Plain statements, outside
 * the change log: a lock is presence, not content (no ETag, sync token or webhook moves with it).
 *
 * @example
 *   await takeEditLock(db, 42, 7, { nowMs: Date.now(), ttlMs: 150_000, startedGmt: '2026-11-29 02:00:00' });
 *   await activeEditLocks(db, 42, Date.now()); // [{ user_id: 7, name: 'Edna', started_gmt, expires_ms }]
 */
import type { Executor, Scoped } from './schema.js';

export interface EditLocksTable {
  post_id: number;
  user_id: number;
  started_gmt: string;
  expires_ms: number | string;
}

export interface EditLockRow {
  user_id: number;
  name: string;
  started_gmt: string;
  expires_ms: number;
}

const tables = (db: Executor) => db.withTables<{ edit_locks: Scoped<EditLocksTable> }>();

/**
 * Take or refresh the user's lock on the event (until `nowMs + ttlMs`); a refresh keeps its start.
 * Expired locks of the event go in the same step.
 */
export async function takeEditLock(db: Executor, postId: number, userId: number, at: { nowMs: number; ttlMs: number; startedGmt: string }): Promise<void> {
  const t = tables(db);
  await t.deleteFrom('edit_locks').where('post_id', '=', postId).where('expires_ms', '<=', at.nowMs).execute();
  await t
    .insertInto('edit_locks')
    .values({ post_id: postId, user_id: userId, started_gmt: at.startedGmt, expires_ms: at.nowMs + at.ttlMs })
    .onConflict((oc) => oc.columns(['calendar_id', 'post_id', 'user_id']).doUpdateSet({ expires_ms: at.nowMs + at.ttlMs }))
    .execute();
}

/** Release the user's lock on the event (answers whether there was one). */
export async function releaseEditLock(db: Executor, postId: number, userId: number): Promise<boolean> {
  const r = await tables(db).deleteFrom('edit_locks').where('post_id', '=', postId).where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The unexpired locks of the event, oldest first, with the users' display names. */
export async function activeEditLocks(db: Executor, postId: number, nowMs: number): Promise<EditLockRow[]> {
  const rows = await tables(db)
    .selectFrom('edit_locks as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select(['l.user_id', 'u.display_name', 'u.login', 'l.started_gmt', 'l.expires_ms'])
    .where('l.post_id', '=', postId)
    .where('l.expires_ms', '>', nowMs)
    .orderBy('l.started_gmt')
    .orderBy('l.user_id')
    .execute();
  return rows.map((r) => ({ user_id: Number(r.user_id), name: r.display_name || r.login, started_gmt: r.started_gmt, expires_ms: Number(r.expires_ms) }));
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
