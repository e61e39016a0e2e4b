/**
 * Look-up-then-insert steps that must not race: duplicate avoidance (a venue or organizer of the
 * same name is reused) and term creation (a name that exists under the parent is `term_exists`).
 * On PostgreSQL two transactions could both look, find nothing and both insert; a
 * transaction-scoped advisory lock (`pg_advisory_xact_lock`) keyed on what is looked up makes the
 * second wait until the first commits, and its look-up (a new snapshot under READ COMMITTED) then
 * sees the first's row. SQLite runs one write transaction at a time, so nothing is needed there.
 *
 * Keys are coarse (one per post type or taxonomy), and every write takes them in one order
 * (venue, organizer, categories, tags: the order an event write resolves them), so two writers
 * never wait for each other in a cycle. Slug candidates are locked one by one as they are checked
 * (`isSlugTaken`), so creates of one title take their numbers in turn; should two writers ever wait
 * for each other, PostgreSQL ends one (40P01) and `writeTransaction` runs it again.
 *
 * @example await lockForWrite(trx, 'tribe_venue'); // then look up and insert
 */
import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from './schema.js';

/** Take the transaction-scoped lock named `key` (PostgreSQL; nothing on SQLite). */
export async function lockForWrite(db: Executor, key: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(hashtext(${`events-calendar:${key}`}))`.execute(db);
}
