/**
 * Long read-only queries of a SQLite database file — the list totals, which count every matching
 * row of a wide window (a second or more at a million events) — run on a worker thread with a
 * connection of its own. better-sqlite3 is synchronous: on the main connection such a count
 * would stop every other request for as long as it runs.
 *
 * The worker is started on first use and stopped after a while without work. It reads committed
 * data only (WAL snapshots), which is what the callers need: they read the data revision before
 * asking, so the answer is never older than the revision it is kept under.
 *
 * @example
 *   const reader = createBackgroundReader('/srv/calendar.db');
 *   const [{ n }] = await reader.all<{ n: number }>('select count(*) as n from events', []);
 *   await reader.close();
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { BACKGROUND_CACHE_KIB, BACKGROUND_HEAP_MB } from './memory-bounds.js';
import { stopWorker, workerHeapBytes } from './worker-threads.js';

export interface BackgroundReader {
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** The worker thread's V8 heap (bytes it holds; 0 while no worker runs: it starts at the first question, stops after a minute idle). */
  heapBytes(): Promise<number>;
  close(): Promise<void>;
}

/** The worker, as CommonJS source (runs the same under tsx and from dist/). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheKib);
db.pragma('query_only = 1');
// The geolocation filters' sin/cos, as on the main connection (db.ts ensureMathFunctions).
try { db.prepare('select sin(1), cos(1)').get(); } catch {
  db.function('sin', { deterministic: true }, (x) => (x === null ? null : Math.sin(Number(x))));
  db.function('cos', { deterministic: true }, (x) => (x === null ? null : Math.cos(Number(x))));
}
parentPort.postMessage({ loaded: true });
const statements = new Map();
parentPort.on('message', ({ id, sql, params }) => {
  try {
    let stmt = statements.get(sql);
    if (!stmt) {
      if (statements.size >= 200) statements.clear();
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    parentPort.postMessage({ id, rows: stmt.all(params) });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e), code: e && typeof e.code === 'string' ? e.code : undefined });
  }
});
`;

const IDLE_MS = 60_000;

export function createBackgroundReader(file: string): BackgroundReader {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | null = null;
  let nextId = 1;
  let idle: NodeJS.Timeout | null = null;
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  /** Settles once a worker has loaded SQLite's addon and opened the file, or has stopped. */
  const loaded = new WeakMap<Worker, Promise<void>>();

  const start = (): Worker => {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, cacheKib: BACKGROUND_CACHE_KIB },
      resourceLimits: { maxOldGenerationSizeMb: BACKGROUND_HEAP_MB.old, maxYoungGenerationSizeMb: BACKGROUND_HEAP_MB.young },
    });
    let settleLoaded: () => void = () => {};
    loaded.set(w, new Promise<void>((resolve) => (settleLoaded = resolve)));
    w.on('message', (msg: { id: number; rows?: unknown[]; error?: string; code?: string; loaded?: boolean }) => {
      if (msg.loaded) return settleLoaded();
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      // The SQLite code (SQLITE_BUSY, …) travels along, so callers can tell faults apart.
      if (msg.error !== undefined) p.reject(Object.assign(new Error(msg.error), msg.code ? { code: msg.code } : {}));
      else p.resolve(msg.rows ?? []);
      // Idle: unreferenced, until the next question (not one being closed: `close` holds it until it has stopped).
      if (pending.size === 0 && worker === w) {
        w.unref();
        armIdle();
      }
    });
    w.on('error', (err) => {
      settleLoaded();
      if (worker === w) worker = null;
      failAll(err);
    });
    w.on('exit', () => {
      settleLoaded();
      if (worker === w) worker = null;
      failAll(new Error('background reader stopped'));
    });
    // An idle worker does not keep the process alive; one with questions pending does (`all`).
    // After the listeners: adding a 'message' listener refs the worker's port again.
    w.unref();
    return w;
  };

  const armIdle = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      if (pending.size === 0 && worker) {
        const w = worker;
        worker = null;
        void w.terminate();
      }
    }, IDLE_MS);
    idle.unref();
  };

  return {
    all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
      if (idle) clearTimeout(idle);
      worker ??= start();
      const id = nextId++;
      const w = worker;
      return new Promise<T[]>((resolve, reject) => {
        if (pending.size === 0) w.ref();
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        w.postMessage({ id, sql, params });
      });
    },
    heapBytes: () => workerHeapBytes(worker),
    async close() {
      if (idle) clearTimeout(idle);
      const w = worker;
      worker = null;
      // Stopped once it has loaded SQLite (worker-threads.ts).
      if (w) await stopWorker(w, loaded.get(w)!);
    },
  };
}
