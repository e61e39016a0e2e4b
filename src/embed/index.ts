/**
 * The embed face: the calendar on other sites.
 *
 *   /embed/events-calendar.js          the `<events-calendar>` web component, stable URL (short cache)
 *   /embed/events-calendar.<hash>.js   the same bytes, long-cache and `immutable` (for SRI snippets)
 *   /embed/                            the iframe view: list, upcoming or month, server-rendered, no
 *                                      script, frameable by any site (`frame-ancestors *`)
 *   /embed/snippet                     the snippet generator (a GET form; works without script)
 *   /embed/snippet.json                the same snippets as JSON (the admin app's embed screen)
 *   /embed/vendor/fullcalendar-V/…     FullCalendar's global build (core, daygrid, list, locales),
 *                                      long-cache, for the snippet's script tags with SRI
 *
 * CORS for public reads: the component's files and the embedding namespace's routes
 * (`{REST_ROOT}/calendar/embed/v1/…`, the FullCalendar event source the component reads) answer
 * `Access-Control-Allow-Origin: *` without `Access-Control-Allow-Credentials`, and allow
 * `If-None-Match` in preflights, so a page of any origin reads them (conditionally) and never with
 * the visitor's cookies.
 *
 * @example registerEmbedFace(app, { config, services })
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EMBED_NAMESPACE, WORDPRESS_REST_ROOT } from '../config.js';
import { faultError } from '../domain/errors.js';
import { storeFault } from '../domain/faults.js';
import { answerConditional, etagOf, isNotModified } from '../web/conditional.js';
import { registerErrorShape, withErrorHeaders } from '../web/error-shapes.js';
import { createAssetStore, type AssetStore } from './assets.js';
import { localeOf, messagesFor } from './messages.js';
import { optionsOf } from './options.js';
import { createEmbedReader, type EmbedReader } from './reader.js';
import { listView, messageView, monthView, snippetPage, snippetTexts, VIEW_CSP } from './views.js';
import { createFullCalendarVendor } from './vendor.js';
import { WEEKDAYS, type Weekday } from '../domain/month-grid.js';

export const STABLE_PATH = '/embed/events-calendar.js';
/** How long browsers and caches keep the stable URL's answer (seconds). */
export const STABLE_MAX_AGE = 300;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The snippet page's policy: its previews load the component and the iframe view from SITE_URL's origin (maybe not the request's). */
const snippetCsp = (site: string) =>
  `default-src 'none'; script-src 'self' ${site}; connect-src 'self' ${site}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self' ${site}; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`;

export interface EmbedFace extends Pick<FaceDeps, 'config' | 'services'> {
  /** where the built component is (tests); dist/embed/ by default */
  assets?: AssetStore;
}

/** Public-read CORS: any origin, never with credentials; conditional requests allowed. */
function publicCors(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.removeHeader('access-control-allow-credentials');
  reply.header('access-control-allow-methods', 'GET, HEAD, OPTIONS');
  reply.header('access-control-allow-headers', 'Authorization, Content-Type, If-None-Match, If-Modified-Since');
  reply.header('access-control-expose-headers', 'ETag, Last-Modified, Link, X-WP-Total, X-WP-TotalPages');
  reply.header('access-control-max-age', '600');
}

export function registerEmbedFace(app: FastifyInstance, { config, services, assets = createAssetStore() }: EmbedFace): void {
  const reader = createEmbedReader(services);
  const vendor = createFullCalendarVendor();
  // The site URL of the calendar a request is of (a getter: `/c/north/embed/snippet` writes north's snippets).
  const siteNow = () => services.links.siteUrl;
  const namespacePrefixes = [...new Set([config.restRoot, WORDPRESS_REST_ROOT])].map((root) => `${root}/${EMBED_NAMESPACE}`);

  // After the REST face's common headers (its onSend hook was added first): public-read CORS for
  // the component's files and the embedding namespace.
  // Callback-style, and decided from the matched route's pattern (no string work per request).
  const embedRoutes = new WeakMap<object, boolean>();
  const isEmbedRoute = (url: string) => {
    const path = url.replace(/\/{2,}/g, '/');
    return namespacePrefixes.some((p) => path === p || path.startsWith(`${p}/`)) || path.startsWith('/embed/events-calendar.') || path.startsWith('/embed/vendor/');
  };
  app.addHook('onSend', (req, reply, payload, done) => {
    const pattern = req.routeOptions.url;
    if (pattern !== undefined && !pattern.includes('*')) {
      const config = req.routeOptions.config as object;
      let embed = embedRoutes.get(config);
      if (embed === undefined) embedRoutes.set(config, (embed = isEmbedRoute(pattern)));
      if (embed) publicCors(reply);
    } else if (isEmbedRoute(req.url.split('?')[0]!)) publicCors(reply);
    done(null, payload);
  });

  // What reaches none of the face's handlers (a URL or query string it cannot read, a method its
  // paths do not take): a page for the views, text for the component's files.
  registerErrorShape(app, {
    owns: (path) => path === '/embed' || path.startsWith('/embed/'),
    send: (req, reply, error) => {
      req.sitePage = true;
      const path = (req.raw.url ?? req.url).split('?')[0]!;
      const locale = localeOf(undefined, req.headers['accept-language']);
      const m = messagesFor(locale);
      const message = error.code === 'rest_no_route' ? m.notFound : locale === 'en' ? error.message : m.unreadable;
      withErrorHeaders(reply, error).code(error.status).header('cache-control', 'no-store');
      if (path.startsWith('/embed/events-calendar.')) return reply.header('content-type', 'text/plain; charset=utf-8').send(`${message}\n`);
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', VIEW_CSP)
        .send(messageView(locale, m.calendar, message));
    },
  });

  const script = (req: FastifyRequest, reply: FastifyReply, immutable: boolean) => {
    req.sitePage = true;
    const asset = assets.current();
    if (!asset) return reply.code(503).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('The component is not built: run `npm run build`.\n');
    if (immutable && req.url.split('?')[0] !== `/embed/${asset.file}`) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('No such version of the component.\n');
    const etag = `"${asset.hash}"`;
    answerConditional(req, reply, { etag });
    reply.header('cache-control', immutable ? IMMUTABLE : `public, max-age=${STABLE_MAX_AGE}`);
    reply.header('cross-origin-resource-policy', 'cross-origin');
    reply.header('x-content-type-options', 'nosniff');
    if (isNotModified(req, { etag })) return reply.code(304).send();
    if (!immutable) reply.header('link', `</embed/${asset.file}>; rel="preload"; as="script"; crossorigin="anonymous"`);
    return reply.code(200).header('content-type', 'text/javascript; charset=utf-8').send(asset.code);
  };
  app.get(STABLE_PATH, async (req, reply) => script(req, reply, false));
  app.get('/embed/events-calendar.:hash.js', async (req, reply) => script(req, reply, true));

  // The iframe view.
  app.get('/embed/', async (req, reply) => iframeView(config, services, reader, req, reply));

  // FullCalendar's global build, for the snippet's script tags: versioned URLs, kept a year.
  app.get('/embed/vendor/:folder/*', async (req, reply) => {
    req.sitePage = true;
    const { folder, '*': name } = req.params as { folder: string; '*': string };
    const file = folder === vendor.folder ? vendor.file(name) : undefined;
    if (!file) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('No such file.\n');
    return reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', IMMUTABLE)
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .send(file.code);
  });

  /** The snippets for a request's options: the page and its JSON twin (the admin app's screen) share them. */
  const snippetsOf = (query: Record<string, unknown>) => {
    const o = optionsOf(query);
    const raw = typeof query['first-day'] === 'string' ? query['first-day'] : undefined;
    // A day's number (0 Sunday to 6 Saturday); unset or unreadable: the calendar's own first day.
    const firstDay = raw !== undefined && /^[0-6]$/.test(raw) ? Number(raw) : Math.max(0, WEEKDAYS.indexOf(config.weekStart as Weekday));
    const asset = assets.current();
    const site = siteNow();
    const componentAssets = asset ? { stable: `${site}${STABLE_PATH}`, hashed: `${site}/embed/${asset.file}`, integrity: asset.integrity } : undefined;
    const scripts = vendor.scripts(o.locale).map((f) => ({ src: `${site}${f.path}`, integrity: f.integrity }));
    return { o, firstDay, componentAssets, scripts, invalid: raw !== undefined && !/^[0-6]$/.test(raw) ? [...o.invalid, 'first-day'] : o.invalid };
  };

  app.get('/embed/snippet.json', async (req, reply) => {
    req.sitePage = true;
    const { o, firstDay, componentAssets, scripts, invalid } = snippetsOf((req.query ?? {}) as Record<string, unknown>);
    const locale = o.locale ?? localeOf(undefined, req.headers['accept-language']);
    const texts = snippetTexts(siteNow(), config.siteName, o, locale, componentAssets, firstDay, scripts);
    return reply
      .code(200)
      .header('cache-control', 'no-cache')
      .send({ component: texts.component, iframe: texts.iframe, fullcalendar: texts.fullcalendar, preview: texts.iframeSrc, first_day: firstDay, scripts, invalid });
  });

  // The snippet generator.
  app.get('/embed/snippet', async (req, reply) => {
    req.sitePage = true;
    const { o, firstDay, componentAssets, scripts, invalid } = snippetsOf((req.query ?? {}) as Record<string, unknown>);
    const locale = localeOf(undefined, req.headers['accept-language']);
    const site = siteNow();
    const body = snippetPage(site, config.siteName, { ...o, invalid }, locale, componentAssets, firstDay, scripts);
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', snippetCsp(new URL(site).origin))
      .header('x-frame-options', 'SAMEORIGIN')
      .header('cache-control', 'no-cache')
      .send(body);
  });
}

/** The iframe view: the list, upcoming or month view of the query's options, conditional on the calendar's revision. */
async function iframeView(config: FaceDeps['config'], services: FaceDeps['services'], reader: EmbedReader, req: FastifyRequest, reply: FastifyReply) {
  req.sitePage = true;
  const q = (req.query ?? {}) as Record<string, unknown>;
  const o = optionsOf(q);
  const locale = o.locale ?? localeOf(undefined, req.headers['accept-language']);
  const m = messagesFor(locale);
  reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', VIEW_CSP).header('referrer-policy', 'strict-origin-when-cross-origin');
  // Options only the component has are not errors here (the snippet's iframe never sends them).
  const invalid = o.invalid.filter((n) => n !== 'time-zone' && n !== 'refresh');
  if (invalid.length)
    return reply
      .code(400)
      .header('cache-control', 'no-store')
      .send(messageView(locale, m.calendar, m.badRequest.replace('{name}', invalid.join(', '))));
  try {
    const [position, databaseId] = await Promise.all([services.versions.position(), services.versions.databaseId()]);
    const today = reader.today();
    const validators = { etag: etagOf(['embed', databaseId, position.tag, today, locale, req.url]), ...(position.gmt !== undefined ? { lastModified: position.gmt } : {}) };
    if (isNotModified(req, validators) && answerConditional(req, reply, validators)) return reply;
    let body: string;
    if (o.view === 'month') {
      const month = o.month ?? today.slice(0, 7);
      body = monthView(config.siteName, o, locale, month, await reader.month(o.filter, month), today, config.weekStart);
    } else {
      body = listView(config.siteName, o, locale, await reader.upcoming(o.filter, o.limit ?? (o.view === 'upcoming' ? 5 : 10)), today);
    }
    answerConditional(req, reply, validators);
    return reply.code(200).send(body);
  } catch (err) {
    const fault = storeFault(err);
    if (fault === undefined) throw err;
    const e = faultError(fault);
    return reply
      .code(e.status)
      .headers(e.headers)
      .header('cache-control', 'no-store')
      .send(messageView(locale, m.calendar, m.unavailable));
  }
}
