/**
 * The service's configuration as loaded (config.ts `loadConfig`): one field per declared setting
 * (settings/*.ts) and the values derived from them.
 */
export interface Config {
  port: number;
  host: string;
  /** `sqlite:PATH`, `sqlite::memory:` or `postgres://…` */
  databaseUrl: string;
  /** REST root path without trailing slash, e.g. '/api' */
  restRoot: string;
  /** Base of public permalinks without trailing slash, e.g. 'http://127.0.0.1:8080' */
  siteUrl: string;
  /** Site time zone (IANA name or 'UTC+2' style offset) */
  timezone: string;
  adminUser?: string;
  adminPassword?: string;
  /** CALENDAR_ADMIN_EMAIL: the e-mail address of CALENDAR_ADMIN_USER (lost-password links, review e-mails). */
  adminEmail?: string;
  maxPerPage: number;
  /** Default `per_page` of every list (the WordPress `posts_per_page` option) */
  defaultPerPage: number;
  logLevel: string;
  /**
   * Other namespaces every route also answers under (the original's `tribe/events/v1` by default),
   * with URLs in answers under the namespace of the request.
   */
  namespaceAliases: string[];
  /** Whether `_jsonp=callback` wraps answers as JavaScript (WordPress' `rest_jsonp_enabled`). */
  jsonp: boolean;
  /** Whether `tec/v1` requires its `X-TEC-EEA` acknowledgement header (the original's experimental rule). */
  tecV1Acknowledgement: boolean;
  /** Whether `GET /metrics` answers (Prometheus text format). */
  metrics: boolean;
  /** When set, `/metrics` needs `Authorization: Bearer TOKEN`. */
  metricsToken?: string;
  /** A request during which the event loop was held at least this long (ms) is logged (warn) and counted; 0 logs every hold. */
  slowRequestLogMs: number;
  /** Answer the default anonymous lists before /readyz says ready, so a new instance's first clients find the caches filled. */
  warmUp: boolean;
  /** Replay kept answers to anonymous reads below Fastify (web/replay.ts; REPLAY_ANSWERS, default true). */
  replayAnswers: boolean;
  /** Run mutating requests in a worker thread with its own store connection (web/write-worker.ts; WRITE_WORKER, default false). */
  writeWorker: boolean;
  /** The write worker thread's nice value (WRITE_WORKER_NICE, 0-19). */
  writeWorkerNice: number;
  /** Requests per client (IP, or user when authenticated) per `rateLimitWindow`; 0 turns rate limiting off. */
  rateLimitMax: number;
  /** The rate-limit window, in seconds. */
  rateLimitWindow: number;
  /** The installation's calendar quotas (docs/calendars.md, "Quotas"): what a calendar whose own quotas do not name one may hold or do; 0: no limit. */
  calendarQuotaEvents: number;
  calendarQuotaMediaMb: number;
  calendarQuotaRequestsPerMinute: number;
  calendarQuotaWebhookEndpoints: number;
  calendarQuotaSubmissionsPerDay: number;
  calendarQuotaSyncHistoryDays: number;
  /** Requests of one calendar worked on at once per instance while other calendars ask (web/fair-share.ts); 0: no limit. */
  calendarFairShare: number;
  /** Failed logins (per login; 4× that per IP) after which further attempts are refused for a while; 0 turns it off. */
  loginMaxFailures: number;
  /** Fastify's `trustProxy`: false, true, a hop count, or addresses/CIDRs of the trusted proxies. */
  trustProxy: boolean | number | string[];
  /** Origins allowed by CORS; undefined means any origin (reflected, with credentials). */
  corsOrigins?: string[];
  /** How long to wait for the database: a PostgreSQL connection attempt, a SQLite lock (ms). */
  databaseTimeoutMs: number;
  /** how long a graceful shutdown may take before the process exits with 1 */
  shutdownTimeoutMs: number;
  /** The site's name: page titles, the calendar feeds' X-WR-CALNAME, the REST root index's `name`. */
  siteName: string;
  /** the favicon's URL or path (SITE_ICON) */
  siteIcon: string;
  /** The month grids' first day of the week (a day's name: `monday`, `sunday`, …). */
  weekStart: string;
  /**
   * The currency symbol and its side for a cost typed as a bare number (`15` reads `$15`), where the
   * event has none of its own (the original's defaultCurrencySymbol and reverseCurrencyPosition).
   */
  currencySymbol: string;
  currencyPosition: 'prefix' | 'suffix';
  /** How the pages write an event's dates and times (PHP date formats, as WordPress' date_format and time_format). */
  dateFormat: string;
  timeFormat: string;
  /** Events a page of the calendar pages' lists shows (WordPress' posts_per_page). */
  eventsPerPage: number;
  /** What `/events/` shows: the upcoming list or this month's grid. */
  defaultView: 'list' | 'month';
  /** The pages' upcoming lists show a recurring event once, at its next occurrence (TEC Pro's "Show only the first instance of each recurring event"). */
  listSeriesOnce: boolean;
  /** The most events one iCalendar feed (and one month or day page) holds. */
  icalMaxEvents: number;
  /** The most events one CalDAV answer lists (a calendar's GET, PROPFIND Depth 1, calendar-query, an initial sync); more: 507. */
  caldavMaxEvents: number;
  /** A request whose headers have not all arrived after this long is answered 408 and closed (ms). */
  headersTimeoutMs: number;
  /** A request (headers and body) not received completely after this long is answered 408 and closed (ms). */
  requestTimeoutMs: number;
  /** Memory that list answers being built and sent may hold together (bytes); more waits its turn. */
  responseMemoryBytes: number;
  /** `max-age` (seconds) of `Cache-Control: public` on anonymous GET answers (shared caches may serve them that long). */
  cacheMaxAge: number;
  /** How long sync tokens stay valid, in days (the change log keeps at least this much). */
  syncHistoryDays: number;
  /** Log rows one sync answer reads at most (more are paged with continuation tokens, so no answer grows without bound). */
  syncMaxChanges: number;
  /** Whether webhook targets may be on loopback, private or link-local addresses. */
  webhooksAllowPrivate: boolean;
  /** Delays (ms) before each retry of a failed webhook delivery. */
  webhooksRetrySchedule: number[];
  /** An endpoint failing this long (ms) without a success is disabled. */
  webhooksDisableAfterMs: number;
  /** Time limit (ms) of one webhook delivery attempt. */
  webhooksTimeoutMs: number;
  /** The most bytes an import reads of one answer of its source, as sent and as decoded (gzip, deflate, br). */
  importMaxBytes: number;
  /** How long (ms) a background import runs before it lets another calendar's waiting import go first (jobs/imports.ts); 0: never. */
  importSliceMs: number;
  /** Default radius of the geolocation filters (`geoloc_lat`/`geoloc_lng` without `geoloc_radius`), in `geolocUnit`. */
  geolocRadius: number;
  /** Unit of `geolocRadius` and the default of `geoloc_unit`: miles or kilometres. */
  geolocUnit: 'mi' | 'km';
  /** How far ahead (months) occurrences of recurring events are materialised (rows, so lists and feeds read them like any event). */
  recurrenceHorizonMonths: number;
  /** Path of the admin face (sign-in, account), without trailing slash, e.g. '/admin'. */
  adminPath: string;
  /** A sign-in session unused this long ends (ms). */
  sessionIdleMs: number;
  /** A sign-in session ends this long after sign-in, used or not (ms). */
  sessionMaxAgeMs: number;
  /** `administrators`: administrators must turn two-factor sign-in on before their session is usable; `off`: optional for everyone. */
  adminRequire2fa: 'administrators' | 'off';
  /** A password set anywhere has at least this many characters (PASSWORD_MIN_LENGTH). */
  passwordMinLength: number;
  /** …and at least this zxcvbn score, 0 to 4 (PASSWORD_MIN_STRENGTH; 0: length only). */
  passwordMinStrength: number;
  /** An invitation's set-password link works this long (ms, INVITATION_EXPIRY). */
  invitationExpiryMs: number;
  /** A lost-password link works this long (ms, PASSWORD_RESET_EXPIRY). */
  passwordResetExpiryMs: number;
  /** Lost-password requests per hour, per address and per account (PASSWORD_RESET_LIMIT). */
  passwordResetLimit: number;
  /** E-mail editors when a contributor's event waits for review, and the contributor when it is published or sent back (REVIEW_NOTIFY). */
  reviewNotify: boolean;
  /** SECRET_KEY: encrypts secrets at rest (TOTP secrets); unset: one generated once and kept in the database's settings table. */
  secretKey?: string;
  /** Where each setting not at its default came from (the admin API's settings list). */
  sources?: Partial<Record<keyof Config, 'environment' | 'flag'>>;
  /** Federation (docs/federation.md): the calendar as an ActivityPub actor; every federation route 404s when false. */
  federation: boolean;
  /** The actor's WebFinger handle (`acct:HANDLE@host`). */
  federationHandle: string;
  /** Follows wait for an editor's decision (admin routes) instead of being accepted at once. */
  federationApproveFollows: boolean;
  /** Activities other than Follow, Undo(Follow) and Delete of an actor are kept for moderation instead of dropped. */
  federationKeepActivities: boolean;
  /** Domains (and their subdomains) whose requests are refused and to which nothing is sent. */
  federationBlockedDomains: string[];
  /** Outgoing fetches and deliveries may reach loopback and private addresses (tests only). */
  federationAllowPrivate: boolean;
  /** The largest inbox request body accepted (bytes). */
  federationMaxBodyBytes: number;
  /** How far a signed request's time may be from ours (ms); replays are refused within it. */
  federationClockSkewMs: number;
  /** Inbox requests accepted per remote host per minute (0: no limit). */
  federationInboxRateLimit: number;
  /** Delays (ms) before each retry of a failed delivery; after the last, the delivery is abandoned. */
  federationRetrySchedule: number[];
  /** The actor's icon (an image URL), if any. */
  federationIconUrl?: string;
  /** The MCP endpoint at /mcp for AI assistants (docs/mcp.md); 404 when false. */
  mcp: boolean;
  /** Community submissions (docs/submissions.md): `off` (every route 404), `registered`, `anyone`. */
  submissions: 'off' | 'registered' | 'anyone';
  /** Whether a proof-of-work (ALTCHA) solution must come with each submission. */
  submissionsPow: boolean;
  /** The ALTCHA challenge's largest number (the work: about half of it SHA-256 hashes on average). */
  submissionsPowMaxNumber: number;
  /** Submissions per client address, and per e-mail address, per `submissionsRateWindowMs` (0: no limit). */
  submissionsMaxPerAddress: number;
  submissionsMaxPerEmail: number;
  submissionsRateWindowMs: number;
  /** The form must have been open at least this long (ms) before it is sent (0: no check). */
  submissionsMinFillMs: number;
  /** The most characters of a submitted description. */
  submissionsMaxDescription: number;
  /** The most links (URLs) in a submission's text fields together. */
  submissionsMaxLinks: number;
  /** Moderators hear of new submissions `immediate`ly, in a `daily` digest, or not at all (`off`). */
  submissionsNotify: 'immediate' | 'daily' | 'off';
  /** Who hears of new submissions (empty: the editors and administrators with an e-mail address). */
  submissionsNotifyTo: string[];
  /** Days after the decision when the submitter's name, e-mail and address are erased. */
  submissionRetentionDays: number;
  /** `smtp://user:pass@host:port` or `smtps://…`; unset: no e-mail. */
  smtpUrl?: string;
  /** The sender of e-mails. */
  smtpFrom: string;
  /** The media library's folder (local disk storage; docs/media.md). */
  mediaDir: string;
  /** The largest image upload accepted (bytes). */
  mediaMaxBytes: number;
  /** The most pixels (width × height) an uploaded image may have, checked before it is decoded. */
  mediaMaxPixels: number;
  /** S3-compatible storage (used instead of `mediaDir` when `mediaS3Bucket` is set). */
  mediaS3Endpoint?: string;
  mediaS3Bucket?: string;
  mediaS3Region: string;
  mediaS3AccessKey?: string;
  mediaS3SecretKey?: string;
  /** Where the bucket's objects are public (a CDN or the bucket's own URL); unset: served through /media/. */
  mediaS3PublicUrl?: string;
}
