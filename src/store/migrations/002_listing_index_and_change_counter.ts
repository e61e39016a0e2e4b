/**
 * Speed for large calendars (benchmark issue):
 *
 * - `events_listing (hide_from_listings, start_local, post_id, end_local)`: the event list walks
 *   this index in its own order (start date, then id) and stops after a page, instead of reading
 *   every published event and sorting; the end-date filter is checked from the index.
 * - PostgreSQL: `change_counter`, a one-row counter that statement-level triggers on the tables
 *   the event list reads (posts, events, event_terms, event_organizers) bump in the writing
 *   transaction. The list's total is cached per filter and revision (`src/store/event-pages.ts`), so any
 *   write, from any process, invalidates it once committed. SQLite needs no table for this:
 *   `PRAGMA data_version` (other connections' commits) with `total_changes()` (this connection's)
 *   serve as its revision.
 */
import { sql, type Kysely } from 'kysely';

const COUNTED_TABLES = ['posts', 'events', 'event_terms', 'event_organizers'] as const;

export function listingIndexMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('events_listing').on('events').columns(['hide_from_listings', 'start_local', 'post_id', 'end_local']).execute();
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('change_counter')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('last_txid', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`insert into change_counter (id, value, last_txid) values (1, 0, 0)`.execute(db);
      // Once per transaction: later statements of the same transaction find last_txid already set.
      await sql`create function bump_change_counter() returns trigger language plpgsql set search_path from current as $$
        begin
          update change_counter set value = value + 1, last_txid = txid_current() where id = 1 and last_txid <> txid_current();
          return null;
        end $$`.execute(db);
      for (const table of COUNTED_TABLES) {
        await sql.raw(`create trigger ${table}_changed after insert or update or delete or truncate on ${table} ` + 'for each statement execute function bump_change_counter()').execute(db);
      }
    },
  };
}
