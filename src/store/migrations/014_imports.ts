/**
 * Imports run in the background (the admin API's `POST imports`), one row each:
 * what to import (`kind` ics or tec, `source`: the URL or the uploaded file's name, `options` as
 * JSON with any credentials encrypted, `upload`: an uploaded file's text until the import ends),
 * its state (`status` queued, running, done or failed; `attempts`), progress (`phase`, `done`,
 * `total`), outcome (`counts` and `messages` as JSON, `error`) and times (`created_gmt`,
 * `started_gmt`, `finished_gmt`, and `heartbeat_gmt`, renewed while it runs: a running import
 * whose heartbeat stopped is queued again, see domain/imports.ts).
 */
import type { Kysely } from 'kysely';

export function importsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable('imports')
        .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', pk)
        .addColumn('kind', 'varchar(10)', (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('upload', 'text')
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('phase', 'varchar(40)', (c) => c.notNull().defaultTo(''))
        .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('counts', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('messages', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('error', 'text')
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('started_gmt', 'varchar(19)')
        .addColumn('finished_gmt', 'varchar(19)')
        .addColumn('heartbeat_gmt', 'varchar(19)')
        .execute();
      await db.schema.createIndex('imports_status').on('imports').columns(['status', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('imports').ifExists().execute();
    },
  };
}
