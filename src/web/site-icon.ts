/**
 * The site's icon (favicon; the SITE_ICON setting): the `<link rel="icon">` every face's pages
 * carry (the calendar pages, the submission form, the admin app), and the icon the service ships
 * at /favicon.svg, the setting's default. A browser that asks /favicon.ico by habit is sent to the
 * icon in force.
 *
 * @example
 *   iconLink('/favicon.svg', (p) => `https://example.org${p}`)
 *   // '<link rel="icon" href="https://example.org/favicon.svg" type="image/svg+xml">'
 */
import type { FastifyInstance } from 'fastify';
import { escapeHtml as esc } from './html.js';

/** Where the shipped icon is served (SITE_ICON's default). */
export const DEFAULT_ICON_PATH = '/favicon.svg';

/** The shipped icon: a calendar page, readable at 16 px, in the pages' accent colour. */
export const DEFAULT_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="5" width="28" height="25" rx="4" fill="#fff" stroke="#1d4ed8" stroke-width="2.5"/><path d="M2 9a4 4 0 0 1 4-4h20a4 4 0 0 1 4 4v4H2z" fill="#1d4ed8"/><rect x="8" y="1" width="3" height="8" rx="1.5" fill="#1e3a8a"/><rect x="21" y="1" width="3" height="8" rx="1.5" fill="#1e3a8a"/><rect x="8" y="17" width="5" height="4" fill="#1d4ed8"/><rect x="19" y="17" width="5" height="4" fill="#93c5fd"/><rect x="8" y="23" width="5" height="4" fill="#93c5fd"/></svg>
`;

/** The icon's address: a path on this site made absolute with `url`, a URL as it is. */
export function iconHref(icon: string, url: (path: string) => string = (p) => p): string {
  return icon.startsWith('/') ? url(icon) : icon;
}

/** The `<link rel="icon">` of a page (escaped; with its type when the name tells it). */
export function iconLink(icon: string, url?: (path: string) => string): string {
  const href = iconHref(icon, url);
  const ext = /\.(svg|png|ico|gif|webp)(?:[?#].*)?$/i.exec(href)?.[1]?.toLowerCase();
  const type = ext === 'svg' ? 'image/svg+xml' : ext === 'png' ? 'image/png' : ext === 'ico' ? 'image/x-icon' : ext === 'gif' ? 'image/gif' : ext === 'webp' ? 'image/webp' : undefined;
  return `<link rel="icon" href="${esc(href)}"${type ? ` type="${type}"` : ''}>`;
}

/** GET /favicon.svg (the shipped icon) and /favicon.ico (a redirect to the icon in force). */
export function registerSiteIcon(app: FastifyInstance, config: { siteIcon: string }): void {
  app.get(DEFAULT_ICON_PATH, async (_req, reply) =>
    reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(DEFAULT_ICON_SVG),
  );
  app.get('/favicon.ico', async (_req, reply) => {
    // Read per request: administrators change the icon while the server runs.
    const icon = config.siteIcon;
    if (icon === '/favicon.ico') return reply.code(404).send();
    return reply.header('cache-control', 'public, max-age=3600').redirect(icon, 302);
  });
}
