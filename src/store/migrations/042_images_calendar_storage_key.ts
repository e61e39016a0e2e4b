/**
 * `images_calendar_storage_key (calendar_id, storage_key)`: whether a calendar holds an uploaded
 * image with these files. A calendar serves a file under its prefix only when it does (media face),
 * so each file asked for is one look at this index, whatever other calendars hold of the same
 * bytes. The look across calendars (are the files still used anywhere, before they are removed) is
 * `images_storage_key (storage_key, id)`, from migration 026.
 */
import type { Kysely } from 'kysely';

export function imagesCalendarStorageKeyMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('images_calendar_storage_key').on('images').columns(['calendar_id', 'storage_key']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('images_calendar_storage_key').ifExists().execute();
    },
  };
}
