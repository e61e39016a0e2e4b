/**
 * The federation face (issue 31, docs/federation.md): the calendar as an ActivityPub actor that
 * Mastodon, Mobilizon, Gancio and other fediverse servers can follow. Built on Fedify: WebFinger,
 * NodeInfo 2.1, the actor document (an `Application` with RSA and Ed25519 keys generated once and
 * kept in the database) and the inboxes (HTTP signatures verified by Fedify, the key's owner
 * checked against the activity's actor, its key-value store and inbox queue over our database:
 * kv.ts, queue.ts, the queue drained by the `federation-inbox` job). What Fedify does
 * not shape the way Mobilizon and Gancio read events (our `Event` objects carry `timezone`, a
 * schema.org `PostalAddress` and times with their offset, which Fedify's vocabulary would drop) is
 * ours: the objects, the outbox (a change-log consumer, outbox.ts) and the deliveries (a job on
 * the runner, delivery.ts). With FEDERATION unset nothing here is registered: every URL 404s.
 *
 * @example
 *   const face = await createFederationFace({ config, services, logger });
 *   registerRestApi(app, { …, federation: face.admin });
 *   await face.register(app, jobs);
 */
import { randomUUID, type webcrypto } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { createFederation, exportJwk, generateCryptoKeyPair, importJwk, type Federation, type MessageQueue } from '@fedify/fedify';
import { Activity, Application, Delete, Endpoints, Follow, Image, Undo, isActor } from '@fedify/vocab';
import type { Config } from '../config.js';
import type { Services } from '../domain/services.js';
import type { DeliveryView, FederationAdmin, FollowerView } from '../domain/federation.js';
import { ApiError, apiError } from '../domain/errors.js';
import { isPositiveInt } from '../domain/values.js';
import type { JobRunner } from '../jobs/runner.js';
import { storeFault } from '../store/faults.js';
import {
  claimFederationDeliveries,
  countDeliveries,
  countFollowers,
  deleteFollower,
  deleteFollowerById,
  deleteFollowersAt,
  dropPendingTo,
  ensureOutboxCursor,
  findActivity,
  findFollower,
  findFollowerById,
  insertDeliveries,
  insertKeysOnce,
  insertReceived,
  listActivities,
  listDeliveries,
  listFollowers,
  listReceived,
  objectState,
  readKeys,
  claimMessages,
  finishMessage,
  postponeMessage,
  recordDeliveryAttempt,
  retryDelivery,
  setFollowerStatus,
  upsertFollower,
  type FollowerRow,
} from '../store/federation.js';
import { createKvStore } from './kv.js';
import { isBlockedHost, postActivity, type SigningKey } from './delivery.js';
import { announcedObject, createOutbox, createPublicReader, lastStampOf, stampOf } from './outbox.js';
import { federationUrls, msIso, tombstone, withContext, type FederationUrls } from './objects.js';
import { createInboxGuard } from './inbox-guard.js';
import { inboxBodyError } from './inbox-body.js';
import { createMessageQueue } from './queue.js';
import { createLoaders } from './loaders.js';
import { actorStatus } from './actor-status.js';

export interface FederationDeps {
  config: Config;
  services: Services;
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export interface FederationFace {
  urls: FederationUrls;
  admin: FederationAdmin;
  /** Register the routes on the instance and the jobs on the runner. */
  register(app: FastifyInstance, runner: JobRunner, registry?: Registry): Promise<void>;
}

const ACTIVITY_JSON = 'application/activity+json';
/** How long a claimed delivery stays leased (longer than an attempt's time limit). */
const LEASE_MS = 60_000;
const ATTEMPT_TIMEOUT_MS = 15_000;
/** How long the check of a follower's actor URL (an unverified Delete of itself) may take. */
const ACTOR_CHECK_TIMEOUT_MS = 10_000;
const PAGE_SIZE = 20;

/** Whether the request's Accept asks for ActivityStreams JSON (rather than HTML). */
export function wantsActivityJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return /application\/activity\+json|application\/ld\+json/i.test(accept) && !/^\s*text\/html/i.test(accept);
}

function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.headers(err.headers);
  return reply.code(err.status).header('content-type', 'application/json; charset=UTF-8').send(JSON.stringify(err.toJSON()));
}

const sendActivityJson = (reply: FastifyReply, status: number, doc: unknown) =>
  reply.code(status).header('content-type', `${ACTIVITY_JSON}; charset=utf-8`).header('vary', 'Accept').send(JSON.stringify(doc));

const gmtOf = (ms: number | string | null) => (ms === null || Number(ms) === 0 ? null : new Date(Number(ms)).toISOString().replace(/\.\d{3}Z$/, 'Z'));

function followerView(r: FollowerRow): FollowerView {
  return { id: Number(r.id), actor: r.actor_id, handle: r.handle, host: r.host, inbox: r.inbox, shared_inbox: r.shared_inbox, status: r.status as FollowerView['status'], date_utc: r.created_gmt };
}

export async function createFederationFace({ config, services, logger }: FederationDeps): Promise<FederationFace> {
  const { store } = services;
  const db = store.db;
  const handle = config.federationHandle;
  // The federation URLs live at the site's origin (WebFinger must; a SITE_URL with a path keeps its
  // pages there, and the actor at /federation/… of its origin).
  const origin = new URL(config.siteUrl).origin;
  const urls = federationUrls(origin, handle);
  const host = new URL(config.siteUrl).host;
  const kv = createKvStore(db);
  const reader = createPublicReader(services, urls);
  const blocked = config.federationBlockedDomains;
  const userAgent = `events-calendar/0.1 (+${config.siteUrl}/)`;

  // The actor's keys: generated once (the first instance to start stores them; the others read those).
  const kinds = ['RSASSA-PKCS1-v1_5', 'Ed25519'] as const;
  let stored = await readKeys(db);
  if (stored.length < kinds.length) {
    const made = [];
    for (const kind of kinds) {
      if (stored.some((k) => k.kind === kind)) continue;
      const pair = await generateCryptoKeyPair(kind);
      made.push({ kind, private_jwk: JSON.stringify(await exportJwk(pair.privateKey)), public_jwk: JSON.stringify(await exportJwk(pair.publicKey)) });
    }
    await insertKeysOnce(db, made, services.clock.nowGmt());
    stored = await readKeys(db);
  }
  const keyPairs: webcrypto.CryptoKeyPair[] = [];
  for (const kind of kinds) {
    const row = stored.find((k) => k.kind === kind)!;
    keyPairs.push({ privateKey: await importJwk(JSON.parse(row.private_jwk), 'private'), publicKey: await importJwk(JSON.parse(row.public_jwk), 'public') });
  }

  // The outbox's place in the change log, made before this server accepts a request (the first
  // start with federation on: at the log's head; later starts keep it), so that nothing published
  // from now on is skipped, even before the outbox job's first step or across a restart.
  await ensureOutboxCursor(db);

  let nudgeInbox = () => {};
  const queue = createMessageQueue(db, () => nudgeInbox());
  // Fedify queues an incoming activity once it has verified it: that is where its actor's host is
  // counted (inbox-guard.ts), and refused over its limit. Its own retries are not new requests.
  const admittingQueue: MessageQueue = {
    ...queue,
    async enqueue(message, options) {
      const m = message as { type?: unknown; attempt?: unknown; activity?: unknown };
      if (m.type === 'inbox' && m.attempt === 0) await guard.admit(m.activity);
      return queue.enqueue(message, options);
    },
  };
  // What Fedify fetches (keys, actors, contexts), bounded per inbox request (loaders.ts).
  const loaders = createLoaders({ kv, allowPrivate: config.federationAllowPrivate, userAgent });
  const federation: Federation<void> = createFederation<void>({
    kv,
    queue: { inbox: admittingQueue },
    manuallyStartQueue: true,
    origin,
    ...loaders.factories,
    signatureTimeWindow: { milliseconds: config.federationClockSkewMs },
    activityTransformers: [],
  });

  federation
    .setActorDispatcher('/federation/actors/{identifier}', async (ctx, identifier) => {
      if (identifier !== handle) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      return new Application({
        id: ctx.getActorUri(identifier),
        preferredUsername: handle,
        name: config.siteName,
        summary: `<p>Events of ${config.siteName.replace(/[<>&"]/g, '')}: follow to see new and changed events in your timeline.</p>`,
        url: new URL(`${config.siteUrl}/events/`),
        inbox: ctx.getInboxUri(identifier),
        outbox: new URL(urls.outbox),
        followers: new URL(urls.followers),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: keys[0]?.cryptographicKey ?? null,
        assertionMethods: keys.map((k) => k.multikey),
        manuallyApprovesFollowers: config.federationApproveFollows,
        discoverable: true,
        indexable: true,
        ...(config.federationIconUrl ? { icon: new Image({ url: new URL(config.federationIconUrl) }) } : {}),
      });
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === handle ? keyPairs : []));

  federation.setNodeInfoDispatcher('/nodeinfo/2.1', async () => {
    const live = await listActivities(db, { limit: 1, offset: 0, types: ['Create'] });
    return {
      software: { name: 'events-calendar', version: '0.1.0', homepage: new URL(`${config.siteUrl}/`) },
      protocols: ['activitypub'],
      openRegistrations: false,
      usage: { users: { total: 1, activeHalfyear: 1, activeMonth: 1 }, localPosts: live.total, localComments: 0 },
      metadata: { nodeName: config.siteName },
    };
  });

  // Metrics (/metrics): deliveries by outcome, inbox requests by outcome, and the queue by state.
  const deliveredTotal = new Counter({
    name: 'calendar_federation_deliveries_total',
    help: 'Delivery attempts of activities to fediverse inboxes, by outcome',
    labelNames: ['outcome'],
    registers: [],
  });
  const inboxTotal = new Counter({ name: 'calendar_federation_inbox_requests_total', help: 'Requests to the federation inboxes, by outcome', labelNames: ['outcome'], registers: [] });
  const guard = createInboxGuard({ db, config, onOutcome: (outcome) => inboxTotal.inc({ outcome }) });
  const queueGauge = new Gauge({
    name: 'calendar_federation_deliveries',
    help: 'Deliveries of activities by state (pending, delivered, failed, gone)',
    labelNames: ['status'],
    registers: [],
    async collect() {
      const counts = await countDeliveries(db).catch(() => ({}) as Record<string, number>);
      for (const s of ['pending', 'delivered', 'failed', 'gone']) this.set({ status: s }, counts[s] ?? 0);
    },
  });
  const followersGauge = new Gauge({
    name: 'calendar_federation_followers',
    help: 'Fediverse followers of the calendar, by state (accepted, pending)',
    labelNames: ['status'],
    registers: [],
    async collect() {
      const counts = await countFollowers(db).catch(() => ({}) as Record<string, number>);
      for (const s of ['accepted', 'pending']) this.set({ status: s }, counts[s] ?? 0);
    },
  });

  let nudgeDelivery = () => {};

  /** Queue an activity (not an outbox one: Accept, Reject) for one inbox. */
  async function queueDirect(type: string, body: Record<string, unknown>, inbox: string): Promise<void> {
    await insertDeliveries(db, [{ activity_id: String(body.id), activity_type: type, inbox, body: JSON.stringify(body) }], Date.now());
    nudgeDelivery();
  }

  const followReply = (type: 'Accept' | 'Reject', f: Pick<FollowerRow, 'actor_id' | 'follow_id'>) =>
    withContext({
      id: urls.activity(`${type.toLowerCase()}-${randomUUID()}`),
      type,
      actor: urls.actor,
      to: [f.actor_id],
      object: { id: f.follow_id, type: 'Follow', actor: f.actor_id, object: urls.actor },
    });

  const hostOf = (u: URL | string | null | undefined) => {
    try {
      return u ? new URL(String(u)).hostname : '';
    } catch {
      return '';
    }
  };

  federation
    .setInboxListeners('/federation/actors/{identifier}/inbox', '/federation/inbox')
    .on(Follow, async (ctx, follow) => {
      if (follow.objectId?.href !== urls.actor || !follow.actorId || !follow.id) return;
      if (isBlockedHost(follow.actorId.hostname, blocked)) return;
      const actor = await follow.getActor(ctx);
      if (!actor || !isActor(actor) || !actor.inboxId || actor.id?.href !== follow.actorId.href) return;
      const username = typeof actor.preferredUsername === 'string' ? actor.preferredUsername : String(actor.preferredUsername ?? '');
      const existing = await findFollower(db, follow.actorId.href);
      const status = existing?.status === 'accepted' || !config.federationApproveFollows ? 'accepted' : 'pending';
      const row = await upsertFollower(db, {
        actor_id: follow.actorId.href,
        host: follow.actorId.host,
        inbox: actor.inboxId.href,
        shared_inbox: actor.endpoints?.sharedInbox?.href ?? null,
        follow_id: follow.id.href,
        handle: username ? `@${username}@${follow.actorId.host}` : '',
        status,
        created_gmt: existing?.created_gmt ?? services.clock.nowGmt(),
      });
      logger.info({ follower: row.actor_id, status }, 'federation: follow received');
      if (status === 'accepted') await queueDirect('Accept', followReply('Accept', row), row.inbox);
    })
    .on(Undo, async (_ctx, undo) => {
      const actorId = undo.actorId?.href;
      if (!actorId) return;
      const follower = await findFollower(db, actorId);
      if (!follower) return;
      const object = await undo.getObject({ crossOrigin: 'trust', suppressError: true }).catch(() => null);
      const undoesFollow = (object instanceof Follow && object.actorId?.href === actorId) || undo.objectId?.href === follower.follow_id;
      if (undoesFollow) {
        await deleteFollower(db, actorId);
        logger.info({ follower: actorId }, 'federation: unfollowed');
      }
    })
    .on(Delete, async (_ctx, del) => {
      const actorId = del.actorId?.href;
      if (actorId && del.objectId?.href === actorId) {
        await deleteFollower(db, actorId);
        return;
      }
      if (config.federationKeepActivities && actorId) await keep(del, actorId);
    })
    .on(Activity, async (_ctx, activity) => {
      const actorId = activity.actorId?.href;
      if (config.federationKeepActivities && actorId) await keep(activity, actorId);
    })
    .onError((_ctx, error) => {
      logger.warn({ err: error.message }, 'federation: an incoming activity failed (Fedify retries it)');
    })
    .onUnverifiedActivity(async (_ctx, activity, reason) => {
      // An account deleted on its server: its key went with it, so its Delete of itself cannot be
      // verified. Nothing in the request proves it (its key URL is whatever the sender chose), so
      // the follower goes only when the actor URL stored for it answers 410 or 404 to us now.
      if (!(activity instanceof Delete) || reason.type !== 'keyFetchError' || !activity.actorId || activity.objectId?.href !== activity.actorId.href) return undefined;
      const follower = await findFollower(db, activity.actorId.href);
      if (!follower) return undefined;
      const status = await actorStatus(follower.actor_id, await rsaKey(), { allowPrivate: config.federationAllowPrivate, timeoutMs: ACTOR_CHECK_TIMEOUT_MS, userAgent });
      if (status !== 410 && status !== 404) return undefined;
      await deleteFollower(db, follower.actor_id);
      logger.info({ follower: follower.actor_id, status }, 'federation: follower removed, its actor is gone');
      return new Response(null, { status: 202 });
    });

  async function keep(activity: Activity, actorId: string): Promise<void> {
    if (isBlockedHost(hostOf(actorId), blocked)) return;
    const body = await activity.toJsonLd().catch(() => ({}));
    await insertReceived(db, { activity_id: activity.id?.href ?? null, type: activity.constructor.name, actor_id: actorId, body: JSON.stringify(body), received_gmt: services.clock.nowGmt() });
  }

  // ------------------------------------------------------------------ deliveries
  const retrySchedule = config.federationRetrySchedule;
  const rsaKey = async (): Promise<SigningKey> => {
    const ctx = federation.createContext(new URL(origin), undefined);
    // (ActorKeyPair extends the DOM's CryptoKeyPair, which this project's lib does not declare.)
    const pairs = (await ctx.getActorKeyPairs(handle)) as unknown as Array<webcrypto.CryptoKeyPair & { keyId: URL }>;
    const rsa = pairs.find((p) => p.privateKey.algorithm.name === 'RSASSA-PKCS1-v1_5') ?? pairs[0]!;
    return { keyId: rsa.keyId, privateKey: rsa.privateKey as unknown as SigningKey['privateKey'] };
  };

  /**
   * Send what is due; true when something was claimed: the next activity to the same inbox waits
   * for this one (order per inbox), so it may be due now.
   */
  async function deliverDue(): Promise<boolean> {
    const now = Date.now();
    const batch = await claimFederationDeliveries(db, { now, leaseUntilMs: now + LEASE_MS, limit: 10, skipLocked: store.dialect === 'postgres' });
    if (batch.length === 0) return false;
    const key = await rsaKey();
    await Promise.all(
      batch.map(async (d) => {
        const attempts = d.attempts + 1;
        let host = '';
        try {
          host = new URL(d.inbox).hostname;
        } catch {
          /* refused below */
        }
        if (!host || isBlockedHost(host, blocked)) {
          deliveredTotal.inc({ outcome: 'refused' });
          await recordDeliveryAttempt(db, d.id, { status: 'failed', attempts, lastStatus: null, lastError: 'blocked domain or invalid inbox', now: Date.now() });
          return;
        }
        const r = await postActivity(d.inbox, d.body, key, { allowPrivate: config.federationAllowPrivate, timeoutMs: ATTEMPT_TIMEOUT_MS, userAgent });
        const done = Date.now();
        if (r.ok) {
          deliveredTotal.inc({ outcome: 'delivered' });
          await recordDeliveryAttempt(db, d.id, { status: 'delivered', attempts, lastStatus: r.status ?? null, lastError: null, now: done });
        } else if (r.status === 410) {
          deliveredTotal.inc({ outcome: 'gone' });
          await recordDeliveryAttempt(db, d.id, { status: 'gone', attempts, lastStatus: 410, lastError: 'Gone: the followers at this inbox were removed', now: done });
          const removed = await deleteFollowersAt(db, d.inbox);
          await dropPendingTo(db, d.inbox, done);
          logger.info({ inbox: d.inbox, removed }, 'federation: inbox gone, followers removed');
        } else if (r.refused || attempts > retrySchedule.length) {
          deliveredTotal.inc({ outcome: 'failed' });
          await recordDeliveryAttempt(db, d.id, { status: 'failed', attempts, lastStatus: r.status ?? null, lastError: r.error ?? `HTTP ${r.status}`, now: done });
        } else {
          deliveredTotal.inc({ outcome: 'retried' });
          await recordDeliveryAttempt(db, d.id, {
            status: 'pending',
            attempts,
            nextAttemptMs: done + retrySchedule[attempts - 1]!,
            lastStatus: r.status ?? null,
            lastError: r.error ?? `HTTP ${r.status}`,
            now: done,
          });
        }
      }),
    );
    return true;
  }

  const outbox = createOutbox({ services, urls, reader, blockedDomains: blocked });

  // ------------------------------------------------------------------ admin
  const admin: FederationAdmin = {
    async status() {
      return { actor: urls.actor, handle: `@${handle}@${host}`, approve_follows: config.federationApproveFollows, followers: await countFollowers(db), deliveries: await countDeliveries(db) };
    },
    async followers(options) {
      const { rows, total } = await listFollowers(db, options);
      return { items: rows.map(followerView), total };
    },
    async accept(id) {
      const f = await findFollowerById(db, id);
      if (!f) return undefined;
      if (f.status !== 'pending') return 'not-pending';
      await setFollowerStatus(db, id, 'accepted');
      await queueDirect('Accept', followReply('Accept', f), f.inbox);
      return followerView({ ...f, status: 'accepted' });
    },
    async reject(id) {
      const f = await findFollowerById(db, id);
      if (!f || f.status !== 'pending') return false;
      await deleteFollowerById(db, id);
      await queueDirect('Reject', followReply('Reject', f), f.inbox);
      return true;
    },
    remove: (id) => deleteFollowerById(db, id),
    async deliveries(options) {
      const { rows, total } = await listDeliveries(db, options);
      const items: DeliveryView[] = rows.map((r) => ({
        id: Number(r.id),
        activity_id: r.activity_id,
        activity_type: r.activity_type,
        inbox: r.inbox,
        status: r.status as DeliveryView['status'],
        attempts: Number(r.attempts),
        next_attempt: r.status === 'pending' ? gmtOf(r.next_attempt_ms) : null,
        last_status: r.last_status === null ? null : Number(r.last_status),
        last_error: r.last_error,
        created: gmtOf(r.created_ms)!,
        updated: gmtOf(r.updated_ms)!,
      }));
      return { items, total };
    },
    async retry(id) {
      const ok = await retryDelivery(db, id, Date.now());
      if (ok) nudgeDelivery();
      return ok;
    },
    async received(options) {
      const { rows, total } = await listReceived(db, options);
      return {
        items: rows.map((r) => ({ id: Number(r.id), activity_id: r.activity_id, type: r.type, actor: r.actor_id, received_utc: r.received_gmt, activity: JSON.parse(r.body) as unknown })),
        total,
      };
    },
  };

  // ------------------------------------------------------------------ HTTP
  async function register(app: FastifyInstance, runner: JobRunner, registry?: Registry): Promise<void> {
    if (registry) {
      registry.registerMetric(deliveredTotal);
      registry.registerMetric(inboxTotal);
      registry.registerMetric(queueGauge);
      registry.registerMetric(followersGauge);
    }

    /** Hand a request to Fedify (its body as received, for the signature's digest). */
    const toFedify = async (req: FastifyRequest, reply: FastifyReply, body?: Buffer) => {
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
    };

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
        scope.get(path, async (req, reply) => toFedify(req, reply));
      }
      // The actor document changes only with the settings, and Fedify takes a good part of a
      // second of CPU to build it (key export, JSON-LD compaction): its answers are kept by Accept.
      const actorAnswers = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
      scope.get('/federation/actors/:handle', async (req, reply) => {
        const key = `${(req.params as { handle: string }).handle}\n${req.headers.accept ?? ''}`;
        const kept = actorAnswers.get(key);
        if (kept) return reply.code(kept.status).headers(kept.headers).send(kept.body);
        await toFedify(req, reply);
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
      for (const path of ['/federation/actors/:handle/inbox', '/federation/inbox']) {
        scope.post(path, { bodyLimit: config.federationMaxBodyBytes }, async (req, reply) => {
          const refusal = (await guard.check(req, req.body as Buffer | undefined)) ?? inboxBodyError(req.body as Buffer | undefined);
          if (refusal) return sendError(reply, refusal);
          try {
            const res = await loaders.withFetchBudget(() => toFedify(req, reply, (req.body as Buffer | undefined) ?? Buffer.alloc(0)));
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
      scope.get('/federation/actors/:handle/outbox', async (req, reply) => {
        if ((req.params as { handle: string }).handle !== handle) return sendError(reply, apiError('federation_not_found'));
        const pageText = (req.query as Record<string, string | undefined>).page;
        const { total } = await listActivities(db, { limit: 1, offset: 0, types: ['Create', 'Update', 'Delete'] });
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
        const { rows } = await listActivities(db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, types: ['Create', 'Update', 'Delete'] });
        const items = rows.map((r) => {
          const { '@context': _c, ...rest } = JSON.parse(r.body) as Record<string, unknown>;
          return rest;
        });
        const doc: Record<string, unknown> = { id: `${urls.outbox}?page=${page}`, type: 'OrderedCollectionPage', partOf: urls.outbox, totalItems: total, orderedItems: items };
        if (page * PAGE_SIZE < total) doc.next = `${urls.outbox}?page=${page + 1}`;
        if (page > 1) doc.prev = `${urls.outbox}?page=${page - 1}`;
        return sendActivityJson(reply, 200, withContext(doc));
      });

      // The followers: their number only (who follows is not published).
      scope.get('/federation/actors/:handle/followers', async (req, reply) => {
        if ((req.params as { handle: string }).handle !== handle) return sendError(reply, apiError('federation_not_found'));
        const counts = await countFollowers(db);
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
        const row = await findActivity(db, urls.activity((req.params as { id: string }).id));
        if (!row) return sendError(reply, apiError('federation_not_found'));
        return sendActivityJson(reply, 200, JSON.parse(row.body));
      });
    });

    /** The object of an announced event as anonymous readers may see it now (undefined: none to answer with 200). */
    async function liveObject(id: number): Promise<{ object?: Record<string, unknown>; state?: Awaited<ReturnType<typeof objectState>> }> {
      const state = await objectState(db, id);
      if (!state) return {};
      const json = state.state === 'live' ? await reader.event(id) : undefined;
      return { state, ...(json ? { object: announcedObject(reader, json, state) } : {}) };
    }

    /**
     * An event's object: announced and visible (200), announced and deleted or no longer public
     * (410 with its Tombstone; its Delete may be about to leave), or never announced (404: never
     * sent, such as an event published before federation started or an occurrence beyond the
     * horizon).
     */
    async function answerObject(reply: FastifyReply, id: number): Promise<FastifyReply> {
      const { object, state } = await liveObject(id);
      if (object) return sendActivityJson(reply, 200, withContext(object));
      const deleted = state?.state === 'live' ? stampOf(state, undefined, Date.now()) : lastStampOf(state);
      if (deleted !== undefined) return sendActivityJson(reply, 410, withContext(tombstone(urls, id, msIso(deleted))));
      return sendError(reply, apiError('federation_not_found'));
    }

    // Content negotiation on the event pages: ActivityPub clients asking for an event's page get its
    // object; browsers get the page, with a Link header naming the object (rel="alternate").
    const eventPage = /^\/event\/([^/?#]+)\/?(?:[?#].*)?$/;
    const idOfPage = async (url: string): Promise<number | undefined> => {
      const m = eventPage.exec(url);
      if (!m) return undefined;
      let slug = m[1]!;
      try {
        slug = decodeURIComponent(slug);
      } catch {
        return undefined;
      }
      return services.events.findIdBySlug(slug).catch(() => undefined);
    };
    app.addHook('onRequest', async (req, reply) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !wantsActivityJson(req.headers.accept)) return;
      const id = await idOfPage(req.url);
      if (id === undefined) return;
      const { object } = await liveObject(id);
      if (!object) return;
      return sendActivityJson(reply, 200, withContext(object));
    });
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.method !== 'GET' || reply.statusCode !== 200 || !String(reply.getHeader('content-type') ?? '').startsWith('text/html') || !eventPage.test(req.url)) return payload;
      const id = await idOfPage(req.url);
      if (id !== undefined && (await liveObject(id)).object) {
        const link = `<${urls.object(id)}>; rel="alternate"; type="${ACTIVITY_JSON}"`;
        const existing = reply.getHeader('link');
        reply.header('link', existing ? `${String(existing)}, ${link}` : link);
        reply.header('vary', 'Accept');
      }
      return payload;
    });

    // Jobs: the outbox (one instance at a time: it moves a shared cursor) and the deliveries
    // (shared by instances through leases), woken by commits and polled for other instances' work.
    const pollMs = Math.max(100, Math.min(5_000, Math.floor(Math.min(...retrySchedule, 10_000) / 2)));
    const deliveryJob = runner.register({
      name: 'federation-delivery',
      everyMs: pollMs,
      backoff: { initialMs: 1_000, maxMs: 60_000 },
      async run(ctx) {
        const more = await deliverDue();
        if (!more && Math.random() < 0.01) await kv.purge();
        return more && !ctx.isStopped() ? { more: true } : undefined;
      },
    });
    nudgeDelivery = () => deliveryJob.nudge();
    // Incoming activities Fedify verified and queued: handled here, on any instance.
    const inboxJob = runner.register({
      name: 'federation-inbox',
      everyMs: 1_000,
      backoff: { initialMs: 1_000, maxMs: 60_000 },
      async run(ctx) {
        const now = Date.now();
        const batch = await claimMessages(db, { now, leaseUntilMs: now + LEASE_MS, limit: 10, skipLocked: store.dialect === 'postgres' });
        for (const m of batch) {
          try {
            await federation.processQueuedTask(undefined, JSON.parse(m.message) as Parameters<typeof federation.processQueuedTask>[1]);
            await finishMessage(db, m.id);
          } catch (err) {
            // Fedify retries a failing listener itself (it queues the message again); this is a
            // failure around it (the database): try again later, at most ten times.
            logger.warn({ err: (err as Error).message, attempts: m.attempts + 1 }, 'federation: an incoming activity could not be handled');
            if (m.attempts + 1 >= 10) await finishMessage(db, m.id);
            else await postponeMessage(db, m.id, m.attempts + 1, Date.now() + 1_000 * 2 ** m.attempts);
          }
        }
        // Messages with the same ordering key wait for the one before: look again at once.
        return batch.length > 0 && !ctx.isStopped() ? { more: true } : undefined;
      },
    });
    nudgeInbox = () => inboxJob.nudge();
    outbox.onQueued(nudgeDelivery);
    const outboxJob = runner.register({
      name: 'federation-outbox',
      everyMs: 1_000,
      singleton: true,
      backoff: { initialMs: 1_000, maxMs: 60_000 },
      async run(ctx) {
        const more = await outbox.step();
        return more && !ctx.isStopped() ? { more: true } : undefined;
      },
      onStop: () => unsubscribe(),
    });
    const unsubscribe = store.changes.subscribe(() => outboxJob.nudge(), { pollMs: 1_000 });
  }

  return { urls, admin, register };
}
