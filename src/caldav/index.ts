/**
 * The CalDAV face (issue 30): the calendar as read-only CalDAV collections (RFC 4791, with
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
 * @example registerCalDav(app, { config, services })
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DateTime } from 'luxon';
import type { Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { ICAL_CONTENT_TYPE } from '../domain/ical.js';
import { ANONYMOUS, isAuthenticated, type Viewer } from '../domain/permissions.js';
import type { Services } from '../domain/services.js';
import { createAuthentication } from '../web/authentication.js';
import { answerConditional, toDate } from '../web/conditional.js';
import { registerErrorShape } from '../web/error-shapes.js';
import { createCalendars, InvalidSyncToken, overlaps, TooManyMatches, type CalendarRef, type Listed, type Member } from './calendars.js';
import {
  APPLE,
  CALDAV,
  CALSERVER,
  DAV,
  XmlError,
  child,
  children,
  clark,
  element,
  errorDocument,
  escapeXml,
  multistatusBody,
  parseXml,
  propResponse,
  statusResponse,
  type PropValues,
  type XmlElement,
} from './xml.js';

/** The DAV root every URL of the face is under (the authenticated tree's root). */
export const DAV_ROOT = '/dav';

/** The public tree's root: the calendars as an anonymous visitor reads them, without credentials. */
export const PUBLIC_ROOT = `${DAV_ROOT}/public`;

/** One of the two trees: the authenticated one (credentials required) or the public one (anonymous). */
interface Tree {
  public: boolean;
  base: string;
}
const PRIVATE_TREE: Tree = { public: false, base: DAV_ROOT };
const PUBLIC_TREE: Tree = { public: true, base: PUBLIC_ROOT };

/**
 * The largest request body read (bytes): 413 over it, from its `Content-Length` before anything is
 * read, or as soon as a chunked body passes it. Real clients send under 10 KiB (Apple's largest
 * body is about 2 KiB; a multiget of a hundred hrefs about 6 KiB).
 */
export const BODY_LIMIT = 128 * 1024;

/** Properties one request may name (`<d:prop>`, `<d:include>`) at most: 413 beyond. Clients name about 30. */
export const MAX_PROPERTIES = 1000;

/** Hrefs one calendar-multiget may name at most: 413 beyond. Clients send them in batches of 10 to 100. */
export const MAX_HREFS = 5000;

/** The methods answered 200; every other WebDAV method is a write and answers 403. */
const READ_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PROPFIND', 'REPORT'];
const WRITE_METHODS = ['PUT', 'DELETE', 'POST', 'PATCH', 'MKCOL', 'MKCALENDAR', 'PROPPATCH', 'MOVE', 'COPY', 'LOCK', 'UNLOCK', 'ACL'];
/** Methods Fastify does not know by default (the WebDAV and CalDAV ones). */
const EXTRA_METHODS = ['PROPFIND', 'REPORT', 'PROPPATCH', 'MKCOL', 'MKCALENDAR', 'MOVE', 'COPY', 'LOCK', 'UNLOCK', 'ACL'];

const ALLOW = READ_METHODS.join(', ');
const DAV_HEADER = '1, 3, calendar-access';
const XML_TYPE = 'application/xml; charset=utf-8';

/** A resource of the face, from its path. */
type Resource =
  | { kind: 'root'; href?: string }
  | { kind: 'principals' }
  | { kind: 'principal'; login: string | null }
  | { kind: 'home' }
  | { kind: 'calendar'; cal: CalendarRef }
  | { kind: 'object'; cal: CalendarRef; id: number };

/** An answer with a status, a DAV error body and maybe headers. */
class DavError extends Error {
  constructor(
    readonly status: number,
    readonly body?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`DAV ${status}`);
  }
}

const badRequest = (message: string) => new DavError(400, errorDocument('{DAV:}bad-request', escapeXml(message)));
/** A request over one of the limits (body size, elements, declarations, properties, hrefs). */
const tooLarge = (message: string) => new DavError(413, errorDocument('{DAV:}bad-request', escapeXml(message)));
const notFound = () => new DavError(404, errorDocument('{DAV:}resource-not-found'));

export function registerCalDav(app: FastifyInstance, deps: { config: Config; services: Services }): void {
  const { config, services } = deps;
  const calendars = createCalendars(services);
  const authenticate = createAuthentication(services, config);
  for (const m of EXTRA_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });

  // -- paths ---------------------------------------------------------------------------------

  const principalsHref = (tree: Tree) => `${tree.base}/principals/`;
  const principalHref = (tree: Tree, viewer: Viewer) =>
    !tree.public && isAuthenticated(viewer) ? `${principalsHref(tree)}users/${encodeURIComponent(viewer.login)}/` : `${principalsHref(tree)}anonymous/`;
  const homeHref = (tree: Tree) => `${tree.base}/calendars/`;
  const calendarHref = (tree: Tree, cal: CalendarRef) => `${homeHref(tree)}${encodeURIComponent(cal.key)}/`;
  const objectHref = (tree: Tree, cal: CalendarRef, id: number) => `${calendarHref(tree, cal)}${id}.ics`;

  /** The path's segments under the DAV root (decoded), or undefined when it is not under it. */
  function segmentsOf(url: string): string[] | undefined {
    const path = url.split('?')[0]!;
    if (path !== DAV_ROOT && !path.startsWith(`${DAV_ROOT}/`)) return undefined;
    try {
      return path
        .slice(DAV_ROOT.length)
        .split('/')
        .filter((s) => s !== '')
        .map((s) => decodeURIComponent(s));
    } catch {
      return undefined;
    }
  }

  /** The tree a path is in and its segments under that tree's root, or undefined when it is not under the DAV root. */
  function locate(url: string): { tree: Tree; s: string[] } | undefined {
    const s = segmentsOf(url);
    if (!s) return undefined;
    return s[0] === 'public' ? { tree: PUBLIC_TREE, s: s.slice(1) } : { tree: PRIVATE_TREE, s };
  }

  async function resolve(tree: Tree, s: string[]): Promise<Resource | undefined> {
    if (s.length === 0) return { kind: 'root' };
    if (s[0] === 'principals') {
      if (s.length === 1) return { kind: 'principals' };
      if (tree.public) return s.length === 2 && s[1] === 'anonymous' ? { kind: 'principal', login: null } : undefined;
      if (s.length === 3 && s[1] === 'users') return { kind: 'principal', login: s[2]! };
      return undefined;
    }
    if (s[0] !== 'calendars') return undefined;
    if (s.length === 1) return { kind: 'home' };
    const cal = await calendars.resolve(s[1]!);
    if (!cal) return undefined;
    if (s.length === 2) return { kind: 'calendar', cal };
    const m = s.length === 3 ? /^([1-9][0-9]{0,14})\.ics$/.exec(s[2]!) : null;
    if (!m) return undefined;
    return { kind: 'object', cal, id: Number(m[1]) };
  }

  /** An href (absolute URL or path) as a path under the DAV root, or undefined. */
  function hrefPath(href: string): string | undefined {
    const text = href.trim();
    try {
      return new URL(text, config.siteUrl).pathname;
    } catch {
      return undefined;
    }
  }

  // -- who asks ------------------------------------------------------------------------------

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

  // -- properties ----------------------------------------------------------------------------

  type PropContext = { tree: Tree; viewer: Viewer; state?: Awaited<ReturnType<typeof calendars.state>>; syncToken?: string; member?: Listed | Member };

  const PRIVILEGES = `<d:privilege><d:read/></d:privilege><d:privilege><d:read-current-user-privilege-set/></d:privilege>`;
  const REPORTS = ['{urn:ietf:params:xml:ns:caldav}calendar-query', '{urn:ietf:params:xml:ns:caldav}calendar-multiget', '{DAV:}sync-collection'];
  const reportSet = (names: string[]) => names.map((n) => `<d:supported-report><d:report>${element(n)}</d:report></d:supported-report>`).join('');
  const hrefXml = (h: string) => `<d:href>${escapeXml(h)}</d:href>`;
  const httpDate = (gmt: string | undefined) => {
    const d = toDate(gmt);
    return d ? d.toUTCString() : undefined;
  };

  /** The properties each kind of resource has (allprop and propname list these), as getters. */
  function propertiesOf(res: Resource, ctx: PropContext): Record<string, () => Promise<string | undefined> | string | undefined> {
    const common = {
      [`{${DAV}}current-user-principal`]: () => hrefXml(principalHref(ctx.tree, ctx.viewer)),
      [`{${DAV}}current-user-privilege-set`]: () => PRIVILEGES,
      [`{${DAV}}owner`]: () => undefined,
    };
    switch (res.kind) {
      case 'root':
        return {
          [`{${DAV}}resourcetype`]: () => '<d:collection/>',
          [`{${DAV}}displayname`]: () => escapeXml(config.siteName),
          ...common,
          [`{${DAV}}principal-collection-set`]: () => hrefXml(principalsHref(ctx.tree)),
          [`{${CALDAV}}calendar-home-set`]: () => hrefXml(homeHref(ctx.tree)),
          [`{${DAV}}supported-report-set`]: () => '',
        };
      case 'principals':
        return {
          [`{${DAV}}resourcetype`]: () => '<d:collection/>',
          [`{${DAV}}displayname`]: () => escapeXml(`${config.siteName} principals`),
          ...common,
          [`{${DAV}}principal-collection-set`]: () => hrefXml(principalsHref(ctx.tree)),
          [`{${DAV}}supported-report-set`]: () => '',
        };
      case 'principal':
        return {
          [`{${DAV}}resourcetype`]: () => '<d:collection/><d:principal/>',
          [`{${DAV}}displayname`]: () => escapeXml(res.login ?? 'Public'),
          ...common,
          [`{${DAV}}principal-URL`]: () => hrefXml(principalHref(ctx.tree, ctx.viewer)),
          [`{${DAV}}principal-collection-set`]: () => hrefXml(principalsHref(ctx.tree)),
          [`{${CALDAV}}calendar-home-set`]: () => hrefXml(homeHref(ctx.tree)),
          [`{${CALDAV}}calendar-user-address-set`]: () => '',
          [`{${DAV}}supported-report-set`]: () => '',
        };
      case 'home':
        return {
          [`{${DAV}}resourcetype`]: () => '<d:collection/>',
          [`{${DAV}}displayname`]: () => escapeXml(`${config.siteName} calendars`),
          ...common,
          [`{${DAV}}supported-report-set`]: () => '',
        };
      case 'calendar':
        return {
          [`{${DAV}}resourcetype`]: () => '<d:collection/><c:calendar/>',
          [`{${DAV}}displayname`]: () => escapeXml(res.cal.name),
          [`{${CALDAV}}calendar-description`]: () => escapeXml(res.cal.description),
          [`{${CALDAV}}calendar-timezone`]: () => {
            const tz = calendars.timezoneText();
            return tz ? escapeXml(tz) : undefined;
          },
          [`{${CALDAV}}supported-calendar-component-set`]: () => '<c:comp name="VEVENT"/>',
          [`{${CALDAV}}supported-calendar-data`]: () => '<c:calendar-data content-type="text/calendar" version="2.0"/>',
          [`{${CALSERVER}}getctag`]: () => escapeXml(ctx.state!.ctag),
          [`{${DAV}}getetag`]: () => escapeXml(`"${ctx.state!.ctag}"`),
          [`{${DAV}}getlastmodified`]: () => httpDate(ctx.state!.lastModified),
          [`{${DAV}}sync-token`]: () => escapeXml(ctx.syncToken!),
          [`{${APPLE}}calendar-color`]: () => calendarColor(res.cal),
          [`{${APPLE}}calendar-order`]: () => String(res.cal.order),
          [`{${DAV}}supported-report-set`]: () => reportSet(REPORTS),
          ...common,
        };
      case 'object': {
        const m = ctx.member!;
        return {
          [`{${DAV}}resourcetype`]: () => '',
          [`{${DAV}}displayname`]: () => undefined,
          [`{${DAV}}getetag`]: () => escapeXml(m.etag),
          [`{${DAV}}getcontenttype`]: () => 'text/calendar; charset=utf-8; component=vevent',
          [`{${DAV}}getlastmodified`]: () => httpDate(m.lastModified),
          [`{${DAV}}getcontentlength`]: () => ('event' in m ? String(Buffer.byteLength(calendars.objectText(m))) : undefined),
          [`{${DAV}}supported-report-set`]: () => '',
          ...common,
        };
      }
    }
  }

  /** Properties that are never part of allprop (expensive or defined so by RFC 4791/3744/6578). */
  const NOT_IN_ALLPROP = new Set([`{${DAV}}current-user-privilege-set`, `{${DAV}}supported-report-set`, `{${DAV}}sync-token`, `{${CALDAV}}calendar-timezone`, `{${DAV}}getcontentlength`]);

  /** What a request asks for; `include` a set (asked of every resource, up to MAX_PROPERTIES names). */
  type PropRequest = { mode: 'prop'; names: string[]; expand?: { start: DateTime; end: DateTime } } | { mode: 'allprop'; include: Set<string> } | { mode: 'propname' };

  async function propValues(res: Resource, ctx: PropContext, request: PropRequest): Promise<PropValues> {
    const props = propertiesOf(res, ctx);
    if (request.mode === 'propname') return Object.keys(props).map((k) => [k, '']);
    const names =
      request.mode === 'allprop' ? [...Object.keys(props).filter((k) => !NOT_IN_ALLPROP.has(k)), ...[...request.include].filter((k) => !(k in props) || NOT_IN_ALLPROP.has(k))] : request.names;
    const out: PropValues = [];
    for (const name of names) {
      if (name === `{${CALDAV}}calendar-data`) {
        const m = ctx.member;
        out.push([name, res.kind === 'object' && m && 'event' in m ? escapeXml(calendars.objectText(m, request.mode === 'prop' ? request.expand : undefined)) : undefined]);
        continue;
      }
      const get = props[name];
      const value = get ? await get() : undefined;
      // allprop leaves out what the resource does not have, rather than listing it as 404.
      if (value === undefined && request.mode === 'allprop' && !request.include.has(name)) continue;
      out.push([name, value]);
    }
    return out;
  }

  /** Properties read from the event itself; any other property of an event resource is read from its id and version. */
  const EVENT_PROPERTIES = new Set([`{${CALDAV}}calendar-data`, `{${DAV}}getcontentlength`]);

  /** Whether answering a request reads the events (else a listing of ids and versions answers it). */
  function needsEvents(request: PropRequest): boolean {
    if (request.mode === 'prop') return request.names.some((n) => EVENT_PROPERTIES.has(n));
    if (request.mode === 'allprop') return [...request.include].some((n) => EVENT_PROPERTIES.has(n));
    return false;
  }

  /** What a PROPFIND body or a REPORT asks for (`<d:prop>`, `<d:allprop>` or `<d:propname>`), default allprop. */
  function propRequestOf(parent: XmlElement | undefined): PropRequest {
    if (!parent) return { mode: 'allprop', include: new Set() };
    const prop = child(parent, DAV, 'prop');
    if (prop) {
      const names = boundedProperties(prop);
      const expand = expandOf(names.find((p) => p.ns === CALDAV && p.name === 'calendar-data'));
      return { mode: 'prop', names: names.map(clark), ...(expand ? { expand } : {}) };
    }
    if (child(parent, DAV, 'propname')) return { mode: 'propname' };
    const include = child(parent, DAV, 'include');
    if (include) boundedProperties(include);
    if (child(parent, DAV, 'allprop')) return { mode: 'allprop', include: new Set(include ? include.children.map(clark) : []) };
    throw badRequest('expected prop, allprop or propname');
  }

  /**
   * `<c:calendar-data><c:expand start end/></c:calendar-data>` (RFC 4791 §9.6.5): the range the
   * instances are expanded in (both bounds required, UTC); other calendar-data children
   * (`comp`, `limit-recurrence-set`, …) are not applied.
   */
  function expandOf(data: XmlElement | undefined): { start: DateTime; end: DateTime } | undefined {
    const expand = data && child(data, CALDAV, 'expand');
    if (!expand) return undefined;
    const start = utcBound(expand.attrs.start);
    const end = utcBound(expand.attrs.end);
    if (!start || !end || end <= start) throw badRequest('expand needs a start and a later end, UTC date-times such as 20310301T000000Z');
    return { start, end };
  }

  function boundedProperties(list: XmlElement): XmlElement[] {
    if (list.children.length > MAX_PROPERTIES) throw tooLarge(`more than ${MAX_PROPERTIES} properties`);
    return list.children;
  }

  async function contextFor(tree: Tree, res: Resource, viewer: Viewer, request: PropRequest, member?: Member): Promise<PropContext> {
    const ctx: PropContext = { tree, viewer, ...(member ? { member } : {}) };
    if (res.kind === 'calendar') {
      const wantsToken = request.mode !== 'prop' || request.names.includes(`{${DAV}}sync-token`);
      const [state, token] = await Promise.all([calendars.state(), wantsToken ? calendars.syncToken() : Promise.resolve('')]);
      ctx.state = state;
      ctx.syncToken = token;
    }
    return ctx;
  }

  // -- answers -------------------------------------------------------------------------------

  function sendXml(reply: FastifyReply, status: number, body: string | Readable, headers: Record<string, string> = {}): FastifyReply {
    reply.code(status).header('content-type', XML_TYPE).header('dav', DAV_HEADER);
    for (const [k, v] of Object.entries(headers)) reply.header(k, v);
    reply.header('cache-control', 'private, no-cache');
    reply.header('vary', 'Authorization, Depth, Brief, Prefer');
    return reply.send(body);
  }

  /** A 207 multistatus of these parts, built in steps (xml.ts `multistatusBody`). */
  const multistatus = async (reply: FastifyReply, parts: AsyncIterable<string> | Iterable<string>, headers: Record<string, string> = {}) => sendXml(reply, 207, await multistatusBody(parts), headers);

  /**
   * `Brief: t` (Microsoft's, sent by Apple), `Prefer: return=minimal` (RFC 8144 §2) or its draft form
   * `return-minimal` (dav4jvm, DAVx5): leave out the 404 propstats.
   */
  function isMinimal(req: FastifyRequest): boolean {
    const brief = String(req.headers.brief ?? '')
      .trim()
      .toLowerCase();
    const prefer = String(req.headers.prefer ?? '').toLowerCase();
    return brief === 't' || /(^|[,;\s])return\s*(=\s*"?|-)minimal"?/.test(prefer);
  }

  function depthOf(req: FastifyRequest, fallback: '0' | '1' | 'infinity'): '0' | '1' | 'infinity' {
    const d = req.headers.depth;
    if (d === undefined) return fallback;
    const v = String(d).trim().toLowerCase();
    if (v === '0' || v === '1' || v === 'infinity') return v;
    throw badRequest('Depth must be 0, 1 or infinity');
  }

  function bodyOf(req: FastifyRequest): XmlElement | undefined {
    const text = typeof req.body === 'string' ? req.body : Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    if (text.trim() === '') return undefined;
    try {
      return parseXml(text);
    } catch (e) {
      if (e instanceof XmlError) throw e.status === 413 ? tooLarge(e.message) : badRequest(e.message);
      throw e;
    }
  }

  async function memberOf(viewer: Viewer, res: Extract<Resource, { kind: 'object' }>): Promise<Member> {
    const found = await calendars.byIds(viewer, res.cal, [res.id]);
    const m = found.get(res.id);
    if (!m) throw notFound();
    return m;
  }

  async function propfind(req: FastifyRequest, reply: FastifyReply, tree: Tree, res: Resource, viewer: Viewer) {
    const body = bodyOf(req);
    if (body && !(body.ns === DAV && body.name === 'propfind')) throw badRequest('expected a propfind element');
    const request = propRequestOf(body);
    const depth = depthOf(req, 'infinity');
    // RFC 4918 §9.1: a server may refuse Depth: infinity on collections.
    if (depth === 'infinity' && res.kind !== 'object') throw new DavError(403, errorDocument('{DAV:}propfind-finite-depth'));
    const minimal = isMinimal(req);
    const options = { namesOnly: request.mode === 'propname', omitNotFound: minimal };
    const member = res.kind === 'object' ? await memberOf(viewer, res) : undefined;
    const first = propResponse(hrefFor(tree, res), await propValues(res, await contextFor(tree, res, viewer, request, member), request), options);
    // What the answer lists is read first; the members' responses are rendered while it is sent.
    let rest: AsyncIterable<string> | Iterable<string> = [];
    if (depth !== '0') {
      const principal: Resource = { kind: 'principal', login: !tree.public && isAuthenticated(viewer) ? viewer.login : null };
      const principalResponse = async () => propResponse(principalHref(tree, viewer), await propValues(principal, await contextFor(tree, principal, viewer, request), request), options);
      if (res.kind === 'root') {
        rest = [propResponse(homeHref(tree), await propValues({ kind: 'home' }, await contextFor(tree, { kind: 'home' }, viewer, request), request), options), await principalResponse()];
      } else if (res.kind === 'principals') {
        rest = [await principalResponse()];
      } else if (res.kind === 'home') {
        const list = await calendars.list();
        const shared = list[0] ? await contextFor(tree, { kind: 'calendar', cal: list[0] }, viewer, request) : undefined;
        rest = (async function* () {
          for (const cal of list) yield propResponse(calendarHref(tree, cal), await propValues({ kind: 'calendar', cal }, shared!, request), options);
        })();
      } else if (res.kind === 'calendar') {
        const cal = res.cal;
        // Listing ETags (what clients ask a Depth 1 PROPFIND for) reads ids and versions only.
        const members = needsEvents(request) ? await calendars.members(viewer, cal) : await calendars.listing(viewer, cal);
        rest = (async function* () {
          for (const m of members) yield propResponse(objectHref(tree, cal, m.id), await propValues({ kind: 'object', cal, id: m.id }, { tree, viewer, member: m }, request), options);
        })();
      }
    }
    const parts = (async function* () {
      yield first;
      yield* rest;
    })();
    return multistatus(reply, parts, minimal ? { 'preference-applied': 'return=minimal' } : {});
  }

  function hrefFor(tree: Tree, res: Resource): string {
    switch (res.kind) {
      case 'root':
        return res.href ?? `${tree.base}/`;
      case 'principals':
        return principalsHref(tree);
      case 'principal':
        return res.login === null ? `${principalsHref(tree)}anonymous/` : `${principalsHref(tree)}users/${encodeURIComponent(res.login)}/`;
      case 'home':
        return homeHref(tree);
      case 'calendar':
        return calendarHref(tree, res.cal);
      case 'object':
        return objectHref(tree, res.cal, res.id);
    }
  }

  async function report(req: FastifyRequest, reply: FastifyReply, tree: Tree, res: Resource, viewer: Viewer) {
    const body = bodyOf(req);
    if (!body) throw badRequest('a REPORT needs a body');
    const key = clark(body);
    const supported = REPORTS.includes(key);
    if (!supported) throw new DavError(403, errorDocument('{DAV:}supported-report'));
    if (res.kind !== 'calendar' && res.kind !== 'object') throw new DavError(403, errorDocument('{DAV:}supported-report'));
    const cal = res.cal;
    const request = propRequestOf(body);
    const minimal = isMinimal(req);
    const options = { namesOnly: request.mode === 'propname', omitNotFound: minimal };
    const headers: Record<string, string> = minimal ? { 'preference-applied': 'return=minimal' } : {};
    const respond = async (m: Listed | Member) => propResponse(objectHref(tree, cal, m.id), await propValues({ kind: 'object', cal, id: m.id }, { tree, viewer, member: m }, request), options);

    if (key === `{${CALDAV}}calendar-multiget`) {
      const hrefs = children(body, DAV, 'href').map((h) => h.text.trim());
      if (hrefs.length > MAX_HREFS) throw tooLarge(`more than ${MAX_HREFS} hrefs`);
      const wanted = new Map<string, number | undefined>();
      for (const h of hrefs) {
        const path = hrefPath(h);
        // Only this calendar's members: `{calendar}/{id}.ics`, read from the path alone (no look-up per href).
        const where = path === undefined ? undefined : locate(path);
        const s = where?.tree === tree ? where.s : undefined;
        const m = s && s.length === 3 && s[0] === 'calendars' && s[1] === cal.key ? /^([1-9][0-9]{0,14})\.ics$/.exec(s[2]!) : null;
        wanted.set(h, m ? Number(m[1]) : undefined);
      }
      const found = await calendars.byIds(
        viewer,
        cal,
        [...wanted.values()].filter((id): id is number => id !== undefined),
      );
      const parts = (async function* () {
        for (const [h, id] of wanted) {
          const m = id === undefined ? undefined : found.get(id);
          yield m ? await respond(m) : statusResponse(h, 404);
        }
      })();
      return multistatus(reply, parts, headers);
    }

    if (key === `{${CALDAV}}calendar-query`) {
      const filter = child(body, CALDAV, 'filter');
      if (!filter) throw badRequest('calendar-query needs a filter');
      const query = readFilter(filter);
      let members: Member[] = [];
      if (query.kind === 'events') {
        members = res.kind === 'object' ? [await memberOf(viewer, res)] : await calendars.inRange(viewer, cal, query.start, query.end);
        if (res.kind === 'object' && !members.every((m) => overlapsQuery(m, query, config.timezone))) members = [];
      }
      const parts = (async function* () {
        for (const m of members) yield await respond(m);
      })();
      return multistatus(reply, parts, headers);
    }

    // sync-collection (RFC 6578)
    if (res.kind !== 'calendar') throw new DavError(403, errorDocument('{DAV:}supported-report'));
    const level = child(body, DAV, 'sync-level')?.text.trim() ?? '1';
    if (level !== '1' && level !== 'infinite') throw badRequest('sync-level must be 1 or infinite');
    const tokenEl = child(body, DAV, 'sync-token');
    const token = tokenEl?.text.trim() ?? '';
    const limitEl = child(body, DAV, 'limit');
    let limit: number | undefined;
    if (limitEl) {
      const n = child(limitEl, DAV, 'nresults')?.text.trim() ?? '';
      if (!/^[0-9]{1,9}$/.test(n)) throw badRequest('limit needs nresults, a number');
      limit = Number(n);
    }
    let result;
    try {
      result = await calendars.sync(viewer, cal, token, limit, needsEvents(request));
    } catch (e) {
      if (e instanceof InvalidSyncToken) throw new DavError(403, errorDocument('{DAV:}valid-sync-token'));
      if (e instanceof TooManyMatches) throw new DavError(507, errorDocument('{DAV:}number-of-matches-within-limits'));
      throw e;
    }
    const { changed, removed, truncated, token: next } = result;
    const parts = (async function* () {
      for (const m of changed) yield await respond(m);
      for (const id of removed) yield statusResponse(objectHref(tree, cal, id), 404);
      // RFC 6578 §3.6: a truncated answer names the collection with 507; its token continues.
      if (truncated) yield statusResponse(calendarHref(tree, cal), 507, '<d:error><d:number-of-matches-within-limits/></d:error>');
      yield `<d:sync-token>${escapeXml(next)}</d:sync-token>`;
    })();
    return multistatus(reply, parts, headers);
  }

  async function get(req: FastifyRequest, reply: FastifyReply, res: Resource, viewer: Viewer) {
    if (res.kind === 'object') {
      const m = await memberOf(viewer, res);
      if (answerConditional(req, reply, { etag: m.etag, ...(m.lastModified ? { lastModified: m.lastModified } : {}), private: isAuthenticated(viewer) })) return reply;
      return reply.header('content-type', ICAL_CONTENT_TYPE).header('dav', DAV_HEADER).send(calendars.objectText(m));
    }
    if (res.kind === 'calendar') {
      const state = await calendars.state();
      if (answerConditional(req, reply, { etag: `"${state.ctag}"`, ...(state.lastModified ? { lastModified: state.lastModified } : {}), private: isAuthenticated(viewer) })) return reply;
      const members = await calendars.members(viewer, res.cal);
      return reply.header('content-type', ICAL_CONTENT_TYPE).header('dav', DAV_HEADER).send(calendars.calendarText(res.cal, members));
    }
    // Other collections: a short description for someone who opens the URL in a browser.
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('dav', DAV_HEADER)
      .send(
        `${config.siteName}: CalDAV (read-only). Give ${new URL(`${DAV_ROOT}/`, config.siteUrl).href} to your calendar app with your login and an application password, or ${new URL(`${PUBLIC_ROOT}/`, config.siteUrl).href} to subscribe to the public events without an account; see docs/caldav.md.\n`,
      );
  }

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

  // -- the routes ----------------------------------------------------------------------------

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    try {
      const method = req.method.toUpperCase();
      const path = req.url.split('?')[0]!;
      // PROPFIND on the site root (the URL people type, and DAVx5's first request) answers as the
      // authenticated tree's root does; every other method on / is the pages face's.
      const where = path === '/' ? { tree: PRIVATE_TREE, s: [] } : locate(req.url);
      const tree = where?.tree ?? PRIVATE_TREE;
      // The public tree is anonymous whatever is sent; the authenticated tree asks for credentials
      // before anything else (OPTIONS aside), so that nothing there is ever the anonymous view.
      const viewer = tree.public ? ANONYMOUS : await viewerOf(req, method === 'OPTIONS');
      let res = where ? await resolve(where.tree, where.s) : undefined;
      if (path === '/') res = { kind: 'root', href: '/' };
      if (WRITE_METHODS.includes(method)) throw forbiddenWrite(req, path);
      if (!res) throw notFound();
      // A user's principal is theirs only.
      if (res.kind === 'principal' && res.login !== null && (!isAuthenticated(viewer) || res.login !== viewer.login)) throw notFound();
      switch (method) {
        case 'OPTIONS':
          return reply.code(200).header('dav', DAV_HEADER).header('allow', ALLOW).header('content-length', '0').send();
        case 'GET':
        case 'HEAD':
          return await get(req, reply, res, viewer);
        case 'PROPFIND':
          return await propfind(req, reply, tree, res, viewer);
        case 'REPORT':
          return await report(req, reply, tree, res, viewer);
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
      handler: async (_req, reply) => reply.code(301).header('location', `${DAV_ROOT}/`).header('cache-control', 'no-cache').send(),
    });
  });
}

/** A calendar's colour (Apple's calendar-color, `#RRGGBB`): fixed per calendar key, so it never changes. */
function calendarColor(cal: CalendarRef): string {
  if (cal.slug === undefined) return '#1E6FD9';
  let h = 0;
  for (const c of cal.key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const palette = ['#D93A1E', '#2E9E4F', '#8E44AD', '#E67E22', '#16A085', '#C0392B', '#2C3E50', '#D4A017'];
  return palette[h % palette.length]!;
}

/** A calendar-query filter, as far as this calendar can answer it. */
type Query = { kind: 'events'; start?: DateTime; end?: DateTime } | { kind: 'none' };

/**
 * The filter of a calendar-query (RFC 4791 §9.7): `VCALENDAR` with, inside, `VEVENT` (all
 * events, or those overlapping its time-range) or another component (no such resources here: an
 * empty answer). Property and parameter filters are not supported (403 `supported-filter`).
 */
function readFilter(filter: XmlElement): Query {
  const top = children(filter, CALDAV, 'comp-filter');
  if (top.length !== 1 || top[0]!.attrs.name?.toUpperCase() !== 'VCALENDAR') throw new DavError(403, errorDocument(`{${CALDAV}}valid-filter`));
  const cal = top[0]!;
  if (child(cal, CALDAV, 'is-not-defined')) return { kind: 'none' };
  if (child(cal, CALDAV, 'prop-filter') || child(cal, CALDAV, 'time-range')) throw new DavError(403, errorDocument(`{${CALDAV}}supported-filter`));
  const comps = children(cal, CALDAV, 'comp-filter');
  if (comps.length === 0) return { kind: 'events' };
  if (comps.length > 1) throw new DavError(403, errorDocument(`{${CALDAV}}supported-filter`));
  const comp = comps[0]!;
  if (comp.attrs.name?.toUpperCase() !== 'VEVENT') return { kind: 'none' };
  if (child(comp, CALDAV, 'is-not-defined')) return { kind: 'none' };
  if (child(comp, CALDAV, 'prop-filter') || child(comp, CALDAV, 'comp-filter')) throw new DavError(403, errorDocument(`{${CALDAV}}supported-filter`));
  const range = child(comp, CALDAV, 'time-range');
  if (!range) return { kind: 'events' };
  const start = range.attrs.start === undefined ? undefined : utcInstant(range.attrs.start);
  const end = range.attrs.end === undefined ? undefined : utcInstant(range.attrs.end);
  if (!start && !end) throw new DavError(403, errorDocument(`{${CALDAV}}valid-filter`));
  if (start && end && end <= start) throw new DavError(403, errorDocument(`{${CALDAV}}valid-filter`));
  return { kind: 'events', ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

/** A time-range bound: a UTC date-time in basic format (`20310301T000000Z`), else 403 valid-filter. */
function utcInstant(value: string): DateTime {
  const t = utcBound(value);
  if (!t) throw new DavError(403, errorDocument(`{${CALDAV}}valid-filter`));
  return t;
}

/** A UTC date-time in basic format (`20310301T000000Z`), or undefined. */
function utcBound(value: string | undefined): DateTime | undefined {
  if (value === undefined) return undefined;
  const t = DateTime.fromFormat(value.trim(), "yyyyMMdd'T'HHmmss'Z'", { zone: 'utc' });
  return t.isValid ? t : undefined;
}

function overlapsQuery(m: Member, q: Query, zone: string): boolean {
  return q.kind === 'events' && overlaps(m.event, zone, q.start, q.end);
}
