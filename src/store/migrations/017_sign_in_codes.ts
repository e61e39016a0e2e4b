/**
 * The second step of sign-in, guarded in the database so that every instance shares it
 * (domain/sessions.ts), on each user's TOTP row:
 *
 * - `last_step`: the TOTP time step (Unix time / 30 s) of the last code accepted; a code of that
 *   step or an older one is refused (RFC 6238 §5.2: a code works once), by a conditional update;
 * - `code_failures`: wrong codes since the last right one or the last block (counted before each
 *   code is checked, so parallel guesses count too);
 * - `code_lockouts`: how many blocks since the last right code (each block lasts twice the last);
 * - `code_blocked_until_gmt`: codes are refused until then ('' for never).
 */
import type { Kysely } from 'kysely';

export function signInCodesMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // One column per statement: SQLite adds one at a time.
      await db.schema
        .alterTable('user_totp')
        .addColumn('last_step', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('user_totp')
        .addColumn('code_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('user_totp')
        .addColumn('code_lockouts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('user_totp')
        .addColumn('code_blocked_until_gmt', 'varchar(19)', (c) => c.notNull().defaultTo(''))
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const column of ['code_blocked_until_gmt', 'code_lockouts', 'code_failures', 'last_step']) await db.schema.alterTable('user_totp').dropColumn(column).execute();
    },
  };
}
