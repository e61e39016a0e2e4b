/**
 * What the store's worker threads hold now, beside their bounds in
 * memory-bounds.ts: their V8 heaps, read from each running worker (`Worker.getHeapStatistics`).
 *
 * @example await memoryUsed(store.db) // { worker_heap_background: 0, worker_heap_checkpointer: 3407872 }
 */
import { backgroundReaderOf, checkpointerOf } from './handle.js';

/**
 * What the worker threads' heaps hold now, in bytes, by the parts of `memoryBounds` (SQLite files
 * only: the background reader's is 0 while it is idle and stopped). `/metrics` reports them as
 * `calendar_memory_used_bytes{part}`.
 */
export async function memoryUsed(db: object): Promise<Record<string, number>> {
  const reader = backgroundReaderOf(db);
  const checkpointer = checkpointerOf(db);
  const out: Record<string, number> = {};
  const [background, checkpointing] = await Promise.all([reader?.heapBytes(), checkpointer?.heapBytes()]);
  if (background !== undefined) out.worker_heap_background = background;
  if (checkpointing !== undefined) out.worker_heap_checkpointer = checkpointing;
  return out;
}
