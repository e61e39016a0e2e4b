/**
 * A cache valid for one data revision (`src/store/revision.ts`): entries are kept while the
 * revision stays the same and all dropped when it changes. Used for what is expensive to build and
 * identical for everyone at a given revision, such as the public representation of an event.
 *
 * The caller reads the revision *first*, then the data it builds from; an entry built while the
 * revision moved on is not stored (the cache has already switched to the newer revision), so no
 * entry is older than its revision.
 *
 * @example
 *   const cache = createRevisionCache<Record<string, unknown>>(5000);
 *   const view = cache.at(await dataRevision(db, dialect));
 *   const json = view.get('single:42') ?? build();
 *   view.set('single:42', json);
 */
import { registerKept } from '../metrics.js';

export interface RevisionView<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

export interface RevisionCache<V> {
  /** The entries of this revision (switching to it, and dropping the others, when it is new). */
  at(revision: string): RevisionView<V>;
}

/**
 * `kept`: where `/metrics` reports its size (`calendar_kept_entries{kind}`, issue 24), for a cache
 * that lives as long as `owner` (a store's handle).
 */
export function createRevisionCache<V>(maxEntries: number, kept?: { owner: object; kind: string }): RevisionCache<V> {
  let current: string | null = null;
  const entries = new Map<string, V>();
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
          if (current !== revision) return;
          if (entries.size >= maxEntries) entries.clear();
          entries.set(key, value);
        },
      };
    },
  };
}
