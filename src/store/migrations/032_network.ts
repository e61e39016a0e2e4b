/**
 * Networks of calendars. `network_sources` says, for an event of a calendar that came from another
 * calendar, where it came from: a proposal (an editor of calendar A proposed one of A's events to
 * this calendar's moderation queue) or a follow (this calendar mirrors A's published events). It is
 * calendar data of the calendar that holds the copy. `calendar_follows` holds a calendar's follows
 * of others (the source calendar, the categories of it followed, by slug; none: all).
 */
import { type Kysely } from 'kysely';

export function networkMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const id = dialect === 'postgres' ? 'serial' : 'integer';
      await db.schema
        .createTable('calendar_follows')
        .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('calendar_id', 'integer', (c) => c.notNull())
        .addColumn('source_calendar_id', 'integer', (c) => c.notNull())
        .addColumn('categories', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addUniqueConstraint('calendar_follows_pair', ['calendar_id', 'source_calendar_id'])
        .execute();
      await db.schema.createIndex('calendar_follows_source').on('calendar_follows').columns(['source_calendar_id']).execute();
      await db.schema
        .createTable('network_sources')
        .addColumn('calendar_id', 'integer', (c) => c.notNull())
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(20)', (c) => c.notNull())
        .addColumn('follow_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('source_calendar_id', 'integer', (c) => c.notNull())
        .addColumn('source_event_id', 'integer', (c) => c.notNull())
        .addColumn('source_url', 'text', (c) => c.notNull())
        .addColumn('source_modified', 'varchar(19)', (c) => c.notNull().defaultTo(''))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addPrimaryKeyConstraint('network_sources_pk', ['calendar_id', 'post_id'])
        .execute();
      await db.schema.createIndex('network_sources_source').on('network_sources').columns(['calendar_id', 'source_calendar_id', 'source_event_id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('network_sources').ifExists().execute();
      await db.schema.dropTable('calendar_follows').ifExists().execute();
    },
  };
}
