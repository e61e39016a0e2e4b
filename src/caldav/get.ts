/**
 * GET and HEAD: an event's iCalendar object, a calendar as one iCalendar file (both with their
 * ETags, answering conditional requests), and for any other collection a line saying what the URL
 * is for (someone opened it in a browser).
 *
 * @example await get(dav, req, reply, res, viewer)
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ICAL_CONTENT_TYPE } from '../domain/ical.js';
import { isAuthenticated, type Viewer } from '../domain/permissions.js';
import { answerConditional } from '../web/conditional.js';
import { DAV_HEADER, memberOf } from './answers.js';
import { DAV_ROOT, PUBLIC_ROOT, davPrefixOf, type Dav, type Resource } from './resources.js';

export async function get(dav: Dav, req: FastifyRequest, reply: FastifyReply, res: Resource, viewer: Viewer) {
  if (res.kind === 'object') {
    const m = await memberOf(dav, viewer, res);
    if (answerConditional(req, reply, { etag: m.etag, ...(m.lastModified ? { lastModified: m.lastModified } : {}), private: isAuthenticated(viewer) })) return reply;
    return reply.header('content-type', ICAL_CONTENT_TYPE).header('dav', DAV_HEADER).send(dav.calendars.objectText(m));
  }
  if (res.kind === 'calendar') {
    const state = await dav.calendars.state();
    if (answerConditional(req, reply, { etag: `"${state.ctag}"`, ...(state.lastModified ? { lastModified: state.lastModified } : {}), private: isAuthenticated(viewer) })) return reply;
    const members = await dav.calendars.members(viewer, res.cal);
    return reply.header('content-type', ICAL_CONTENT_TYPE).header('dav', DAV_HEADER).send(dav.calendars.calendarText(res.cal, members));
  }
  // Other collections: a short description for someone who opens the URL in a browser.
  return reply
    .header('content-type', 'text/plain; charset=utf-8')
    .header('dav', DAV_HEADER)
    .send(
      `${dav.config.siteName}: CalDAV (read-only). Give ${new URL(`${davPrefixOf(req)}${DAV_ROOT}/`, dav.config.siteUrl).href} to your calendar app with your login and an application password, or ${new URL(`${davPrefixOf(req)}${PUBLIC_ROOT}/`, dav.config.siteUrl).href} to subscribe to the public events without an account; see docs/caldav.md.\n`,
    );
}
