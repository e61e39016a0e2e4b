import { isIP } from 'node:net';
import { isValidTimezone } from './domain/dates/zones.js';
import { WEEKDAYS } from './domain/month-grid.js';
import { phpFormatProblem } from './domain/php-date.js';
import { isEmail } from './domain/email-address.js';

/**
 * Service configuration: every variable of COMPAT.md's table, read from the environment and
 * overridable by command-line flags (see `events-calendar serve --help`).
 *
 * @example
 *   const config = loadConfig(process.env, { port: '9000' });
 *   config.restRoot // '/api'
 */
import { readFileSync } from 'node:fs';

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
  /** Whether `GET /metrics` answers (Prometheus text format). */
  metrics: boolean;
  /** When set, `/metrics` needs `Authorization: Bearer TOKEN`. */
  metricsToken?: string;
  /** A request during which the event loop was held at least this long (ms) is logged (warn) and counted; 0 logs every hold. */
  slowRequestLogMs: number;
  /** Answer the default anonymous lists before /readyz says ready (issue 27). */
  warmUp: boolean;
  /** Replay kept answers to anonymous reads below Fastify (web/replay.ts; REPLAY_ANSWERS, default true). */
  replayAnswers: boolean;
  /** Requests per client (IP, or user when authenticated) per `rateLimitWindow`; 0 turns rate limiting off. */
  rateLimitMax: number;
  /** The rate-limit window, in seconds. */
  rateLimitWindow: number;
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
  /** `max-age` (seconds) of `Cache-Control: public` on anonymous GET answers (issue 11). */
  cacheMaxAge: number;
  /** How long sync tokens stay valid, in days (the change log keeps at least this much). */
  syncHistoryDays: number;
  /** Log rows one sync answer reads at most (issue 24: more are paged with continuation tokens). */
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
  /** Default radius of the geolocation filters (`geoloc_lat`/`geoloc_lng` without `geoloc_radius`), in `geolocUnit`. */
  geolocRadius: number;
  /** Unit of `geolocRadius` and the default of `geoloc_unit`: miles or kilometres. */
  geolocUnit: 'mi' | 'km';
  /** How far ahead (months) occurrences of recurring events are materialised (issue 15). */
  recurrenceHorizonMonths: number;
  /** Path of the admin face (sign-in, account), without trailing slash, e.g. '/admin' (issue 28). */
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
  /** Issue 31 (docs/federation.md): the calendar as an ActivityPub actor; every federation route 404s when false. */
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
  /** Community submissions (issue 29; docs/submissions.md): `off` (every route 404), `registered`, `anyone`. */
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

/** IMPORT_MAX_BYTES' default: 10 MiB, as the admin API's uploads. */
export const DEFAULT_IMPORT_MAX_BYTES = 10 * 1024 * 1024;

/** The namespace every route lives under. */
export const NAMESPACE = 'calendar/events/v1';

/** The original's namespace, the default alias. */
export const ORIGINAL_NAMESPACE = 'tribe/events/v1';

/** Ours (issue 30): the embedding namespace (the FullCalendar event source), public reads from any origin. */
export const EMBED_NAMESPACE = 'calendar/embed/v1';

/** WordPress' REST root, always answering as a REST root beside REST_ROOT. */
export const WORDPRESS_REST_ROOT = '/wp-json';

/**
 * Where a setting may be changed: `environment` (the process's: ports, the database, secrets,
 * paths, limits; environment variables and flags, read at start) or `calendar` (the calendar's
 * own: also changed by administrators in the app, kept in the database and in force on every
 * instance at once; an environment variable or flag still pins it).
 */
export type SettingScope = 'environment' | 'calendar';

/** A setting's type: how its text is read and which control the admin screen shows. */
export type SettingType = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'duration' | 'durations' | 'list' | 'url' | 'timezone' | 'dateformat' | 'emails' | 'icon';

/**
 * One documented setting, declared once: its environment variable, CLI flag, type, unit, default,
 * meaning, whether it is a secret and where it may be changed. `--help`, the README's table (a
 * test compares them), the admin API's list and the admin screen's form are read from it; the
 * calendar settings' values are checked with it (`parseCalendarSetting`).
 */
export interface Setting {
  env: string;
  flag: string;
  key: keyof Config;
  defaultText: string;
  description: string;
  /** defaults to `environment` */
  scope?: SettingScope;
  /** defaults to `string` */
  type?: SettingType;
  /** the unit values are given and shown in (`ms`, `s`, `MB`, `bytes`, `days`, `months`, …) */
  unit?: string;
  /** enum: the values allowed */
  choices?: readonly string[];
  /** enum: other spellings of a value (`0` for `sunday`), stored as the value they stand for */
  aliases?: Readonly<Record<string, string>>;
  /** integer/number: the smallest and largest values allowed */
  min?: number;
  max?: number;
  /** the value is a secret: shown masked, never sent back */
  secret?: boolean;
  /** the admin screen's group */
  group?: 'site' | 'server' | 'security' | 'limits' | 'sync' | 'federation' | 'submissions' | 'mail';
}

/** The settings table; `--help` and the README print it. */
export const SETTINGS: Setting[] = [
  { env: 'PORT', flag: '--port', key: 'port', type: 'integer', min: 0, max: 65535, group: 'server', defaultText: '8080', description: 'TCP port to listen on' },
  { env: 'HOST', flag: '--host', key: 'host', group: 'server', defaultText: '127.0.0.1', description: 'address to listen on' },
  {
    env: 'DATABASE_URL',
    flag: '--database-url',
    key: 'databaseUrl',
    type: 'url',
    secret: true,
    group: 'server',
    defaultText: 'sqlite:./data/calendar.db',
    description: 'sqlite:PATH, sqlite::memory: (fresh, empty) or postgres://user@host:port/db',
  },
  { env: 'REST_ROOT', flag: '--rest-root', key: 'restRoot', group: 'server', defaultText: '/api', description: 'REST root; routes live at {REST_ROOT}/calendar/events/v1/...' },
  { env: 'SITE_URL', flag: '--site-url', key: 'siteUrl', type: 'url', group: 'server', defaultText: 'http://HOST:PORT', description: 'base of public permalinks and REST URLs in responses' },
  { env: 'CALENDAR_TIMEZONE', flag: '--timezone', key: 'timezone', type: 'timezone', scope: 'calendar', group: 'site', defaultText: 'UTC', description: 'site time zone (IANA name, or UTC+N)' },
  {
    env: 'CALENDAR_ADMIN_USER',
    flag: '--admin-user',
    key: 'adminUser',
    group: 'security',
    defaultText: 'unset',
    description: 'with CALENDAR_ADMIN_PASSWORD: administrator created (or password reset) at start-up',
  },
  {
    env: 'CALENDAR_ADMIN_PASSWORD',
    flag: '--admin-password',
    key: 'adminPassword',
    secret: true,
    group: 'security',
    defaultText: 'unset',
    description: 'password of CALENDAR_ADMIN_USER (or CALENDAR_ADMIN_PASSWORD_FILE: a file holding it)',
  },
  {
    env: 'CALENDAR_ADMIN_EMAIL',
    flag: '--admin-email',
    key: 'adminEmail',
    group: 'security',
    defaultText: 'unset',
    description: 'e-mail address of CALENDAR_ADMIN_USER, given to it at start-up when it has none (lost-password links and review e-mails go there)',
  },
  { env: 'MAX_PER_PAGE', flag: '--max-per-page', key: 'maxPerPage', type: 'integer', min: 1, group: 'limits', defaultText: '50', description: 'upper bound of per_page on every list' },
  {
    env: 'LOG_LEVEL',
    flag: '--log-level',
    key: 'logLevel',
    type: 'enum',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    group: 'server',
    defaultText: 'info',
    description: 'fatal, error, warn, info, debug, trace or silent',
  },
  {
    env: 'NAMESPACE_ALIASES',
    flag: '--namespace-aliases',
    key: 'namespaceAliases',
    type: 'list',
    group: 'server',
    defaultText: 'tribe/events/v1',
    description: 'comma-separated namespaces every route also answers under ("" for none)',
  },
  { env: 'JSONP', flag: '--jsonp', key: 'jsonp', type: 'boolean', group: 'server', defaultText: 'true', description: 'whether ?_jsonp=callback is answered (true/false)' },
  { env: 'METRICS', flag: '--metrics', key: 'metrics', type: 'boolean', group: 'server', defaultText: 'true', description: 'whether GET /metrics answers (Prometheus text format; true/false)' },
  { env: 'METRICS_TOKEN', flag: '--metrics-token', key: 'metricsToken', secret: true, group: 'security', defaultText: 'unset', description: 'when set, /metrics needs Authorization: Bearer TOKEN' },
  {
    env: 'SLOW_REQUEST_LOG_MS',
    flag: '--slow-request-log-ms',
    key: 'slowRequestLogMs',
    type: 'integer',
    unit: 'ms',
    min: 0,
    group: 'server',
    defaultText: '100',
    description: 'a request during which the event loop was held at least this long (ms) is logged (warn) and counted in /metrics',
  },
  {
    env: 'WARM_UP',
    flag: '--warm-up',
    key: 'warmUp',
    type: 'boolean',
    group: 'server',
    defaultText: 'true',
    description: 'after a start, answer the default anonymous lists once (their totals counted, caches filled) before /readyz says ready (true/false)',
  },
  {
    env: 'REPLAY_ANSWERS',
    flag: '--replay-answers',
    key: 'replayAnswers',
    type: 'boolean',
    group: 'server',
    defaultText: 'true',
    description: 'answer repeated anonymous reads from the bytes of the same answer while the data is unchanged (true/false)',
  },
  {
    env: 'RATE_LIMIT_MAX',
    flag: '--rate-limit-max',
    key: 'rateLimitMax',
    type: 'integer',
    min: 0,
    group: 'security',
    defaultText: '1200',
    description: 'requests per client (IP, or user when authenticated) per window; 0 turns it off',
  },
  {
    env: 'RATE_LIMIT_WINDOW',
    flag: '--rate-limit-window',
    key: 'rateLimitWindow',
    type: 'integer',
    unit: 's',
    min: 1,
    group: 'security',
    defaultText: '60',
    description: 'rate-limit window: seconds, or 30s, 1m, 1h',
  },
  {
    env: 'LOGIN_MAX_FAILURES',
    flag: '--login-max-failures',
    key: 'loginMaxFailures',
    type: 'integer',
    min: 0,
    group: 'security',
    defaultText: '5',
    description: 'failed logins for a user from one client (4x from one client in all) before its attempts are refused for a growing time; 0 turns it off',
  },
  {
    env: 'TRUST_PROXY',
    flag: '--trust-proxy',
    key: 'trustProxy',
    group: 'server',
    defaultText: 'false',
    description: 'trust X-Forwarded-For/-Proto/-Host: true, a hop count, or comma-separated proxy addresses/CIDRs',
  },
  { env: 'CORS_ORIGINS', flag: '--cors-origins', key: 'corsOrigins', type: 'list', group: 'security', defaultText: '*', description: 'comma-separated origins allowed by CORS, or * for any' },
  {
    env: 'DATABASE_TIMEOUT_MS',
    flag: '--database-timeout-ms',
    key: 'databaseTimeoutMs',
    type: 'integer',
    unit: 'ms',
    min: 1,
    group: 'server',
    defaultText: '3000',
    description: 'how long to wait for the database (PostgreSQL connection attempt, SQLite lock) before answering 503',
  },
  {
    env: 'SHUTDOWN_TIMEOUT_MS',
    flag: '--shutdown-timeout-ms',
    key: 'shutdownTimeoutMs',
    type: 'integer',
    unit: 'ms',
    min: 0,
    group: 'server',
    defaultText: '10000',
    description: 'on SIGTERM/SIGINT: how long to finish in-flight requests and close the database before exiting with 1',
  },
  {
    env: 'SITE_NAME',
    flag: '--site-name',
    key: 'siteName',
    scope: 'calendar',
    max: 200,
    group: 'site',
    defaultText: 'Events Calendar',
    description: "the site's name on the calendar pages, in feeds (X-WR-CALNAME) and in the REST root index",
  },
  {
    env: 'SITE_ICON',
    flag: '--site-icon',
    key: 'siteIcon',
    type: 'icon',
    scope: 'calendar',
    max: 2000,
    group: 'site',
    defaultText: '/favicon.svg',
    description: "the site's icon (favicon) on the calendar pages, the submission form and the admin app: an http(s) URL or a path on this site; /favicon.svg is the icon the service ships",
  },
  {
    env: 'CALENDAR_WEEK_START',
    flag: '--week-start',
    key: 'weekStart',
    type: 'enum',
    choices: WEEKDAYS,
    aliases: Object.fromEntries(WEEKDAYS.map((d, i) => [String(i), d])),
    scope: 'calendar',
    group: 'site',
    defaultText: 'monday',
    description: "the month grids' first day of the week (a day's name, or 0 for Sunday to 6 for Saturday as WordPress' start_of_week)",
  },
  {
    env: 'CALENDAR_CURRENCY_SYMBOL',
    flag: '--currency-symbol',
    key: 'currencySymbol',
    scope: 'calendar',
    max: 10,
    group: 'site',
    defaultText: '$',
    description:
      "the currency symbol of a cost typed as a bare number (15 reads $15) when the event has none of its own, as the original's defaultCurrencySymbol; in the REST cost, the pages and feeds",
  },
  {
    env: 'CALENDAR_CURRENCY_POSITION',
    flag: '--currency-position',
    key: 'currencyPosition',
    type: 'enum',
    choices: ['prefix', 'suffix'],
    scope: 'calendar',
    group: 'site',
    defaultText: 'prefix',
    description: "which side of the number that symbol goes (prefix: $15; suffix: 15 €), as the original's reverseCurrencyPosition",
  },
  {
    env: 'CALENDAR_DATE_FORMAT',
    flag: '--date-format',
    key: 'dateFormat',
    type: 'dateformat',
    max: 100,
    scope: 'calendar',
    group: 'site',
    defaultText: 'l j F Y',
    description: "how the calendar pages write an event's dates: a PHP date format as WordPress' date_format (F j, Y: March 27, 2027)",
  },
  {
    env: 'CALENDAR_TIME_FORMAT',
    flag: '--time-format',
    key: 'timeFormat',
    type: 'dateformat',
    max: 100,
    scope: 'calendar',
    group: 'site',
    defaultText: 'g:i A',
    description: "how the calendar pages write an event's times: a PHP date format as WordPress' time_format (g:i a: 9:00 am; H:i: 09:00)",
  },
  {
    env: 'CALENDAR_EVENTS_PER_PAGE',
    flag: '--events-per-page',
    key: 'eventsPerPage',
    type: 'integer',
    min: 1,
    max: 100,
    scope: 'calendar',
    group: 'site',
    defaultText: '10',
    description: "events a page of the calendar pages' lists shows (upcoming, past, a search's, a category's, tag's, venue's, organizer's or series' events), as WordPress' posts_per_page",
  },
  {
    env: 'CALENDAR_DEFAULT_VIEW',
    flag: '--default-view',
    key: 'defaultView',
    type: 'enum',
    choices: ['list', 'month'],
    scope: 'calendar',
    group: 'site',
    defaultText: 'list',
    description: "what the calendar's /events/ page shows: the upcoming list or this month's grid (/events/list/ and /events/month/ stay as they are)",
  },
  {
    env: 'LIST_SERIES_ONCE',
    flag: '--list-series-once',
    key: 'listSeriesOnce',
    type: 'boolean',
    scope: 'calendar',
    group: 'site',
    defaultText: 'false',
    description:
      "the calendar pages' upcoming lists (and their category, tag, venue and organizer lists) show a recurring event once, at its next occurrence, as The Events Calendar Pro's \"Show only the first instance of each recurring event\"; a page's ?hide_subsequent_recurrences=1 or =0 overrides it; the REST API's lists are unchanged",
  },
  {
    env: 'ICAL_MAX_EVENTS',
    flag: '--ical-max-events',
    key: 'icalMaxEvents',
    type: 'integer',
    min: 1,
    group: 'limits',
    defaultText: '1000',
    description: 'the most events one iCalendar feed (and one month or day page) holds',
  },
  {
    env: 'CALDAV_MAX_EVENTS',
    flag: '--caldav-max-events',
    key: 'caldavMaxEvents',
    type: 'integer',
    min: 1,
    group: 'limits',
    defaultText: '10000',
    description: "the most events one CalDAV answer lists (a calendar's GET, PROPFIND Depth 1, calendar-query, an initial sync); a larger one answers 507",
  },
  {
    env: 'HEADERS_TIMEOUT_MS',
    flag: '--headers-timeout-ms',
    key: 'headersTimeoutMs',
    type: 'integer',
    unit: 'ms',
    min: 1,
    group: 'limits',
    defaultText: '10000',
    description: 'a request whose headers are not complete after this long gets 408 and is closed',
  },
  {
    env: 'REQUEST_TIMEOUT_MS',
    flag: '--request-timeout-ms',
    key: 'requestTimeoutMs',
    type: 'integer',
    unit: 'ms',
    min: 1,
    group: 'limits',
    defaultText: '30000',
    description: 'a request (headers and body) not received completely after this long gets 408 and is closed',
  },
  {
    env: 'RESPONSE_MEMORY_MB',
    flag: '--response-memory-mb',
    key: 'responseMemoryBytes',
    type: 'integer',
    unit: 'MB',
    min: 1,
    group: 'limits',
    defaultText: '256',
    description: 'memory that list answers being built and sent may hold together (1 MB: 1,048,576 bytes); further large lists wait their turn',
  },
  {
    env: 'CACHE_MAX_AGE',
    flag: '--cache-max-age',
    key: 'cacheMaxAge',
    type: 'integer',
    unit: 's',
    min: 0,
    group: 'server',
    defaultText: '10',
    description: 'seconds anonymous GET answers may be cached (Cache-Control: public, max-age); 0 for revalidation every time',
  },
  {
    env: 'SYNC_HISTORY_DAYS',
    flag: '--sync-history-days',
    key: 'syncHistoryDays',
    type: 'number',
    unit: 'days',
    group: 'sync',
    defaultText: '30',
    description: 'days a sync token stays valid (older ones answer 410 rest_sync_token_expired)',
  },
  {
    env: 'SYNC_MAX_CHANGES',
    flag: '--sync-max-changes',
    key: 'syncMaxChanges',
    type: 'integer',

    group: 'sync',
    defaultText: '1000',
    description: 'change log rows one sync answer reads at most (the rest follows with its X-Sync-Token)',
  },
  {
    env: 'WEBHOOKS_ALLOW_PRIVATE',
    flag: '--webhooks-allow-private',
    key: 'webhooksAllowPrivate',
    type: 'boolean',
    group: 'sync',
    defaultText: 'false',
    description: 'allow webhook targets on loopback, private or link-local addresses (true/false)',
  },
  {
    env: 'WEBHOOKS_RETRY_SCHEDULE',
    flag: '--webhooks-retry-schedule',
    key: 'webhooksRetrySchedule',
    type: 'durations',
    group: 'sync',
    defaultText: '5s,5m,30m,2h,5h,10h,10h',
    description: 'delays before each retry of a failed webhook delivery (ms, s, m, h), comma-separated',
  },
  {
    env: 'WEBHOOKS_DISABLE_AFTER',
    flag: '--webhooks-disable-after',
    key: 'webhooksDisableAfterMs',
    type: 'duration',
    group: 'sync',
    defaultText: '24h',
    description: 'an endpoint failing this long without a success is disabled (ms, s, m, h)',
  },
  {
    env: 'WEBHOOKS_TIMEOUT',
    flag: '--webhooks-timeout',
    key: 'webhooksTimeoutMs',
    type: 'duration',
    group: 'sync',
    defaultText: '10s',
    description: 'time limit of one webhook delivery attempt (ms, s, m, h)',
  },
  {
    env: 'IMPORT_MAX_BYTES',
    flag: '--import-max-bytes',
    key: 'importMaxBytes',
    type: 'integer',
    unit: 'bytes',

    group: 'limits',
    defaultText: '10485760',
    description: 'the most bytes an import (ics or tec, admin API or CLI) reads of one answer of its source, as sent and once gzip, deflate or br is undone; a larger one fails the import',
  },
  {
    env: 'GEOLOC_RADIUS',
    flag: '--geoloc-radius',
    key: 'geolocRadius',
    type: 'number',
    group: 'limits',
    defaultText: '25',
    description: 'default radius of the geoloc_lat/geoloc_lng filters (a positive number, in GEOLOC_UNIT)',
  },
  {
    env: 'GEOLOC_UNIT',
    flag: '--geoloc-unit',
    key: 'geolocUnit',
    type: 'enum',
    choices: ['mi', 'km'],
    group: 'limits',
    defaultText: 'mi',
    description: 'unit of GEOLOC_RADIUS and default of geoloc_unit: mi or km',
  },
  {
    env: 'RECURRENCE_HORIZON_MONTHS',
    flag: '--recurrence-horizon-months',
    key: 'recurrenceHorizonMonths',
    type: 'integer',
    unit: 'months',
    min: 1,
    max: 240,
    group: 'limits',
    defaultText: '60',
    description: 'months ahead that occurrences of recurring events are generated (1 to 240); a background job keeps extending them',
  },
  { env: 'ADMIN_PATH', flag: '--admin-path', key: 'adminPath', group: 'server', defaultText: '/admin', description: 'path of the admin face: its sign-in page is {ADMIN_PATH}/login' },
  {
    env: 'SESSION_IDLE',
    flag: '--session-idle',
    key: 'sessionIdleMs',
    type: 'duration',
    group: 'security',
    defaultText: '48h',
    description: 'a sign-in session unused this long ends (a duration: 30m, 12h, …)',
  },
  {
    env: 'SESSION_MAX_AGE',
    flag: '--session-max-age',
    key: 'sessionMaxAgeMs',
    type: 'duration',
    group: 'security',
    defaultText: '336h',
    description: 'a sign-in session ends this long after sign-in, used or not (a duration)',
  },
  {
    env: 'ADMIN_REQUIRE_2FA',
    flag: '--admin-require-2fa',
    key: 'adminRequire2fa',
    type: 'enum',
    choices: ['administrators', 'off'],
    group: 'security',
    defaultText: 'off',
    description: 'administrators: administrators must turn two-factor sign-in (TOTP) on before their session can do anything else; off: optional',
  },
  {
    env: 'PASSWORD_MIN_LENGTH',
    flag: '--password-min-length',
    key: 'passwordMinLength',
    type: 'integer',
    unit: 'characters',
    min: 1,
    max: 128,
    group: 'security',
    defaultText: '12',
    description: 'the fewest characters of a password set anywhere (set-password and reset pages, account page, admin API, CLI)',
  },
  {
    env: 'PASSWORD_MIN_STRENGTH',
    flag: '--password-min-strength',
    key: 'passwordMinStrength',
    type: 'integer',
    min: 0,
    max: 4,
    group: 'security',
    defaultText: '3',
    description: 'the lowest zxcvbn strength score (0 to 4) of a password set anywhere; 0: the length alone is checked',
  },
  {
    env: 'INVITATION_EXPIRY',
    flag: '--invitation-expiry',
    key: 'invitationExpiryMs',
    type: 'duration',
    group: 'security',
    defaultText: '72h',
    description: 'how long the set-password link of an invitation works (a duration)',
  },
  {
    env: 'PASSWORD_RESET_EXPIRY',
    flag: '--password-reset-expiry',
    key: 'passwordResetExpiryMs',
    type: 'duration',
    group: 'security',
    defaultText: '1h',
    description: 'how long a lost-password link works (a duration)',
  },
  {
    env: 'PASSWORD_RESET_LIMIT',
    flag: '--password-reset-limit',
    key: 'passwordResetLimit',
    type: 'integer',
    unit: 'requests per hour',
    min: 1,
    max: 1000,
    group: 'security',
    defaultText: '5',
    description: 'lost-password requests per hour from one address, and for one account; more are answered alike but send nothing',
  },
  {
    env: 'REVIEW_NOTIFY',
    flag: '--review-notify',
    key: 'reviewNotify',
    type: 'boolean',
    group: 'mail',
    defaultText: 'true',
    description:
      'e-mail editors and administrators (or SUBMISSIONS_NOTIFY_TO) when a contributor submits an event for review, and the contributor when it is published or sent back with a note (needs SMTP_URL)',
  },
  {
    env: 'SECRET_KEY',
    flag: '--secret-key',
    key: 'secretKey',
    secret: true,
    group: 'security',
    defaultText: 'generated',
    description: 'key (32 characters or more) encrypting secrets at rest (TOTP secrets, AES-256-GCM); unset: one is generated once and kept in the database',
  },
  {
    env: 'FEDERATION',
    flag: '--federation',
    key: 'federation',
    type: 'boolean',
    group: 'federation',
    defaultText: 'false',
    description: 'make the calendar an ActivityPub actor others can follow (docs/federation.md); off: every federation route answers 404',
  },
  {
    env: 'FEDERATION_HANDLE',
    flag: '--federation-handle',
    key: 'federationHandle',
    group: 'federation',
    defaultText: 'events',
    description: "the actor's handle: acct:HANDLE@host (letters, digits, _ . -)",
  },
  {
    env: 'FEDERATION_APPROVE_FOLLOWS',
    flag: '--federation-approve-follows',
    key: 'federationApproveFollows',
    type: 'boolean',
    group: 'federation',
    defaultText: 'false',
    description: 'follows wait for an editor to accept or reject them (true/false)',
  },
  {
    env: 'FEDERATION_KEEP_ACTIVITIES',
    flag: '--federation-keep-activities',
    key: 'federationKeepActivities',
    type: 'boolean',
    group: 'federation',
    defaultText: 'false',
    description: 'keep other incoming activities (replies, likes, …) for moderation instead of dropping them (true/false)',
  },
  {
    env: 'FEDERATION_BLOCKED_DOMAINS',
    flag: '--federation-blocked-domains',
    key: 'federationBlockedDomains',
    type: 'list',
    group: 'federation',
    defaultText: '(none)',
    description: 'comma-separated domains (subdomains included) whose requests are refused and to which nothing is sent',
  },
  {
    env: 'FEDERATION_ALLOW_PRIVATE_ADDRESSES',
    flag: '--federation-allow-private-addresses',
    key: 'federationAllowPrivate',
    type: 'boolean',
    group: 'federation',
    defaultText: 'false',
    description: 'allow fetches and deliveries to loopback and private addresses (tests only)',
  },
  {
    env: 'FEDERATION_MAX_BODY_BYTES',
    flag: '--federation-max-body-bytes',
    key: 'federationMaxBodyBytes',
    type: 'integer',
    unit: 'bytes',

    group: 'federation',
    defaultText: '262144',
    description: 'the largest inbox request body accepted (larger: 413)',
  },
  {
    env: 'FEDERATION_CLOCK_SKEW',
    flag: '--federation-clock-skew',
    key: 'federationClockSkewMs',
    type: 'duration',
    group: 'federation',
    defaultText: '5m',
    description: "how far a signed inbox request's Date may be from ours (a duration); replays within it are refused",
  },
  {
    env: 'FEDERATION_INBOX_RATE_LIMIT',
    flag: '--federation-inbox-rate-limit',
    key: 'federationInboxRateLimit',
    type: 'integer',
    min: 0,
    group: 'federation',
    defaultText: '120',
    description: 'inbox requests per client address, and verified activities per remote host, per minute (0: no limit; more: 429)',
  },
  {
    env: 'FEDERATION_ICON_URL',
    flag: '--federation-icon-url',
    key: 'federationIconUrl',
    type: 'url',
    group: 'federation',
    defaultText: '(none)',
    description: "the actor's icon: an http(s) URL of a PNG or JPEG image",
  },
  {
    env: 'FEDERATION_RETRY_SCHEDULE',
    flag: '--federation-retry-schedule',
    key: 'federationRetrySchedule',
    type: 'durations',
    group: 'federation',
    defaultText: '1m,5m,30m,2h,6h,12h,24h',
    description: 'delays before each retry of a failed delivery (ms, s, m, h), comma-separated',
  },
  {
    env: 'SUBMISSIONS',
    flag: '--submissions',
    key: 'submissions',
    type: 'enum',
    choices: ['off', 'registered', 'anyone'],
    group: 'submissions',
    defaultText: 'off',
    description: 'community submissions: off (every submission route answers 404), registered (signed-in users) or anyone',
  },
  {
    env: 'SUBMISSIONS_POW',
    flag: '--submissions-pow',
    key: 'submissionsPow',
    type: 'boolean',
    group: 'submissions',
    defaultText: 'off',
    description: 'on: each submission carries an ALTCHA proof-of-work solution (the form solves it with a small script)',
  },
  {
    env: 'SUBMISSIONS_POW_MAX_NUMBER',
    flag: '--submissions-pow-max-number',
    key: 'submissionsPowMaxNumber',
    type: 'integer',
    min: 1,
    group: 'submissions',
    defaultText: '50000',
    description: "the proof of work's largest number (about half as many SHA-256 hashes on average)",
  },
  {
    env: 'SUBMISSIONS_MAX_PER_ADDRESS',
    flag: '--submissions-max-per-address',
    key: 'submissionsMaxPerAddress',
    type: 'integer',
    min: 0,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '5',
    description: 'submissions per client address (an IPv6 address by its /64) per SUBMISSIONS_RATE_WINDOW (0: no limit)',
  },
  {
    env: 'SUBMISSIONS_MAX_PER_EMAIL',
    flag: '--submissions-max-per-email',
    key: 'submissionsMaxPerEmail',
    type: 'integer',
    min: 0,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '5',
    description: 'submissions per e-mail address per SUBMISSIONS_RATE_WINDOW (0: no limit)',
  },
  {
    env: 'SUBMISSIONS_RATE_WINDOW',
    flag: '--submissions-rate-window',
    key: 'submissionsRateWindowMs',
    type: 'duration',
    scope: 'calendar',
    group: 'submissions',
    defaultText: '1h',
    description: 'the window of the two limits above (a duration)',
  },
  {
    env: 'SUBMISSIONS_MIN_FILL',
    flag: '--submissions-min-fill',
    key: 'submissionsMinFillMs',
    type: 'duration',
    min: 0,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '3s',
    description: 'the form must have been open this long before it is sent (a duration; 0 turns the check off)',
  },
  {
    env: 'SUBMISSIONS_MAX_DESCRIPTION',
    flag: '--submissions-max-description',
    key: 'submissionsMaxDescription',
    type: 'integer',
    unit: 'characters',
    min: 0,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '10000',
    description: 'the most characters of a submitted description',
  },
  {
    env: 'SUBMISSIONS_MAX_LINKS',
    flag: '--submissions-max-links',
    key: 'submissionsMaxLinks',
    type: 'integer',
    min: 0,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '5',
    description: "the most links in a submission's text fields together",
  },
  {
    env: 'SUBMISSIONS_NOTIFY',
    flag: '--submissions-notify',
    key: 'submissionsNotify',
    type: 'enum',
    choices: ['immediate', 'daily', 'off'],
    scope: 'calendar',
    group: 'submissions',
    defaultText: 'immediate',
    description: 'moderators hear of new submissions by e-mail: immediate, daily (a digest) or off',
  },
  {
    env: 'SUBMISSIONS_NOTIFY_TO',
    flag: '--submissions-notify-to',
    key: 'submissionsNotifyTo',
    type: 'emails',
    max: 50,
    scope: 'calendar',
    group: 'submissions',
    defaultText: '(none)',
    description: 'who hears of new submissions by e-mail: comma-separated addresses (unset: the editors and administrators with an e-mail address)',
  },
  {
    env: 'SUBMISSION_RETENTION_DAYS',
    flag: '--submission-retention-days',
    key: 'submissionRetentionDays',
    type: 'number',
    unit: 'days',
    scope: 'calendar',
    group: 'submissions',
    defaultText: '30',
    description: "days after the decision when a submitter's name, e-mail and address are erased",
  },
  {
    env: 'SMTP_URL',
    flag: '--smtp-url',
    key: 'smtpUrl',
    type: 'url',
    secret: true,
    group: 'mail',
    defaultText: '(none)',
    description: 'the SMTP server e-mails go through (smtp://user:pass@host:587, smtps://…); unset: no e-mail',
  },
  { env: 'SMTP_FROM', flag: '--smtp-from', key: 'smtpFrom', group: 'mail', defaultText: 'calendar@localhost', description: 'the sender of e-mails' },
  { env: 'MEDIA_DIR', flag: '--media-dir', key: 'mediaDir', group: 'server', defaultText: './data/media', description: 'the folder the media library keeps uploaded images in (local disk storage)' },
  {
    env: 'MEDIA_MAX_BYTES',
    flag: '--media-max-bytes',
    key: 'mediaMaxBytes',
    type: 'integer',
    unit: 'bytes',
    min: 1024,
    group: 'limits',
    defaultText: '10485760',
    description: 'the largest image upload accepted (media library, submissions); larger: 413',
  },
  {
    env: 'MEDIA_MAX_PIXELS',
    flag: '--media-max-pixels',
    key: 'mediaMaxPixels',
    type: 'integer',
    unit: 'pixels',
    min: 1,
    group: 'limits',
    defaultText: '40000000',
    description: 'the most pixels (width × height) an uploaded image may have; checked before it is decoded',
  },
  {
    env: 'MEDIA_S3_ENDPOINT',
    flag: '--media-s3-endpoint',
    key: 'mediaS3Endpoint',
    type: 'url',
    group: 'server',
    defaultText: '(none)',
    description: 'S3-compatible storage: the endpoint (https://s3.eu-west-1.amazonaws.com, a MinIO or R2 URL); path-style requests',
  },
  {
    env: 'MEDIA_S3_BUCKET',
    flag: '--media-s3-bucket',
    key: 'mediaS3Bucket',
    group: 'server',
    defaultText: '(none)',
    description: 'S3-compatible storage: the bucket; set, uploads go there instead of MEDIA_DIR',
  },
  { env: 'MEDIA_S3_REGION', flag: '--media-s3-region', key: 'mediaS3Region', group: 'server', defaultText: 'us-east-1', description: 'S3-compatible storage: the region requests are signed for' },
  { env: 'MEDIA_S3_ACCESS_KEY', flag: '--media-s3-access-key', key: 'mediaS3AccessKey', group: 'server', defaultText: '(none)', description: 'S3-compatible storage: the access key id' },
  {
    env: 'MEDIA_S3_SECRET_KEY',
    flag: '--media-s3-secret-key',
    key: 'mediaS3SecretKey',
    secret: true,
    group: 'server',
    defaultText: '(none)',
    description: 'S3-compatible storage: the secret access key',
  },
  {
    env: 'MEDIA_S3_PUBLIC_URL',
    flag: '--media-s3-public-url',
    key: 'mediaS3PublicUrl',
    type: 'url',
    group: 'server',
    defaultText: '(none)',
    description: "S3-compatible storage: where the bucket's objects can be read publicly (a CDN); unset: images are served through /media/ from the bucket",
  },
];

/** The settings administrators may change in the app (`scope: 'calendar'`). */
export const CALENDAR_SETTINGS: readonly Setting[] = SETTINGS.filter((s) => s.scope === 'calendar');

/** `a`, `a or b`, `a, b or c` */
function choiceList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * A calendar setting's value from its text (the environment's, a flag's, the database's or the
 * admin API's), checked by its declaration; a value it cannot use throws a `ConfigError` naming it.
 *
 * @example
 *   parseSetting(settingOf('SUBMISSIONS_RATE_WINDOW'), '2h') // 7200000
 */
export function parseSetting(s: Setting, raw: string): Config[keyof Config] {
  const text = raw.trim();
  switch (s.type ?? 'string') {
    case 'integer':
    case 'number': {
      const n = s.type === 'integer' ? positiveInt(s.env, text) : positiveNumber(s.env, text);
      if (s.min !== undefined && n < s.min) throw new ConfigError(`${s.env} must be at least ${s.min}, got "${raw}"`);
      if (s.max !== undefined && n > s.max) throw new ConfigError(`${s.env} must be at most ${s.max}, got "${raw}"`);
      return n;
    }
    case 'duration':
      return s.min === 0 && text === '0' ? 0 : durationMs(s.env, text);
    case 'durations':
      return text
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')
        .map((p) => durationMs(s.env, p));
    case 'enum': {
      const v = s.aliases?.[text.toLowerCase()] ?? text.toLowerCase();
      if (!s.choices?.includes(v)) throw new ConfigError(`${s.env} must be ${choiceList(s.choices ?? [])}, got "${raw}"`);
      return v;
    }
    case 'boolean':
      return flag(s.env, text, false);
    case 'timezone':
      if (!isValidTimezone(text)) throw new ConfigError(`${s.env} "${raw}" is not a known time zone (an IANA name such as Europe/Rome, or UTC+2)`);
      return text;
    case 'dateformat': {
      if (text === '') throw new ConfigError(`${s.env} must not be empty`);
      if (s.max !== undefined && text.length > s.max) throw new ConfigError(`${s.env} must be at most ${s.max} characters long`);
      const problem = phpFormatProblem(text);
      if (problem) throw new ConfigError(`${s.env} "${raw}" ${problem}`);
      return text;
    }
    case 'emails': {
      // Unset (the declared default's text) or blank: no list.
      const addresses =
        text === '(none)'
          ? []
          : text
              .split(',')
              .map((a) => a.trim())
              .filter((a) => a !== '');
      const wrong = addresses.find((a) => !isEmail(a));
      if (wrong !== undefined) throw new ConfigError(`${s.env}: "${wrong}" is not an e-mail address (like ann@example.org)`);
      if (s.max !== undefined && addresses.length > s.max) throw new ConfigError(`${s.env} lists at most ${s.max} addresses`);
      return addresses;
    }
    case 'icon':
      // Cleared: the shipped icon again.
      if (text === '') return s.defaultText;
      // A path on this site or an http(s) URL: never javascript: or data:, and no protocol-relative //host.
      if (text.length > (s.max ?? 2000)) throw new ConfigError(`${s.env} must be at most ${s.max ?? 2000} characters long`);
      if (!/^\/(?!\/)\S*$/.test(text) && !/^https?:\/\/[^\s/]+(\/\S*)?$/i.test(text)) throw new ConfigError(`${s.env} must be an http(s) URL or a path on this site starting with /, got "${raw}"`);
      return text;
    case 'string':
      if (text === '') throw new ConfigError(`${s.env} must not be empty`);
      if (s.max !== undefined && text.length > s.max) throw new ConfigError(`${s.env} must be at most ${s.max} characters long`);
      return text;
    default:
      throw new ConfigError(`${s.env} cannot be changed in the app`);
  }
}

/** The declaration of the setting read from this environment variable. */
export function settingOf(env: string): Setting | undefined {
  return SETTINGS.find((s) => s.env === env);
}

/**
 * Put calendar settings kept in the database into a running configuration: each one not pinned by
 * the environment or a flag (`config.sources`) takes the stored value, or its default when none is
 * stored. A stored value the server cannot use (written by a newer version) is skipped. Returns the
 * keys whose value changed.
 */
export function applyCalendarSettings(config: Config, stored: Record<string, string>): Array<keyof Config> {
  const changed: Array<keyof Config> = [];
  const target = config as unknown as Record<string, unknown>;
  for (const s of CALENDAR_SETTINGS) {
    if (config.sources?.[s.key] === 'environment' || config.sources?.[s.key] === 'flag') continue;
    let value: unknown;
    try {
      value = parseSetting(s, stored[s.env] ?? s.defaultText);
    } catch {
      continue;
    }
    // Lists compare by their items (a new array each time they are read).
    if (Array.isArray(value) ? JSON.stringify(target[s.key]) !== JSON.stringify(value) : target[s.key] !== value) {
      target[s.key] = value;
      changed.push(s.key);
    }
  }
  return changed;
}

/** What a secret shows where settings are shown. */
export const MASK = '********';

/**
 * Query and fragment parameters whose value is a secret: `password`, `pass`, `pwd`, `secret`,
 * `token`, `key`, `api_key`, `access_token`, `signature`, … (any name ending so, any case).
 */
const SECRET_PARAMETER = /(pass|passwd|password|pwd|secret|token|key|apikey|signature|sig|auth|credentials?)$/;

/** Where the user information of an authority (the text after `scheme://`) ends (its `@`), or -1. */
function userinfoEnd(rest: string): number {
  const hostEnd = rest.search(/[/?#]/);
  const authority = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  // The last `@` of the authority: a password may hold a raw `@` (postgres://u:p@ss@host/db).
  const at = authority.lastIndexOf('@');
  if (at >= 0) return at;
  // No `@` before the first `/`, `?` or `#`, yet the authority is no host[:port] and an `@` follows:
  // the password holds a raw `/`, `?` or `#` (u:p/ss@host); everything up to the last `@` is hidden.
  if (!/^(\[[^\]]*\]|[^:]*)(:\d*)?$/.test(authority)) return rest.lastIndexOf('@');
  return -1;
}

/** `a=1&password=x` → `a=1&password=********` (names compared decoded, in lower case). */
function maskParameters(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Not percent-encoded properly: compared as written.
      }
      return SECRET_PARAMETER.test(name.trim().toLowerCase().replace(/\[\]$/, '')) && eq < pair.length - 1 ? `${pair.slice(0, eq)}=${MASK}` : pair;
    })
    .join('&');
}

/**
 * A setting's value as it may be shown (the admin API's settings, logs, the CLI's output, error
 * messages): in a URL, the password of its user information and the values of secret query and
 * fragment parameters masked; any other text as it is. The one masking function of the service.
 *
 * @example
 *   maskUrl('postgres://app:p@ss@db/calendar?sslpassword=x') // 'postgres://app:********@db/calendar?sslpassword=********'
 *   maskUrl('smtp://mail:s3cret@smtp.example.org:587')         // 'smtp://mail:********@smtp.example.org:587'
 */
export function maskUrl(text: string): string {
  // After `scheme://` (or `//`) comes the authority; a value without it may still be `user:password@host…`
  // (a URL missing its scheme), told from plain text by having no white space before the `@`.
  const scheme = /^([a-z][a-z0-9+.-]*:)?\/\//i.exec(text);
  let out = scheme ? scheme[0] : '';
  let rest = text.slice(out.length);
  const end = userinfoEnd(rest);
  const userinfo = end >= 0 ? rest.slice(0, end) : '';
  if (end >= 0 && (scheme || !/\s/.test(userinfo))) {
    const colon = userinfo.indexOf(':');
    out += (colon >= 0 && colon < userinfo.length - 1 ? `${userinfo.slice(0, colon)}:${MASK}` : userinfo) + '@';
    rest = rest.slice(end + 1);
  }
  const q = rest.search(/[?#]/);
  if (q < 0) return out + rest;
  out += rest.slice(0, q);
  rest = rest.slice(q);
  // The query (up to `#`) and the fragment, each as parameters.
  return out + rest.replace(/([?#])([^#]*)/g, (_, mark: string, params: string) => mark + maskParameters(params));
}

/** `500ms`, `5s`, `1.5m`, `2h` (a bare number is seconds) → milliseconds. */
function durationMs(name: string, raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
  const n = m ? Math.round(Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[(m[2] ?? 's').toLowerCase()]!) : NaN;
  if (!Number.isFinite(n) || n < 1) throw new ConfigError(`${name} must be a duration such as 500ms, 5s, 5m or 2h, got "${raw}"`);
  return n;
}

/** A positive decimal number (SYNC_HISTORY_DAYS). */
function positiveNumber(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** pino's levels, and `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `60`, `30s`, `5m`, `1h` → seconds. */
function durationSeconds(name: string, raw: string): number {
  const m = /^\s*(\d+)\s*(s|m|h)?\s*$/i.exec(raw);
  const n = m ? Number(m[1]) * ({ s: 1, m: 60, h: 3600 } as Record<string, number>)[(m[2] ?? 's').toLowerCase()]! : NaN;
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a duration such as 60, 30s, 5m or 1h, got "${raw}"`);
  return n;
}

/** TRUST_PROXY: true/false, a hop count, or a comma-separated list of addresses and CIDRs. */
function trustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined) return false;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  if (/^\d+$/.test(v)) return Number(v);
  const list = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const item of list) {
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 4 ? 32 : 128;
    if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or comma-separated addresses/CIDRs, got "${item}"`);
    }
  }
  return list;
}

/** CORS_ORIGINS: `*` (or unset) for any origin, else a list of `scheme://host[:port]` origins. */
function corsOrigins(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '*') return undefined;
  const out: string[] = [];
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
      throw new ConfigError(`CORS_ORIGINS must be * or comma-separated origins like https://example.org, got "${item}"`);
    }
    const origin = url.origin;
    if (!out.includes(origin)) out.push(origin);
  }
  return out;
}

/** A namespace as WordPress registers them: `vendor/name/v1` style segments, no leading or trailing slash. */
const NAMESPACE_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/;

function namespaceAliases(raw: string | undefined): string[] {
  if (raw === undefined) return [ORIGINAL_NAMESPACE];
  const out: string[] = [];
  for (const part of raw.split(',')) {
    const ns = part.trim().replace(/^\/+|\/+$/g, '');
    if (ns === '') continue;
    if (!NAMESPACE_PATTERN.test(ns)) throw new ConfigError(`NAMESPACE_ALIASES: "${part.trim()}" is not a namespace like tribe/events/v1`);
    if (ns !== NAMESPACE && !out.includes(ns)) out.push(ns);
  }
  return out;
}

function flag(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** Raised for a setting that cannot be used; the CLI prints it and exits 2. */
export class ConfigError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/**
 * CALENDAR_ADMIN_PASSWORD_FILE: the administrator password read from a file (a container secret),
 * so that it is not in the environment; one trailing newline is dropped.
 */
function passwordFile(env: NodeJS.ProcessEnv): string {
  const file = env.CALENDAR_ADMIN_PASSWORD_FILE!;
  if (env.CALENDAR_ADMIN_PASSWORD) throw new ConfigError('set CALENDAR_ADMIN_PASSWORD or CALENDAR_ADMIN_PASSWORD_FILE, not both');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`CALENDAR_ADMIN_PASSWORD_FILE: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (!password) throw new ConfigError(`CALENDAR_ADMIN_PASSWORD_FILE: ${file} is empty`);
  return password;
}

/**
 * Build the configuration from environment variables, with `overrides` (from flags, keyed by
 * Config key, as strings) taking precedence.
 *
 * @example loadConfig({ PORT: '0', DATABASE_URL: 'sqlite::memory:' })
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Config, string>> = {}): Config {
  const sources: NonNullable<Config['sources']> = {};
  const pick = (key: keyof Config, envName: string): string | undefined => {
    const v = overrides[key] ?? env[envName];
    if (v === undefined || v === '') return undefined;
    sources[key] = overrides[key] !== undefined ? 'flag' : 'environment';
    return String(v);
  };
  // A setting read and checked as its declaration says (type, bounds, default).
  const declared = <K extends keyof Config>(key: K): Config[K] => declaredSetting(pick, key);
  const port = declared('port');
  const host = pick('host', 'HOST') ?? '127.0.0.1';
  let restRoot = pick('restRoot', 'REST_ROOT') ?? '/api';
  if (!restRoot.startsWith('/')) restRoot = '/' + restRoot;
  restRoot = restRoot.replace(/\/+$/, '');
  const siteUrl = (pick('siteUrl', 'SITE_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(siteUrl);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute URL, got "${maskUrl(siteUrl)}"`);
  }
  const maxPerPage = declared('maxPerPage');
  const icalMaxEvents = declared('icalMaxEvents');
  const caldavMaxEvents = declared('caldavMaxEvents');
  const databaseTimeoutMs = declared('databaseTimeoutMs');
  const headersTimeoutMs = declared('headersTimeoutMs');
  const requestTimeoutMs = declared('requestTimeoutMs');
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be larger than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  // Declared in MB (as set and shown), kept in bytes.
  const responseMemoryMb = declared('responseMemoryBytes');
  const geolocRadiusText = pick('geolocRadius', 'GEOLOC_RADIUS') ?? '25';
  const geolocRadius = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(geolocRadiusText) ? Number(geolocRadiusText) : NaN;
  if (!(geolocRadius > 0) || !Number.isFinite(geolocRadius)) throw new ConfigError(`GEOLOC_RADIUS must be a positive number, got "${geolocRadiusText}"`);
  const geolocUnit = declared('geolocUnit');
  const recurrenceHorizonMonths = declared('recurrenceHorizonMonths');
  const adminUser = pick('adminUser', 'CALENDAR_ADMIN_USER');
  const adminPassword =
    overrides.adminPassword || env.CALENDAR_ADMIN_PASSWORD_FILE === undefined || env.CALENDAR_ADMIN_PASSWORD_FILE === '' ? pick('adminPassword', 'CALENDAR_ADMIN_PASSWORD') : passwordFile(env);
  const adminEmail = pick('adminEmail', 'CALENDAR_ADMIN_EMAIL')?.trim() || undefined;
  if (adminEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(adminEmail)) throw new ConfigError(`CALENDAR_ADMIN_EMAIL "${adminEmail}" is not an e-mail address`);
  if (adminUser !== undefined && adminPassword === undefined) throw new ConfigError('CALENDAR_ADMIN_USER is set but CALENDAR_ADMIN_PASSWORD is not');
  if (adminPassword !== undefined && adminUser === undefined) throw new ConfigError('CALENDAR_ADMIN_PASSWORD is set but CALENDAR_ADMIN_USER is not');
  const timezone = declaredSetting(pick, 'timezone');
  let adminPath = (pick('adminPath', 'ADMIN_PATH') ?? '/admin').replace(/\/+$/, '');
  if (!adminPath.startsWith('/')) adminPath = '/' + adminPath;
  if (adminPath === '/' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(adminPath)) throw new ConfigError(`ADMIN_PATH must be a path such as /admin, got "${adminPath}"`);
  const adminRequire2fa = declared('adminRequire2fa');
  const secretKey = pick('secretKey', 'SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) throw new ConfigError('SECRET_KEY must be at least 32 characters long');
  if (env.CALENDAR_ADMIN_PASSWORD_FILE && !overrides.adminPassword) sources.adminPassword = 'environment';
  if (overrides.namespaceAliases !== undefined) sources.namespaceAliases = 'flag';
  else if (env.NAMESPACE_ALIASES !== undefined) sources.namespaceAliases = 'environment';
  const federationHandle = (pick('federationHandle', 'FEDERATION_HANDLE') ?? 'events').trim();
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(federationHandle)) throw new ConfigError(`FEDERATION_HANDLE must be letters, digits, _ . or -, got "${federationHandle}"`);
  const federationIconUrl = pick('federationIconUrl', 'FEDERATION_ICON_URL');
  if (federationIconUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(federationIconUrl)) throw new ConfigError(`FEDERATION_ICON_URL must be an http(s) URL, got "${maskUrl(federationIconUrl)}"`);
  const logLevel = (pick('logLevel', 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  return {
    port,
    host,
    databaseUrl: pick('databaseUrl', 'DATABASE_URL') ?? 'sqlite:./data/calendar.db',
    restRoot,
    siteUrl,
    timezone,
    adminUser,
    adminPassword,
    ...(adminEmail !== undefined ? { adminEmail } : {}),
    maxPerPage,
    defaultPerPage: Math.min(10, maxPerPage),
    logLevel,
    // An empty NAMESPACE_ALIASES turns the aliases off, so it is read apart from `pick` (which treats '' as unset).
    namespaceAliases: namespaceAliases(overrides.namespaceAliases ?? env.NAMESPACE_ALIASES),
    jsonp: declared('jsonp'),
    metrics: declared('metrics'),
    metricsToken: pick('metricsToken', 'METRICS_TOKEN'),
    slowRequestLogMs: declared('slowRequestLogMs'),
    warmUp: declared('warmUp'),
    replayAnswers: declared('replayAnswers'),
    rateLimitMax: declared('rateLimitMax'),
    rateLimitWindow: durationSeconds('RATE_LIMIT_WINDOW', pick('rateLimitWindow', 'RATE_LIMIT_WINDOW') ?? '60'),
    loginMaxFailures: declared('loginMaxFailures'),
    trustProxy: trustProxy(pick('trustProxy', 'TRUST_PROXY')),
    corsOrigins: corsOrigins(pick('corsOrigins', 'CORS_ORIGINS')),
    databaseTimeoutMs,
    shutdownTimeoutMs: declared('shutdownTimeoutMs'),
    siteName: declaredSetting(pick, 'siteName'),
    siteIcon: declaredSetting(pick, 'siteIcon'),
    weekStart: declaredSetting(pick, 'weekStart'),
    currencySymbol: declaredSetting(pick, 'currencySymbol'),
    currencyPosition: declaredSetting(pick, 'currencyPosition'),
    dateFormat: declaredSetting(pick, 'dateFormat'),
    timeFormat: declaredSetting(pick, 'timeFormat'),
    eventsPerPage: declaredSetting(pick, 'eventsPerPage'),
    defaultView: declaredSetting(pick, 'defaultView'),
    listSeriesOnce: declaredSetting(pick, 'listSeriesOnce'),
    icalMaxEvents,
    caldavMaxEvents,
    headersTimeoutMs,
    requestTimeoutMs,
    responseMemoryBytes: responseMemoryMb * 1024 * 1024,
    cacheMaxAge: declared('cacheMaxAge'),
    syncHistoryDays: declared('syncHistoryDays'),
    syncMaxChanges: Math.max(1, positiveInt('SYNC_MAX_CHANGES', pick('syncMaxChanges', 'SYNC_MAX_CHANGES') ?? '1000')),
    webhooksAllowPrivate: declared('webhooksAllowPrivate'),
    webhooksRetrySchedule: declared('webhooksRetrySchedule'),
    webhooksDisableAfterMs: declared('webhooksDisableAfterMs'),
    webhooksTimeoutMs: declared('webhooksTimeoutMs'),
    importMaxBytes: Math.max(1024, positiveInt('IMPORT_MAX_BYTES', pick('importMaxBytes', 'IMPORT_MAX_BYTES') ?? String(DEFAULT_IMPORT_MAX_BYTES))),
    geolocRadius,
    geolocUnit,
    recurrenceHorizonMonths,
    adminPath,
    sessionIdleMs: declared('sessionIdleMs'),
    sessionMaxAgeMs: declared('sessionMaxAgeMs'),
    adminRequire2fa,
    passwordMinLength: declared('passwordMinLength'),
    passwordMinStrength: declared('passwordMinStrength'),
    invitationExpiryMs: declared('invitationExpiryMs'),
    passwordResetExpiryMs: declared('passwordResetExpiryMs'),
    passwordResetLimit: declared('passwordResetLimit'),
    reviewNotify: declared('reviewNotify'),
    ...(secretKey !== undefined ? { secretKey } : {}),
    sources,
    federation: declared('federation'),
    federationHandle,
    federationApproveFollows: declared('federationApproveFollows'),
    federationKeepActivities: declared('federationKeepActivities'),
    federationBlockedDomains: (pick('federationBlockedDomains', 'FEDERATION_BLOCKED_DOMAINS') ?? '')
      .split(',')
      .map((d) =>
        d
          .trim()
          .toLowerCase()
          .replace(/^\.+|\.+$/g, ''),
      )
      .filter((d) => d !== ''),
    federationAllowPrivate: declared('federationAllowPrivate'),
    federationMaxBodyBytes: Math.max(1024, positiveInt('FEDERATION_MAX_BODY_BYTES', pick('federationMaxBodyBytes', 'FEDERATION_MAX_BODY_BYTES') ?? '262144')),
    federationClockSkewMs: declared('federationClockSkewMs'),
    federationInboxRateLimit: declared('federationInboxRateLimit'),
    federationRetrySchedule: declared('federationRetrySchedule'),
    federationIconUrl,
    ...submissionSettings(pick),
    ...mediaSettings(pick),
  };
}

/** The media library's settings (docs/media.md): local folder or S3-compatible bucket, limits. */
function mediaSettings(
  pick: (key: keyof Config, envName: string) => string | undefined,
): Pick<Config, 'mediaDir' | 'mediaMaxBytes' | 'mediaMaxPixels' | 'mediaS3Endpoint' | 'mediaS3Bucket' | 'mediaS3Region' | 'mediaS3AccessKey' | 'mediaS3SecretKey' | 'mediaS3PublicUrl'> {
  const optional = (key: keyof Config, env: string): string | undefined => {
    const v = pick(key, env)?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const endpoint = optional('mediaS3Endpoint', 'MEDIA_S3_ENDPOINT');
  const bucket = optional('mediaS3Bucket', 'MEDIA_S3_BUCKET');
  const publicUrl = optional('mediaS3PublicUrl', 'MEDIA_S3_PUBLIC_URL');
  const accessKey = optional('mediaS3AccessKey', 'MEDIA_S3_ACCESS_KEY');
  const secretKey = optional('mediaS3SecretKey', 'MEDIA_S3_SECRET_KEY');
  for (const [name, url] of [
    ['MEDIA_S3_ENDPOINT', endpoint],
    ['MEDIA_S3_PUBLIC_URL', publicUrl],
  ] as const) {
    if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) throw new ConfigError(`${name} must be an http(s) URL, got "${maskUrl(url)}"`);
  }
  if (bucket !== undefined && (endpoint === undefined || accessKey === undefined || secretKey === undefined)) {
    throw new ConfigError('MEDIA_S3_BUCKET needs MEDIA_S3_ENDPOINT, MEDIA_S3_ACCESS_KEY and MEDIA_S3_SECRET_KEY');
  }
  const mediaDir = optional('mediaDir', 'MEDIA_DIR') ?? './data/media';
  return {
    mediaDir,
    mediaMaxBytes: declaredSetting(pick, 'mediaMaxBytes'),
    mediaMaxPixels: declaredSetting(pick, 'mediaMaxPixels'),
    mediaS3Region: optional('mediaS3Region', 'MEDIA_S3_REGION') ?? 'us-east-1',
    ...(endpoint !== undefined ? { mediaS3Endpoint: endpoint.replace(/\/+$/, '') } : {}),
    ...(bucket !== undefined ? { mediaS3Bucket: bucket } : {}),
    ...(accessKey !== undefined ? { mediaS3AccessKey: accessKey } : {}),
    ...(secretKey !== undefined ? { mediaS3SecretKey: secretKey } : {}),
    ...(publicUrl !== undefined ? { mediaS3PublicUrl: publicUrl.replace(/\/+$/, '') } : {}),
  };
}

/**
 * A setting from the environment or a flag (unset: its default), read and checked as its
 * declaration says; a calendar setting given blank takes its default too.
 */
function declaredSetting<K extends keyof Config>(pick: (key: keyof Config, envName: string) => string | undefined, key: K): Config[K] {
  const s = SETTINGS.find((d) => d.key === key)!;
  const raw = pick(key, s.env);
  return parseSetting(s, raw === undefined || (s.scope === 'calendar' && raw.trim() === '') ? s.defaultText : raw) as Config[K];
}

/** The submission settings (issue 29): their checks, with `pick` (flags over the environment). */
function submissionSettings(
  pick: (key: keyof Config, envName: string) => string | undefined,
): Pick<
  Config,
  | 'submissions'
  | 'submissionsPow'
  | 'submissionsPowMaxNumber'
  | 'submissionsMaxPerAddress'
  | 'submissionsMaxPerEmail'
  | 'submissionsRateWindowMs'
  | 'submissionsMinFillMs'
  | 'submissionsMaxDescription'
  | 'submissionsMaxLinks'
  | 'submissionsNotify'
  | 'submissionsNotifyTo'
  | 'submissionRetentionDays'
  | 'smtpUrl'
  | 'smtpFrom'
> {
  const mode = declaredSetting(pick, 'submissions');
  const smtpUrl = pick('smtpUrl', 'SMTP_URL')?.trim();
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  const powMaxNumber = declaredSetting(pick, 'submissionsPowMaxNumber');
  return {
    submissions: mode,
    submissionsPow: declaredSetting(pick, 'submissionsPow'),
    submissionsPowMaxNumber: powMaxNumber,
    submissionsMaxPerAddress: declaredSetting(pick, 'submissionsMaxPerAddress'),
    submissionsMaxPerEmail: declaredSetting(pick, 'submissionsMaxPerEmail'),
    submissionsRateWindowMs: declaredSetting(pick, 'submissionsRateWindowMs'),
    submissionsMinFillMs: declaredSetting(pick, 'submissionsMinFillMs'),
    submissionsMaxDescription: declaredSetting(pick, 'submissionsMaxDescription'),
    submissionsMaxLinks: declaredSetting(pick, 'submissionsMaxLinks'),
    submissionsNotify: declaredSetting(pick, 'submissionsNotify'),
    submissionsNotifyTo: declaredSetting(pick, 'submissionsNotifyTo'),
    submissionRetentionDays: declaredSetting(pick, 'submissionRetentionDays'),
    ...(smtpUrl !== undefined ? { smtpUrl } : {}),
    smtpFrom: pick('smtpFrom', 'SMTP_FROM')?.trim() ?? 'calendar@localhost',
  };
}
