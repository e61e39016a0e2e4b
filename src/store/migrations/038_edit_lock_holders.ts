/**
 * A post lock per holder (docs/admin-api.md, "Editors of an event"): `edit_locks` keys its rows by
 * calendar, event, user and `holder` (an editor page's token; '' for callers without one), no
 * longer by calendar, event and user alone. A page that leaves releases its own lock and not the
 * one its successor took meanwhile, on the same server or another (a quick leave-and-return, two
 * streams of one user on two servers); the editors' list still names each user once.
 *
 * The table is made anew: its rows are presence that ends by itself within 150 s, and every open
 * editor takes its lock again at its next heartbeat (30 s).
 */
import type { CreateTableBuilder, Kysely } from 'kysely';

/** `edit_locks` anew, with the holder in its key or (`down`) as migration 034 left it. */
async function makeLocks(db: Kysely<any>, withHolder: boolean): Promise<void> {
  await db.schema.dropTable('edit_locks').execute();
  let table: CreateTableBuilder<'edit_locks', string> = db.schema
    .createTable('edit_locks')
    .addColumn('post_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('started_gmt', 'varchar(19)', (c) => c.notNull())
    .addColumn('expires_ms', 'bigint', (c) => c.notNull())
    .addColumn('calendar_id', 'integer', (c) => c.notNull().defaultTo(1));
  if (withHolder) table = table.addColumn('holder', 'varchar(64)', (c) => c.notNull().defaultTo(''));
  await table.addPrimaryKeyConstraint('edit_locks_pk', withHolder ? ['calendar_id', 'post_id', 'user_id', 'holder'] : ['calendar_id', 'post_id', 'user_id']).execute();
}

export function editLockHoldersMigration() {
  return {
    up: (db: Kysely<any>): Promise<void> => makeLocks(db, true),
    down: (db: Kysely<any>): Promise<void> => makeLocks(db, false),
  };
}
