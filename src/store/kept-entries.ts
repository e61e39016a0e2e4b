/**
 * The storage under every kept structure (domain/kept.ts describes the component: what is kept,
 * how the change log drops it, its bounds and metrics): bounded entries that name the records each
 * was built from, and revision caches (values valid for one data revision). It lives in the store
 * so that the store's own caches (term pages, venue and organizer totals and pages: `revisionMemo`)
 * use the same one; domain/kept.ts re-exports what the services use.
 *
 * @example
 *   const cache = createRevisionCache<number>(1000, { owner: store.db, kind: 'linked_totals' });
 *   const view = cache.at(revision);
 *   const n = view.get('venue:all') ?? (await count());
 */
import { registerKept } from '../metrics.js';

/** Bounded entries with the records each names: the storage under every kept structure. */
export interface KeptEntries<V> {
  get(key: string): V | undefined;
  /** Keep `value` under `key` (replacing what was), making room first; a value too large is not kept. */
  put(key: string, value: V, deps: readonly string[]): void;
  /** Replace a kept value (same deps); nothing when not kept. */
  update(key: string, value: V): void;
  /** Drop the entries built from this record. */
  dropDep(dep: string): void;
  clear(): void;
  readonly size: number;
  readonly bytes: number;
}

export function createKeptEntries<V>(maxEntries: number, maxBytesOption: number | undefined, sizeOf: ((value: V) => number) | undefined): KeptEntries<V> {
  const entries = new Map<string, { value: V; deps: readonly string[]; bytes: number }>();
  const byDep = new Map<string, Set<string>>();
  const maxBytes = sizeOf ? (maxBytesOption ?? Infinity) : Infinity;
  let bytes = 0;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
    for (const d of entry.deps) {
      const keys = byDep.get(d);
      keys?.delete(key);
      if (keys && keys.size === 0) byDep.delete(d);
    }
  };
  /** Make room for one more entry of `size` bytes: the oldest entries go first (a Map iterates in insertion order). */
  const makeRoom = (size: number) => {
    for (const key of entries.keys()) {
      if (entries.size < maxEntries && bytes + size <= maxBytes) break;
      drop(key);
    }
  };

  return {
    get: (key) => entries.get(key)?.value,
    put(key, value, deps) {
      const size = sizeOf ? sizeOf(value) : 0;
      drop(key);
      if (size > maxBytes / 10) return;
      makeRoom(size);
      entries.set(key, { value, deps, bytes: size });
      bytes += size;
      for (const d of deps) {
        let keys = byDep.get(d);
        if (!keys) byDep.set(d, (keys = new Set()));
        keys.add(key);
      }
    },
    update(key, value) {
      const entry = entries.get(key);
      if (!entry) return;
      const size = sizeOf ? sizeOf(value) : 0;
      bytes += size - entry.bytes;
      entry.value = value;
      entry.bytes = size;
      if (bytes > maxBytes) drop(key);
    },
    dropDep(dep) {
      const keys = byDep.get(dep);
      if (keys) for (const key of [...keys]) drop(key);
    },
    clear() {
      entries.clear();
      byDep.clear();
      bytes = 0;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}

/** The entries of one data revision (`RevisionCache.at`). */
export interface RevisionView<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

/**
 * Values valid for one data revision (`store/revision.ts`), for callers that hold the revision
 * their records were read at (`revisionOf`) rather than the feed's number: entries are kept while
 * the revision stays the same and all dropped when it changes. Read the revision first, then the
 * data; an entry built while the revision moved on is not stored.
 */
export interface RevisionCache<V> {
  /** The entries of this revision (switching to it, and dropping the others, when it is new). */
  at(revision: string): RevisionView<V>;
}

/**
 * A `RevisionCache` of at most `maxEntries` (the oldest go first). `kept`: where `/metrics` reports
 * its size (`calendar_kept_entries{kind}`), for a cache that lives as long as `owner` (a store's handle).
 *
 * @example
 *   const cache = createRevisionCache<Record<string, unknown>>(2000, { owner: db, kind: 'venue_representations' });
 *   const view = cache.at(revisionOf(records[0]));
 *   const json = view.get('list:7') ?? build();
 */
export function createRevisionCache<V>(maxEntries: number, kept?: { owner: object; kind: string }): RevisionCache<V> {
  let current: string | null = null;
  const entries = createKeptEntries<V>(maxEntries, undefined, undefined);
  if (kept) registerKept(kept.owner, kept.kind, { entries: () => entries.size, maxEntries });
  return {
    at(revision) {
      if (revision !== current) {
        entries.clear();
        current = revision;
      }
      return {
        get: (key) => (current === revision ? entries.get(key) : undefined),
        set(key, value) {
          if (current === revision) entries.put(key, value, []);
        },
      };
    },
  };
}
