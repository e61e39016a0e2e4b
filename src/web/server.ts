/**
 * The Fastify instance every face is registered on, and the plugins they all share: the server's
 * limits and time-outs, request ids, the query-string parser (query-string.ts), compression and the
 * body parsers. Faces add their routes and hooks to it; `src/app.ts` decides the order.
 *
 * @example
 *   const app = createWebServer(config, { logger: false, rewriteUrl: restRouteRewrite(config.restRoot) });
 *   await registerCompression(app);
 *   registerBodyParsers(app);
 */
import compress from '@fastify/compress';
import proxyAddr from '@fastify/proxy-addr';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerOptions } from 'node:http';
import { constants as zlibConstants } from 'node:zlib';
import type { Config } from '../config.js';
import { apiError } from '../domain/errors.js';
import { BODY_LIMIT, clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './hostile-input.js';
import { registerUploadParsers } from './uploads.js';
import { parseQuery, refusalOf } from './query-string.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer is the site page or a calendar page or feed (not an API answer: no `X-Robots-Tag: noindex`). */
    sitePage?: boolean;
  }
}

/** A client's `X-Request-Id` is used when it is at most 128 safe characters. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request id: the client's `X-Request-Id` when sane, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
}

/**
 * The client's address as Fastify's `request.ip` gives it under `TRUST_PROXY` (the same
 * `@fastify/proxy-addr`, the same reading of the setting: `true` trusts every hop, a list its
 * addresses and ranges, a hop count no peer, as Fastify 5 does), for code that answers before
 * Fastify builds a request (web/replay.ts, whose requests the rate limit counts by this address).
 */
export function clientAddressOf(trust: Config['trustProxy']): (req: IncomingMessage) => string {
  if (trust === false || trust === 0) return (req) => req.socket.remoteAddress ?? '';
  const trusted = trust === true ? () => true : typeof trust === 'number' ? () => false : proxyAddr.compile(trust);
  return (req) => {
    const all = proxyAddr.all(req, trusted);
    return all[all.length - 1] ?? '';
  };
}

export interface WebServerOptions {
  /** Fastify logger: true/false or options (default: `{ level: config.logLevel }`). */
  logger?: boolean | object;
  /** Rewrite a request's URL before routing (the REST face's plain permalinks, `?rest_route=`). */
  rewriteUrl?: (req: IncomingMessage) => string;
}

/** The Fastify instance, with the limits every face shares (hostile-input.ts) and no route yet. */
export function createWebServer(config: Config, options: WebServerOptions = {}): FastifyInstance {
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
    ...(options.rewriteUrl ? { rewriteUrl: options.rewriteUrl } : {}),
  };
  return Fastify(serverOptions);
}

/**
 * Compression (gzip, brotli at a moderate quality) of answers over 1 KB, negotiated by
 * Accept-Encoding; register it before the routes (it hooks each route as it is added).
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}

/**
 * Bodies: JSON (an empty one is `{}`; invalid JSON is `rest_invalid_json`), forms (under the
 * query-string limits), and anything else accepted and dropped (not parameters; WordPress ignores them).
 */
export function registerBodyParsers(app: FastifyInstance, options: { mediaMaxBytes?: number } = {}): void {
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
  // Uploads (the admin API's imports): text/calendar and multipart/form-data bodies as parameters.
  registerUploadParsers(app, options);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));
}
