/**
 * Text / HTML helpers that reproduce what WordPress (and The Events Calendar on top of it)
 * does to post content, term names and JSON-LD strings.
 *
 * Everything here is pure: no I/O, no global state (randomness is injectable).
 */
import sanitizeHtml from 'sanitize-html';
import { registerKept } from '../metrics.js';

// ---------------------------------------------------------------------------
// PHP / PCRE building blocks
// ---------------------------------------------------------------------------

/** PCRE's `\s` (no /u flag): space, \t, \n, \v, \f, \r — narrower than JS `\s`. */
const WS = '[ \\t\\n\\x0B\\f\\r]';
/** Same set, for use inside a character class. */
const WS_CHARS = ' \\t\\n\\x0B\\f\\r';

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
 * A whitespace-only title is refused like an empty one (issue 25); NBSP is not whitespace to PHP.
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
function replaceAll(text: string, search: string, replacement: string): string {
  return search === '' ? text : text.split(search).join(replacement);
}

/**
 * The HTML 4 entity names (plus `apos`) that WordPress kses accepts (`$allowedentitynames`).
 */
const ENTITY_NAMES = new Set(
  (
    'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn ' +
    'acute micro para middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig ' +
    'Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde ' +
    'Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml ' +
    'aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ' +
    'ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml quot amp lt gt apos ' +
    'OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp zwnj zwj lrm rlm ndash mdash lsquo ' +
    'rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo euro fnof Alpha Beta Gamma ' +
    'Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi ' +
    'Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron ' +
    'pi rho sigmaf sigma tau upsilon phi chi psi omega thetasym upsih piv bull hellip prime Prime ' +
    'oline frasl weierp image real trade alefsym larr uarr rarr darr harr crarr lArr uArr rArr dArr ' +
    'hArr forall part exist empty nabla isin notin ni prod sum minus lowast radic prop infin ang and ' +
    'or cap cup int sim cong asymp ne equiv le ge sub sup nsub sube supe oplus otimes perp sdot ' +
    'lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams'
  ).split(' '),
);

/** WordPress `valid_unicode()`. */
function validUnicode(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/**
 * WordPress `wp_kses_normalize_entities()`: every bare `&` becomes `&amp;`, known entities are kept
 * (decimal ones zero-padded to 3 digits, as WordPress does), unknown ones are neutralised.
 *
 * @example normalizeEntities('Rock & Roll &amp; &copy; &bogus;') // 'Rock &amp; Roll &amp; &copy; &amp;bogus;'
 */
export function normalizeEntities(text: string): string {
  let at = text.indexOf('&');
  if (at === -1) return text;
  if (!text.includes(';', at)) return replaceAll(text, '&', '&amp;'); // every reference ends with `;`
  // WordPress runs four passes (every `&` to `&amp;`, then named, decimal and hex entities back);
  // one scan gives the same text without building the intermediate ones, copying only what changes.
  // A named `&amp;` directly followed by a numeric reference is one to the passes that follow it.
  let out = '';
  let copied = 0; // text before this index is in `out`, as it stays
  let from = 0;
  for (; at !== -1; at = text.indexOf('&', from)) {
    let referenceAt = at; // the `&` (or the `;` of a named `&amp;`) a numeric reference would follow
    let name: string | undefined;
    if (text.startsWith('amp;', at + 1)) name = 'amp';
    else {
      ENTITY_NAME.lastIndex = at + 1;
      name = ENTITY_NAME.exec(text)?.[1];
    }
    if (name !== undefined) {
      const end = at + 2 + name.length;
      from = end;
      if (!ENTITY_NAMES.has(name)) {
        out += `${text.slice(copied, at)}&amp;`; // `&amp;name;`
        copied = at + 1;
        continue;
      }
      if (name !== 'amp' || text[end] !== '#') continue; // a known entity stays as it is
      referenceAt = end - 1;
    }
    const numeric = text[referenceAt + 1] === '#' ? numericReference(text, referenceAt + 1) : undefined;
    if (numeric) {
      out += text.slice(copied, at) + numeric[0];
      copied = from = numeric[1];
    } else if (referenceAt === at) {
      out += `${text.slice(copied, at)}&amp;`;
      copied = from = at + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** An entity name after `&`, as WordPress' second pass reads it (sticky: from `lastIndex`). */
const ENTITY_NAME = /([A-Za-z]{2,8}[0-9]{0,2});/y;
const DECIMAL_REFERENCE = /#(0*[0-9]{1,7});/y;
const HEX_REFERENCE = /#[Xx](0*[0-9A-Fa-f]{1,6});/y;

/**
 * The numeric character reference at `hash` (a `#` after `&`) as WordPress normalises it, and where
 * it ends; `undefined` when there is none (the `&` is then bare).
 */
function numericReference(text: string, hash: number): [string, number] | undefined {
  DECIMAL_REFERENCE.lastIndex = hash;
  const decimal = DECIMAL_REFERENCE.exec(text);
  if (decimal) {
    const digits = decimal[1]!;
    const end = hash + decimal[0].length;
    return [validUnicode(parseInt(digits, 10)) ? `&#${digits.replace(/^0+/, '').padStart(3, '0')};` : `&amp;#${digits};`, end];
  }
  HEX_REFERENCE.lastIndex = hash;
  const hex = HEX_REFERENCE.exec(text);
  if (hex) {
    const digits = hex[1]!;
    const end = hash + hex[0].length;
    return [validUnicode(parseInt(digits, 16)) ? `&#x${digits.replace(/^0+/, '')};` : `&amp;#x${digits};`, end];
  }
  return undefined;
}

/**
 * WordPress `_wp_specialchars()` (never double-encodes): `&` normalised as in
 * {@link normalizeEntities}, `<` and `>` encoded, quotes per `quotes`
 * (`'none'` = ENT_NOQUOTES, `'double'` = ENT_COMPAT, `'both'` = ENT_QUOTES, `'` → `&#039;`).
 * `esc_html()` is `wpSpecialchars(text, 'both')`.
 *
 * @example wpSpecialchars('Tom &amp; "Jerry" <3', 'both') // 'Tom &amp; &quot;Jerry&quot; &lt;3'
 */
export function wpSpecialchars(text: string, quotes: 'none' | 'double' | 'both' = 'none'): string {
  if (text === '' || !/[&<>"']/.test(text)) return text;
  let out = normalizeEntities(text).replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (quotes !== 'none') out = out.replace(/"/g, '&quot;');
  if (quotes === 'both') out = out.replace(/'/g, '&#039;');
  return out;
}

// ---------------------------------------------------------------------------
// Tag stripping
// ---------------------------------------------------------------------------

/**
 * Approximation of PHP `strip_tags()`: comments and tags (quote-aware, unterminated ones run to the
 * end) are removed; a `<` followed by whitespace is literal text.
 */
const PHP_TAG_RE = /<!--[\s\S]*?(?:-->|$)|<(?![ \t\n\r\v\f])(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^'">])*(?:>|$)/g;

function phpStripTags(text: string): string {
  return text.replace(PHP_TAG_RE, '');
}

/**
 * WordPress `wp_strip_all_tags()`: removes `<script>`/`<style>` elements with their content, then
 * every other tag (keeping the text), then trims.
 *
 * @example stripTags('Rock & Roll <b>x</b>') // 'Rock & Roll x'
 */
export function stripTags(text: string): string {
  const withoutCode = mapElements(text, /<(script|style)/gi, true, () => '');
  return phpTrim(phpStripTags(withoutCode));
}

/**
 * `text.replace(/<(a|b)[^>]*?>[\s\S]*?<\/\1>/flags, fn)` (with `openingTag`) or
 * `text.replace(/<(a|b)[\s\S]*?<\/\1>/flags, fn)` (without) in linear time: `opening` is
 * `/<(a|b)/flags` (global; `i` for case-insensitive names and closing tags). The regex would search
 * the whole rest of the text for a closing tag from every opening one that has none (thousands of
 * `<script>` cost seconds); here each search starts where the last one of that name ended.
 */
function mapElements(text: string, opening: RegExp, openingTag: boolean, fn: (element: string) => string): string {
  const ci = opening.flags.includes('i');
  const closeAt = new Map<string, { from: number; at: number }>();
  let nextGt = -2;
  let out = '';
  let copied = 0;
  opening.lastIndex = 0;
  for (let m = opening.exec(text); m; m = opening.exec(text)) {
    const start = m.index;
    const name = m[1]!;
    const key = ci ? name.toLowerCase() : name;
    const cached = closeAt.get(key);
    if (cached && cached.at === -1) {
      opening.lastIndex = start + 1;
      continue;
    }
    let bodyFrom = start + m[0].length;
    if (openingTag) {
      if (nextGt === -2 || (nextGt !== -1 && nextGt < bodyFrom)) nextGt = text.indexOf('>', bodyFrom);
      if (nextGt === -1) break;
      bodyFrom = nextGt + 1;
    }
    let at = cached && cached.at >= bodyFrom ? cached.at : -2;
    if (at === -2) {
      if (ci) {
        const closing = new RegExp(`</${key}>`, 'gi');
        closing.lastIndex = bodyFrom;
        at = closing.exec(text)?.index ?? -1;
      } else {
        at = text.indexOf(`</${name}>`, bodyFrom);
      }
      closeAt.set(key, { from: bodyFrom, at });
    }
    if (at === -1) {
      opening.lastIndex = start + 1;
      continue;
    }
    const end = at + name.length + 3;
    out += text.slice(copied, start) + fn(text.slice(start, end));
    copied = end;
    opening.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** WordPress `wp_pre_kses_less_than()`: a `<` that does not start a tag becomes `&lt;`. */
function preKsesLessThan(text: string): string {
  return text.replace(/<[^>]*?(?:(?=<)|>|$)/g, (m) => (m.includes('>') ? m : wpSpecialchars(m, 'both')));
}

/** WordPress `sanitize_text_field()` (single-line variant). */
function sanitizeTextField(text: string): string {
  let out = text;
  if (out.includes('<')) {
    out = preKsesLessThan(out);
    out = stripTags(out);
    out = replaceAll(out, '<\n', '&lt;\n');
  }
  out = phpTrim(out.replace(/[\r\n\t ]+/g, ' '));
  let found = false;
  for (let m = /%[a-f0-9]{2}/i.exec(out); m; m = /%[a-f0-9]{2}/i.exec(out)) {
    out = replaceAll(out, m[0], '');
    found = true;
  }
  if (found) out = phpTrim(out.replace(/ +/g, ' '));
  return out;
}

// ---------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------

/**
 * PHP `htmlspecialchars()` with its defaults (ENT_QUOTES | ENT_HTML401, double-encoding):
 * `&` `<` `>` `"` `'` → `&amp;` `&lt;` `&gt;` `&quot;` `&#039;`.
 *
 * @example escHtml(`Tom & "Jerry's" <b>`) // 'Tom &amp; &quot;Jerry&#039;s&quot; &lt;b&gt;'
 */
export function escHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');
}

/** PHP `stripslashes()`: `\X` becomes `X`, `\0` a NUL byte, a final `\` goes. */
function stripslashes(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('\\'); at !== -1; at = text.indexOf('\\', copied)) {
    const next = text[at + 1];
    out += text.slice(copied, at) + (next === '0' ? '\0' : (next ?? ''));
    copied = at + 2;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * WordPress `esc_js()`, which The Events Calendar applies to JSON-LD `name`/`description`:
 * `_wp_specialchars(ENT_COMPAT)`, `'` entities turned back into `'`, `stripslashes`, `\r` dropped,
 * `addslashes`, and newlines written as the two characters `\` `n`.
 *
 * @example escJs(`<p>It's "ok"</p>\n`) // `&lt;p&gt;It\\'s &quot;ok&quot;&lt;/p&gt;\\n`
 */
export function escJs(text: string): string {
  let out = wpSpecialchars(text, 'double');
  out = stripslashes(out);
  out = out.replace(/&#(?:x0*27|0*39);?/gi, "'");
  out = out.replace(/\r/g, '');
  out = out.replace(/[\\'"]/g, '\\$&').replace(/\0/g, '\\0'); // addslashes
  return out.replace(/\n/g, '\\n');
}

// ---------------------------------------------------------------------------
// wpautop
// ---------------------------------------------------------------------------

const ALLBLOCKS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|' +
  'blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|' +
  'footer|nav|figure|figcaption|details|menu|summary)';

/**
 * Where the delimiter of WordPress `get_html_split_regex()` that starts at `start` (a `<`) ends: a
 * comment (`<!--`) runs to its `-->`, a CDATA section (`<![CDATA[`) to its `]]>`, anything else to
 * the next `>`; each to the end of the text when unterminated. The regex's spans, found with
 * `indexOf` alone.
 */
function htmlDelimiterEnd(text: string, start: number): number {
  let close = '>';
  let from = start + 1;
  if (text.startsWith('!--', start + 1)) [close, from] = ['-->', start + 2];
  else if (text.startsWith('![CDATA[', start + 1)) [close, from] = [']]>', start + 9];
  const at = text.indexOf(close, from);
  return at === -1 ? text.length : at + close.length;
}

/**
 * WordPress `wp_replace_in_html_tags()` for a single needle: replaces `needle` inside the tags,
 * comments and CDATA sections that `get_html_split_regex()` delimits (not in the text between them).
 * Linear, and allocates only for the tags that contain the needle (a text of a million tags costs no
 * million parts).
 */
function replaceInHtmlTags(haystack: string, needle: string, replacement: string): string {
  let nextNeedle = haystack.indexOf(needle);
  if (nextNeedle === -1 || needle === '') return haystack;
  let out = '';
  let copied = 0;
  for (let start = haystack.indexOf('<'); start !== -1; start = haystack.indexOf('<', start)) {
    const end = htmlDelimiterEnd(haystack, start);
    if (nextNeedle !== -1 && nextNeedle < start) nextNeedle = haystack.indexOf(needle, start);
    if (nextNeedle === -1) break;
    if (nextNeedle < end) {
      const tag = haystack.slice(start, end);
      if (tag.includes(needle)) {
        out += haystack.slice(copied, start) + replaceAll(tag, needle, replacement);
        copied = end;
      }
    }
    if (end >= haystack.length) break;
    start = end;
  }
  return copied === 0 ? haystack : out + haystack.slice(copied);
}

/**
 * The pattern as a RegExp, compiled once (wpautop runs some thirty of them per call). Only used
 * with `replace` and `split`, which start from index 0 whatever `lastIndex` says.
 */
const compiled = new Map<string, RegExp>();
const re = (source: string, flags = 'g'): RegExp => {
  const key = `${flags}/${source}`;
  let regexp = compiled.get(key);
  if (!regexp) compiled.set(key, (regexp = new RegExp(source, flags)));
  return regexp;
};

/**
 * wpautop's `preg_replace('|(?<!<br />)\s*\n|', "<br />\n", $text)` in linear time: in every
 * whitespace run that contains a newline, the part up to its last newline becomes `<br />\n`
 * (when the run directly follows `<br />` its first character is kept, as the look-behind dictates).
 *
 * @example newlinesToBr('a  \nb<br />\nc') // 'a<br />\nb<br />\nc'
 */
export function newlinesToBr(text: string): string {
  if (!text.includes('\n')) return text;
  // Only whole whitespace runs with a newline change; each is tried from its start only (linear).
  return text.replace(re(`(?<![${WS_CHARS}])[ \\t\\x0B\\f\\r]*\\n${WS}*`), (run: string, offset: number) => {
    const last = run.lastIndexOf('\n');
    const afterBr = text.slice(Math.max(0, offset - 6), offset) === '<br />';
    if (!afterBr) return `<br />\n${run.slice(last + 1)}`;
    if (last === 0) return run;
    return `${run[0]}<br />\n${run.slice(last + 1)}`;
  });
}

/**
 * wpautop's last step, `str_replace($name, $html)` for each `<pre>` placeholder in turn, in one pass:
 * a placeholder is replaced wherever it is, in the text or in the `<pre>` blocks put back before it
 * (a block can end with the text of a later placeholder). Each block is expanded once, from the last.
 */
function restorePreTags(text: string, preTags: Array<[string, string]>): string {
  const placeholder = /<pre wp-pre-tag-(0|[1-9][0-9]*)><\/pre>/g;
  const expanded: string[] = [];
  const expand = (html: string, after: number) =>
    html.replace(placeholder, (m, digits: string) => {
      const index = Number(digits);
      return index > after && index < preTags.length ? expanded[index]! : m;
    });
  for (let i = preTags.length - 1; i >= 0; i--) expanded[i] = expand(preTags[i]![1], i);
  return expand(text, -1);
}

/**
 * Port of WordPress `wpautop()` (untrimmed, exactly as WordPress returns it: usually with a trailing
 * newline). Most callers want {@link autop}.
 *
 * @example wpautop('a\n\nb') // '<p>a</p>\n<p>b</p>\n'
 */
export function wpautop(input: string, br = true): string {
  if (phpTrim(input) === '') return '';
  const preTags: Array<[string, string]> = [];
  let text = `${input}\n`;

  // <pre> blocks are left alone: swap them for placeholders.
  if (text.includes('<pre')) {
    const parts = text.split('</pre>');
    const last = parts.pop()!;
    text = '';
    let i = 0;
    for (const part of parts) {
      const start = part.indexOf('<pre');
      if (start === -1) {
        text += part;
        continue;
      }
      const name = `<pre wp-pre-tag-${i}></pre>`;
      preTags.push([name, `${part.slice(start)}</pre>`]);
      text += part.slice(0, start) + name;
      i++;
    }
    text += last;
  }

  text = text.replace(re(`<br${WS}*/?>${WS}*<br${WS}*/?>`), '\n\n');
  text = text.replace(re(`(<${ALLBLOCKS}[${WS_CHARS}/>])`), '\n\n$1');
  text = text.replace(re(`(</${ALLBLOCKS}>)`), '$1\n\n');
  text = text.replace(re(`(<hr${WS}*?/?>)`), '$1\n\n');
  text = text.replace(/\r\n|\r/g, '\n');
  text = replaceInHtmlTags(text, '\n', ' <!-- wpnl --> ');

  if (text.includes('<option')) {
    text = text.replace(re(`${WS}*<option`), '<option');
    text = text.replace(re(`</option>${WS}*`), '</option>');
  }
  if (text.includes('</object>')) {
    text = text.replace(re(`(<object[^>]*>)${WS}*`), '$1');
    text = text.replace(re(`${WS}*</object>`), '</object>');
    text = text.replace(re(`${WS}*(</?(?:param|embed)[^>]*>)${WS}*`), '$1');
  }
  if (text.includes('<source') || text.includes('<track')) {
    text = text.replace(re(`([<\\[](?:audio|video)[^>\\]]*[>\\]])${WS}*`), '$1');
    text = text.replace(re(`${WS}*([<\\[]/(?:audio|video)[>\\]])`), '$1');
    text = text.replace(re(`${WS}*(<(?:source|track)[^>]*>)${WS}*`), '$1');
  }
  if (text.includes('<figcaption')) {
    text = text.replace(re(`${WS}*(<figcaption[^>]*>)`), '$1');
    text = text.replace(re(`</figcaption>${WS}*`), '</figcaption>');
  }

  text = text.replace(/\n\n\n+/g, '\n\n'); // WordPress: `\n\n+` (two newlines stay two)
  const paragraphs = text.split(re(`\\n${WS}*\\n`, '')).filter((p) => p !== '');
  text = '';
  for (const paragraph of paragraphs) text += `<p>${phpTrim(paragraph, '\n')}</p>\n`;

  text = text.replace(re(`<p>${WS}*</p>`), '');
  text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>');
  text = text.replace(re(`<p>${WS}*(</?${ALLBLOCKS}[^>]*>)${WS}*</p>`), '$1');
  text = text.replace(/<p>(<li.+?)<\/p>/g, '$1');
  text = text.replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>');
  text = replaceAll(text, '</blockquote></p>', '</p></blockquote>');
  text = text.replace(re(`<p>${WS}*(</?${ALLBLOCKS}[^>]*>)`), '$1');
  text = text.replace(re(`(</?${ALLBLOCKS}[^>]*>)${WS}*</p>`), '$1');

  if (br) {
    text = mapElements(text, /<(script|style|svg|math)/g, false, (m) => replaceAll(m, '\n', '<WPPreserveNewline />'));
    text = replaceAll(replaceAll(text, '<br>', '<br />'), '<br/>', '<br />');
    text = newlinesToBr(text);
    text = replaceAll(text, '<WPPreserveNewline />', '\n');
  }

  text = text.replace(re(`(</?${ALLBLOCKS}[^>]*>)${WS}*<br />`), '$1');
  text = text.replace(re(`<br />(${WS}*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`), '$1');
  text = text.replace(/\n<\/p>(?=\n?$)/, '</p>'); // PCRE `$` also matches before a final newline

  if (preTags.length > 0) text = restorePreTags(text, preTags);
  if (text.includes('<!-- wpnl -->')) {
    text = replaceAll(replaceAll(text, ' <!-- wpnl --> ', '\n'), '<!-- wpnl -->', '\n');
  }
  return text;
}

/**
 * What WordPress' `the_content` / `the_excerpt` make of stored text, as the TEC REST API returns it
 * (`trim(wpautop(...))`): blank-line separated paragraphs become `<p>…</p>` joined by `\n`, single
 * newlines become `<br />\n`, block-level markup is not wrapped again.
 *
 * @example autop('Jazz under the stars') // '<p>Jazz under the stars</p>'
 */
export function autop(text: string): string {
  if (text.length > AUTOP_MEMO_MAX_LENGTH) {
    // A large text is rendered once per content, not per read (a representation renders it twice:
    // the description and the JSON-LD's): the last few, bounded by their total length, are kept.
    let out = largeAutopMemo.get(text);
    if (out === undefined) {
      out = phpTrim(wpautop(text));
      largeAutopMemoLength += text.length + out.length;
      largeAutopMemo.set(text, out);
      for (const [key, value] of largeAutopMemo) {
        if (largeAutopMemoLength <= LARGE_AUTOP_MEMO_LENGTH || largeAutopMemo.size <= 1) break;
        largeAutopMemo.delete(key);
        largeAutopMemoLength -= key.length + value.length;
      }
    } else {
      largeAutopMemo.delete(text); // most recently used last
      largeAutopMemo.set(text, out);
    }
    return out;
  }
  let out = autopMemo.get(text);
  if (out === undefined) {
    out = phpTrim(wpautop(text));
    if (autopMemo.size >= AUTOP_MEMO_ENTRIES) autopMemo.clear();
    autopMemo.set(text, out);
  }
  return out;
}

/**
 * Recent results of {@link autop} (a pure function, called for every description and excerpt of
 * every record answered, each call some thirty regex passes). Bounded in entries and text size.
 */
const autopMemo = new Map<string, string>();
const AUTOP_MEMO_ENTRIES = 2000;
const AUTOP_MEMO_MAX_LENGTH = 8000;
registerKept(undefined, 'autop_memo', { entries: () => autopMemo.size, maxEntries: AUTOP_MEMO_ENTRIES });
/** Recent results of {@link autop} for texts over `AUTOP_MEMO_MAX_LENGTH`, at most this many characters (inputs and outputs) in all, least recently used first out. */
const largeAutopMemo = new Map<string, string>();
let largeAutopMemoLength = 0;
const LARGE_AUTOP_MEMO_LENGTH = 16 * 1024 * 1024;
registerKept(undefined, 'autop_memo_large', {
  entries: () => largeAutopMemo.size,
  maxEntries: Math.floor(LARGE_AUTOP_MEMO_LENGTH / AUTOP_MEMO_MAX_LENGTH) + 1,
  bytes: () => largeAutopMemoLength * 2,
  maxBytes: LARGE_AUTOP_MEMO_LENGTH * 2,
});

/**
 * The most tags (`<`), character references (`&`) and line breaks a description or excerpt may hold
 * together. Rendering costs about a microsecond for each (wpautop's thirty passes, the JSON-LD's
 * entity handling), so with the 2 MB body limit this keeps one rendering near or under 100 ms of CPU
 * (the text's length alone costs about 50 ms per 2 MB); ordinary descriptions hold a few hundred. A write over it is refused (400 `rest_invalid_param`), see {@link markupFailure}.
 */
export const MAX_MARKUP_ITEMS = 20_000;

/** How many tags (`<`), character references (`&`) and line breaks `text` holds, counting no further than `limit + 1`. */
export function markupItems(text: string, limit = MAX_MARKUP_ITEMS): number {
  let count = 0;
  for (let i = 0; i < text.length && count <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 60 || c === 38 || c === 10) count++;
  }
  return count;
}

/**
 * The failure message for argument `name` when `text` holds more than {@link MAX_MARKUP_ITEMS}
 * tags, character references and line breaks, or `undefined` when it is within the limit.
 *
 * @example markupFailure('description', '<b>'.repeat(30000)) // 'description must contain at most 20000 tags, character references and line breaks.'
 */
export function markupFailure(name: string, text: string): string | undefined {
  return markupItems(text) > MAX_MARKUP_ITEMS ? `${name} must contain at most ${MAX_MARKUP_ITEMS} tags, character references and line breaks.` : undefined;
}

// ---------------------------------------------------------------------------
// kses
// ---------------------------------------------------------------------------

/** `wp_allowed_protocols()`. */
const WP_PROTOCOLS = ['http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms', 'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn'];

const GLOBAL_ATTRIBUTES = ['class', 'id', 'title', 'lang', 'dir', 'role', 'hidden', 'aria-*', 'data-*'];
const CELL_ATTRIBUTES = ['align', 'valign', 'colspan', 'rowspan', 'headers', 'scope', 'abbr', 'width', 'height'];

/** Close to WordPress `$allowedposttags` (minus `style` attributes and form controls). */
const POST_KSES: sanitizeHtml.IOptions = {
  allowedTags: [
    'a',
    'abbr',
    'acronym',
    'address',
    'article',
    'aside',
    'b',
    'bdo',
    'big',
    'blockquote',
    'br',
    'caption',
    'cite',
    'code',
    'col',
    'colgroup',
    'dd',
    'del',
    'details',
    'dfn',
    'div',
    'dl',
    'dt',
    'em',
    'figcaption',
    'figure',
    'footer',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'header',
    'hgroup',
    'hr',
    'i',
    'img',
    'ins',
    'kbd',
    'li',
    'main',
    'mark',
    'nav',
    'ol',
    'p',
    'pre',
    'q',
    's',
    'samp',
    'section',
    'small',
    'span',
    'strike',
    'strong',
    'sub',
    'summary',
    'sup',
    'table',
    'tbody',
    'td',
    'tfoot',
    'th',
    'thead',
    'time',
    'tr',
    'tt',
    'u',
    'ul',
    'var',
  ],
  allowedAttributes: {
    '*': GLOBAL_ATTRIBUTES,
    a: ['href', 'rel', 'rev', 'name', 'target', 'download', 'hreflang', 'referrerpolicy'],
    img: ['src', 'alt', 'width', 'height', 'srcset', 'sizes', 'loading', 'decoding', 'align', 'border', 'hspace', 'vspace', 'longdesc', 'usemap'],
    blockquote: ['cite'],
    q: ['cite'],
    del: ['datetime', 'cite'],
    ins: ['datetime', 'cite'],
    time: ['datetime'],
    ol: ['start', 'type', 'reversed'],
    ul: ['type'],
    li: ['value', 'align'],
    table: ['align', 'border', 'cellpadding', 'cellspacing', 'summary', 'width'],
    td: CELL_ATTRIBUTES,
    th: CELL_ATTRIBUTES,
    col: ['align', 'valign', 'span', 'width'],
    colgroup: ['align', 'valign', 'span', 'width'],
    div: ['align'],
    p: ['align'],
    h1: ['align'],
    h2: ['align'],
    h3: ['align'],
    h4: ['align'],
    h5: ['align'],
    h6: ['align'],
    details: ['open'],
  },
  allowedSchemes: WP_PROTOCOLS,
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'longdesc'],
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  // sanitize-html decodes entities and re-encodes text; keep `&nbsp;` visible as WordPress does.
  textFilter: (text) => text.replace(/\u00a0/g, '&nbsp;'),
};

/** wp_kses `$allowedtags`: what survives in a term description. */
const DATA_KSES: sanitizeHtml.IOptions = {
  allowedTags: ['a', 'abbr', 'acronym', 'b', 'blockquote', 'cite', 'code', 'del', 'em', 'i', 'q', 's', 'strike', 'strong'],
  allowedAttributes: {
    a: ['href', 'title'],
    abbr: ['title'],
    acronym: ['title'],
    blockquote: ['cite'],
    del: ['datetime'],
    q: ['cite'],
  },
  allowedSchemes: WP_PROTOCOLS,
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  textFilter: (text) => text.replace(/\u00a0/g, '&nbsp;'),
};

/** TEC's default `tribe_events_get_the_excerpt()` allow-list (used for hand-written excerpts). */
const EXCERPT_KSES: sanitizeHtml.IOptions = {
  allowedTags: ['a', 'b', 'strong', 'em', 'span', 'ul', 'li', 'ol'],
  allowedAttributes: { '*': ['class', 'id'], a: ['href', 'rel', 'target'] },
  allowedSchemes: WP_PROTOCOLS,
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  textFilter: (text) => text.replace(/\u00a0/g, '&nbsp;'),
};

/**
 * What WordPress kses (`wp_filter_post_kses`, the "post" allow-list) keeps of submitted post content
 * for users without `unfiltered_html`: formatting, lists, tables, links and images survive; scripts
 * (with their content), styles, forms, iframes, `on*` handlers, `style` attributes and
 * non-whitelisted URL schemes (`javascript:` …) are removed. Text of removed tags is kept.
 *
 * @example sanitizePostHtml('<p onclick="x()">Hi <script>alert(1)</script><strong>there</strong></p>') // '<p>Hi <strong>there</strong></p>'
 */
export function sanitizePostHtml(html: string): string {
  return sanitizeHtml(html, POST_KSES);
}

// ---------------------------------------------------------------------------
// Terms
// ---------------------------------------------------------------------------

/**
 * How WordPress stores a term field. `'name'` (default) follows `pre_term_name`
 * (`sanitize_text_field` + kses + `_wp_specialchars`): tags stripped, whitespace collapsed and
 * trimmed, percent-encoded octets removed, `&` stored as `&amp;` (existing entities are not
 * double-encoded), stray `<`/`>` as `&lt;`/`&gt;`. `'description'` follows `pre_term_description`
 * (kses with the basic `$allowedtags`: a, abbr, b, blockquote, cite, code, del, em, i, q, s,
 * strike, strong survive; newlines kept).
 *
 * @example termText('Rock & Roll <b>x</b>') // 'Rock &amp; Roll x'
 */
export function termText(text: string, kind: 'name' | 'description' = 'name'): string {
  if (kind === 'description') return sanitizeHtml(text, DATA_KSES);
  return wpSpecialchars(sanitizeTextField(text), 'none');
}

// ---------------------------------------------------------------------------
// Excerpts & JSON-LD
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// E-mail
// ---------------------------------------------------------------------------

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
