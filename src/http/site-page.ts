/**
 * The site root `/`: a small HTML page naming the calendar and linking to the API and its
 * documentation, and to the calendar's pages (`/events/`). It is what
 * WordPress discovery (`WPAPI.discover(siteUrl)`, a HEAD then a GET of the site) reads: the
 * `Link: <{SITE_URL}{REST_ROOT}/>; rel="https://api.w.org/"` header (added to every answer by
 * register.ts) and the same relation as a `<link>` in the page head, as WordPress themes print it.
 * `/?rest_route=…` never reaches it: register.ts' restRouteRewrite rewrites those URLs to the REST root.
 *
 * @example sitePageHtml('Events Calendar', 'http://x/api/', '/docs', 'http://x/events/')
 */

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page: its title, the discovery link, and links to the REST root and the docs page. */
export function sitePageHtml(name: string, restRoot: string, docsPath: string, eventsUrl?: string): string {
  const n = escapeHtml(name);
  const events = eventsUrl === undefined ? '' : `\n      <li><a href="${escapeHtml(eventsUrl)}">The calendar</a> (upcoming events, month view, iCalendar feeds)</li>`;
  const api = escapeHtml(restRoot);
  const docs = escapeHtml(docsPath);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${n}</title>
    <link rel="https://api.w.org/" href="${api}">
  </head>
  <body>
    <h1>${n}</h1>
    <p>This site's events are served by a REST API compatible with The Events Calendar.</p>
    <ul>${events}
      <li><a href="${api}">The REST API</a> (<code>${api}</code>)</li>
      <li><a href="${docs}">The API documentation</a></li>
    </ul>
  </body>
</html>
`;
}
