/**
 * Each calendar's quotas (docs/calendars.md, "Quotas"): how many events it may hold, how many
 * bytes of images, webhook endpoints, public submissions a day, requests a minute over every
 * client, and how many days of sync history (its change log rows) it may keep. A calendar's own
 * quotas are its row's `quotas` (JSON); a quota it does not name is the installation's
 * (`CALENDAR_QUOTA_*`); 0 means no limit, and every default is 0, so that an installation that
 * sets none sees no change.
 *
 * The sync history's quota caps a setting, not a count: a calendar's SYNC_HISTORY_DAYS above it is
 * refused (calendar-settings.ts), and one stored before the quota was lowered counts as the quota
 * (`cappedHistoryDays`, for the tokens and the log's pruning).
 *
 * Each other quota is enforced in one place, the write it limits: the count is taken inside the
 * write's transaction, after a lock of the calendar's quota (`lockQuota`: PostgreSQL's advisory
 * lock; on SQLite writes run one at a time), so writes at once, on any instance, count one after
 * the other and never pass the limit together. Requests a minute are counted as the rate limit
 * counts a client (domain/rate-grants.ts: grants taken from the database, spent in memory), with
 * the key `calendar:ID`, so the count holds across instances.
 *
 * What a quota costs when it is not set: nothing on the database. The limits are read from the
 * calendar's runtime (read with it, `runtimeNow()`), or for the default calendar, which has none,
 * from its row read once and again every `RUNTIME_TTL_MS` in the background.
 *
 * @example
 *   await quotas.guard(trx, 'events', 1); // inside the create's transaction: 403 past the limit
 */
import type { Config } from '../config.js';
import type { Executor } from '../store/schema.js';
import { writeTransaction } from '../store/changes.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow } from '../store/calendar-scope.js';
import { findCalendarById } from '../store/calendars.js';
import { countQuotaEvents, countQuotaWebhookEndpoints, countSubmissionsSince, lockQuota, sumQuotaMediaBytes } from '../store/quotas.js';
import { ApiError, apiError } from './errors.js';
import { createGrantStore } from './rate-grants.js';

export const QUOTA_NAMES = ['events', 'media_bytes', 'requests_per_minute', 'webhook_endpoints', 'submissions_per_day', 'sync_history_days'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
export type Quotas = Partial<Record<QuotaName, number>>;

/** The status each quota answers with once used up (the sync history's: a setting refused, calendar-settings.ts). */
const STATUS: Record<QuotaName, number> = { events: 403, media_bytes: 413, requests_per_minute: 429, webhook_endpoints: 403, submissions_per_day: 429, sync_history_days: 400 };

/** The largest value of a quota, where one is bounded (the sync history: SYNC_HISTORY_DAYS's own bound). */
export const QUOTA_MAX: Partial<Record<QuotaName, number>> = { sync_history_days: 36500 };

/** The days of sync history a calendar keeps: its SYNC_HISTORY_DAYS, at most its quota (0: no limit). */
export function cappedHistoryDays(days: number, limit: number): number {
  return limit > 0 ? Math.min(days, limit) : days;
}

/** How long the default calendar's quotas are kept before they are read again (as a calendar's runtime). */
const DEFAULT_TTL_MS = 2000;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The quotas counted inside the write they limit. */
export type CountedQuota = Exclude<QuotaName, 'requests_per_minute' | 'submissions_per_day' | 'sync_history_days'>;

/** The counts taken inside a write, by quota. */
const COUNTERS: Record<CountedQuota, (trx: Executor) => Promise<number>> = {
  events: countQuotaEvents,
  media_bytes: sumQuotaMediaBytes,
  webhook_endpoints: countQuotaWebhookEndpoints,
};

/** A calendar's own quotas from its row's JSON (anything else: none). */
export function parseQuotas(json: string): Quotas {
  try {
    const q = JSON.parse(json) as unknown;
    if (!q || typeof q !== 'object' || Array.isArray(q)) return {};
    const out: Quotas = {};
    for (const name of QUOTA_NAMES) {
      const v = (q as Record<string, unknown>)[name];
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[name] = v;
    }
    return out;
  } catch {
    return {};
  }
}

/** Whether an error is a quota's refusal (`quotaExceeded`): the work it refused may be tried again once there is room. */
export function isQuotaExceeded(e: unknown): boolean {
  return e instanceof ApiError && e.code === 'calendar_quota_exceeded';
}

/** The error of a used-up quota: its status (403, 413 or 429), with what it counts. */
export function quotaExceeded(name: QuotaName, limit: number, used: number, retryAfterSeconds?: number): ApiError {
  return apiError('calendar_quota_exceeded', {
    args: [name, used, limit],
    status: STATUS[name],
    data: { quota: name, limit, used },
    ...(retryAfterSeconds !== undefined ? { headers: { 'retry-after': String(retryAfterSeconds) } } : {}),
  });
}

export interface CalendarQuotas {
  /**
   * The limit of a quota in the calendar of the work at hand (0: none): at once once the default
   * calendar's quotas have been read (always, after the first use).
   */
  limit(name: QuotaName): number | Promise<number>;
  /**
   * Inside a write transaction: lock the calendar's quota, count what it holds and refuse
   * (`calendar_quota_exceeded`) when `adding` more would pass the limit. Nothing when no limit.
   */
  guard(trx: Executor, name: CountedQuota, adding: number, limit?: number): Promise<void>;
  /** A look without the lock (before work that is costly to undo); `guard` in the write is what holds. */
  check(db: Executor, name: CountedQuota, adding: number, limit?: number): Promise<void>;
  /** Run `write` under a quota: in a transaction with `guard` first when there is a limit, else as it is. */
  write<T>(db: Executor, name: CountedQuota, adding: number, write: (db: Executor) => Promise<T>): Promise<T>;
  /**
   * Count a request of the calendar of the work at hand: undefined when it may go on (or there is
   * no limit), the 429 when the calendar's requests this minute are used up. At once when this
   * instance holds requests of the calendar's grant; a promise when it must take one. `exempt`
   * (health checks, metrics) is asked only when there is a limit.
   */
  countRequest(exempt?: () => boolean): ApiError | undefined | Promise<ApiError | undefined>;
  /** The default calendar's quotas changed here: in force at once on this instance. */
  defaultChanged(quotas: Quotas): void;
  /**
   * Each quota of the calendar of the work at hand: its limit (0: none) and what is used of it,
   * counted now as the write it limits counts it; the submissions of the last 24 hours; null for
   * requests a minute, which instances count in grants of their own (no one number to read).
   */
  usage(): Promise<QuotaUsage>;
}

/** A calendar's quotas and their use (`usage`). */
export type QuotaUsage = Record<QuotaName, { limit: number; used: number | null }>;

/** `runtimeQuotas` gives the quotas of the calendar runtime of the work at hand (undefined: the default calendar). */
export function createQuotas(base: Config, db: Executor, runtimeQuotas: () => Quotas | undefined): CalendarQuotas {
  let kept: Quotas | undefined;
  let readAt = 0;
  let reading: Promise<void> | undefined;
  const readDefault = (): Promise<void> =>
    (reading ??= findCalendarById(db, DEFAULT_CALENDAR_ID)
      .then(
        (row) => {
          kept = row ? parseQuotas(row.quotas) : {};
        },
        // A database fault keeps what was known (the installation's defaults at first).
        () => undefined,
      )
      .finally(() => {
        readAt = Date.now();
        reading = undefined;
      }));

  const installation = (name: QuotaName): number => {
    switch (name) {
      case 'events':
        return base.calendarQuotaEvents;
      case 'media_bytes':
        return base.calendarQuotaMediaMb * 1024 * 1024;
      case 'requests_per_minute':
        return base.calendarQuotaRequestsPerMinute;
      case 'webhook_endpoints':
        return base.calendarQuotaWebhookEndpoints;
      case 'submissions_per_day':
        return base.calendarQuotaSubmissionsPerDay;
      case 'sync_history_days':
        return base.calendarQuotaSyncHistoryDays;
    }
  };
  /** The limit now, from what is known (the default calendar's row read again in the background when old). */
  const limitNow = (name: QuotaName): number => {
    const own = runtimeQuotas();
    if (own) return own[name] ?? installation(name);
    if (Date.now() - readAt >= DEFAULT_TTL_MS) void readDefault();
    return kept?.[name] ?? installation(name);
  };
  const limit = (name: QuotaName): number | Promise<number> => {
    if (runtimeQuotas() || readAt > 0) return limitNow(name);
    return readDefault().then(() => limitNow(name));
  };

  // One grant store per limit (grants are taken against it), keys `calendar:ID`.
  const grantStores = new Map<number, ReturnType<typeof createGrantStore>>();
  const grantsFor = (max: number) => {
    let store = grantStores.get(max);
    if (!store) {
      if (grantStores.size >= 64) grantStores.delete(grantStores.keys().next().value!);
      grantStores.set(max, (store = createGrantStore(db, max, MINUTE_MS)));
    }
    return store;
  };
  const answer = (max: number, counted: { current: number; ttl: number }): ApiError | undefined =>
    counted.current > max ? quotaExceeded('requests_per_minute', max, max, Math.max(1, Math.ceil(counted.ttl / 1000))) : undefined;

  const quotas: CalendarQuotas = {
    limit,
    async guard(trx, name, adding, known) {
      const max = known ?? (await limit(name));
      if (max <= 0) return;
      await lockQuota(trx, name);
      const used = await COUNTERS[name](trx);
      if (used + adding > max) throw quotaExceeded(name, max, used);
    },
    async check(on, name, adding, known) {
      const max = known ?? (await limit(name));
      if (max <= 0) return;
      const used = await COUNTERS[name](on);
      if (used + adding > max) throw quotaExceeded(name, max, used);
    },
    async write(on, name, adding, write) {
      const max = await limit(name);
      if (max <= 0) return write(on);
      return writeTransaction(on, async (trx) => {
        await quotas.guard(trx, name, adding, max);
        return write(trx);
      });
    },
    countRequest(exempt) {
      const max = limitNow('requests_per_minute');
      if (max <= 0 || exempt?.()) return undefined;
      const store = grantsFor(max);
      const key = `calendar:${calendarIdNow()}`;
      const now = store.countNow(key);
      if (now) return answer(max, now);
      // A database fault lets the request through uncounted, as the rate limit does.
      return store.count(key).then(
        (counted) => answer(max, counted),
        () => undefined,
      );
    },
    defaultChanged(q) {
      kept = q;
      readAt = Date.now();
    },
    async usage() {
      const since = new Date(Date.now() - DAY_MS).toISOString().slice(0, 19).replace('T', ' ');
      const used: Record<QuotaName, () => Promise<number | null>> = {
        events: () => countQuotaEvents(db),
        media_bytes: () => sumQuotaMediaBytes(db),
        webhook_endpoints: () => countQuotaWebhookEndpoints(db),
        submissions_per_day: () => countSubmissionsSince(db, since),
        requests_per_minute: async () => null,
        // The days the calendar's SYNC_HISTORY_DAYS asks for (its own or the installation's), before the cap.
        sync_history_days: async () => base.syncHistoryDays,
      };
      const out = {} as QuotaUsage;
      for (const name of QUOTA_NAMES) out[name] = { limit: await limit(name), used: await used[name]() };
      return out;
    },
  };
  return quotas;
}
