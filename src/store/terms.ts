/**
 * Term (category and tag) queries, including the published-event counts kept on each term.
 *
 * @example
 *   const id = await insertTerm(db, { taxonomy: 'post_tag', name: 'jazz', slug: 'jazz', description: '', parent_id: 0, count: 0 });
 *   await recountTerms(db, [id]);
 */
import type { Insertable, Updateable } from 'kysely';
import type { Executor, Taxonomy, TermRow, TermsTable } from './schema.js';

export async function findTermsByIds(db: Executor, ids: number[]): Promise<TermRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('terms').selectAll().where('id', 'in', ids).execute();
}

export async function findTerm(db: Executor, taxonomy: Taxonomy, id: number): Promise<TermRow | undefined> {
  return db.selectFrom('terms').selectAll().where('id', '=', id).where('taxonomy', '=', taxonomy).executeTakeFirst();
}

export async function findTermBySlug(db: Executor, taxonomy: Taxonomy, slug: string): Promise<TermRow | undefined> {
  return db.selectFrom('terms').selectAll().where('taxonomy', '=', taxonomy).where('slug', '=', slug).executeTakeFirst();
}

/** Terms of the taxonomy whose stored name equals `name` (exact), optionally under a parent. */
export async function findTermsByName(db: Executor, taxonomy: Taxonomy, name: string, parentId?: number): Promise<TermRow[]> {
  let q = db.selectFrom('terms').selectAll().where('taxonomy', '=', taxonomy).where('name', '=', name);
  if (parentId !== undefined) q = q.where('parent_id', '=', parentId);
  return q.orderBy('id').execute();
}

export async function isTermSlugTaken(db: Executor, taxonomy: Taxonomy, slug: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('slug', '=', slug);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

export async function insertTerm(db: Executor, term: Insertable<TermsTable>): Promise<number> {
  const row = await db.insertInto('terms').values(term).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateTerm(db: Executor, id: number, patch: Updateable<TermsTable>): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('terms').set(patch).where('id', '=', id).execute();
}

/** Delete a term for good: its children move to its parent, its event links go (cascade). */
export async function deleteTerm(db: Executor, term: TermRow): Promise<void> {
  await db.updateTable('terms').set({ parent_id: term.parent_id }).where('parent_id', '=', term.id).where('taxonomy', '=', term.taxonomy).execute();
  await db.deleteFrom('event_terms').where('term_id', '=', term.id).execute();
  await db.deleteFrom('terms').where('id', '=', term.id).execute();
}

/** Ids of all descendants of the given categories (children, grandchildren, …). */
export async function descendantTermIds(db: Executor, taxonomy: Taxonomy, ids: number[]): Promise<number[]> {
  const out = new Set<number>();
  let frontier = ids;
  while (frontier.length) {
    const rows = await db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy).where('parent_id', 'in', frontier).execute();
    frontier = rows.map((r) => Number(r.id)).filter((id) => !out.has(id) && !ids.includes(id));
    for (const id of frontier) out.add(id);
  }
  return [...out];
}

/** Set `count` of the terms to the number of published events linked to each. */
export async function recountTerms(db: Executor, termIds: number[]): Promise<void> {
  const unique = [...new Set(termIds)];
  for (const id of unique) {
    const c = await db
      .selectFrom('event_terms')
      .innerJoin('posts', 'posts.id', 'event_terms.event_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event_terms.term_id', '=', id)
      .where('posts.status', '=', 'publish')
      .executeTakeFirstOrThrow();
    await db.updateTable('terms').set({ count: Number(c.n) }).where('id', '=', id).execute();
  }
}
