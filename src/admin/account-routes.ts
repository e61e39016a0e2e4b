/**
 * The admin face's account routes (P = ADMIN_PATH): `GET P/account` the account page (who is signed
 * in, their sessions, two-factor sign-in), `GET P/rest-nonce`, and the account page's forms:
 * `POST P/sign-out`, `P/sign-out-everywhere`, `P/sessions/revoke`, `P/two-factor/{start,confirm,disable}`,
 * each with the session's form nonce. Registered by registerAdminFace (index.ts) in its scope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../domain/errors.js';
import type { Session } from '../domain/sessions.js';
import { describeUserAgent } from '../domain/user-agent.js';
import { REST_NONCE_ACTION, sessionOfRequest } from '../web/sessions.js';
import { FORM_ACTION, field, formSession, html, languageLinks, messages, signedOut, type AdminContext } from './context.js';
import { accountPage, recoveryPage, type AccountView } from './pages.js';

/** A GMT time (`YYYY-MM-DD HH:MM:SS`) in the site's time zone, the zone named. */
function siteTime(c: AdminContext, lang: string, gmt: string) {
  const date = new Date(gmt.replace(' ', 'T') + 'Z');
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: c.config.timezone }).format(date) + ` (${c.config.timezone})`;
  } catch {
    return `${gmt} UTC`;
  }
}

/** The account page of the request's session. */
async function account(c: AdminContext, req: FastifyRequest, reply: FastifyReply, session: Session, extra: { error?: string; notice?: string } = {}, status = 200) {
  const { sessions } = c;
  const token = req.sessionToken!;
  const status2 = await sessions.totpStatus(session.userId);
  let twoFactor: AccountView['twoFactor'];
  if (status2.state === 'pending') {
    // qrcode is loaded with the first enrolment, not at every start.
    const { default: QRCode } = await import('qrcode');
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
              created: siteTime(c, m.lang, s.created),
              lastUsed: siteTime(c, m.lang, s.lastUsed),
              userAgent: d.browser && d.os ? m.deviceOn(d.browser, d.os) : d.browser || d.os || m.unknownDevice,
            };
          }),
      twoFactor,
      mustEnrol: session.mustEnrol,
      paths: c.paths,
      languages: languageLinks(c, req),
      ...extra,
    }),
  );
}

export function registerAccountRoutes(scope: FastifyInstance, c: AdminContext): void {
  const { sessions, paths } = c;

  scope.get(paths.account, async (req, reply) => {
    const session = await sessionOfRequest(req, sessions);
    if (!session || !session.complete) return reply.redirect(`${paths.login}?redirect_to=${encodeURIComponent(paths.account)}`, 303);
    return account(c, req, reply, session);
  });

  // WordPress' admin-ajax.php?action=rest-nonce: the nonce for the REST API, to a signed-in session only.
  scope.get(paths.nonce, async (req, reply) => {
    const session = await sessionOfRequest(req, sessions);
    reply.header('content-type', 'text/plain; charset=UTF-8');
    if (!session || !sessions.usable(session)) return reply.code(400).send('0');
    return reply.code(200).send(sessions.nonce(req.sessionToken!, session, REST_NONCE_ACTION));
  });

  scope.post(paths.signOut, async (req, reply) => {
    const session = await formSession(c, req);
    await sessions.revoke(session.userId, session.id);
    return signedOut(c, req, reply);
  });

  scope.post(paths.signOutEverywhere, async (req, reply) => {
    const session = await formSession(c, req);
    if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
    await sessions.revokeAll(session.userId);
    return signedOut(c, req, reply);
  });

  scope.post(paths.revoke, async (req, reply) => {
    const session = await formSession(c, req);
    if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
    const id = Number(field(req, 'id'));
    if (Number.isSafeInteger(id) && id !== session.id) await sessions.revoke(session.userId, id);
    return reply.redirect(paths.account, 303);
  });

  scope.post(paths.totpStart, async (req, reply) => {
    const session = await formSession(c, req);
    if (!session.complete) throw apiError('rest_cookie_invalid_nonce');
    const status = await sessions.totpStatus(session.userId);
    if (status.state !== 'on') await sessions.startTotp(session.userId, session.viewer.login);
    return reply.redirect(paths.account, 303);
  });

  scope.post(paths.totpConfirm, async (req, reply) => {
    const session = await formSession(c, req);
    if (!session.complete) throw apiError('rest_cookie_invalid_nonce');
    const codes = await sessions.confirmTotp(session.userId, field(req, 'code'));
    const m = messages(req);
    if (!codes) return account(c, req, reply, session, { error: m.badCode }, 400);
    return html(reply, 200, recoveryPage(m, codes, paths.account));
  });

  scope.post(paths.totpDisable, async (req, reply) => {
    const session = await formSession(c, req);
    if (!sessions.usable(session)) throw apiError('rest_cookie_invalid_nonce');
    const m = messages(req);
    if (!(await sessions.disableTotp(session.userId, field(req, 'code')))) return account(c, req, reply, session, { error: m.badCode }, 400);
    return reply.redirect(paths.account, 303);
  });
}
