/**
 * The change log's number a sync token holds. Tokens show it to nobody (it is enciphered with the
 * database's secret: domain/sync.ts); a test opens it with the server's key, to check where a
 * calendar's tokens stand against the log.
 *
 * @example assert.ok((await tokenSeq(t, after)) > (await tokenSeq(t, before)));
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { openSyncToken, type SyncKey } from '../../src/domain/sync.js';
import type { TestServer } from './harness.js';

export async function tokenSeq(t: TestServer, token: string | null | undefined): Promise<number> {
  assert.ok(token, 'a sync token');
  const opened = openSyncToken(await t.built.services.versions.syncKey(), token);
  assert.ok(opened, `a token of this database: ${token}`);
  return opened.seq;
}

/**
 * A version 2 token, as this service issued before tokens were sealed: the position in clear, and
 * no calendar (a calendar's tokens then carried the whole log's number). Still taken until it
 * expires; made here as the old code made it.
 */
export function legacySyncToken(key: SyncKey, seq: number, nowMs: number): string {
  const payload = `2.${key.databaseId}.${seq}.${Math.floor(nowMs / 1000)}`;
  const mac = createHmac('sha256', key.secret).update(payload).digest().subarray(0, 16).toString('base64url');
  return Buffer.from(`${payload}.${mac}`).toString('base64url');
}
