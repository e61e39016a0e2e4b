/**
 * Strings and dates in the user's language. Catalogues are flat JSON files
 * `admin-app/src/i18n/<name>.<lang>.json` (keys prefixed `<name>.`), all found by `import.meta.glob`
 * so a plug-in adds its own without touching this file. The language: the user's choice (the
 * header's selector: kept in localStorage and sent as the `calendar_lang` cookie, which the server
 * honours for the sign-in and account pages), else what the server chose from `Accept-Language`,
 * else the browser's languages; English when nothing matches. A key missing in a language falls
 * back to English, then to the key itself.
 *
 * Counts go through the catalogue, never `{n} thing(s)`: a message holds an ICU-style plural,
 * `{n, plural, one {# event} other {# events}}`, whose branch is chosen by the language's
 * `Intl.PluralRules` (French treats 0 and 1 as singular, English only 1; `=0` picks an exact
 * number first) and `#` is the number formatted for the language. One message may hold several.
 *
 * @example
 *   t('events.bulk.trashQ', { n: 1 }) // 'Move 1 event to the trash?'
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

/** The text of a key in the current language, `{name}` placeholders and plurals filled from `vars`. */
export function t(key: string, vars?: Record<string, string | number>): string {
  const lang = catalogues[locale.value]?.[key] !== undefined ? locale.value : 'en';
  const text = catalogues[lang]?.[key] ?? key;
  return vars ? fill(text, vars, lang) : text;
}

const rules = new Map<string, Intl.PluralRules>();

/** The end of the `{…}` group opening at `start` (its closing brace), or -1. */
function closing(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** `{name}` placeholders and `{name, plural, …}` choices of a message, in the message's language. */
function fill(text: string, vars: Record<string, string | number>, lang: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    const end = open < 0 ? -1 : closing(text, open);
    if (end < 0) return out + text.slice(i);
    out += text.slice(i, open);
    const body = text.slice(open + 1, end);
    const plural = /^\s*(\w+)\s*,\s*plural\s*,/.exec(body);
    if (plural) out += choose(body.slice(plural[0].length), plural[1]!, vars, lang);
    else out += /^\w+$/.test(body) && body in vars ? String(vars[body]) : `{${body}}`;
    i = end + 1;
  }
  return out;
}

/** The branch of a plural for the number in `vars[name]`: `=N` first, then the language's category, then `other`. */
function choose(options: string, name: string, vars: Record<string, string | number>, lang: string): string {
  const n = Number(vars[name]);
  const branches = new Map<string, string>();
  const re = /\s*(=\d+|\w+)\s*\{/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(options))) {
    const open = m.index + m[0].length - 1;
    const end = closing(options, open);
    if (end < 0) break;
    branches.set(m[1]!, options.slice(open + 1, end));
    re.lastIndex = end + 1;
  }
  let pr = rules.get(lang);
  if (!pr) rules.set(lang, (pr = new Intl.PluralRules(lang)));
  const branch = branches.get(`=${n}`) ?? branches.get(pr.select(n)) ?? branches.get('other') ?? '';
  const shown = Number.isFinite(n) ? new Intl.NumberFormat(lang).format(n) : String(vars[name] ?? '');
  return fill(branch.replace(/#/g, shown), vars, lang);
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
