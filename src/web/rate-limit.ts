/**
 * RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW seconds, for every face: keyed by the user when the
 * request's credentials were valid (`req.viewer`, set by the face before this runs), else by the
 * client's address (as the login throttle counts it); exempt paths (health checks, metrics) are
 * never limited. Unknown URLs count too: give the 404 handler `app.rateLimit()` as its preHandler.
 *
 * @example await registerRateLimit(app, config, new Set(['/livez']));
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import type { Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { clientKeyOf } from './login-throttle.js';

/** The IETF draft's `RateLimit` field (draft-ietf-httpapi-ratelimit-headers-08 and later), beside X-RateLimit-*. */
export function rateLimitField(remaining: unknown, resetSeconds: unknown): string {
  return `"default";r=${String(remaining)};t=${String(resetSeconds)}`;
}

type Counted = { current: number; ttl: number };
/** The plugin's own in-memory store (the one it makes without a `store` option), kept here to count replayed answers in it. */
interface LocalStore {
  incr(key: string, cb: (err: Error | null, res: Counted) => void, timeWindow: number, max: number): void;
  read(key: string, cb: (err: Error | null, res: Counted) => void, timeWindow: number, max: number): void;
}
const LocalStoreOf = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => LocalStore;

/**
 * Count a request of an anonymous client by its address, as the plugin would (web/replay.ts):
 * its headers' values, or undefined when the request would go over the limit (nothing counted;
 * the plugin then counts it and answers 429).
 */
export type RateLimitTake = (ip: string) => { limit: number; remaining: number; reset: number } | undefined;

/** Register the limit (nothing when RATE_LIMIT_MAX is 0); before the routes it applies to. */
export async function registerRateLimit(app: FastifyInstance, config: Pick<Config, 'rateLimitMax' | 'rateLimitWindow'>, exempt: ReadonlySet<string>): Promise<RateLimitTake | undefined> {
  if (config.rateLimitMax <= 0) return undefined;
  // The plugin's default store (its LRU of 5,000 keys), made here so that replayed answers count in it too.
  const store = new LocalStoreOf(false, false, 5000);
  const max = config.rateLimitMax;
  const windowMs = config.rateLimitWindow * 1000;
  let lastIp = '';
  let lastKey = '';
  const take: RateLimitTake = (ip) => {
    if (ip !== lastIp) {
      lastIp = ip;
      lastKey = `ip:${clientKeyOf(ip)}`;
    }
    let counted: Counted = { current: 0, ttl: 0 };
    const got = (_err: Error | null, res: Counted) => {
      counted = res;
    };
    store.read(lastKey, got, windowMs, max);
    if (counted.current + 1 > max) return undefined;
    store.incr(lastKey, got, windowMs, max);
    return { limit: max, remaining: Math.max(0, max - counted.current), reset: Math.ceil(counted.ttl / 1000) };
  };
  await app.register(rateLimit, {
    store: function KeptStore() {
      return store;
    } as unknown as new () => never,
    global: true,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindow * 1000,
    hook: 'onRequest',
    keyGenerator: (req) => (req.viewer && req.viewer.id > 0 ? `user:${req.viewer.id}` : `ip:${clientKeyOf(req.ip)}`),
    allowList: (req) => exempt.has(req.routeOptions.url ?? req.url.split('?')[0]!),
    errorResponseBuilder: (_req, ctx) => new ApiError('rest_too_many_requests', `Too many requests. Try again in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} seconds.`, 429),
  });
  return take;
}
