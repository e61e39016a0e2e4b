/**
 * Which calendar a request is of, for every face at once: a path under `/c/{slug}/` is that
 * calendar's (the prefix is taken off before routing, so each face answers there with the same
 * tree: `/c/north/api/…`, `/c/north/events/`, `/c/north/dav/…`), and so is a request whose `Host`
 * is a calendar's own host name; anything else is the default calendar's. The request's work then
 * runs in that calendar (`services.calendars.enter`): its statements keep to it, its caches are
 * its own, its configuration is its own. An unknown slug answers 404 `calendar_not_found`, a
 * suspended calendar 503 `calendar_suspended`; a slug the calendar had before is redirected to the
 * same path under its slug now; a `/c/{slug}/` path on a calendar's own host name is not found.
 *
 * The calendar is carried by an AsyncResource made in the calendar's context and re-entered at each
 * step of the request's life that Fastify may start from elsewhere (the body's parsing runs from
 * the socket's events), the way `@fastify/request-context` keeps its store.
 *
 * @example
 *   createWebServer(config, { rewriteUrl: calendarRewrite(restRouteRewrite(root)) });
 *   registerCalendarEntry(app, services);
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../domain/services.js';
import { apiError, type ApiError } from '../domain/errors.js';
import { DEFAULT_CALENDAR_ID } from '../domain/calendars.js';
import { neverReplay } from './replay.js';
import { errorShapeOf } from './error-shapes.js';
import type { FairShare, TurnShare } from './fair-share.js';

/** The slug a request's path named (`/c/{slug}/…`), set on the raw request by `calendarRewrite`. */
const SLUG = Symbol('calendar slug');
const RESOURCE = Symbol('calendar context');

type RawWithCalendar = IncomingMessage & { [SLUG]?: string };
type RequestWithCalendar = FastifyRequest & { [RESOURCE]?: AsyncResource };

const FEDERATION_PATH = /^\/(?:\.well-known\/(?:webfinger|nodeinfo)|nodeinfo\/|federation\/)/;
/** A federation actor's paths (`/federation/actors/{identifier}[/…]`): the identifier names its calendar. */
const ACTOR_PATH = /^\/federation\/actors\/([^/?#]+)(?:[/?#]|$)/;
const ACTIVITY_TYPES = /application\/(?:activity\+json|ld\+json)/;

const PREFIX = /^\/c\/([a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?)(?=\/|\?|$)/;

/** Set while a face makes requests in-process (`app.inject`) for a request of the calendar at hand. */
const inProcess = new AsyncLocalStorage<true>();

/**
 * Run `fn`, whose in-process requests (`app.inject`: MCP's tools asking the REST routes) are made
 * for the request at hand: each is of that request's calendar, whatever its path and `Host` say
 * (an injected request's `Host` is `localhost:80`, which a calendar may have as its host name), and
 * takes no place of the fair share, which the request at hand holds already (waiting for a second
 * place while holding the first, with every place so held, would never end).
 */
export function forThisRequest<T>(fn: () => T): T {
  return inProcess.run(true, fn);
}

/** Take `/c/{slug}` off a request's path (then `next`, the other rewrites), remembering the slug. */
export function calendarRewrite(next: (req: IncomingMessage) => string): (req: IncomingMessage) => string {
  return (req) => {
    const url = req.url ?? '/';
    if (url.startsWith('/c/')) {
      const m = PREFIX.exec(url);
      if (m) {
        (req as RawWithCalendar)[SLUG] = m[1]!;
        const rest = url.slice(m[0].length);
        req.url = rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
      }
    }
    return next(req);
  };
}

/** The slug of the calendar a request's path named, if any. */
export function calendarSlugOf(req: FastifyRequest): string | undefined {
  return (req.raw as RawWithCalendar)[SLUG];
}

function send(reply: FastifyReply, error: ApiError): void {
  void reply.code(error.status).header('content-type', 'application/json; charset=UTF-8').send(JSON.stringify(error.toJSON()));
}

/**
 * Answer a refusal (a quota, the fair share) with its headers (`Retry-After`), in the shape of the
 * face asked (MCP's JSON-RPC error, CalDAV's DAV error), which its clients read as they read that
 * face's other refusals; else the REST API's JSON.
 */
function refuse(req: FastifyRequest, reply: FastifyReply, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  const shape = errorShapeOf(req);
  if (shape) void shape.send(req, reply, error);
  else send(reply, error);
}

/**
 * A path under a calendar's former slug: the same path under its slug now (the default calendar's,
 * unprefixed), 301 for reads and 308 for writes, so that a client repeats its method and body.
 */
function moved(req: FastifyRequest, reply: FastifyReply, former: string, prefix: string): void {
  const original = req.originalUrl;
  const rest = original.slice(`/c/${former}`.length);
  const location = `${prefix}${rest === '' || rest.startsWith('?') ? `/${rest}` : rest}`;
  const read = req.method === 'GET' || req.method === 'HEAD';
  void reply
    .code(read ? 301 : 308)
    .header('location', location)
    .header('cache-control', 'no-store')
    .send();
}

/**
 * Run each request in its calendar. Registered first, so that every hook and handler after it
 * (authentication, the rate limit, the routes) runs there.
 */
export function registerCalendarEntry(
  app: FastifyInstance,
  services: Pick<Services, 'calendars' | 'quotas'>,
  exempt: ReadonlySet<string> = new Set(),
  fair?: FairShare,
  /** With federation on: the default calendar's actor identifier (another identifier in an actor's path is a calendar's slug). */
  federationHandle?: string,
): void {
  /** The slug of the calendar a federation actor's path names, on the service's own host (undefined: none, or the default calendar's). */
  const actorSlugOf = (url: string): string | undefined => {
    if (federationHandle === undefined || !url.startsWith('/federation/actors/')) return undefined;
    const m = ACTOR_PATH.exec(url);
    if (!m) return undefined;
    let identifier: string;
    try {
      identifier = decodeURIComponent(m[1]!);
    } catch {
      return undefined;
    }
    return identifier === federationHandle ? undefined : identifier;
  };
  /**
   * Its calendar's turn (fair-share.ts): the request holds its place until its answer starts (the
   * headers written, by Fastify or by a stream of its own) or its connection closes.
   */
  const admitted = (reply: FastifyReply, calendar: number, done: () => void): void => {
    if (!fair) return done();
    const raw = reply.raw;
    const ticket = fair.admit(calendar, done);
    raw.once('close', ticket.release);
    const writeHead = raw.writeHead;
    raw.writeHead = function (this: typeof raw, ...args: Parameters<typeof writeHead>) {
      ticket.release();
      return writeHead.apply(this, args);
    } as typeof writeHead;
  };
  /**
   * The calendar's `requests_per_minute` quota (domain/quotas.ts), counted once the request is in
   * its calendar: nothing to look at when the calendar has none (at once, from what is kept).
   * Health checks and metrics are neither counted nor made to wait their calendar's turn.
   */
  /** `calendar`: whose turn it takes (fair share); undefined: it takes none (an in-process request). */
  const counted = (req: FastifyRequest, reply: FastifyReply, calendar: number | undefined, done: () => void): void => {
    const free = exempt.has(req.url.split('?')[0]!);
    let limited = false;
    const refusal = services.quotas.countRequest(() => {
      limited = !free;
      return free;
    });
    // Counted: its answer is not kept for replay, which would answer the next one uncounted.
    if (limited) neverReplay(req.raw);
    const go = () => (free || calendar === undefined ? done() : admitted(reply, calendar, done));
    if (refusal === undefined) return go();
    if (!(refusal instanceof Promise)) return refuse(req, reply, refusal);
    refusal.then(
      (error) => (error ? refuse(req, reply, error) : go()),
      () => go(),
    );
  };
  const reenter = (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const resource = (req as RequestWithCalendar)[RESOURCE];
    if (resource) resource.runInAsyncScope(done, req.raw);
    else done();
  };
  app.addHook('onRequest', (req, reply, done) => {
    const slug = calendarSlugOf(req);
    // Made in-process for a request of this calendar (forThisRequest): it stays in it, counted
    // (as a request of its own) but holding no second place. A prefix names no other calendar here.
    if (inProcess.getStore()) return slug === undefined ? counted(req, reply, undefined, done) : send(reply, apiError('calendar_not_found'));
    const host = req.headers.host?.toLowerCase();
    const onCalendarHost = host !== undefined && services.calendars.isCalendarHost(host);
    // A federation actor's paths, on the service's own host, name the actor's calendar by its
    // identifier (federation/index.ts); a name of no calendar is left to the default one (404).
    const actorSlug = slug === undefined && !onCalendarHost ? actorSlugOf(req.url) : undefined;
    // The default calendar's requests (the common case) cost no look-up.
    if (slug === undefined && !onCalendarHost && actorSlug === undefined) return counted(req, reply, DEFAULT_CALENDAR_ID, done);
    // On a calendar's own host name, its paths are its own: another calendar's prefix there would
    // serve that one under this one's name (its cookies, its links).
    if (slug !== undefined && onCalendarHost) return send(reply, apiError('calendar_not_found'));
    // An actor's former identifier (a slug its calendar had before) names that calendar too: its old
    // actor answers, moved. So does a former slug in a path: its old links are redirected.
    services.calendars.resolve(slug !== undefined ? { slug, formerToo: true } : actorSlug !== undefined ? { slug: actorSlug, formerToo: true } : { host: host! }).then(
      (runtime) => {
        if (!runtime || (actorSlug !== undefined && runtime.calendar.id === DEFAULT_CALENDAR_ID)) {
          if (slug !== undefined) return send(reply, apiError('calendar_not_found'));
          return counted(req, reply, DEFAULT_CALENDAR_ID, done);
        }
        // Suspended first: a redirect from a former slug would tell where the calendar is now.
        if (runtime.calendar.status === 'suspended') {
          void reply.header('retry-after', '3600');
          return send(reply, apiError('calendar_suspended'));
        }
        if (slug !== undefined && runtime.calendar.slug !== slug) return moved(req, reply, slug, runtime.calendar.id === DEFAULT_CALENDAR_ID ? '' : `/c/${runtime.calendar.slug}`);
        // Federation lives on the service's origin (one Fedify origin): every calendar's actor is
        // `/federation/actors/{identifier}` there, not under its prefix or on its own host.
        // A calendar's own host answers WebFinger for its actor (federation/routes.ts), and nothing else of federation.
        const ownHostWebFinger = federationHandle !== undefined && slug === undefined && /^\/\.well-known\/webfinger(?:\?|$)/.test(req.url);
        if (actorSlug === undefined && !ownHostWebFinger && FEDERATION_PATH.test(req.url)) return send(reply, apiError('rest_no_route'));
        // Without federation, an ActivityPub client asking for a page of another calendar gets its HTML.
        if (federationHandle === undefined && ACTIVITY_TYPES.test(req.headers.accept ?? '')) req.headers.accept = 'text/html';
        services.calendars.enter(runtime, () => {
          const resource = new AsyncResource('events-calendar:calendar');
          (req as RequestWithCalendar)[RESOURCE] = resource;
          resource.runInAsyncScope(() => counted(req, reply, runtime.calendar.id, done), req.raw);
        });
      },
      (error: unknown) => done(error as Error),
    );
  });
  app.addHook('preParsing', (req, reply, payload, done) => {
    const resource = (req as RequestWithCalendar)[RESOURCE];
    if (resource) resource.runInAsyncScope(() => done(null, payload), req.raw);
    else done(null, payload);
  });
  app.addHook('preValidation', reenter);
  app.addHook('preHandler', reenter);
}

/**
 * Every request takes its calendar's turn (fair-share.ts, `createTurnShare`) before anything else
 * runs for it, replayed answers included: the request listeners of `server` (the replay, Fastify)
 * are called in its turn. The calendar is told from the raw request (its `/c/{slug}` prefix, else a
 * calendar's own host name, else the slug a federation actor's path names, else the default
 * calendar); health checks and metrics never wait.
 */
export function installTurnShare(
  server: Server,
  turns: TurnShare,
  isCalendarHost: (host: string) => boolean,
  exempt: ReadonlySet<string>,
  /** With federation on: the default calendar's actor identifier (another in an actor's path is a calendar's slug). */
  federationHandle?: string,
): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const go = () => {
      for (const listener of listeners) listener.call(server, req, res);
    };
    const url = req.url ?? '/';
    let calendar = '';
    if (url.startsWith('/c/')) calendar = PREFIX.exec(url)?.[1] ?? '';
    else {
      const host = req.headers.host?.toLowerCase();
      if (host !== undefined && isCalendarHost(host)) calendar = `host:${host}`;
      else if (federationHandle !== undefined && url.startsWith('/federation/actors/')) {
        // A federation actor's paths name its calendar by its slug (the default calendar's: its handle).
        const identifier = ACTOR_PATH.exec(url)?.[1];
        if (identifier !== undefined && identifier !== federationHandle) calendar = identifier;
      } else if (exempt.has(url.split('?')[0]!)) return go();
    }
    turns.enter(calendar, go);
  });
}
