/**
 * WordPress `wpautop()` (paragraphs and line breaks) and {@link autop}, its trimmed and memoised
 * form that descriptions and excerpts are rendered with.
 */
import { registerKept } from '../../metrics.js';
import { phpTrim, replaceAll, WS, WS_CHARS } from './php.js';
import { mapElements } from './tags.js';

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
