/**
 * `events_venue_start (venue_id, start_local, post_id)`: a venue's events in list order (by start,
 * ties by id). The event list filtered by venue read the listing index (`events_listing`) in start
 * order and checked each row's venue until the page filled: with a venue's few events spread over
 * the whole calendar, every row of it (1-3 s at 1,000,000 events). Through this index the page reads
 * the venue's events alone (store/event-list-query.ts, `listQuery`). It replaces `events_venue (venue_id)`, its
 * first column: every read by venue (the geolocation filter's venues, the venue's events, the
 * foreign key's `on delete set null` when a venue is deleted) is served by it as well.
 */
import type { Kysely } from 'kysely';

/** The index of a venue's events in start order. */
export const VENUE_EVENTS_INDEX = 'events_venue_start';

export function filterIndexesMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex(VENUE_EVENTS_INDEX).on('events').columns(['venue_id', 'start_local', 'post_id']).execute();
      await db.schema.dropIndex('events_venue').ifExists().execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();
      await db.schema.dropIndex(VENUE_EVENTS_INDEX).ifExists().execute();
    },
  };
}
