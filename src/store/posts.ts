/**
 * Queries on the shared `posts` table (the common part of events, venues and organizers).
 *
 * @example
 *   const id = await insertPost(db, { type: 'tribe_venue', status: 'publish', title: 'Hall', … });
 *   await isSlugTaken(db, 'tribe_venue', 'hall', id) // false
 */
import { revokePreviews } from './previews.js';
import { PostgresAdapter } from 'kysely';
import type { Executor, NewPost, PostRow, PostType, PostUpdate, StoredPostType } from './schema.js';
import { isRepeatedWrite } from './changes.js';
import { noteChange, notePostBefore, recordTypeOfPost } from './change-notes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { storedIds } from './ranges.js';
import { lockForWrite } from './locks.js';
import { directOf } from './sqlite-direct.js';
import { byChunks } from './lists.js';
import { calendarCondition } from './calendar-scope.js';

/** Insert a post row and return its id. */
export async function insertPost(db: Executor, post: NewPost): Promise<number> {
  // An import may ask for the id the record had at its source (import-context.ts).
  const wanted = await takeWantedId(db, 'post');
  const values = wanted === undefined ? post : { ...post, id: wanted };
  const direct = directOf(db);
  const id = direct ? direct.insert('posts', values, 'id') : Number((await db.insertInto('posts').values(values).returning('id').executeTakeFirstOrThrow()).id);
  if (wanted !== undefined) await afterExplicitId(db, 'post');
  await noteChange(db, recordTypeOfPost(post.type), id, 'create');
  return id;
}

/** Change some columns of a post. */
export async function updatePost(db: Executor, id: number, patch: PostUpdate): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  const text = patch.title !== undefined || patch.content !== undefined || patch.excerpt !== undefined;
  await notePostBefore(db, id, text, patch.status === 'trash' ? 'trash' : 'update');
  await db.updateTable('posts').set(patch).where('id', '=', id).execute();
  // Trashed: its signed preview links are void from now on (even after a restore).
  if (patch.status === 'trash') await revokePreviews(db, [id], Date.now());
}

/** The post with this id whatever its type, or undefined. */
export async function findPost(db: Executor, id: number): Promise<PostRow | undefined> {
  if (storedIds([id]).length === 0) return undefined;
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The type of the post with this id, or undefined. */
export async function postTypeOf(db: Executor, id: number): Promise<StoredPostType | undefined> {
  if (storedIds([id]).length === 0) return undefined;
  const row = await db.selectFrom('posts').select('type').where('id', '=', id).executeTakeFirst();
  return row?.type;
}

/** Id of the post of `type` with this slug (any status), or undefined. */
export async function findPostIdBySlug(db: Executor, type: StoredPostType, slug: string): Promise<number | undefined> {
  const row = await db.selectFrom('posts').select('id').where('type', '=', type).where('slug', '=', slug).orderBy('id').limit(1).executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/**
 * Whether another post of the type already uses the slug. Unique indexes guard each type's slugs
 * (migration 006) and the space events and series share (011): two concurrent writes that pick the
 * same slug meet them, and the loser runs again (`writeTransaction`). Run again, a write on
 * PostgreSQL locks the slug before looking (store/locks.ts), so creates of one title then number
 * their slugs one after the other instead of colliding again; a first attempt takes no lock (a
 * statement less per create).
 */
export async function isSlugTaken(db: Executor, type: StoredPostType | readonly StoredPostType[], slug: string, exceptId?: number): Promise<boolean> {
  // Events and recurring events' series share one slug space (by-slug routes find either): the
  // lock names the first type.
  const types = typeof type === 'string' ? [type] : type;
  if (db.isTransaction && isRepeatedWrite(db)) await lockForWrite(db, `slug:${types[0]}:${slug}`);
  const direct = directOf(db);
  if (direct) {
    const params: unknown[] = [slug, ...types];
    if (exceptId !== undefined) params.push(exceptId);
    const calendar = calendarCondition('posts');
    params.push(...calendar.params);
    const text = `select "id" from "posts" where "slug" = ? and "type" in (${types.map(() => '?').join(', ')})${exceptId !== undefined ? ' and "id" != ?' : ''}${calendar.text} limit 1`;
    return direct.get(text, params) !== undefined;
  }
  let q = db.selectFrom('posts').select('id').where('slug', '=', slug);
  q = types.length === 1 ? q.where('type', '=', types[0]!) : q.where('type', 'in', [...types]);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Ids of the posts of `type` whose title equals `title` case-insensitively, not trashed. */
export async function findPostIdsByTitle(db: Executor, type: PostType, title: string): Promise<PostRow[]> {
  return (
    db
      .selectFrom('posts')
      .selectAll()
      .where('type', '=', type)
      .where('status', 'not in', ['trash', 'auto-draft'])
      // SQLite's lower() folds ASCII letters only: its connections have fold_case (db.ts), which
      // folds like JavaScript and PostgreSQL's lower() under a UTF-8 locale (É = é).
      .where((eb) => {
        const fold = db.getExecutor().adapter instanceof PostgresAdapter ? 'lower' : 'fold_case';
        return eb(eb.fn(fold, ['title']), '=', eb.fn(fold, [eb.val(title)]));
      })
      .orderBy('id')
      .execute()
  );
}

/** Which of these ids are stored posts (of any type or status). */
export async function existingPostIds(db: Executor, ids: readonly number[]): Promise<Set<number>> {
  const wanted = storedIds([...ids]);
  const rows = await byChunks(wanted, (chunk) => db.selectFrom('posts').select('id').where('id', 'in', chunk).execute());
  return new Set(rows.map((r) => Number(r.id)));
}
