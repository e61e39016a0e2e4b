/**
 * Kept state: the domain's one cache component. Everything the services keep across requests
 * (event records, public representations, resolved list filters, linked records, term reference
 * answers, list representations of venues and organizers) is kept here, so what is kept, how it is
 * dropped, its bounds and its metrics are in one place.
 *
 * - **What is kept**: values built from stored records, each entry naming the records it was built
 *   from (`event:42`, `venue:7`, `term:3`, or `term:*` for "any term").
 * - **How it is dropped**: by the store's change feed (`store/change-feed.ts`): each batch of
 *   committed changes (this process's or another's) drops exactly the entries built from a record
 *   it names; a write no longer throws away what it did not touch. A batch the feed could not
 *   follow (`reset`) drops everything. An entry is only kept when the feed is still at the sequence
 *   number read before the data it was built from (`set(key, value, seq, deps)`): a change applied
 *   meanwhile might have been missed. What is valid for one data revision only (a `RevisionCache`,
 *   for values built from records that carry the revision they were read at) goes with any change.
 * - **Its bound**: at most `maxEntries` entries and, for values whose size varies, `maxBytes`
 *   estimated bytes (`sizeOf`); the oldest entries go first, and a value over a tenth of the byte
 *   bound is not kept.
 * - **Its metrics**: every structure registers with `registerKept` (`/metrics`:
 *   `calendar_kept_entries{kind}` and `calendar_kept_bytes{kind}` with their `_max`),
 *   owned by the store (its handle, `store.db`) it lives as long as.
 *
 * Pure-function memo tables (date formatting and the like) are not data and stay where they are.
 *
 * @example
 *   const kept = createKeptMap<Json>(store.feed, 5000, { owner: store.db, kind: 'lists' });
 *   const seq = await feed.sync();
 *   const json = kept.get('list:42') ?? build(); // built from event 42 and venue 7
 *   kept.set('list:42', json, seq, ['event:42', 'venue:7']);
 */
import type { ChangeBatch, ChangeFeed } from '../store/change-feed.js';
import { partsOf } from '../store/handle.js';
import type { Executor } from '../store/schema.js';
import { registerKept } from '../metrics.js';
import { createKeptEntries, type KeptEntries } from '../store/kept-entries.js';
import { LISTENER_GONE, type ChangeListener } from '../store/change-batches.js';
import { DEFAULT_CALENDAR_ID, acrossCalendars, calendarIdNow } from '../store/calendar-scope.js';

export { createRevisionCache, type RevisionCache, type RevisionView } from '../store/kept-entries.js';

export interface KeptMap<V> {
  get(key: string): V | undefined;
  /**
   * Keep a value built at `seq` from `deps` (nothing when the log moved past `seq`, or when the
   * doorkeeper lets the key in only at its next offer). `prepare` runs on the value only when it is
   * kept, before it is counted (the public representations' bytes: a value not kept is sent once
   * and costs no copy of its JSON). Returns whether it was kept.
   */
  set(key: string, value: V, seq: number, deps: readonly string[], prepare?: (value: V) => V): boolean;
  /** Replace a kept value by one derived from it (same records, same deps); nothing when not kept. */
  update(key: string, value: V): void;
  readonly size: number;
}

export interface KeptMapOptions {
  /** The store whose `/metrics` reports the map (its handle, `store.db`): the map lives as long as it. */
  owner: object;
  /**
   * What `/metrics` calls it (`calendar_kept_entries{kind}`, summed over the maps of one kind:
   * every kept structure has a bound and a metric).
   */
  kind?: string;
  /**
   * A bound in bytes besides the one in entries, for values whose size varies (representations,
   * records with their text): `sizeOf` estimates a value's bytes. A value larger than a tenth of
   * the bound is not kept.
   */
  maxBytes?: number;
  sizeOf?: (value: never) => number;
  /**
   * A term whose count alone moved does not drop what depends on it (`term:ID`): the map's user
   * brings the counts up to date when it reads a value (the public event representations patch
   * the counts of their terms from the kept term rows, `domain/events/`).
   */
  countsPatchedOnRead?: boolean;
  /**
   * Keep a key the second time it is set, not the first (a doorkeeper: `createDoorkeeper`). For maps
   * keyed by record over far more records than their bound: reads spread over 1,000,000 events
   * otherwise fill the map with entries pushed out before their second use, each first promoted to
   * V8's old generation, where it then lies as garbage (bench/RESULTS.md). A key
   * read again is kept at its second miss; one read once is not kept at all.
   */
  admitOnSecondUse?: boolean;
}

/**
 * Whether a key was offered once already, recently: a table of the hashes of keys offered once
 * (`slots`, rounded up to a power of two; 4 bytes each). A key found there is let in (and its slot
 * emptied); another is written over its slot, so a key offered again after many others may count as
 * new. A collision lets a key in early: harmless for a cache.
 */
export function createDoorkeeper(slots: number): (key: string) => boolean {
  const size = 2 ** Math.ceil(Math.log2(Math.max(16, slots)));
  const seen = new Int32Array(size);
  return (key) => {
    // FNV-1a, 32 bits; never 0, which marks an empty slot.
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h |= 1;
    const slot = (h >>> 1) & (size - 1);
    if (seen[slot] === h) {
      seen[slot] = 0;
      return true;
    }
    seen[slot] = h;
    return false;
  };
}

/**
 * The feed's listener of a kept map, made outside the map's scope: a closure made there would share
 * its context, and with it the entries, which the feed would then never let go.
 */
function weakListener<V>(weak: WeakRef<KeptEntries<V>>, countsPatchedOnRead: boolean): ChangeListener {
  return (batch) => {
    const kept = weak.deref();
    if (!kept) return LISTENER_GONE;
    dropChanged(kept, batch, countsPatchedOnRead);
  };
}

/** Drop from `kept` what a batch of changes names. */
function dropChanged<V>(kept: KeptEntries<V>, batch: ChangeBatch, countsPatchedOnRead: boolean): void {
  if (batch.reset) return kept.clear();
  if (kept.size === 0) return;
  for (const id of batch.eventIds) kept.dropDep(`event:${id}`);
  for (const id of batch.venues) kept.dropDep(`venue:${id}`);
  for (const id of batch.organizers) kept.dropDep(`organizer:${id}`);
  for (const id of batch.images) kept.dropDep(`image:${id}`);
  if (batch.terms.size) {
    kept.dropDep('term:*');
    for (const id of batch.terms) kept.dropDep(`term:${id}`);
  }
  // What shows a term shows its count: a moved count drops it too (`term:*`, which stands for
  // which terms exist and what they are called, stays).
  if (!countsPatchedOnRead) for (const id of batch.termCounts.keys()) kept.dropDep(`term:${id}`);
}

/**
 * Values kept while the change log says they are current: each entry names the records it was
 * built from, and a batch of changes drops exactly the entries built from what it names.
 */
export function createKeptMap<V>(feed: ChangeFeed, maxEntries: number, options: KeptMapOptions): KeptMap<V> {
  const sizeOf = options.sizeOf as ((value: V) => number) | undefined;
  const kept = createKeptEntries<V>(maxEntries, options.maxBytes, sizeOf);
  const admit = options.admitOnSecondUse ? createDoorkeeper(2 * maxEntries) : undefined;

  // One map for every calendar: a key is its calendar's (the same query, or an id a calendar has no
  // record of, means something else in another calendar), and the map hears every calendar's
  // changes (record ids are the service's, never two calendars' at once).
  const here = (key: string): string => {
    const calendar = calendarIdNow();
    return calendar === DEFAULT_CALENDAR_ID ? key : `${calendar}|${key}`;
  };
  // Held weakly by the feed: a map made for one set of links (a calendar's URLs) goes when they
  // do, instead of being kept by its listener for ever (one map per calendar ever asked).
  acrossCalendars(() => feed.subscribe(weakListener(new WeakRef(kept), options.countsPatchedOnRead === true)));

  registerKept(options.owner, options.kind ?? 'other', {
    entries: () => kept.size,
    maxEntries,
    ...(sizeOf && options.maxBytes !== undefined ? { bytes: () => kept.bytes, maxBytes: options.maxBytes } : {}),
  });

  return {
    get: (key) => kept.get(here(key)),
    update: (key, value) => kept.update(here(key), value),
    set(key, value, seq, deps, prepare) {
      if (feed.seq() !== seq) return false;
      const mine = here(key);
      if (admit && kept.get(mine) === undefined && !admit(mine)) return false;
      kept.put(mine, prepare ? prepare(value) : value, deps);
      return true;
    },
    get size() {
      return kept.size;
    },
  };
}

const MiB = 1024 * 1024;

/**
 * A rough size in bytes of a row-like value (its strings' lengths and 8 per other field, plus an
 * object's overhead), for the byte bounds of kept maps (`KeptMapOptions.maxBytes`).
 */
export function roughSizeOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? 16 + value.length : 8;
  let size = 64;
  for (const v of Object.values(value as Record<string, unknown>)) size += typeof v === 'string' ? 16 + v.length : typeof v === 'object' && v !== null ? roughSizeOf(v) : 8;
  return size;
}

/** Records by id from what is kept (`createKeptRecords`). */
export interface KeptRecords<V> {
  /**
   * The records with these ids (ids without one are left out), read on `trx` when that is not
   * the store's handle (a transaction sees its own writes). `current: false` answers from what
   * is kept without bringing the change feed up to date first (what a request already looked at:
   * a one-statement create's answer, which changed none of these records).
   */
  get(trx: Executor, ids: readonly number[], options?: { current?: boolean }): Promise<Map<number, V>>;
}

/**
 * Records of one kind kept by id across requests (null: no record of this kind has that id),
 * each until the change log names it (`${type}:${id}`): validations and the records events embed
 * (venues, organizers, images) then read no row. Misses are read with `read`, in one query.
 *
 * @example
 *   const venues = createKeptRecords(db, 'venue', (trx, ids) => findLinkedByIds(trx, 'venue', ids), counters.linkedRecords);
 *   (await venues.get(db, [7])).get(7) // the venue, read once, then kept
 */
export function createKeptRecords<V extends { id: number | string }>(
  db: Executor,
  type: string,
  read: (trx: Executor, ids: number[]) => Promise<V[]>,
  counters?: { hits: number; misses: number },
): KeptRecords<V> {
  const feed = partsOf(db)?.feed;
  const kept = feed ? createKeptMap<V | null>(feed, 5000, { owner: db, kind: `${type}_records`, maxBytes: 8 * MiB, sizeOf: roughSizeOf, admitOnSecondUse: true }) : undefined;
  return {
    async get(trx, ids, { current = true } = {}) {
      const unique = [...new Set(ids)];
      if (!kept || !feed || trx !== db) return new Map((await read(trx, unique)).map((r) => [Number(r.id), r]));
      const seq = current ? await feed.sync() : feed.seq();
      const out = new Map<number, V>();
      const missing: number[] = [];
      for (const id of unique) {
        const row = kept.get(String(id));
        if (row === undefined) missing.push(id);
        else if (row) out.set(id, row);
      }
      if (counters) {
        counters.hits += unique.length - missing.length;
        counters.misses += missing.length;
      }
      if (missing.length === 0) return out;
      for (const r of await read(db, missing)) out.set(Number(r.id), r);
      for (const id of missing) kept.set(String(id), out.get(id) ?? null, seq, [`${type}:${id}`]);
      return out;
    },
  };
}
