/**
 * SQLite WAL checkpoints beside the event loop. By default SQLite checkpoints on the
 * connection whose commit makes the write-ahead log reach 1,000 pages: that commit copies the
 * log's pages back into the database file and, with `synchronous = NORMAL`, syncs both files to
 * disk, all on the server's only connection, so every request waits for two disk flushes every
 * few dozen writes. Here the main connection never checkpoints (`wal_autocheckpoint = 0`); a
 * worker thread with a connection of its own looks at the log's size a few times a second and runs
 * a PASSIVE checkpoint (which never blocks the writer or the readers) once it has grown past the
 * same 1,000 pages.
 *
 * The main connection hands over only once the worker has opened the file and checkpointed once;
 * if the worker stops (an error, `close`), the main connection checkpoints by itself again. Writes
 * are as durable as before: a commit is in the log when it is acknowledged, checkpointed or not.
 *
 * **The log must also start over**. SQLite writes the log from its beginning again only
 * when a write begins with every frame already copied back. Under sustained writes the worker's
 * checkpoint never copies the last frames (the main connection commits more while it copies), so
 * the log grew without end: 2.7 GB after 30 s of event creates at 1,000,000 events (95 MB/s). So
 * once the worker reports a log of {@link RESTART_PAGES} or more frames, the main connection
 * copies the rest itself, between two writes (a PASSIVE checkpoint of the few frames committed
 * since the worker's began: 6-10 ms on the event loop at 1,000,000 events, most of it the database
 * file's flush, about once a second under creates at full speed); the next write then starts the
 * log over, and `journal_size_limit` cuts the file back to twice {@link RESTART_PAGES} pages. A
 * reader in the middle of a long read (the background reader's counts) still holds the log until
 * it is done; the next report asks again. Only a connection that wrote since its last catch-up
 * does this: a second instance on the same file that only follows the first one's writes
 * leaves the catch-up to it, instead of copying its log on its own event loop. Bulk loads
 * (`events-calendar seed`) do not yield to the event loop between their batches: they start the
 * log over themselves after each batch (seed.ts).
 *
 * @example
 *   const checkpointer = startCheckpointer('/srv/calendar.db', connection);
 *   await checkpointer.close();
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { CHECKPOINTER_HEAP_MB } from './memory-bounds.js';
import { stopWorker, workerHeapBytes } from './worker-threads.js';
import type BetterSqlite3 from 'better-sqlite3';

export interface Checkpointer {
  /** Resolves once the worker checkpoints for the main connection (false: it could not start). */
  ready: Promise<boolean>;
  /**
   * Checkpoints run by the worker so far, and the log frames they copied; the log's length (frames)
   * at the last checkpoint; the times the main connection copied the rest so that the log starts over.
   */
  stats(): { checkpoints: number; frames: number; log: number; catchUps: number };
  /** The worker thread's V8 heap, bytes (0 once it has stopped). */
  heapBytes(): Promise<number>;
  close(): Promise<void>;
}

/** The log's size, in pages, past which the worker checkpoints (SQLite's own default). */
export const CHECKPOINT_PAGES = 1000;
/** The log's length, in frames, past which the main connection copies the rest so that the next write starts the log over. */
export const RESTART_PAGES = 16 * CHECKPOINT_PAGES;
/** How often the worker looks at the log's size. */
const LOOK_MS = 200;

/** The worker, as CommonJS source (runs the same under tsx and from dist/). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
db.pragma('wal_autocheckpoint = 0');
const pageSize = db.pragma('page_size', { simple: true });
const limit = workerData.pages * pageSize;
const checkpoint = () => {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage({ checkpointed: r ? r.checkpointed : 0, log: r ? r.log : 0 });
};
checkpoint();
parentPort.postMessage({ ready: true });
setInterval(() => {
  let size = 0;
  try { size = statSync(workerData.file + '-wal').size; } catch { return; }
  if (size > limit) {
    try { checkpoint(); } catch (e) { parentPort.postMessage({ warning: String((e && e.message) || e) }); }
  }
}, workerData.lookMs);
`;

export function startCheckpointer(file: string, connection: BetterSqlite3.Database, options: { pages?: number; lookMs?: number; restartPages?: number } = {}): Checkpointer {
  let checkpoints = 0;
  let frames = 0;
  let log = 0;
  let catchUps = 0;
  const restartPages = options.restartPages ?? RESTART_PAGES;
  let handedOver = false;
  let closed = false;
  // Rows this connection changed (`total_changes()`) at its start or last catch-up: the catch-up
  // is the writer's, and an instance that only follows another's writes (on the same file) would
  // otherwise copy that instance's log on its own event loop.
  const changedRows = (connection.prepare('select total_changes()') as unknown as { pluck(): { get(): unknown } }).pluck();
  let changedAtCatchUp = Number(changedRows.get());
  const takeBack = () => {
    if (!handedOver) return;
    handedOver = false;
    // The main connection checkpoints by itself again (SQLite's default).
    if (connection.open) connection.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  };
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), pages: options.pages ?? CHECKPOINT_PAGES, lookMs: options.lookMs ?? LOOK_MS },
    resourceLimits: { maxOldGenerationSizeMb: CHECKPOINTER_HEAP_MB.old, maxYoungGenerationSizeMb: CHECKPOINTER_HEAP_MB.young },
  });
  let settle: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((resolve) => (settle = resolve));
  worker.on('message', (msg: { ready?: boolean; checkpointed?: number; log?: number }) => {
    if (msg.ready) {
      if (!closed && connection.open) {
        connection.pragma('wal_autocheckpoint = 0');
        connection.pragma(`journal_size_limit = ${2 * restartPages * Number(connection.pragma('page_size', { simple: true }))}`);
        handedOver = true;
      }
      settle(handedOver);
    }
    if (msg.checkpointed !== undefined) {
      checkpoints++;
      frames += Math.max(0, msg.checkpointed);
      log = Math.max(0, msg.log ?? 0);
      // A long log: copy the rest here, between two writes (nothing else writes on this connection
      // meanwhile), so that the next write starts the log over; only when this connection wrote
      // since its last catch-up (another instance's writes are that instance's to catch up with).
      const changed = connection.open ? Number(changedRows.get()) : changedAtCatchUp;
      if (log >= restartPages && changed !== changedAtCatchUp && handedOver && !closed && connection.open && !connection.inTransaction) {
        try {
          const [r] = connection.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
          if (r && r.busy === 0 && r.log === r.checkpointed) {
            catchUps++;
            changedAtCatchUp = changed;
          }
        } catch {
          // Busy or failing: the next report asks again; the log is as safe as before.
        }
      }
    }
  });
  worker.on('error', () => {
    takeBack();
    settle(false);
  });
  worker.on('exit', () => {
    takeBack();
    settle(false);
  });
  // Never what keeps the process alive once started (until then, what waits for `ready` would
  // see the process end first).
  void ready.then(() => {
    if (!closed) worker.unref();
  });
  return {
    ready,
    stats: () => ({ checkpoints, frames, log, catchUps }),
    heapBytes: () => workerHeapBytes(closed ? null : worker),
    async close() {
      closed = true;
      takeBack();
      // It says when it is ready (or fails): stopped only then (worker-threads.ts).
      await stopWorker(worker, ready);
    },
  };
}
