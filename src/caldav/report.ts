/**
 * REPORT (RFC 4791 §7.8-7.9, RFC 6578): calendar-multiget (the events an href list names, from the
 * paths alone), calendar-query (every event, or those meeting a time-range, RFC 4791 §9.9) and
 * sync-collection (what changed since a token: the domain's one sync delta, through
 * `calendars.sync`). Other reports answer 403 `supported-report`.
 *
 * @example await report(dav, req, reply, tree, res, viewer) // 207 multistatus
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DateTime } from 'luxon';
import type { Viewer } from '../domain/permissions.js';
import { InvalidSyncToken, overlaps, TooManyMatches, type Listed, type Member } from './calendars.js';
import { badRequest, bodyOf, DavError, isMinimal, MAX_HREFS, memberOf, multistatus, tooLarge } from './answers.js';
import { needsEvents, propRequestOf, propValues, REPORTS, utcBound } from './properties.js';
import { calendarHref, hrefPath, locate, objectHref, objectIdOf, type Dav, type Resource, type Tree } from './resources.js';
import { CALDAV, DAV, child, children, clark, errorDocument, escapeXml, propResponse, statusResponse, type XmlElement } from './xml.js';

export async function report(dav: Dav, req: FastifyRequest, reply: FastifyReply, tree: Tree, res: Resource, viewer: Viewer) {
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
  const respond = async (m: Listed | Member) => propResponse(objectHref(tree, cal, m.id), await propValues(dav, { kind: 'object', cal, id: m.id }, { tree, viewer, member: m }, request), options);

  if (key === `{${CALDAV}}calendar-multiget`) {
    const hrefs = children(body, DAV, 'href').map((h) => h.text.trim());
    if (hrefs.length > MAX_HREFS) throw tooLarge(`more than ${MAX_HREFS} hrefs`);
    const wanted = new Map<string, number | undefined>();
    for (const h of hrefs) {
      const path = hrefPath(dav, h, tree.prefix);
      // Only this calendar's members: `{calendar}/{id}.ics`, read from the path alone (no look-up per href).
      const where = path === undefined ? undefined : locate(path);
      const s = where?.tree.public === tree.public ? where.s : undefined;
      wanted.set(h, s && s.length === 3 && s[0] === 'calendars' && s[1] === cal.key ? objectIdOf(s[2]!) : undefined);
    }
    const found = await dav.calendars.byIds(
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
      members = res.kind === 'object' ? [await memberOf(dav, viewer, res)] : await dav.calendars.inRange(viewer, cal, query.start, query.end);
      if (res.kind === 'object' && !members.every((m) => overlapsQuery(m, query, dav.config.timezone))) members = [];
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
    result = await dav.calendars.sync(viewer, cal, token, limit, needsEvents(request));
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

function overlapsQuery(m: Member, q: Query, zone: string): boolean {
  return q.kind === 'events' && overlaps(m.event, zone, q.start, q.end);
}
