/**
 * The media library (docs/media.md): an uploaded image is an `images` row like a URL's, with what
 * the upload made of it. `storage_key` names its files in the storage (the hash of the uploaded
 * bytes; empty for images given as a URL), `alt` its alternative text, `filename` the name it was
 * uploaded under, `filesize` the full size's bytes and `sizes` the resized variants (JSON: name,
 * width, height, mime type, bytes and file name each), which the REST `image` object lists.
 */
import type { Kysely } from 'kysely';

export function mediaMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('images')
        .addColumn('storage_key', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('images')
        .addColumn('alt', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('images')
        .addColumn('filename', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable('images').addColumn('filesize', 'integer').execute();
      await db.schema
        .alterTable('images')
        .addColumn('sizes', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      // The library lists uploads newest first; URL images (storage_key '') are not in it.
      await db.schema.createIndex('images_storage_key').on('images').columns(['storage_key', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('images_storage_key').ifExists().execute();
      for (const column of ['sizes', 'filesize', 'filename', 'alt', 'storage_key']) await db.schema.alterTable('images').dropColumn(column).execute();
    },
  };
}
