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
import type { Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { clientKeyOf } from './login-throttle.js';

/** Register the limit (nothing when RATE_LIMIT_MAX is 0); before the routes it applies to. */
export async function registerRateLimit(app: FastifyInstance, config: Pick<Config, 'rateLimitMax' | 'rateLimitWindow'>, exempt: ReadonlySet<string>): Promise<void> {
  if (config.rateLimitMax <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindow * 1000,
    hook: 'onRequest',
    keyGenerator: (req) => (req.viewer && req.viewer.id > 0 ? `user:${req.viewer.id}` : `ip:${clientKeyOf(req.ip)}`),
    allowList: (req) => exempt.has(req.routeOptions.url ?? req.url.split('?')[0]!),
    errorResponseBuilder: (_req, ctx) => new ApiError('rest_too_many_requests', `Too many requests. Try again in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} seconds.`, 429),
  });
}
