/**
 * The change log: one ordered log of every write to the calendar's data, appended in the
 * writing transaction (`src/store/changes.ts`). Readers keep what they computed together with the
 * sequence number it reflects and refresh only what newer rows touch (`src/store/change-feed.ts`);
 * the same sequence numbers will serve sync tokens, ETags and webhook delivery.
 *
 * - `change_counter` (one row, id 1): `value` is the sequence number of the last committed write.
 *   A write takes the next number as the last statement of its transaction (`update … returning`),
 *   so the row lock serialises commits in sequence order: a reader that sees number N also sees
 *   every number below it (no gaps to wait for, unlike a sequence or autoincrement).
 * - `changes (seq, idx)`: the records one write touched: `record_type` (event, venue, organizer,
 *   term, image, or `all` for bulk loads), `record_id`, `action` (create, update, trash, delete,
 *   reset), and `detail`: JSON with what a reader cannot read back afterwards (an event's listing
 *   fields before the write, whether its text changed).
 *
 * PostgreSQL had statement triggers bump the counter at a transaction's first write (migrations
 * 002/003); they are dropped: they held the counter row's lock for the whole transaction and did
 * not say what changed.
 */
import { sql, type Kysely } from 'kysely';

const TRIGGER_TABLES = ['posts', 'events', 'event_terms', 'event_organizers', 'venues', 'organizers', 'terms', 'images'] as const;

export function changeLogMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        for (const table of TRIGGER_TABLES) await sql.raw(`drop trigger if exists ${table}_changed on ${table}`).execute(db);
        await sql.raw('drop function if exists bump_change_counter()').execute(db);
      } else {
        await db.schema
          .createTable('change_counter')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`insert into change_counter (id, value) values (1, 0)`.execute(db);
      }
      await db.schema
        .createTable('changes')
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('record_type', 'varchar(20)', (c) => c.notNull())
        .addColumn('record_id', 'integer', (c) => c.notNull())
        .addColumn('action', 'varchar(20)', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addPrimaryKeyConstraint('changes_pk', ['seq', 'idx'])
        .execute();
    },
  };
}
