/**
 * Federation's HTTP routes: WebFinger, NodeInfo and the actor document (Fedify answers them; the
 * actor's answers are kept by Accept, since building one costs a good part of a second of CPU),
 * the inboxes (guarded: inbox-guard.ts, inbox-body.ts, then Fedify verifies and queues), the
 * outbox and followers collections, an event's object (live, 410 with its Tombstone, or 404) and
 * the outbox's activities. Fedify's own refusals are put in the face's JSON error shape.
 *
 * @example await registerFederationRoutes(app, { config, federation, urls, guard, loaders, metrics, objects, logger })
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Federation } from '@fedify/fedify';
import type { Config } from '../config.js';
import { ApiError, apiError } from '../domain/errors.js';
import { isPositiveInt } from '../domain/values.js';
import { registerKept } from '../metrics.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow, runtimeNow } from '../domain/calendars.js';
import { storeFault } from '../domain/faults.js';
import type { FederationStore } from '../domain/federation-store.js';
import { inboxBodyError } from './inbox-body.js';
import type { createInboxGuard } from './inbox-guard.js';
import type { createLoaders } from './loaders.js';
import type { FederationMetrics } from './metrics.js';
import { federationUrls, withContext, type FederationUrls } from './objects.js';
import { sendActivityJson, sendError, type EventObjects } from './event-objects.js';

const PAGE_SIZE = 20;
/** Actor documents kept (by calendar and Accept). */
const ACTOR_ANSWERS_KEPT = 50;

/** What the federation routes read and answer with. */
interface FederationRouteDeps {
  store: FederationStore;
  config: Config;
  federation: Federation<void>;
  origin: string;
  urls: FederationUrls;
  guard: ReturnType<typeof createInboxGuard>;
  loaders: ReturnType<typeof createLoaders>;
  metrics: FederationMetrics;
  objects: EventObjects;
  logger: { warn(obj: object, msg: string): void };
  /** The identifier of the calendar at hand's actor (FEDERATION_HANDLE, or the calendar's slug). */
  identifierHere(): string;
  /** Run `fn` in the calendar whose actor `identifier` names (an ApiError: its calendar is suspended). */
  withinActor<T>(identifier: string | undefined, fn: () => Promise<T>): Promise<T | ApiError>;
  /** What the kept actor answers are reported with (`registerKept`). */
  keptOwner?: object;
}

/** The identifier of one of our actors a URL names (`{origin}/federation/actors/{identifier}[/…]`), if any. */
export function actorIdentifierOf(url: unknown, origin: string): string | undefined {
  if (typeof url !== 'string') return undefined;
  const prefix = `${origin}/federation/actors/`;
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  const end = rest.search(/[/?#]/);
  const text = end === -1 ? rest : rest.slice(0, end);
  try {
    return text ? decodeURIComponent(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The identifier a WebFinger look-up's resource names (`acct:{identifier}@{host}`, or an actor's URL). */
export function webFingerIdentifierOf(resource: unknown, origin: string): string | undefined {
  if (typeof resource !== 'string') return undefined;
  const acct = /^acct:([^@]+)@([^@]+)$/.exec(resource);
  if (acct) return acct[1];
  return actorIdentifierOf(resource, origin);
}

/**
 * The actor an activity posted to the shared inbox is for, by its object: a Follow's object is the
 * actor, an Undo's or an Accept's the Follow whose object it is, a Like's or an Announce's one of
 * its objects (under the actor's URL). Undefined: none of ours (the default calendar handles it).
 */
export function activityTargetOf(body: Buffer | undefined, origin: string): string | undefined {
  let activity: unknown;
  try {
    activity = JSON.parse((body ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    return undefined;
  }
  const look = (object: unknown, depth: number): string | undefined => {
    if (depth > 3 || object === null || object === undefined) return undefined;
    if (typeof object === 'string') return actorIdentifierOf(object, origin);
    if (Array.isArray(object)) {
      for (const item of object.slice(0, 10)) {
        const found = look(item, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (typeof object !== 'object') return undefined;
    const o = object as Record<string, unknown>;
    return actorIdentifierOf(o.id, origin) ?? look(o.object, depth + 1);
  };
  return activity && typeof activity === 'object' ? look((activity as Record<string, unknown>).object, 0) : undefined;
}

/** Hand a request to Fedify (its body as received, for the signature's digest). */
async function toFedify(deps: FederationRouteDeps, req: FastifyRequest, reply: FastifyReply, body?: Buffer, asked?: URL) {
  const { federation, origin, logger } = deps;
  const url = asked ?? new URL(req.url, origin);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const request = new Request(url, { method: req.method, headers, ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body: new Uint8Array(body) } : {}) });
  let response: Response;
  try {
    response = await federation.fetch(request, {
      contextData: undefined,
      onNotFound: () => new Response(JSON.stringify(apiError('federation_not_found').toJSON()), { status: 404, headers: { 'content-type': 'application/json; charset=UTF-8' } }),
      onNotAcceptable: () =>
        new Response(JSON.stringify(apiError('federation_not_acceptable').toJSON()), { status: 406, headers: { 'content-type': 'application/json; charset=UTF-8', vary: 'Accept' } }),
    });
  } catch (err) {
    // Fedify reads an incoming activity (JSON-LD, with the remote contexts it names) before any
    // listener runs: what it cannot read is the sender's to fix (400), a database fault ours,
    // and a refusal of our own (the verified host over its limit: 429) stays what it is.
    if (req.method !== 'POST' || err instanceof ApiError || storeFault(err) !== undefined) throw err;
    logger.warn({ err: (err as Error).message }, 'federation: an incoming activity could not be read');
    return sendError(reply, apiError('federation_bad_request', { args: [String((err as Error).message ?? err).slice(0, 300)] }));
  }
  // Fedify's own refusals are short texts (`Missing actor.`, `Failed to verify the request
  // signature.`): in the face's JSON error shape, as every other error here.
  if (response.status >= 400 && !/json/i.test(response.headers.get('content-type') ?? '')) {
    const text = (await response.text()).trim().slice(0, 300) || `HTTP ${response.status}`;
    return sendError(reply, response.status === 401 ? apiError('federation_unauthorized', { args: [text] }) : apiError('federation_bad_request', { args: [text], status: response.status }));
  }
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') reply.header(name, value);
  });
  return reply.send(Buffer.from(await response.arrayBuffer()));
}

/**
 * The actor document: it changes only with the settings, and Fedify takes a good part of a second
 * of CPU to build it (key export, JSON-LD compaction): its answers are kept by Accept.
 */
function registerActorRoute(scope: FastifyInstance, deps: FederationRouteDeps): void {
  const actorAnswers = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
  registerKept(deps.keptOwner, 'federation_actor_answers', { entries: () => actorAnswers.size, maxEntries: ACTOR_ANSWERS_KEPT });
  // Kept per calendar and Accept, and, for a calendar other than the default one, per reading of
  // its configuration (its name may change): at most ACTOR_ANSWERS_KEPT, the oldest dropped.
  const keyOf = (req: FastifyRequest) => {
    const runtime = runtimeNow();
    return `${calendarIdNow()}:${runtime?.readAt ?? 0}\n${(req.params as { handle: string }).handle}\n${req.headers.accept ?? ''}`;
  };
  scope.get('/federation/actors/:handle', async (req, reply) => {
    const kept = actorAnswers.get(keyOf(req));
    if (kept) return reply.code(kept.status).headers(kept.headers).send(kept.body);
    await toFedify(deps, req, reply);
    return reply;
  });
  scope.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'GET' && reply.statusCode === 200 && req.routeOptions.url === '/federation/actors/:handle' && Buffer.isBuffer(payload)) {
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'vary', 'cache-control']) {
        const v = reply.getHeader(name);
        if (v !== undefined) headers[name] = String(v);
      }
      if (actorAnswers.size >= ACTOR_ANSWERS_KEPT) actorAnswers.delete(actorAnswers.keys().next().value!);
      actorAnswers.set(keyOf(req), { status: 200, headers, body: payload });
    }
    return payload;
  });
}

/** The outbox: newest first, paged; its first page is what a new follower sees. */
async function answerOutbox(deps: FederationRouteDeps, req: FastifyRequest, reply: FastifyReply) {
  const { store, urls } = deps;
  if ((req.params as { handle: string }).handle !== deps.identifierHere()) return sendError(reply, apiError('federation_not_found'));
  const pageText = (req.query as Record<string, string | undefined>).page;
  const { total } = await store.listActivities({ limit: 1, offset: 0, types: ['Create', 'Update', 'Delete'] });
  if (pageText === undefined) {
    return sendActivityJson(
      reply,
      200,
      withContext({ id: urls.outbox, type: 'OrderedCollection', totalItems: total, first: `${urls.outbox}?page=1`, last: `${urls.outbox}?page=${Math.max(1, Math.ceil(total / PAGE_SIZE))}` }),
    );
  }
  // A page beyond what an integer column holds is no page (and must not reach SQL: PostgreSQL refuses it).
  if (!isPositiveInt(pageText)) return sendError(reply, apiError('federation_not_found'));
  const page = Number(pageText);
  const { rows } = await store.listActivities({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, types: ['Create', 'Update', 'Delete'] });
  const items = rows.map((r) => {
    const { '@context': _c, ...rest } = JSON.parse(r.body) as Record<string, unknown>;
    return rest;
  });
  const doc: Record<string, unknown> = { id: `${urls.outbox}?page=${page}`, type: 'OrderedCollectionPage', partOf: urls.outbox, totalItems: total, orderedItems: items };
  if (page * PAGE_SIZE < total) doc.next = `${urls.outbox}?page=${page + 1}`;
  if (page > 1) doc.prev = `${urls.outbox}?page=${page - 1}`;
  return sendActivityJson(reply, 200, withContext(doc));
}

export async function registerFederationRoutes(app: FastifyInstance, deps: FederationRouteDeps): Promise<void> {
  const { store, config, urls, guard, loaders, origin } = deps;
  const inboxTotal = deps.metrics.inbox;
  const answerObject = deps.objects.answer;

  await app.register(async (scope) => {
    // Inbox bodies are read as they came (Fedify checks their digest), at most FEDERATION_MAX_BODY_BYTES.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: config.federationMaxBodyBytes }, (_req, body, done) => done(null, body));
    scope.setErrorHandler(async (err, _req, reply) => {
      const code = (err as { code?: string }).code;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        inboxTotal.inc({ outcome: 'too_large' });
        return sendError(reply, apiError('federation_payload_too_large'));
      }
      throw err;
    });

    for (const path of ['/.well-known/nodeinfo', '/nodeinfo/2.1']) {
      scope.get(path, async (req, reply) => toFedify(deps, req, reply));
    }
    // WebFinger: the resource names the actor, so its calendar (`acct:north@host`: calendar north).
    scope.get('/.well-known/webfinger', async (req, reply) => {
      const resource = (req.query as Record<string, unknown>).resource;
      if (calendarIdNow() !== DEFAULT_CALENDAR_ID) {
        // On a calendar's own host (web/calendars.ts lets nothing else of federation through):
        // `acct:{slug}@{its host}` is its actor, answered as `acct:{slug}@{the service's host}`,
        // where the actor lives, and so is a slug it had before (its old actor, moved); any other
        // account is none of its.
        const identifier = deps.identifierHere();
        const acct = typeof resource === 'string' ? /^acct:([^@]+)@([^@]+)$/.exec(resource) : null;
        const hosts = [req.headers.host?.toLowerCase(), new URL(origin).host];
        const named = acct ? (hosts.includes(acct[2]!.toLowerCase()) ? acct[1] : undefined) : webFingerIdentifierOf(resource, origin);
        const own = named !== undefined && (named === identifier || (await store.formerIdentifiers()).includes(named));
        if (!own) return sendError(reply, apiError('federation_not_found'));
        const asked = new URL('/.well-known/webfinger', origin);
        asked.searchParams.set('resource', `acct:${named}@${new URL(origin).host}`);
        return toFedify(deps, req, reply, undefined, asked);
      }
      const identifier = webFingerIdentifierOf(resource, origin);
      const answered = await deps.withinActor(identifier, async () => toFedify(deps, req, reply));
      return answered instanceof ApiError ? sendError(reply, answered) : answered;
    });
    registerActorRoute(scope, deps);
    for (const path of ['/federation/actors/:handle/inbox', '/federation/inbox']) {
      scope.post(path, { bodyLimit: config.federationMaxBodyBytes }, async (req, reply) => {
        const refusal = (await guard.check(req, req.body as Buffer | undefined)) ?? inboxBodyError(req.body as Buffer | undefined);
        if (refusal) return sendError(reply, refusal);
        // An actor's own inbox runs in its calendar already (its path names it: web/calendars.ts);
        // the shared inbox's activity names its actor by its object.
        const target = req.routeOptions.url === '/federation/inbox' ? activityTargetOf(req.body as Buffer | undefined, origin) : undefined;
        try {
          const answered = await loaders.withFetchBudget(() => deps.withinActor(target, () => toFedify(deps, req, reply, (req.body as Buffer | undefined) ?? Buffer.alloc(0))));
          if (answered instanceof ApiError) return sendError(reply, answered);
          const res = answered;
          inboxTotal.inc({ outcome: reply.statusCode < 300 ? 'accepted' : 'refused' });
          return res;
        } catch (err) {
          // The limit of the verified actor's host, reached when Fedify queued the activity.
          if (err instanceof ApiError) return sendError(reply, err);
          throw err;
        }
      });
    }
    // The outbox: newest first, paged; its first page is what a new follower sees.
    scope.get('/federation/actors/:handle/outbox', async (req, reply) => answerOutbox(deps, req, reply));

    // An actor path of the calendar at hand: its current identifier, or (another calendar than the
    // default one) a former one, which the request was resolved by (web/calendars.ts): the old
    // actor's objects, activities and followers stay where they were announced.
    const actorUrlsOf = (req: FastifyRequest): FederationUrls | undefined => {
      const handle = (req.params as { handle: string }).handle;
      if (handle === deps.identifierHere()) return urls;
      return calendarIdNow() === DEFAULT_CALENDAR_ID ? undefined : federationUrls(origin, handle, true);
    };

    // The followers: their number only (who follows is not published).
    scope.get('/federation/actors/:handle/followers', async (req, reply) => {
      const asked = actorUrlsOf(req);
      if (!asked) return sendError(reply, apiError('federation_not_found'));
      const counts = await store.countFollowers();
      return sendActivityJson(reply, 200, withContext({ id: asked.followers, type: 'OrderedCollection', totalItems: counts.accepted ?? 0, orderedItems: [] }));
    });

    // An event's object: live, gone (410 with its Tombstone), or never federated (404).
    scope.get('/federation/events/:id', async (req, reply) => {
      const idText = (req.params as { id: string }).id;
      // An id beyond what the column holds is no event's (and must not reach SQL: PostgreSQL refuses it).
      if (!isPositiveInt(idText) || calendarIdNow() !== DEFAULT_CALENDAR_ID) return sendError(reply, apiError('federation_not_found'));
      const id = Number(idText);
      return answerObject(reply, id, urls.actor);
    });

    // An activity of the outbox (Accept and Reject are not public).
    const answerActivity = async (req: FastifyRequest, reply: FastifyReply, under: FederationUrls = urls) => {
      const row = await store.findActivity(under.activity((req.params as { id: string }).id));
      if (!row) return sendError(reply, apiError('federation_not_found'));
      return sendActivityJson(reply, 200, JSON.parse(row.body));
    };
    // The default calendar's objects and activities keep their paths; another calendar's are
    // under its actor (objects.ts), whose identifier names the calendar the request runs in.
    scope.get('/federation/activities/:id', async (req, reply) => (calendarIdNow() === DEFAULT_CALENDAR_ID ? answerActivity(req, reply) : sendError(reply, apiError('federation_not_found'))));
    // Each under the actor it was made by: a former identifier's stay under it after a rename.
    const ownActor = (req: FastifyRequest) => (calendarIdNow() === DEFAULT_CALENDAR_ID ? undefined : actorUrlsOf(req));
    scope.get('/federation/actors/:handle/activities/:id', async (req, reply) => {
      const asked = ownActor(req);
      return asked ? answerActivity(req, reply, asked) : sendError(reply, apiError('federation_not_found'));
    });
    scope.get('/federation/actors/:handle/events/:id', async (req, reply) => {
      const idText = (req.params as { id: string }).id;
      const asked = ownActor(req);
      if (!asked || !isPositiveInt(idText)) return sendError(reply, apiError('federation_not_found'));
      return answerObject(reply, Number(idText), asked.actor);
    });
  });
}
