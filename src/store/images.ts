/**
 * Image records: a featured image is an id of a known image, or a URL that creates a record
 * pointing at it (COMPAT decision 9; nothing is downloaded).
 *
 * @example
 *   const id = await insertImage(db, { url: 'https://x/y.png', extension: 'png', mime_type: 'image/png', width: null, height: null, author_id: 1, created_gmt: '…' });
 */
import { byChunks } from './lists.js';
import { sql, type Insertable } from 'kysely';
import type { Executor, ImageRow, ImagesTable } from './schema.js';
import { noteChange, notePostBefore } from './change-notes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { storedIds } from './ranges.js';
import { acrossCalendars, inCalendar } from './calendar-scope.js';

export async function findImagesByIds(db: Executor, ids: number[]): Promise<ImageRow[]> {
  ids = storedIds(ids);
  if (ids.length === 0) return [];
  return byChunks(ids, (chunk) => db.selectFrom('images').selectAll().where('id', 'in', chunk).execute());
}

export async function findImageByUrl(db: Executor, url: string): Promise<ImageRow | undefined> {
  return db.selectFrom('images').selectAll().where('url', '=', url).orderBy('id').limit(1).executeTakeFirst();
}

export async function insertImage(db: Executor, image: Insertable<ImagesTable>): Promise<number> {
  const wanted = await takeWantedId(db, 'image');
  const row = await db
    .insertInto('images')
    .values(wanted === undefined ? image : { ...image, id: wanted })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (wanted !== undefined) await afterExplicitId(db, 'image');
  await noteChange(db, 'image', Number(row.id), 'create');
  return Number(row.id);
}

/**
 * Whether any calendar has an image with these files. Files are kept by the hash of their bytes,
 * so the same bytes uploaded in two calendars share them: they may go only when no calendar's
 * image is left on them. Across calendars, through `images_storage_key`.
 */
export async function storageKeyUsedInAnyCalendar(db: Executor, key: string): Promise<boolean> {
  const row = await acrossCalendars(() => db.selectFrom('images').select('id').where('storage_key', '=', key).limit(1).executeTakeFirst());
  return row !== undefined;
}

/** Which of these storage keys an image of any calendar has (one statement; across calendars, as above). */
export async function storageKeysUsedInAnyCalendar(db: Executor, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await acrossCalendars(() =>
    db
      .selectFrom('images')
      .select('storage_key')
      .distinct()
      .where('storage_key', 'in', [...keys])
      .execute(),
  );
  return new Set(rows.map((r) => r.storage_key));
}

/** The storage keys of the newest uploaded images of every calendar (at most `limit` images; a look across calendars). */
export async function newestStorageKeys(db: Executor, limit: number): Promise<string[]> {
  const rows = await acrossCalendars(() => db.selectFrom('images').select('storage_key').where('storage_key', '<>', '').orderBy('id', 'desc').limit(limit).execute());
  return [...new Set(rows.map((r) => r.storage_key))];
}

/** Whether the calendar of the work at hand has an uploaded image with these files (`images_calendar_storage_key`). */
export async function calendarHoldsStorageKey(db: Executor, key: string): Promise<boolean> {
  if (key === '') return false;
  const row = await db.selectFrom('images').select('id').where('storage_key', '=', key).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The uploaded images of a calendar, one per storage key: what its files are, read before the calendar is deleted. */
export async function findUploadsOfCalendar(db: Executor, calendarId: number): Promise<Array<Pick<ImageRow, 'storage_key' | 'extension' | 'sizes'>>> {
  const rows = await inCalendar(calendarId, () => db.selectFrom('images').select(['storage_key', 'extension', 'sizes']).where('storage_key', '<>', '').orderBy('id').execute());
  return [...new Map(rows.map((r) => [r.storage_key, r])).values()];
}

/** `%` and `_` of a search taken literally in a LIKE pattern (escape character `\`). */
function likePattern(text: string): string {
  return '%' + text.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}

export interface MediaPageQuery {
  search?: string;
  /** only this author's uploads */
  authorId?: number;
  /** only the upload with this URL (an editor finding the item of an event's image) */
  url?: string;
  limit: number;
  offset: number;
}

/** The media library: uploaded images (not URL ones), newest first, with their total. */
export async function findMediaPage(db: Executor, q: MediaPageQuery): Promise<{ rows: ImageRow[]; total: number }> {
  let base = db.selectFrom('images').where('storage_key', '<>', '');
  if (q.authorId !== undefined) base = base.where('author_id', '=', q.authorId);
  if (q.url !== undefined) base = base.where('url', '=', q.url);
  if (q.search !== undefined && q.search !== '') {
    const pattern = likePattern(q.search);
    base = base.where((eb) => eb.or((['filename', 'alt'] as const).map((column) => eb(eb.fn('lower', [column]), 'like', sql<string>`${pattern} ESCAPE '\\'`))));
  }
  const counted = await base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
  const rows = await base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
  return { rows, total: Number(counted?.n ?? 0) };
}

/** Note the posts that show this image as changed (their pages and feeds show its alt text). */
async function notePostsShowing(db: Executor, id: number): Promise<void> {
  const posts = await db.selectFrom('posts').select('id').where('image_id', '=', id).execute();
  for (const p of posts) await notePostBefore(db, Number(p.id), false);
}

export async function updateImageAlt(db: Executor, id: number, alt: string): Promise<void> {
  await db.updateTable('images').set({ alt }).where('id', '=', id).execute();
  await noteChange(db, 'image', id, 'update');
  await notePostsShowing(db, id);
}

/** Delete an image record; the posts that showed it show none (the foreign key sets theirs to null). */
export async function deleteImage(db: Executor, id: number): Promise<void> {
  await notePostsShowing(db, id);
  await db.updateTable('posts').set({ image_id: null }).where('image_id', '=', id).execute();
  await db.deleteFrom('images').where('id', '=', id).execute();
  await noteChange(db, 'image', id, 'delete');
}
