/**
 * Strings and dates in the user's language. Catalogues are flat JSON files
 * `admin-app/src/i18n/<name>.<lang>.json` (keys prefixed `<name>.`), all found by `import.meta.glob`
 * so a plug-in adds its own without touching this file. The language: the user's choice (the
 * header's selector: kept in localStorage and sent as the `calendar_lang` cookie, which the server
 * honours for the sign-in and account pages), else what the server chose from `Accept-Language`,
 * else the browser's languages; English when nothing matches. A key missing in a language falls
 * back to English, then to the key itself.
 *
 * @example
 *   t('events.count', { n: 3 }) // '3 events'
 *   formatDate(event.utc_start_date, { timeZone: event.timezone }) // '2 Mar 2027, 19:00'
 */
import { effect, signal } from '@preact/signals';
import { boot } from './session';

type Catalogue = Record<string, string>;

const files = import.meta.glob<Catalogue>('../i18n/*.json', { eager: true, import: 'default' });

/** The catalogues by language, merged over every file. */
export const catalogues: Record<string, Catalogue> = {};
for (const [path, strings] of Object.entries(files)) {
  const m = /([^/]+)\.([a-z]{2})\.json$/.exec(path);
  if (!m) continue;
  catalogues[m[2]!] = { ...(catalogues[m[2]!] ?? {}), ...strings };
}

/** Languages offered, with their own names. */
export const LANGUAGES: Array<{ code: string; name: string }> = [
  { code: 'en', name: 'English' },
  { code: 'fr', name: 'Français' },
].filter((l) => catalogues[l.code]);

const STORAGE_KEY = 'calendar-admin-locale';
export const LANG_COOKIE = 'calendar_lang';

function supported(code: string | null | undefined): string | undefined {
  const short = (code ?? '').toLowerCase().split(/[-_]/)[0]!;
  return catalogues[short] ? short : undefined;
}

function initialLocale(): string {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    /* storage refused */
  }
  return supported(stored) ?? supported(boot.locale) ?? (typeof navigator === 'undefined' ? undefined : navigator.languages.map(supported).find(Boolean)) ?? 'en';
}

export const locale = signal<string>(initialLocale());

// The page's language follows the choice at once, in the same turn as the text (a Preact effect
// would set it after the next paint: assistive technology would read the new text with the old
// language for a moment).
effect(() => {
  if (typeof document !== 'undefined') document.documentElement.lang = locale.value;
});

/** Choose the language: kept in this browser and told to the server (a cookie it reads). */
export function setLocale(code: string): void {
  const chosen = supported(code) ?? 'en';
  try {
    localStorage.setItem(STORAGE_KEY, chosen);
  } catch {
    /* storage refused */
  }
  document.cookie = `${LANG_COOKIE}=${chosen}; path=/; max-age=31536000; SameSite=Lax`;
  locale.value = chosen;
}

/** The text of a key in the current language, `{name}` placeholders filled from `vars`. */
export function t(key: string, vars?: Record<string, string | number>): string {
  const text = catalogues[locale.value]?.[key] ?? catalogues.en?.[key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/**
 * A date for the locale (`Intl.DateTimeFormat`). Strings `YYYY-MM-DD HH:MM[:SS]` are read as UTC
 * (pass the API's `utc_*`/`*_gmt` fields, with `timeZone` the zone to show them in); `YYYY-MM-DD`
 * alone is a calendar date. Default style: medium date, short time.
 */
export function formatDate(value: string | number | Date, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  let date: Date;
  let opts = options;
  if (typeof value === 'string') {
    const day = /^(\d{4})-(\d\d)-(\d\d)$/.exec(value);
    const utc = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d))?$/.exec(value);
    if (day) {
      date = new Date(Date.UTC(+day[1]!, +day[2]! - 1, +day[3]!, 12));
      opts = { ...options, timeZone: 'UTC', timeStyle: undefined, hour: undefined, minute: undefined };
      if (!opts.dateStyle && !opts.day) opts.dateStyle = 'medium';
    } else if (utc) date = new Date(Date.UTC(+utc[1]!, +utc[2]! - 1, +utc[3]!, +utc[4]!, +utc[5]!, +(utc[6] ?? 0)));
    else date = new Date(value);
  } else date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  try {
    return new Intl.DateTimeFormat(locale.value, opts).format(date);
  } catch {
    return new Intl.DateTimeFormat(locale.value, { ...opts, timeZone: undefined }).format(date);
  }
}

/** A number for the locale. */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(locale.value, options).format(n);
}
