/**
 * What the seeders (`calendar.ts`, `series.ts`) share: a deterministic PRNG, WordPress' slug
 * numbering over a set of taken slugs, UTC wall-time formatting for calendar arithmetic, and the
 * posts and events columns they write.
 */
import { sanitizeSlug } from '../domain/slugs.js';

/** A row for `BulkTransaction.insert`, in its columns' order. */
export type Cell = string | number | null;

/** mulberry32: a small, fast, deterministic PRNG in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));

/** A UTC Date's fields as a wall time string (used for calendar arithmetic, not for zones). */
export function wallOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** `fn` with its results remembered (for the few distinct inputs of one seed run). */
export function memo<K, V>(fn: (k: K) => V): (k: K) => V {
  const cache = new Map<K, V>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) {
      v = fn(k);
      cache.set(k, v);
    }
    return v;
  };
}

/** WordPress' wp_unique_post_slug numbering over an in-memory set of taken slugs. */
export function slugAllocator(taken: Set<string>, fallback: string): (title: string) => string {
  const next = new Map<string, number>();
  return (title) => {
    const base = sanitizeSlug(title) || fallback;
    if (!taken.has(base)) {
      taken.add(base);
      return base;
    }
    let suffix = next.get(base) ?? 2;
    while (taken.has(`${base}-${suffix}`)) suffix++;
    const slug = `${base}-${suffix}`;
    next.set(base, suffix + 1);
    taken.add(slug);
    return slug;
  };
}

/** The posts and events columns the bulk seed writes, in order (both seeders). */
export const POST_COLUMNS = [
  'id',
  'type',
  'author_id',
  'status',
  'pre_trash_status',
  'title',
  'content',
  'excerpt',
  'slug',
  'date_local',
  'date_gmt',
  'modified_local',
  'modified_gmt',
  'parent_id',
  'image_id',
] as const;
export const EVENT_COLUMNS = [
  'post_id',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'all_day',
  'cost',
  'currency_symbol',
  'currency_position',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
] as const;
