/**
 * The federation face (docs/federation.md): the calendar as an ActivityPub actor that
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
 * Its rooms: keys.ts (the actor's keys), inbox.ts (what an activity received does), deliveries.ts
 * (sending, with the domain's delivery rules), routes.ts (the HTTP routes), event-objects.ts and
 * negotiation.ts (an event's object, on its URL and on its page), jobs.ts (the outbox, inbox and
 * delivery jobs), besides the objects, outbox, queue, key-value store and guards. Who follows and
 * what a delivery's outcome makes of it are the domain's rules (domain/federation.ts), as is the
 * administration service the REST face uses; what it keeps in the database it reaches through the
 * domain's port (`services.federationStore`, domain/federation-store.ts), never the store itself.
 *
 * @example
 *   const face = await createFederationFace({ config, services, logger, nudgeJob: (name) => runner.nudge(name) });
 *   registerRestApi(app, { …, federation: face.admin });
 *   await face.register(app, { registry });
 *   for (const spec of face.jobs()) runner.register(spec);
 */
import type { webcrypto } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createFederation, type Federation, type MessageQueue } from '@fedify/fedify';
import { Application, Endpoints, Image } from '@fedify/vocab';
import type { Config } from '../config.js';
import type { Services } from '../domain/services.js';
import { createFederationAdmin, type FederationAdmin } from '../domain/federation.js';
import type { FaceDeps } from '../faces.js';
import type { JobSpec } from '../job-spec.js';
import { createKvStore } from './kv.js';
import { createOutbox, createPublicReader } from './outbox.js';
import { federationUrls, type FederationUrls } from './objects.js';
import { createInboxGuard } from './inbox-guard.js';
import { createMessageQueue } from './queue.js';
import { createLoaders } from './loaders.js';
import { actorKeyPairs } from './keys.js';
import { createFederationMetrics } from './metrics.js';
import { createDeliveries } from './deliveries.js';
import { registerInboxListeners } from './inbox.js';
import { registerFederationRoutes } from './routes.js';
import { createEventObjects } from './event-objects.js';
import { registerNegotiation } from './negotiation.js';
import { FEDERATION_JOBS, federationJobs } from './jobs.js';

export interface FederationDeps {
  config: Config;
  services: Services;
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Wake one of the face's jobs by name (the runner's `nudge`; ignored until the job is registered). */
  nudgeJob(name: string): void;
}

export interface FederationFace {
  urls: FederationUrls;
  admin: FederationAdmin;
  /** The face: its routes on the instance, its metrics on the registry. */
  register(app: FastifyInstance, deps: Pick<FaceDeps, 'registry'>): Promise<void>;
  /** The face's jobs, for the composition root to hand to the runner (called once, after `register`). */
  jobs(): JobSpec[];
}

export async function createFederationFace({ config, services, logger, nudgeJob }: FederationDeps): Promise<FederationFace> {
  const store = services.federationStore;
  const handle = config.federationHandle;
  // The federation URLs live at the site's origin (WebFinger must; a SITE_URL with a path keeps its
  // pages there, and the actor at /federation/… of its origin).
  const origin = new URL(config.siteUrl).origin;
  const urls = federationUrls(origin, handle);
  const host = new URL(config.siteUrl).host;
  const kv = createKvStore(store);
  const reader = createPublicReader(services, urls);
  const userAgent = `events-calendar/0.1 (+${config.siteUrl}/)`;
  const keyPairs: webcrypto.CryptoKeyPair[] = await actorKeyPairs(store, services.clock.nowGmt());

  // The outbox's place in the change log, made before this server accepts a request (the first
  // start with federation on: at the log's head; later starts keep it), so that nothing published
  // from now on is skipped, even before the outbox job's first step or across a restart.
  await store.ensureOutboxCursor();

  const metrics = createFederationMetrics(store);
  const guard = createInboxGuard({ store, config, onOutcome: (outcome) => metrics.inbox.inc({ outcome }) });
  const queue = createMessageQueue(store, () => nudgeJob(FEDERATION_JOBS.inbox));
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
    const live = await store.listActivities({ limit: 1, offset: 0, types: ['Create'] });
    return {
      software: { name: 'events-calendar', version: '0.1.0', homepage: new URL(`${config.siteUrl}/`) },
      protocols: ['activitypub'],
      openRegistrations: false,
      usage: { users: { total: 1, activeHalfyear: 1, activeMonth: 1 }, localPosts: live.total, localComments: 0 },
      metadata: { nodeName: config.siteName },
    };
  });

  const deliveries = createDeliveries({ store, config, federation, origin, urls, metrics, logger, userAgent });
  registerInboxListeners(federation, { store, config, urls, clock: services.clock, logger, deliveries, userAgent });
  const outbox = createOutbox({ services, urls, reader, blockedDomains: config.federationBlockedDomains });
  const admin = createFederationAdmin({
    store,
    actor: urls.actor,
    handle: `@${handle}@${host}`,
    approveFollows: config.federationApproveFollows,
    reply: (type, follower) => deliveries.reply(type, follower),
    nudgeDelivery: () => deliveries.nudge(),
  });
  const objects = createEventObjects(store, reader, urls);

  async function register(app: FastifyInstance, { registry }: Pick<FaceDeps, 'registry'>): Promise<void> {
    if (registry) metrics.register(registry);
    await registerFederationRoutes(app, { store, config, federation, origin, urls, guard, loaders, metrics, objects, logger });
    registerNegotiation(app, { services, urls, objects });
  }

  const jobs = () => federationJobs({ store, federation, deliveries, outbox, kv, logger, retrySchedule: config.federationRetrySchedule, nudge: nudgeJob });

  return { urls, admin, register, jobs };
}
