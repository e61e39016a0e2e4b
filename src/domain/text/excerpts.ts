/**
 * Excerpts and the JSON-LD description as WordPress and The Events Calendar produce them, and
 * WordPress `antispambot()` for e-mail addresses.
 */
import sanitizeHtml from 'sanitize-html';
import { wpautop } from './autop.js';
import { escJs, normalizeEntities } from './entities.js';
import { EXCERPT_KSES } from './kses.js';
import { removeLazySpans, replaceAll } from './php.js';
import { stripTags } from './tags.js';

/**
 * WordPress `wp_trim_words()`: strips all tags, collapses whitespace and keeps the first
 * `numWords` words, appending `more` when something was cut.
 *
 * @example trimWords('<p>one two three</p>', 2, '…') // 'one two…'
 */
export function trimWords(text: string, numWords = 55, more = '&hellip;'): string {
  // The first `numWords + 1` words only (a 2 MB text has hundreds of thousands).
  const wordRe = /[^\n\r\t ]+/g;
  const words: string[] = [];
  const stripped = stripTags(text);
  for (let m = wordRe.exec(stripped); m && words.length <= numWords; m = wordRe.exec(stripped)) words.push(m[0]);
  if (words.length > numWords) return words.slice(0, numWords).join(' ') + more;
  return words.join(' ');
}

/**
 * The JSON-LD `description` The Events Calendar emits (`esc_js(tribe_events_get_the_excerpt())`):
 * shortcodes removed, all tags stripped, trimmed to 55 words (`" [&hellip;]"`), wrapped by
 * `wpautop`, then escaped: markup shows as `&lt;p&gt;…&lt;/p&gt;` followed by a literal `\n`
 * (backslash + `n`). Pass `{ excerpt: true }` when the text is a hand-written excerpt: it is then
 * not trimmed and a few inline tags (a, b, strong, em, span, ul, ol, li) are kept.
 *
 * @example jsonLdDescription('<p>A <b>famous</b> jazz club</p>') // '&lt;p&gt;A famous jazz club&lt;/p&gt;\\n'
 */
export function jsonLdDescription(html: string, options: { excerpt?: boolean } = {}): string {
  const withoutShortcodes = removeLazySpans(html, '[', ']');
  const body = options.excerpt ? sanitizeHtml(withoutShortcodes, EXCERPT_KSES) : trimWords(normalizeEntities(withoutShortcodes), 55, ' [&hellip;]');
  return escJs(wpautop(body));
}

/**
 * WordPress `antispambot()`: each character is randomly kept or written as a decimal entity
 * (`&#NNN;`); `@` is always `&#64;`. Browsers render it as the plain address. `random` defaults to
 * `Math.random` and can be injected for deterministic output.
 *
 * @example obfuscateEmail('a@b.c', () => 0) // '&#97;&#64;&#98;&#46;&#99;'
 */
export function obfuscateEmail(email: string, random: () => number = Math.random): string {
  let out = '';
  for (const ch of email) {
    out += Math.floor(random() * 2) === 0 ? `&#${ch.codePointAt(0)};` : ch;
  }
  return replaceAll(out, '@', '&#64;');
}
