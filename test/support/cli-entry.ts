/**
 * How the tests start the `events-calendar` command: from the build (`dist/cli/main.js`) when it
 * is up to date with the sources, else from the sources (Node's type stripping, with the suite's
 * loader: scripts/typescript.mjs). `npm test` builds first (`scripts/build.mjs --if-stale`), so a
 * whole run starts the build, as an operator does (a few hundred starts in the suite); a single test
 * file run after an edit, without a build, still runs the edited sources. "Up to date" is the
 * build script's own test (scripts/newest.mjs): no file under src/, nor tsconfig.json or
 * package.json, newer than the stamp of the last successful build. `TEST_CLI_FROM_SOURCES=1` starts
 * it from the sources whatever the build.
 *
 * @example spawn(process.execPath, [...CLI_ENTRY, 'serve'])
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newestServerSource } from '../../scripts/newest.mjs';

const root = process.cwd();

function buildIsCurrent(): boolean {
  const stamp = statSync(join(root, 'dist', '.build-stamp'), { throwIfNoEntry: false });
  if (!stamp || !statSync(join(root, 'dist', 'cli', 'main.js'), { throwIfNoEntry: false })) return false;
  return newestServerSource(root) <= stamp.mtimeMs;
}

/** Node's arguments that start the command (its own arguments follow). */
export const CLI_ENTRY: readonly string[] =
  process.env.TEST_CLI_FROM_SOURCES === '1' || !buildIsCurrent() ? ['--import', pathToFileURL(join(root, 'scripts', 'typescript.mjs')).href, 'src/cli/main.ts'] : ['dist/cli/main.js'];
