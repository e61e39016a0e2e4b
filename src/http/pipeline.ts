/**
 * The one request pipeline every route goes through, in WordPress' order:
 * route match → method override → authentication → parameters (JSON body > form body > query,
 * path params apart) → required check (400 rest_missing_callback_param) → validation of every
 * present arg, all failures at once (400 rest_invalid_param) → coercion → load the addressed
 * record → permission (401 anonymous / 403 authenticated) → handler → response headers.
 *
 * The same declarations are registered once per REST root and namespace (REST_ROOT and
 * `/wp-json`, ours and the aliases); each registration carries its `Links`, which reach the
 * handlers as `ctx.links`, so REST URLs follow the root and namespace of the request.
 *
 * @example registerRoutes(app, ROUTES, services, createLinks(siteUrl, '/api', 'calendar/events/v1'))
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Links } from '../domain/links.js';
import type { Services } from '../domain/services.js';
import { ApiError, apiError, forbidden, invalidParams, missingParams, type ParamFailure } from '../domain/errors.js';
import { ANONYMOUS, isAuthenticated, type Viewer } from '../domain/permissions.js';
import { jsonBody } from '../domain/serialized.js';
import { SMALL_ANSWER_BYTES } from '../domain/answer-budget.js';
import { coerceType, listLengthFailure } from './coerce.js';
import { answerConditional, etagOfBody, hasPreconditions, isNotModified, preconditionsHold, type Validators } from '../web/conditional.js';
import { itemValidators, listValidators, recordIdOf, tagNamesVersion } from './versioning.js';
import type { RecordVersion } from '../store/versions.js';
import { calendarIdNow } from '../domain/calendars.js';
import { defaultValue, fastifyPattern, routeMethods, type Endpoint, type EndpointContext, type Method, type Reply, type RouteDecl } from './route.js';
import { routeIndexEntry } from './self-description.js';
import { markReplayable, type ReplayMark } from '../web/replay.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The route that matched (for the Allow header of error answers). */
    apiRoute?: RouteDecl;
    /** The REST root and namespace the request came in on, once a route matched. */
    apiLinks?: Links;
    /** The JSONP callback of a `_jsonp` request, once checked (see jsonp.ts). */
    jsonpCallback?: string;
  }
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Whether a value (a string, or one inside arrays and objects, keys included) holds a NUL byte. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  return Object.entries(value as Record<string, unknown>).some(([k, v]) => k.includes('\u0000') || containsNul(v, depth + 1));
}

/** The failure of an argument holding a NUL byte (400 `rest_invalid_param`). */
function nulFailure(name: string): ParamFailure {
  const message = `${name} must not contain NUL characters.`;
  return { message, detail: { code: 'rest_invalid_characters', message, data: { param: name } } };
}

/** Validate and coerce the declared args; throws the WordPress error that wins. */
export async function parseArgs(
  endpoint: Endpoint,
  input: Record<string, unknown>,
  path: Record<string, string>,
  ctx: { viewer: Viewer; services: Services; links: Links },
): Promise<{ args: Record<string, unknown>; sent: Set<string> }> {
  const args: Record<string, unknown> = {};
  const sent = new Set<string>();
  const missing: string[] = [];
  // Path parameters reach look-ups (by-slug routes) whether declared or not: no NUL there either.
  const badPath = Object.keys(path).filter((name) => containsNul(path[name]));
  if (badPath.length) throw invalidParams(Object.fromEntries(badPath.map((name) => [name, nulFailure(name)])));
  for (const [name, spec] of Object.entries(endpoint.args)) {
    let value = spec.in === 'path' ? path[name] : input[name];
    if (value === undefined || value === null) {
      value = spec.default === undefined ? undefined : defaultValue(spec, ctx.links);
      if ((value === undefined || value === null) && spec.required) missing.push(name);
    } else sent.add(name);
    if (value !== undefined && value !== null) args[name] = value;
  }
  if (missing.length) throw missingParams(missing);

  const failures: Record<string, ParamFailure | string> = {};
  for (const [name, spec] of Object.entries(endpoint.args)) {
    if (!(name in args)) continue;
    let value = args[name];
    // List args hold at most their maxItems (route.ts), counted before anything walks the items.
    const tooMany = listLengthFailure(name, value, spec);
    if (tooMany) {
      failures[name] = tooMany;
      continue;
    }
    // NUL bytes are refused in every argument (PostgreSQL cannot store them in text, and no field
    // of the calendar has a use for them), before any validator looks the value up.
    if (containsNul(value)) {
      failures[name] = nulFailure(name);
      continue;
    }
    if (spec.validate) {
      const result = await spec.validate(value, ctx);
      if (result !== true) {
        failures[name] = result === false ? 'Invalid parameter.' : result;
        continue;
      }
    }
    if (spec.type) {
      const coerced = coerceType(name, value, spec.type, spec.unbounded === true);
      if (!coerced.ok) {
        failures[name] = coerced.failure;
        continue;
      }
      value = coerced.value;
    }
    args[name] = spec.sanitize ? await spec.sanitize(value, ctx) : value;
  }
  if (Object.keys(failures).length) throw invalidParams(failures);
  return { args, sent };
}

/** The methods of the route whose permission check the viewer passes (WordPress' Allow header). */
export async function allowedMethods(decl: RouteDecl, ctx: EndpointContext): Promise<string> {
  const out: string[] = [];
  for (const e of decl.endpoints) {
    let ok = false;
    try {
      ok = await e.permission(ctx);
    } catch {
      ok = false;
    }
    if (ok) for (const m of e.methods) if (!out.includes(m)) out.push(m);
  }
  return out.join(', ');
}

/** The sign-in session whose cookie made the request's viewer (web/sessions.ts), if it was one. */
function sessionIdOf(req: FastifyRequest, viewer: Viewer): number | undefined {
  return req.session !== undefined && req.session.viewer === viewer && viewer.id > 0 ? req.session.id : undefined;
}

/**
 * The viewer of a request. JSONP requests (`_jsonp`, see register.ts) are anonymous whatever they send:
 * a script tag carries no credentials a site could check, and WordPress does not trust cookies
 * without a nonce; so a JSONP answer never shows what only a logged-in user may see.
 *
 * Credentials are checked in one place only, register.ts' request hook, through the failed-login
 * throttle, for every request whose matched route is under a REST root (every route registered
 * here is). No password is checked here: a request the hook did not authenticate is anonymous.
 */
function authenticate(req: FastifyRequest, _services: Services): Promise<Viewer> {
  if (req.jsonpCallback !== undefined) return Promise.resolve(ANONYMOUS);
  return Promise.resolve(req.viewer ?? ANONYMOUS);
}

/** The method the request asks for: POST may be overridden by `_method` or X-HTTP-Method-Override. */
function effectiveMethod(req: FastifyRequest): string {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (method !== 'POST') return method;
  const override = (req.headers['x-http-method-override'] as string | undefined) ?? ((req.query as Record<string, unknown>)?._method as string | undefined);
  return typeof override === 'string' && override ? override.toUpperCase() : method;
}

/** Request parameters: JSON or form body over the query string (path params are kept apart). */
function requestInput(req: FastifyRequest): Record<string, unknown> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const body = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) return { ...query, ...(body as Record<string, unknown>) };
  return query;
}

function rawQueryOf(req: FastifyRequest): string {
  const i = req.url.indexOf('?');
  return i === -1 ? '' : req.url.slice(i + 1);
}

/**
 * WordPress' global `_fields` (top-level keys) and `_envelope` parameters. The other globals are
 * handled where they act: `_method` in effectiveMethod, `_jsonp` around every answer under a REST
 * root, errors and the indexes included (jsonp.ts, hooked in register.ts).
 */
function applyGlobalParams(req: FastifyRequest, status: number, headers: Record<string, string>, body: unknown): { status: number; body: unknown } {
  const query = (req.query ?? {}) as Record<string, unknown>;
  let out = body;
  const fields = query._fields;
  if (typeof fields === 'string' && fields !== '' && out && typeof out === 'object') {
    const wanted = new Set(fields.split(',').map((f) => f.trim().split('.')[0]));
    const pick = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => wanted.has(k)));
    out = Array.isArray(out) ? out.map((o) => pick(o as Record<string, unknown>)) : pick(out as Record<string, unknown>);
  }
  if (query._envelope !== undefined) return { status: 200, body: { body: out, status, headers } };
  return { status, body: out };
}

/** Send a JSON body with the API's content type (cached representations bring their own text). */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=UTF-8').send(jsonBody(body));
}

/** The path a `Links` serves under: '/api/calendar/events/v1'. */
export function basePath(links: Links): string {
  return `${links.restRootPath}/${links.namespace}`;
}

/**
 * Register every declared route under the REST root and namespace of `links`
 * (e.g. '/api/calendar/events/v1').
 */
export function registerRoutes(app: FastifyInstance, routes: RouteDecl[], services: Services, registeredLinks: Links): void {
  const base = basePath(registeredLinks);
  // The URLs of the calendar the request is of (its site URL), under this root and namespace.
  const linksHere = () => services.linksFor(registeredLinks.restRootPath, registeredLinks.namespace);
  for (const decl of routes) {
    const url = base + fastifyPattern(decl.path);
    const methods = routeMethods(decl);
    const registered = new Set<string>(methods);
    if (methods.includes('GET') || methods.some((m) => m !== 'POST')) registered.add('POST');

    const handle = async (req: FastifyRequest, reply: FastifyReply) => {
      const method = effectiveMethod(req);
      const endpoint = decl.endpoints.find((e) => e.methods.includes(method as Method));
      if (!endpoint) throw new ApiError('rest_no_route', 'No route was found matching the URL and request method.', 404);
      req.apiRoute = decl;
      const links = linksHere();
      req.apiLinks = links;
      const viewer = (req.viewer = await authenticate(req, services));
      const path = (req.params ?? {}) as Record<string, string>;
      const input = requestInput(req);
      const { args, sent } = await parseArgs(endpoint, input, path, { viewer, services, links });
      // Memory reserved for this answer (answer-budget.ts) goes back once the response is done.
      const reserve = async (bytes: number) => {
        if (bytes < SMALL_ANSWER_BYTES) return; // not counted (answer-budget.ts)
        const release = await services.answers.acquire(bytes);
        if (reply.raw.destroyed || reply.raw.writableFinished) release();
        else reply.raw.once('close', release);
      };
      const client = { ip: req.ip, acceptLanguage: req.headers['accept-language'], sessionId: sessionIdOf(req, viewer) };
      const base = { args, sent, path, viewer, services, links, rawQuery: rawQueryOf(req), input, reserve, client, headers: req.headers };
      const versioning = method === 'GET' ? endpoint.versioning : undefined;
      // Items: the log's number before the record is loaded (see itemValidators).
      const before = versioning?.kind === 'item' ? (await services.versions.position()).seq : 0;
      const record = endpoint.load ? await endpoint.load(base) : null;
      const ctx: EndpointContext = { ...base, record };
      if (!(await endpoint.permission(ctx))) throw forbidden(isAuthenticated(viewer));
      // Conditional GET: validators from versions, and a 304 before any representation is built.
      let validators: Validators | undefined;
      if (versioning?.kind === 'list') validators = await listValidators(services, req, ctx, decl);
      else if (versioning?.kind === 'item' && versioning.readable(ctx)) validators = await itemValidators(services, req, ctx, versioning.type, before);
      if (validators && isNotModified(req, validators)) {
        reply.header('allow', await allowedMethods(decl, ctx));
        offerReplay(req, viewer, versioning!.kind, services, {}); // before the 304 is sent
        answerConditional(req, reply, validators);
        return reply;
      }
      const result = endpoint.precondition && hasPreconditions(req.headers) ? await guardedHandler(req, endpoint, ctx, services) : await endpoint.handler(ctx);
      const headers: Record<string, string> = { ...(result.headers ?? {}), allow: await allowedMethods(decl, ctx) };
      if (result.stream) {
        // A stream the handler writes itself (server-sent events): past compression and serialisation.
        reply.hijack();
        reply.raw.writeHead(result.status ?? 200, { ...(reply.getHeaders() as Record<string, string>), ...headers });
        // HEAD: the headers are the whole answer (no body follows to send them, and the stream would never end).
        if (req.method === 'HEAD') reply.raw.end();
        else result.stream(reply.raw);
        return reply;
      }
      if (result.raw)
        return reply
          .code(result.status ?? 200)
          .headers(headers)
          .send(result.body);
      const { status, body } = applyGlobalParams(req, result.status ?? 200, headers, result.body);
      reply.headers(headers);
      if (method === 'GET' && status === 200) {
        if (validators) {
          offerReplay(req, viewer, versioning!.kind, services, result);
          answerConditional(req, reply, validators);
        } else {
          // No version to derive a tag from (indexes, /doc): a hash of the body.
          const text = jsonBody(body);
          if (answerConditional(req, reply, { etag: etagOfBody(text), private: isAuthenticated(viewer) })) return reply;
          return reply.code(status).header('content-type', 'application/json; charset=UTF-8').send(text);
        }
      }
      return sendJson(reply, status, body);
    };

    for (const method of registered) {
      if (!METHODS.includes(method as Method)) continue;
      // `restApi`: a REST route, where a form body's `_wpnonce` is the REST nonce (web/sessions.ts).
      app.route({ method: method as Method, url, handler: handle, config: { restApi: true } });
    }
    app.route({
      method: 'OPTIONS',
      url,
      handler: async (req, reply) => {
        req.apiRoute = decl;
        const links = linksHere();
        req.apiLinks = links;
        const viewer = (req.viewer = await authenticate(req, services));
        const ctx: EndpointContext = { args: {}, sent: new Set(), path: {}, viewer, services, links, record: null, rawQuery: '' };
        reply.header('allow', await allowedMethods(decl, ctx));
        return sendJson(reply, 200, routeIndexEntry(decl, links, false));
      },
    });
  }
}

/**
 * An anonymous GET answered from versions may be replayed below Fastify (web/replay.ts) while the
 * data stays as it is: its headers made per request are the replay's to make again (request id,
 * rate limit) or named by the handler (`renew`: a list's `X-Sync-Token`); an answer with a sync
 * token the handler cannot renew (a `sync_token` answer), or that carries renewed headers in its
 * body (`_envelope`), is not offered. A list holds while its default date window keeps its days.
 */
function offerReplay(req: FastifyRequest, viewer: Viewer, kind: 'item' | 'list', services: Services, result: Pick<Reply, 'headers' | 'renew'>): void {
  if (req.method !== 'GET' || isAuthenticated(viewer)) return;
  const renew = result.renew;
  for (const name of Object.keys(result.headers ?? {})) if (name.toLowerCase() === 'x-sync-token' && !renew?.['x-sync-token']) return;
  if (renew && (req.query as Record<string, unknown> | undefined)?._envelope !== undefined) return;
  const mark: ReplayMark = { route: req.routeOptions.url ?? '(unmatched)', calendar: calendarIdNow() };
  if (renew) mark.renew = renew;
  if (kind === 'list') {
    const days = () => {
      const w = services.events.defaultWindow();
      return `${w.start.slice(0, 10)} ${w.end.slice(0, 10)}`;
    };
    const built = days();
    mark.holds = () => days() === built;
  }
  markReplayable(req.raw, mark);
}

/**
 * Run an item write whose request carries `If-Match` / `If-Unmodified-Since`: the precondition is
 * checked as the first statement of the write's transaction, after locking the record, so no
 * other write can slip in between the check and this one; a failed check is 412
 * `rest_precondition_failed` and rolls back (nothing changed). A handler that writes nothing is
 * checked afterwards.
 */
async function guardedHandler(req: FastifyRequest, endpoint: Endpoint, ctx: EndpointContext, services: Services) {
  const type = endpoint.precondition!.type;
  const id = recordIdOf(ctx);
  if (id === undefined) return endpoint.handler(ctx);
  const key = await services.versions.syncKey();
  const check = (v: RecordVersion) => {
    if (!preconditionsHold(req.headers, { matches: (tag) => tagNamesVersion(tag, key, type, id, v.seq), lastModified: v.gmt })) throw apiError('rest_precondition_failed');
  };
  return services.versions.guardedWrite(type, id, check, () => endpoint.handler(ctx));
}

/** Allow header for an error answer of a matched route (permissions checked without a record). */
export async function allowForError(req: FastifyRequest, services: Services): Promise<string | undefined> {
  if (!req.apiRoute || !req.apiLinks) return undefined;
  const ctx: EndpointContext = { args: {}, sent: new Set(), path: {}, viewer: req.viewer ?? ANONYMOUS, services, links: req.apiLinks, record: null, rawQuery: '' };
  return allowedMethods(req.apiRoute, ctx);
}
