/**
 * The admin face (issue 28), at ADMIN_PATH (`/admin`): for now sign-in as WordPress does it (a
 * login page, a session cookie, nonces) and the account page (who is signed in, their sessions,
 * sign out, sign out everywhere, two-factor sign-in). Registered by the composition root after the
 * REST face; it adds the cookie authentication (web/sessions.ts) for every other path, so the REST
 * API (and any face) accepts the cookie with a nonce.
 *
 * Routes (P = ADMIN_PATH): `GET P/` the account page; `GET P/login`, `POST P/login` (fields `log`,
 * `pwd`, as wp-login.php), `POST P/login/code` (the TOTP step); `GET P/rest-nonce` (the REST nonce,
 * as WordPress' `admin-ajax.php?action=rest-nonce`); `POST P/sign-out`, `POST P/sign-out-everywhere`,
 * `POST P/two-factor/{start,confirm,disable}`. Every POST but the sign-in carries the session's
 * form nonce (`_wpnonce`). Answers here carry no CORS headers (a page on another origin can never
 * read them, the nonce included), may not be framed, and are never stored.
 *
 * @example
 *   await registerAdminFace(app, { config, services });
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { Config } from '../config.js';
import { ApiError, apiError } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { sessionServiceOf, type Session, type SessionService } from '../domain/sessions.js';
import { loginThrottleOf } from '../web/authentication.js';
import { commonPath, registerCookieAuthentication, REST_NONCE_ACTION, sessionOfRequest, setSessionCookie } from '../web/sessions.js';
import { messagesFor, type Messages } from './messages.js';
import { accountPage, codePage, loginPage, recoveryPage, type AccountView } from './pages.js';

/** The nonce action of the account page's forms. */
const FORM_ACTION = 'account';

export interface AdminFace {
  config: Config;
  services: Services;
}

/** Register the admin face; returns its session service (tests, the CLI's sign-out). */
export async function registerAdminFace(app: FastifyInstance, { config, services }: AdminFace): Promise<SessionService> {
  const base = config.adminPath;
  const sessions = sessionServiceOf(services);
  const roots = config.restRoot === '/wp-json' ? [config.restRoot] : [config.restRoot, '/wp-json'];
  const cookiePath = commonPath([base, ...roots]);
  const underAdmin = (url: string) => url === base || url.startsWith(base + '/') || url.startsWith(base + '?');
  registerCookieAuthentication(app, sessions, (req) => !underAdmin(req.url));
  // The same throttle as HTTP Basic (one per app instance: a failure here counts there, and back).
  const throttle = loginThrottleOf(services.users, config.loginMaxFailures);
  const paths = {
    account: `${base}/`,
    login: `${base}/login`,
    code: `${base}/login/code`,
    nonce: `${base}/rest-nonce`,
    signOut: `${base}/sign-out`,
    signOutEverywhere: `${base}/sign-out-everywhere`,
    revoke: `${base}/sessions/revoke`,
    totpStart: `${base}/two-factor/start`,
    totpConfirm: `${base}/two-factor/confirm`,
    totpDisable: `${base}/two-factor/disable`,
  };

  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).header('content-type', 'text/html; charset=UTF-8').header('cache-control', 'no-store').send(body);
  const messages = (req: FastifyRequest): Messages => messagesFor(req.headers['accept-language']);
  const field = (req: FastifyRequest, name: string): string => {
    const v = (req.body as Record<string, unknown> | undefined)?.[name];
    return typeof v === 'string' ? v : '';
  };
  /** The request's session, and that its form nonce is right (else 403, as WordPress' check_admin_referer). */
  const formSession = async (req: FastifyRequest): Promise<Session> => {
    const session = await sessionOfRequest(req, sessions);
    if (!session || sessions.verifyNonce(req.sessionToken!, session, field(req, '_wpnonce'), FORM_ACTION) === false) throw apiError('rest_cookie_invalid_nonce');
    return session;
  };
  const signedOut = (req: FastifyRequest, reply: FastifyReply) => {
    setSessionCookie(req, reply, '', cookiePath);
    return html(reply, 200, loginPage(messages(req), { action: paths.login, notice: messages(req).signedOut }));
  };

  async function account(req: FastifyRequest, reply: FastifyReply, session: Session, extra: { error?: string; notice?: string } = {}, status = 200) {
    const token = req.sessionToken!;
    const status2 = await sessions.totpStatus(session.userId);
    let twoFactor: AccountView['twoFactor'];
    if (status2.state === 'pending') {
      const svg = await QRCode.toString(status2.uri, { type: 'svg', margin: 2 });
      twoFactor = { state: 'pending', secret: status2.secret, qrSvg: svg.replace('<svg', `<svg role="img" aria-label="${messages(req).qrLabel}"`) };
    } else twoFactor = status2;
    const m = messages(req);
    return html(
      reply,
      status,
      accountPage(m, {
        name: session.viewer.login,
        role: session.viewer.role ?? '',
        restNonce: sessions.usable(session) ? sessions.nonce(token, session, REST_NONCE_ACTION) : '',
        formNonce: sessions.nonce(token, session, FORM_ACTION),
        currentSession: session.id,
        sessions: session.mustEnrol ? [] : await sessions.list(session.userId),
        twoFactor,
        mustEnrol: session.mustEnrol,
        paths,
        ...extra,
      }),
    );
  }

  await app.register(async (scope) => {
    // No CORS here (the REST face's onSend adds it to every answer; this one runs after it), no framing.
    scope.addHook('onSend', async (_req, reply, payload) => {
      for (const h of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers'])
        reply.removeHeader(h);
      reply.header('x-frame-options', 'DENY');
      reply.header('content-security-policy', "default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
      reply.header('referrer-policy', 'same-origin');
      reply.header('cache-control', 'no-store');
      return payload;
    });

    scope.get(paths.account, async (req, reply) => {
      const session = await sessionOfRequest(req, sessions);
      if (!session || !session.complete) return reply.redirect(paths.login, 303);
      return account(req, reply, session);
    });

    scope.get(paths.login, async (req, reply) => {
      const session = await sessionOfRequest(req, sessions);
      if (session?.complete) return reply.redirect(paths.account, 303);
      const m = messages(req);
      if (session) return html(reply, 200, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce: sessions.nonce(req.sessionToken!, session, FORM_ACTION) }));
      return html(reply, 200, loginPage(m, { action: paths.login }));
    });

    scope.post(paths.login, async (req, reply) => {
      const m = messages(req);
      const login = field(req, 'log').trim();
      let signedIn;
      try {
        signedIn = await sessions.signIn(login, field(req, 'pwd'), throttle.forClient(req.ip), { userAgent: String(req.headers['user-agent'] ?? ''), ip: req.ip });
      } catch (e) {
        if (e instanceof ApiError && e.status === 429) {
          reply.headers(e.headers);
          return html(reply, 429, loginPage(m, { action: paths.login, login, error: m.tooMany(Number(e.headers['retry-after'] ?? 1)) }));
        }
        throw e;
      }
      if (!signedIn) return html(reply, 401, loginPage(m, { action: paths.login, login, error: m.badCredentials }));
      setSessionCookie(req, reply, signedIn.token, cookiePath);
      return reply.redirect(signedIn.session.complete ? paths.account : paths.login, 303);
    });

    scope.post(paths.code, async (req, reply) => {
      const session = await formSession(req);
      if (session.complete) return reply.redirect(paths.account, 303);
      const m = messages(req);
      const nonce = sessions.nonce(req.sessionToken!, session, FORM_ACTION);
      try {
        if (await sessions.secondStep(session, field(req, 'code'), throttle.forClient(req.ip))) return reply.redirect(paths.account, 303);
      } catch (e) {
        if (e instanceof ApiError && e.status === 429) {
          reply.headers(e.headers);
          return html(reply, 429, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce, error: m.tooMany(Number(e.headers['retry-after'] ?? 1)) }));
        }
        throw e;
      }
      return html(reply, 401, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce, error: m.badCode }));
    });

    // WordPress' admin-ajax.php?action=rest-nonce: the nonce for the REST API, to a signed-in session only.
    scope.get(paths.nonce, async (req, reply) => {
      const session = await sessionOfRequest(req, sessions);
      reply.header('content-type', 'text/plain; charset=UTF-8');
      if (!session || !sessions.usable(session)) return reply.code(400).send('0');
      return reply.code(200).send(sessions.nonce(req.sessionToken!, session, REST_NONCE_ACTION));
    });

    scope.post(paths.signOut, async (req, reply) => {
      const session = await formSession(req);
      await sessions.revoke(session.userId, session.id);
      return signedOut(req, reply);
    });

    scope.post(paths.signOutEverywhere, async (req, reply) => {
      const session = await formSession(req);
      if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
      await sessions.revokeAll(session.userId);
      return signedOut(req, reply);
    });

    scope.post(paths.revoke, async (req, reply) => {
      const session = await formSession(req);
      if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
      const id = Number(field(req, 'id'));
      if (Number.isSafeInteger(id) && id !== session.id) await sessions.revoke(session.userId, id);
      return reply.redirect(paths.account, 303);
    });

    scope.post(paths.totpStart, async (req, reply) => {
      const session = await formSession(req);
      if (!session.complete) throw apiError('rest_cookie_invalid_nonce');
      const status = await sessions.totpStatus(session.userId);
      if (status.state !== 'on') await sessions.startTotp(session.userId, session.viewer.login);
      return reply.redirect(paths.account, 303);
    });

    scope.post(paths.totpConfirm, async (req, reply) => {
      const session = await formSession(req);
      if (!session.complete) throw apiError('rest_cookie_invalid_nonce');
      const codes = await sessions.confirmTotp(session.userId, field(req, 'code'));
      const m = messages(req);
      if (!codes) return account(req, reply, session, { error: m.badCode }, 400);
      return html(reply, 200, recoveryPage(m, codes, paths.account));
    });

    scope.post(paths.totpDisable, async (req, reply) => {
      const session = await formSession(req);
      if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
      const m = messages(req);
      if (!(await sessions.disableTotp(session.userId, field(req, 'code')))) return account(req, reply, session, { error: m.badCode }, 400);
      return reply.redirect(paths.account, 303);
    });
  });
  return sessions;
}
