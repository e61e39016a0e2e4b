/**
 * Errors raised outside a face's own handlers are answered in the shape of the face whose path it
 * is: a URL the router cannot read (malformed percent-encoding, an over-long path parameter), a
 * query string or a form body over the limits (query-string.ts), a method no route of the path
 * takes, an error a face's handler throws to the instance's error handler. The REST API's
 * WordPress-style JSON is the default (http/register.ts sends it); a face whose answers are not
 * that (CalDAV's DAV error documents, the HTML pages of the admin face, the submissions and the
 * embeds) claims its paths here, once, instead of each of its routes catching what reaches them.
 *
 * @example
 *   registerErrorShape(app, { owns: (path) => path.startsWith('/dav/'), send: (req, reply, error) => reply.code(error.status).send(davError(error)) });
 *   errorShapeOf(req)?.send(req, reply, apiError('rest_no_route'));
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from 'node:http';
import type { ApiError } from '../domain/errors.js';

export interface ErrorShape {
  /** Whether the path (as received: not decoded, without the query) is this face's. */
  owns(path: string): boolean;
  /** Answer the error (its status, headers and message) in the face's shape. */
  send(req: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply;
}

/** The shapes of one HTTP server's faces (every encapsulated Fastify instance shares its server). */
const shapes = new WeakMap<Server, ErrorShape[]>();

export function registerErrorShape(app: FastifyInstance, shape: ErrorShape): void {
  const list = shapes.get(app.server) ?? [];
  list.push(shape);
  shapes.set(app.server, list);
}

/** The shape of the face whose path the request is, or undefined (the REST API's JSON). */
export function errorShapeOf(req: FastifyRequest): ErrorShape | undefined {
  const list = shapes.get(req.server.server);
  if (list === undefined) return undefined;
  const url = req.raw.url ?? req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return list.find((s) => s.owns(path));
}

/** An error's headers (Retry-After, Allow) on the reply, as the JSON answer sends them. */
export function withErrorHeaders(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  return reply;
}
