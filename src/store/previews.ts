/**
 * Signed preview links' revocations (migration 028): the moment an event was last moved to the
 * trash. A link issued before it no longer opens the event, even after a restore.
 *
 * @example
 *   await revokePreviews(trx, [12], Date.now());
 *   await previewsRevokedAt(db, 12); // 1764390000000
 */
import { chunksOf } from './lists.js';
import type { Executor } from './schema.js';

/** Note that these posts' preview links issued before `ms` are void. */
export async function revokePreviews(db: Executor, ids: number[], ms: number): Promise<void> {
  for (const chunk of chunksOf(ids, 200)) {
    const rows = chunk.map((post_id) => ({ post_id, revoked_ms: ms }));
    await db
      .insertInto('preview_revocations')
      .values(rows)
      .onConflict((oc) => oc.columns(['calendar_id', 'post_id']).doUpdateSet({ revoked_ms: ms }))
      .execute();
  }
}

/** When this post's preview links were last voided (ms since the epoch), or 0. */
export async function previewsRevokedAt(db: Executor, id: number): Promise<number> {
  const row = await db.selectFrom('preview_revocations').select('revoked_ms').where('post_id', '=', id).executeTakeFirst();
  return row ? Number(row.revoked_ms) : 0;
}
