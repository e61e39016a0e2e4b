/**
 * The CalDAV face: the calendar as read-only CalDAV collections (RFC 4791, with
 * RFC 6578 sync), for Apple Calendar, Thunderbird, DAVx5 and any CalDAV client.
 *
 *   /.well-known/caldav                      301 to /dav/ (every method: clients PROPFIND it)
 *   PROPFIND /                               the site root answers as /dav/ (the URL people type)
 *   /dav/                                    the authenticated tree's root (current-user-principal)
 *   /dav/principals/                         the principals (the caller's)
 *   /dav/principals/users/{login}/           a user's principal
 *   /dav/calendars/                          the calendar home (every principal's)
 *   /dav/calendars/events/                   the whole site's calendar
 *   /dav/calendars/category-{slug}/          one calendar per category
 *   /dav/calendars/{calendar}/{id}.ics       one event (UID {id}@host), GET/HEAD
 *   /dav/public/…                            the same tree for anonymous subscribers: its root,
 *                                            principals/anonymous/, calendars/…, never asking for credentials
 *
 * Methods: OPTIONS, GET, HEAD, PROPFIND (Depth 0 and 1; `prop`, `allprop`, `propname`), REPORT
 * (calendar-query, calendar-multiget, sync-collection); every write method answers 403 with a DAV
 * error body. The authenticated tree (everything under /dav/ but /dav/public/) asks for credentials
 * (401 with `WWW-Authenticate: Basic`) whenever a request has none or wrong ones, so that clients
 * which send credentials only when challenged never see the anonymous view in its place: HTTP
 * Basic with a password or an application password, through the failed-login throttle and the
 * two-factor rule shared with the REST API (web/authentication.ts). The public tree is always the
 * anonymous viewer, who reads published events only (credentials sent there are not read).
 * Request bodies: XML (xml.ts), at most BODY_LIMIT
 * bytes, MAX_PROPERTIES properties and MAX_HREFS hrefs (413 beyond); anything unreadable answers
 * 400, never a 500. Multistatus answers are built in steps and streamed when large (xml.ts
 * `multistatusBody`); a listing that asks for no property of the event itself (an initial sync or
 * a Depth 1 PROPFIND of ETags) is answered from ids and versions, without reading the events.
 * `calendar-data` may ask for `expand` (UTC instances, RFC 4791 §9.6.5); all-day events meet
 * time-ranges as floating dates in the calendar's zone (§9.9, calendars.ts `overlaps`).
 *
 * The face in rooms, one per concern (as Radicale's `app/` modules): resources.ts (the trees, what a
 * path names, hrefs), answers.ts (limits, errors, bodies in and out), properties.ts, one module per
 * method (get.ts, propfind.ts, report.ts), calendars.ts (the calendars over the domain), xml.ts;
 * this module authenticates, dispatches and registers the routes.
 *
 * @example registerCalDav(app, { config, services })
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { ANONYMOUS, isAuthenticated, type Viewer } from '../domain/permissions.js';
import { createAuthentication } from '../web/authentication.js';
import { registerErrorShape } from '../web/error-shapes.js';
import { createCalendars, TooManyMatches } from './calendars.js';
import { ALLOW, BODY_LIMIT, DAV_HEADER, DavError, EXTRA_METHODS, notFound, READ_METHODS, sendXml, tooLarge, WRITE_METHODS } from './answers.js';
import { get } from './get.js';
import { hrefXml } from './properties.js';
import { propfind } from './propfind.js';
import { report } from './report.js';
import { DAV_ROOT, davPrefixOf, locate, PRIVATE_TREE, resolve, treeUnder, type Dav } from './resources.js';
import { errorDocument, escapeXml } from './xml.js';

export function registerCalDav(app: FastifyInstance, deps: Pick<FaceDeps, 'config' | 'services'>): void {
  const { config, services } = deps;
  const dav: Dav = { config, calendars: createCalendars(services) };
  const authenticate = createAuthentication(services, config);
  for (const m of EXTRA_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });

  /** The caller in the authenticated tree: no credentials ask for them (401), unless `optional` (OPTIONS). */
  async function viewerOf(req: FastifyRequest, optional: boolean): Promise<Viewer> {
    const header = req.headers.authorization;
    if (header === undefined) {
      if (optional) return ANONYMOUS;
      throw unauthorized();
    }
    const viewer = await authenticate(header, req.ip).catch((e: unknown) => {
      // The account password of a user with two-factor sign-in (web/authentication.ts): ask again, saying why.
      throw e instanceof ApiError && e.status === 401 ? unauthorized(e.message) : e;
    });
    // Wrong credentials: ask again (clients then prompt), rather than answering as anonymous.
    if (!isAuthenticated(viewer)) throw unauthorized();
    return viewer;
  }
  const unauthorized = (message?: string) =>
    new DavError(401, errorDocument('{DAV:}need-privileges', message === undefined ? '' : escapeXml(message)), {
      'www-authenticate': `Basic realm="${config.siteName.replace(/["\\]/g, '')}", charset="UTF-8"`,
    });

  function forbiddenWrite(req: FastifyRequest, href: string): DavError {
    if (req.method === 'PROPPATCH') return new DavError(403, errorDocument('{DAV:}cannot-modify-protected-property'));
    const privilege =
      req.method === 'PUT' || req.method === 'POST' || req.method === 'PATCH'
        ? 'write-content'
        : req.method === 'LOCK' || req.method === 'UNLOCK'
          ? 'write'
          : req.method === 'ACL'
            ? 'write-acl'
            : 'bind';
    const body = errorDocument('{DAV:}need-privileges', `<d:resource>${hrefXml(href)}<d:privilege><d:${privilege}/></d:privilege></d:resource>`);
    return new DavError(403, body, { allow: ALLOW });
  }

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    try {
      const method = req.method.toUpperCase();
      const path = req.url.split('?')[0]!;
      // PROPFIND on the site root (the URL people type, and DAVx5's first request) answers as the
      // authenticated tree's root does; every other method on / is the pages face's.
      // Under a calendar's path (`/c/north/dav/…`), every href answered carries it.
      const prefix = davPrefixOf(req);
      const where = path === '/' ? { tree: treeUnder(PRIVATE_TREE, prefix), s: [] } : locate(req.url, prefix);
      const tree = where?.tree ?? treeUnder(PRIVATE_TREE, prefix);
      // The public tree is anonymous whatever is sent; the authenticated tree asks for credentials
      // before anything else (OPTIONS aside), so that nothing there is ever the anonymous view.
      const viewer = tree.public ? ANONYMOUS : await viewerOf(req, method === 'OPTIONS');
      let res = where ? await resolve(dav, where.tree, where.s) : undefined;
      if (path === '/') res = { kind: 'root', href: `${prefix}/` };
      if (WRITE_METHODS.includes(method)) throw forbiddenWrite(req, path);
      if (!res) throw notFound();
      // A user's principal is theirs only.
      if (res.kind === 'principal' && res.login !== null && (!isAuthenticated(viewer) || res.login !== viewer.login)) throw notFound();
      switch (method) {
        case 'OPTIONS':
          return reply.code(200).header('dav', DAV_HEADER).header('allow', ALLOW).header('content-length', '0').send();
        case 'GET':
        case 'HEAD':
          return await get(dav, req, reply, res, viewer);
        case 'PROPFIND':
          return await propfind(dav, req, reply, tree, res, viewer);
        case 'REPORT':
          return await report(dav, req, reply, tree, res, viewer);
        default:
          return sendXml(reply, 405, errorDocument('{DAV:}method-not-allowed'), { allow: ALLOW });
      }
    } catch (e) {
      return answerError(req, reply, e);
    }
  }

  function answerError(req: FastifyRequest, reply: FastifyReply, e: unknown) {
    // A calendar larger than CALDAV_MAX_EVENTS, listed whole (GET, PROPFIND Depth 1, calendar-query).
    if (e instanceof TooManyMatches) return sendXml(reply, 507, errorDocument('{DAV:}number-of-matches-within-limits'));
    if (e instanceof DavError) {
      if (e.status === 405 || e.status === 403) reply.header('allow', ALLOW);
      return sendXml(reply, e.status, e.body ?? errorDocument('{DAV:}error'), e.headers);
    }
    if (e instanceof ApiError) {
      // The login throttle (429 with Retry-After), a database fault (503/507): the same statuses.
      for (const [k, v] of Object.entries(e.headers ?? {})) reply.header(k, v);
      return sendXml(reply, e.status, errorDocument('{DAV:}error', escapeXml(e.message)));
    }
    if ((e as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendXml(reply, 413, tooLarge(`request body over ${BODY_LIMIT} bytes`).body!);
    const status = (e as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendXml(reply, status, errorDocument('{DAV:}error', escapeXml((e as Error).message)));
    req.log.error({ err: e }, 'caldav: unhandled error');
    return sendXml(reply, 500, errorDocument('{DAV:}error'));
  }

  // What reaches none of the face's handlers (a URL the router cannot read, a method no route of
  // the face takes, a path under the well-known URI): DAV error documents too; a method the face
  // does not know is not allowed (405, Allow).
  registerErrorShape(app, {
    owns: (path) => path === DAV_ROOT || path.startsWith(`${DAV_ROOT}/`) || path === '/.well-known/caldav' || path.startsWith('/.well-known/caldav/'),
    send: (req, reply, error) => {
      if (error.code !== 'rest_no_route') return answerError(req, reply, error);
      if ([...READ_METHODS, ...WRITE_METHODS].includes(req.method)) return answerError(req, reply, notFound());
      return sendXml(reply, 405, errorDocument('{DAV:}method-not-allowed'), { allow: ALLOW });
    },
  });

  void app.register(async (scope) => {
    // Bodies are XML (any content type: clients send text/xml, application/xml or none), as text.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.setErrorHandler(async (error, req, reply) => answerError(req, reply, error));
    const methods = [...READ_METHODS, ...WRITE_METHODS];
    scope.route({ method: methods, url: DAV_ROOT, bodyLimit: BODY_LIMIT, handler: handle });
    scope.route({ method: methods, url: `${DAV_ROOT}/*`, bodyLimit: BODY_LIMIT, handler: handle });
    // Discovery from the site root (RFC 6764 §5's context path is /dav/; clients given the bare
    // origin PROPFIND it first): only PROPFIND, so the pages' GET / and the REST API are untouched.
    scope.route({ method: 'PROPFIND', url: '/', bodyLimit: BODY_LIMIT, handler: handle });
    // RFC 6764 §5: the well-known URI redirects to the context path, whatever the method.
    scope.route({
      method: methods,
      url: '/.well-known/caldav',
      handler: async (req, reply) =>
        reply
          .code(301)
          .header('location', `${davPrefixOf(req)}${DAV_ROOT}/`)
          .header('cache-control', 'no-cache')
          .send(),
    });
  });
}
