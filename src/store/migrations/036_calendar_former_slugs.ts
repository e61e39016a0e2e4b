/**
 * A calendar's former slugs (`calendar_former_slugs`, calendar data): the identifiers its fediverse
 * actor had before its slug changed. The old actor URL (`/federation/actors/{former}`) answers the
 * old identifier's actor document with `movedTo` the new actor, WebFinger of the old account
 * answers too, and the new actor lists the old in `alsoKnownAs`: what Mastodon's account migration
 * expects (docs/federation.md, "Many calendars"). `move_pending` says that the calendar's followers
 * are still to be sent the `Move` from that identifier (the outbox makes it, then clears it).
 *
 * The key leads with `calendar_id` (as migration 034 made every key of calendar data on
 * PostgreSQL); the index by slug alone serves the one look across calendars: which calendar an
 * actor path or a WebFinger resource naming a former slug is for. A slug is a former one of at most
 * one calendar, and of none while a calendar has it as its own: the store drops it from the former
 * slugs whenever a calendar takes it (store/calendars.ts).
 */
import type { Kysely } from 'kysely';

export function calendarFormerSlugsMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('calendar_former_slugs')
        .addColumn('calendar_id', 'integer', (c) => c.notNull())
        .addColumn('slug', 'varchar(60)', (c) => c.notNull())
        .addColumn('left_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('move_pending', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('calendar_former_slugs_pk', ['calendar_id', 'slug'])
        .execute();
      await db.schema.createIndex('calendar_former_slugs_slug').on('calendar_former_slugs').column('slug').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('calendar_former_slugs').ifExists().execute();
    },
  };
}
