/**
 * Recurring events. A series is a post of type `tribe_event_series` with an `events`
 * row (its first occurrence's schedule and its fields) and an `event_series` row (its recurrence
 * lines, and how far its occurrences have been generated). Each occurrence is an ordinary event
 * post (`tribe_events`, `parent_id` = the series) with an `event_occurrences` row naming its series
 * and the start it was generated with, unique per series, so regenerating finds and keeps its id.
 * `exception` marks occurrences edited or deleted one by one: regeneration leaves them alone.
 */
import type { Kysely } from 'kysely';

export function recurrenceMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('event_series')
        .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        // JSON array of the normalised RRULE/RDATE/EXDATE lines
        .addColumn('rules', 'text', (c) => c.notNull())
        // occurrences exist for starts before this wall time (the event's zone)
        .addColumn('horizon_local', 'varchar(19)', (c) => c.notNull())
        // 1 when the rules end (COUNT, UNTIL, RDATE only) before the horizon: nothing left to extend
        .addColumn('complete', 'integer', (c) => c.notNull().defaultTo(0))
        // the series' own hide_from_listings (its events row says 1, so no list shows the series itself)
        .addColumn('hide_from_listings', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('event_series_horizon').on('event_series').columns(['complete', 'horizon_local']).execute();
      await db.schema
        .createTable('event_occurrences')
        .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        .addColumn('series_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
        .addColumn('original_start', 'varchar(19)', (c) => c.notNull())
        .addColumn('exception', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('event_occurrences_series').on('event_occurrences').columns(['series_id', 'original_start']).unique().execute();
    },
  };
}
