/**
 * Sizes of stored text, for estimating an answer before it is built (the answer budget,
 * `src/domain/answer-budget.ts`).
 *
 * @example await postTextLength(db, [4, 5]) // 2_100_345 (characters of titles, contents and excerpts)
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { storedIds } from './ranges.js';

/** Characters of the titles, contents and excerpts of these posts, together. */
export async function postTextLength(db: Executor, ids: number[]): Promise<number> {
  const known = storedIds(ids);
  if (known.length === 0) return 0;
  const r = await db
    .selectFrom('posts')
    .select(sql<number | string>`coalesce(sum(length(title) + length(content) + length(excerpt)), 0)`.as('n'))
    .where('id', 'in', known)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}
