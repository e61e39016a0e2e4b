/**
 * The rate limit's count across instances (web/rate-limit.ts has the limit): each instance takes
 * grants of requests per client key from the database (`rate_limit_grants`, one atomic upsert per
 * grant, store/shared-limits.ts) and spends them in memory.
 *
 * @example
 *   const grants = createGrantStore(store.db, 600, 60_000);
 *   const { current, ttl } = await grants.count('ip:203.0.113.9');
 */
import type { Executor } from '../store/schema.js';
import { GRANT_SHAPE, takeRateGrant } from '../store/shared-limits.js';

/** Client keys kept per instance (their unspent grants); the oldest dropped beyond (its grant unspent). */
export const MAX_KEYS = 10_000;

export type Counted = { current: number; ttl: number };

/** A key's grant in this instance, for one window. */
interface Grant {
  window: number;
  /** requests granted to this instance and not spent yet */
  left: number;
  /** requests granted in the window over every instance, as of this instance's last grant */
  total: number;
  /** nothing left in the window (every instance's grants reached the limit) */
  exhausted: boolean;
  /** the size of the last grant taken */
  last: number;
  /** a grant being taken now (requests waiting for it share it) */
  taking?: Promise<void>;
}

/** The grants of one instance over the database (the plugin's store, and the replay's count). */
export function createGrantStore(db: Executor, max: number, windowMs: number, now: () => number = Date.now) {
  const grants = new Map<string, Grant>();
  const grantOf = (key: string, at: number): Grant => {
    const window = Math.floor(at / windowMs) * windowMs;
    let g = grants.get(key);
    if (g && g.window === window) return g;
    if (!g && grants.size >= MAX_KEYS) grants.delete(grants.keys().next().value!);
    g = { window, left: 0, total: 0, exhausted: false, last: 0 };
    grants.set(key, g);
    return g;
  };
  /**
   * Spend one request of the key's grant: what it counts, or undefined when none is left here.
   * Far from the limit (full grants), the next grant is taken once half of this one is spent, so
   * no request waits for the database (a write's commit takes milliseconds on PostgreSQL); near
   * the limit, grants shrink and are taken only when needed, so none is held back.
   */
  const spend = (key: string, g: Grant, at: number): Counted | undefined => {
    if (g.left <= 0) return undefined;
    g.left--;
    if (g.last >= GRANT_SHAPE.most && g.left <= g.last / 2 && !g.taking) take(key, g).catch(() => {});
    return { current: g.total - g.left, ttl: g.window + windowMs - at };
  };
  /** Take a grant from the database, once at a time per key. */
  const take = (key: string, g: Grant): Promise<void> =>
    (g.taking ??= takeRateGrant(db, key, g.window, max)
      .then(({ granted, total }) => {
        if (granted === 0) g.exhausted = true;
        g.left += granted;
        g.last = granted;
        g.total = Math.max(g.total, total);
      })
      .finally(() => {
        g.taking = undefined;
      }));

  return {
    /** Count a request now when this instance holds a grant for it; undefined when it must take one first (`count`). */
    countNow(key: string): Counted | undefined {
      const at = now();
      const g = grantOf(key, at);
      if (g.exhausted) return { current: max + 1, ttl: g.window + windowMs - at };
      return spend(key, g, at);
    },
    /** Count a request, taking a grant from the database when this instance has none left. */
    async count(key: string): Promise<Counted> {
      for (;;) {
        const at = now();
        const g = grantOf(key, at);
        if (g.exhausted) return { current: max + 1, ttl: g.window + windowMs - at };
        const counted = spend(key, g, at);
        if (counted) return counted;
        await take(key, g);
      }
    },
    /** Keys kept now (at most MAX_KEYS). */
    size: () => grants.size,
  };
}
