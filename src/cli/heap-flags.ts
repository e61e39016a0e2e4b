/**
 * The heap flags of the server. The young generation's bound: Node 24's V8 lets the
 * young generation (new space: two semi-spaces) grow to 128 MiB under allocation pressure, as a
 * server under load makes: most of the gap between the RSS at rest and under load (RSS 349 MB at
 * 1,000,000 events). With `--max-semi-space-size=16` it stays within 32 MiB (Node 20's bound),
 * at the price of more, still short, minor collections.
 *
 * V8 reads the flag when the heap is made, so `v8.setFlagsFromString` is too late: `serve`
 * re-executes itself with the flag (`process.execve`: the same process id, nothing left behind)
 * unless it was started with a `--max-semi-space-size` of its own (node arguments or NODE_OPTIONS),
 * which is kept. Where `process.execve` is missing (Node 22 before 22.15), it runs as it is.
 *
 * It also bounds how far the old generation grows past what it kept at its last full collection
 * (`--heap-growing-percent=20`: the next full collection starts when the heap has grown by a
 * fifth). V8 otherwise lets it grow by up to 4× on a fast machine, and a server under load promotes
 * the garbage of the answers in flight: under the mixed benchmark at 1,000,000 events, V8's pages
 * held 164-182 MB for a heap of 84-106 MB in use, and the buffers its late collections freed kept
 * malloc's heap at 137-141 MB; with the bound the RSS peaked at 287-292 MB instead of 394-411 MB,
 * for as many requests (bench/RESULTS.md, 2026-11-28). Full collections mark concurrently, on
 * V8's own threads.
 *
 * It also starts with `MALLOC_ARENA_MAX=2` (glibc's malloc, read at start, so also through the
 * re-execution), unless the environment sets it: by default glibc gives each thread that
 * allocates (the two SQLite worker threads, V8's and libuv's) an arena of its own, which kept
 * 26-33 MB resident under the mixed benchmark at 1,000,000 events; with two arenas they kept 11 MB,
 * for the same number of requests (bench/RESULTS.md, 2026-11-27). Other C libraries ignore it.
 *
 * @example reexecWithHeapFlags(process.argv) // returns only when there is nothing to do
 */
/** The semi-space bound (MiB) `serve` runs with unless told otherwise. */
export const SERVER_SEMI_SPACE_MB = 16;

/** Whether these command arguments start the server. */
function isServe(argv: readonly string[]): boolean {
  return argv.slice(2).find((a) => !a.startsWith('-')) === 'serve';
}

/** How far (percent) the old generation may grow past what its last full collection kept, for the server. */
export const SERVER_HEAP_GROWING_PERCENT = 20;

/** The node arguments to add for these command arguments (each unless already given; none when not `serve`). */
export function heapFlagsFor(argv: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  if (!isServe(argv)) return [];
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  // V8 takes a flag with dashes or underscores.
  const unless = (flag: string, value: number) => (given.some((a) => a.replace(/_/g, '-').startsWith(`--${flag}`)) ? [] : [`--${flag}=${value}`]);
  return [...unless('max-semi-space-size', SERVER_SEMI_SPACE_MB), ...unless('heap-growing-percent', SERVER_HEAP_GROWING_PERCENT)];
}

/** glibc's malloc arenas `serve` runs with unless the environment says otherwise. */
export const SERVER_MALLOC_ARENAS = 2;

/** The environment variables to add for these command arguments (none when already set or not `serve`). */
export function heapEnvFor(argv: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  if (!isServe(argv) || env.MALLOC_ARENA_MAX !== undefined) return {};
  return { MALLOC_ARENA_MAX: String(SERVER_MALLOC_ARENAS) };
}

/** Re-execute this process with the heap flags and environment `serve` needs; returns when none are needed or it cannot. */
export function reexecWithHeapFlags(argv: readonly string[]): void {
  const flags = heapFlagsFor(argv, process.execArgv, process.env.NODE_OPTIONS);
  const env = heapEnvFor(argv, process.env);
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if ((flags.length === 0 && Object.keys(env).length === 0) || typeof execve !== 'function') return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...flags, ...process.execArgv, ...argv.slice(1)], { ...process.env, ...env });
  } catch {
    // Not allowed here (a worker thread, a platform without it): run with V8's defaults.
  }
}
