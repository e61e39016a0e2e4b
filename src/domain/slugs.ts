/**
 * Slugs the way WordPress makes them (`sanitize_title()` in the "save" context and
 * `wp_unique_post_slug()` numbering). Pure functions; uniqueness is checked through a callback.
 */

import { removeLazySpans } from './text.js';

/**
 * Characters WordPress `remove_accents()` maps that Unicode decomposition cannot handle
 * (digraphs, strokes, ordinal indicators, …), default (en_US) locale.
 */
const ACCENT_OVERRIDES: Record<string, string> = {
  ª: 'a', º: 'o', Æ: 'AE', æ: 'ae', Ð: 'D', ð: 'd', Þ: 'TH', þ: 'th', ß: 's', Ø: 'O', ø: 'o',
  Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ĳ: 'IJ', ĳ: 'ij', ĸ: 'k', Ŀ: 'L', ŀ: 'l', Ł: 'L', ł: 'l',
  ŉ: 'n', Ŋ: 'N', ŋ: 'n', Œ: 'OE', œ: 'oe', Ŧ: 'T', ŧ: 't', ſ: 's', ɑ: 'a', '€': 'E', '£': '',
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

/**
 * WordPress `sanitize_title()` ("save" context, i.e. `remove_accents` + `sanitize_title_with_dashes`):
 * tags stripped, accents removed (é→e; WordPress' default locale maps ß→s, pass
 * `{ locale: 'de_DE' }` for ß→ss, ä→ae …), lower-cased, spaces / `.` / `/` / no-break spaces /
 * en and em dashes become `-`, HTML entities dropped, everything other than `a-z 0-9 - _` dropped,
 * runs of `-` collapsed and trimmed. Returns '' when nothing is left.
 * (WordPress would keep other non-ASCII characters percent-encoded; they are dropped here.)
 *
 * @example sanitizeSlug('Café Müller') // 'cafe-muller'
 */
export function sanitizeSlug(text: string, options: { locale?: string } = {}): string {
  let title = removeAccents(stripTagsForSlug(text), options.locale ?? 'en_US');
  title = title.replace(/%/g, '');
  title = title.replace(/[\u00a0\u2013\u2014]/g, '-').replace(/\u00d7/g, 'x');
  title = title.replace(/[^\x00-\x7f]/gu, '');
  title = title.toLowerCase();
  title = title.replace(/&(?:nbsp|#160|ndash|#8211|mdash|#8212);/g, '-');
  title = title.replace(/\//g, '-');
  title = removeLazySpans(title, '&', ';'); // WordPress: preg_replace( '/&.+?;/', '', $title )
  title = title.replace(/\./g, '-');
  title = title.replace(/[^a-z0-9 _-]/g, '');
  title = title.replace(/ +/g, '-');
  title = title.replace(/-+/g, '-');
  return title.replace(/^-+|-+$/g, '');
}

/** Flat post slugs WordPress refuses (feed names and `embed`): pass as `reserved` for posts. */
export const RESERVED_POST_SLUGS: readonly string[] = ['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed'];

/** WordPress `_truncate_post_slug()` for ASCII slugs. */
function truncateSlug(slug: string, length: number): string {
  return (slug.length > length ? slug.slice(0, length) : slug).replace(/-+$/, '');
}

/**
 * WordPress `wp_unique_post_slug()` numbering: `base` if it is free, else `base-2`, `base-3`, …
 * (the base is truncated so the result stays within `maxLength`, default 200; a longer base is cut
 * to it first). An empty base stays
 * empty. `reserved` slugs (e.g. {@link RESERVED_POST_SLUGS}) count as taken for the bare base.
 *
 * @example await uniqueSlug('jazz-night', (s) => s === 'jazz-night') // 'jazz-night-2'
 */
export async function uniqueSlug(
  base: string,
  taken: (candidate: string) => boolean | Promise<boolean>,
  options: { reserved?: readonly string[]; maxLength?: number } = {},
): Promise<string> {
  if (base === '') return '';
  const maxLength = options.maxLength ?? 200;
  // The slug column holds 200 characters: a longer base (a long title) is cut, as WordPress' is.
  if (base.length > maxLength) base = truncateSlug(base, maxLength);
  if (!(options.reserved ?? []).includes(base) && !(await taken(base))) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${truncateSlug(base, maxLength - (String(suffix).length + 1))}-${suffix}`;
    if (!(await taken(candidate))) return candidate;
  }
}
