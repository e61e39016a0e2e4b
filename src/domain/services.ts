/**
 * The domain services, built once per application over one store. The HTTP layer and the CLI
 * reach the domain only through this bundle.
 *
 * @example
 *   const services = createServices(config, store);
 *   const viewer = await services.users.authenticate(request.headers.authorization);
 */
import { createPublicReader } from './public-reader.js';
import type { Config } from '../config.js';
import { NAMESPACE } from '../config.js';
import type { Store } from '../store/db.js';
import { nowWall } from './dates/wall.js';
import { createEventService } from './events/index.js';
import { createAnswerBudget } from './answer-budget.js';
import { createImageService } from './images.js';
import { createLinkedPostService, type Clock } from './linked-posts/index.js';
import { createLinks, type Links } from './links.js';
import { createTermService } from './terms/index.js';
import { createUserService } from './users.js';
import { createVersionService } from './versions.js';
import { createSubmissionService } from './submissions/index.js';
import { createEditLockService } from './edit-locks.js';
import { createMediaService } from './media/index.js';
import type { CoreServices, DomainContext } from './context.js';
import { registerKept, type KeptStructure } from '../metrics.js';
import type { EventRecord } from '../store/events.js';
import { changeCalendarSettings } from './calendar-settings.js';
import { closeFollowers, followChanges, readChanges, type ChangeEvent, type ChangeFollower } from './change-stream.js';
import { eventIndex } from './event-index.js';
import { createReviewedVenues, importQueueOf, keptLocationOf, type ImportQueue } from './imports.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';
import { peopleOf, type PeopleService } from './people.js';
import { managesAccounts, type Viewer } from './permissions.js';
import { previewedEvent, previewLink } from './previews.js';
import { passwordCookieKey } from './post-password-cookie.js';
import { notifyReviews, sendBack } from './review-mail.js';
import { sessionServiceOf, type SessionService } from './sessions.js';
import { settingsInForce, type SettingView } from './settings-view.js';
import { postTombstones, syncDelta, termTombstones, type DeltaView, type SyncDelta, type Tombstone } from './sync.js';
import { userAdminOf, type UserAdmin } from './user-admin.js';
import { createFederationStore, type FederationStore } from './federation-store.js';
import { createCalendarService, runtimeNow } from './calendars.js';
import { cappedHistoryDays, createQuotas } from './quotas.js';
import { createNetworkService, type NetworkService } from './network.js';

/**
 * What every face is given: the domain's services, and the doors to the domain's parts that keep
 * their own state (sessions, people, the change stream, …), each made once on first use. The store
 * is not among them: a face reads and writes through these doors only (faces import store/ for
 * types alone, a dependency rule).
 */
export interface Services extends CoreServices {
  /** Sign-in sessions, nonces and second factors (one per services: the admin face and the REST routes share it). */
  sessions: SessionService;
  /** Invitations, password resets and the mail outbox. */
  people: PeopleService;
  /** Users as administrators manage them. */
  userAdmin: UserAdmin;
  /** The failed-login throttle, with the LOGIN_MAX_FAILURES in force when first used. */
  loginThrottle: LoginThrottle;
  /** The settings in force (and where each comes from), and administrators' changes to the calendar's. */
  settings: {
    /** As `viewer` may see them: the network's administrator account masked for anyone who does not manage accounts. */
    inForce(viewer: Viewer): Promise<SettingView[]>;
    change(values: Record<string, unknown>): Promise<void>;
  };
  /** Review requests: the editors' e-mails, and an event sent back to its author. */
  reviews: {
    /** Queue the notifications of one batch of the log: how many mails, and whether the log goes on past it. */
    notify(): Promise<{ queued: number; more: boolean }>;
    sendBack(viewer: Viewer, id: number, note: string): Promise<{ id: number; status: string; note: string }>;
  };
  /** The key of the pages' password cookie (post-password-cookie.ts: the server's secret, narrowed to that use). */
  passwordCookieKey(): Promise<Buffer>;
  /** Signed preview links of events not yet published. */
  previews: {
    link(record: EventRecord, now?: number): Promise<{ url: string; expires: string; token: string }>;
    event(token: unknown, now?: number): Promise<EventRecord | undefined>;
  };
  /** The change log as readers follow it: the admin app's stream, the head, and other instances' writes. */
  changes: {
    read(viewer: Viewer, after: number, limit: number): Promise<{ events: ChangeEvent[]; through: number; head: number }>;
    /** `allowed`: whether the viewer, as it is now, may still follow (looked at again as the log goes: `followChanges`). */
    follow(viewer: Viewer, from: number, handlers: Parameters<typeof followChanges>[3], allowed?: (viewer: Viewer) => boolean): ChangeFollower;
    /** End every open follower (the server closes). */
    closeFollowers(): void;
    head(): Promise<number>;
    /** See every write acknowledged before now, by this process or another (before an answer naming settings). */
    catchUp(): Promise<void>;
  };
  /** The sync delta (REST `sync_token` and CalDAV sync-collection) and the tombstones of what left. */
  sync: {
    /** The days of history the calendar of the work at hand keeps: its SYNC_HISTORY_DAYS, at most its quota. */
    historyDays(): Promise<number>;
    delta(view: DeltaView, options: { from: number; to: number; rows: number; historyDays: number; now: number; maxRecords?: number }): Promise<SyncDelta>;
    postTombstones(ids: number[]): Promise<Map<number, Tombstone>>;
    termTombstones(taxonomy: string, ids: number[], details: Map<number, Array<Record<string, any> | null>>): Promise<Map<number, Tombstone>>;
  };
  /** Imports: the queue, the venues an import left for review, an event's imported location. */
  imports: {
    queue: ImportQueue;
    createReviewedVenues(viewer: Viewer, id: number, location: string | undefined): ReturnType<typeof createReviewedVenues>;
    keptLocationOf(eventId: number, seriesId?: number): Promise<string | undefined>;
  };
  /** The admin app's events index (one page, newest changes first). */
  eventIndex(page: number, perPage: number): ReturnType<typeof eventIndex>;
  /** Report a structure a face keeps across requests, with its bound, to /metrics (its size by kind). */
  keep(kind: string, structure: KeptStructure): void;
  /** What federation keeps in the database (federation-store.ts): the federation face's door to the store. */
  federationStore: FederationStore;
  /** Networks of calendars: proposals to another calendar, follows, the network search (network.ts). */
  network: NetworkService;
}

/** The bundle the composition root builds: the services faces are given, and the store they stand on. */
export interface DomainServices extends Services {
  store: Store;
}

/**
 * The services over a store, with the store (the composition root, the jobs, the importers and the
 * CLI use it; faces are given `faceServices(...)`, without it).
 */
/**
 * Links kept for calendars other than the default one (as many as their runtimes, domain/calendars.ts):
 * each set has its kept representations (read-model.ts), about 64 KiB of admission table even
 * when idle, which go with it.
 */
const LINKS_KEPT = 256;

export function createServices(config: Config, store: Store, pristine: Config = { ...config }): DomainServices {
  // One `Links` per site URL (each calendar has its own), REST root and namespace; the calendars'
  // are bounded (the most recently used), the default calendar's are always there.
  const linksByBase = new Map<string, Links>();
  const defaultSite = config.siteUrl;
  const linksFor = (restRoot: string, namespace: string): Links => {
    const site = config.siteUrl;
    const key = `${site}|${restRoot}/${namespace}`;
    let out = linksByBase.get(key);
    if (!out) {
      if (linksByBase.size >= LINKS_KEPT) for (const k of linksByBase.keys()) if (!k.startsWith(`${defaultSite}|`)) linksByBase.delete(k);
      linksByBase.set(key, (out = createLinks(site, restRoot, namespace)));
    }
    return out;
  };
  const clock: Clock = {
    nowGmt: () => nowWall('UTC'),
    nowLocal: () => nowWall(config.timezone),
  };
  const images = createImageService(store.db);
  // Each calendar's quotas, read from its runtime (the default calendar's kept apart): quotas.ts.
  const quotas = createQuotas(config, store.db, () => runtimeNow()?.quotas);
  const venues = createLinkedPostService(store, 'venue', images, config.timezone, clock, { radius: config.geolocRadius, unit: config.geolocUnit });
  const organizers = createLinkedPostService(store, 'organizer', images, config.timezone, clock);
  const categories = createTermService(store.db, 'tribe_events_cat');
  const tags = createTermService(store.db, 'post_tag');
  const events = createEventService({
    store,
    // Read at each use: administrators change the time zone while the server runs (calendar-settings.ts).
    get siteTimezone() {
      return config.timezone;
    },
    get currency() {
      return { symbol: config.currencySymbol, position: config.currencyPosition };
    },
    maxPerPage: config.maxPerPage,
    geoloc: { radius: config.geolocRadius, unit: config.geolocUnit },
    clock,
    images,
    venues,
    organizers,
    categories,
    tags,
    recurrenceHorizonMonths: config.recurrenceHorizonMonths,
    quotas,
  });
  const answers = createAnswerBudget(config.responseMemoryBytes);
  const users = createUserService(store);
  const submissions = createSubmissionService({
    config,
    store,
    quotas,
    events,
    venues,
    organizers,
    users,
    get links() {
      return linksFor(config.restRoot, NAMESPACE);
    },
  });
  const media = createMediaService(config, store.db, clock, undefined, quotas);
  const ctx: DomainContext = {
    config,
    store,
    // The calendar of the work at hand's (its site URL): a getter, read at each use.
    get links() {
      return linksFor(config.restRoot, NAMESPACE);
    },
    linksFor,
    clock,
    users,
    images,
    venues,
    organizers,
    categories,
    tags,
    events,
    reader: createPublicReader({ events, venues, organizers }),
    answers,
    versions: createVersionService(store),
    submissions,
    editLocks: createEditLockService(store, clock),
    media,
    quotas,
    calendars: createCalendarService(pristine, store, quotas, media),
  };
  const db = store.db;
  // The doors made on first use: most commands and tests need few of them.
  const once = <T>(make: () => T): (() => T) => {
    let made: { value: T } | undefined;
    return () => (made ??= { value: make() }).value;
  };
  const sessions = once(() => sessionServiceOf(ctx));
  const people = once(() => peopleOf(ctx));
  const userAdmin = once(() => userAdminOf(ctx));
  const loginThrottle = once(() => createLoginThrottle(db, config.loginMaxFailures));
  const queue = once(() => importQueueOf(ctx));
  const federationStore = once(() => createFederationStore(store));
  const network = once(() => createNetworkService(ctx));
  const out: DomainServices = {
    ...ctx,
    get links() {
      return ctx.links;
    },
    get sessions() {
      return sessions();
    },
    get people() {
      return people();
    },
    get userAdmin() {
      return userAdmin();
    },
    get loginThrottle() {
      return loginThrottle();
    },
    get federationStore() {
      return federationStore();
    },
    get network() {
      return network();
    },
    settings: {
      inForce: (viewer) => settingsInForce(ctx, { network: managesAccounts(viewer) }),
      change: (values) => changeCalendarSettings(ctx, values),
    },
    reviews: {
      notify: () => notifyReviews(ctx),
      sendBack: (viewer, id, note) => sendBack(ctx, viewer, id, note),
    },
    passwordCookieKey: () => passwordCookieKey(ctx),
    previews: {
      link: (record, now) => previewLink(ctx, record, now),
      event: (token, now) => previewedEvent(ctx, token, now),
    },
    changes: {
      read: (viewer, after, limit) => readChanges(ctx, viewer, after, limit),
      follow: (viewer, from, handlers, allowed) => followChanges(ctx, viewer, from, handlers, allowed ? { allowed } : {}),
      closeFollowers: () => closeFollowers(ctx),
      head: () => store.changes.head(),
      catchUp: async () => {
        await store.feed.sync();
      },
    },
    sync: {
      historyDays: async () => cappedHistoryDays(config.syncHistoryDays, await quotas.limit('sync_history_days')),
      delta: (view, options) => syncDelta(db, view, options),
      postTombstones: (ids) => postTombstones(db, ids),
      termTombstones: (taxonomy, ids, details) => termTombstones(db, taxonomy, ids, details),
    },
    imports: {
      get queue() {
        return queue();
      },
      createReviewedVenues: (viewer, id, location) => createReviewedVenues(ctx, viewer, id, location),
      keptLocationOf: (eventId, seriesId) => keptLocationOf(ctx, eventId, seriesId),
    },
    eventIndex: (page, perPage) => eventIndex(db, page, perPage),
    keep: (kind, structure) => registerKept(db, kind, structure),
  };
  return out;
}

/** The services as faces are given them: the same doors, without the store. */
export function faceServices(services: DomainServices): Services {
  const view = {} as Services;
  for (const key of Object.keys(services) as Array<keyof DomainServices>) {
    if (key !== 'store') Object.defineProperty(view, key, Object.getOwnPropertyDescriptor(services, key)!);
  }
  return view;
}
