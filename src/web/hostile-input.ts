/**
 * Errors raised before a request reaches the pipeline, in the API's shape
 * `{code, message, data: {status}}` with the right status, instead of Fastify's or Node's own:
 *
 * | what | status | code |
 * |---|---|---|
 * | headers (request line included) over Node's 16 KB | 431 | `rest_headers_too_large` |
 * | headers or body not received within HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS | 408 | `rest_request_timeout` |
 * | a request Node's parser cannot read (malformed HTTP) | 400 | `rest_bad_request` |
 * | a path parameter over {@link MAX_PARAM_LENGTH} characters (`FST_ERR_MAX_PARAM_LENGTH`) | 414 | `rest_uri_too_long` |
 * | a path that is not valid percent-encoding, e.g. `%zz` (`FST_ERR_BAD_URL`) | 400 | `rest_bad_url` |
 * | a body over {@link BODY_LIMIT}, with or without `Content-Length` (chunked) | 413 | `rest_payload_too_large` |
 * | a `Content-Length` that does not match the body | 400 | `rest_bad_request` |
 *
 * A face whose answers are not JSON (CalDAV, the HTML pages) answers these for its own paths in its
 * shape (error-shapes.ts). A malformed JSON body is the pipeline's `rest_invalid_json` (server.ts); bodies of other content
 * types are accepted and ignored, as WordPress does.
 *
 * @example Fastify({ clientErrorHandler, frameworkErrors: frameworkErrorHandler, bodyLimit: BODY_LIMIT })
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { ApiError } from '../domain/errors.js';
import { errorShapeOf } from './error-shapes.js';
import { UPLOAD_LIMIT } from './uploads.js';

/** The largest request body accepted (bytes). */
export const BODY_LIMIT = 2 * 1024 * 1024;

/** The longest path parameter (a slug) accepted, in characters. */
export const MAX_PARAM_LENGTH = 1000;

/** The API error for an error Fastify raised while reading a request, or undefined for others. */
export function requestErrorOf(error: unknown): ApiError | undefined {
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('rest_payload_too_large', `The request body is too large (at most ${BODY_LIMIT} bytes; ${UPLOAD_LIMIT} for a text/calendar or multipart/form-data upload).`, 413);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('rest_invalid_content_type', 'Unsupported content type.', 415);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('rest_uri_too_long', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`, 414);
    case 'FST_ERR_BAD_URL':
      return new ApiError('rest_bad_url', 'The URL is not valid (malformed percent-encoding).', 400);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('rest_bad_request', 'The request body does not match its Content-Length.', 400);
    default:
      return undefined;
  }
}

/** Fastify's `frameworkErrors`: bad URLs and over-long path parameters, before routing. */
export function frameworkErrorHandler(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const apiErr = requestErrorOf(error) ?? new ApiError('rest_bad_request', 'The request could not be read.', 400);
  // A face that answers in a shape of its own (DAV XML, HTML pages) answers for its paths.
  const shape = errorShapeOf(req);
  if (shape) {
    void shape.send(req, reply, apiErr);
    return;
  }
  void reply.code(apiErr.status).header('content-type', 'application/json; charset=UTF-8').send(JSON.stringify(apiErr.toJSON()));
}

/** What Node's HTTP parser reports, as the API's error. */
function clientErrorOf(err: NodeJS.ErrnoException): ApiError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('rest_request_timeout', 'The request was not received in time.', 408);
  if (err.code === 'HPE_HEADER_OVERFLOW') return new ApiError('rest_headers_too_large', 'The request headers (with the URL) are too large.', 431);
  if (err.code === 'HPE_URI_TOO_LONG') return new ApiError('rest_uri_too_long', 'The URL is too long.', 414);
  return new ApiError('rest_bad_request', 'The request could not be read.', 400);
}

/**
 * The HTTP server's `clientError` handler (Fastify's `clientErrorHandler`): answers in the API's
 * shape and closes the connection, as Node's own handler does.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const apiErr = clientErrorOf(err);
  const body = JSON.stringify(apiErr.toJSON());
  // A request whose answer has already begun cannot get another one.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && current?.headersSent !== true) {
    socket.write(
      `HTTP/1.1 ${apiErr.status} ${STATUS_TEXT[apiErr.status] ?? 'Error'}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };
