/**
 * The `settings` table (migration 012): small values kept in the database and shared by every
 * instance on it (the sync token key, how far the change log was pruned).
 *
 * @example
 *   const secret = await syncTokenSecret(db); // '9f2c…' (64 hex digits), the same for every instance
 *   await prunedThrough(db) // 0 until the pruning job deletes log rows
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from './schema.js';

async function readSetting(db: Executor, name: string): Promise<string | undefined> {
  const r = await sql<{ value: string }>`select "value" from "settings" where "name" = ${name}`.execute(db);
  return r.rows[0]?.value;
}

/**
 * The HMAC key of sync tokens. Made by migration 012; should the row be missing, it is made here
 * with an insert that does nothing when another instance made it first, and read back: every
 * instance ends up with the one in the database.
 */
export async function syncTokenSecret(db: Executor): Promise<string> {
  const found = await readSetting(db, 'sync_token_secret');
  if (found) return found;
  await sql`insert into "settings" ("name", "value") values ('sync_token_secret', ${randomBytes(32).toString('hex')}) on conflict ("name") do nothing`.execute(db);
  return (await readSetting(db, 'sync_token_secret'))!;
}

/** The highest sequence number whose log rows were pruned (0: none). */
export async function prunedThrough(db: Executor): Promise<number> {
  return Number((await readSetting(db, 'changes_pruned_seq')) ?? 0);
}

/** Record that log rows up to `seq` were pruned (never moves back: concurrent pruners may finish in any order). */
export async function raisePrunedThrough(db: Executor, seq: number): Promise<void> {
  const value = String(seq);
  const moved = await sql`update "settings" set "value" = ${value} where "name" = 'changes_pruned_seq' and cast("value" as bigint) < ${seq}`.execute(db);
  if (Number(moved.numAffectedRows ?? 0) > 0) return;
  await sql`insert into "settings" ("name", "value") values ('changes_pruned_seq', ${value}) on conflict ("name") do nothing`.execute(db);
}
