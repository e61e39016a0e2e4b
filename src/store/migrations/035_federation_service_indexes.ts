/**
 * Federation's two looks across calendars, each one indexed statement:
 *
 * - `federation_followers_actor (actor_id)`: the calendars a remote actor follows. A remote
 *   account's `Delete` of itself removes its follower row in every calendar (federation/inbox.ts);
 *   servers send that Delete to every shared inbox they know, so most name nobody here, and each is
 *   answered from this index instead of reading every calendar's followers. The key
 *   `(calendar_id, actor_id)` serves the look within one calendar only.
 * - `federation_activities_type (type, calendar_id)`: the Creates of every calendar, which NodeInfo
 *   counts for the service (`localPosts`), read from the index alone and joined to the active
 *   calendars by its second column.
 *
 * The followers and deliveries counted by state for `/metrics` already have theirs
 * (`federation_followers_status`, `federation_deliveries_due`, both leading with the state).
 */
import type { Kysely } from 'kysely';

export function federationServiceIndexesMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('federation_followers_actor').on('federation_followers').column('actor_id').execute();
      await db.schema.createIndex('federation_activities_type').on('federation_activities').columns(['type', 'calendar_id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('federation_activities_type').ifExists().execute();
      await db.schema.dropIndex('federation_followers_actor').ifExists().execute();
    },
  };
}
