/**
 * `buildApp(config)`: the Fastify application with every route, used by the server, the tests and
 * the benchmark. It does not listen; `server.ts` does.
 *
 * @example
 *   const { app, close } = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:' }));
 *   await app.listen({ port: 0 });
 */
import compress from '@fastify/compress';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerOptions } from 'node:http';
import { constants as zlibConstants } from 'node:zlib';
import qs from 'qs';
import { NAMESPACE, WORDPRESS_REST_ROOT, type Config } from '../config.js';
import { isValidTimezone } from '../domain/dates/index.js';
import { ApiError, apiError, faultError } from '../domain/errors.js';
import { createServices, type Services } from '../domain/services.js';
import { openStore, type OpenOptions, type Store } from '../store/db.js';
import type { Links } from '../domain/links.js';
import { DOCS_PAGE_PATH, registerDocsPage } from './docs-page.js';
import { JSONP_CONTENT_TYPE, jsonpCallbackOf, wrapJsonp } from './jsonp.js';
import { clientKeyOf, createLoginThrottle } from '../web/login-throttle.js';
import { METRICS_PATH, registerMetrics } from './metrics.js';
import { registerSlowRequestLog, watchLoop, type LoopWatch } from '../web/loop-delay.js';
import { allowForError, basePath, registerRoutes, sendJson } from './pipeline.js';
import { storeFault } from '../store/faults.js';
import { registerHealthRoutes } from './health.js';
import { BODY_LIMIT, clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH, requestErrorOf } from '../web/hostile-input.js';
import { apiRoutes } from './routes/index.js';
import { rootIndex } from './self-description.js';
import { answerConditional, etagOfBody, registerConditional } from '../web/conditional.js';
import { ADMIN_NAMESPACE, adminRoutes } from './routes/admin-webhooks.js';
import { adminEventRoutes } from './routes/admin-events.js';
import { createWebhookService, type WebhookService } from '../webhooks/service.js';
import { pollIntervalMs, startWebhookWorker, type WebhookWorker } from '../jobs/webhook-delivery.js';
import { startHorizonJob, type HorizonJob } from '../jobs/horizon.js';
import { startPruneJob, type PruneJob } from '../jobs/change-log-pruning.js';
import { jsonBody } from '../domain/serialized.js';
import { sitePageHtml } from './site-page.js';
import { registerCalendarPages } from '../pages/routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer is the site page or a calendar page or feed (not an API answer: no `X-Robots-Tag: noindex`). */
    sitePage?: boolean;
  }
}

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  store: Store;
  /** Webhook endpoints and deliveries (issue 11). */
  webhooks: WebhookService;
  /** The background webhook worker (undefined when `webhooks: false`). */
  webhookWorker?: WebhookWorker;
  /** The job extending recurring events' occurrences (issue 15). */
  horizonJob: HorizonJob;
  /** The job pruning the change log past SYNC_HISTORY_DAYS (issue 24). */
  pruneJob: PruneJob;
  /** The watch of the event loop (which requests hold it; loop-delay.ts). */
  loopWatch: LoopWatch;
  /** Stop the server, then close the store; `progress` hears each step as it starts. */
  close(progress?: (step: string) => void): Promise<void>;
}

export interface BuildOptions {
  /** Use this store instead of opening config.databaseUrl (tests, benchmark). */
  store?: Store;
  storeOptions?: OpenOptions;
  /** Fastify logger: true/false or options. */
  logger?: boolean | object;
  /** Run the webhook worker (default true). */
  webhooks?: boolean;
}

/**
 * Query strings and form bodies: at most {@link MAX_PARAMETERS} parameters (PHP's default
 * `max_input_vars`, which WordPress runs under) nested at most {@link MAX_PARAMETER_DEPTH} levels
 * (`a[b][c][d][e][f]`). More is refused (400 `rest_too_many_params` / `rest_params_too_deep`)
 * before qs parses anything, instead of being cut silently: parsing is then bounded (a few
 * milliseconds at 1000 parameters, nested or not). An index beyond `arrayLimit` (`a[500]=x`) makes an object
 * of the array, as qs does; list arguments count its keys (route.ts' maxItems).
 */
export const MAX_PARAMETERS = 1000;
export const MAX_PARAMETER_DEPTH = 5;
const QS_OPTIONS = { depth: MAX_PARAMETER_DEPTH, strictDepth: true, arrayLimit: 200, parameterLimit: MAX_PARAMETERS, allowDots: false } as const;

/** Set on the result of a query string that was refused: the answer (an onRequest hook throws it). */
const REFUSED_QUERY = Symbol('refused query');

/** The error of a query string or form body over the limits, or undefined. */
function paramsRefusal(str: string): ApiError | undefined {
  let params = 1;
  for (let i = str.indexOf('&'); i !== -1; i = str.indexOf('&', i + 1)) {
    if (++params > MAX_PARAMETERS) return new ApiError('rest_too_many_params', `The request has more than ${MAX_PARAMETERS} parameters.`, 400);
  }
  return undefined;
}

/** Parse a query string or form body; over the limits, an empty object carrying the refusal. */
function parseQuery(str: string): Record<string, unknown> {
  let refusal = paramsRefusal(str);
  if (refusal === undefined) {
    try {
      return qs.parse(str, QS_OPTIONS) as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      refusal = new ApiError('rest_params_too_deep', `A parameter is nested deeper than ${MAX_PARAMETER_DEPTH} levels (a[b][c][d][e][f]).`, 400);
    }
  }
  const refused: Record<string, unknown> = {};
  Object.defineProperty(refused, REFUSED_QUERY, { value: refusal, enumerable: false });
  return refused;
}

/** The refusal a parsed query or form body carries, if any. */
function refusalOf(parsed: unknown): ApiError | undefined {
  return parsed !== null && typeof parsed === 'object' ? ((parsed as Record<symbol, ApiError | undefined>)[REFUSED_QUERY] ?? undefined) : undefined;
}

/**
 * The REST roots the API answers under: REST_ROOT, and WordPress' `/wp-json` (unless that is
 * REST_ROOT), so clients that hard-code it work.
 */
export function restRoots(config: Config): string[] {
  return config.restRoot === WORDPRESS_REST_ROOT ? [config.restRoot] : [config.restRoot, WORDPRESS_REST_ROOT];
}

/** The namespaces every route answers under: ours, then the aliases (NAMESPACE_ALIASES). */
export function namespaces(config: Config): string[] {
  return [NAMESPACE, ...config.namespaceAliases.filter((ns) => ns !== NAMESPACE)];
}

/**
 * The REST root a request came in under, decided from the route that matched (its pattern as
 * registered: `/api/calendar/events/v1/events/:id`), whatever the spelling of the URL (duplicate
 * slashes, percent-encoding, `rest_route`, which the router accepts); undefined outside every root.
 * A request no route matched (a 404) is placed by its path with duplicate slashes collapsed and
 * percent-decoded, as the router reads it; such a request runs no route, so nothing it may see
 * depends on this (only whether its 404 is wrapped for `_jsonp`, and its credentials checked).
 */
function apiRootOf(roots: string[], req: FastifyRequest): string | undefined {
  const route = req.routeOptions.url;
  if (route !== undefined) return restRootOf(roots, route);
  const q = req.url.indexOf('?');
  const raw = (q === -1 ? req.url : req.url.slice(0, q)).replace(/\/{2,}/g, '/');
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: the router answers it as is.
  }
  return restRootOf(roots, path);
}

/** The REST root a URL path is under ('/api/…' → '/api'), or undefined outside every root. */
function restRootOf(roots: string[], url: string): string | undefined {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let found: string | undefined;
  for (const root of roots) {
    if (root === '' || path === root || path.startsWith(root + '/')) if (found === undefined || root.length > found.length) found = root;
  }
  return found;
}

/**
 * Headers WordPress sends on every REST response (shapes.md §1.3). `discovery` is the REST root
 * of the request (the one it came in on; REST_ROOT outside the API); a `Link` the route set
 * (list paging) follows the discovery relation in the same header.
 */
function commonHeaders(req: FastifyRequest, discovery: Links, routeLink: unknown, corsOrigins: string[] | undefined): Record<string, string> {
  const link = `<${discovery.restRoot}>; rel="https://api.w.org/"`;
  const headers: Record<string, string> = {
    link: typeof routeLink === 'string' && routeLink !== '' && !routeLink.includes('rel="https://api.w.org/"') ? `${link}, ${routeLink}` : link,
    'x-robots-tag': 'noindex',
    'x-content-type-options': 'nosniff',
    'access-control-expose-headers': 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-Sync-Token, X-Sync-More, ETag',
    'access-control-allow-headers': 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type',
    // Answers may be compressed (gzip/brotli by Accept-Encoding), HEAD and small ones included in
    // the rule; API answers depend on the credentials sent (issue 11: shared caches keep them apart).
    vary: 'Origin, accept-encoding, Authorization',
  };
  if (req.viewer && req.viewer.id > 0) {
    headers.expires = 'Wed, 11 Jan 1984 05:00:00 GMT';
    headers['cache-control'] = 'private, no-cache, must-revalidate, max-age=0';
  }
  const origin = req.headers.origin;
  // CORS_ORIGINS: any origin by default (reflected, with credentials, as WordPress does), else only those listed.
  if (typeof origin === 'string' && origin !== '' && (corsOrigins === undefined || corsOrigins.includes(origin))) {
    headers['access-control-allow-origin'] = origin;
    headers['access-control-allow-methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
    headers['access-control-allow-credentials'] = 'true';
  }
  return headers;
}

/** A client's `X-Request-Id` is used when it is at most 128 safe characters. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request id: the client's `X-Request-Id` when sane, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
}

/** Paths never rate-limited: health checks and metrics (scrapers and orchestrators poll them). */
const RATE_LIMIT_EXEMPT = new Set([METRICS_PATH, '/livez', '/healthz', '/readyz']);

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  if (!isValidTimezone(config.timezone)) throw new Error(`CALENDAR_TIMEZONE "${config.timezone}" is not a known time zone`);
  const store = options.store ?? (await openStore(config.databaseUrl, { timeoutMs: config.databaseTimeoutMs, ...options.storeOptions }));
  const services = createServices(config, store);
  if (config.adminUser && config.adminPassword) await services.users.ensureAdmin(config.adminUser, config.adminPassword);

  const restRoot = config.restRoot;
  const roots = restRoots(config);
  const served = namespaces(config);
  const serverOptions: FastifyServerOptions & { http?: ServerOptions } = {
    logger: options.logger ?? { level: config.logLevel },
    // Path parameters (slugs) up to 1000 characters: a stored slug has up to 200 (plus `__trashed`).
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, querystringParser: parseQuery, maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: BODY_LIMIT,
    // Stalled clients (slow headers, a body that stops coming) get 408 and are closed; Node checks
    // every second instead of its default 30 s.
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1000 },
    // Errors raised before a route runs, in the API's shape (hostile-input.ts).
    clientErrorHandler: clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    // TRUST_PROXY: req.ip, req.protocol and req.host from X-Forwarded-For/-Proto/-Host.
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    // X-Request-Id: the client's when sane, else generated; `reqId` in every log line of the request.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Plain permalinks: `/?rest_route=/calendar/events/v1/events` (and `/index.php?rest_route=…`).
    rewriteUrl: (req: IncomingMessage) => {
      const url = req.url ?? '/';
      if (!url.includes('rest_route=')) return url;
      const q = url.indexOf('?');
      const pathname = q === -1 ? url : url.slice(0, q);
      if (pathname !== '/' && pathname !== '/index.php') return url;
      const params = new URLSearchParams(url.slice(q + 1));
      const route = params.get('rest_route') ?? '/';
      params.delete('rest_route');
      const rest = params.toString();
      return `${restRoot}${route.startsWith('/') ? route : '/' + route}${rest ? '?' + rest : ''}`;
    },
  };
  const app: FastifyInstance = Fastify(serverOptions);
  // Which requests hold the event loop (loop-delay.ts): logged past SLOW_REQUEST_LOG_MS, counted in
  // /metrics; its hooks come first, so that every request is seen, refused ones included.
  const loopWatch = watchLoop();
  registerSlowRequestLog(app, loopWatch, config.slowRequestLogMs);
  // CACHE_MAX_AGE for the conditional-request helpers (conditional.ts), plugins included.
  registerConditional(app, config.cacheMaxAge);
  // Webhooks (issue 11): the service, and the background worker that delivers.
  const webhooks = createWebhookService(services, config);
  const webhookWorker = options.webhooks === false ? undefined : startWebhookWorker(webhooks, app.log, { pollMs: pollIntervalMs(config.webhooksRetrySchedule) });
  if (webhookWorker) {
    // A write committed here: deliver soon instead of at the next poll (the change log wakes it).
    const unsubscribe = store.changes.subscribe(() => webhookWorker.nudge());
    app.addHook('onClose', async () => {
      unsubscribe();
      await webhookWorker.stop();
    });
  }
  // Recurring events (issue 15): occurrences are kept generated RECURRENCE_HORIZON_MONTHS ahead.
  const horizonJob = startHorizonJob(services, app.log);
  app.addHook('onClose', async () => horizonJob.stop());
  // The change log is pruned past SYNC_HISTORY_DAYS, keeping what its readers need (issue 24).
  const pruneJob = startPruneJob(services, app.log);
  app.addHook('onClose', async () => pruneJob.stop());
  // A request that arrives must see every write acknowledged before it, by this process or another
  // (SQLite: the feed looks for other connections' commits once per request; change-feed.ts).
  const feed = store.feed;
  app.addHook('onRequest', async (req, reply) => {
    feed.expectChanges();
    reply.header('x-request-id', req.id);
  });
  // A query string over the limits (parseQuery) is answered before anything reads it.
  app.addHook('onRequest', async (req) => {
    const refusal = refusalOf(req.query);
    if (refusal !== undefined) throw refusal;
  });

  // Compression (gzip, brotli at a moderate quality) of answers over 1 KB, negotiated by
  // Accept-Encoding; registered before the routes (it hooks each route as it is added).
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });

  store.setLogger(app.log);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/*+json'], { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body ?? '');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(apiError('rest_invalid_json', { data: { json_error_code: 4, json_error_message: (e as Error).message } }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const parsed = parseQuery(String(body ?? ''));
    const refusal = refusalOf(parsed);
    if (refusal !== undefined) done(refusal, undefined);
    else done(null, parsed);
  });
  // Other bodies are not parameters (WordPress ignores them); accept and drop them.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));

  // `_jsonp` (jsonp.ts) and credentials, for every request under a REST root. onRequest hooks run
  // once the router has matched the request, so both are decided from the route that matched
  // (apiRootOf), not from the spelling of the URL.
  // Credentials are checked here, before rate limiting (whose key is the user when they are
  // valid), through the failed-login throttle: this is the only place a password is checked over
  // HTTP (the pipeline uses the viewer found here, and anonymous when there is none).
  const loginThrottle = createLoginThrottle(config.loginMaxFailures);
  app.addHook('onRequest', async (req) => {
    if (apiRootOf(roots, req) === undefined) return;
    const callback = jsonpCallbackOf(req.query as Record<string, unknown> | undefined, config.jsonp);
    if (callback !== undefined) req.jsonpCallback = callback;
    else if (req.headers.authorization !== undefined) req.viewer = await services.users.authenticate(req.headers.authorization, loginThrottle.forClient(req.ip));
  });

  if (config.rateLimitMax > 0) {
    await app.register(rateLimit, {
      global: true,
      max: config.rateLimitMax,
      timeWindow: config.rateLimitWindow * 1000,
      hook: 'onRequest',
      keyGenerator: (req) => (req.viewer && req.viewer.id > 0 ? `user:${req.viewer.id}` : `ip:${clientKeyOf(req.ip)}`),
      allowList: (req) => RATE_LIMIT_EXEMPT.has(req.routeOptions.url ?? req.url.split('?')[0]!),
      errorResponseBuilder: (_req, ctx) => new ApiError('rest_too_many_requests', `Too many requests. Try again in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} seconds.`, 429),
    });
  }
  registerMetrics(app, config, store, loopWatch);

  app.addHook('onSend', async (req, reply, payload) => {
    const root = req.apiLinks?.restRootPath ?? apiRootOf(roots, req) ?? restRoot;
    reply.headers(commonHeaders(req, services.linksFor(root, NAMESPACE), reply.getHeader('link'), config.corsOrigins));
    // The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-08 and later) beside X-RateLimit-*.
    const remaining = reply.getHeader('x-ratelimit-remaining');
    if (remaining !== undefined) {
      reply.header('ratelimit-policy', `"default";q=${config.rateLimitMax};w=${config.rateLimitWindow}`);
      reply.header('ratelimit', `"default";r=${remaining};t=${reply.getHeader('x-ratelimit-reset') ?? 0}`);
    }
    if (req.sitePage) reply.removeHeader('x-robots-tag');
    if (req.jsonpCallback !== undefined && String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      reply.header('content-type', JSONP_CONTENT_TYPE);
      if (typeof payload === 'string' || Buffer.isBuffer(payload)) return wrapJsonp(req.jsonpCallback, payload);
    }
    return payload;
  });

  app.setErrorHandler(async (error, req, reply) => {
    let apiErr: ApiError;
    if (error instanceof ApiError) apiErr = error;
    else if (requestErrorOf(error) !== undefined) apiErr = requestErrorOf(error)!;
    else if (typeof (error as { statusCode?: number }).statusCode === 'number' && (error as { statusCode: number }).statusCode < 500) {
      const e = error as { statusCode: number; message: string };
      apiErr = new ApiError('rest_bad_request', e.message, e.statusCode);
    } else if (storeFault(error) !== undefined) {
      // The database is down, busy, full or read-only: a clear, retryable answer instead of a 500.
      const fault = storeFault(error)!;
      req.log.warn({ fault, error: (error as Error).message, code: (error as { code?: string }).code }, 'database fault');
      apiErr = faultError(fault);
    } else {
      req.log.error({ err: error }, 'unhandled error');
      apiErr = apiError('internal_server_error');
    }
    const allow = await allowForError(req, services).catch(() => undefined);
    if (allow !== undefined) reply.header('allow', allow);
    reply.headers(apiErr.headers);
    if ((req.query as Record<string, unknown> | undefined)?._envelope !== undefined) {
      return sendJson(reply, 200, { body: apiErr.toJSON(), status: apiErr.status, headers: { ...(allow !== undefined ? { Allow: allow } : {}), ...apiErr.headers } });
    }
    return sendJson(reply, apiErr.status, apiErr.toJSON());
  });

  // Unknown URLs count against the rate limit too (the plugin hooks only declared routes).
  app.setNotFoundHandler(config.rateLimitMax > 0 ? { preHandler: app.rateLimit() } : {}, async (_req, reply) => sendJson(reply, 404, apiError('rest_no_route').toJSON()));

  // One set of declarations, registered under every REST root and namespace: each registration
  // carries its Links, so the answers' REST URLs follow the root and namespace of the request.
  const routes = apiRoutes(services);
  for (const root of roots) {
    const linksOfRoot = served.map((ns) => services.linksFor(root, ns));
    for (const links of linksOfRoot) registerRoutes(app, routes, services, links);
    app.get(root === '' ? '/' : root, async (req, reply) => {
      req.apiLinks = linksOfRoot[0];
      const text = jsonBody(rootIndex(routes, services, linksOfRoot));
      if (answerConditional(req, reply.header('allow', 'GET'), { etag: etagOfBody(text), private: req.viewer !== undefined && req.viewer.id > 0 })) return reply;
      return reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(text);
    });
  }
  // This service's own administration namespace (webhooks, issue 11), under every REST root.
  const admin = adminRoutes(services, webhooks);
  admin.push(...adminEventRoutes(services)); // the event index (issue 25): in the same list, so the index and /doc declare it
  for (const root of roots) registerRoutes(app, admin, services, services.linksFor(root, ADMIN_NAMESPACE));

  // The site root: discovery (the Link header and <link>), unless the REST root is the site root.
  if (!roots.includes('')) {
    app.get('/', async (req, reply) => {
      req.sitePage = true;
      return reply
        .code(200)
        .header('content-type', 'text/html; charset=UTF-8')
        .send(sitePageHtml(config.siteName, services.links.restRoot, DOCS_PAGE_PATH, `${services.links.siteUrl}/events/`));
    });
  }
  // The human-readable API documentation (Swagger UI over `{ns}/doc`), outside the REST root.
  registerDocsPage(app, `${basePath(services.links)}/doc`);
  // Liveness and readiness probes, outside the REST root too.
  registerHealthRoutes(app, store);
  // The calendar's pages and iCalendar feeds at the permalinks (src/pages).
  registerCalendarPages(app, services);

  return {
    app,
    services,
    store,
    webhooks,
    horizonJob,
    pruneJob,
    loopWatch,
    ...(webhookWorker ? { webhookWorker } : {}),
    async close(progress?: (step: string) => void) {
      await app.close();
      progress?.('closing the database');
      await store.close();
    },
  };
}
