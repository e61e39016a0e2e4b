/**
 * `events_long`: a partial index of the events that last more than a month (`event-overlaps.ts`), by
 * end date. The lists that ask for the events overlapping a range (the month and day pages, the
 * FullCalendar source, the embeds, CalDAV time-range) read the range's start-date window through
 * `events_listing` as before, and the long events that began before that window and still run into
 * the range through this index: few entries, so a long event is found wherever it began at no cost
 * to the other reads. Its condition needs no column of its own: both stores compute it from the
 * wall times on every write, whichever path writes the row (API, imports, series, seeds).
 */
import { sql, type Kysely } from 'kysely';
import { LONG_EVENTS_INDEX_SQL } from '../event-overlaps.js';

export function longEventsIndexMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql.raw(LONG_EVENTS_INDEX_SQL).execute(db);
    },
  };
}
