/**
 * Slugs the way WordPress makes them (`sanitize_title()` in the "save" context and
 * `wp_unique_post_slug()` numbering). Pure functions; uniqueness is checked through a callback.
 */

import { removeLazySpans } from './text/php.js';

/**
 * Characters WordPress `remove_accents()` maps that Unicode decomposition cannot handle
 * (digraphs, strokes, ordinal indicators, …), default (en_US) locale.
 */
const ACCENT_OVERRIDES: Record<string, string> = {
  ª: 'a',
  º: 'o',
  Æ: 'AE',
  æ: 'ae',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  ß: 's',
  Ø: 'O',
  ø: 'o',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ĳ: 'IJ',
  ĳ: 'ij',
  ĸ: 'k',
  Ŀ: 'L',
  ŀ: 'l',
  Ł: 'L',
  ł: 'l',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  Œ: 'OE',
  œ: 'oe',
  Ŧ: 'T',
  ŧ: 't',
  ſ: 's',
  ɑ: 'a',
  '€': 'E',
  '£': '',
};

/** Locale-specific `remove_accents()` rules (WordPress: de_*, da_DK, ca, sr_RS, bs_BA). */
function localeOverrides(locale: string): Record<string, string> {
  if (locale.startsWith('de')) return { Ä: 'Ae', ä: 'ae', Ö: 'Oe', ö: 'oe', Ü: 'Ue', ü: 'ue', ß: 'ss' };
  if (locale === 'da_DK') return { Æ: 'Ae', æ: 'ae', Ø: 'Oe', ø: 'oe', Å: 'Aa', å: 'aa' };
  if (locale === 'sr_RS' || locale === 'bs_BA') return { Đ: 'DJ', đ: 'dj' };
  return {};
}

/**
 * `remove_accents()`: accented Latin letters lose their marks (via the override table, then
 * canonical decomposition). Anything else is returned unchanged.
 */
function removeAccents(text: string, locale: string): string {
  const local = localeOverrides(locale);
  let source = text.normalize('NFC');
  if (locale === 'ca') source = source.replace(/l·l/g, 'll');
  let out = '';
  for (const ch of source) {
    if (ch.charCodeAt(0) < 0x80) {
      out += ch;
      continue;
    }
    const mapped = local[ch] ?? ACCENT_OVERRIDES[ch];
    if (mapped !== undefined) {
      out += mapped;
      continue;
    }
    if (/\p{Script=Latin}/u.test(ch)) {
      const stripped = ch.normalize('NFD').replace(/\p{M}/gu, '');
      if (/^[A-Za-z]+$/.test(stripped)) {
        out += stripped;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** Like PHP `strip_tags()` (comments and tags removed, `<` + whitespace kept as text). */
function stripTagsForSlug(text: string): string {
  return text.replace(/<!--[\s\S]*?(?:-->|$)|<(?![ \t\n\r\v\f])(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^'">])*(?:>|$)/g, '');
}

/** Encoded characters WordPress' "save" context strips (soft hyphen, quotes, marks, zero-width characters, …). */
const STRIPPED_OCTETS = [
  '%c2%ad',
  '%c2%a1',
  '%c2%bf',
  '%c2%ab',
  '%c2%bb',
  '%e2%80%b9',
  '%e2%80%ba',
  '%e2%80%98',
  '%e2%80%99',
  '%e2%80%9c',
  '%e2%80%9d',
  '%e2%80%9a',
  '%e2%80%9b',
  '%e2%80%9e',
  '%e2%80%9f',
  '%e2%80%a2',
  '%c2%a9',
  '%c2%ae',
  '%c2%b0',
  '%e2%80%a6',
  '%e2%84%a2',
  '%c2%b4',
  '%cb%8a',
  '%cc%81',
  '%cd%81',
  '%cc%80',
  '%cc%84',
  '%cc%8c',
  '%e2%80%8b',
  '%e2%80%8c',
  '%e2%80%8d',
  '%e2%80%8e',
  '%e2%80%8f',
  '%e2%80%aa',
  '%e2%80%ab',
  '%e2%80%ac',
  '%e2%80%ad',
  '%e2%80%ae',
  '%ef%bb%bf',
  '%ef%bf%bc',
];
/** Encoded spaces of some width (and nbsp, en and em dashes), which become `-`. */
const DASHED_OCTETS = [
  '%c2%a0',
  '%e2%80%93',
  '%e2%80%94',
  '%e2%80%80',
  '%e2%80%81',
  '%e2%80%82',
  '%e2%80%83',
  '%e2%80%84',
  '%e2%80%85',
  '%e2%80%86',
  '%e2%80%87',
  '%e2%80%88',
  '%e2%80%89',
  '%e2%80%8a',
  '%e2%80%a8',
  '%e2%80%a9',
  '%e2%80%af',
];

function replaceEach(text: string, needles: readonly string[], by: string): string {
  let out = text;
  for (const n of needles) if (out.includes(n)) out = out.split(n).join(by);
  return out;
}

/**
 * WordPress `utf8_uri_encode()`: characters outside ASCII become lower-case `%xx` octets of their
 * UTF-8 bytes; with `maxLength`, the result stops before the character (ASCII or encoded) that
 * would make it longer, so a character is never cut. `encodeAscii` also percent-encodes ASCII
 * (`rawurlencode`), as `_truncate_post_slug` asks.
 *
 * @example utf8UriEncode('кот') // '%d0%ba%d0%be%d1%82'
 */
export function utf8UriEncode(text: string, maxLength = 0, encodeAscii = false): string {
  let out = '';
  for (const ch of text) {
    let piece: string;
    const code = ch.codePointAt(0)!;
    if (code < 0x80) piece = encodeAscii ? encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : ch;
    else piece = [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16)}`).join('');
    if (maxLength && out.length + piece.length > maxLength) break;
    out += piece;
  }
  return out;
}

/**
 * WordPress `sanitize_title()` ("save" context, i.e. `remove_accents` + `sanitize_title_with_dashes`):
 * tags stripped, accents removed (é→e; WordPress' default locale maps ß→s, pass
 * `{ locale: 'de_DE' }` for ß→ss, ä→ae …), lower-cased; other non-ASCII characters are kept
 * percent-encoded as lower-case UTF-8 octets (`Концерт` → `%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82`,
 * at most 200 bytes, never cutting a character), octets already encoded in the input are kept
 * (so the encoded form of a slug sanitizes to itself); spaces, `.`, `/`, no-break spaces and en/em
 * dashes become `-`, quotes and invisible characters are dropped, HTML entities dropped, anything
 * else than `a-z 0-9 % - _` dropped, runs of `-` collapsed and trimmed. Returns '' when nothing is left.
 *
 * @example sanitizeSlug('Café Müller') // 'cafe-muller'
 * @example sanitizeSlug('Концерт') // '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82'
 */
export function sanitizeSlug(text: string, options: { locale?: string } = {}): string {
  let title = removeAccents(stripTagsForSlug(text), options.locale ?? 'en_US');
  // Keep escaped octets, drop other percent signs.
  title = title
    .replace(/%([a-fA-F0-9]{2})/g, '---$1---')
    .replace(/%/g, '')
    .replace(/---([a-fA-F0-9]{2})---/g, '%$1');
  title = utf8UriEncode(title.toLowerCase(), 200).toLowerCase();
  title = replaceEach(title, DASHED_OCTETS, '-');
  title = replaceEach(title, ['&nbsp;', '&#160;', '&ndash;', '&#8211;', '&mdash;', '&#8212;'], '-');
  title = title.replace(/\//g, '-');
  title = replaceEach(title, STRIPPED_OCTETS, '');
  title = title.split('%c3%97').join('x');
  title = removeLazySpans(title, '&', ';'); // WordPress: preg_replace( '/&.+?;/', '', $title )
  title = title.replace(/\./g, '-');
  title = title.replace(/[^%a-z0-9 _-]/g, '');
  title = title.replace(/\s+/g, '-');
  title = title.replace(/-+/g, '-');
  return title.replace(/^-+|-+$/g, '');
}

/**
 * The forms a by-slug route may be given for a stored slug: the path segment as sent (decoded by
 * the router) sanitized like a title, so `Концерт`, `концерт` and its percent-encoded form
 * (`%d0%ba…`, any case) all name the stored `%d0%ba…`; the raw value when it sanitizes to nothing.
 *
 * @example slugForLookup('Концерт') // '%d0%ba%d0%be%d0%bd%d1%86%d0%b5%d1%80%d1%82'
 */
export function slugForLookup(value: string): string {
  return sanitizeSlug(value) || value;
}

/** Flat post slugs WordPress refuses (feed names and `embed`): pass as `reserved` for posts. */
export const RESERVED_POST_SLUGS: readonly string[] = ['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed'];

/**
 * WordPress `_truncate_post_slug()`: an ASCII slug is cut at `length`; an encoded one is decoded
 * and encoded again within `length` bytes, so no character is cut.
 */
export function truncateSlug(slug: string, length: number): string {
  let out = slug;
  if (slug.length > length) {
    let decoded = slug;
    try {
      decoded = decodeURIComponent(slug.replace(/\+/g, ' '));
    } catch {
      decoded = slug;
    }
    out = decoded === slug ? slug.slice(0, length) : utf8UriEncode(decoded, length, true).toLowerCase();
  }
  return out.replace(/-+$/, '');
}

/** The first slug `uniqueSlug` tries for this base (cut to `maxLength`, as a long title is). */
export function firstSlugCandidate(base: string, maxLength = 200): string {
  return base.length > maxLength ? truncateSlug(base, maxLength) : base;
}

/**
 * WordPress `wp_unique_post_slug()` numbering: `base` if it is free, else `base-2`, `base-3`, …
 * (the base is truncated so the result stays within `maxLength`, default 200; a longer base is cut
 * to it first). An empty base stays
 * empty. `reserved` slugs (e.g. {@link RESERVED_POST_SLUGS}) count as taken for the bare base.
 *
 * @example await uniqueSlug('jazz-night', (s) => s === 'jazz-night') // 'jazz-night-2'
 */
export async function uniqueSlug(base: string, taken: (candidate: string) => boolean | Promise<boolean>, options: { reserved?: readonly string[]; maxLength?: number } = {}): Promise<string> {
  if (base === '') return '';
  const maxLength = options.maxLength ?? 200;
  // The slug column holds 200 characters: a longer base (a long title) is cut, as WordPress' is.
  base = firstSlugCandidate(base, maxLength);
  if (!(options.reserved ?? []).includes(base) && !(await taken(base))) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${truncateSlug(base, maxLength - (String(suffix).length + 1))}-${suffix}`;
    if (!(await taken(candidate))) return candidate;
  }
}
