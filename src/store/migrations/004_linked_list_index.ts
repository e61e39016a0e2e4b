/**
 * Venue and organizer lists are newest first by local publication date (`date_local desc, id
 * desc`) within a type and status: this index gives that order for one status without sorting
 * every venue or organizer, and counts them without reading their rows.
 */
import type { Kysely } from 'kysely';

export function linkedListIndexMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('posts_type_status_local').on('posts').columns(['type', 'status', 'date_local', 'id']).execute();
    },
  };
}
