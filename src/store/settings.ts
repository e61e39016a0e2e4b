/**
 * The `settings` table (migration 012): small values kept in the database and shared by every
 * instance on it (the sync token key).
 *
 * @example
 *   const secret = await syncTokenSecret(db); // '9f2c…' (64 hex digits), the same for every instance
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
