/**
 * Sync tokens, record versions (ETags) and webhooks, all read from the change log
 * (migration 005).
 *
 * - `sync_state` (one row, id 1): `database_id`, a random id made when this database was migrated.
 *   Sync tokens and ETags carry it, so a token or tag from another database (a restore elsewhere,
 *   another deployment) is recognised as foreign.
 * - `changes_record` index on `changes (record_type, record_id, seq)`: a record's last change (its
 *   version) is one index lookup. One more index entry per logged record on writes.
 * - `webhook_endpoints`: the endpoints administrators registered, each with its own cursor in the
 *   change log (`cursor_seq`: every change up to it has been turned into deliveries). The outbox
 *   is the change log itself, written in the write's transaction; deliveries are made from it.
 * - `webhook_deliveries`: one message per endpoint and change (`id` is the Standard Webhooks
 *   `webhook-id`), pending until a 2xx, or failed once the retry schedule is spent.
 * - `webhook_attempts`: every attempt (time, outcome, response code, duration).
 */
import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';

export function syncAndWebhooksMigration(dialect: 'sqlite' | 'postgres') {
  const id = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('sync_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('database_id', 'varchar(40)', (c) => c.notNull())
        .execute();
      await sql`insert into sync_state (id, database_id) values (1, ${randomUUID().replace(/-/g, '').slice(0, 16)})`.execute(db);
      await db.schema.createIndex('changes_record').on('changes').columns(['record_type', 'record_id', 'seq']).execute();

      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('disabled_reason', 'text')
        .addColumn('cursor_seq', 'bigint', (c) => c.notNull())
        .addColumn('failing_since', 'bigint')
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('record_key', 'varchar(40)', (c) => c.notNull())
        .addColumn('type', 'varchar(40)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull())
        .addColumn('lease_until_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('first_attempt_ms', 'bigint')
        .addColumn('last_response_code', 'integer')
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_ms']).execute();
      await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'seq', 'idx']).execute();
      await db.schema.createIndex('webhook_deliveries_record').on('webhook_deliveries').columns(['endpoint_id', 'record_key', 'status', 'seq']).execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('delivery_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('attempted_gmt', 'varchar(24)', (c) => c.notNull())
        .addColumn('outcome', 'varchar(20)', (c) => c.notNull())
        .addColumn('response_code', 'integer')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
    },
  };
}
