/**
 * Build the admin app (admin-app/, Vite + Preact) into dist/admin-app/ with hashed assets, and
 * measure its JavaScript gzipped: the whole app at most 200 kB, the initial screen (the entry chunk
 * and every chunk it imports statically) at most 120 kB; over budget the build fails. The sizes are
 * printed and written to dist/admin-app/sizes.json (docs/admin.md quotes them).
 *
 * Called by scripts/build.mjs; with `ifStale`, only when a file under admin-app/ is newer than the
 * last successful build of the app. Without Vite (an install without devDependencies) an existing
 * dist/admin-app/ is used as it is.
 *
 * @example
 *   await buildAdminApp({ root, ifStale: true });
 */
import { existsSync, statSync, writeFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { newest } from './newest.mjs';

export const BUDGET_TOTAL = 200 * 1024;
export const BUDGET_INITIAL = 120 * 1024;

/** The gzipped sizes of the JavaScript of a Rollup output: total, initial, and per chunk. */
export function measure(output) {
  const chunks = output.filter((o) => o.type === 'chunk');
  const size = new Map(chunks.map((c) => [c.fileName, gzipSync(Buffer.from(c.code), { level: 9 }).length]));
  const byName = new Map(chunks.map((c) => [c.fileName, c]));
  const initial = new Set();
  const visit = (name) => {
    if (initial.has(name)) return;
    initial.add(name);
    for (const dep of byName.get(name)?.imports ?? []) visit(dep);
  };
  for (const c of chunks) if (c.isEntry) visit(c.fileName);
  const sum = (names) => [...names].reduce((n, name) => n + (size.get(name) ?? 0), 0);
  return {
    total: sum(size.keys()),
    initial: sum(initial),
    chunks: Object.fromEntries([...size].sort((a, b) => b[1] - a[1])),
  };
}

const kB = (n) => `${(n / 1024).toFixed(1)} kB`;

export async function buildAdminApp({ root, ifStale }) {
  const appDir = join(root, 'admin-app');
  const outDir = join(root, 'dist', 'admin-app');
  const stamp = join(outDir, '.build-stamp');
  if (!existsSync(appDir)) return;
  if (ifStale && existsSync(stamp) && newest(appDir, ['node_modules']) <= statSync(stamp).mtimeMs) return;
  let vite, preact;
  try {
    vite = await import('vite');
    preact = (await import('@preact/preset-vite')).default;
  } catch {
    if (existsSync(join(outDir, 'index.html'))) {
      console.error('build: Vite is not installed (no devDependencies); using the existing dist/admin-app/');
      return;
    }
    console.error('build: dist/admin-app/ is missing and Vite is not installed: run `npm ci` (with devDependencies), then `npm run build`');
    process.exit(1);
  }
  const started = new Date();
  console.error('build: building the admin app (admin-app/ to dist/admin-app/)');
  const result = await vite.build({
    root: appDir,
    base: './',
    configFile: false,
    logLevel: 'warn',
    plugins: [preact({ devToolsInProd: false, prefreshEnabled: false })],
    build: { outDir, emptyOutDir: true, assetsDir: 'assets', sourcemap: false, target: 'es2022', modulePreload: { polyfill: false }, reportCompressedSize: false },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  const sizes = measure(outputs);
  writeFileSync(join(outDir, 'sizes.json'), JSON.stringify({ budget: { total: BUDGET_TOTAL, initial: BUDGET_INITIAL }, ...sizes }, null, 2) + '\n');
  console.error(`build: admin app JavaScript, gzipped: whole app ${kB(sizes.total)} (budget ${kB(BUDGET_TOTAL)}), initial screen ${kB(sizes.initial)} (budget ${kB(BUDGET_INITIAL)})`);
  if (sizes.total > BUDGET_TOTAL || sizes.initial > BUDGET_INITIAL) {
    console.error('build: the admin app is over its JavaScript budget');
    for (const [name, n] of Object.entries(sizes.chunks)) console.error(`  ${name} ${kB(n)}`);
    process.exit(1);
  }
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}
