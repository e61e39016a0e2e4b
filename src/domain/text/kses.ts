/**
 * What WordPress kses keeps of submitted HTML (the post, data and excerpt allow-lists), and how a
 * term field is stored.
 */
import sanitizeHtml from 'sanitize-html';
import { wpSpecialchars } from './entities.js';
import { sanitizeTextField } from './tags.js';

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
export const EXCERPT_KSES: sanitizeHtml.IOptions = {
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
