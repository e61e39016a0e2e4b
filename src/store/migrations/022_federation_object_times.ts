/**
 * The `updated` time of each federated object, to the millisecond (docs/federation.md).
 *
 * - `federation_objects.updated_ms`: the `updated` (or, for a deleted event, the Tombstone's
 *   `deleted`) last sent for the event, in milliseconds since the epoch. Each activity about an
 *   object carries a later one than the last (at least a millisecond later), so that a receiver
 *   keeping the newest version of an object applies two edits made within one second in order,
 *   where `updated_gmt` (seconds) gave both the same time. Null for rows written before: their
 *   `updated_gmt` (when the step that sent them ran) bounds what they sent.
 */
import type { Kysely } from 'kysely';

export function federationObjectTimesMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('federation_objects').addColumn('updated_ms', 'bigint').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('federation_objects').dropColumn('updated_ms').execute();
    },
  };
}
