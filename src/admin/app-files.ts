/**
 * The built admin app (dist/admin-app/, made by scripts/build-admin-app.mjs): its index.html with
 * the boot data put in, and its hashed assets. Found beside the compiled face (dist/admin →
 * dist/admin-app) or, when the face runs from its sources (tests, tsx), in dist/admin-app/.
 *
 * @example
 *   const files = adminAppFiles(); const html = await files.index();
 */
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The directory of the built app (the first candidate holding an index.html). */
export function adminAppDir(): string {
  const candidates = [join(here, '..', 'admin-app'), join(here, '..', '..', 'dist', 'admin-app')];
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[candidates.length - 1]!;
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=UTF-8',
  css: 'text/css; charset=UTF-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  woff: 'font/woff',
  json: 'application/json; charset=UTF-8',
};

export interface AdminAppFiles {
  /** index.html as built (re-read when the build changes it), or undefined when the app is not built. */
  index(): Promise<string | undefined>;
  /** An asset by its file name (hashed names only: letters, digits, `.`, `-`, `_`), or undefined. */
  asset(name: string): Promise<{ body: Buffer; type: string } | undefined>;
}

export function adminAppFiles(dir = adminAppDir()): AdminAppFiles {
  let kept: { mtime: number; html: string } | undefined;
  return {
    async index() {
      const file = join(dir, 'index.html');
      const st = await stat(file).catch(() => undefined);
      if (!st) return undefined;
      if (kept?.mtime !== st.mtimeMs) kept = { mtime: st.mtimeMs, html: await readFile(file, 'utf8') };
      return kept.html;
    },
    async asset(name) {
      if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) return undefined;
      const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
      if (!type) return undefined;
      const body = await readFile(join(dir, 'assets', name)).catch(() => undefined);
      return body ? { body, type } : undefined;
    },
  };
}

/** index.html for a request: asset URLs under ADMIN_PATH, the boot data in (as JSON data, `<` escaped). */
export function appIndexHtml(html: string, adminPath: string, boot: Record<string, unknown>, lang: string, icon = ''): string {
  const json = JSON.stringify(boot)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return html
    .replace(/(src|href)="\.\/assets\//g, `$1="${adminPath}/assets/`)
    .replace(/\{\{ADMIN_PATH\}\}/g, adminPath)
    .replace('<html lang="en">', `<html lang="${lang}">`)
    .replace('<!--admin-boot-->', () => `${icon}<script type="application/json" id="admin-boot">${json}</script>`);
}
