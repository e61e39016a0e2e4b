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
import { DEFAULT_CALENDAR_ID, asDefaultCalendar, calendarIdNow, runtimeNow } from '../domain/calendars.js';
import { apiError, type ApiError } from '../domain/errors.js';
import type { FaceDeps } from '../faces.js';
import type { JobSpec } from '../job-spec.js';
import { createKvStore } from './kv.js';
import { createOutbox, createPublicReader, type ObjectHome } from './outbox.js';
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
import { registerKept } from '../metrics.js';

export interface FederationDeps {
  config: Config;
  services: Services;
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Wake one of the face's jobs by name (the runner's `nudge`; ignored until the job is registered). */
  nudgeJob(name: string): void;
  /** What the face's kept structures are reported with in `/metrics` (the store's handle: src/metrics.ts `registerKept`); absent, the process. */
  keptOwner?: object;
}

/** How many calendars' actor keys are kept in memory at once (the most recently used; the others are read again when needed). */
export const ACTOR_KEYS_KEPT = 64;

export interface FederationFace {
  /** The URLs of the actor of the calendar at hand (each read answers with that calendar's). */
  urls: FederationUrls;
  admin: FederationAdmin;
  /** The face: its routes on the instance, its metrics on the registry. */
  register(app: FastifyInstance, deps: Pick<FaceDeps, 'registry'>): Promise<void>;
  /** The face's jobs, for the composition root to hand to the runner (called once, after `register`). */
  jobs(): JobSpec[];
}

export async function createFederationFace({ config, services, logger, nudgeJob, keptOwner }: FederationDeps): Promise<FederationFace> {
  const store = services.federationStore;
  // The installation's handle (the default calendar's actor); each calendar's own configuration
  // (its name, its site's URL, its settings) is read through `services.config`, in its calendar.
  const handle = config.federationHandle;
  const here = services.config;
  // The federation URLs live at the site's origin (WebFinger must; a SITE_URL with a path keeps its
  // pages there, and the actor at /federation/… of its origin).
  const origin = new URL(config.siteUrl).origin;
  const host = new URL(config.siteUrl).host;
  const defaultUrls = federationUrls(origin, handle);

  /** The identifier of the calendar at hand's actor: FEDERATION_HANDLE for the default calendar, else its slug. */
  const identifierHere = (): string => {
    const id = calendarIdNow();
    if (id === DEFAULT_CALENDAR_ID) return handle;
    const runtime = runtimeNow();
    if (!runtime || runtime.calendar.id !== id) throw new Error(`federation: calendar ${id} is entered without its configuration`);
    return runtime.calendar.slug;
  };
  /**
   * The identifiers the calendar at hand's actor had before (its former slugs: a rename keeps them):
   * each still answers, moved to the current one. The default calendar's handle never changes.
   */
  const formerIdentifiersHere = (): Promise<string[]> => (calendarIdNow() === DEFAULT_CALENDAR_ID ? Promise.resolve([]) : store.formerIdentifiers());
  const urlsHere = (): FederationUrls => (calendarIdNow() === DEFAULT_CALENDAR_ID ? defaultUrls : federationUrls(origin, identifierHere(), true));
  // The URLs every part of the face is given: each read answers with the calendar at hand's actor.
  const urls: FederationUrls = {
    origin,
    get actor() {
      return urlsHere().actor;
    },
    get inbox() {
      return urlsHere().inbox;
    },
    get sharedInbox() {
      return urlsHere().sharedInbox;
    },
    get outbox() {
      return urlsHere().outbox;
    },
    get followers() {
      return urlsHere().followers;
    },
    object: (id) => urlsHere().object(id),
    activity: (id) => urlsHere().activity(id),
  };

  /** The actor an announced object is of (outbox.ts `ObjectHome`). */
  const objectHome: ObjectHome = async (home) => {
    const current = calendarIdNow() === DEFAULT_CALENDAR_ID ? null : identifierHere();
    if (!home || current === null || home === current) return { urls, home: current };
    return (await formerIdentifiersHere()).includes(home) ? { urls: federationUrls(origin, home, true), home } : { urls, home: current };
  };

  const kv = createKvStore(store);
  const reader = createPublicReader(services, urls);
  const userAgent = `events-calendar/0.1 (+${config.siteUrl}/)`;

  /**
   * Each calendar's actor keys, made and stored the first time its actor is needed (and its
   * outbox's cursor with them: what it publishes from then on is announced); kept for the
   * ACTOR_KEYS_KEPT calendars used last, read again from its rows otherwise.
   */
  const keptKeys = new Map<number, Promise<webcrypto.CryptoKeyPair[]>>();
  const keysHere = (): Promise<webcrypto.CryptoKeyPair[]> => {
    const id = calendarIdNow();
    const known = keptKeys.get(id);
    if (known) {
      keptKeys.delete(id);
      keptKeys.set(id, known);
      return known;
    }
    const made = (async () => {
      await store.ensureOutboxCursor();
      return actorKeyPairs(store, services.clock.nowGmt());
    })();
    made.catch(() => keptKeys.delete(id));
    if (keptKeys.size >= ACTOR_KEYS_KEPT) keptKeys.delete(keptKeys.keys().next().value!);
    keptKeys.set(id, made);
    return made;
  };
  // The default calendar's keys, and its outbox's place in the change log, made before this server
  // accepts a request (the first start with federation on: at the log's head; later starts keep
  // it), so that nothing published from now on is skipped, even before the outbox job's first step
  // or across a restart.
  await keysHere();
  registerKept(keptOwner, 'federation_actor_keys', { entries: () => keptKeys.size, maxEntries: ACTOR_KEYS_KEPT });

  /**
   * Run `fn` in the calendar whose actor `identifier` names (the default calendar's handle, a
   * calendar's slug, or a slug it had before); a name of no calendar runs it in the default one
   * (whose actor it is not: it answers 404). A suspended calendar's actor answers as the rest of it does.
   */
  async function withinActor<T>(identifier: string | undefined, fn: () => Promise<T>): Promise<T | ApiError> {
    if (identifier === undefined || identifier === handle || calendarIdNow() !== DEFAULT_CALENDAR_ID) return fn();
    const runtime = await services.calendars.resolve({ slug: identifier, formerToo: true });
    if (!runtime || runtime.calendar.id === DEFAULT_CALENDAR_ID) return fn();
    if (runtime.calendar.status === 'suspended') return apiError('calendar_suspended', { headers: { 'retry-after': '3600' } });
    return services.calendars.enter(runtime, fn);
  }

  const metrics = createFederationMetrics(store);
  // The inbox's limits are the service's, whichever actor a request is for: counted in the default
  // calendar's rows, so that a sender addressing many calendars has one budget, not one each.
  const serviceGuard = createInboxGuard({ store, config, onOutcome: (outcome) => metrics.inbox.inc({ outcome }) });
  const guard: typeof serviceGuard = {
    ...serviceGuard,
    check: (req, body) => asDefaultCalendar(() => serviceGuard.check(req, body)),
    admit: (activity) => asDefaultCalendar(() => serviceGuard.admit(activity)),
  };
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
      // The request runs in the calendar its URL names: an identifier of another is none of this
      // one's. A former identifier of this calendar is its old actor, moved to the current one (as
      // Mastodon's account migration expects: the old account's `movedTo` names the new, whose
      // `alsoKnownAs` names the old), with the calendar's keys, so that its Move can be verified.
      const current = identifierHere();
      const formers = await formerIdentifiersHere();
      if (identifier !== current && !formers.includes(identifier)) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      const own = urlsHere();
      const name = here.siteName;
      const plain = name.replace(/[<>&"]/g, '');
      const common = {
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name,
        url: new URL(`${here.siteUrl}/events/`),
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: keys[0]?.cryptographicKey ?? null,
        assertionMethods: keys.map((k) => k.multikey),
        manuallyApprovesFollowers: here.federationApproveFollows,
        ...(config.federationIconUrl ? { icon: new Image({ url: new URL(config.federationIconUrl) }) } : {}),
      };
      if (identifier !== current) {
        return new Application({
          ...common,
          summary: `<p>Events of ${plain} have moved to @${current}@${host}.</p>`,
          successor: ctx.getActorUri(current),
          discoverable: false,
          indexable: false,
        });
      }
      return new Application({
        ...common,
        summary: `<p>Events of ${plain}: follow to see new and changed events in your timeline.</p>`,
        outbox: new URL(own.outbox),
        followers: new URL(own.followers),
        aliases: formers.map((former) => ctx.getActorUri(former)),
        discoverable: true,
        indexable: true,
      });
    })
    // The calendar's keys, for its actor and for its former identifiers (its old actor signs its Move).
    .setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === identifierHere() || (await formerIdentifiersHere()).includes(identifier) ? keysHere() : []));

  // NodeInfo speaks for the service: its users are its actors, one per active calendar (a suspended
  // one answers 503), every one of them counted active (a calendar has no sign-ins to count), and
  // its posts the events they announced (their Creates).
  federation.setNodeInfoDispatcher('/nodeinfo/2.1', async () => {
    const usage = await store.serviceUsage();
    const users = usage.calendars;
    return {
      software: { name: 'events-calendar', version: '0.1.0', homepage: new URL(`${config.siteUrl}/`) },
      protocols: ['activitypub'],
      openRegistrations: false,
      usage: { users: { total: users, activeHalfyear: users, activeMonth: users }, localPosts: usage.creates, localComments: 0 },
      metadata: { nodeName: config.siteName },
    };
  });

  const deliveries = createDeliveries({ store, config, federation, origin, urls, metrics, logger, userAgent, identifierHere, within: (id, fn) => services.calendars.within(id, fn) });
  registerInboxListeners(federation, { store, config: here, urls, clock: services.clock, logger, deliveries, userAgent, within: (id, fn) => services.calendars.within(id, fn) });
  const outbox = createOutbox({ services, urls, reader, objectHome, blockedDomains: config.federationBlockedDomains });
  const admin = createFederationAdmin({
    store,
    // The calendar at hand's actor: the REST face's routes run in the calendar their URL names.
    get actor() {
      return urls.actor;
    },
    get handle() {
      return `@${identifierHere()}@${host}`;
    },
    get approveFollows() {
      return here.federationApproveFollows;
    },
    reply: (type, follower) => deliveries.reply(type, follower),
    nudgeDelivery: () => deliveries.nudge(),
  });
  const objects = createEventObjects(store, reader, objectHome);

  async function register(app: FastifyInstance, { registry }: Pick<FaceDeps, 'registry'>): Promise<void> {
    if (registry) metrics.register(registry);
    await registerFederationRoutes(app, { store, config, federation, origin, urls, guard, loaders, metrics, objects, logger, identifierHere, withinActor, keptOwner });
    registerNegotiation(app, { services, urls, objects });
  }

  const jobs = () =>
    federationJobs({
      store,
      federation,
      deliveries,
      outbox,
      kv,
      logger,
      retrySchedule: config.federationRetrySchedule,
      nudge: nudgeJob,
      within: (id, fn) => services.calendars.within(id, fn),
    });

  return { urls, admin, register, jobs };
}
