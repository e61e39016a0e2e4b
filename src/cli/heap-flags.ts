/**
 * The young generation's bound for the server (issue 27, item 5). Node 24's V8 lets the
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
 * @example reexecWithHeapFlags(process.argv) // returns only when there is nothing to do
 */
/** The semi-space bound (MiB) `serve` runs with unless told otherwise. */
export const SERVER_SEMI_SPACE_MB = 16;

/** The node arguments to add for these command arguments (none when already set or not `serve`). */
export function heapFlagsFor(argv: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const command = argv.slice(2).find((a) => !a.startsWith('-'));
  if (command !== 'serve') return [];
  const set = (a: string) => a.startsWith('--max-semi-space-size') || a.startsWith('--max_semi_space_size');
  if (execArgv.some(set) || (nodeOptions ?? '').split(/\s+/).some(set)) return [];
  return [`--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`];
}

/** Re-execute this process with the heap flags `serve` needs; returns when none are needed or it cannot. */
export function reexecWithHeapFlags(argv: readonly string[]): void {
  const flags = heapFlagsFor(argv, process.execArgv, process.env.NODE_OPTIONS);
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (flags.length === 0 || typeof execve !== 'function') return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...flags, ...process.execArgv, ...argv.slice(1)], process.env);
  } catch {
    // Not allowed here (a worker thread, a platform without it): run with V8's defaults.
  }
}
