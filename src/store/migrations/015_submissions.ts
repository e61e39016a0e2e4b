/**
 * Community submissions and their moderation log.
 *
 * - `submissions`: one row per event proposed by the public. `token_hash` is a SHA-256 (hex) of the
 *   token of the submitter's private link (the token itself is never stored; it is an HMAC of the
 *   random `link_salt` with the key in `settings`, so decision e-mails can carry the link again). The submitter's
 *   name, e-mail address and client address are private (never in public answers) and erased
 *   (`erased_gmt` set, the columns emptied) SUBMISSION_RETENTION_DAYS after the decision. `status`:
 *   pending, changes_requested, approved, rejected, withdrawn. `flags` is a JSON object (likely
 *   duplicates), `new_venue_id` and `new_organizer_ids` (JSON array) the records the submission made.
 * - `submission_log`: the moderation log (who, when, what, why), one row per action.
 */
import type { Kysely } from 'kysely';

export function submissionsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      const serial = dialect === 'postgres' ? 'serial' : 'integer';
      await db.schema
        .createTable('submissions')
        .addColumn('id', serial, pk)
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('link_salt', 'varchar(64)', (c) => c.notNull())
        .addColumn('event_id', 'integer', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('email', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('locale', 'varchar(10)', (c) => c.notNull().defaultTo('en'))
        .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('flags', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('new_venue_id', 'integer')
        .addColumn('new_organizer_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('publish_at_gmt', 'varchar(19)')
        .addColumn('notified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('updated_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('decided_gmt', 'varchar(19)')
        .addColumn('erased_gmt', 'varchar(19)')
        .execute();
      await db.schema.createIndex('submissions_status').on('submissions').columns(['status', 'id']).execute();
      await db.schema.createIndex('submissions_ip').on('submissions').columns(['ip', 'created_gmt']).execute();
      await db.schema.createIndex('submissions_email').on('submissions').columns(['email', 'created_gmt']).execute();
      await db.schema.createIndex('submissions_event').on('submissions').column('event_id').execute();
      await db.schema
        .createTable('submission_log')
        .addColumn('id', serial, pk)
        .addColumn('submission_id', 'integer', (c) => c.notNull())
        .addColumn('actor_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('actor', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('action', 'varchar(40)', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('detail', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('submission_log_submission').on('submission_log').columns(['submission_id', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('submission_log').ifExists().execute();
      await db.schema.dropTable('submissions').ifExists().execute();
    },
  };
}
