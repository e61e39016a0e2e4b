/**
 * Fedify's key-value store over our database (`federation_kv`, migration 016), so that what Fedify
 * keeps (fetched public keys, the ids of activities already received, signature-spec choices)
 * survives restarts and is shared by every instance. Keys are stored as their JSON array text,
 * so a prefix of a key is a prefix of its text (without the closing bracket); values as JSON.
 * Its rows are the calendar's whose work is at hand (its actor's fetches, the activities it was
 * sent): each calendar has its own cache.
 *
 * @example
 *   const kv = createKvStore(services.federationStore);
 *   await kv.set(['_fedify', 'x'], { a: 1 }, { ttl: Temporal.Duration.from({ minutes: 5 }) });
 */
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { FederationStore } from '../domain/federation-store.js';

const encode = (key: KvKey) => JSON.stringify(key);
const expiry = (options?: KvStoreSetOptions): number | null => (options?.ttl ? Date.now() + options.ttl.total('millisecond') : null);
const text = (value: unknown) => JSON.stringify(value === undefined ? null : value);

export interface PurgeableKvStore extends KvStore {
  /** Drop expired entries (the delivery job calls it now and then). */
  purge(): Promise<number>;
}

export function createKvStore(store: FederationStore): PurgeableKvStore {
  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      const v = await store.kvGet(encode(key), Date.now());
      return v === undefined ? undefined : (JSON.parse(v) as T);
    },
    async set(key, value, options) {
      await store.kvSet(encode(key), text(value), expiry(options));
    },
    async delete(key) {
      await store.kvDelete(encode(key));
    },
    async cas(key, expected, value, options) {
      return store.kvCas(encode(key), expected === undefined ? null : text(expected), text(value), expiry(options), Date.now());
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      // ["a","b"] has the prefix ["a"] when its text starts with `["a",` (or is `["a"]`).
      const p = prefix === undefined ? undefined : encode(prefix).slice(0, -1);
      for (const row of await store.kvList(p, Date.now())) {
        const key = JSON.parse(row.key) as KvKey;
        if (prefix && (key.length < prefix.length || prefix.some((part, i) => key[i] !== part))) continue;
        yield { key, value: JSON.parse(row.value) as unknown };
      }
    },
    purge: () => store.kvPurge(Date.now()),
  };
}
