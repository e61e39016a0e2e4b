/**
 * Service configuration: every variable of COMPAT.md's table, read from the environment and
 * overridable by command-line flags (see `events-calendar serve --help`). The settings are
 * declared once, in settings/ (service.ts, calendar.ts, people-and-faces.ts: `SETTINGS` below is
 * them in order); this module reads and checks them.
 *
 * @example
 *   const config = loadConfig(process.env, { port: '9000' });
 *   config.restRoot // '/api'
 */
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { isValidTimezone } from './domain/dates/zones.js';
import { phpFormatProblem } from './domain/php-date.js';
import { isEmail } from './domain/email-address.js';
import type { Config } from './settings/config.js';
import type { Setting } from './settings/setting.js';
import { SERVICE_SETTINGS } from './settings/service.js';
import { CALENDAR_AND_ANSWER_SETTINGS } from './settings/calendar.js';
import { PEOPLE_AND_FACE_SETTINGS } from './settings/people-and-faces.js';

export type { Config } from './settings/config.js';

/** IMPORT_MAX_BYTES' default: 10 MiB, as the admin API's uploads. */
export const DEFAULT_IMPORT_MAX_BYTES = 10 * 1024 * 1024;

/** The namespace every route lives under. */
export const NAMESPACE = 'calendar/events/v1';

/** The original's namespace, the default alias. */
export const ORIGINAL_NAMESPACE = 'tribe/events/v1';

/** Ours: the embedding namespace (the FullCalendar event source), public reads from any origin. */
export const EMBED_NAMESPACE = 'calendar/embed/v1';

/** WordPress' REST root, always answering as a REST root beside REST_ROOT. */
export const WORDPRESS_REST_ROOT = '/wp-json';

export type { Setting, SettingScope, SettingType } from './settings/setting.js';

/** The settings table; `--help` and the README print it. */
export const SETTINGS: Setting[] = [...SERVICE_SETTINGS, ...CALENDAR_AND_ANSWER_SETTINGS, ...PEOPLE_AND_FACE_SETTINGS];

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
  // The write worker opens the database again in its own thread: an in-memory database is one connection's own.
  if (declared('writeWorker') && /^sqlite::memory:/.test(pick('databaseUrl', 'DATABASE_URL') ?? ''))
    throw new ConfigError('WRITE_WORKER needs a database file (sqlite:PATH) or PostgreSQL: sqlite::memory: cannot be opened by a second thread');
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
    tecV1Acknowledgement: declared('tecV1Acknowledgement'),
    metrics: declared('metrics'),
    metricsToken: pick('metricsToken', 'METRICS_TOKEN'),
    slowRequestLogMs: declared('slowRequestLogMs'),
    warmUp: declared('warmUp'),
    replayAnswers: declared('replayAnswers'),
    writeWorker: declared('writeWorker'),
    writeWorkerNice: declared('writeWorkerNice'),
    rateLimitMax: declared('rateLimitMax'),
    rateLimitWindow: durationSeconds('RATE_LIMIT_WINDOW', pick('rateLimitWindow', 'RATE_LIMIT_WINDOW') ?? '60'),
    calendarQuotaEvents: declared('calendarQuotaEvents'),
    calendarQuotaMediaMb: declared('calendarQuotaMediaMb'),
    calendarQuotaRequestsPerMinute: declared('calendarQuotaRequestsPerMinute'),
    calendarQuotaWebhookEndpoints: declared('calendarQuotaWebhookEndpoints'),
    calendarQuotaSubmissionsPerDay: declared('calendarQuotaSubmissionsPerDay'),
    calendarQuotaSyncHistoryDays: declared('calendarQuotaSyncHistoryDays'),
    calendarFairShare: declared('calendarFairShare'),
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
    importSliceMs: declared('importSliceMs'),
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
    mcp: declared('mcp'),
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

/** The submission settings: their checks, with `pick` (flags over the environment). */
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
