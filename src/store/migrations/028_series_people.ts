/**
 * Moved occurrences keep their old addresses: when one occurrence of a recurring event is moved to
 * another day, its page's address follows its new date (`/event/{series}/{new day}/`) and each
 * day it was at before answers 301 to it.
 *
 * - `occurrence_moves`: (series, day it was at) -> the occurrence's post id; written when an
 *   occurrence's start day changes, deleted with the occurrence.
 * - `preview_revocations`: when an event was last moved to the trash (ms since the epoch): its
 *   signed preview links issued before then no longer open it, even once it is restored.
 */
import type { Kysely } from 'kysely';

export function seriesPeopleMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('occurrence_moves')
        .addColumn('series_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('post_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('occurrence_moves_pk', ['series_id', 'day'])
        .execute();
      await db.schema.createIndex('occurrence_moves_post').on('occurrence_moves').column('post_id').execute();
      await db.schema
        .createTable('preview_revocations')
        .addColumn('post_id', 'integer', (c) => c.primaryKey())
        .addColumn('revoked_ms', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('preview_revocations').ifExists().execute();
      await db.schema.dropTable('occurrence_moves').ifExists().execute();
    },
  };
}
