/**
 * Conditional requests, for any GET handler: strong `ETag` and `Last-Modified`
 * validators, `304 Not Modified` for `If-None-Match` / `If-Modified-Since`, and the caching
 * headers that go with them (`Cache-Control: public, max-age=CACHE_MAX_AGE` for anonymous
 * answers, `private, no-cache` for answers to requests with credentials; `Vary: Authorization`).
 *
 * Tags are made from versions, not from the body, whenever a version is known: `etagOf(parts)`
 * turns the parts that decide the answer (database id, a record's change sequence number or the
 * data revision, the request's canonical arguments, who asks) into one strong tag.
 *
 * @example
 *   // in a Fastify GET handler
 *   const v = await services.versions.of('event', id);
 *   if (answerConditional(req, reply, { etag: etagOf(['page', id, v.seq]), lastModified: v.gmt, private: req.headers.authorization !== undefined })) return reply;
 *   return reply.send(html); // 200 with ETag, Last-Modified, Cache-Control and Vary set
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** CACHE_MAX_AGE, set by `registerConditional` (seconds). */
    cacheMaxAge?: number;
  }
}

export interface Validators {
  /** A strong entity tag, quoted (`"…"`), e.g. from `etagOf`. */
  etag?: string;
  /** When the answer last changed: a Date, or UTC `YYYY-MM-DD HH:MM:SS` as the store keeps it. */
  lastModified?: Date | string;
  /** The answer depends on who asks (credentials were sent): `private, no-cache`. */
  private?: boolean;
}

/** The default `max-age` when the app did not say (CACHE_MAX_AGE's default). */
const DEFAULT_MAX_AGE = 10;

/** Tell the conditional helpers this app's CACHE_MAX_AGE (inherited by plugins registered under it). */
export function registerConditional(app: FastifyInstance, maxAge: number): void {
  app.decorate('cacheMaxAge', maxAge);
}

/** A strong ETag from the values that decide an answer: `"<base64url of sha1>"`, 27 characters. */
export function etagOf(parts: ReadonlyArray<string | number | undefined>): string {
  return `"${createHash('sha1').update(parts.join('\u0000')).digest('base64url')}"`;
}

/** A strong ETag from a body, for answers with no version to derive one from. */
export function etagOfBody(body: string | Buffer): string {
  return `"b${createHash('sha1').update(body).digest('base64url')}"`;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) or a Date → a Date (undefined when unusable). */
export function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const d = value instanceof Date ? value : new Date(value.replace(' ', 'T') + 'Z');
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The last stored time seen, parsed: versions repeat from one request to the next. */
let lastStoredTime: { text: string; date: Date | undefined; http: string | undefined } | undefined;

/** A validator's time as a Date and as an HTTP date (undefined when unusable). */
function timeOf(value: Date | string | undefined): { date: Date | undefined; http: string | undefined } {
  if (typeof value !== 'string') {
    const date = toDate(value);
    return { date, http: date?.toUTCString() };
  }
  if (lastStoredTime?.text !== value) {
    const date = toDate(value);
    lastStoredTime = { text: value, date, http: date?.toUTCString() };
  }
  return lastStoredTime;
}

/** The entity tags of an `If-Match` / `If-None-Match` header (`*` as itself). */
export function parseEtags(header: string | undefined): string[] {
  if (header === undefined) return [];
  const out: string[] = [];
  const re = /\s*(\*|(?:W\/)?"[^"]*")\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header)) && m[0] !== '') out.push(m[1]!);
  return out;
}

/** Whether one of the tags matches `etag` by the weak comparison (`*` matches any). */
export function weakMatch(tags: string[], etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  return tags.some((t) => t === '*' || t.replace(/^W\//, '') === opaque);
}

function addVary(reply: FastifyReply, field: string): void {
  const header = reply.getHeader('vary');
  if (header === undefined || header === '') {
    reply.header('vary', field);
    return;
  }
  const current = String(header);
  const fields = current
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (!fields.some((f) => f.toLowerCase() === field.toLowerCase() || f === '*')) fields.push(field);
  reply.header('vary', fields.join(', '));
}

/**
 * Set the validators and caching headers of a GET/HEAD answer, and answer `304` (no body) when
 * the request's `If-None-Match` (or, without it, `If-Modified-Since`) says the client has this
 * version. Returns true when it answered 304: the handler returns `reply` then.
 */
export function answerConditional(req: FastifyRequest, reply: FastifyReply, v: Validators): boolean {
  const maxAge = req.server.cacheMaxAge ?? DEFAULT_MAX_AGE;
  const lastModified = timeOf(v.lastModified).http;
  if (v.etag) reply.header('etag', v.etag);
  if (lastModified) reply.header('last-modified', lastModified);
  reply.header('cache-control', v.private || req.headers.authorization !== undefined ? 'private, no-cache' : `public, max-age=${maxAge}`);
  addVary(reply, 'Authorization');
  if (isNotModified(req, v)) {
    reply.code(304).removeHeader('content-type').removeHeader('content-length').send();
    return true;
  }
  return false;
}

/**
 * Whether a GET/HEAD's `If-None-Match` (weak comparison), or without it `If-Modified-Since`, says
 * the client has the version these validators describe (without answering anything).
 */
export function isNotModified(req: FastifyRequest, v: Validators): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return v.etag !== undefined && weakMatch(parseEtags(inm), v.etag);
  const ims = req.headers['if-modified-since'];
  if (typeof ims !== 'string') return false;
  const since = toDate(new Date(ims));
  const lastModified = timeOf(v.lastModified).date;
  // HTTP dates have whole seconds: compare at that precision.
  return since !== undefined && lastModified !== undefined && Math.floor(lastModified.getTime() / 1000) <= Math.floor(since.getTime() / 1000);
}

/**
 * Whether a write's preconditions hold against the addressed record's current tag and time
 * (`If-Match`: one of its tags is current, strong comparison, `*` any; else `If-Unmodified-Since`:
 * not modified after that date). No precondition headers: true.
 */
export function preconditionsHold(headers: FastifyRequest['headers'], current: { matches(tag: string): boolean; lastModified?: Date | string }): boolean {
  const im = headers['if-match'];
  if (typeof im === 'string') {
    const tags = parseEtags(im);
    return tags.some((t) => t === '*' || (!t.startsWith('W/') && current.matches(t)));
  }
  const ius = headers['if-unmodified-since'];
  if (typeof ius === 'string') {
    const since = new Date(ius);
    const modified = toDate(current.lastModified);
    if (Number.isNaN(since.getTime())) return true; // an invalid date is ignored (RFC 9110 §13.1.4)
    return modified === undefined || Math.floor(modified.getTime() / 1000) <= Math.floor(since.getTime() / 1000);
  }
  return true;
}

/** Whether a request carries write preconditions. */
export function hasPreconditions(headers: FastifyRequest['headers']): boolean {
  return typeof headers['if-match'] === 'string' || typeof headers['if-unmodified-since'] === 'string';
}
