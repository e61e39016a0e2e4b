/**
 * The limits counted in memory until now, counted in the database so that they hold across every
 * instance on one database:
 *
 * - `login_failures`: the failed-login throttle (domain/login-throttle.ts), one row per key: a
 *   (subject, client) pair `p:`, a client `c:` (an IPv4 address or an IPv6 /64) or a subject `s:`
 *   (the user a login names, or the unknown login). `failures` since the last success of a pair,
 *   forgotten `FAILURE_WINDOW_MS` after `last_ms` (the last failure); `pending` attempts being
 *   checked now (they count as failures: reserved before the password is checked, released when
 *   it ends), trusted until `pending_until_ms` (so an instance that stopped in the middle of a
 *   check does not leave them counted for ever); refused until `blocked_until_ms`.
 * - `rate_limit_grants`: the REST rate limit (web/rate-limit.ts): per client key, how many requests
 *   instances have taken (`count`) in the window that starts at `window_start_ms`, and the last
 *   grant (`granted`): each instance takes a few at a time and spends them itself, so the database
 *   sees one write per few requests.
 *
 * Rows past their window are deleted by the job runner (jobs/shared-limits.ts).
 */
import type { Kysely } from 'kysely';

export function sharedLimitsMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('login_failures')
        .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('pending', 'integer', (c) => c.notNull())
        .addColumn('pending_until_ms', 'bigint', (c) => c.notNull())
        .addColumn('last_ms', 'bigint', (c) => c.notNull())
        .addColumn('blocked_until_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_failures_last').on('login_failures').column('last_ms').execute();
      await db.schema
        .createTable('rate_limit_grants')
        .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('window_start_ms', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('granted', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limit_grants_window').on('rate_limit_grants').column('window_start_ms').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('rate_limit_grants').ifExists().execute();
      await db.schema.dropTable('login_failures').ifExists().execute();
    },
  };
}
