/**
 * The search index (`search-index.ts`): on SQLite the `posts_search` FTS5 table (trigrams of the
 * lowered title, excerpt and content) with the triggers that keep it, filled from the posts already
 * there; on PostgreSQL the `pg_trgm` GIN indexes of the three columns, or, when the extension
 * cannot be created, none (searches scan, as before; the server says so at start-up).
 */
import { sql, type Kysely } from 'kysely';
import { createTrigramIndexes, SQLITE_SEARCH_INDEX_SQL } from '../search-index.js';

export function searchIndexMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await createTrigramIndexes(db);
        return;
      }
      for (const statement of SQLITE_SEARCH_INDEX_SQL) await sql.raw(statement).execute(db);
    },
  };
}
