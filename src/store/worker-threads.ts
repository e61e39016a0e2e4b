/**
 * What the store's two SQLite worker threads (the checkpointer, the background reader) share:
 * reading the V8 heap each holds (`calendar_memory_used_bytes`, memory-used.ts), and stopping one
 * without aborting the process.
 *
 * @example
 *   await workerHeapBytes(worker) // 3407872
 *   await stopWorker(worker, loaded)
 */
import type { Worker } from 'node:worker_threads';

/** How long a worker's heap figure is waited for (ms). */
const HEAP_ANSWER_MS = 1000;
/** How long `stopWorker` waits for a starting worker to have loaded SQLite before it stops it anyway (ms). */
const START_WAIT_MS = 5_000;

/**
 * What a worker thread's V8 heap holds (`total_heap_size`), in bytes; 0 when there is none or it is
 * not running (starting, stopped), does not answer within a second, or the Node line cannot tell
 * (`getHeapStatistics`: 22.16 and later).
 */
export async function workerHeapBytes(worker: Worker | null): Promise<number> {
  if (!worker || typeof worker.getHeapStatistics !== 'function') return 0;
  // The answer comes as a message from the worker, which (idle, unreferenced) keeps nothing
  // alive: on Node 22 a process with nothing else to do would end before it came. A timer keeps
  // the process up meanwhile and gives up after a second.
  let guard: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => (guard = setTimeout(() => resolve(0), HEAP_ANSWER_MS)));
  try {
    return await Promise.race([worker.getHeapStatistics().then((s) => s.total_heap_size), late]);
  } catch {
    return 0;
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Stop a worker once it has loaded better-sqlite3 (`loaded` settles then, or when it failed or
 * stopped; waited for 5 s at most): `terminate` during the addon's set-up aborts the whole process
 * ("FATAL ERROR: Error::New napi_get_last_error_info"; seen in CI, a CLI command that closed its
 * store at once). Referenced until it has stopped, so that whoever awaits this hears back (an
 * unreferenced worker's exit keeps nothing running), also when something unreferenced it meanwhile.
 */
export async function stopWorker(worker: Worker, loaded: Promise<unknown>): Promise<void> {
  worker.ref();
  await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, START_WAIT_MS).unref())]);
  worker.ref();
  await worker.terminate();
}
