/**
 * Character references and escaping as WordPress and PHP do them: `wp_kses_normalize_entities()`,
 * `_wp_specialchars()`, `htmlspecialchars()`, `esc_js()`.
 */
import { replaceAll } from './php.js';

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
