/**
 * A post lock per holder (docs/admin-api.md, "Editors of an event"): `edit_locks` keys its rows by
 * calendar, event, user and `holder` (an editor page's token; '' for callers without one), no longer by
 * calendar, event and user alone. A page that leaves releases its own lock and not the one its
 * successor took meanwhile, on the same server or another (a quick leave-and-return, two streams of
 * one user on two servers); the editors' list still names each user once.
 *
 * The table is made anew: its rows are presence that ends by itself within 150 s, and every open
 * editor takes its lock again at its next heartbeat (30 s).
 */
import type { Kysely } from 'kysely';

export function editLockHoldersMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('edit_locks').execute();
      await db.schema
        .createTable('edit_locks')
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('started_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint', (c) => c.notNull())
        .addColumn('calendar_id', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('holder', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addPrimaryKeyConstraint('edit_locks_pk', ['calendar_id', 'post_id', 'user_id', 'holder'])
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('edit_locks').execute();
      await db.schema
        .createTable('edit_locks')
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('started_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint', (c) => c.notNull())
        .addColumn('calendar_id', 'integer', (c) => c.notNull().defaultTo(1))
        .addPrimaryKeyConstraint('edit_locks_pk', ['calendar_id', 'post_id', 'user_id'])
        .execute();
    },
  };
}
