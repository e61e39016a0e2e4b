/**
 * The calendar as an ActivityPub actor (src/federation, docs/federation.md).
 *
 * - `federation_kv`: Fedify's key-value store (public-key cache, inbox idempotence, …): the key
 *   as a JSON array, the value as JSON, an optional expiry (ms since the epoch).
 * - `federation_keys`: the actor's key pairs (RSA and Ed25519, JWK), generated once.
 * - `federation_followers`: remote actors following the calendar, with their inbox and shared
 *   inbox; `status` is `accepted` or `pending` (FEDERATION_APPROVE_FOLLOWS).
 * - `federation_state`: one row, the outbox's cursor in the change log.
 * - `federation_objects`: what was last sent for each event (`live` or `gone`, and a digest of the
 *   object, so that an edit that changes nothing it shows sends no Update).
 * - `federation_activities`: the outbox, newest last (`ord`).
 * - `federation_deliveries`: one row per activity and inbox, with its retry state (a job sends
 *   them; `lease_until_ms` keeps two instances off the same row).
 * - `federation_received`: other incoming activities kept for moderation (FEDERATION_KEEP_ACTIVITIES).
 * - `federation_queue`: Fedify's message queue (incoming activities verified and waiting to be
 *   handled), drained by a job; `ordering_key` keeps related messages in order.
 */
import type { Kysely } from 'kysely';

export function federationMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      await db.schema
        .createTable('federation_kv')
        .addColumn('key', 'varchar(1000)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('expires_ms', 'bigint')
        .execute();
      await db.schema
        .createTable('federation_keys')
        .addColumn('kind', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('federation_followers')
        .addColumn('id', serial, pk)
        .addColumn('actor_id', 'varchar(1000)', (c) => c.notNull().unique())
        .addColumn('host', 'varchar(255)', (c) => c.notNull())
        .addColumn('inbox', 'varchar(1000)', (c) => c.notNull())
        .addColumn('shared_inbox', 'varchar(1000)')
        .addColumn('follow_id', 'varchar(1000)', (c) => c.notNull())
        .addColumn('handle', 'varchar(300)', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('federation_followers_status').on('federation_followers').columns(['status', 'id']).execute();
      await db.schema
        .createTable('federation_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('cursor_seq', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('federation_objects')
        .addColumn('event_id', 'integer', (c) => c.primaryKey())
        .addColumn('state', 'varchar(10)', (c) => c.notNull())
        .addColumn('digest', 'varchar(64)', (c) => c.notNull())
        .addColumn('published_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('updated_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('federation_activities')
        .addColumn('ord', serial, pk)
        .addColumn('id', 'varchar(300)', (c) => c.notNull().unique())
        .addColumn('type', 'varchar(20)', (c) => c.notNull())
        .addColumn('event_id', 'integer')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('federation_deliveries')
        .addColumn('id', serial, pk)
        .addColumn('activity_id', 'varchar(300)', (c) => c.notNull())
        .addColumn('activity_type', 'varchar(20)', (c) => c.notNull())
        .addColumn('inbox', 'varchar(1000)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull())
        .addColumn('lease_until_ms', 'bigint')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('federation_deliveries_due').on('federation_deliveries').columns(['status', 'next_attempt_ms']).execute();
      await db.schema.createIndex('federation_deliveries_activity_inbox').on('federation_deliveries').columns(['activity_id', 'inbox']).unique().execute();
      await db.schema
        .createTable('federation_received')
        .addColumn('id', serial, pk)
        .addColumn('activity_id', 'varchar(1000)')
        .addColumn('type', 'varchar(100)', (c) => c.notNull())
        .addColumn('actor_id', 'varchar(1000)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('received_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('federation_queue')
        .addColumn('id', serial, pk)
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('ordering_key', 'varchar(1000)')
        .addColumn('run_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('lease_until_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('federation_queue_due').on('federation_queue').columns(['run_at_ms', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const t of [
        'federation_queue',
        'federation_received',
        'federation_deliveries',
        'federation_activities',
        'federation_objects',
        'federation_state',
        'federation_followers',
        'federation_keys',
        'federation_kv',
      ]) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  };
}
