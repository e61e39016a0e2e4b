/**
 * Events and recurring events' series share one slug space (by-slug routes find either, issue 15),
 * and from here on the database enforces it as it enforces each post type's own (migration 006):
 * a unique index on `posts (slug)` for the two types. A create then needs no lock to pick its slug
 * (issue 9: one statement fewer on PostgreSQL): two concurrent writes that pick the same one meet
 * the index, and the loser is run again (`writeTransaction`), finding the slug taken.
 *
 * Slugs already shared by an event and a series (a race before this version) are made unique
 * first, as migration 006 did: the oldest post keeps the slug, the others get the first free
 * `-2`, `-3`, … in the space; a `reset` entry in the change log tells running servers.
 */
import { sql, type Kysely } from 'kysely';
import { flushChanges, noteChange } from '../changes.js';
import type { Executor } from '../schema.js';

const EVENT_TYPES = ['tribe_events', 'tribe_event_series'];

/** The slug with a number, within 200 characters (as `uniqueSlug` truncates). */
function numbered(slug: string, n: number): string {
  const suffix = `-${n}`;
  return `${slug.slice(0, 200 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

export function eventSlugSpaceMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const groups = await db
        .selectFrom('posts')
        .select('slug')
        .where('slug', '<>', '')
        .where('type', 'in', EVENT_TYPES)
        .groupBy('slug')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      for (const { slug } of groups as Array<{ slug: string }>) {
        const rows = await db.selectFrom('posts').select('id').where('type', 'in', EVENT_TYPES).where('slug', '=', slug).orderBy('id').execute();
        let n = 2;
        for (const { id } of rows.slice(1)) {
          for (;;) {
            const candidate = numbered(slug, n++);
            const taken = await db.selectFrom('posts').select('id').where('type', 'in', EVENT_TYPES).where('slug', '=', candidate).limit(1).executeTakeFirst();
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
      await sql`create unique index posts_event_slug_unique on posts (slug) where slug <> '' and type in ('tribe_events', 'tribe_event_series')`.execute(db);
    },
  };
}
