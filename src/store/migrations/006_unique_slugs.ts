/**
 * Concurrent writes give the answers sequential ones give: on PostgreSQL two creates
 * could both find a slug free and both store it (SQLite serialises writers, so it never happened
 * there). This migration makes the database refuse a second post of a type with the same slug;
 * a write that meets the refusal is run again (`writeTransaction`), and then finds the slug taken.
 *
 * - Slugs that are already duplicated (a race before this version) are made unique first, the way
 *   the API numbers them: the oldest post keeps the slug, the others get `-2`, `-3`, … (the first
 *   number free for the type). A `reset` entry in the change log tells running servers.
 * - `posts (type, slug)` becomes unique for non-empty slugs (a partial index on both stores).
 *   Terms already have a unique `(taxonomy, slug)`.
 * - PostgreSQL: `events.currency_symbol` and `images.extension` become `text` (they were
 *   `varchar(20)`, and a long currency text or URL extension failed the write; SQLite does not
 *   enforce lengths).
 */
import { sql, type Kysely } from 'kysely';
import { numberDuplicateSlugs } from './slug-duplicates.js';

export function uniqueSlugsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const types = await db.selectFrom('posts').select('type').where('slug', '<>', '').groupBy('type').execute();
      await numberDuplicateSlugs(
        db,
        (types as Array<{ type: string }>).map(({ type }) => [type]),
      );
      await sql`create unique index posts_type_slug_unique on posts (type, slug) where slug <> ''`.execute(db);
      if (dialect === 'postgres') {
        await sql`alter table events alter column currency_symbol type text`.execute(db);
        await sql`alter table images alter column extension type text`.execute(db);
      }
    },
  };
}
