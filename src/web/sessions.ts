/**
 * Cookie authentication, shared by every face: the session cookie the admin face sets
 * at sign-in, and the WordPress rule for using it (`rest_cookie_check_errors`): a request whose
 * cookie names a valid session counts as its user only with a valid nonce (`X-WP-Nonce` header,
 * `_wpnonce` query parameter, or `_wpnonce` in a form body, `application/x-www-form-urlencoded`,
 * as WordPress reads `$_REQUEST`) made for that session (`wp_create_nonce('wp_rest')`); without
 * one it is anonymous; with a wrong one it is answered 403 `rest_cookie_invalid_nonce`. So a page
 * on another origin, which can send the cookie but never read a nonce, cannot act with it.
 * Credentials in an `Authorization` header win over the cookie (checked first, http/register.ts),
 * and JSONP requests carry no credentials (`req.jsonpCallback`).
 *
 * The cookie: `HttpOnly`, `SameSite=Lax`, `Secure` when the request came over HTTPS (`req.protocol`,
 * which follows X-Forwarded-Proto only from proxies TRUST_PROXY trusts), its path the longest
 * common to ADMIN_PATH and the REST roots (`/` by default), no `Max-Age` (a browser session; the
 * server ends it after SESSION_IDLE or SESSION_MAX_AGE).
 *
 * @example
 *   registerCookieAuthentication(app, sessions, (req) => !req.url.startsWith('/admin'));
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../domain/errors.js';
import type { Session, SessionService } from '../domain/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The sign-in session the request's cookie names (valid now; `req.viewer` is its user only with a nonce). */
    session?: Session;
    /** The cookie's value, when `session` is set (the nonces are keyed by it). */
    sessionToken?: string;
    /** A usable session without a nonce in the header or query: its nonce may be in the form body (checked once it is parsed). */
    sessionNonceInForm?: boolean;
  }
  interface FastifyContextConfig {
    /** A REST API route (http/pipeline.ts): a form body's `_wpnonce` there is the REST nonce. */
    restApi?: boolean;
  }
}

export const SESSION_COOKIE = 'calendar_session';
/** The nonce action of REST requests (WordPress' `wp_rest`). */
export const REST_NONCE_ACTION = 'wp_rest';

/** One cookie's value from a `Cookie` header (undefined when absent). */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The longest path common to every one given, segment by segment ('/' at least). */
export function commonPath(paths: string[]): string {
  const split = paths.map((p) => p.split('/').filter((x) => x !== ''));
  const out: string[] = [];
  for (let i = 0; split.every((s) => s.length > i && s[i] === split[0]![i]); i++) out.push(split[0]![i]!);
  return '/' + out.join('/');
}

/**
 * The `Set-Cookie` value of a session (or of its removal, with an empty token): a browser-session
 * cookie, or with `maxAgeMs` ("Remember me") a persistent one.
 */
export function sessionCookie(req: FastifyRequest, token: string, path: string, maxAgeMs?: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, `Path=${path}`, 'HttpOnly', 'SameSite=Lax'];
  if (req.protocol === 'https') parts.push('Secure');
  if (token === '') parts.push('Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  else if (maxAgeMs !== undefined) parts.push(`Max-Age=${Math.floor(maxAgeMs / 1000)}`, `Expires=${new Date(Date.now() + maxAgeMs).toUTCString()}`);
  return parts.join('; ');
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string, path: string, maxAgeMs?: number): void {
  reply.header('set-cookie', sessionCookie(req, token, path, maxAgeMs));
  reply.header('cache-control', 'no-store');
}

/** The session the request's cookie names (valid now), noted on the request; undefined when none. */
export async function sessionOfRequest(req: FastifyRequest, sessions: SessionService): Promise<Session | undefined> {
  if (req.session) return req.session;
  const token = cookieOf(req.headers.cookie, SESSION_COOKIE);
  if (token === undefined || token === '') return undefined;
  const session = await sessions.check(token);
  if (session) {
    req.session = session;
    req.sessionToken = token;
  }
  return session;
}

/** The nonce a request carries: `X-WP-Nonce`, else `_wpnonce` in the query string. */
export function nonceOfRequest(req: FastifyRequest): string | undefined {
  const header = req.headers['x-wp-nonce'];
  if (typeof header === 'string') return header;
  const query = (req.query as Record<string, unknown> | undefined)?._wpnonce;
  return typeof query === 'string' ? query : undefined;
}

/**
 * Cookie authentication for the requests `applies` accepts that no `Authorization` header
 * authenticated already: an app-level onRequest hook, registered after the REST face's credential
 * hook (so it sees its outcome) and before the rate limit's route-level hooks (which key by the user).
 */
export function registerCookieAuthentication(app: FastifyInstance, sessions: SessionService, applies: (req: FastifyRequest) => boolean): void {
  // Callback-style: a request without a cookie costs no promise.
  app.addHook('onRequest', (req, reply, done) => {
    if (req.headers.authorization !== undefined || req.jsonpCallback !== undefined || req.viewer !== undefined) return done();
    if (req.headers.cookie === undefined || !applies(req)) return done();
    authenticateByCookie(req, reply).then(() => done(), done);
  });
  async function authenticateByCookie(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const session = await sessionOfRequest(req, sessions);
    if (!session || !sessions.usable(session)) return;
    const nonce = nonceOfRequest(req);
    // WordPress: no nonce, anonymous; a wrong one, 403. A form body may still carry it.
    if (nonce === undefined) {
      if (isForm(req)) req.sessionNonceInForm = true;
      return;
    }
    accept(req, reply, session, nonce);
  }
  // `_wpnonce` in a form body (a WordPress form posting to the REST API): checked once the body is
  // parsed, before the handler (the rate limit has counted the request by address already).
  // Only on REST routes (declared with `config.restApi`): another face's form (the submission form)
  // carries its own form nonce under that name and checks it itself.
  app.addHook('preValidation', (req, reply, done) => {
    if (!req.sessionNonceInForm || req.viewer !== undefined || !req.session) return done();
    if (req.routeOptions.config?.restApi !== true) return done();
    const nonce = (req.body as Record<string, unknown> | undefined)?._wpnonce;
    if (typeof nonce === 'string') accept(req, reply, req.session, nonce);
    done();
  });

  function accept(req: FastifyRequest, reply: FastifyReply, session: Session, nonce: string): void {
    if (sessions.verifyNonce(req.sessionToken!, session, nonce, REST_NONCE_ACTION) === false) throw apiError('rest_cookie_invalid_nonce');
    req.viewer = session.viewer;
    // As WordPress, a fresh nonce with every answer the cookie authenticated.
    reply.header('x-wp-nonce', sessions.nonce(req.sessionToken!, session, REST_NONCE_ACTION));
  }
}

/** A write with a form body (`application/x-www-form-urlencoded`). */
function isForm(req: FastifyRequest): boolean {
  return req.method !== 'GET' && req.method !== 'HEAD' && (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}
