/**
 * Shared by the migrations that make a slug space unique (006: each post type's; 011: events and
 * series together): slugs already shared by several posts of the space (a race before the index)
 * are made unique the way the API numbers them: the oldest post keeps the slug, the others get the
 * first free `-2`, `-3`, … in the space. When any slug changed, a `reset` entry in the change log
 * tells running servers to drop what they keep by id.
 */
import type { Kysely } from 'kysely';
import { flushChanges, noteChange } from '../change-notes.js';
import type { Executor } from '../schema.js';

/** The slug with a number, within 200 characters (as `uniqueSlug` truncates). */
function numbered(slug: string, n: number): string {
  const suffix = `-${n}`;
  return `${slug.slice(0, 200 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/**
 * Number the duplicated slugs of each space. `spaces` lists the spaces, each as the post types it
 * holds (`[['tribe_events'], ['tribe_venue']]` for one space a type, `[['tribe_events', 'tribe_event_series']]` for one shared).
 */
export async function numberDuplicateSlugs(db: Kysely<any>, spaces: string[][]): Promise<void> {
  let changed = false;
  for (const types of spaces) {
    const groups = await db
      .selectFrom('posts')
      .select('slug')
      .where('slug', '<>', '')
      .where('type', 'in', types)
      .groupBy('slug')
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    for (const { slug } of groups as Array<{ slug: string }>) {
      changed = true;
      const rows = await db.selectFrom('posts').select('id').where('type', 'in', types).where('slug', '=', slug).orderBy('id').execute();
      let n = 2;
      for (const { id } of rows.slice(1)) {
        for (;;) {
          const candidate = numbered(slug, n++);
          const taken = await db.selectFrom('posts').select('id').where('type', 'in', types).where('slug', '=', candidate).limit(1).executeTakeFirst();
          if (taken) continue;
          await db.updateTable('posts').set({ slug: candidate }).where('id', '=', id).execute();
          break;
        }
      }
    }
  }
  if (changed) {
    // Servers keep representations by id: they must drop what they kept.
    const log = db as unknown as Executor;
    await noteChange(log, 'all', 0, 'reset');
    if (log.isTransaction) await flushChanges(log);
  }
}
