/**
 * The V8 heap of one of the store's worker threads (background reader, checkpointer), for
 * `calendar_memory_used_bytes` (memory-used.ts).
 *
 * @example await workerHeapBytes(worker) // 3407872
 */
import type { Worker } from 'node:worker_threads';

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

/** How long a worker's heap figure is waited for (ms). */
const HEAP_ANSWER_MS = 1000;
