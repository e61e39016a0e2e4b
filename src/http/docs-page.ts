/**
 * A human-readable page of the OpenAPI document: Swagger UI at `GET /docs` (outside the REST
 * root, so it is not an API route), served from the `swagger-ui-dist` package on disk: no CDN,
 * works offline. The page loads `{REST_ROOT}/calendar/events/v1/doc` from the same host.
 *
 * Files served: `/docs` (the page), `/docs/init.js` (our set-up script, no inline script),
 * and Swagger UI's `swagger-ui.css`, `swagger-ui-bundle.js` and favicons under `/docs/`.
 *
 * @example registerDocsPage(app, '/api/calendar/events/v1/doc') // GET /docs
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** Where the page lives. */
export const DOCS_PAGE_PATH = '/docs';

/** The Swagger UI files we serve, and their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=UTF-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=UTF-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The HTML page. */
export function docsPageHtml(base = DOCS_PAGE_PATH): string {
  const b = escapeHtml(base);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>The Events Calendar REST API</title>
    <link rel="stylesheet" type="text/css" href="${b}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${b}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${b}/favicon-16x16.png" sizes="16x16">
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${b}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${b}/init.js" charset="UTF-8"></script>
  </body>
</html>
`;
}

/** The set-up script: Swagger UI on the document's path (same host as the page). */
export function docsInitScript(docPath: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(docPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    tryItOutEnabled: false,
  });
};
`;
}

/**
 * Register `GET /docs` and its assets. `docPath` is the path of the OpenAPI document, e.g.
 * '/api/calendar/events/v1/doc'.
 */
export function registerDocsPage(app: FastifyInstance, docPath: string): void {
  const dir = swaggerUiDir();
  const cache = new Map<string, Buffer>();
  const html = docsPageHtml();
  const init = docsInitScript(docPath);

  app.get(DOCS_PAGE_PATH, async (_req, reply) => reply.type('text/html; charset=UTF-8').header('cache-control', 'no-cache').send(html));
  app.get(`${DOCS_PAGE_PATH}/init.js`, async (_req, reply) => reply.type('application/javascript; charset=UTF-8').header('cache-control', 'no-cache').send(init));
  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`${DOCS_PAGE_PATH}/${file}`, async (_req, reply) => {
      let body = cache.get(file);
      if (!body) {
        body = await readFile(join(dir, file));
        cache.set(file, body);
      }
      return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
    });
  }
}
