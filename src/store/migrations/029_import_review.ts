/**
 * An imported event's free-text location, kept when it names no venue here (docs/import-export.md,
 * "Locations"): `event_locations`, one row per such event, written by `import ics` with the event
 * (in its transaction) and read by the `.ics` export, which writes it back as `LOCATION` while the
 * event has no venue; the row goes with the event (cascade).
 */
import type { Kysely } from 'kysely';

export function importReviewMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('event_locations')
        .addColumn('event_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        .addColumn('location', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('event_locations').ifExists().execute();
    },
  };
}
