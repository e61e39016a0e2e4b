/**
 * WordPress' `post_password` on the posts row (events, venues and organizers share it): '' for a
 * post anyone may read, else the password a reader gives to see its content
 * (domain/post-passwords.ts). Stored as given, as WordPress stores it (it is a shared secret the
 * editor shows again, not a credential of an account).
 */
import type { Kysely } from 'kysely';

export function postPasswordsMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('posts')
        .addColumn('password', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('posts').dropColumn('password').execute();
    },
  };
}
