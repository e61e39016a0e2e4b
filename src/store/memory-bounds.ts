/**
 * What the store may hold in memory outside the JavaScript heap, in one place:
 * the SQLite page caches of its connections (the server's, the background reader's, the
 * checkpointer's) and the heap limits of the two worker threads that hold those connections.
 * Each cache fills up to its bound as pages are read and then stays there, counted in the
 * process' RSS; the operating system's file cache serves the rest (not counted in RSS).
 * `/metrics` reports them as `calendar_memory_bound_bytes{part}` (src/http/metrics.ts), and what the
 * worker heaps hold now as `calendar_memory_used_bytes{part}` (`memoryUsed`, memory-used.ts, from
 * `workerHeapBytes`, worker-threads.ts).
 *
 * @example memoryBounds('sqlite') // { sqlite_cache_main: 33554432, … }
 */
import type { DialectName } from './dialect.js';

const MiB = 1024 * 1024;
/** The server's connection: the list pages, single events and writes (was 64 MiB). */
export const MAIN_CACHE_KIB = 32 * 1024;
/** The background reader (list totals: one pass over an index, little reuse). */
export const BACKGROUND_CACHE_KIB = 4 * 1024;
/** The background reader's worker thread heap (old and young generation), MiB. */
export const BACKGROUND_HEAP_MB = { old: 64, young: 8 } as const;
/** The checkpointer's worker thread heap, MiB (its connection keeps SQLite's default cache, 2,000 KiB). */
export const CHECKPOINTER_HEAP_MB = { old: 16, young: 4 } as const;
const SQLITE_DEFAULT_CACHE_BYTES = 2000 * 1024;

/** The bounds, by part, in bytes (none for PostgreSQL: its caches are the database server's). */
export function memoryBounds(dialect: DialectName): Record<string, number> {
  if (dialect !== 'sqlite') return {};
  return {
    sqlite_cache_main: MAIN_CACHE_KIB * 1024,
    sqlite_cache_background: BACKGROUND_CACHE_KIB * 1024,
    sqlite_cache_checkpointer: SQLITE_DEFAULT_CACHE_BYTES,
    worker_heap_background: (BACKGROUND_HEAP_MB.old + BACKGROUND_HEAP_MB.young) * MiB,
    worker_heap_checkpointer: (CHECKPOINTER_HEAP_MB.old + CHECKPOINTER_HEAP_MB.young) * MiB,
  };
}
