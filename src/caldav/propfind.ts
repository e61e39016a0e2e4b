/**
 * PROPFIND (RFC 4918 §9.1): a resource's properties and, at Depth 1, its members' (the root's home
 * and principal, the home's calendars, a calendar's events); Depth infinity is refused on
 * collections. A calendar's ETag listing reads ids and versions only, never the events.
 *
 * @example await propfind(dav, req, reply, tree, res, viewer) // 207 multistatus
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAuthenticated, type Viewer } from '../domain/permissions.js';
import { badRequest, bodyOf, DavError, depthOf, isMinimal, memberOf, multistatus } from './answers.js';
import { contextFor, needsEvents, propRequestOf, propValues } from './properties.js';
import { calendarHref, homeHref, hrefFor, objectHref, principalHref, type Dav, type Resource, type Tree } from './resources.js';
import { DAV, errorDocument, propResponse } from './xml.js';

export async function propfind(dav: Dav, req: FastifyRequest, reply: FastifyReply, tree: Tree, res: Resource, viewer: Viewer) {
  const body = bodyOf(req);
  if (body && !(body.ns === DAV && body.name === 'propfind')) throw badRequest('expected a propfind element');
  const request = propRequestOf(body);
  const depth = depthOf(req, 'infinity');
  // RFC 4918 §9.1: a server may refuse Depth: infinity on collections.
  if (depth === 'infinity' && res.kind !== 'object') throw new DavError(403, errorDocument('{DAV:}propfind-finite-depth'));
  const minimal = isMinimal(req);
  const options = { namesOnly: request.mode === 'propname', omitNotFound: minimal };
  const member = res.kind === 'object' ? await memberOf(dav, viewer, res) : undefined;
  const first = propResponse(hrefFor(tree, res), await propValues(dav, res, await contextFor(dav, tree, res, viewer, request, member), request), options);
  // What the answer lists is read first; the members' responses are rendered while it is sent.
  let rest: AsyncIterable<string> | Iterable<string> = [];
  if (depth !== '0') {
    const principal: Resource = { kind: 'principal', login: !tree.public && isAuthenticated(viewer) ? viewer.login : null };
    const principalResponse = async () => propResponse(principalHref(tree, viewer), await propValues(dav, principal, await contextFor(dav, tree, principal, viewer, request), request), options);
    if (res.kind === 'root') {
      rest = [propResponse(homeHref(tree), await propValues(dav, { kind: 'home' }, await contextFor(dav, tree, { kind: 'home' }, viewer, request), request), options), await principalResponse()];
    } else if (res.kind === 'principals') {
      rest = [await principalResponse()];
    } else if (res.kind === 'home') {
      const list = await dav.calendars.list();
      const shared = list[0] ? await contextFor(dav, tree, { kind: 'calendar', cal: list[0] }, viewer, request) : undefined;
      rest = (async function* () {
        for (const cal of list) yield propResponse(calendarHref(tree, cal), await propValues(dav, { kind: 'calendar', cal }, shared!, request), options);
      })();
    } else if (res.kind === 'calendar') {
      const cal = res.cal;
      // Listing ETags (what clients ask a Depth 1 PROPFIND for) reads ids and versions only.
      const members = needsEvents(request) ? await dav.calendars.members(viewer, cal) : await dav.calendars.listing(viewer, cal);
      rest = (async function* () {
        for (const m of members) yield propResponse(objectHref(tree, cal, m.id), await propValues(dav, { kind: 'object', cal, id: m.id }, { tree, viewer, member: m }, request), options);
      })();
    }
  }
  const parts = (async function* () {
    yield first;
    yield* rest;
  })();
  return multistatus(reply, parts, minimal ? { 'preference-applied': 'return=minimal' } : {});
}
