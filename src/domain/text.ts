/**
 * Text / HTML helpers that reproduce what WordPress (and The Events Calendar on top of it)
 * does to post content, term names and JSON-LD strings.
 *
 * Everything here is pure: no I/O, no global state (randomness is injectable). The filters live in
 * `text/` by concern; this module is their public face.
 */
export { isNonBlankTitle, phpTrim, removeLazySpans } from './text/php.js';
export { escHtml, escJs, normalizeEntities, wpSpecialchars } from './text/entities.js';
export { stripTags } from './text/tags.js';
export { autop, newlinesToBr, wpautop } from './text/autop.js';
export { MAX_MARKUP_ITEMS, markupFailure, markupItems } from './text/markup-limit.js';
export { sanitizePostHtml, termText } from './text/kses.js';
export { jsonLdDescription, obfuscateEmail, trimWords } from './text/excerpts.js';
