/**
 * FullCalendar's global build ("script tag" build: no bundler), served by the service so the
 * snippet page's FullCalendar code is paste-ready: `@fullcalendar/core`, `daygrid` and `list`'s
 * `index.global.min.js` and core's French locale, read from the installed packages at first use,
 * each under a versioned URL (`/embed/vendor/fullcalendar-6.1.22/core.min.js`) answered with a
 * year-long immutable cache, CORS for any origin, and its Subresource Integrity hash (sha384)
 * computed once, for the snippet's `integrity` attributes.
 *
 * @example
 *   const vendor = createFullCalendarVendor();
 *   vendor.scripts('fr') // [{ name: 'core.min.js', path: '/embed/vendor/fullcalendar-6.1.22/core.min.js', integrity: 'sha384-…' }, …]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface VendorFile {
  /** the file's name in the URL (`core.min.js`, `locales/fr.min.js`) */
  name: string;
  /** the URL's path, versioned */
  path: string;
  /** `sha384-…` */
  integrity: string;
  code: Buffer;
}

export interface FullCalendarVendor {
  /** `fullcalendar-6.1.22`: the folder every file is under */
  readonly folder: string;
  /** The scripts a page loads, in order (core first, then the plugins, then the locale's file if one is needed). */
  scripts(locale?: string): VendorFile[];
  /** The file at this path (`core.min.js`), or undefined. */
  file(name: string): VendorFile | undefined;
}

/** The locales the snippet offers besides English (FullCalendar's own). */
export const FULLCALENDAR_LOCALES = ['fr'] as const;

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

export function createFullCalendarVendor(): FullCalendarVendor {
  const core = packageDir('@fullcalendar/core');
  const version = (JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')) as { version: string }).version;
  const folder = `fullcalendar-${version}`;
  const sources: Array<[string, string]> = [
    ['core.min.js', join(core, 'index.global.min.js')],
    ['daygrid.min.js', join(packageDir('@fullcalendar/daygrid'), 'index.global.min.js')],
    ['list.min.js', join(packageDir('@fullcalendar/list'), 'index.global.min.js')],
    ...FULLCALENDAR_LOCALES.map((l): [string, string] => [`locales/${l}.min.js`, join(core, 'locales', `${l}.global.min.js`)]),
  ];
  let files: Map<string, VendorFile> | undefined;
  const load = () =>
    (files ??= new Map(
      sources.map(([name, file]) => {
        const code = readFileSync(file);
        return [name, { name, path: `/embed/vendor/${folder}/${name}`, integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`, code }];
      }),
    ));
  return {
    folder,
    scripts(locale) {
      const all = load();
      const names = ['core.min.js', 'daygrid.min.js', 'list.min.js', ...(locale && all.has(`locales/${locale}.min.js`) ? [`locales/${locale}.min.js`] : [])];
      return names.map((n) => all.get(n)!);
    },
    file(name) {
      return load().get(name);
    },
  };
}
