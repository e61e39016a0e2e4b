/**
 * Hit and miss counters of the results the service keeps across requests, kept per store (per
 * Kysely instance, so several apps in one process count apart). Plain numbers: the store and the
 * domain count without knowing about Prometheus; `src/http/metrics.ts` reads them on a scrape.
 *
 * @example
 *   keptCountersOf(store.db).eventPages.hits++;
 *   keptCountersOf(store.db).eventPages // { hits: 1, misses: 0 }
 */

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

const byOwner = new WeakMap<object, KeptCounters>();

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

/** The counters of a store (its Kysely instance, `store.db`), created on first use. */
export function keptCountersOf(owner: object): KeptCounters {
  let counters = byOwner.get(owner);
  if (!counters) byOwner.set(owner, (counters = fresh()));
  return counters;
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

const commitsByOwner = new WeakMap<object, WriteCommitCounters>();

/** The commit counters of a store (its Kysely instance), created on first use. */
export function writeCommitCountersOf(owner: object): WriteCommitCounters {
  let counters = commitsByOwner.get(owner);
  if (!counters) commitsByOwner.set(owner, (counters = { commits: 0, writes: 0, statements: 0, retries: {} }));
  return counters;
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
 * The structures kept across requests (issue 24: every one has a bound and a metric). Each
 * registers how to read its size and its bound, per owner (a store's Kysely instance or its change
 * feed, so that several apps in one process report apart) or for the whole process (pure memos,
 * shared by every app). `/metrics` reports `calendar_kept_entries{kind}` and
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

const keptByOwner = new WeakMap<object, Array<{ kind: string; structure: KeptStructure }>>();
const keptInProcess: Array<{ kind: string; structure: KeptStructure }> = [];

/**
 * Register a kept structure under `kind`. Register only structures that live as long as their
 * owner (or the process, `owner` undefined): the list holds them.
 */
export function registerKept(owner: object | undefined, kind: string, structure: KeptStructure): void {
  if (owner === undefined) {
    keptInProcess.push({ kind, structure });
    return;
  }
  let list = keptByOwner.get(owner);
  if (!list) keptByOwner.set(owner, (list = []));
  list.push({ kind, structure });
}

/** Sizes and bounds of the kept structures of these owners and of the process, summed by kind. */
export function keptSizesOf(owners: ReadonlyArray<object | undefined>): Map<string, { entries: number; maxEntries: number; bytes?: number; maxBytes?: number }> {
  const out = new Map<string, { entries: number; maxEntries: number; bytes?: number; maxBytes?: number }>();
  const all = [...keptInProcess, ...owners.flatMap((o) => (o ? (keptByOwner.get(o) ?? []) : []))];
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
