/**
 * The admin face, at ADMIN_PATH (`/admin`): sign-in as WordPress does it (a login page,
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
 * Here the app's routes; the signed-out pages in sign-in-routes.ts, the account page and its forms in
 * account-routes.ts, what they share (paths, cookies, nonces, the login form) in context.ts.
 *
 * @example
 *   await registerAdminFace(app, { config, services });
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionService } from '../domain/sessions.js';
import { registerErrorShape, withErrorHeaders } from '../web/error-shapes.js';
import { commonPath, registerCookieAuthentication, REST_NONCE_ACTION, sessionOfRequest } from '../web/sessions.js';
import { adminAppFiles, appIndexHtml } from './app-files.js';
import { iconLink } from '../web/site-icon.js';
import { LANGUAGES } from './messages.js';
import { errorPage } from './pages.js';
import { adminPaths, APP_CSP, FORM_ACTION, html, LANG_COOKIE, messages, PAGE_CSP, redirectTarget, type AdminContext } from './context.js';
import { registerAccountRoutes } from './account-routes.js';
import { registerSignInRoutes } from './sign-in-routes.js';
import { calendarSlugOf } from '../web/calendars.js';

/** Register the admin face; returns its session service (tests, the CLI's sign-out). */
export async function registerAdminFace(app: FastifyInstance, { config, services }: Pick<FaceDeps, 'config' | 'services'>): Promise<SessionService> {
  const base = config.adminPath;
  const sessions = services.sessions;
  const roots = config.restRoot === '/wp-json' ? [config.restRoot] : [config.restRoot, '/wp-json'];
  const underAdmin = (url: string) => url === base || url.startsWith(base + '/') || url.startsWith(base + '?');
  registerCookieAuthentication(app, sessions, (req) => !underAdmin(req.url));
  const c: AdminContext = {
    config,
    sessions,
    people: services.people,
    throttle: services.loginThrottle,
    base,
    paths: adminPaths(base),
    cookiePath: commonPath([base, ...roots]),
  };
  const paths = c.paths;

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
    registerAppRoutes(scope, c, services.calendars);
    registerSignInRoutes(scope, c);
    registerAccountRoutes(scope, c);
  });
  return sessions;
}

/** The admin app (index.html at P/ and at every app path under it, its assets) and the language choice. */
function registerAppRoutes(scope: FastifyInstance, c: AdminContext, calendars: FaceDeps['services']['calendars']): void {
  const { config, sessions, base, paths } = c;
  const appFiles = adminAppFiles();
  // The admin app: index.html at P/ and at every app path under it (reloads, deep links).
  const appPage = async (req: FastifyRequest, reply: FastifyReply) => {
    // In a calendar named by its path (`/c/north/admin/`), the app's URLs, the REST root it calls
    // and its assets are under that prefix, so that it works in that calendar; sign-in is the
    // service's own (one session for every calendar), and brings the user back here.
    const slug = calendarSlugOf(req);
    const prefix = slug === undefined ? '' : `/c/${slug}`;
    const session = await sessionOfRequest(req, sessions);
    if (!session || !session.complete) return reply.redirect(`${paths.login}?redirect_to=${encodeURIComponent(prefix + req.url)}`, 303);
    if (!sessions.usable(session)) return reply.redirect(paths.account, 303);
    const built = await appFiles.index();
    const m = messages(req);
    if (built === undefined) return reply.code(503).header('content-type', 'text/plain; charset=UTF-8').send('The admin app is not built: run `npm run build`.');
    const viewer = session.viewer;
    const boot = {
      restRoot: prefix + config.restRoot,
      nonce: sessions.nonce(req.sessionToken!, session, REST_NONCE_ACTION),
      adminPath: prefix + base,
      locale: m.lang,
      locales: LANGUAGES.map((l) => l.code),
      siteName: config.siteName,
      siteUrl: config.siteUrl,
      timezone: config.timezone,
      formNonce: sessions.nonce(req.sessionToken!, session, FORM_ACTION),
      // Optional features whose screens the app shows only when they are on.
      // `network`: the user administers the network (the Calendars screen).
      features: [...(config.submissions !== 'off' ? ['submissions'] : []), ...(config.federation ? ['federation'] : []), ...((await calendars.isNetworkAdministrator(viewer)) ? ['network'] : [])],
      user: { id: viewer.id, name: viewer.login, roles: viewer.role ? [viewer.role] : [], capabilities: Object.fromEntries([...viewer.caps].sort().map((cap) => [cap, true])) },
    };
    reply.header('content-security-policy', APP_CSP);
    return html(reply, 200, appIndexHtml(built, prefix + base, boot, m.lang, iconLink(config.siteIcon)));
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
    const back = typeof q.redirect_to === 'string' && (q.redirect_to === paths.login || q.redirect_to.startsWith(paths.login + '?')) ? q.redirect_to : redirectTarget(c, q.redirect_to);
    return reply.redirect(back, 303);
  });
}
