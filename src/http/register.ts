/**
 * The REST face: `registerRestApi(app, face)` adds the legacy REST API (tribe/events/v1 and its
 * aliases, under every REST root) and this service's administration namespace to the Fastify
 * instance `src/app.ts` built, with what the API answers with on every request: credentials and
 * `_jsonp` under the REST roots, WordPress' common headers, the error and not-found answers in the
 * API's shape. Also the site page (`/`), the API documentation page and `restRouteRewrite` (plain
 * permalinks, given to the server when it is created).
 *
 * @example
 *   const app = createWebServer(config, { rewriteUrl: restRouteRewrite(config.restRoot) });
 *   registerRestApi(app, { config, services, webhooks });
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { NAMESPACE, WORDPRESS_REST_ROOT, type Config } from '../config.js';
import { ApiError, apiError, faultError } from '../domain/errors.js';
import type { Links } from '../domain/links.js';
import { jsonBody } from '../domain/serialized.js';
import { storeFault } from '../domain/faults.js';
import { createAuthentication } from '../web/authentication.js';
import { answerConditional, etagOfBody } from '../web/conditional.js';
import { requestErrorOf } from '../web/hostile-input.js';
import { errorShapeOf } from '../web/error-shapes.js';
import { rateLimitField } from '../web/rate-limit.js';
import { DOCS_PAGE_PATH, registerDocsPage } from './docs-page.js';
import { JSONP_CONTENT_TYPE, jsonpCallbackOf, wrapJsonp } from './jsonp.js';
import { allowForError, basePath, registerRoutes, sendJson } from './pipeline.js';
import { adminEventRoutes } from './routes/admin-events.js';
import { adminSessionRoutes } from './routes/admin-sessions.js';
import { adminUserRoutes } from './routes/admin-users.js';
import { adminReviewRoutes } from './routes/admin-reviews.js';
import { adminSettingRoutes } from './routes/admin-settings.js';
import { adminRecurrenceRoutes } from './routes/admin-recurrence.js';
import { adminSeriesRoutes } from './routes/admin-series.js';
import { adminImportRoutes } from './routes/admin-imports.js';
import { adminChangeRoutes } from './routes/admin-changes.js';
import { adminEditingRoutes } from './routes/admin-editing.js';
import { adminMediaRoutes } from './routes/admin-media.js';
import { ADMIN_NAMESPACE, adminRoutes } from './routes/admin-webhooks.js';
import { adminFederationRoutes } from './routes/admin-federation.js';
import { NETWORK_NAMESPACE, networkRoutes } from './routes/network.js';
import { apiRoutes } from './routes/index.js';
import { EMBED_NAMESPACE, embedRoutes } from './routes/embed.js';
import { adminSubmissionRoutes, SUBMISSIONS_NAMESPACE, submissionRoutes } from './routes/submissions.js';
import { networkProposalRoutes } from './routes/network-proposals.js';
import { rootIndex } from './self-description.js';
import { sitePageHtml } from './site-page.js';
import { TEC_NAMESPACE, tecRoutes } from './tec/index.js';
import { WP_NAMESPACE, wpCoreRoutes } from './tec/wp-core.js';

/** What the REST face is built from. */
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

/** Plain permalinks: `/?rest_route=/calendar/events/v1/events` (and `/index.php?rest_route=…`) to REST_ROOT. */
export function restRouteRewrite(restRoot: string): (req: IncomingMessage) => string {
  return (req) => {
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
  };
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

/** The discovery relation of a REST root's `Link` header (a few roots: made once each). */
const discoveryLinks = new Map<string, string>();
function discoveryLink(restRoot: string): string {
  let link = discoveryLinks.get(restRoot);
  if (link === undefined) discoveryLinks.set(restRoot, (link = `<${restRoot}>; rel="https://api.w.org/"`));
  return link;
}

/**
 * Headers WordPress sends on every REST response (shapes.md §1.3), set in this order. `discovery` is
 * the REST root of the request (the one it came in on; REST_ROOT outside the API); a `Link` the
 * route set (list paging) follows the discovery relation in the same header. What never changes
 * is written once (these strings are the same on every answer).
 */
function setCommonHeaders(reply: FastifyReply, req: FastifyRequest, discovery: Links, routeLink: unknown, corsOrigins: string[] | undefined): void {
  const link = discoveryLink(discovery.restRoot);
  reply.header('link', typeof routeLink === 'string' && routeLink !== '' && !routeLink.includes('rel="https://api.w.org/"') ? `${link}, ${routeLink}` : link);
  reply.header('x-robots-tag', 'noindex');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('access-control-expose-headers', 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-Sync-Token, X-Sync-More, ETag');
  reply.header('access-control-allow-headers', 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type');
  // Answers may be compressed (gzip/brotli by Accept-Encoding), HEAD and small ones included in
  // the rule; API answers depend on the credentials sent (shared caches keep them apart).
  reply.header('vary', 'Origin, accept-encoding, Authorization');
  if (req.viewer && req.viewer.id > 0) {
    reply.header('expires', 'Wed, 11 Jan 1984 05:00:00 GMT');
    reply.header('cache-control', 'private, no-cache, must-revalidate, max-age=0');
  }
  const origin = req.headers.origin;
  // CORS_ORIGINS: any origin by default (reflected, with credentials, as WordPress does), else only those listed.
  if (typeof origin === 'string' && origin !== '' && (corsOrigins === undefined || corsOrigins.includes(origin))) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-methods', 'OPTIONS, GET, POST, PUT, PATCH, DELETE');
    // The legacy namespaces keep WordPress's credentialed CORS (their clients rely on it). Our own
    // administration namespaces have no such client: a page on another origin may call it with an
    // application password it holds (an explicit Authorization header needs no credentials flag),
    // never with the browser's cookie or cached Basic credentials.
    if (!isAdminNamespace(req)) reply.header('access-control-allow-credentials', 'true');
  }
}

/**
 * Whether a request is under `calendar/admin/v1` or `calendar/network/v1` (of any REST root), by
 * the route it matched or else its path.
 */
function isAdminNamespace(req: FastifyRequest): boolean {
  if (req.apiLinks !== undefined) return req.apiLinks.namespace === ADMIN_NAMESPACE || req.apiLinks.namespace === NETWORK_NAMESPACE;
  const url = req.routeOptions.url ?? req.url;
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(/\/{2,}/g, '/');
  return ADMIN_PATH_SEGMENTS.some((segment) => path.includes(segment + '/') || path.endsWith(segment));
}
const ADMIN_PATH_SEGMENTS = [`/${ADMIN_NAMESPACE}`, `/${NETWORK_NAMESPACE}`];

/**
 * Register the REST face. Its credential hook must come before the rate limit's (which keys by the
 * user) and its error handler applies to the whole instance: `src/app.ts` registers it after the
 * shared plumbing (web/) and before the other faces. Synchronous on purpose: nothing may run between
 * the routes added before it and its error handler.
 */
export function registerRestApi(app: FastifyInstance, { config, services, webhooks, federation, exports }: FaceDeps): void {
  const restRoot = config.restRoot;
  const roots = restRoots(config);
  const served = namespaces(config);

  // `_jsonp` (jsonp.ts) and credentials, for every request under a REST root. onRequest hooks run
  // once the router has matched the request, so both are decided from the route that matched
  // (apiRootOf), not from the spelling of the URL.
  // Credentials are checked here, before rate limiting (whose key is the user when they are
  // valid), through the failed-login throttle (web/authentication.ts; the pipeline uses the viewer
  // found here, and anonymous when there is none).
  const authenticate = createAuthentication(services, config);
  // Callback-style (no promise per request unless credentials are checked).
  app.addHook('onRequest', (req, _reply, done) => {
    if (apiRootOf(roots, req) === undefined) return done();
    const callback = jsonpCallbackOf(req.query as Record<string, unknown> | undefined, config.jsonp);
    if (callback !== undefined) req.jsonpCallback = callback;
    else if (req.headers.authorization !== undefined) {
      authenticate(req.headers.authorization, req.ip).then((viewer) => {
        req.viewer = viewer;
        done();
      }, done);
      return;
    }
    done();
  });

  const rateLimitPolicy = `"default";q=${config.rateLimitMax};w=${config.rateLimitWindow}`;
  app.addHook('onSend', (req, reply, payload, done) => {
    done(null, withCommonHeaders(req, reply, payload));
  });
  function withCommonHeaders(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    const root = req.apiLinks?.restRootPath ?? apiRootOf(roots, req) ?? restRoot;
    setCommonHeaders(reply, req, services.linksFor(root, NAMESPACE), reply.getHeader('link'), config.corsOrigins);
    // The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-08 and later) beside X-RateLimit-*.
    const remaining = reply.getHeader('x-ratelimit-remaining');
    if (remaining !== undefined) {
      reply.header('ratelimit-policy', rateLimitPolicy);
      reply.header('ratelimit', rateLimitField(remaining, reply.getHeader('x-ratelimit-reset') ?? 0));
    }
    if (req.sitePage) reply.removeHeader('x-robots-tag');
    if (req.jsonpCallback !== undefined && String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      reply.header('content-type', JSONP_CONTENT_TYPE);
      if (typeof payload === 'string' || Buffer.isBuffer(payload)) return wrapJsonp(req.jsonpCallback, payload);
    }
    return payload;
  }

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
    // A face that answers in a shape of its own (DAV XML, HTML pages) answers for its paths.
    const shape = errorShapeOf(req);
    if (shape) return shape.send(req, reply, apiErr);
    const allow = await allowForError(req, services).catch(() => undefined);
    if (allow !== undefined) reply.header('allow', allow);
    reply.headers(apiErr.headers);
    if ((req.query as Record<string, unknown> | undefined)?._envelope !== undefined) {
      return sendJson(reply, 200, { body: apiErr.toJSON(), status: apiErr.status, headers: { ...(allow !== undefined ? { Allow: allow } : {}), ...apiErr.headers } });
    }
    return sendJson(reply, apiErr.status, apiErr.toJSON());
  });

  // Unknown URLs count against the rate limit too (the plugin hooks only declared routes).
  app.setNotFoundHandler(config.rateLimitMax > 0 ? { preHandler: app.rateLimit() } : {}, async (req, reply) => {
    const shape = errorShapeOf(req);
    return shape ? shape.send(req, reply, apiError('rest_no_route')) : sendJson(reply, 404, apiError('rest_no_route').toJSON());
  });

  // One set of declarations, registered under every REST root and namespace: each registration
  // carries its Links, so the answers' REST URLs follow the root and namespace of the request.
  const routes = apiRoutes(services);
  // The original's second API (tec/v1) and the WordPress core routes its clients read (wp/v2).
  const tec = tecRoutes(services);
  const wp = wpCoreRoutes(services);
  for (const root of roots) {
    const linksOfRoot = served.map((ns) => services.linksFor(root, ns));
    for (const links of linksOfRoot) registerRoutes(app, routes, services, links);
    const others = [
      { routes: tec, links: services.linksFor(root, TEC_NAMESPACE) },
      { routes: wp, links: services.linksFor(root, WP_NAMESPACE) },
    ];
    for (const other of others) registerRoutes(app, other.routes, services, other.links);
    app.get(root === '' ? '/' : root, async (req, reply) => {
      // The calendar of the request's (its site URL).
      const linksHere = served.map((ns) => services.linksFor(root, ns));
      const othersHere = others.map((o) => ({ routes: o.routes, links: services.linksFor(root, o.links.namespace) }));
      req.apiLinks = linksHere[0];
      // The index names the site and its time zone, which another instance may just have changed.
      await services.changes.catchUp();
      const text = jsonBody(rootIndex(routes, services, linksHere, othersHere));
      if (answerConditional(req, reply.header('allow', 'GET'), { etag: etagOfBody(text), private: req.viewer !== undefined && req.viewer.id > 0 })) return reply;
      return reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(text);
    });
  }
  // This service's own administration namespace (webhooks), under every REST root.
  const admin = adminRoutes(services, webhooks);
  admin.push(...adminEventRoutes(services)); // the event index: in the same list, so the index and /doc declare it
  admin.push(...adminSessionRoutes(services)); // the admin face's sign-in sessions
  admin.push(...adminUserRoutes(services)); // users, roles, application passwords
  admin.push(...adminReviewRoutes(services)); // send a contributor's pending event back with a note
  admin.push(...adminSettingRoutes(services)); // the settings in force
  admin.push(...adminRecurrenceRoutes(services)); // recurrence preview
  admin.push(...adminSeriesRoutes(services)); // trash and restore, one event or a whole series
  admin.push(...adminImportRoutes(services, exports)); // imports as jobs, export downloads
  admin.push(...adminChangeRoutes(services)); // the change log as JSON and server-sent events
  admin.push(...adminEditingRoutes(services)); // who has an event open in the editor (post locks)
  admin.push(...adminMediaRoutes(services)); // the media library (docs/media.md)
  app.addHook('preClose', async () => services.changes.closeFollowers()); // open change streams end when the server closes
  if (federation) admin.push(...adminFederationRoutes(federation)); // fediverse followers and deliveries
  // Community submissions: moderation here, the public routes in a namespace of their own;
  // none of them with SUBMISSIONS=off.
  if (config.submissions !== 'off') {
    admin.push(...adminSubmissionRoutes(services));
    const publicSubmissions = submissionRoutes(services);
    for (const root of roots) registerRoutes(app, publicSubmissions, services, services.linksFor(root, SUBMISSIONS_NAMESPACE));
  }
  for (const root of roots) registerRoutes(app, admin, services, services.linksFor(root, ADMIN_NAMESPACE));
  // The network's namespace: the calendars themselves (the same under every calendar's prefix), and
  // the proposals, follows and network search (routes/network-proposals.ts), in its index and /doc.
  const network = networkRoutes(services);
  network.push(...networkProposalRoutes(services));
  for (const root of roots) registerRoutes(app, network, services, services.linksFor(root, NETWORK_NAMESPACE));
  // The embedding namespace: the FullCalendar event source, under every REST root.
  const embed = embedRoutes(services);
  for (const root of roots) registerRoutes(app, embed, services, services.linksFor(root, EMBED_NAMESPACE));

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
}
