/**
 * Authentication shared by every face: a request's `Authorization` header checked through the
 * failed-login throttle (login-throttle.ts). A face decides which of its requests carry credentials
 * (the REST face: every request under a REST root, except JSONP ones) and calls `authenticate`;
 * this is the only place a password is checked over HTTP. The viewer found is `req.viewer`
 * (anonymous when there is none), which the rate limit keys by (rate-limit.ts).
 *
 * @example
 *   const authenticate = createAuthentication(services.users, config.loginMaxFailures);
 *   req.viewer = await authenticate(req.headers.authorization, req.ip); // may throw the throttle's 429
 */
import type { Viewer } from '../domain/permissions.js';
import type { UserService } from '../domain/users.js';
import { createLoginThrottle } from './login-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated viewer, once known. */
    viewer?: Viewer;
  }
}

/** Check an `Authorization` header sent from the client at `ip` (its throttle: login-throttle.ts). */
export type Authenticate = (authorization: string, ip: string) => Promise<Viewer>;

/** An authenticator with a throttle of its own (state per app instance, in memory). */
export function createAuthentication(users: Pick<UserService, 'authenticate'>, loginMaxFailures: number): Authenticate {
  const loginThrottle = createLoginThrottle(loginMaxFailures);
  return (authorization, ip) => users.authenticate(authorization, loginThrottle.forClient(ip));
}
