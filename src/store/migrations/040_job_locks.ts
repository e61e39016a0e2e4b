/**
 * SQLite: `job_locks`, the leases of singleton jobs (job-locks.ts), so that several servers on one
 * file (processes of their own) run a singleton job's step one at a time, as PostgreSQL's advisory
 * locks make them do. Before, a SQLite lock was held in the process, which excluded only the stores
 * of that process. PostgreSQL: nothing.
 */
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

export function jobLocksMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') return;
      await db.schema
        .createTable('job_locks')
        .addColumn('name', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('holder', 'varchar(64)', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') return;
      await db.schema.dropTable('job_locks').execute();
    },
  };
}
