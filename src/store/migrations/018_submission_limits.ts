/**
 * The submission limits hold under concurrency and across instances.
 *
 * - `submission_quota`: one row per place a stored submission takes in a per-address or per-e-mail
 *   limit: `key_hash` is the SHA-256 (hex) of `ip:<client key>` or `email:<address>` (never the
 *   address itself), `created_gmt` when it was taken. A submission counts and takes its places in
 *   one transaction under a lock per key (store/submissions.ts `reserveSubmissionQuota`); rows
 *   older than the window are deleted.
 * - `submission_pow_used`: proof-of-work solutions already accepted, by their challenge's signature
 *   (the primary key makes the first insert win, on every instance), kept until the challenge
 *   expires (`expires_gmt`), then deleted.
 */
import type { Kysely } from 'kysely';

export function submissionLimitsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable('submission_quota')
        .addColumn('id', serial, pk)
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('submission_quota_key').on('submission_quota').columns(['key_hash', 'created_gmt']).execute();
      await db.schema.createIndex('submission_quota_created').on('submission_quota').column('created_gmt').execute();
      await db.schema
        .createTable('submission_pow_used')
        .addColumn('signature', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('expires_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('submission_pow_used_expires').on('submission_pow_used').column('expires_gmt').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('submission_pow_used').ifExists().execute();
      await db.schema.dropTable('submission_quota').ifExists().execute();
    },
  };
}
