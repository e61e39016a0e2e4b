/**
 * Sync tokens (issue 11): every list answer carries `X-Sync-Token`, the change log's position at
 * the moment of the read; `?sync_token=` on a list answers only the records of that list changed
 * after it, in change order (each record at its first change after the token, so records never
 * move between pages while a client pages through), from the change log (`changes`), never by
 * scanning `modified` columns.
 *
 * A token is `base64url("1.<database id>.<seq>.<issued, unix seconds>")`. It is refused (410
 * `rest_sync_token_expired`) when it does not parse, names another database, is ahead of this one,
 * is older than SYNC_HISTORY_DAYS, or when a bulk load (`all`) happened after it.
 *
 * Who learns what: a record is listed in full when the caller's list shows it now; as a tombstone
 * (`{"id": N, "status": "trash" | "deleted"}`) when the list showed it to this caller at the
 * token's position or at some point since (its listing state before each logged change, kept in
 * the log's `detail`), and it is not shown now; otherwise not at all. So a caller never learns of
 * a record it could not read.
 *
 * @example
 *   const token = encodeSyncToken(dbId, 1043, Date.now()); // 'MS5hYmMxMjMuMTA0My4xNzk1…'
 *   decodeSyncToken(token, { databaseId: dbId, seq: 1050, historyDays: 30, now: Date.now() }) // 1043
 */
import type { Executor } from '../store/schema.js';
import { apiError } from './errors.js';

export function encodeSyncToken(databaseId: string, seq: number, nowMs: number): string {
  return Buffer.from(`1.${databaseId}.${seq}.${Math.floor(nowMs / 1000)}`).toString('base64url');
}

/** The sequence number of a token, or a 410 `rest_sync_token_expired`. */
export function decodeSyncToken(token: unknown, current: { databaseId: string; seq: number; historyDays: number; now: number }): number {
  const expired = apiError('rest_sync_token_expired');
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(token)) throw expired;
  const m = /^1\.([0-9a-f]+)\.(\d{1,15})\.(\d{1,12})$/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  if (!m || m[1] !== current.databaseId) throw expired;
  const seq = Number(m[2]);
  const issuedMs = Number(m[3]) * 1000;
  if (seq > current.seq || issuedMs < current.now - current.historyDays * 86_400_000 || issuedMs > current.now + 86_400_000) throw expired;
  return seq;
}

/** One record's changes after a token: where it comes in change order, and its states before each. */
export interface ChangedRecord {
  id: number;
  /** order key: its first change after the token */
  seq: number;
  idx: number;
  actions: string[];
  /** the `detail` of each change, parsed (null when none was logged) */
  details: Array<Record<string, any> | null>;
}

/**
 * The records of one type changed in (from, to], ordered by their first change; undefined when a
 * bulk load (`all`) happened in between (anything may have changed: a full sync is needed).
 */
export async function changedRecords(db: Executor, type: 'event' | 'venue' | 'organizer' | 'term', from: number, to: number): Promise<ChangedRecord[] | undefined> {
  if (to <= from) return [];
  const reset = await db.selectFrom('changes').select('seq').where('record_type', '=', 'all').where('seq', '>', from).where('seq', '<=', to).limit(1).executeTakeFirst();
  if (reset) return undefined;
  const rows = await db
    .selectFrom('changes')
    .select(['seq', 'idx', 'record_id', 'action', 'detail'])
    .where('seq', '>', from)
    .where('seq', '<=', to)
    .where('record_type', '=', type)
    .orderBy('seq')
    .orderBy('idx')
    .execute();
  const byId = new Map<number, ChangedRecord>();
  for (const r of rows) {
    const id = Number(r.record_id);
    let rec = byId.get(id);
    if (!rec) byId.set(id, (rec = { id, seq: Number(r.seq), idx: Number(r.idx), actions: [], details: [] }));
    rec.actions.push(r.action);
    rec.details.push(r.detail ? (JSON.parse(r.detail) as Record<string, any>) : null);
  }
  return [...byId.values()];
}

/**
 * Whether a caller's list showed a record at some point since the token, from its logged states
 * before each change: `listed(before)` tells for one state (undefined: cannot tell, counted as
 * shown only when `unknownShown`). A record created after the token starts unseen.
 */
export function everListed(rec: ChangedRecord, listed: (before: any) => boolean | undefined, unknownShown: boolean): boolean {
  for (let i = 0; i < rec.actions.length; i++) {
    if (rec.actions[i] === 'create' && i === 0) continue;
    const detail = rec.details[i];
    const before = detail && 'before' in detail ? detail.before : undefined;
    if (before === null) continue;
    if (before === undefined) {
      if (unknownShown) return true;
      continue;
    }
    const shown = listed(before);
    // Undefined here means the state passed the visibility checks but not all filters could be
    // tested (a search over text not kept): the caller could read it, so it counts as shown.
    if (shown !== false) return true;
  }
  return false;
}
