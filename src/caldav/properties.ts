/**
 * The CalDAV face's properties: what each kind of resource has (RFC 4918, 4791, 6578, 3744 and
 * Apple's and CalendarServer's extensions), what a request asks for (`prop`, `allprop` with
 * `include`, `propname`), and their values.
 *
 * @example
 *   const request = propRequestOf(body); // { mode: 'prop', names: ['{DAV:}getetag'] }
 *   const values = await propValues(dav, res, await contextFor(dav, tree, res, viewer, request), request);
 */
import { DateTime } from 'luxon';
import { toDate } from '../web/conditional.js';
import type { Viewer } from '../domain/permissions.js';
import type { CalendarRef, Calendars, Listed, Member } from './calendars.js';
import { badRequest, MAX_PROPERTIES, tooLarge } from './answers.js';
import { homeHref, principalHref, principalsHref, type Dav, type Resource, type Tree } from './resources.js';
import { APPLE, CALDAV, CALSERVER, DAV, child, clark, element, escapeXml, type PropValues, type XmlElement } from './xml.js';

/** What a property's value is read from: the tree and caller, the calendar's state, the event. */
export type PropContext = { tree: Tree; viewer: Viewer; state?: Awaited<ReturnType<Calendars['state']>>; syncToken?: string; member?: Listed | Member };

const PRIVILEGES = `<d:privilege><d:read/></d:privilege><d:privilege><d:read-current-user-privilege-set/></d:privilege>`;
/** The reports a calendar answers. */
export const REPORTS = ['{urn:ietf:params:xml:ns:caldav}calendar-query', '{urn:ietf:params:xml:ns:caldav}calendar-multiget', '{DAV:}sync-collection'];
const reportSet = (names: string[]) => names.map((n) => `<d:supported-report><d:report>${element(n)}</d:report></d:supported-report>`).join('');
export const hrefXml = (h: string) => `<d:href>${escapeXml(h)}</d:href>`;
const httpDate = (gmt: string | undefined) => {
  const d = toDate(gmt);
  return d ? d.toUTCString() : undefined;
};

/** The properties each kind of resource has (allprop and propname list these), as getters. */
export function propertiesOf(dav: Dav, res: Resource, ctx: PropContext): Record<string, () => Promise<string | undefined> | string | undefined> {
  const common = {
    [`{${DAV}}current-user-principal`]: () => hrefXml(principalHref(ctx.tree, ctx.viewer)),
    [`{${DAV}}current-user-privilege-set`]: () => PRIVILEGES,
    [`{${DAV}}owner`]: () => undefined,
  };
  switch (res.kind) {
    case 'root':
      return {
        [`{${DAV}}resourcetype`]: () => '<d:collection/>',
        [`{${DAV}}displayname`]: () => escapeXml(dav.config.siteName),
        ...common,
        [`{${DAV}}principal-collection-set`]: () => hrefXml(principalsHref(ctx.tree)),
        [`{${CALDAV}}calendar-home-set`]: () => hrefXml(homeHref(ctx.tree)),
        [`{${DAV}}supported-report-set`]: () => '',
      };
    case 'principals':
      return {
        [`{${DAV}}resourcetype`]: () => '<d:collection/>',
        [`{${DAV}}displayname`]: () => escapeXml(`${dav.config.siteName} principals`),
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
        [`{${DAV}}displayname`]: () => escapeXml(`${dav.config.siteName} calendars`),
        ...common,
        [`{${DAV}}supported-report-set`]: () => '',
      };
    case 'calendar':
      return {
        [`{${DAV}}resourcetype`]: () => '<d:collection/><c:calendar/>',
        [`{${DAV}}displayname`]: () => escapeXml(res.cal.name),
        [`{${CALDAV}}calendar-description`]: () => escapeXml(res.cal.description),
        [`{${CALDAV}}calendar-timezone`]: () => {
          const tz = dav.calendars.timezoneText();
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
        [`{${DAV}}getcontentlength`]: () => ('event' in m ? String(Buffer.byteLength(dav.calendars.objectText(m))) : undefined),
        [`{${DAV}}supported-report-set`]: () => '',
        ...common,
      };
    }
  }
}

/** Properties that are never part of allprop (expensive or defined so by RFC 4791/3744/6578). */
const NOT_IN_ALLPROP = new Set([`{${DAV}}current-user-privilege-set`, `{${DAV}}supported-report-set`, `{${DAV}}sync-token`, `{${CALDAV}}calendar-timezone`, `{${DAV}}getcontentlength`]);

/** What a request asks for; `include` a set (asked of every resource, up to MAX_PROPERTIES names). */
export type PropRequest = { mode: 'prop'; names: string[]; expand?: { start: DateTime; end: DateTime } } | { mode: 'allprop'; include: Set<string> } | { mode: 'propname' };

/** The values a request asks of a resource (allprop leaves out what it does not have). */
export async function propValues(dav: Dav, res: Resource, ctx: PropContext, request: PropRequest): Promise<PropValues> {
  const props = propertiesOf(dav, res, ctx);
  if (request.mode === 'propname') return Object.keys(props).map((k) => [k, '']);
  const names =
    request.mode === 'allprop' ? [...Object.keys(props).filter((k) => !NOT_IN_ALLPROP.has(k)), ...[...request.include].filter((k) => !(k in props) || NOT_IN_ALLPROP.has(k))] : request.names;
  const out: PropValues = [];
  for (const name of names) {
    if (name === `{${CALDAV}}calendar-data`) {
      const m = ctx.member;
      out.push([name, res.kind === 'object' && m && 'event' in m ? escapeXml(dav.calendars.objectText(m, request.mode === 'prop' ? request.expand : undefined)) : undefined]);
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
export function needsEvents(request: PropRequest): boolean {
  if (request.mode === 'prop') return request.names.some((n) => EVENT_PROPERTIES.has(n));
  if (request.mode === 'allprop') return [...request.include].some((n) => EVENT_PROPERTIES.has(n));
  return false;
}

/** What a PROPFIND body or a REPORT asks for (`<d:prop>`, `<d:allprop>` or `<d:propname>`), default allprop. */
export function propRequestOf(parent: XmlElement | undefined): PropRequest {
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

/** What the values of a resource's properties are read from (a calendar's state and token only when asked). */
export async function contextFor(dav: Dav, tree: Tree, res: Resource, viewer: Viewer, request: PropRequest, member?: Member): Promise<PropContext> {
  const ctx: PropContext = { tree, viewer, ...(member ? { member } : {}) };
  if (res.kind === 'calendar') {
    const wantsToken = request.mode !== 'prop' || request.names.includes(`{${DAV}}sync-token`);
    const [state, token] = await Promise.all([dav.calendars.state(), wantsToken ? dav.calendars.syncToken() : Promise.resolve('')]);
    ctx.state = state;
    ctx.syncToken = token;
  }
  return ctx;
}

/** A calendar's colour (Apple's calendar-color, `#RRGGBB`): fixed per calendar key, so it never changes. */
function calendarColor(cal: CalendarRef): string {
  if (cal.slug === undefined) return '#1E6FD9';
  let h = 0;
  for (const c of cal.key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const palette = ['#D93A1E', '#2E9E4F', '#8E44AD', '#E67E22', '#16A085', '#C0392B', '#2C3E50', '#D4A017'];
  return palette[h % palette.length]!;
}

/** A UTC date-time in basic format (`20310301T000000Z`), or undefined. */
export function utcBound(value: string | undefined): DateTime | undefined {
  if (value === undefined) return undefined;
  const t = DateTime.fromFormat(value.trim(), "yyyyMMdd'T'HHmmss'Z'", { zone: 'utc' });
  return t.isValid ? t : undefined;
}
