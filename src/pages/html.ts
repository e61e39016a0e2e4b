/**
 * The pages' HTML: the escaping templates every face shares (web/html.ts) and the JSON-LD script.
 *
 * @example
 *   html`<a href="${url}">${title}</a>`            // both escaped
 */
import { html, trusted, type SafeHtml } from '../web/html.js';

export { SafeHtml, escapeHtml, html, trusted } from '../web/html.js';

/**
 * A JSON object as the body of `<script type="application/ld+json">`: `<`, `>` and `&` as JSON
 * escapes, so no value can close the script element.
 */
export function jsonLdScript(value: unknown): SafeHtml {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return html`<script type="application/ld+json">${trusted(json)}</script>`;
}

// The plain-text helpers moved to the domain (the iCalendar writer there uses them).
export { decodeEntities, plainText } from '../domain/plain-text.js';
