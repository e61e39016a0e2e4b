/**
 * Planner statistics after bulk writes (PostgreSQL). A series generated to its horizon or an
 * import can add thousands of events at once; until PostgreSQL's autovacuum next analyses the
 * tables (a minute or more later, and only once a tenth of a table has changed) the planner still
 * believes the old row counts. On a new or small database that made every list read of the new
 * rows a nested loop: 15-20 s per request on 10,000 occurrences, measured, instead of
 * milliseconds. After such a write the writer refreshes the statistics of the event tables itself
 * when it wrote at least `MIN_ROWS` rows and at least a tenth of what the planner believes the
 * events table holds (autovacuum's own proportion). SQLite plans without sampled statistics (this
 * store never runs its ANALYZE), so there is nothing to refresh.
 *
 * @example
 *   const inserted = await generateEverything();
 *   await refreshAfterBulkWrite(store.db, inserted); // ANALYZE when it changed the picture
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { partsOf } from './handle.js';

/** Fewer rows than this never call for an ANALYZE. */
export const MIN_ROWS = 1000;

/** The tables a list of events reads (posts and their event rows, their links). */
const TABLES = ['posts', 'events', 'event_terms', 'event_organizers'] as const;

/** How long ANALYZE waits for a table lock (a VACUUM or another ANALYZE holding it) before giving up. */
export const LOCK_TIMEOUT_MS = 2000;

/**
 * After a write of `rows` events (occurrences, imported records): ANALYZE the event tables on
 * PostgreSQL when that many rows are a tenth or more of the events table the planner knows of
 * (or it has never been analysed). Resolves with whether it did. When a VACUUM or another ANALYZE
 * holds a table (autovacuum at work, which refreshes the statistics itself) it gives up after
 * LOCK_TIMEOUT_MS instead of waiting for it. Other failures are the caller's (a job logs them);
 * nothing was written, so nothing is lost.
 */
export async function refreshAfterBulkWrite(db: Kysely<Database>, rows: number): Promise<boolean> {
  if (rows < MIN_ROWS || partsOf(db)?.dialect !== 'postgres') return false;
  const known = await sql<{ n: number | string }>`select reltuples as n from pg_class where oid = to_regclass('events')`.execute(db);
  const believed = Number(known.rows[0]?.n ?? -1);
  // -1: never analysed (PostgreSQL 14+); 0: analysed empty, or before 14 never.
  if (believed > 0 && rows < believed / 10) return false;
  try {
    // ANALYZE (unlike VACUUM) runs inside a transaction, where the lock timeout can be its own.
    await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = ${sql.lit(`${LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
      await sql`analyze ${sql.join(TABLES.map((t) => sql.table(t)))}`.execute(trx);
    });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return false; // lock_not_available
    throw err;
  }
}
