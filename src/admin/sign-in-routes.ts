/**
 * The admin face's signed-out routes (P = ADMIN_PATH): `GET`/`POST P/login` (fields `log`, `pwd`,
 * `redirect_to`, `rememberme`, `_wpnonce`: the login nonce of the pre-session cookie),
 * `POST P/login/code` (the TOTP step), `GET`/`POST P/lost-password`, the set-password pages of an
 * invitation and of a lost-password link (`P/invitation`, `P/reset-password`) with their strength
 * meter (`P/password-meter.js`, `POST P/password-strength`). Registered by registerAdminFace
 * (index.ts) in its scope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { passwordStrength, policyOf } from '../domain/password-policy.js';
import { CodesBlocked } from '../domain/sessions.js';
import type { TokenKind } from '../store/people.js';
import { cookieOf, SESSION_COOKIE, sessionOfRequest, setSessionCookie } from '../web/sessions.js';
import { FORM_ACTION, field, formSession, html, languageLinks, loginForm, messages, METER_CSP, preNonce, preNonceOk, redirectTarget, type AdminContext } from './context.js';
import { codePage, linkErrorPage, lostPasswordPage, setPasswordPage } from './pages.js';
import { PASSWORD_METER_JS } from './password-meter.js';

export function registerSignInRoutes(scope: FastifyInstance, c: AdminContext): void {
  const { config, sessions, throttle, paths } = c;

  scope.get(paths.login, async (req, reply) => {
    const session = await sessionOfRequest(req, sessions);
    const redirectTo = redirectTarget(c, (req.query as Record<string, unknown>).redirect_to);
    if (session?.complete) return reply.redirect(redirectTo, 303);
    const m = messages(req);
    if (session) return html(reply, 200, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce: sessions.nonce(req.sessionToken!, session, FORM_ACTION) }));
    return loginForm(c, req, reply, 200, { redirectTo: redirectTo === paths.app ? '' : redirectTo });
  });

  scope.post(paths.login, async (req, reply) => {
    const m = messages(req);
    const login = field(req, 'log').trim();
    const redirectTo = redirectTarget(c, field(req, 'redirect_to'));
    const keep = redirectTo === paths.app ? '' : redirectTo;
    // "Remember me" (WordPress' `rememberme=forever`): a persistent cookie for SESSION_MAX_AGE.
    const remember = field(req, 'rememberme') !== '';
    // Login CSRF: the form's nonce must be the one of this browser's pre-session cookie.
    if (!preNonceOk(req)) return loginForm(c, req, reply, 403, { login, error: m.formExpired, redirectTo: keep, remember });
    let signedIn;
    try {
      signedIn = await sessions.signIn(login, field(req, 'pwd'), throttle.forClient(req.ip), { userAgent: String(req.headers['user-agent'] ?? ''), ip: req.ip, remember });
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) {
        reply.headers(e.headers);
        return loginForm(c, req, reply, 429, { login, error: m.tooMany(Number(e.headers['retry-after'] ?? 1)), redirectTo: keep, remember });
      }
      throw e;
    }
    if (!signedIn) return loginForm(c, req, reply, 401, { login, error: m.badCredentials, redirectTo: keep, remember });
    setSessionCookie(req, reply, signedIn.token, c.cookiePath, remember ? config.sessionMaxAgeMs : undefined);
    return reply.redirect(signedIn.session.complete ? redirectTo : paths.login + (keep ? `?redirect_to=${encodeURIComponent(keep)}` : ''), 303);
  });

  scope.post(paths.code, async (req, reply) => {
    const session = await formSession(c, req);
    if (session.complete) return reply.redirect(paths.app, 303);
    const m = messages(req);
    const nonce = sessions.nonce(req.sessionToken!, session, FORM_ACTION);
    try {
      if (await sessions.secondStep(session, field(req, 'code'), throttle.forClient(req.ip))) return reply.redirect(paths.app, 303);
    } catch (e) {
      if (e instanceof CodesBlocked) {
        // Too many wrong codes for this user (from anywhere): the session ended; sign in again later.
        reply.headers(e.headers);
        setSessionCookie(req, reply, '', c.cookiePath);
        return loginForm(c, req, reply, 429, { error: m.tooMany(e.seconds) });
      }
      if (e instanceof ApiError && e.status === 429) {
        reply.headers(e.headers);
        return html(reply, 429, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce, error: m.tooMany(Number(e.headers['retry-after'] ?? 1)) }));
      }
      throw e;
    }
    return html(reply, 401, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce, error: m.badCode }));
  });

  // "Lost your password?": the same answer whatever was asked (no account enumeration).
  scope.get(paths.lost, async (req, reply) => {
    const nonce = preNonce(c, req, reply);
    return html(reply, 200, lostPasswordPage(messages(req), { action: paths.lost, nonce, signInHref: paths.login, languages: languageLinks(c, req) }));
  });

  scope.post(paths.lost, async (req, reply) => {
    const m = messages(req);
    const nonce = preNonce(c, req, reply);
    if (!preNonceOk(req)) return html(reply, 403, lostPasswordPage(m, { action: paths.lost, nonce, signInHref: paths.login, error: m.formExpired, languages: languageLinks(c, req) }));
    await c.people.requestReset(field(req, 'user_login'), req.ip, m.lang === 'fr' ? 'fr' : 'en');
    return html(reply, 200, lostPasswordPage(m, { action: paths.lost, nonce, signInHref: paths.login, sent: true, languages: languageLinks(c, req) }));
  });

  registerLinkPages(scope, c, 'invite', paths.invitation);
  registerLinkPages(scope, c, 'reset', paths.reset);

  scope.get(paths.meterScript, async (_req, reply) =>
    reply.code(200).header('content-type', 'text/javascript; charset=UTF-8').header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(PASSWORD_METER_JS),
  );

  // The meter's estimate on a set-password page: only with a link that works and the page's nonce.
  scope.post(paths.strength, async (req, reply) => {
    const kind: TokenKind = (req.query as Record<string, unknown>).kind === 'reset' ? 'reset' : 'invite';
    const state = await c.people.linkState(kind, field(req, 'token'));
    if (state.state !== 'ok' || !preNonceOk(req))
      return reply
        .code(403)
        .header('content-type', 'application/json; charset=UTF-8')
        .send({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
    const r = passwordStrength(field(req, 'password').slice(0, 200), policyOf(config), [state.login, state.name, state.email]);
    return reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(r);
  });
}

/** The set-password pages of an invitation or of a lost-password link. */
function registerLinkPages(scope: FastifyInstance, c: AdminContext, kind: TokenKind, path: string): void {
  const { people, paths } = c;
  const linkError = (req: FastifyRequest, reply: FastifyReply, state: 'used' | 'expired' | 'unknown') => {
    const m = messages(req);
    const message = state === 'used' ? m.linkUsed : state === 'expired' ? m.linkExpiredPeople : m.linkUnknown;
    return html(reply, state === 'unknown' ? 404 : 410, linkErrorPage(m, message, { signInHref: paths.login, lostHref: paths.lost }));
  };
  const form = (req: FastifyRequest, reply: FastifyReply, status: number, token: string, login: string, error?: string) =>
    html(
      reply.header('content-security-policy', METER_CSP),
      status,
      setPasswordPage(messages(req), {
        kind,
        action: path,
        token,
        nonce: preNonce(c, req, reply),
        login,
        minLength: c.config.passwordMinLength,
        meter: { script: paths.meterScript, action: `${paths.strength}?kind=${kind}` },
        languages: languageLinks(c, req),
        ...(error ? { error } : {}),
      }),
    );
  scope.get(path, async (req, reply) => {
    const token = String((req.query as Record<string, unknown>).token ?? '');
    const state = await people.linkState(kind, token);
    if (state.state !== 'ok') return linkError(req, reply, state.state);
    // The token stays out of the Referer of anything this page links to (referrer-policy: same-origin) and out of caches (no-store).
    return form(req, reply, 200, token, state.login);
  });
  scope.post(path, async (req, reply) => {
    const m = messages(req);
    const token = field(req, 'token');
    const state = await people.linkState(kind, token);
    if (state.state !== 'ok') return linkError(req, reply, state.state);
    if (!preNonceOk(req)) return form(req, reply, 403, token, state.login, m.formExpired);
    const password = field(req, 'pass1');
    if (password !== field(req, 'pass2')) return form(req, reply, 400, token, state.login, m.passwordsDiffer);
    let done;
    try {
      done = await people.useLink(kind, token, password);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'weak_password') return form(req, reply, 400, token, state.login, e.message);
      throw e;
    }
    if (!done) return linkError(req, reply, 'used');
    // Any session this browser had (of this user or another) ends: sign in with the new password.
    if (cookieOf(req.headers.cookie, SESSION_COOKIE)) setSessionCookie(req, reply, '', c.cookiePath);
    return loginForm(c, req, reply, 200, { login: done.login, notice: m.passwordSet });
  });
}
