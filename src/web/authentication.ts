/**
 * Authentication shared by every face: a request's `Authorization` header checked through the
 * failed-login throttle (login-throttle.ts), and the one rule for what may authenticate over HTTP
 * Basic (`createAuthentication`): a user with two-factor sign-in on (TOTP confirmed), or whose role
 * ADMIN_REQUIRE_2FA requires it for, is refused with their account password there (401
 * `invalid_application_credentials`, as the WordPress Two-Factor plugin answers); only their
 * application passwords work, since a password alone would walk around the second factor. The
 * refusal is not counted as a failed login: the password was right, so it teaches a guesser
 * nothing the sign-in page would not (it asks for the code after a right password), and a client
 * still set up with the password does not lock its address out of other users.
 *
 * A face decides which of its requests carry credentials (the REST face: every request under a
 * REST root, except JSONP ones, which covers calendar/events/v1, its aliases and
 * calendar/admin/v1; CalDAV: every request under /dav/) and calls the `Authenticate` made here;
 * no face checks a header otherwise. The admin face's sign-in checks the password through the same
 * throttle (`services.loginThrottle`) and then asks for the second factor itself (domain/sessions.ts); a
 * sign-in session's cookie is turned into a viewer by web/sessions.ts (with the WordPress nonce
 * rule). The viewer found is `req.viewer` (anonymous when there is none), which the rate limit
 * keys by (rate-limit.ts).
 *
 * @example
 *   const authenticate = createAuthentication(services, config);
 *   req.viewer = await authenticate(req.headers.authorization, req.ip); // may throw the throttle's 429, or the 401 above
 */
import type { Config } from '../config.js';
import { apiError } from '../domain/errors.js';
import type { Viewer } from '../domain/permissions.js';
import { secondFactorRequired } from '../domain/sessions.js';
import type { Services } from '../domain/services.js';
import type { Identified } from '../domain/users.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated viewer, once known. */
    viewer?: Viewer;
  }
}

/** Check an `Authorization` header sent from the client at `ip` (its throttle: login-throttle.ts). */
export type Authenticate = (authorization: string, ip: string) => Promise<Viewer>;

/**
 * Whether what a header proved may authenticate a request: an application password always; the
 * account password only for a user without a second factor (none on, none required for the role).
 */
export function mayAuthenticate(found: Identified, adminRequire2fa: Config['adminRequire2fa']): boolean {
  if (found.credential !== 'password') return true;
  return !found.twoFactor && !secondFactorRequired(adminRequire2fa, found.viewer.role);
}

/**
 * An authenticator through the app instance's failed-login throttle (`services.loginThrottle`: the
 * counts are in the database, shared by every instance on it and by the admin face's sign-in), with
 * the two-factor rule (`mayAuthenticate`).
 */
export function createAuthentication(services: Pick<Services, 'users' | 'loginThrottle'>, config: Pick<Config, 'adminRequire2fa'>): Authenticate {
  const loginThrottle = services.loginThrottle;
  return async (authorization, ip) => {
    const found = await services.users.identify(authorization, loginThrottle.forClient(ip));
    if (!mayAuthenticate(found, config.adminRequire2fa)) throw apiError('invalid_application_credentials');
    return found.viewer;
  };
}
