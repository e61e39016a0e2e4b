/**
 * Networks of calendars: the venues and organizers a follow mirrored (`network_linked`). A copy of
 * a followed calendar's event brings its venue and organizers as records of the follower; each
 * source record has one mirrored record per follow, kept here, so that every copy using it, and
 * every update of a copy, reuses it. Calendar data of the follower.
 */
import { type Kysely } from 'kysely';

export function networkLinkedMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('network_linked')
        .addColumn('calendar_id', 'integer', (c) => c.notNull())
        .addColumn('follow_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(20)', (c) => c.notNull())
        .addColumn('source_id', 'integer', (c) => c.notNull())
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addColumn('source_digest', 'varchar(19)', (c) => c.notNull().defaultTo(''))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addPrimaryKeyConstraint('network_linked_pk', ['calendar_id', 'follow_id', 'kind', 'source_id'])
        .execute();
      // The read-only check of a venue or organizer write looks its id up.
      await db.schema.createIndex('network_linked_post').on('network_linked').columns(['calendar_id', 'post_id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('network_linked').ifExists().execute();
    },
  };
}
