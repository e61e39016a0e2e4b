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
import { storeFault } from '../domain/faults.js';
import type { FederationStore } from '../domain/federation-store.js';
import { inboxBodyError } from './inbox-body.js';
import type { createInboxGuard } from './inbox-guard.js';
import type { createLoaders } from './loaders.js';
import type { FederationMetrics } from './metrics.js';
import { withContext, type FederationUrls } from './objects.js';
import { sendActivityJson, sendError, type EventObjects } from './event-objects.js';

const PAGE_SIZE = 20;

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
}

/** Hand a request to Fedify (its body as received, for the signature's digest). */
async function toFedify(deps: FederationRouteDeps, req: FastifyRequest, reply: FastifyReply, body?: Buffer) {
  const { federation, origin, logger } = deps;
  const url = new URL(req.url, origin);
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
  scope.get('/federation/actors/:handle', async (req, reply) => {
    const key = `${(req.params as { handle: string }).handle}\n${req.headers.accept ?? ''}`;
    const kept = actorAnswers.get(key);
    if (kept) return reply.code(kept.status).headers(kept.headers).send(kept.body);
    await toFedify(deps, req, reply);
    return reply;
  });
  scope.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'GET' && reply.statusCode === 200 && req.routeOptions.url === '/federation/actors/:handle' && Buffer.isBuffer(payload) && actorAnswers.size < 50) {
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'vary', 'cache-control']) {
        const v = reply.getHeader(name);
        if (v !== undefined) headers[name] = String(v);
      }
      actorAnswers.set(`${(req.params as { handle: string }).handle}\n${req.headers.accept ?? ''}`, { status: 200, headers, body: payload });
    }
    return payload;
  });
}

/** The outbox: newest first, paged; its first page is what a new follower sees. */
async function answerOutbox(deps: FederationRouteDeps, req: FastifyRequest, reply: FastifyReply) {
  const { store, urls } = deps;
  if ((req.params as { handle: string }).handle !== deps.config.federationHandle) return sendError(reply, apiError('federation_not_found'));
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
  const { store, config, urls, guard, loaders } = deps;
  const handle = config.federationHandle;
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

    for (const path of ['/.well-known/webfinger', '/.well-known/nodeinfo', '/nodeinfo/2.1']) {
      scope.get(path, async (req, reply) => toFedify(deps, req, reply));
    }
    registerActorRoute(scope, deps);
    for (const path of ['/federation/actors/:handle/inbox', '/federation/inbox']) {
      scope.post(path, { bodyLimit: config.federationMaxBodyBytes }, async (req, reply) => {
        const refusal = (await guard.check(req, req.body as Buffer | undefined)) ?? inboxBodyError(req.body as Buffer | undefined);
        if (refusal) return sendError(reply, refusal);
        try {
          const res = await loaders.withFetchBudget(() => toFedify(deps, req, reply, (req.body as Buffer | undefined) ?? Buffer.alloc(0)));
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

    // The followers: their number only (who follows is not published).
    scope.get('/federation/actors/:handle/followers', async (req, reply) => {
      if ((req.params as { handle: string }).handle !== handle) return sendError(reply, apiError('federation_not_found'));
      const counts = await store.countFollowers();
      return sendActivityJson(reply, 200, withContext({ id: urls.followers, type: 'OrderedCollection', totalItems: counts.accepted ?? 0, orderedItems: [] }));
    });

    // An event's object: live, gone (410 with its Tombstone), or never federated (404).
    scope.get('/federation/events/:id', async (req, reply) => {
      const idText = (req.params as { id: string }).id;
      // An id beyond what the column holds is no event's (and must not reach SQL: PostgreSQL refuses it).
      if (!isPositiveInt(idText)) return sendError(reply, apiError('federation_not_found'));
      const id = Number(idText);
      return answerObject(reply, id);
    });

    // An activity of the outbox (Accept and Reject are not public).
    scope.get('/federation/activities/:id', async (req, reply) => {
      const row = await store.findActivity(urls.activity((req.params as { id: string }).id));
      if (!row) return sendError(reply, apiError('federation_not_found'));
      return sendActivityJson(reply, 200, JSON.parse(row.body));
    });
  });
}
