/**
 * How far each calendar's change log was pruned (`changes_pruned`, calendar data): the highest
 * sequence number of the calendar's rows the pruning job deleted. Before, one number in `settings`
 * (`changes_pruned_seq`) said it for the whole log, which was right while every calendar kept its
 * history as long as the others; now a calendar may keep a longer one (its own SYNC_HISTORY_DAYS),
 * and another calendar's pruning must not expire its tokens.
 *
 * Every calendar there is gets the installation's number, the rows of each having been pruned
 * as far as it says at most. The `settings` row stays, and is read too (store/change-pruning.ts): a
 * server of an earlier version still running on the database while a newer one starts reads it,
 * and raises it when it prunes; the newer versions no longer raise it.
 */
import { sql, type Kysely } from 'kysely';

export function changesPrunedMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('changes_pruned')
        .addColumn('calendar_id', 'integer', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .execute();
      // Read first: PostgreSQL may cast another row's value (the sync key, in hex) in a WHERE clause.
      const before = await sql<{ value: string }>`select "value" from "settings" where "name" = 'changes_pruned_seq'`.execute(db);
      const seq = Number(before.rows[0]?.value ?? 0);
      if (seq > 0) await sql`insert into "changes_pruned" ("calendar_id", "seq") select "id", ${seq} from "calendars"`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('changes_pruned').execute();
    },
  };
}
