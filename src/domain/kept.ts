/**
 * Values kept across requests while the change log says they are current: each entry names the
 * records it was built from (`event:42`, `venue:7`, `term:3`, or `term:*` for "any term"), and a
 * change to one of them drops exactly the entries built from it. A write no longer throws away
 * what it did not touch.
 *
 * An entry is only kept when the feed is still at the sequence number read before the data it was
 * built from (`set(key, value, seq, deps)`): a change applied meanwhile might have been missed.
 *
 * @example
 *   const kept = createKeptMap<Json>(feedOf(db)!, 5000);
 *   const seq = await feed.sync();
 *   const json = kept.get('list:42') ?? build(); // built from event 42 and venue 7
 *   kept.set('list:42', json, seq, ['event:42', 'venue:7']);
 */
import type { ChangeBatch, ChangeFeed } from '../store/change-feed.js';

export interface KeptMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, seq: number, deps: readonly string[]): void;
  readonly size: number;
}

export function createKeptMap<V>(feed: ChangeFeed, maxEntries: number): KeptMap<V> {
  const entries = new Map<string, { value: V; deps: readonly string[] }>();
  const byDep = new Map<string, Set<string>>();

  const clear = () => {
    entries.clear();
    byDep.clear();
  };
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    for (const d of entry.deps) {
      const keys = byDep.get(d);
      keys?.delete(key);
      if (keys && keys.size === 0) byDep.delete(d);
    }
  };
  const dropDep = (dep: string) => {
    const keys = byDep.get(dep);
    if (keys) for (const key of [...keys]) drop(key);
  };

  feed.subscribe((batch: ChangeBatch) => {
    if (batch.reset) return clear();
    if (entries.size === 0) return;
    for (const id of batch.eventIds) dropDep(`event:${id}`);
    for (const id of batch.venues) dropDep(`venue:${id}`);
    for (const id of batch.organizers) dropDep(`organizer:${id}`);
    for (const id of batch.images) dropDep(`image:${id}`);
    if (batch.terms.size) {
      dropDep('term:*');
      for (const id of batch.terms) dropDep(`term:${id}`);
    }
    // What shows a term shows its count: a moved count drops it too (`term:*`, which stands for
    // which terms exist and what they are called, stays).
    for (const id of batch.termCounts.keys()) dropDep(`term:${id}`);
  });

  return {
    get: (key) => entries.get(key)?.value,
    set(key, value, seq, deps) {
      if (feed.seq() !== seq) return;
      if (entries.has(key)) drop(key);
      else if (entries.size >= maxEntries) clear();
      entries.set(key, { value, deps });
      for (const d of deps) {
        let keys = byDep.get(d);
        if (!keys) byDep.set(d, (keys = new Set()));
        keys.add(key);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
