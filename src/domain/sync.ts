/**
 * Sync tokens: every list answer carries `X-Sync-Token`, the change log's position at
 * the moment of the read; `?sync_token=` on a list answers only the records of that list changed
 * after it, in change order (each record at its first change after the token, so records never
 * move between pages while a client pages through), from the change log (`changes`), never by
 * scanning `modified` columns.
 *
 * A token is `base64url("3.<database id>.<sealed>.<issued, unix seconds>.<mac>")`. `sealed` is
 * the position with the calendar's id, enciphered (one AES-128 block, base64url): a reader cannot
 * tell how far apart two tokens are, so a calendar's tokens show nothing of how much the whole
 * service wrote between them, and a token opens in its own calendar only. `mac` is the first 16
 * bytes of HMAC-SHA256 of the text before it, base64url, keyed with a secret kept in the database
 * (`settings.sync_token_secret`, migration 012: every instance on one database shares it; the
 * cipher's key is derived from it). Clients treat it as opaque. A version 2 token (the position in
 * clear, no calendar: what this service issued before) is still taken until it expires, so that
 * clients holding one go on. A token is refused (410 `rest_sync_token_expired`) when it does not
 * parse, its MAC does not match (forged, altered, or a version 1 token of before), it names another
 * database or (version 3) another calendar, it is ahead of this one, was issued more than
 * SYNC_HISTORY_DAYS ago, when the first change after it was committed more than SYNC_HISTORY_DAYS
 * ago by the log's own timestamps (`created_gmt`) or was pruned (the calendar's `changes_pruned`),
 * or when a bulk load (`all`) happened after it.
 *
 * The validators that name a version (entity tags, CalDAV's `getctag`) show it the same way:
 * `versionTag` is a keyed hash of the calendar and the version, equal for equal versions on every
 * instance and telling nothing of the number.
 *
 * One answer reads at most SYNC_MAX_CHANGES log rows (whole writes); when more are left, its token
 * continues from the last write it read, and the answer says so (`X-Sync-More: true`).
 *
 * Who learns what: a record is listed in full when the caller's list shows it now; as a tombstone
 * (`{"id": N, "status": "trash" | "deleted"}`) when the list showed it to this caller at the
 * token's position or at some point since (its listing state before each logged change, kept in
 * the log's `detail`), and it is not shown now; otherwise not at all. So a caller never learns of
 * a record it could not read.
 *
 * @example
 *   const key = await services.versions.syncKey();
 *   const token = encodeSyncToken(key, 1043, Date.now()); // 'My5hYmMxMjMuV3JK…' (in the calendar at hand)
 *   decodeSyncToken(token, { key, seq: 1050, historyDays: 30, now: Date.now() }) // 1043
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { calendarIdNow } from '../calendar-now.js';
import type { Executor } from '../store/schema.js';
import { readChanges } from '../store/change-log.js';
import { syncTokenSecret } from '../store/settings.js';
import { prunedThrough } from '../store/change-pruning.js';
import { existingPostIds } from '../store/posts.js';
import { taxonomiesOf } from '../store/terms.js';
import { apiError } from './errors.js';

/** What signs a database's tokens: its id and its secret. */
export interface SyncKey {
  databaseId: string;
  secret: Buffer;
}

/**
 * A store's token key, read once (neither part ever changes; a failed read is tried again).
 *
 * @example const keyOf = syncKeyReader(db, () => versions.databaseId()); await keyOf();
 */
export function syncKeyReader(db: Executor, databaseId: () => Promise<string>): () => Promise<SyncKey> {
  let key: Promise<SyncKey> | undefined;
  return () => {
    if (!key) {
      key = Promise.all([databaseId(), syncTokenSecret(db)]).then(([id, secret]) => ({ databaseId: id, secret: Buffer.from(secret, 'hex') }));
      key.catch(() => {
        key = undefined;
      });
    }
    return key;
  };
}

/** What a secret keys: the tokens' MAC (the secret itself), the cipher of their positions and the version tags (each derived from it). */
interface Keys {
  mac: KeyObject;
  seal: KeyObject;
  tag: KeyObject;
}

/** Each secret's keys, made once (an HMAC over a raw buffer prepares the key on every call). */
const keysOf = new WeakMap<Buffer, Keys>();

function keys(secret: Buffer): Keys {
  let k = keysOf.get(secret);
  if (!k) {
    const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
    k = { mac: createSecretKey(secret), seal: createSecretKey(derive('sync token position').subarray(0, 16)), tag: createSecretKey(derive('version tag')) };
    keysOf.set(secret, k);
  }
  return k;
}

function macOf(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', keys(secret).mac).update(payload).digest().subarray(0, 16);
}

/** One AES block: the calendar's id, four zero bytes, the position; base64url (22 characters). */
function seal(secret: Buffer, calendar: number, seq: number): string {
  const block = Buffer.alloc(16);
  block.writeUInt32BE(calendar, 0);
  block.writeBigUInt64BE(BigInt(seq), 8);
  const cipher = createCipheriv('aes-128-ecb', keys(secret).seal, null).setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
}

/** The calendar and position `seal` enciphered, or undefined (not a block of this secret's). */
function unseal(secret: Buffer, sealed: string): { calendar: number; seq: number } | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length !== 16) return undefined;
  const decipher = createDecipheriv('aes-128-ecb', keys(secret).seal, null).setAutoPadding(false);
  const block = Buffer.concat([decipher.update(bytes), decipher.final()]);
  const seq = block.readBigUInt64BE(8);
  if (block.readUInt32BE(4) !== 0 || seq > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { calendar: block.readUInt32BE(0), seq: Number(seq) };
}

/** Tags made lately, by secret: most answers name one of a few versions (cleared when full). */
const tagsOf = new WeakMap<Buffer, Map<string, string>>();
const MAX_TAGS = 10_000;

/**
 * How a validator names a version (a calendar's data revision, a record's change number): a keyed
 * hash of it and the calendar (16 characters), so that two tags tell whether they are equal and
 * nothing else, never the number nor how far apart two are.
 *
 * @example etag = `"${dbId}.L${versionTag(key, position.revision)}.${hash}"`
 */
export function versionTag(key: SyncKey, version: string | number, calendar = calendarIdNow()): string {
  const text = `${calendar}.${version}`;
  let tags = tagsOf.get(key.secret);
  if (!tags) tagsOf.set(key.secret, (tags = new Map()));
  let tag = tags.get(text);
  if (tag === undefined) {
    tag = createHmac('sha256', keys(key.secret).tag).update(text).digest('base64url').slice(0, 16);
    if (tags.size >= MAX_TAGS) tags.clear();
    tags.set(text, tag);
  }
  return tag;
}

/**
 * The last token made for each key and calendar: every list answer carries one, and most in a
 * second are the same (a calendar's readers at once; cleared when it holds many calendars).
 */
const lastTokens = new WeakMap<SyncKey, Map<number, { seq: number; second: number; token: string }>>();
const MAX_LAST_TOKENS = 1_000;

/** A token of position `seq` in `calendar` (by default the calendar at hand), issued at `nowMs`. */
export function encodeSyncToken(key: SyncKey, seq: number, nowMs: number, calendar = calendarIdNow()): string {
  const second = Math.floor(nowMs / 1000);
  let kept = lastTokens.get(key);
  if (!kept) lastTokens.set(key, (kept = new Map()));
  const last = kept.get(calendar);
  if (last !== undefined && last.seq === seq && last.second === second) return last.token;
  const payload = `3.${key.databaseId}.${seal(key.secret, calendar, seq)}.${second}`;
  const token = Buffer.from(`${payload}.${macOf(key.secret, payload).toString('base64url')}`).toString('base64url');
  if (kept.size >= MAX_LAST_TOKENS) kept.clear();
  kept.set(calendar, { seq, second, token });
  return token;
}

/**
 * What a token this database issued holds, whether or not it is still valid: its position, its
 * calendar (undefined for a version 2 token, which named none) and when it was issued; undefined
 * when it is not one (its MAC does not match). For tests and tools: a request's token goes through
 * `decodeSyncToken`, which keeps it to its calendar.
 */
export function openSyncToken(key: SyncKey, token: string): { seq: number; calendar: number | undefined; issuedMs: number } | undefined {
  const m = /^(([23])\.([0-9a-f]+)\.([A-Za-z0-9_-]{1,22})\.(\d{1,12}))\.([A-Za-z0-9_-]{22})$/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  if (!m || m[3] !== key.databaseId) return undefined;
  const mac = Buffer.from(m[6]!, 'base64url');
  if (mac.length !== 16 || !timingSafeEqual(mac, macOf(key.secret, m[1]!))) return undefined;
  const issuedMs = Number(m[5]) * 1000;
  if (m[2] === '2') return /^\d{1,15}$/.test(m[4]!) ? { seq: Number(m[4]), calendar: undefined, issuedMs } : undefined;
  const sealed = unseal(key.secret, m[4]!);
  return sealed && { ...sealed, issuedMs };
}

/** The sequence number of a token, or a 410 `rest_sync_token_expired`. */
export function decodeSyncToken(token: unknown, current: { key: SyncKey; seq: number; historyDays: number; now: number; calendar?: number }): number {
  const expired = apiError('rest_sync_token_expired');
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(token)) throw expired;
  const opened = openSyncToken(current.key, token);
  // A version 2 token named no calendar: it is taken in any, as it was.
  if (!opened || (opened.calendar !== undefined && opened.calendar !== (current.calendar ?? calendarIdNow()))) throw expired;
  const { seq, issuedMs } = opened;
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

/** What one sync answer covers: the records changed in (from, through], `through` <= the position asked for. */
export interface Delta {
  records: ChangedRecord[];
  through: number;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC), as the log's `created_gmt`. */
function gmtOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The records of one type changed after `from`, ordered by their first change, from at most
 * `limit` log rows (whole writes; `through` says how far they reach, `to` when they reach it).
 * A 410 `rest_sync_token_expired` when the history after `from` is not all there: its first change
 * is older than `historyDays` by the log's timestamps, rows after it were pruned, or a bulk load
 * (`all`) happened in between (anything may have changed: a full sync is needed).
 */
async function changedRecords(db: Executor, type: 'event' | 'venue' | 'organizer' | 'term', from: number, to: number, options: { limit: number; historyDays: number; now: number }): Promise<Delta> {
  const expired = apiError('rest_sync_token_expired');
  const { rows, through } = await readChanges(db, from, to, options.limit);
  if (rows.length && rows[0]!.created_gmt < gmtOf(options.now - options.historyDays * 86_400_000)) throw expired;
  if (rows.some((r) => r.type === 'all')) throw expired;
  // Read after the rows: rows pruned meanwhile have raised it by now.
  if (from < (await prunedThrough(db))) throw expired;
  const byId = new Map<number, ChangedRecord>();
  for (const r of rows) {
    if (r.type !== type) continue;
    const id = r.id;
    let rec = byId.get(id);
    if (!rec) byId.set(id, (rec = { id, seq: r.seq, idx: r.idx, actions: [], details: [] }));
    rec.actions.push(r.action);
    rec.details.push(r.detail as Record<string, any> | null);
  }
  return { records: [...byId.values()], through };
}

/** What a caller's view is, for a delta: which records it shows now and showed before. */
export interface DeltaView {
  type: 'event' | 'venue' | 'organizer' | 'term';
  /** which of these ids the view shows now */
  matching(ids: number[]): Promise<Set<number>>;
  /** whether the view showed a record in this earlier state (the log's `detail.before`) */
  listed(before: any): boolean | undefined;
  /** whether a change with no logged state counts as shown (terms: public) */
  unknownShown: boolean;
}

/** A sync answer's records: those shown now and those the caller saw that are gone from its view. */
export interface SyncDelta {
  /** in change order: each shown now (`shownNow`), or listed to this caller since the token and gone */
  records: ChangedRecord[];
  shownNow: Set<number>;
  /** the log position this answer reaches (its next token's) */
  through: number;
}

/** More records changed than a client's limit allows, and no whole write fits (WebDAV's 507). */
export class DeltaTooLarge extends Error {}

/**
 * The one sync delta (the REST lists' `?sync_token=` and CalDAV's sync-collection): the records of
 * the view's type changed in (`from`, `to`], from at most `rows` log rows, each reported to the
 * caller when its view shows it now, or showed it at the token or since (then as gone); never a
 * record the caller could not read. `maxRecords` (a client's limit) cuts the answer before the
 * first record left out, so that the next token starts there (RFC 6578 §3.6; `DeltaTooLarge` when
 * even the first write's records are more). Expired history: 410 `rest_sync_token_expired`.
 *
 * @example
 *   const { records, shownNow, through } = await syncDelta(db, view, { from, to, rows: 1000, historyDays: 30, now: Date.now() });
 */
export async function syncDelta(db: Executor, view: DeltaView, options: { from: number; to: number; rows: number; historyDays: number; now: number; maxRecords?: number }): Promise<SyncDelta> {
  const delta = await changedRecords(db, view.type, options.from, options.to, { limit: options.rows, historyDays: options.historyDays, now: options.now });
  let records = delta.records;
  let through = delta.through;
  if (options.maxRecords !== undefined && records.length > options.maxRecords) {
    // The next token starts before the first record left out: every record after the cut comes
    // next time (those of the cut's write again).
    const cut = records[options.maxRecords]!.seq;
    if (cut - 1 <= options.from) throw new DeltaTooLarge();
    records = records.filter((r) => r.seq < cut);
    through = cut - 1;
  }
  if (records.length === 0) return { records, shownNow: new Set(), through };
  const shownNow = await view.matching(records.map((r) => r.id));
  return { records: records.filter((r) => shownNow.has(r.id) || everListed(r, view.listed, view.unknownShown)), shownNow, through };
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

/** What a record gone from a caller's view is now: 'trash' (it still exists), 'deleted', or null (not this view's). */
export type Tombstone = 'trash' | 'deleted' | null;

/** Tombstones of posts: 'trash' while the row exists (trashed, or hidden from the caller), else 'deleted'. */
export async function postTombstones(db: Executor, ids: number[]): Promise<Map<number, Tombstone>> {
  const existing = await existingPostIds(db, ids);
  return new Map(ids.map((id) => [id, existing.has(id) ? 'trash' : 'deleted']));
}

/**
 * Tombstones of terms of one taxonomy: 'trash' while the term exists, 'deleted' once gone, null for
 * a term of another taxonomy (by its row, or by what the log said of it when it is gone).
 */
export async function termTombstones(db: Executor, taxonomy: string, ids: number[], details: Map<number, Array<Record<string, any> | null>>): Promise<Map<number, Tombstone>> {
  const taxonomyOf = await taxonomiesOf(db, ids);
  const out = new Map<number, Tombstone>();
  for (const id of ids) {
    const was = taxonomyOf.get(id) ?? details.get(id)?.find((d) => d?.taxonomy)?.taxonomy;
    out.set(id, was !== undefined && was !== taxonomy ? null : taxonomyOf.has(id) ? 'trash' : 'deleted');
  }
  return out;
}
