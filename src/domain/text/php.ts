/**
 * PHP / PCRE building blocks the WordPress text filters are written in: PCRE's whitespace class,
 * PHP `trim()` and `str_replace()`, and the linear-time removal of lazy `/<open>.+?<close>/` spans.
 */

/** PCRE's `\s` (no /u flag): space, \t, \n, \v, \f, \r — narrower than JS `\s`. */
export const WS = '[ \\t\\n\\x0B\\f\\r]';
/** Same set, for use inside a character class. */
export const WS_CHARS = ' \\t\\n\\x0B\\f\\r';

/**
 * PHP `trim()` with its default character list (space, \t, \n, \r, NUL, \x0B) or a custom one.
 * Unlike JS `trim()` it keeps NBSP and the other Unicode spaces.
 *
 * @example phpTrim(' \t Jazz\n') // 'Jazz'
 * @example phpTrim('\u00a0') // '\u00a0'
 */
export function phpTrim(text: string, chars = ' \t\n\r\0\x0B'): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * A post title or venue/organizer name: a string with something left after PHP's `trim()` (what
 * WordPress stores, `title_save_pre`), and not `"0"` (PHP `empty`, as the original's `is_string`).
 * A whitespace-only title is refused like an empty one; NBSP is not whitespace to PHP.
 *
 * @example isNonBlankTitle('  Jazz ') // true
 * @example isNonBlankTitle(' \t\n') // false
 * @example isNonBlankTitle('\u00a0') // true
 */
export function isNonBlankTitle(value: unknown): boolean {
  return typeof value === 'string' && value !== '0' && phpTrim(value) !== '';
}

/**
 * Removes PCRE `/<open>.+?<close>/` spans (`.` = anything but `\n`) in linear time, which a
 * backtracking regex cannot guarantee (e.g. thousands of `[` without `]`).
 *
 * @example removeLazySpans('a [gallery id="1"] b', '[', ']') // 'a  b'
 */
export function removeLazySpans(text: string, open: string, close: string): string {
  const n = text.length;
  let out = '';
  let copied = 0; // text before this index is in `out` or removed
  let nextClose = -2; // cached: the first `close` at or after the index it was searched from (-1: none), -2: not searched
  let nextNewline = -2;
  for (let i = text.indexOf(open); i !== -1 && i + 1 < n; i = text.indexOf(open, i + 1)) {
    if (text[i + 1] === '\n') continue;
    if (nextClose === -2 || (nextClose !== -1 && nextClose < i + 2)) nextClose = text.indexOf(close, i + 2);
    if (nextClose === -1) break; // no `close` left: nothing further can match
    if (nextNewline === -2 || (nextNewline !== -1 && nextNewline < i + 1)) nextNewline = text.indexOf('\n', i + 1);
    if (nextNewline !== -1 && nextNewline < nextClose) continue;
    out += text.slice(copied, i);
    copied = nextClose + 1;
    i = nextClose;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** PHP `str_replace()` for a single needle. */
export function replaceAll(text: string, search: string, replacement: string): string {
  return search === '' ? text : text.split(search).join(replacement);
}
