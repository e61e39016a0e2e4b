/**
 * The admin face (issue 28), at ADMIN_PATH (`/admin`): sign-in as WordPress does it (a login page,
 * a session cookie, nonces), the account page (who is signed in, their sessions, sign out, sign out
 * everywhere, two-factor sign-in), and the admin app (admin-app/, built into dist/admin-app/), a
 * client of the REST API served to signed-in users. Registered by the composition root after the
 * REST face; it adds the cookie authentication (web/sessions.ts) for every other path, so the REST
 * API (and any face) accepts the cookie with a nonce.
 *
 * Routes (P = ADMIN_PATH): `GET P/` and every app path under it (`P/events/42`: reloads and deep
 * links) the app's index.html with its boot data (REST root and nonce, the user, the locale), else
 * a redirect to `P/login?redirect_to=…`; `GET P/assets/*` the app's hashed files (cached for a
 * year); `GET P/account` the account page; `GET P/login`, `POST P/login` (fields `log`, `pwd`,
 * `redirect_to`, as wp-login.php, and `_wpnonce`, the login nonce tied to the pre-session cookie
 * `calendar_login`), `POST P/login/code` (the TOTP step); `GET P/language?lang=fr` (the language
 * choice, a cookie the pages and the app honour); `GET P/rest-nonce` (the REST nonce, as
 * WordPress' `admin-ajax.php?action=rest-nonce`); `POST P/sign-out`, `POST P/sign-out-everywhere`,
 * `POST P/two-factor/{start,confirm,disable}`. Every POST but the sign-in carries the session's
 * form nonce (`_wpnonce`). Answers here carry no CORS headers (a page on another origin can never
 * read them, the nonce included), may not be framed, and, but the assets, are never stored. An
 * error that reaches none of its handlers (an expired form nonce, a URL or body the server cannot
 * read, a method its paths do not take) is a page too (web/error-shapes.ts).
 *
 * @example
 *   await registerAdminFace(app, { config, services });
 */
import type { FaceDeps } from '../faces.js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { ApiError, apiError } from '../domain/errors.js';
import { CodesBlocked, type Session, type SessionService } from '../domain/sessions.js';
import { registerErrorShape, withErrorHeaders } from '../web/error-shapes.js';
import { commonPath, cookieOf, registerCookieAuthentication, REST_NONCE_ACTION, SESSION_COOKIE, sessionOfRequest, setSessionCookie } from '../web/sessions.js';
import { adminAppFiles, appIndexHtml } from './app-files.js';
import { iconLink } from '../web/site-icon.js';
import { LANGUAGES, messagesFor, type Messages } from './messages.js';
import { accountPage, codePage, errorPage, linkErrorPage, loginPage, lostPasswordPage, recoveryPage, setPasswordPage, type AccountView } from './pages.js';
import { passwordStrength, policyOf } from '../domain/password-policy.js';
import { PASSWORD_METER_JS } from './password-meter.js';
import { describeUserAgent } from '../domain/user-agent.js';
import type { TokenKind } from '../store/people.js';

/** The nonce action of the account page's forms. */
const FORM_ACTION = 'account';
/** The pre-session cookie the login nonce is tied to (login CSRF, as WordPress' test cookie and nonce). */
const LOGIN_COOKIE = 'calendar_login';
/** The cookie of the language the user chose (set by the app's selector and by `P/language`). */
const LANG_COOKIE = 'calendar_lang';
/** The login form's nonce: a hash of the pre-session cookie (only a page that can read the cookie's value, ours, can send it). */
const loginNonceOf = (cookie: string) => createHash('sha256').update(`login|${cookie}`).digest('base64url').slice(0, 32);
/** The app's CSP: its scripts and styles from here only, images from anywhere (an event's image URL), no inline script. */
const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_CSP = "default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/** The set-password pages: their strength meter's script from here (password-meter.ts), nothing inline. */
const METER_CSP = PAGE_CSP.replace("default-src 'none';", "default-src 'none'; script-src 'self';");

/** Register the admin face; returns its session service (tests, the CLI's sign-out). */
export async function registerAdminFace(app: FastifyInstance, { config, services }: Pick<FaceDeps, 'config' | 'services'>): Promise<SessionService> {
  const base = config.adminPath;
  const sessions = services.sessions;
  const roots = config.restRoot === '/wp-json' ? [config.restRoot] : [config.restRoot, '/wp-json'];
  const cookiePath = commonPath([base, ...roots]);
  const underAdmin = (url: string) => url === base || url.startsWith(base + '/') || url.startsWith(base + '?');
  registerCookieAuthentication(app, sessions, (req) => !underAdmin(req.url));
  // The same throttle as HTTP Basic (one per app instance: a failure here counts there, and back).
  const throttle = services.loginThrottle;
  const appFiles = adminAppFiles();
  const paths = {
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
  const people = services.people;
  /** A GMT time (`YYYY-MM-DD HH:MM:SS`) in the site's time zone, the zone named. */
  const siteTime = (lang: string, gmt: string) => {
    const date = new Date(gmt.replace(' ', 'T') + 'Z');
    try {
      return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: config.timezone }).format(date) + ` (${config.timezone})`;
    } catch {
      return `${gmt} UTC`;
    }
  };

  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).header('content-type', 'text/html; charset=UTF-8').header('cache-control', 'no-store').send(body);
  const messages = (req: FastifyRequest): Messages => messagesFor(req.headers['accept-language'], cookieOf(req.headers.cookie, LANG_COOKIE));
  const cookieFlags = (req: FastifyRequest) => `Path=${base}/; HttpOnly; SameSite=Lax${req.protocol === 'https' ? '; Secure' : ''}`;
  /** Where to go after sign-in: `redirect_to` when it is an app path under ADMIN_PATH, else the app. */
  const redirectTarget = (value: unknown): string => {
    if (typeof value !== 'string' || !value.startsWith(base + '/') || value.startsWith('//') || /[\\\s]/.test(value) || value.startsWith(paths.login)) return paths.app;
    return value;
  };
  /** The login nonce of the request's pre-session cookie (the cookie set when missing): the signed-out forms carry it. */
  const preNonce = (req: FastifyRequest, reply: FastifyReply): string => {
    let pre = cookieOf(req.headers.cookie, LOGIN_COOKIE);
    if (!pre || !/^[A-Za-z0-9_-]{43}$/.test(pre)) {
      pre = randomBytes(32).toString('base64url');
      reply.header('set-cookie', `${LOGIN_COOKIE}=${pre}; ${cookieFlags(req)}`);
    }
    return loginNonceOf(pre);
  };
  /** Login CSRF: a signed-out form's nonce must be the one of this browser's pre-session cookie. */
  const preNonceOk = (req: FastifyRequest): boolean => {
    const pre = cookieOf(req.headers.cookie, LOGIN_COOKIE) ?? '';
    const sent = Buffer.from(field(req, '_wpnonce'));
    const expected = Buffer.from(pre ? loginNonceOf(pre) : '');
    return pre !== '' && sent.length === expected.length && timingSafeEqual(sent, expected);
  };
  /** The login page, with the login nonce of the request's pre-session cookie (set when missing). */
  const loginForm = (req: FastifyRequest, reply: FastifyReply, status: number, extra: { error?: string; login?: string; notice?: string; redirectTo?: string; remember?: boolean } = {}) => {
    const nonce = preNonce(req, reply);
    const m = messages(req);
    return html(reply, status, loginPage(m, { action: paths.login, nonce, redirectTo: extra.redirectTo ?? '', languages: languageLinks(req), lostHref: paths.lost, ...extra }));
  };
  const languageLinks = (req: FastifyRequest) => {
    const back = req.url.split('#')[0]!;
    return LANGUAGES.map((l) => ({ ...l, href: `${paths.language}?lang=${l.code}&redirect_to=${encodeURIComponent(back)}` }));
  };
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
    return loginForm(req, reply, 200, { notice: messages(req).signedOut });
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
        // Times in the site's zone (named), the browser in words, as the app's account screen.
        sessions: session.mustEnrol
          ? []
          : (await sessions.list(session.userId)).map((s) => {
              const d = describeUserAgent(s.userAgent);
              return {
                ...s,
                created: siteTime(m.lang, s.created),
                lastUsed: siteTime(m.lang, s.lastUsed),
                userAgent: d.browser && d.os ? m.deviceOn(d.browser, d.os) : d.browser || d.os || m.unknownDevice,
              };
            }),
        twoFactor,
        mustEnrol: session.mustEnrol,
        paths,
        languages: languageLinks(req),
        ...extra,
      }),
    );
  }

  // What reaches none of the face's handlers (a form's expired nonce, a URL the router cannot read,
  // a body over the limits, a method its paths do not take) is a page too, as WordPress' wp_die().
  registerErrorShape(app, {
    owns: (path) => path === base || path.startsWith(base + '/'),
    send: (req, reply, error) => {
      const m = messages(req);
      const message = error.code === 'rest_cookie_invalid_nonce' ? m.linkExpired : error.code === 'rest_no_route' ? m.notFound : error.message;
      withErrorHeaders(reply, error).header('x-frame-options', 'DENY').header('content-security-policy', PAGE_CSP).header('referrer-policy', 'same-origin');
      return html(reply, error.status, errorPage(m, message, paths.app));
    },
  });

  await app.register(async (scope) => {
    // No CORS here (the REST face's onSend adds it to every answer; this one runs after it), no framing.
    scope.addHook('onSend', async (_req, reply, payload) => {
      for (const h of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers'])
        reply.removeHeader(h);
      reply.header('x-frame-options', 'DENY');
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PAGE_CSP);
      reply.header('referrer-policy', 'same-origin');
      if (!reply.hasHeader('cache-control') || reply.statusCode !== 200) reply.header('cache-control', 'no-store');
      return payload;
    });

    // The admin app: index.html at P/ and at every app path under it (reloads, deep links).
    const appPage = async (req: FastifyRequest, reply: FastifyReply) => {
      const session = await sessionOfRequest(req, sessions);
      if (!session || !session.complete) return reply.redirect(`${paths.login}?redirect_to=${encodeURIComponent(req.url)}`, 303);
      if (!sessions.usable(session)) return reply.redirect(paths.account, 303);
      const built = await appFiles.index();
      const m = messages(req);
      if (built === undefined) return reply.code(503).header('content-type', 'text/plain; charset=UTF-8').send('The admin app is not built: run `npm run build`.');
      const viewer = session.viewer;
      const boot = {
        restRoot: config.restRoot,
        nonce: sessions.nonce(req.sessionToken!, session, REST_NONCE_ACTION),
        adminPath: base,
        locale: m.lang,
        locales: LANGUAGES.map((l) => l.code),
        siteName: config.siteName,
        siteUrl: config.siteUrl,
        timezone: config.timezone,
        formNonce: sessions.nonce(req.sessionToken!, session, FORM_ACTION),
        // Optional features whose screens the app shows only when they are on.
        features: [...(config.submissions !== 'off' ? ['submissions'] : []), ...(config.federation ? ['federation'] : [])],
        user: { id: viewer.id, name: viewer.login, roles: viewer.role ? [viewer.role] : [], capabilities: Object.fromEntries([...viewer.caps].sort().map((c) => [c, true])) },
      };
      reply.header('content-security-policy', APP_CSP);
      return html(reply, 200, appIndexHtml(built, base, boot, m.lang, iconLink(config.siteIcon)));
    };
    scope.get(paths.app, appPage);
    scope.get(`${base}/*`, appPage);

    scope.get(`${base}/assets/:file`, async (req, reply) => {
      const file = await appFiles.asset((req.params as { file: string }).file);
      if (!file) return reply.code(404).header('content-type', 'text/plain; charset=UTF-8').send('Not found');
      return reply.code(200).header('content-type', file.type).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(file.body);
    });

    scope.get(paths.language, async (req, reply) => {
      const q = req.query as Record<string, unknown>;
      const lang = LANGUAGES.find((l) => l.code === q.lang)?.code;
      if (lang) reply.header('set-cookie', `${LANG_COOKIE}=${lang}; Path=/; Max-Age=31536000; SameSite=Lax${req.protocol === 'https' ? '; Secure' : ''}`);
      const back = typeof q.redirect_to === 'string' && (q.redirect_to === paths.login || q.redirect_to.startsWith(paths.login + '?')) ? q.redirect_to : redirectTarget(q.redirect_to);
      return reply.redirect(back, 303);
    });

    scope.get(paths.account, async (req, reply) => {
      const session = await sessionOfRequest(req, sessions);
      if (!session || !session.complete) return reply.redirect(`${paths.login}?redirect_to=${encodeURIComponent(paths.account)}`, 303);
      return account(req, reply, session);
    });

    scope.get(paths.login, async (req, reply) => {
      const session = await sessionOfRequest(req, sessions);
      const redirectTo = redirectTarget((req.query as Record<string, unknown>).redirect_to);
      if (session?.complete) return reply.redirect(redirectTo, 303);
      const m = messages(req);
      if (session) return html(reply, 200, codePage(m, { action: paths.code, cancelAction: paths.signOut, nonce: sessions.nonce(req.sessionToken!, session, FORM_ACTION) }));
      return loginForm(req, reply, 200, { redirectTo: redirectTo === paths.app ? '' : redirectTo });
    });

    scope.post(paths.login, async (req, reply) => {
      const m = messages(req);
      const login = field(req, 'log').trim();
      const redirectTo = redirectTarget(field(req, 'redirect_to'));
      const keep = redirectTo === paths.app ? '' : redirectTo;
      // "Remember me" (WordPress' `rememberme=forever`): a persistent cookie for SESSION_MAX_AGE.
      const remember = field(req, 'rememberme') !== '';
      // Login CSRF: the form's nonce must be the one of this browser's pre-session cookie.
      if (!preNonceOk(req)) return loginForm(req, reply, 403, { login, error: m.formExpired, redirectTo: keep, remember });
      let signedIn;
      try {
        signedIn = await sessions.signIn(login, field(req, 'pwd'), throttle.forClient(req.ip), { userAgent: String(req.headers['user-agent'] ?? ''), ip: req.ip, remember });
      } catch (e) {
        if (e instanceof ApiError && e.status === 429) {
          reply.headers(e.headers);
          return loginForm(req, reply, 429, { login, error: m.tooMany(Number(e.headers['retry-after'] ?? 1)), redirectTo: keep, remember });
        }
        throw e;
      }
      if (!signedIn) return loginForm(req, reply, 401, { login, error: m.badCredentials, redirectTo: keep, remember });
      setSessionCookie(req, reply, signedIn.token, cookiePath, remember ? config.sessionMaxAgeMs : undefined);
      return reply.redirect(signedIn.session.complete ? redirectTo : paths.login + (keep ? `?redirect_to=${encodeURIComponent(keep)}` : ''), 303);
    });

    // "Lost your password?": the same answer whatever was asked (no account enumeration).
    scope.get(paths.lost, async (req, reply) => {
      const nonce = preNonce(req, reply);
      return html(reply, 200, lostPasswordPage(messages(req), { action: paths.lost, nonce, signInHref: paths.login, languages: languageLinks(req) }));
    });

    scope.post(paths.lost, async (req, reply) => {
      const m = messages(req);
      const nonce = preNonce(req, reply);
      if (!preNonceOk(req)) return html(reply, 403, lostPasswordPage(m, { action: paths.lost, nonce, signInHref: paths.login, error: m.formExpired, languages: languageLinks(req) }));
      await people.requestReset(field(req, 'user_login'), req.ip, m.lang === 'fr' ? 'fr' : 'en');
      return html(reply, 200, lostPasswordPage(m, { action: paths.lost, nonce, signInHref: paths.login, sent: true, languages: languageLinks(req) }));
    });

    // The set-password pages of an invitation and of a lost-password link.
    const linkPages = (kind: TokenKind, path: string) => {
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
            nonce: preNonce(req, reply),
            login,
            minLength: config.passwordMinLength,
            meter: { script: paths.meterScript, action: `${paths.strength}?kind=${kind}` },
            languages: languageLinks(req),
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
        if (cookieOf(req.headers.cookie, SESSION_COOKIE)) setSessionCookie(req, reply, '', cookiePath);
        return loginForm(req, reply, 200, { login: done.login, notice: m.passwordSet });
      });
    };
    linkPages('invite', paths.invitation);
    linkPages('reset', paths.reset);

    scope.get(paths.meterScript, async (_req, reply) =>
      reply.code(200).header('content-type', 'text/javascript; charset=UTF-8').header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(PASSWORD_METER_JS),
    );

    // The meter's estimate on a set-password page: only with a link that works and the page's nonce.
    scope.post(paths.strength, async (req, reply) => {
      const kind: TokenKind = (req.query as Record<string, unknown>).kind === 'reset' ? 'reset' : 'invite';
      const state = await people.linkState(kind, field(req, 'token'));
      if (state.state !== 'ok' || !preNonceOk(req))
        return reply
          .code(403)
          .header('content-type', 'application/json; charset=UTF-8')
          .send({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
      const r = passwordStrength(field(req, 'password').slice(0, 200), policyOf(config), [state.login, state.name, state.email]);
      return reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(r);
    });

    scope.post(paths.code, async (req, reply) => {
      const session = await formSession(req);
      if (session.complete) return reply.redirect(paths.app, 303);
      const m = messages(req);
      const nonce = sessions.nonce(req.sessionToken!, session, FORM_ACTION);
      try {
        if (await sessions.secondStep(session, field(req, 'code'), throttle.forClient(req.ip))) return reply.redirect(paths.app, 303);
      } catch (e) {
        if (e instanceof CodesBlocked) {
          // Too many wrong codes for this user (from anywhere): the session ended; sign in again later.
          reply.headers(e.headers);
          setSessionCookie(req, reply, '', cookiePath);
          return loginForm(req, reply, 429, { error: m.tooMany(e.seconds) });
        }
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
