/**
 * HTML templates of the submission pages: the escaping templates every face shares (web/html.ts).
 *
 * @example html`<a href="${url}">${title}</a>` // both escaped
 */
export { SafeHtml, escapeHtml, html, trusted } from '../web/html.js';
