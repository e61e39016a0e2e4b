/**
 * How the tests start the `events-calendar` command: from the build (`dist/cli/main.js`) when it
 * is up to date with the sources, else from the sources through tsx. `npm test` builds first
 * (`scripts/build.mjs --if-stale`), so a whole run starts the build, as an operator does, at
 * about 0.5 s a start against 1 s through tsx (a few hundred starts in the suite); a single test
 * file run after an edit, without a build, still runs the edited sources. "Up to date" is the
 * build script's own test: no file under src/, nor tsconfig.json or package.json, newer than the
 * stamp of the last successful build.
 *
 * @example spawn(process.execPath, [...CLI_ENTRY, 'serve'])
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();

/** Newest modification time (ms) of a file or of the files under a directory (0: missing). */
function newest(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

function buildIsCurrent(): boolean {
  const stamp = statSync(join(root, 'dist', '.build-stamp'), { throwIfNoEntry: false });
  if (!stamp || !statSync(join(root, 'dist', 'cli', 'main.js'), { throwIfNoEntry: false })) return false;
  return Math.max(newest(join(root, 'src')), newest(join(root, 'tsconfig.json')), newest(join(root, 'package.json'))) <= stamp.mtimeMs;
}

/** Node's arguments that start the command (its own arguments follow). */
export const CLI_ENTRY: readonly string[] = process.env.TEST_CLI_FROM_SOURCES === '1' || !buildIsCurrent() ? ['--import', 'tsx', 'src/cli/main.ts'] : ['dist/cli/main.js'];
