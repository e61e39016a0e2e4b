/**
 * Service configuration: every variable of COMPAT.md's table, read from the environment and
 * overridable by command-line flags (see `events-calendar serve --help`).
 *
 * @example
 *   const config = loadConfig(process.env, { port: '9000' });
 *   config.restRoot // '/api'
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
  maxPerPage: number;
  /** Default `per_page` of every list (the WordPress `posts_per_page` option) */
  defaultPerPage: number;
  logLevel: string;
  /** How long to wait for the database: a PostgreSQL connection attempt, a SQLite lock (ms). */
  databaseTimeoutMs: number;
}

/** The namespace every route lives under. */
export const NAMESPACE = 'calendar/events/v1';

/** One documented setting: its environment variable, CLI flag, default and meaning. */
export interface Setting {
  env: string;
  flag: string;
  key: keyof Config;
  defaultText: string;
  description: string;
}

/** The settings table; `--help` and the README print it. */
export const SETTINGS: Setting[] = [
  { env: 'PORT', flag: '--port', key: 'port', defaultText: '8080', description: 'TCP port to listen on' },
  { env: 'HOST', flag: '--host', key: 'host', defaultText: '127.0.0.1', description: 'address to listen on' },
  {
    env: 'DATABASE_URL',
    flag: '--database-url',
    key: 'databaseUrl',
    defaultText: 'sqlite:./data/calendar.db',
    description: 'sqlite:PATH, sqlite::memory: (fresh, empty) or postgres://user@host:port/db',
  },
  { env: 'REST_ROOT', flag: '--rest-root', key: 'restRoot', defaultText: '/api', description: 'REST root; routes live at {REST_ROOT}/calendar/events/v1/...' },
  { env: 'SITE_URL', flag: '--site-url', key: 'siteUrl', defaultText: 'http://HOST:PORT', description: 'base of public permalinks and REST URLs in responses' },
  { env: 'CALENDAR_TIMEZONE', flag: '--timezone', key: 'timezone', defaultText: 'UTC', description: 'site time zone (IANA name, or UTC+N)' },
  { env: 'CALENDAR_ADMIN_USER', flag: '--admin-user', key: 'adminUser', defaultText: 'unset', description: 'with CALENDAR_ADMIN_PASSWORD: administrator created (or password reset) at start-up' },
  { env: 'CALENDAR_ADMIN_PASSWORD', flag: '--admin-password', key: 'adminPassword', defaultText: 'unset', description: 'password of CALENDAR_ADMIN_USER' },
  { env: 'MAX_PER_PAGE', flag: '--max-per-page', key: 'maxPerPage', defaultText: '50', description: 'upper bound of per_page on every list' },
  { env: 'LOG_LEVEL', flag: '--log-level', key: 'logLevel', defaultText: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  {
    env: 'DATABASE_TIMEOUT_MS',
    flag: '--database-timeout-ms',
    key: 'databaseTimeoutMs',
    defaultText: '3000',
    description: 'how long to wait for the database (PostgreSQL connection attempt, SQLite lock) before answering 503',
  },
];

/** Raised for a setting that cannot be used; the CLI prints it and exits 2. */
export class ConfigError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/**
 * Build the configuration from environment variables, with `overrides` (from flags, keyed by
 * Config key, as strings) taking precedence.
 *
 * @example loadConfig({ PORT: '0', DATABASE_URL: 'sqlite::memory:' })
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Config, string>> = {}): Config {
  const pick = (key: keyof Config, envName: string): string | undefined => {
    const v = overrides[key] ?? env[envName];
    return v === undefined || v === '' ? undefined : String(v);
  };
  const port = positiveInt('PORT', pick('port', 'PORT') ?? '8080');
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got ${port}`);
  const host = pick('host', 'HOST') ?? '127.0.0.1';
  let restRoot = pick('restRoot', 'REST_ROOT') ?? '/api';
  if (!restRoot.startsWith('/')) restRoot = '/' + restRoot;
  restRoot = restRoot.replace(/\/+$/, '');
  const siteUrl = (pick('siteUrl', 'SITE_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(siteUrl);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute URL, got "${siteUrl}"`);
  }
  const maxPerPage = positiveInt('MAX_PER_PAGE', pick('maxPerPage', 'MAX_PER_PAGE') ?? '50');
  if (maxPerPage < 1) throw new ConfigError('MAX_PER_PAGE must be at least 1');
  const databaseTimeoutMs = positiveInt('DATABASE_TIMEOUT_MS', pick('databaseTimeoutMs', 'DATABASE_TIMEOUT_MS') ?? '3000');
  if (databaseTimeoutMs < 1) throw new ConfigError('DATABASE_TIMEOUT_MS must be at least 1');
  const adminUser = pick('adminUser', 'CALENDAR_ADMIN_USER');
  const adminPassword = pick('adminPassword', 'CALENDAR_ADMIN_PASSWORD');
  return {
    port,
    host,
    databaseUrl: pick('databaseUrl', 'DATABASE_URL') ?? 'sqlite:./data/calendar.db',
    restRoot,
    siteUrl,
    timezone: pick('timezone', 'CALENDAR_TIMEZONE') ?? 'UTC',
    adminUser,
    adminPassword,
    maxPerPage,
    defaultPerPage: Math.min(10, maxPerPage),
    logLevel: pick('logLevel', 'LOG_LEVEL') ?? 'info',
    databaseTimeoutMs,
  };
}
