/**
 * The composition root: `buildApp(config)` opens the store, creates the services, starts the jobs
 * and builds the Fastify instance with every face (the REST API, the calendar's pages and feeds)
 * and the plumbing they share (web/). `server.ts` listens on it; the tests and the CLI's `serve`
 * build here too, over `core.ts` (the store and the services), which the CLI's other commands run
 * over alone, without a server or any face. Faces are registered here and nowhere else: a face
 * never imports another one.
 *
 * @example
 *   const { app, close } = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:' }));
 *   await app.listen({ port: 0 });
 */
import type { FastifyInstance } from 'fastify';
import { Socket } from 'node:net';
import type { Config } from './config.js';
import type { CalendarExports, Face, FaceDeps } from './faces.js';
import { faceServices } from './domain/services.js';
import { exportCalendar } from './import/backup-json.js';
import { exportIcs } from './import/ics-export.js';
import { createCore, type Core } from './core.js';
import { checkReadiness, type OpenOptions, type Store } from './store/db.js';
import { storeMetricsSource } from './store/metrics.js';
import type { WebhookWorker } from './jobs/webhook-delivery.js';
import type { HorizonJob } from './jobs/horizon.js';
import type { PruneJob } from './jobs/change-log-pruning.js';
import { createJobs } from './jobs/index.js';
import type { SubmissionJobs } from './jobs/submissions.js';
import type { JobHandle } from './jobs/runner.js';
import { clientAddressOf, createWebServer, requestIdOf, registerBodyParsers, registerCompression } from './web/server.js';
import { registerQueryRefusal } from './web/query-string.js';
import { calendarRewrite, installTurnShare, registerCalendarEntry } from './web/calendars.js';
import { createFairShare, createTurnShare, registerFairShareMetrics } from './web/fair-share.js';
import { registerRateLimit, type RateLimitTake } from './web/rate-limit.js';
import { registerSlowRequestLog, watchLoop, type LoopWatch } from './web/loop-delay.js';
import { registerConditional } from './web/conditional.js';
import { createReplay } from './web/replay.js';
import { registerRestApi, restRouteRewrite } from './http/register.js';
import { METRICS_PATH, registerMetrics, type RegisteredMetrics } from './http/metrics.js';
import { registerHealthRoutes } from './http/health.js';
import { createWarmUp, warmUpPaths, type WarmUp } from './http/warm-up.js';
import { registerCalendarPages } from './pages/routes.js';
import { registerSiteIcon } from './web/site-icon.js';
import { registerAdminFace } from './admin/index.js';
import { registerCalDav } from './caldav/index.js';
import { registerEmbedFace } from './embed/index.js';
import { registerSubmissionsFace } from './submissions/index.js';
import { registerMediaFace } from './media/index.js';
import { MCP_PATH, registerMcpFace } from './mcp/index.js';
import { startWriteWorker, type WriteWorker, type WriteWorkerData } from './web/write-worker.js';
import type { JobRunner } from './jobs/runner.js';
import { BODY_LIMIT } from './web/hostile-input.js';
import { MULTIPART_SLACK, UPLOAD_LIMIT } from './web/uploads.js';
import { workerHeapBytes } from './store/worker-threads.js';
import { Gauge } from 'prom-client';

export interface BuiltApp extends Core {
  app: FastifyInstance;
  /** The background webhook worker (undefined when `webhooks: false`). */
  webhookWorker?: WebhookWorker;
  /** The job extending recurring events' occurrences. */
  horizonJob: HorizonJob;
  /** The job pruning the change log past SYNC_HISTORY_DAYS. */
  pruneJob: PruneJob;
  /** Community submissions' retention and digest jobs; undefined with SUBMISSIONS=off. */
  submissionJobs?: SubmissionJobs;
  /** The job deleting failed-login counts and rate-limit grants no limit counts any more (jobs/shared-limits.ts). */
  sharedLimitsJob: JobHandle<number>;
  /** The job sending the queued e-mails about people (jobs/mail-outbox.ts); undefined without SMTP_URL. */
  mailOutbox?: JobHandle<number>;
  /** The job mirroring the events of the calendars each calendar follows (jobs/network-follows.ts). */
  networkJob: JobHandle<number>;
  /** The watch of the event loop (which requests hold it; loop-delay.ts). */
  loopWatch: LoopWatch;
  /** The thread answering the writes (WRITE_WORKER; web/write-worker.ts). */
  writeWorker?: WriteWorker;
  /** The reads answered after a start before `/readyz` says ready (`serve` runs it; off with WARM_UP=false). */
  warmUp?: WarmUp;
  /** Stop the server, then close the store; `progress` hears each step as it starts. */
  close(progress?: (step: string) => void): Promise<void>;
}

export interface BuildOptions {
  /** Use this store instead of opening config.databaseUrl (tests, benchmark). */
  store?: Store;
  storeOptions?: OpenOptions;
  /** Fastify logger: true/false or options. */
  logger?: boolean | object;
  /** Run the webhook worker (default true). */
  webhooks?: boolean;
  /**
   * The background jobs run in another thread (this app is the write worker's, src/write-worker.ts):
   * none is started here, and a nudge of one is handed to this.
   */
  jobsElsewhere?: (name: string) => void;
}

/** Paths never rate-limited: health checks and metrics (scrapers and orchestrators poll them). */
const RATE_LIMIT_EXEMPT = new Set([METRICS_PATH, '/livez', '/healthz', '/readyz']);

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  const { store, services, webhooks } = await createCore(config, options);

  // The instance every face is registered on (web/server.ts); `?rest_route=` is the REST face's.
  const app = createWebServer(config, { logger: options.logger, rewriteUrl: calendarRewrite(restRouteRewrite(config.restRoot)) });
  // Each request runs in its calendar (`/c/{slug}/…` or a calendar's own host; else the default one),
  // and waits its calendar's turn while other calendars ask too (CALENDAR_FAIR_SHARE).
  const fairShare = createFairShare({ share: config.calendarFairShare });
  registerCalendarEntry(app, services, RATE_LIMIT_EXEMPT, fairShare, config.federation ? config.federationHandle : undefined);
  // Which requests hold the event loop (loop-delay.ts): logged past SLOW_REQUEST_LOG_MS, counted in
  // /metrics; its hooks come first, so that every request is seen, refused ones included.
  const loopWatch = watchLoop();
  registerSlowRequestLog(app, loopWatch, config.slowRequestLogMs);
  // CACHE_MAX_AGE for the conditional-request helpers (conditional.ts), plugins included.
  registerConditional(app, config.cacheMaxAge);
  // Background jobs on one runner (src/jobs): webhook delivery, the occurrence horizon,
  // change-log pruning past SYNC_HISTORY_DAYS.
  const {
    runner: jobs,
    webhookWorker,
    horizonJob,
    pruneJob,
    submissionJobs,
    sharedLimitsJob,
    mailOutbox,
    networkJob,
  } = createJobs(services, app.log, {
    ...(options.webhooks === false ? {} : { webhooks }),
    ...(options.jobsElsewhere ? { elsewhere: options.jobsElsewhere } : {}),
  });
  jobs.start();
  app.addHook('onClose', async () => jobs.stop());
  if (webhookWorker) {
    // A write committed here: deliver soon instead of at the next poll (the change log wakes it),
    // unless the worker knows no endpoint is enabled (then a commit costs no look at the head).
    const unsubscribe = store.changes.subscribe(() => webhookWorker.nudge(), { wanted: () => webhookWorker.wantsWakes() });
    app.addHook('onClose', async () => unsubscribe());
  }
  // A request that arrives must see every write acknowledged before it, by this process or another
  // (SQLite: other connections' commits; PostgreSQL: other instances'). The feed looks for them
  // once per batch of requests, not once per request (a look per request was 5-10 µs of
  // a 60-100 µs read): the requests the HTTP server reads in one poll of the event loop all had
  // their first bytes waiting before that poll returned, so before the look the batch's first
  // request asks for; the batch ends at the loop's check phase, which follows the poll.
  // Requests made in-process (`app.inject`: the warm-up, tests) may run in any phase: each asks.
  // Hooks on every request are callback-style (no promise, no microtask per hook).
  const feed = store.feed;
  let batchOpen = false;
  const closeBatch = () => {
    batchOpen = false;
  };
  const arriveOnSocket = () => {
    if (!batchOpen) {
      batchOpen = true;
      feed.expectChanges();
      setImmediate(closeBatch);
    }
  };
  app.addHook('onRequest', (req, reply, done) => {
    if (!(req.raw.socket instanceof Socket)) feed.expectChanges();
    else arriveOnSocket();
    reply.header('x-request-id', req.id);
    done();
  });
  // A query string over the limits (query-string.ts) is answered before anything reads it.
  registerQueryRefusal(app);
  // Compression of answers over 1 KB; before the routes (it hooks each route as it is added).
  await registerCompression(app);

  store.setLogger(app.log);
  registerBodyParsers(app, { mediaMaxBytes: config.mediaMaxBytes });

  // The rate limit keys by the user when the credentials are valid: the REST face's credential
  // hook (an app-level onRequest hook) runs before the plugin's (route-level) ones.
  const rateLimitTake = await registerRateLimit(app, config, store.db, RATE_LIMIT_EXEMPT);
  const metrics = registerMetrics(app, config, storeMetricsSource(store), loopWatch);
  const registry = metrics?.registry;
  if (registry) jobs.registerMetrics(registry);

  // The faces, in this order, each `registerXFace(app, deps)` (faces.ts). The REST face also sets
  // the instance's error and not-found answers (the API's shape), so it comes first. The federation
  // face (src/federation), when FEDERATION=true: its administration is the REST face's routes', and
  // it comes before the pages, whose event pages it negotiates (ActivityPub JSON or HTML). Loaded
  // only then: Fedify takes over a second to import, which every other start (the CLI's commands,
  // each test server) would pay for nothing.
  // The faces' services: the same doors, without the store.
  const forFaces = faceServices(services);
  const federationFace = config.federation
    ? await (await import('./federation/index.js')).createFederationFace({ config, services: forFaces, logger: app.log, nudgeJob: (name) => jobs.nudge(name), keptOwner: store.db })
    : undefined;
  const exports: CalendarExports = { json: (options) => exportCalendar(services, options), ics: (filter) => exportIcs(services, filter) };
  const deps: FaceDeps = {
    config: services.config,
    services: forFaces,
    logger: app.log,
    webhooks,
    exports,
    ...(registry ? { registry } : {}),
    ...(federationFace ? { federation: federationFace.admin } : {}),
  };
  let warmUp: WarmUp | undefined;
  const faces: Array<[name: string, face: Face]> = [
    ['rest', registerRestApi],
    ...(federationFace ? ([['federation', federationFace.register]] as Array<[string, Face]>) : []),
    // Liveness and readiness probes, outside the REST root too; readiness waits for the warm-up (the caches filled first).
    [
      'health',
      () => {
        warmUp = config.warmUp ? createWarmUp(app, warmUpPaths(config)) : undefined;
        if (warmUp) app.addHook('onClose', async () => warmUp?.stop());
        registerHealthRoutes(app, (timeoutMs) => checkReadiness(store, timeoutMs), warmUp);
      },
    ],
    // The calendar's pages and iCalendar feeds at the permalinks.
    ['pages', registerCalendarPages],
    // The site's icon (SITE_ICON; the shipped one at /favicon.svg), linked by the pages of every face.
    ['site icon', (_app, d) => registerSiteIcon(app, d.config)],
    // Sign-in, the account page, and cookie authentication for the other faces.
    ['admin', registerAdminFace],
    // Read-only CalDAV: /.well-known/caldav and /dav/.
    ['caldav', registerCalDav],
    // The web component, the iframe view, the snippet generator.
    ['embed', registerEmbedFace],
    // Community submissions: the form and the submitter's status page.
    ['submissions', registerSubmissionsFace],
    // The media library's files (docs/media.md).
    ['media', registerMediaFace],
    // The Model Context Protocol for AI assistants at /mcp (docs/mcp.md).
    ['mcp', registerMcpFace],
  ];
  for (const [, face] of faces) await face(app, deps);
  // A face hands its jobs to the runner here, once its routes are in place: it registers none itself.
  for (const spec of federationFace?.jobs() ?? []) jobs.register(spec);

  if (config.replayAnswers) installReplay(app, config, feed, arriveOnSocket, rateLimitTake, metrics, (host) => services.calendars.isCalendarHost(host));
  // Before the replay and Fastify: each calendar's requests take their turns (CALENDAR_FAIR_SHARE).
  const turnShare = createTurnShare({ perTurn: config.calendarFairShare });
  if (config.calendarFairShare > 0)
    installTurnShare(app.server, turnShare, (host) => services.calendars.isCalendarHost(host), RATE_LIMIT_EXEMPT, config.federation ? config.federationHandle : undefined);
  if (registry) registerFairShareMetrics(registry, fairShare, turnShare);
  // WRITE_WORKER: the writes in a thread of their own (web/write-worker.ts), in front of everything else.
  const writeWorker = config.writeWorker ? startWrites(app, config, store, jobs, metrics, options.logger) : undefined;

  return {
    app,
    services,
    store,
    webhooks,
    horizonJob,
    pruneJob,
    sharedLimitsJob,
    networkJob,
    ...(mailOutbox ? { mailOutbox } : {}),
    loopWatch,
    ...(webhookWorker ? { webhookWorker } : {}),
    ...(submissionJobs ? { submissionJobs } : {}),
    ...(warmUp ? { warmUp } : {}),
    ...(writeWorker ? { writeWorker } : {}),
    async close(progress?: (step: string) => void) {
      await app.close();
      progress?.('closing the database');
      await store.close();
    },
  };
}

/**
 * Start the write worker's thread (src/write-worker.ts) on this store's database and put its
 * forwarding in front of the server's request listeners. It opens the same database (PostgreSQL:
 * the same schema) without migrating; its commits wake this thread's jobs, which it nudges.
 */
function startWrites(app: FastifyInstance, config: Config, store: Store, jobs: JobRunner, metrics: RegisteredMetrics | undefined, logger: BuildOptions['logger']): WriteWorker {
  // The entry beside this file: `.ts` when the sources run as they are (the tests), `.js` built.
  const script = new URL(import.meta.url.endsWith('.ts') ? './write-worker.ts' : './write-worker.js', import.meta.url);
  const storeOptions: OpenOptions = { skipMigrations: true, timeoutMs: config.databaseTimeoutMs, ...(store.schema ? { schema: store.schema } : {}) };
  const workerData: WriteWorkerData = { config, storeOptions, logger: logger === false ? false : { level: levelOf(logger) ?? config.logLevel } };
  // The worker's lines go where this thread's go: `serve`'s bounded destination, else stdout.
  const stream = typeof logger === 'object' && logger !== null && 'stream' in logger ? (logger as { stream: { write(line: string): unknown } }).stream : process.stdout;
  const writes = startWriteWorker({
    script,
    workerData,
    maxBodyBytes: Math.max(BODY_LIMIT, UPLOAD_LIMIT, config.mediaMaxBytes + MULTIPART_SLACK, config.federationMaxBodyBytes),
    stays: (path) => path === MCP_PATH,
    committed: () => store.changes.committedElsewhere(),
    nudge: (name) => jobs.nudge(name),
    ...(metrics ? { observe: metrics.observeWritten } : {}),
    log: app.log,
    logLine: (line) => void stream.write(line),
  });
  writes.install(app.server);
  // Closing: new writes go to Fastify (503 while it closes); once it answered its last request (the
  // writes under way included), the worker stops, before the store closes.
  app.addHook('preClose', (done) => {
    writes.drain();
    done();
  });
  app.addHook('onClose', async () => writes.close());
  if (metrics) {
    new Gauge({
      name: 'calendar_write_worker_ready',
      help: 'Whether the write worker thread answers the writes now (1), or they are answered in the main thread (0: starting, restarting, or stopped for good)',
      registers: [metrics.registry],
      collect() {
        this.set(writes.stats().ready ? 1 : 0);
      },
    });
    new Gauge({
      name: 'calendar_write_worker_heap_bytes',
      help: "The write worker thread's V8 heap (bytes; 0 while no worker answers)",
      registers: [metrics.registry],
      async collect() {
        this.set(await workerHeapBytes(writes.thread() ?? null));
      },
    });
  }
  return writes;
}

/** The level of Fastify logger options, when they name one. */
function levelOf(logger: BuildOptions['logger']): string | undefined {
  const level = typeof logger === 'object' && logger !== null ? (logger as { level?: unknown }).level : undefined;
  return typeof level === 'string' ? level : undefined;
}

/**
 * Repeated anonymous reads answered from the bytes of the same answer, below Fastify
 * (web/replay.ts): in front of the server's request listeners, once every face added its own.
 */
function installReplay(
  app: FastifyInstance,
  config: Config,
  feed: Store['feed'],
  arrive: () => void,
  rateLimitTake: RateLimitTake | undefined,
  metrics: RegisteredMetrics | undefined,
  isCalendarHost: (host: string) => boolean,
): void {
  let open = true;
  app.addHook('preClose', (done) => {
    open = false;
    done();
  });
  createReplay({
    open: () => open,
    revision: (calendar) => feed.calendarRevision(calendar),
    stamp: () => feed.stamp(),
    revisionSince: (calendar, stamp) => feed.calendarRevisionSince(calendar, stamp as ReturnType<typeof feed.stamp>),
    arrive,
    sync: () => feed.sync(),
    // A host name's requests move to a calendar, or back, without the revision of the kept answers moving.
    isCalendarHost,
    requestId: requestIdOf,
    clientAddress: clientAddressOf(config.trustProxy),
    ...(rateLimitTake ? { rateLimit: rateLimitTake } : {}),
    ...(metrics ? { observe: metrics.observeRequest } : {}),
    log: { requests: () => (app.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.('info') === true, info: (obj, msg) => app.log.info(obj, msg) },
  }).install(app.server);
}
