/**
 * The editor's post locks and who last changed an event (docs/admin.md, "Editing together").
 *
 * - `edit_locks`: one row per event and user that has the event open in the admin app's editor,
 *   as WordPress' `_edit_lock` post meta but one per user: taken and refreshed by the editor's
 *   heartbeat, `expires_ms` (milliseconds since the epoch) a while after the last one, deleted
 *   when the editor leaves. In the database so that every instance on it sees every lock.
 * - `events.modified_by`: the user whose write changed the event last (WordPress' `_edit_last`),
 *   null until an update by a signed-in user (the author then stands for it).
 */
import type { Kysely } from 'kysely';

export function editLocksMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('edit_locks')
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('started_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('edit_locks_pk', ['post_id', 'user_id'])
        .execute();
      await db.schema.alterTable('events').addColumn('modified_by', 'integer').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('events').dropColumn('modified_by').execute();
      await db.schema.dropTable('edit_locks').ifExists().execute();
    },
  };
}
