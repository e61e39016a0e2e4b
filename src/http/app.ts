/**
 * `buildApp(config)`: the Fastify application with every route, used by the server, the tests and
 * the benchmark. It does not listen; `server.ts` does.
 *
 * @example
 *   const { app, close } = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:' }));
 *   await app.listen({ port: 0 });
 */
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import qs from 'qs';
import { NAMESPACE, type Config } from '../config.js';
import { isValidTimezone } from '../domain/dates.js';
import { ApiError, apiError, faultError } from '../domain/errors.js';
import { createServices, type Services } from '../domain/services.js';
import { openStore, type OpenOptions, type Store } from '../store/db.js';
import { storeFault } from '../store/faults.js';
import { registerDocsPage } from './docs-page.js';
import { registerHealthRoutes } from './health.js';
import { allowForError, registerRoutes, sendJson } from './pipeline.js';
import { apiRoutes } from './routes/index.js';
import { rootIndex } from './self-description.js';

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
  store: Store;
  /** Close the server and the store. */
  close(): Promise<void>;
}

export interface BuildOptions {
  /** Use this store instead of opening config.databaseUrl (tests, benchmark). */
  store?: Store;
  storeOptions?: OpenOptions;
  /** Fastify logger: true/false or options. */
  logger?: boolean | object;
}

const QS_OPTIONS = { depth: 5, arrayLimit: 200, parameterLimit: 2000, allowDots: false } as const;

function parseQuery(str: string): Record<string, unknown> {
  return qs.parse(str, QS_OPTIONS) as Record<string, unknown>;
}

/** Headers WordPress sends on every REST response (shapes.md §1.3). */
function commonHeaders(services: Services, req: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {
    link: `<${services.links.restRoot}>; rel="https://api.w.org/"`,
    'x-robots-tag': 'noindex',
    'x-content-type-options': 'nosniff',
    'access-control-expose-headers': 'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages',
    'access-control-allow-headers': 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type',
    vary: 'Origin',
  };
  if (req.viewer && req.viewer.id > 0) {
    headers.expires = 'Wed, 11 Jan 1984 05:00:00 GMT';
    headers['cache-control'] = 'no-cache, must-revalidate, max-age=0';
  }
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '') {
    headers['access-control-allow-origin'] = origin;
    headers['access-control-allow-methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
    headers['access-control-allow-credentials'] = 'true';
  }
  return headers;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  if (!isValidTimezone(config.timezone)) throw new Error(`CALENDAR_TIMEZONE "${config.timezone}" is not a known time zone`);
  const store = options.store ?? (await openStore(config.databaseUrl, { timeoutMs: config.databaseTimeoutMs, ...options.storeOptions }));
  const services = createServices(config, store);
  if (config.adminUser && config.adminPassword) await services.users.ensureAdmin(config.adminUser, config.adminPassword);

  const restRoot = config.restRoot;
  const nsBase = `${restRoot}/${NAMESPACE}`;
  const serverOptions: FastifyServerOptions = {
    logger: options.logger ?? { level: config.logLevel },
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, querystringParser: parseQuery },
    bodyLimit: 2 * 1024 * 1024,
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
    done(null, parseQuery(String(body ?? '')));
  });
  // Other bodies are not parameters (WordPress ignores them); accept and drop them.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));

  app.addHook('onSend', async (req, reply, payload) => {
    reply.headers(commonHeaders(services, req));
    return payload;
  });

  app.setErrorHandler(async (error, req, reply) => {
    let apiErr: ApiError;
    if (error instanceof ApiError) apiErr = error;
    else if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiErr = new ApiError('rest_payload_too_large', 'The request body is too large.', 413);
    else if ((error as { code?: string }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') apiErr = new ApiError('rest_invalid_content_type', 'Unsupported content type.', 415);
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

  app.setNotFoundHandler(async (_req, reply) => sendJson(reply, 404, apiError('rest_no_route').toJSON()));

  const routes = apiRoutes(services);
  registerRoutes(app, routes, services, nsBase);
  app.get(restRoot === '' ? '/' : restRoot, async (_req, reply) => sendJson(reply.header('allow', 'GET'), 200, rootIndex(routes, services)));
  // The human-readable API documentation (Swagger UI over `{ns}/doc`), outside the REST root.
  registerDocsPage(app, `${nsBase}/doc`);
  // Liveness and readiness probes, outside the REST root too.
  registerHealthRoutes(app, store);

  return {
    app,
    services,
    store,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
