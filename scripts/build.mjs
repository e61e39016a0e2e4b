#!/usr/bin/env node
/**
 * Compile src/ to dist/ with TypeScript, and stamp dist/ when it succeeds.
 *
 *   node scripts/build.mjs             always compile (`npm run build`)
 *   node scripts/build.mjs --if-stale  compile only when a file under src/, tsconfig.json or
 *                                      package.json is newer than the last successful build
 *                                      (`npm start`, `npm test`, and `prepare` on `npm ci`)
 *
 * Then the admin app (admin-app/, Vite) is built into dist/admin-app/ (scripts/build-admin-app.mjs),
 * with `--if-stale` only when a file under admin-app/ changed; it fails over its JavaScript budget.
 *
 * After a successful compile, outputs whose source is gone (a file moved or deleted under src/)
 * are removed from dist/, so that dist/ (what the package ships) holds only what src/ compiles to.
 *
 * Plain Node, no dependencies: it runs before anything else is known to be installed. Without
 * TypeScript (an install without devDependencies) an existing dist/ is used as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAdminApp } from './build-admin-app.mjs';
import { newestServerSource } from './newest.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const ifStale = process.argv.includes('--if-stale');

/** Remove the .js and .js.map files under dist/ whose .ts under src/ is gone, then empty directories. */
function prune(dir, rel = '') {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (rel === '' && entry.name === 'admin-app') continue; // the admin app's build, not tsc's
    const path = join(dir, entry.name);
    const relPath = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      prune(path, relPath);
      if (readdirSync(path).length === 0) rmdirSync(path);
      continue;
    }
    const source = /^(.*)\.js(?:\.map)?$/.exec(relPath);
    if (source && !existsSync(join(root, 'src', `${source[1]}.ts`))) unlinkSync(path);
  }
}

function compile() {
  if (ifStale && existsSync(stamp)) {
    const built = statSync(stamp).mtimeMs;
    const sources = newestServerSource(root);
    if (sources <= built) return;
  }

  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    if (existsSync(join(root, 'dist', 'cli', 'main.js'))) {
      console.error('build: TypeScript is not installed (no devDependencies); using the existing dist/');
      return;
    }
    console.error('build: dist/ is missing and TypeScript is not installed: run `npm ci` (with devDependencies), then `npm run build`');
    process.exit(1);
  }

  // The stamp gets the time the build started: a file saved while tsc runs is newer than it.
  const started = new Date();
  if (ifStale) console.error('build: compiling src/ to dist/ (sources changed since the last build)');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
  prune(join(root, 'dist'));
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

compile();
await buildAdminApp({ root, ifStale });
buildEmbed();

/** The `<events-calendar>` web component (issue 30): its own build into dist/embed/, in the same mode. */
function buildEmbed() {
  const embed = spawnSync(process.execPath, [join(root, 'embed', 'build.mjs'), ...(ifStale ? ['--if-stale'] : [])], { stdio: 'inherit', cwd: root });
  if (embed.status !== 0) process.exit(embed.status ?? 1);
}
