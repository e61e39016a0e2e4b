/**
 * Sync tokens are signed (so a client cannot forge one), and the change log is pruned.
 *
 * - `settings (name, value)`: small values the service keeps in the database, shared by every
 *   instance on it. `sync_token_secret`: the HMAC key of sync tokens (32 random bytes, hex), made
 *   here, once per database: migrations run under the migrator's lock, so instances starting
 *   together on one database all read the same one (`src/store/settings.ts` makes it race-free
 *   too, should the row be missing). `changes_pruned_seq`: the highest sequence number whose log
 *   rows the pruning job deleted (a sync token at or past it still has its whole history).
 */
import { sql, type Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';

export function settingsMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await sql`insert into settings (name, value) values ('sync_token_secret', ${randomBytes(32).toString('hex')}), ('changes_pruned_seq', '0')`.execute(db);
    },
  };
}
