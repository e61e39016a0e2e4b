/**
 * Concurrent writes give the answers sequential ones give (issue 13): on PostgreSQL two creates
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
import { flushChanges, noteChange } from '../changes.js';
import type { Executor } from '../schema.js';

/** The slug with a number, within 200 characters (as `uniqueSlug` truncates). */
function numbered(slug: string, n: number): string {
  const suffix = `-${n}`;
  return `${slug.slice(0, 200 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

export function uniqueSlugsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const groups = await db
        .selectFrom('posts')
        .select(['type', 'slug'])
        .where('slug', '<>', '')
        .groupBy(['type', 'slug'])
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      for (const { type, slug } of groups as Array<{ type: string; slug: string }>) {
        const rows = await db.selectFrom('posts').select('id').where('type', '=', type).where('slug', '=', slug).orderBy('id').execute();
        let n = 2;
        for (const { id } of rows.slice(1)) {
          for (;;) {
            const candidate = numbered(slug, n++);
            const taken = await db.selectFrom('posts').select('id').where('type', '=', type).where('slug', '=', candidate).limit(1).executeTakeFirst();
            if (taken) continue;
            await db.updateTable('posts').set({ slug: candidate }).where('id', '=', id).execute();
            break;
          }
        }
      }
      if (groups.length) {
        // Servers keep representations by id: they must drop what they kept.
        const log = db as unknown as Executor;
        await noteChange(log, 'all', 0, 'reset');
        if (log.isTransaction) await flushChanges(log);
      }
      await sql`create unique index posts_type_slug_unique on posts (type, slug) where slug <> ''`.execute(db);
      if (dialect === 'postgres') {
        await sql`alter table events alter column currency_symbol type text`.execute(db);
        await sql`alter table images alter column extension type text`.execute(db);
      }
    },
  };
}
