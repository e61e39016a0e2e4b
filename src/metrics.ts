/**
 * Hit and miss counters of the results the service keeps across requests, commit counters and the
 * list of kept structures, kept per store: a {@link StoreMetrics} is one of the store's parts
 * (`partsOf(store.db).metrics`, made by `openStore`), so several apps in one process count apart.
 * Plain numbers: the store and the domain count without knowing about Prometheus;
 * `src/http/metrics.ts` reads them on a scrape.
 *
 * @example
 *   keptCountersOf(store.db).eventPages.hits++;
 *   keptCountersOf(store.db).eventPages // { hits: 1, misses: 0 }
 */

import { calendarIdNow, DEFAULT_CALENDAR_ID } from './calendar-now.js';

/** Hits and misses of one kind of kept result. */
export interface HitMiss {
  hits: number;
  misses: number;
}

/** The kinds of kept results that are counted. */
export interface KeptCounters {
  /** Event list pages (ids of one page of a filter), `findEventPageIds`. */
  eventPages: HitMiss;
  /** Event list totals per filter, `findEventPageIds`. */
  eventTotals: HitMiss;
  /** Public (anonymous) event representations, `publicById` (counted per event). */
  publicEvents: HitMiss;
  /** Who an Authorization header authenticates (`domain/users.ts`): a hit reads no user row. */
  viewers: HitMiss;
  /** Venue and organizer records by id (`domain/linked-posts.ts`, counted per record). */
  linkedRecords: HitMiss;
  /** Term rows by id (`store/terms.ts`, counted per row). */
  terms: HitMiss;
}

function fresh(): KeptCounters {
  return {
    eventPages: { hits: 0, misses: 0 },
    eventTotals: { hits: 0, misses: 0 },
    publicEvents: { hits: 0, misses: 0 },
    viewers: { hits: 0, misses: 0 },
    linkedRecords: { hits: 0, misses: 0 },
    terms: { hits: 0, misses: 0 },
  };
}

/**
 * The metrics carried by a store handle made by `openStore` (`StoreDb.parts.metrics`,
 * store/handle.ts), read structurally so that this module, which every layer imports, imports no
 * store module; undefined for transactions and other handles.
 */
function metricsOfHandle(db: object): StoreMetrics | undefined {
  const metrics = (db as { parts?: { metrics?: unknown } }).parts?.metrics;
  return metrics instanceof StoreMetrics ? metrics : undefined;
}

/**
 * The hit and miss counters of a store (its handle, `store.db`). A transaction, or a handle
 * `openStore` did not make, counts into counters nobody reports.
 */
export function keptCountersOf(db: object): KeptCounters {
  return (metricsOfHandle(db) ?? unreported).kept;
}

/** Write transactions committed and the writes they carried (SQLite group commit, `writeTransaction`). */
export interface WriteCommitCounters {
  /** transactions committed (a group of writes, or a write alone) */
  commits: number;
  /** writes answered after those commits */
  writes: number;
  /** of those, writes committed as one statement, without BEGIN and COMMIT (PostgreSQL, `writeStatement`) */
  statements: number;
  /** writes run again after losing a race, by PostgreSQL error code (23505 unique, 40P01 deadlock, 40001 serialization) */
  retries: Record<string, number>;
}

/** The commit counters of a store (its handle, `store.db`; a transaction's go unreported). */
export function writeCommitCountersOf(db: object): WriteCommitCounters {
  return (metricsOfHandle(db) ?? unreported).commits;
}

/** Log lines the server could not write to stdout (a stalled log pipe; `src/log-destination.ts`). Process-wide: one stdout. */
export interface LogOutputCounters {
  /** lines dropped since the process started */
  droppedLines: number;
  /** their bytes */
  droppedBytes: number;
  /** what stdout holds now, waiting for the pipe's reader (bytes) */
  buffered(): number;
}

/** The process' log output counters (`calendar_log_*` in `/metrics`). */
export const logOutputCounters: LogOutputCounters = { droppedLines: 0, droppedBytes: 0, buffered: () => 0 };

/**
 * The structures kept across requests (every one has a bound and a metric). Each
 * registers how to read its size and its bound, with the store it lives as long as (in the
 * store's {@link StoreMetrics}, so that several apps in one process report apart) or for the whole
 * process (pure memos, shared by every app). `/metrics` reports `calendar_kept_entries{kind}` and
 * `calendar_kept_entries_max{kind}` (and `calendar_kept_bytes{kind}` and its max for the ones
 * bounded in bytes too), summed by kind.
 *
 * @example registerKept(store.db, 'term_rows', { entries: () => rows.size, maxEntries: 20_000 });
 */
export interface KeptStructure {
  /** entries kept now */
  entries(): number;
  /** the most entries it keeps */
  maxEntries: number;
  /** bytes kept now (for the structures bounded in bytes too) */
  bytes?: () => number;
  /** the most bytes it keeps */
  maxBytes?: number;
}

/** A kept structure with the kind `/metrics` reports it under. */
export interface KeptEntry {
  kind: string;
  structure: KeptStructure;
}

/** What `/metrics` reports of one store: one of its parts (`StoreParts.metrics`, made by `openStore`). */
export class StoreMetrics {
  /** hits and misses of its kept results */
  readonly kept: KeptCounters = fresh();
  /** its write commits */
  readonly commits: WriteCommitCounters = { commits: 0, writes: 0, statements: 0, retries: {} };
  /** the structures kept as long as the store is open (`registerKept`) */
  readonly structures: KeptEntry[] = [];
  /** how many times the store's change feed looked for others' commits (set by `registerFeedMetrics`) */
  feedLooks?: () => number;
  /** SQLite: others' commits its feed found without log rows, marked or not (set by `registerFeedMetrics`) */
  feedUnlogged?: () => { marked: number; unknown: number; explainedLater: number };
  /** SQLite: statements that waited for another connection's write lock (store/sqlite-waits.ts): then ran, or gave up; and the time waited */
  readonly lockWaits = { ran: 0, gaveUp: 0, seconds: 0 };
}

/** Where the counts of a transaction, or of a handle `openStore` did not make, go: nobody reports them. */
const unreported = new StoreMetrics();

/** The metrics of a store's handle (undefined for a transaction, or a handle `openStore` did not make). */
export function storeMetricsOf(db: object): StoreMetrics | undefined {
  return metricsOfHandle(db);
}

/** Kept structures of the whole process (pure memos shared by every app; not per store). */
const keptInProcess: KeptEntry[] = [];

/**
 * Register a kept structure under `kind`, for the store of `owner` (its handle, `store.db`, or its
 * {@link StoreMetrics}) or for the whole process (`owner` undefined). Register only structures that
 * live as long as their owner: the list holds them. A transaction, or a handle `openStore` did not
 * make, reports nothing: the structure is not registered.
 */
export function registerKept(owner: object | undefined, kind: string, structure: KeptStructure): void {
  // Other calendars' structures come and go with their slots (store/handle.ts `slotsOf`), which
  // are bounded and reported as one kind of their own, `calendar_slots`.
  if (calendarIdNow() !== DEFAULT_CALENDAR_ID) return;
  if (owner === undefined) {
    keptInProcess.push({ kind, structure });
    return;
  }
  const metrics = owner instanceof StoreMetrics ? owner : metricsOfHandle(owner);
  metrics?.structures.push({ kind, structure });
}

/** Sizes and bounds of the kept structures of these stores and of the process, summed by kind. */
export function keptSizesOf(stores: ReadonlyArray<StoreMetrics | undefined>): Map<string, { entries: number; maxEntries: number; bytes?: number; maxBytes?: number }> {
  const out = new Map<string, { entries: number; maxEntries: number; bytes?: number; maxBytes?: number }>();
  const all = [...keptInProcess, ...stores.flatMap((m) => m?.structures ?? [])];
  for (const { kind, structure } of all) {
    let sum = out.get(kind);
    if (!sum) out.set(kind, (sum = { entries: 0, maxEntries: 0 }));
    sum.entries += structure.entries();
    sum.maxEntries += structure.maxEntries;
    if (structure.bytes && structure.maxBytes !== undefined) {
      sum.bytes = (sum.bytes ?? 0) + structure.bytes();
      sum.maxBytes = (sum.maxBytes ?? 0) + structure.maxBytes;
    }
  }
  return out;
}
