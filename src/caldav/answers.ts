/**
 * How the CalDAV face reads requests and writes answers: its limits, its DAV error answers
 * (`DavError`), XML bodies in and multistatus out, the Depth, Brief and Prefer headers.
 *
 * @example
 *   const body = bodyOf(req);                 // the request's XML, or undefined; 400/413 when unreadable
 *   return multistatus(reply, parts, headers); // 207, built in steps
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Viewer } from '../domain/permissions.js';
import type { Member } from './calendars.js';
import type { Dav, Resource } from './resources.js';
import { XmlError, errorDocument, escapeXml, multistatusBody, parseXml, type XmlElement } from './xml.js';

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
export const READ_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PROPFIND', 'REPORT'];
export const WRITE_METHODS = ['PUT', 'DELETE', 'POST', 'PATCH', 'MKCOL', 'MKCALENDAR', 'PROPPATCH', 'MOVE', 'COPY', 'LOCK', 'UNLOCK', 'ACL'];
/** Methods Fastify does not know by default (the WebDAV and CalDAV ones). */
export const EXTRA_METHODS = ['PROPFIND', 'REPORT', 'PROPPATCH', 'MKCOL', 'MKCALENDAR', 'MOVE', 'COPY', 'LOCK', 'UNLOCK', 'ACL'];

export const ALLOW = READ_METHODS.join(', ');
export const DAV_HEADER = '1, 3, calendar-access';
const XML_TYPE = 'application/xml; charset=utf-8';

/** An answer with a status, a DAV error body and maybe headers. */
export class DavError extends Error {
  readonly status: number;
  readonly body?: string;
  readonly headers: Record<string, string>;

  constructor(status: number, body?: string, headers: Record<string, string> = {}) {
    super(`DAV ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new DavError(400, errorDocument('{DAV:}bad-request', escapeXml(message)));
/** A request over one of the limits (body size, elements, declarations, properties, hrefs). */
export const tooLarge = (message: string) => new DavError(413, errorDocument('{DAV:}bad-request', escapeXml(message)));
export const notFound = () => new DavError(404, errorDocument('{DAV:}resource-not-found'));

export function sendXml(reply: FastifyReply, status: number, body: string | Readable, headers: Record<string, string> = {}): FastifyReply {
  reply.code(status).header('content-type', XML_TYPE).header('dav', DAV_HEADER);
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  reply.header('cache-control', 'private, no-cache');
  reply.header('vary', 'Authorization, Depth, Brief, Prefer');
  return reply.send(body);
}

/** A 207 multistatus of these parts, built in steps (xml.ts `multistatusBody`). */
export const multistatus = async (reply: FastifyReply, parts: AsyncIterable<string> | Iterable<string>, headers: Record<string, string> = {}) =>
  sendXml(reply, 207, await multistatusBody(parts), headers);

/**
 * `Brief: t` (Microsoft's, sent by Apple), `Prefer: return=minimal` (RFC 8144 §2) or its draft form
 * `return-minimal` (dav4jvm, DAVx5): leave out the 404 propstats.
 */
export function isMinimal(req: FastifyRequest): boolean {
  const brief = String(req.headers.brief ?? '')
    .trim()
    .toLowerCase();
  const prefer = String(req.headers.prefer ?? '').toLowerCase();
  return brief === 't' || /(^|[,;\s])return\s*(=\s*"?|-)minimal"?/.test(prefer);
}

export function depthOf(req: FastifyRequest, fallback: '0' | '1' | 'infinity'): '0' | '1' | 'infinity' {
  const d = req.headers.depth;
  if (d === undefined) return fallback;
  const v = String(d).trim().toLowerCase();
  if (v === '0' || v === '1' || v === 'infinity') return v;
  throw badRequest('Depth must be 0, 1 or infinity');
}

export function bodyOf(req: FastifyRequest): XmlElement | undefined {
  const text = typeof req.body === 'string' ? req.body : Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (text.trim() === '') return undefined;
  try {
    return parseXml(text);
  } catch (e) {
    if (e instanceof XmlError) throw e.status === 413 ? tooLarge(e.message) : badRequest(e.message);
    throw e;
  }
}

/** The event a resource names, as the caller may read it; 404 otherwise. */
export async function memberOf(dav: Dav, viewer: Viewer, res: Extract<Resource, { kind: 'object' }>): Promise<Member> {
  const found = await dav.calendars.byIds(viewer, res.cal, [res.id]);
  const m = found.get(res.id);
  if (!m) throw notFound();
  return m;
}
