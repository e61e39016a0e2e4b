/**
 * Tag stripping as PHP `strip_tags()` and WordPress `wp_strip_all_tags()` / `sanitize_text_field()`
 * do it, and the linear-time element matcher the filters share.
 */
import { wpSpecialchars } from './entities.js';
import { phpTrim, replaceAll } from './php.js';

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
export function mapElements(text: string, opening: RegExp, openingTag: boolean, fn: (element: string) => string): string {
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
export function sanitizeTextField(text: string): string {
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
