/**
 * `events_long`: a partial index of the events that last more than a month (`event-overlaps.ts`), by
 * end date. The lists that ask for the events overlapping a range (the month and day pages, the
 * FullCalendar source, the embeds, CalDAV time-range) read the range's start-date window through
 * `events_listing` as before, and the long events that began before that window and still run into
 * the range through this index: few entries, so a long event is found wherever it began at no cost
 * to the other reads. Its condition needs no column of its own: both stores compute it from the
 * wall times on every write, whichever path writes the row (API, imports, series, seeds). On
 * PostgreSQL the span also gets statistics (`events_span`), so that the planner knows how rare long
 * events are.
 */
import { sql, type Kysely } from 'kysely';
import { LONG_EVENTS_INDEX_SQL, SPAN_STATISTICS_SQL } from '../event-overlaps.js';

export function longEventsIndexMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql.raw(LONG_EVENTS_INDEX_SQL).execute(db);
      if (dialect !== 'postgres') return;
      // Statistics of an expression exist from PostgreSQL 14 on; before, the lists' plan holds (see
      // store/event-list-query.ts, longPartQuery) and only its estimate is high.
      const version = await sql<{ v: string }>`select current_setting('server_version_num') as "v"`.execute(db);
      if (Number(version.rows[0]?.v ?? 0) < 140000) return;
      await sql.raw(SPAN_STATISTICS_SQL).execute(db);
      await sql`analyze "events"`.execute(db);
    },
  };
}
