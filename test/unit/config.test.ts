import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { CALENDAR_SETTINGS, ConfigError, loadConfig, SETTINGS } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'sqlite:./data/calendar.db');
    assert.equal(c.restRoot, '/api');
    assert.equal(c.siteUrl, 'http://127.0.0.1:8080');
    assert.equal(c.timezone, 'UTC');
    assert.equal(c.maxPerPage, 50);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.adminUser, undefined);
    assert.equal(c.geolocRadius, 25);
    assert.equal(c.recurrenceHorizonMonths, 60);
    assert.equal(loadConfig({ RECURRENCE_HORIZON_MONTHS: '12' }).recurrenceHorizonMonths, 12);
    assert.equal(c.geolocUnit, 'mi');
    assert.equal(loadConfig({ GEOLOC_RADIUS: '40.5', GEOLOC_UNIT: 'KM' }).geolocRadius, 40.5);
    assert.equal(loadConfig({ GEOLOC_RADIUS: '40.5', GEOLOC_UNIT: 'KM' }).geolocUnit, 'km');
  });
  it('reads every variable of the COMPAT table, flags winning over the environment', () => {
    const c = loadConfig(
      {
        PORT: '9000',
        HOST: '0.0.0.0',
        DATABASE_URL: 'sqlite::memory:',
        REST_ROOT: 'wp-json/',
        SITE_URL: 'https://cal.example/',
        CALENDAR_TIMEZONE: 'Europe/Rome',
        CALENDAR_ADMIN_USER: 'a',
        CALENDAR_ADMIN_PASSWORD: 'b',
        MAX_PER_PAGE: '20',
        LOG_LEVEL: 'warn',
      },
      { port: '9100' },
    );
    assert.equal(c.port, 9100);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.restRoot, '/wp-json');
    assert.equal(c.siteUrl, 'https://cal.example');
    assert.equal(c.timezone, 'Europe/Rome');
    assert.equal(c.adminUser, 'a');
    assert.equal(c.adminPassword, 'b');
    assert.equal(c.maxPerPage, 20);
    assert.equal(c.logLevel, 'warn');
    assert.deepEqual(
      SETTINGS.map((s) => s.env),
      [
        'PORT',
        'HOST',
        'DATABASE_URL',
        'REST_ROOT',
        'SITE_URL',
        'CALENDAR_TIMEZONE',
        'CALENDAR_ADMIN_USER',
        'CALENDAR_ADMIN_PASSWORD',
        'CALENDAR_ADMIN_EMAIL',
        'MAX_PER_PAGE',
        'LOG_LEVEL',
        'NAMESPACE_ALIASES',
        'JSONP',
        'TEC_V1_ACKNOWLEDGEMENT',
        'METRICS',
        'METRICS_TOKEN',
        'SLOW_REQUEST_LOG_MS',
        'WARM_UP',
        'REPLAY_ANSWERS',
        'WRITE_WORKER',
        'WRITE_WORKER_NICE',
        'RATE_LIMIT_MAX',
        'RATE_LIMIT_WINDOW',
        'CALENDAR_QUOTA_EVENTS',
        'CALENDAR_QUOTA_MEDIA_MB',
        'CALENDAR_QUOTA_REQUESTS_PER_MINUTE',
        'CALENDAR_QUOTA_WEBHOOK_ENDPOINTS',
        'CALENDAR_QUOTA_SUBMISSIONS_PER_DAY',
        'CALENDAR_QUOTA_SYNC_HISTORY_DAYS',
        'CALENDAR_FAIR_SHARE',
        'LOGIN_MAX_FAILURES',
        'TRUST_PROXY',
        'CORS_ORIGINS',
        'DATABASE_TIMEOUT_MS',
        'SHUTDOWN_TIMEOUT_MS',
        'SITE_NAME',
        'SITE_ICON',
        'CALENDAR_WEEK_START',
        'CALENDAR_CURRENCY_SYMBOL',
        'CALENDAR_CURRENCY_POSITION',
        'CALENDAR_DATE_FORMAT',
        'CALENDAR_TIME_FORMAT',
        'CALENDAR_EVENTS_PER_PAGE',
        'CALENDAR_DEFAULT_VIEW',
        'LIST_SERIES_ONCE',
        'ICAL_MAX_EVENTS',
        'CALDAV_MAX_EVENTS',
        'HEADERS_TIMEOUT_MS',
        'REQUEST_TIMEOUT_MS',
        'RESPONSE_MEMORY_MB',
        'CACHE_MAX_AGE',
        'SYNC_HISTORY_DAYS',
        'SYNC_MAX_CHANGES',
        'WEBHOOKS_ALLOW_PRIVATE',
        'WEBHOOKS_RETRY_SCHEDULE',
        'WEBHOOKS_DISABLE_AFTER',
        'WEBHOOKS_TIMEOUT',
        'IMPORT_MAX_BYTES',
        'IMPORT_SLICE',
        'GEOLOC_RADIUS',
        'GEOLOC_UNIT',
        'RECURRENCE_HORIZON_MONTHS',
        'ADMIN_PATH',
        'SESSION_IDLE',
        'SESSION_MAX_AGE',
        'ADMIN_REQUIRE_2FA',
        'PASSWORD_MIN_LENGTH',
        'PASSWORD_MIN_STRENGTH',
        'INVITATION_EXPIRY',
        'PASSWORD_RESET_EXPIRY',
        'PASSWORD_RESET_LIMIT',
        'REVIEW_NOTIFY',
        'SECRET_KEY',
        'FEDERATION',
        'FEDERATION_HANDLE',
        'FEDERATION_APPROVE_FOLLOWS',
        'FEDERATION_KEEP_ACTIVITIES',
        'FEDERATION_BLOCKED_DOMAINS',
        'FEDERATION_ALLOW_PRIVATE_ADDRESSES',
        'FEDERATION_MAX_BODY_BYTES',
        'FEDERATION_CLOCK_SKEW',
        'FEDERATION_INBOX_RATE_LIMIT',
        'FEDERATION_ICON_URL',
        'FEDERATION_RETRY_SCHEDULE',
        'MCP',
        'SUBMISSIONS',
        'SUBMISSIONS_POW',
        'SUBMISSIONS_POW_MAX_NUMBER',
        'SUBMISSIONS_MAX_PER_ADDRESS',
        'SUBMISSIONS_MAX_PER_EMAIL',
        'SUBMISSIONS_RATE_WINDOW',
        'SUBMISSIONS_MIN_FILL',
        'SUBMISSIONS_MAX_DESCRIPTION',
        'SUBMISSIONS_MAX_LINKS',
        'SUBMISSIONS_NOTIFY',
        'SUBMISSIONS_NOTIFY_TO',
        'SUBMISSION_RETENTION_DAYS',
        'SMTP_URL',
        'SMTP_FROM',
        'MEDIA_DIR',
        'MEDIA_MAX_BYTES',
        'MEDIA_MAX_PIXELS',
        'MEDIA_S3_ENDPOINT',
        'MEDIA_S3_BUCKET',
        'MEDIA_S3_REGION',
        'MEDIA_S3_ACCESS_KEY',
        'MEDIA_S3_SECRET_KEY',
        'MEDIA_S3_PUBLIC_URL',
      ],
    );
  });
  it('reads NAMESPACE_ALIASES (default the original namespace, "" none, comma-separated) and JSONP, flags winning', () => {
    assert.deepEqual(loadConfig({}).namespaceAliases, ['tribe/events/v1']);
    assert.deepEqual(loadConfig({ NAMESPACE_ALIASES: '' }).namespaceAliases, []);
    assert.deepEqual(loadConfig({ NAMESPACE_ALIASES: ' /tribe/events/v1/ , old/v2,tribe/events/v1,calendar/events/v1' }).namespaceAliases, ['tribe/events/v1', 'old/v2']);
    assert.deepEqual(loadConfig({ NAMESPACE_ALIASES: 'old/v2' }, { namespaceAliases: '' }).namespaceAliases, []);
    assert.deepEqual(loadConfig({}, { namespaceAliases: 'old/v2' }).namespaceAliases, ['old/v2']);
    assert.equal(loadConfig({}).jsonp, true);
    assert.equal(loadConfig({ JSONP: 'false' }).jsonp, false);
    assert.equal(loadConfig({ JSONP: '0' }).jsonp, false);
    assert.equal(loadConfig({ JSONP: 'false' }, { jsonp: 'true' }).jsonp, true);
    const flags = Object.fromEntries(SETTINGS.map((s) => [s.env, s.flag]));
    assert.equal(flags.NAMESPACE_ALIASES, '--namespace-aliases');
    assert.equal(flags.JSONP, '--jsonp');
    assert.throws(() => loadConfig({ NAMESPACE_ALIASES: 'bad namespace!' }), ConfigError);
    assert.throws(() => loadConfig({ JSONP: 'maybe' }), ConfigError);
  });
  it('reads the operations settings (metrics, rate limits, login throttle, proxy, CORS)', () => {
    const d = loadConfig({});
    assert.equal(d.metrics, true);
    assert.equal(d.metricsToken, undefined);
    assert.equal(d.rateLimitMax, 1200);
    assert.equal(d.rateLimitWindow, 60);
    assert.equal(d.loginMaxFailures, 5);
    assert.equal(d.trustProxy, false);
    assert.equal(d.corsOrigins, undefined);
    const c = loadConfig(
      {
        METRICS: 'false',
        METRICS_TOKEN: 'tok',
        RATE_LIMIT_MAX: '10',
        RATE_LIMIT_WINDOW: '5m',
        LOGIN_MAX_FAILURES: '0',
        TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
        CORS_ORIGINS: 'https://a.example, http://localhost:3000/',
      },
      { rateLimitWindow: '30s' },
    );
    assert.equal(c.metrics, false);
    assert.equal(c.metricsToken, 'tok');
    assert.equal(c.rateLimitMax, 10);
    assert.equal(c.rateLimitWindow, 30);
    assert.equal(c.loginMaxFailures, 0);
    assert.deepEqual(c.trustProxy, ['10.0.0.0/8', '127.0.0.1']);
    assert.deepEqual(c.corsOrigins, ['https://a.example', 'http://localhost:3000']);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ RATE_LIMIT_WINDOW: '1h' }).rateLimitWindow, 3600);
    assert.equal(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, undefined);
    const flags = Object.fromEntries(SETTINGS.map((s) => [s.env, s.flag]));
    assert.equal(flags.TRUST_PROXY, '--trust-proxy');
    assert.equal(flags.CORS_ORIGINS, '--cors-origins');
    for (const bad of [
      { METRICS: 'perhaps' },
      { RATE_LIMIT_MAX: '-1' },
      { RATE_LIMIT_WINDOW: 'soon' },
      { RATE_LIMIT_WINDOW: '0' },
      { LOGIN_MAX_FAILURES: 'x' },
      { TRUST_PROXY: 'proxy.example' },
      { TRUST_PROXY: '10.0.0.0/40' },
      { CORS_ORIGINS: 'https://a.example/path' },
      { CORS_ORIGINS: 'not an origin' },
    ]) {
      assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
    }
  });
  it('reads SUBMISSIONS_NOTIFY_TO: comma-separated addresses, each checked; unset or blank: none', () => {
    assert.deepEqual(loadConfig({}).submissionsNotifyTo, []);
    assert.deepEqual(loadConfig({ SUBMISSIONS_NOTIFY_TO: ' ' }).submissionsNotifyTo, []);
    assert.deepEqual(loadConfig({ SUBMISSIONS_NOTIFY_TO: 'a@example.org, b@example.net,' }).submissionsNotifyTo, ['a@example.org', 'b@example.net']);
    assert.throws(() => loadConfig({ SUBMISSIONS_NOTIFY_TO: 'a@example.org, nobody' }), /"nobody" is not an e-mail address/);
  });
  it('reads the week start (a name or 0-6), the date and time formats and the events per page from the environment', () => {
    const d = loadConfig({});
    assert.deepEqual([d.weekStart, d.dateFormat, d.timeFormat, d.eventsPerPage], ['monday', 'l j F Y', 'g:i A', 10]);
    const c = loadConfig({ CALENDAR_WEEK_START: '0', CALENDAR_DATE_FORMAT: 'F j, Y', CALENDAR_TIME_FORMAT: 'H:i', CALENDAR_EVENTS_PER_PAGE: '25' });
    assert.deepEqual([c.weekStart, c.dateFormat, c.timeFormat, c.eventsPerPage], ['sunday', 'F j, Y', 'H:i', 25]);
    assert.equal(loadConfig({ CALENDAR_WEEK_START: 'Saturday' }).weekStart, 'saturday');
    assert.deepEqual([d.currencySymbol, d.currencyPosition], ['$', 'prefix']);
    const money = loadConfig({ CALENDAR_CURRENCY_SYMBOL: ' € ', CALENDAR_CURRENCY_POSITION: 'suffix' });
    assert.deepEqual([money.currencySymbol, money.currencyPosition], ['€', 'suffix']);
    assert.throws(() => loadConfig({ CALENDAR_CURRENCY_POSITION: 'after' }), /CALENDAR_CURRENCY_POSITION/);
    for (const bad of [{ CALENDAR_WEEK_START: '7' }, { CALENDAR_DATE_FORMAT: 'T' }, { CALENDAR_EVENTS_PER_PAGE: '0' }, { CALENDAR_EVENTS_PER_PAGE: '101' }])
      assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
  });
  it('reads SITE_NAME and ICAL_MAX_EVENTS (pages and feeds)', () => {
    assert.equal(loadConfig({}).siteName, 'Events Calendar');
    assert.equal(loadConfig({}).icalMaxEvents, 1000);
    const c = loadConfig({ SITE_NAME: ' Springfield Events ', ICAL_MAX_EVENTS: '30' }, { icalMaxEvents: '40' });
    assert.equal(c.siteName, 'Springfield Events');
    assert.equal(c.icalMaxEvents, 40);
    const flags = Object.fromEntries(SETTINGS.map((s) => [s.env, s.flag]));
    assert.equal(flags.SITE_NAME, '--site-name');
    assert.equal(flags.ICAL_MAX_EVENTS, '--ical-max-events');
    assert.throws(() => loadConfig({ ICAL_MAX_EVENTS: '0' }), ConfigError);
    assert.throws(() => loadConfig({ ICAL_MAX_EVENTS: 'many' }), ConfigError);
  });
  it('reads the request timeouts and the answer memory budget (hostile clients)', () => {
    const d = loadConfig({});
    assert.equal(d.headersTimeoutMs, 10_000);
    assert.equal(d.requestTimeoutMs, 30_000);
    assert.equal(d.responseMemoryBytes, 256 * 1024 * 1024);
    const c = loadConfig({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '2000', RESPONSE_MEMORY_MB: '64' }, { requestTimeoutMs: '3000' });
    assert.equal(c.headersTimeoutMs, 500);
    assert.equal(c.requestTimeoutMs, 3000);
    assert.equal(c.responseMemoryBytes, 64 * 1024 * 1024);
    for (const bad of [{ HEADERS_TIMEOUT_MS: '0' }, { REQUEST_TIMEOUT_MS: 'soon' }, { HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }, { RESPONSE_MEMORY_MB: '0' }]) {
      assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
    }
  });
  it('rejects unusable values', () => {
    assert.throws(() => loadConfig({ CALENDAR_TIMEZONE: 'Mars/Olympus' }), ConfigError);
    assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), ConfigError);
    assert.throws(() => loadConfig({ CALENDAR_ADMIN_USER: 'a' }), ConfigError);
    assert.throws(() => loadConfig({ CALENDAR_ADMIN_PASSWORD: 'b' }), ConfigError);
    assert.throws(() => loadConfig({ PORT: 'eighty' }), ConfigError);
    assert.throws(() => loadConfig({ PORT: '70000' }), ConfigError);
    assert.throws(() => loadConfig({ MAX_PER_PAGE: '0' }), ConfigError);
    assert.throws(() => loadConfig({ GEOLOC_RADIUS: '0' }), ConfigError);
    assert.throws(() => loadConfig({ RECURRENCE_HORIZON_MONTHS: '0' }), ConfigError);
    assert.throws(() => loadConfig({ RECURRENCE_HORIZON_MONTHS: '241' }), ConfigError);
    assert.throws(() => loadConfig({ RECURRENCE_HORIZON_MONTHS: 'soon' }), ConfigError);
    assert.throws(() => loadConfig({ GEOLOC_RADIUS: 'far' }), ConfigError);
    assert.throws(() => loadConfig({ GEOLOC_UNIT: 'furlong' }), ConfigError);
    assert.throws(() => loadConfig({ SITE_URL: 'not a url' }), ConfigError);
  });
  it('reads the admin face settings (ADMIN_PATH, SESSION_IDLE, SESSION_MAX_AGE, ADMIN_REQUIRE_2FA)', () => {
    const d = loadConfig({});
    assert.equal(d.adminPath, '/admin');
    assert.equal(d.sessionIdleMs, 48 * 3600_000);
    assert.equal(d.sessionMaxAgeMs, 336 * 3600_000);
    assert.equal(d.adminRequire2fa, 'off');
    const c = loadConfig({ ADMIN_PATH: 'manage/', SESSION_IDLE: '30m', SESSION_MAX_AGE: '12h', ADMIN_REQUIRE_2FA: 'Administrators' });
    assert.equal(c.adminPath, '/manage');
    assert.equal(c.sessionIdleMs, 30 * 60_000);
    assert.equal(c.sessionMaxAgeMs, 12 * 3600_000);
    assert.equal(c.adminRequire2fa, 'administrators');
    assert.throws(() => loadConfig({ ADMIN_PATH: '/' }), ConfigError);
    assert.throws(() => loadConfig({ ADMIN_PATH: '/a b' }), ConfigError);
    assert.throws(() => loadConfig({ ADMIN_REQUIRE_2FA: 'everyone' }), ConfigError);
    assert.throws(() => loadConfig({ SESSION_IDLE: 'soon' }), ConfigError);
  });
  it('reads IMPORT_MAX_BYTES (default 10 MiB, at least 1 KiB; the flag wins)', () => {
    assert.equal(loadConfig({}).importMaxBytes, 10 * 1024 * 1024);
    assert.equal(loadConfig({ IMPORT_MAX_BYTES: '2097152' }).importMaxBytes, 2097152);
    assert.equal(loadConfig({ IMPORT_MAX_BYTES: '2097152' }, { importMaxBytes: '4096' }).importMaxBytes, 4096);
    assert.equal(loadConfig({ IMPORT_MAX_BYTES: '10' }).importMaxBytes, 1024);
    assert.throws(() => loadConfig({ IMPORT_MAX_BYTES: '10 MiB' }), /IMPORT_MAX_BYTES must be a non-negative integer/);
  });
  it('reads the administrator password from CALENDAR_ADMIN_PASSWORD_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-'));
    try {
      const file = join(dir, 'admin-password');
      writeFileSync(file, 's3cret with spaces\n');
      assert.equal(loadConfig({ CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD_FILE: file }).adminPassword, 's3cret with spaces');
      assert.equal(loadConfig({ CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD_FILE: file }, { adminPassword: 'flag' }).adminPassword, 'flag', 'the flag wins');
      assert.throws(() => loadConfig({ CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD: 'b', CALENDAR_ADMIN_PASSWORD_FILE: file }), /not both/);
      assert.throws(() => loadConfig({ CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD_FILE: join(dir, 'none') }), ConfigError);
      writeFileSync(file, '\n');
      assert.throws(() => loadConfig({ CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD_FILE: file }), /is empty/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('every setting the admin app changes has a label in each of its catalogues', () => {
    for (const lang of ['en', 'fr']) {
      const catalogue = JSON.parse(readFileSync(new URL(`../../admin-app/src/i18n/settings.${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
      const missing = CALENDAR_SETTINGS.filter((s) => !catalogue[`settings.label.${s.env}`]).map((s) => s.env);
      assert.deepEqual(missing, [], `${lang}: settings shown with their catalogue key for a label`);
    }
  });
});
