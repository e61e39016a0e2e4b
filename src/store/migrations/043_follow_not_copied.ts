/**
 * `calendar_follows.not_copied`: how many of the followed calendar's events the follower's `events`
 * quota refused at the follow's last sync. The follow's administrators read it (`GET …/follows`),
 * and the mirroring job tries those events again as soon as the follower has room (a raised quota,
 * events deleted), rather than only when the followed calendar next changes.
 */
import type { Kysely } from 'kysely';

export function followNotCopiedMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('calendar_follows')
        .addColumn('not_copied', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('calendar_follows').dropColumn('not_copied').execute();
    },
  };
}
