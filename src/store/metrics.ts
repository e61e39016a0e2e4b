/**
 * The store's metrics on /metrics' registry (http/metrics.ts registers the process's and the
 * requests'): the memory bounds and what the worker threads hold, the connections, kept results,
 * commits, the change feed's looks, SQLite's write-ahead log, and every structure kept across
 * requests with its bound (src/metrics.ts `registerKept`). The composition root hands them to the
 * REST face as a `StoreMetricsSource`, so that no face reads the store's parts.
 *
 * @example registerMetrics(app, config, storeMetricsSource(store), loopWatch)
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { keptCountersOf, keptSizesOf, storeMetricsOf, writeCommitCountersOf, type KeptCounters } from '../metrics.js';
import type { Store } from './db.js';
import { memoryBounds } from './memory-bounds.js';
import { checkpointerOf } from './handle.js';
import { RESTART_PAGES } from './checkpointer.js';
import { memoryUsed } from './memory-used.js';

/** The store's metrics, to register on a registry: first `register`, then (after the process's) `registerKept`. */
export function storeMetricsSource(store: Store): { register(registry: Registry): void; registerKept(registry: Registry): void } {
  return { register: (registry) => registerStoreMetrics(registry, store), registerKept: (registry) => registerKeptMetrics(registry, store) };
}

/** The store's metrics: memory bounds and use, connections, kept results, commits, the change feed's looks, SQLite's log. */
function registerStoreMetrics(registry: Registry, store: Store): void {
  const bounds = { ...memoryBounds(store.dialect), ...youngGenerationBound() };
  new Gauge({
    name: 'calendar_memory_bound_bytes',
    help: 'Memory bounds besides the kept structures: SQLite page caches, worker thread heaps, V8 young generation (bytes)',
    labelNames: ['part'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [part, bytes] of Object.entries(bounds)) this.set({ part }, bytes);
    },
  });
  new Gauge({
    name: 'calendar_memory_used_bytes',
    help: 'What the worker threads hold now, by the parts of calendar_memory_bound_bytes: their V8 heaps (bytes; SQLite files only)',
    labelNames: ['part'],
    registers: [registry],
    async collect() {
      const used = await memoryUsed(store.db);
      this.reset();
      for (const [part, bytes] of Object.entries(used)) this.set({ part }, bytes);
    },
  });
  new Gauge({
    name: 'calendar_db_connections',
    help: 'Database connections: PostgreSQL pool total/idle/waiting (clients waiting for one); SQLite: one connection',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      const pool = store.pool;
      if (pool) {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      } else this.set({ state: 'total' }, 1);
    },
  });
  const kept = keptCountersOf(store.db);
  new Counter({
    name: 'calendar_kept_results_total',
    help: 'Lookups of results kept across requests, by kind (event_pages, event_totals, public_events, viewers, venues_organizers, terms) and result (hit, miss)',
    labelNames: ['kind', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      const kinds: Array<[string, keyof KeptCounters]> = [
        ['event_pages', 'eventPages'],
        ['event_totals', 'eventTotals'],
        ['public_events', 'publicEvents'],
        ['viewers', 'viewers'],
        ['venues_organizers', 'linkedRecords'],
        ['terms', 'terms'],
      ];
      for (const [kind, key] of kinds) {
        this.inc({ kind, result: 'hit' }, kept[key].hits);
        this.inc({ kind, result: 'miss' }, kept[key].misses);
      }
    },
  });

  const commits = writeCommitCountersOf(store.db);
  new Counter({
    name: 'calendar_write_commits_total',
    help: 'Write transactions committed (on SQLite, writes waiting together share one commit)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(commits.commits);
    },
  });
  new Counter({
    name: 'calendar_writes_committed_total',
    help: 'Writes committed (divided by calendar_write_commits_total: writes per commit)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(commits.writes);
    },
  });
  new Counter({
    name: 'calendar_write_retries_total',
    help: 'Writes run again after losing a race to a concurrent write, by PostgreSQL error code (23505 unique key, 40P01 deadlock, 40001 serialization)',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [code, n] of Object.entries(commits.retries)) this.inc({ code }, n);
    },
  });

  // The change feed's looks for other connections' or instances' commits: one per batch of
  // requests read in one poll of the event loop, not one per request (app.ts).
  const storeMetrics = storeMetricsOf(store.db);
  if (store.dialect === 'sqlite' && storeMetrics) {
    const waits = storeMetrics.lockWaits;
    new Counter({
      name: 'calendar_sqlite_lock_waits_total',
      help: "SQLite: statements that found another connection's write lock (another server or command on the file, the write worker) and waited for it off the event loop, by outcome (ran, gave_up: 503 after DATABASE_TIMEOUT_MS)",
      labelNames: ['outcome'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ outcome: 'ran' }, waits.ran);
        this.inc({ outcome: 'gave_up' }, waits.gaveUp);
      },
    });
    new Counter({
      name: 'calendar_sqlite_lock_wait_seconds_total',
      help: "SQLite: time statements waited for another connection's write lock (seconds)",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(waits.seconds);
      },
    });
  }
  new Counter({
    name: 'calendar_feed_looks_total',
    help: "Looks of the change feed for other connections' (SQLite) or instances' (PostgreSQL) commits: at most one per batch of requests read together",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(storeMetrics?.feedLooks?.() ?? 0);
    },
  });

  // SQLite: other connections' commits without log rows. `unknown` ones (plain SQL, another
  // program) dropped every calendar's kept results; `marked` ones (another server's state outside
  // the log: limits, locks, sessions, deliveries) did not; `explained_later`, moves of the data
  // version seen before their commit, neither.
  if (storeMetrics?.feedUnlogged) {
    const unlogged = storeMetrics.feedUnlogged;
    new Counter({
      name: 'calendar_feed_unlogged_commits_total',
      help: "SQLite: other connections' commits the change feed found without log rows: `marked` (another server's state outside the log; nothing dropped), `unknown` (plain SQL, another program; every calendar's kept results dropped, after waiting half a second for a commit to explain it), or `explained_later` (a look saw the data version move before the commit that moved it: a writer starting the write-ahead log over)",
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.reset();
        const n = unlogged();
        this.inc({ kind: 'marked' }, n.marked);
        this.inc({ kind: 'unknown' }, n.unknown);
        this.inc({ kind: 'explained_later' }, n.explainedLater);
      },
    });
  }

  // SQLite files: the write-ahead log's length, kept bounded under sustained writes (store/checkpointer.ts).
  const checkpointer = checkpointerOf(store.db);
  if (checkpointer) {
    new Gauge({
      name: 'calendar_sqlite_wal_frames',
      help: `Frames (pages) in SQLite's write-ahead log at its last checkpoint; from ${RESTART_PAGES} on, the log is made to start over`,
      registers: [registry],
      collect() {
        this.set(checkpointer.stats().log);
      },
    });
    new Counter({
      name: 'calendar_sqlite_wal_catch_ups_total',
      help: 'Times the main connection copied the rest of a long write-ahead log back so that the next write starts it over',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(checkpointer.stats().catchUps);
      },
    });
  }
}

/** Every structure kept across requests, its size and its bound (src/metrics.ts `registerKept`). */
function registerKeptMetrics(registry: Registry, store: Store): void {
  const keptOwners = [storeMetricsOf(store.db)];
  const keptGauge = (name: string, help: string, pick: (s: ReturnType<typeof keptSizesOf> extends Map<string, infer S> ? S : never) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [kind, sizes] of keptSizesOf(keptOwners)) {
          const value = pick(sizes);
          if (value !== undefined) this.set({ kind }, value);
        }
      },
    });
  keptGauge('calendar_kept_entries', 'Entries of each kind of structure kept across requests (caches, memos, the change feed history)', (s) => s.entries);
  keptGauge('calendar_kept_entries_max', 'The most entries each kind of kept structure holds (its bound)', (s) => s.maxEntries);
  keptGauge('calendar_kept_bytes', 'Approximate bytes of the kept structures bounded in bytes too', (s) => s.bytes);
  keptGauge('calendar_kept_bytes_max', 'The most bytes each kind of kept structure bounded in bytes holds', (s) => s.maxBytes);
}

/** V8's young generation bound when the process was started with `--max-semi-space-size` (cli/heap-flags.ts): two semi-spaces. */
function youngGenerationBound(): Record<string, number> {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const m = flags.map((f) => /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(f)).find((x) => x !== null);
  return m ? { v8_young_generation: 2 * Number(m[1]) * 1024 * 1024 } : {};
}
