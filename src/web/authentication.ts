/**
 * Authentication shared by every face: a request's `Authorization` header checked through the
 * failed-login throttle (login-throttle.ts). A face decides which of its requests carry credentials
 * (the REST face: every request under a REST root, except JSONP ones) and calls `authenticate`;
 * this and the admin face's sign-in (through the same throttle, `loginThrottleOf`) are the only
 * places a password is checked over HTTP; a sign-in session's cookie is turned into a viewer by
 * web/sessions.ts (with the WordPress nonce rule). The viewer found is `req.viewer`
 * (anonymous when there is none), which the rate limit keys by (rate-limit.ts).
 *
 * @example
 *   const authenticate = createAuthentication(services.users, config.loginMaxFailures);
 *   req.viewer = await authenticate(req.headers.authorization, req.ip); // may throw the throttle's 429
 */
import type { Viewer } from '../domain/permissions.js';
import type { UserService } from '../domain/users.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated viewer, once known. */
    viewer?: Viewer;
  }
}

/** Check an `Authorization` header sent from the client at `ip` (its throttle: login-throttle.ts). */
export type Authenticate = (authorization: string, ip: string) => Promise<Viewer>;

/** One throttle per user service (so per app instance), shared by every way of signing in. */
const throttles = new WeakMap<object, LoginThrottle>();

/**
 * The failed-login throttle of an app instance (in memory), keyed by its user service: HTTP Basic
 * and the admin face's sign-in (cookie sessions, web/sessions.ts) count failures in the same one.
 */
export function loginThrottleOf(users: object, loginMaxFailures: number): LoginThrottle {
  let throttle = throttles.get(users);
  if (!throttle) throttles.set(users, (throttle = createLoginThrottle(loginMaxFailures)));
  return throttle;
}

/** An authenticator through the app instance's throttle (`loginThrottleOf`). */
export function createAuthentication(users: Pick<UserService, 'authenticate'>, loginMaxFailures: number): Authenticate {
  const loginThrottle = loginThrottleOf(users, loginMaxFailures);
  return (authorization, ip) => users.authenticate(authorization, loginThrottle.forClient(ip));
}
