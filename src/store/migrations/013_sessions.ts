/**
 * Sign-in sessions of the admin face, and two-factor (TOTP) enrolment.
 *
 * - `sessions`: one row per signed-in browser. `token_hash` is a SHA-256 (hex) of the random
 *   session id the cookie holds; the id itself is never stored. `created_gmt` and `last_used_gmt`
 *   give the absolute and idle expiry; `second_factor` is 1 once the session passed the TOTP step
 *   (or none was needed), 0 while it waits for it (a half-signed-in session authenticates nothing).
 * - `user_totp`: a user's TOTP secret (encrypted, see domain/sessions.ts), when it was confirmed
 *   (null while enrolment waits for the first code), and the SHA-256 of each unused recovery code
 *   (JSON array).
 */
import type { Kysely } from 'kysely';

export function sessionsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable('sessions')
        .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', pk)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('last_used_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('second_factor', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('user_agent', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('user_totp')
        .addColumn('user_id', 'integer', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('confirmed_gmt', 'varchar(19)')
        .addColumn('recovery_hashes', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('user_totp').ifExists().execute();
      await db.schema.dropTable('sessions').ifExists().execute();
    },
  };
}
