/**
 * RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW seconds, for every face: keyed by the user when the
 * request's credentials were valid (`req.viewer`, set by the face before this runs), else by the
 * client's address (as the login throttle counts it); exempt paths (health checks, metrics) are
 * never limited. Unknown URLs count too: give the 404 handler `app.rateLimit()` as its preHandler.
 *
 * The count holds across every instance on one database (table `rate_limit_grants`,
 * store/shared-limits.ts) without a write per request: windows are fixed (multiples of the window
 * since the epoch, the same on every instance), and an instance takes a *grant* of requests for a
 * client key in one atomic upsert — an eighth of what remains of the key's window, at most 100, at
 * least 1, never more than remains — and spends it in memory. The grants of all instances never
 * add up past the limit; near the end of a window they shrink to one request, so a client sent to
 * several instances is refused early by at most the few requests another instance still holds. A
 * client far below its limit costs one write per 100 requests, taken ahead (once half the last
 * grant is spent) so that no request waits for it.
 *
 * A database fault while taking a grant lets the request through uncounted (the plugin's
 * `skipOnError`): a rate limit must not turn kept answers into errors while the database is away.
 *
 * @example await registerRateLimit(app, config, store.db, new Set(['/livez']));
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import type { Executor } from '../store/schema.js';
import { clientKeyOf } from '../domain/client-address.js';
import { createGrantStore, type Counted } from '../domain/rate-grants.js';

/** The IETF draft's `RateLimit` field (draft-ietf-httpapi-ratelimit-headers-08 and later), beside X-RateLimit-*. */
export function rateLimitField(remaining: unknown, resetSeconds: unknown): string {
  return `"default";r=${String(remaining)};t=${String(resetSeconds)}`;
}

/**
 * Count a request of an anonymous client by its address, as the plugin would (web/replay.ts):
 * its headers' values (at once when this instance holds a grant for the client, else once one is
 * taken), or undefined when the request is over the limit (the plugin then answers 429).
 */
export type RateLimitTake = (ip: string) => RateLimitAnswer | undefined | Promise<RateLimitAnswer | undefined>;
export interface RateLimitAnswer {
  limit: number;
  remaining: number;
  reset: number;
}

/** Register the limit (nothing when RATE_LIMIT_MAX is 0); before the routes it applies to. */
export async function registerRateLimit(app: FastifyInstance, config: Pick<Config, 'rateLimitMax' | 'rateLimitWindow'>, db: Executor, exempt: ReadonlySet<string>): Promise<RateLimitTake | undefined> {
  if (config.rateLimitMax <= 0) return undefined;
  const max = config.rateLimitMax;
  const windowMs = config.rateLimitWindow * 1000;
  const store = createGrantStore(db, max, windowMs);
  let lastIp = '';
  let lastKey = '';
  const answerOf = (counted: Counted): RateLimitAnswer | undefined =>
    counted.current > max ? undefined : { limit: max, remaining: Math.max(0, max - counted.current), reset: Math.ceil(counted.ttl / 1000) };
  const take: RateLimitTake = (ip) => {
    if (ip !== lastIp) {
      lastIp = ip;
      lastKey = `ip:${clientKeyOf(ip)}`;
    }
    const now = store.countNow(lastKey);
    if (now) return answerOf(now);
    return store.count(lastKey).then(answerOf);
  };
  /** The plugin's store interface (incr with a callback), over the grants. */
  class GrantStore {
    incr(key: string, cb: (err: Error | null, res?: Counted) => void): void {
      const now = store.countNow(key);
      if (now) return cb(null, now);
      store.count(key).then(
        (counted) => cb(null, counted),
        (err: Error) => cb(err),
      );
    }
    child(): GrantStore {
      return this;
    }
  }
  await app.register(rateLimit, {
    store: GrantStore as unknown as new () => never,
    global: true,
    max,
    timeWindow: windowMs,
    hook: 'onRequest',
    skipOnError: true,
    keyGenerator: (req) => (req.viewer && req.viewer.id > 0 ? `user:${req.viewer.id}` : `ip:${clientKeyOf(req.ip)}`),
    allowList: (req) => exempt.has(req.routeOptions.url ?? req.url.split('?')[0]!),
    errorResponseBuilder: (_req, ctx) => new ApiError('rest_too_many_requests', `Too many requests. Try again in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} seconds.`, 429),
  });
  return take;
}
