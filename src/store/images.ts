/**
 * Image records: a featured image is an id of a known image, or a URL that creates a record
 * pointing at it (COMPAT decision 9; nothing is downloaded).
 *
 * @example
 *   const id = await insertImage(db, { url: 'https://x/y.png', extension: 'png', mime_type: 'image/png', width: null, height: null, author_id: 1, created_gmt: '…' });
 */
import { byChunks } from './lists.js';
import type { Insertable } from 'kysely';
import type { Executor, ImageRow, ImagesTable } from './schema.js';
import { noteChange } from './changes.js';
import { afterExplicitId, takeWantedId } from './import-context.js';
import { storedIds } from './ranges.js';

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
