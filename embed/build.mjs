#!/usr/bin/env node
/**
 * Build the `<events-calendar>` web component (issue 30): type-check embed/src, bundle it with
 * esbuild (the one vite installs) into one minified ES module, and write to dist/embed/:
 *
 *   events-calendar.<hash>.js   the long-cache asset (its name changes with its bytes)
 *   events-calendar.js          the same bytes, for the stable URL
 *   manifest.json               { file, hash, integrity (sha384, for SRI), bytes, gzipBytes }
 *
 * Fails (exit 1, nothing written) when the bundle is over BUDGET_GZIP bytes gzipped.
 *
 *   node embed/build.mjs             always build
 *   node embed/build.mjs --if-stale  only when a file under embed/ is newer than the manifest
 *
 * Called by scripts/build.mjs (both modes); the embed face (src/embed) serves dist/embed/.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { newest } from '../scripts/newest.mjs';

/** The most the component may weigh, gzipped (the budget: 25 kB). EMBED_GZIP_BUDGET may only lower it (the tests check the failure). */
const BUDGET_GZIP = Math.min(25 * 1024, Number(process.env.EMBED_GZIP_BUDGET) || Infinity);

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = join(root, 'dist', 'embed');
const manifestPath = join(out, 'manifest.json');

/** Whether dist/embed/ holds a build newer than every file under embed/ (scripts/build.mjs prunes .js files without a .ts under src/). */
function fresh() {
  if (!existsSync(manifestPath) || newest(here) > statSync(manifestPath).mtimeMs) return false;
  try {
    const { file } = JSON.parse(readFileSync(manifestPath, 'utf8'));
    return existsSync(join(out, file)) && existsSync(join(out, 'events-calendar.js'));
  } catch {
    return false;
  }
}

if (process.argv.includes('--if-stale') && fresh()) process.exit(0);

const require = createRequire(import.meta.url);
let esbuild;
try {
  esbuild = require(require.resolve('esbuild', { paths: [dirname(require.resolve('vite/package.json')), root] }));
} catch {
  if (existsSync(manifestPath)) {
    console.error('embed build: esbuild is not installed (no devDependencies); using the existing dist/embed/');
    process.exit(0);
  }
  console.error('embed build: dist/embed/ is missing and esbuild (from vite) is not installed: run `npm ci` with devDependencies');
  process.exit(1);
}

// Type-check first: esbuild only strips types.
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const result = await esbuild.build({
  entryPoints: [join(here, 'src', 'events-calendar.ts')],
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
const code = Buffer.from(result.outputFiles[0].contents);
const gzipBytes = gzipSync(code, { level: 9 }).length;
if (gzipBytes > BUDGET_GZIP) {
  console.error(`embed build: events-calendar.js is ${gzipBytes} bytes gzipped, over the budget of ${BUDGET_GZIP}`);
  process.exit(1);
}
const hash = createHash('sha256').update(code).digest('hex').slice(0, 12);
const file = `events-calendar.${hash}.js`;
const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
mkdirSync(out, { recursive: true });
for (const entry of readdirSync(out)) if (/^events-calendar\.[0-9a-f]+\.js$/.test(entry) && entry !== file) unlinkSync(join(out, entry));
writeFileSync(join(out, file), code);
writeFileSync(join(out, 'events-calendar.js'), code);
writeFileSync(manifestPath, `${JSON.stringify({ file, hash, integrity, bytes: code.length, gzipBytes, budgetGzip: BUDGET_GZIP }, null, 2)}\n`);
console.error(`embed build: dist/embed/${file} (${code.length} bytes, ${gzipBytes} gzipped, budget ${BUDGET_GZIP})`);
