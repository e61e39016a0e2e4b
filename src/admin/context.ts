/**
 * What the admin face's routes share: its paths, its cookies and nonces, and the pages every route
 * may answer with (the login form, a page's headers). Built once by registerAdminFace (index.ts);
 * the sign-in routes (sign-in-routes.ts) and the account routes (account-routes.ts) take it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaceDeps } from '../faces.js';
import { apiError } from '../domain/errors.js';
import type { Session, SessionService } from '../domain/sessions.js';
import { cookieOf, sessionOfRequest, setSessionCookie } from '../web/sessions.js';
import { LANGUAGES, messagesFor, type Messages } from './messages.js';
import { loginPage } from './pages.js';

/** The nonce action of the account page's forms. */
export const FORM_ACTION = 'account';
/** The pre-session cookie the login nonce is tied to (login CSRF, as WordPress' test cookie and nonce). */
const LOGIN_COOKIE = 'calendar_login';
/** The cookie of the language the user chose (set by the app's selector and by `P/language`). */
export const LANG_COOKIE = 'calendar_lang';
/** The login form's nonce: a hash of the pre-session cookie (only a page that can read the cookie's value, ours, can send it). */
const loginNonceOf = (cookie: string) => createHash('sha256').update(`login|${cookie}`).digest('base64url').slice(0, 32);
/** The app's CSP: its scripts and styles from here only, images from anywhere (an event's image URL), no inline script. */
export const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
export const PAGE_CSP = "default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/** The set-password pages: their strength meter's script from here (password-meter.ts), nothing inline. */
export const METER_CSP = PAGE_CSP.replace("default-src 'none';", "default-src 'none'; script-src 'self';");

/** The face's paths under ADMIN_PATH. */
export function adminPaths(base: string) {
  return {
    app: `${base}/`,
    account: `${base}/account`,
    language: `${base}/language`,
    login: `${base}/login`,
    code: `${base}/login/code`,
    nonce: `${base}/rest-nonce`,
    signOut: `${base}/sign-out`,
    signOutEverywhere: `${base}/sign-out-everywhere`,
    revoke: `${base}/sessions/revoke`,
    totpStart: `${base}/two-factor/start`,
    totpConfirm: `${base}/two-factor/confirm`,
    totpDisable: `${base}/two-factor/disable`,
    lost: `${base}/lost-password`,
    invitation: `${base}/invitation`,
    reset: `${base}/reset-password`,
    meterScript: `${base}/password-meter.js`,
    strength: `${base}/password-strength`,
  };
}

export interface AdminContext {
  config: FaceDeps['config'];
  sessions: SessionService;
  people: FaceDeps['services']['people'];
  /** The same throttle as HTTP Basic (one per app instance: a failure here counts there, and back). */
  throttle: FaceDeps['services']['loginThrottle'];
  /** ADMIN_PATH */
  base: string;
  paths: ReturnType<typeof adminPaths>;
  /** The session cookie's path: common to ADMIN_PATH and the REST roots. */
  cookiePath: string;
}

export const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).header('content-type', 'text/html; charset=UTF-8').header('cache-control', 'no-store').send(body);
export const messages = (req: FastifyRequest): Messages => messagesFor(req.headers['accept-language'], cookieOf(req.headers.cookie, LANG_COOKIE));
const cookieFlags = (c: AdminContext, req: FastifyRequest) => `Path=${c.base}/; HttpOnly; SameSite=Lax${req.protocol === 'https' ? '; Secure' : ''}`;

export const field = (req: FastifyRequest, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

/** A calendar's path prefix (`/c/north`) at the start of a path. */
const CALENDAR_PREFIX = /^\/c\/[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?(?=\/)/;

/**
 * Where to go after sign-in: `redirect_to` when it is an app path under ADMIN_PATH, in the default
 * calendar or under a calendar's prefix (`/c/north/admin/…`: one sign-in for every calendar), else
 * the app.
 */
export function redirectTarget(c: AdminContext, value: unknown): string {
  if (typeof value !== 'string') return c.paths.app;
  const path = value.replace(CALENDAR_PREFIX, '');
  if (!path.startsWith(c.base + '/') || value.startsWith('//') || /[\\\s]/.test(value) || path.startsWith(c.paths.login)) return c.paths.app;
  return value;
}

/** The login nonce of the request's pre-session cookie (the cookie set when missing): the signed-out forms carry it. */
export function preNonce(c: AdminContext, req: FastifyRequest, reply: FastifyReply): string {
  let pre = cookieOf(req.headers.cookie, LOGIN_COOKIE);
  if (!pre || !/^[A-Za-z0-9_-]{43}$/.test(pre)) {
    pre = randomBytes(32).toString('base64url');
    reply.header('set-cookie', `${LOGIN_COOKIE}=${pre}; ${cookieFlags(c, req)}`);
  }
  return loginNonceOf(pre);
}

/** Login CSRF: a signed-out form's nonce must be the one of this browser's pre-session cookie. */
export function preNonceOk(req: FastifyRequest): boolean {
  const pre = cookieOf(req.headers.cookie, LOGIN_COOKIE) ?? '';
  const sent = Buffer.from(field(req, '_wpnonce'));
  const expected = Buffer.from(pre ? loginNonceOf(pre) : '');
  return pre !== '' && sent.length === expected.length && timingSafeEqual(sent, expected);
}

export function languageLinks(c: AdminContext, req: FastifyRequest) {
  const back = req.url.split('#')[0]!;
  return LANGUAGES.map((l) => ({ ...l, href: `${c.paths.language}?lang=${l.code}&redirect_to=${encodeURIComponent(back)}` }));
}

/** The login page, with the login nonce of the request's pre-session cookie (set when missing). */
export function loginForm(
  c: AdminContext,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  extra: { error?: string; login?: string; notice?: string; redirectTo?: string; remember?: boolean } = {},
) {
  const nonce = preNonce(c, req, reply);
  const m = messages(req);
  return html(reply, status, loginPage(m, { action: c.paths.login, nonce, redirectTo: extra.redirectTo ?? '', languages: languageLinks(c, req), lostHref: c.paths.lost, ...extra }));
}

/** The request's session, and that its form nonce is right (else 403, as WordPress' check_admin_referer). */
export async function formSession(c: AdminContext, req: FastifyRequest): Promise<Session> {
  const session = await sessionOfRequest(req, c.sessions);
  if (!session || c.sessions.verifyNonce(req.sessionToken!, session, field(req, '_wpnonce'), FORM_ACTION) === false) throw apiError('rest_cookie_invalid_nonce');
  return session;
}

/** The session cookie cleared, and the login page saying so. */
export function signedOut(c: AdminContext, req: FastifyRequest, reply: FastifyReply) {
  setSessionCookie(req, reply, '', c.cookiePath);
  return loginForm(c, req, reply, 200, { notice: messages(req).signedOut });
}
