/**
 * When a build is stale: the newest modification time under a path, and the sources `src/`
 * compiles from. Shared by the build scripts (scripts/build.mjs, scripts/build-admin-app.mjs,
 * embed/build.mjs) and the tests (test/support/cli-entry.ts starts the CLI from dist/ only when
 * the build is current), so that they agree on what "current" means. Plain Node, no dependencies.
 *
 * @example newest('src') > statSync('dist/.build-stamp').mtimeMs // the sources changed since
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time (ms) of a file or of the files under a directory (0: missing), not descending into `skip`. */
export function newest(path, skip = []) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs; // a deleted or renamed file moves its directory's time
  for (const entry of readdirSync(path)) if (!skip.includes(entry)) max = Math.max(max, newest(join(path, entry), skip));
  return max;
}

/** Newest modification time (ms) of what `dist/` (but for the admin app and the embed) is compiled from. */
export function newestServerSource(root) {
  return Math.max(newest(join(root, 'src')), newest(join(root, 'tsconfig.json')), newest(join(root, 'package.json')));
}
