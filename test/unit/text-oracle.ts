// The implementation of src/domain/text.ts before issue 24 made its hot paths linear, kept verbatim as the
// oracle of test/unit/text-linear.test.ts (the new functions must give byte-identical output).
/**
 * Text / HTML helpers that reproduce what WordPress (and The Events Calendar on top of it)
 * does to post content, term names and JSON-LD strings.
 *
 * Everything here is pure: no I/O, no global state (randomness is injectable).
 */
import sanitizeHtml from 'sanitize-html';

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
  const nextClose = new Array<number>(n + 1).fill(-1);
  const nextNewline = new Array<number>(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    nextClose[i] = text[i] === close ? i : nextClose[i + 1]!;
    nextNewline[i] = text[i] === '\n' ? i : nextNewline[i + 1]!;
  }
  let out = '';
  let i = 0;
  while (i < n) {
    if (text[i] === open && i + 1 < n && text[i + 1] !== '\n') {
      const end = i + 2 <= n ? nextClose[i + 2]! : -1;
      if (end !== -1 && end < nextNewline[i + 1]!) {
        i = end + 1;
        continue;
      }
    }
    out += text[i];
    i++;
  }
  return out;
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
  return text
    .replace(/&/g, '&amp;')
    .replace(/&amp;([A-Za-z]{2,8}[0-9]{0,2});/g, (_m, name: string) => (ENTITY_NAMES.has(name) ? `&${name};` : `&amp;${name};`))
    .replace(/&amp;#(0*[0-9]{1,7});/g, (_m, digits: string) => (validUnicode(parseInt(digits, 10)) ? `&#${digits.replace(/^0+/, '').padStart(3, '0')};` : `&amp;#${digits};`))
    .replace(/&amp;#[Xx](0*[0-9A-Fa-f]{1,6});/g, (_m, hex: string) => (validUnicode(parseInt(hex, 16)) ? `&#x${hex.replace(/^0+/, '')};` : `&amp;#x${hex};`));
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
  const withoutCode = text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '');
  return phpTrim(phpStripTags(withoutCode));
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

/**
 * WordPress `esc_js()`, which The Events Calendar applies to JSON-LD `name`/`description`:
 * `_wp_specialchars(ENT_COMPAT)`, `'` entities turned back into `'`, `stripslashes`, `\r` dropped,
 * `addslashes`, and newlines written as the two characters `\` `n`.
 *
 * @example escJs(`<p>It's "ok"</p>\n`) // `&lt;p&gt;It\\'s &quot;ok&quot;&lt;/p&gt;\\n`
 */
export function escJs(text: string): string {
  let out = wpSpecialchars(text, 'double');
  out = out.replace(/\\(.?)/gs, (_m, c: string) => (c === '0' ? '\0' : c)); // stripslashes
  out = out.replace(/&#(?:x0*27|0*39);?/gi, "'");
  out = out.replace(/\r/g, '');
  out = out.replace(/[\\'"\0]/g, (c) => (c === '\0' ? '\\0' : `\\${c}`)); // addslashes
  return out.replace(/\n/g, '\\n');
}

// ---------------------------------------------------------------------------
// wpautop
// ---------------------------------------------------------------------------

const ALLBLOCKS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|' +
  'blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|' +
  'footer|nav|figure|figcaption|details|menu|summary)';

/** WordPress `get_html_split_regex()`: comments, CDATA sections and tags as delimiters. */
const HTML_SPLIT_RE = (() => {
  const comments = '!(?:-(?!->)[^\\-]*)*(?:-->)?';
  const cdata = '!\\[CDATA\\[[^\\]]*(?:\\](?!\\]>)[^\\]]*)*(?:\\]\\]>)?';
  const escaped = `(?=!--|!\\[CDATA\\[)(?:(?=!-)${comments}|${cdata})`;
  return new RegExp(`(<(?:${escaped}|[^>]*>?))`);
})();

/** WordPress `wp_replace_in_html_tags()` for a single needle. */
function replaceInHtmlTags(haystack: string, needle: string, replacement: string): string {
  const parts = haystack.split(HTML_SPLIT_RE);
  let changed = false;
  for (let i = 1; i < parts.length; i += 2) {
    if (parts[i]!.includes(needle)) {
      parts[i] = replaceAll(parts[i]!, needle, replacement);
      changed = true;
    }
  }
  return changed ? parts.join('') : haystack;
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
  return text.replace(re(`${WS}+`), (run: string, offset: number) => {
    const last = run.lastIndexOf('\n');
    if (last === -1) return run;
    const afterBr = text.slice(Math.max(0, offset - 6), offset) === '<br />';
    if (!afterBr) return `<br />\n${run.slice(last + 1)}`;
    if (last === 0) return run;
    return `${run[0]}<br />\n${run.slice(last + 1)}`;
  });
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

  text = text.replace(/\n\n+/g, '\n\n');
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
    text = text.replace(/<(script|style|svg|math)[\s\S]*?<\/\1>/g, (m) => replaceAll(m, '\n', '<WPPreserveNewline />'));
    text = replaceAll(replaceAll(text, '<br>', '<br />'), '<br/>', '<br />');
    text = newlinesToBr(text);
    text = replaceAll(text, '<WPPreserveNewline />', '\n');
  }

  text = text.replace(re(`(</?${ALLBLOCKS}[^>]*>)${WS}*<br />`), '$1');
  text = text.replace(re(`<br />(${WS}*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`), '$1');
  text = text.replace(/\n<\/p>(?=\n?$)/, '</p>'); // PCRE `$` also matches before a final newline

  for (const [name, html] of preTags) text = replaceAll(text, name, html);
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
  if (text.length > AUTOP_MEMO_MAX_LENGTH) return phpTrim(wpautop(text));
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
  const words = stripTags(text)
    .split(/[\n\r\t ]+/)
    .filter((w) => w !== '');
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
