/**
 * Failed logins slowed down, per login and per client IP. Bad credentials make a request anonymous
 * (the original's behaviour, kept); but after `maxFailures` failures for one login (or 4 × that
 * from one IP) within 15 minutes, further attempts with credentials for that login (from that IP)
 * are answered 429 `rest_too_many_requests` without checking the password, for 1 s after the
 * threshold is reached, then 2 s, 4 s, … up to 15 minutes per further failure. A success resets the
 * login's counter (not the IP's: an attacker could otherwise interleave an account of their own).
 *
 * State is per app instance, in memory, bounded (oldest entries dropped beyond 10,000 per kind).
 *
 * @example
 *   const throttle = createLoginThrottle(5);
 *   throttle.blockedFor('ann', '10.0.0.1') // undefined, or seconds to wait
 *   throttle.failed('ann', '10.0.0.1'); throttle.succeeded('ann');
 */
import { ApiError } from '../domain/errors.js';
import { ANONYMOUS, type Viewer } from '../domain/permissions.js';

/** Failures are forgotten this long after the last one. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** The longest an attempt is refused for. */
export const MAX_BLOCK_MS = 15 * 60_000;
/** The per-IP threshold is this many times the per-login one. */
export const IP_FACTOR = 4;
const MAX_ENTRIES = 10_000;

interface Entry {
  failures: number;
  last: number;
  blockedUntil: number;
}

export interface LoginThrottle {
  /** Seconds until an attempt for this login from this IP is allowed again; undefined when allowed. */
  blockedFor(login: string, ip: string): number | undefined;
  failed(login: string, ip: string): void;
  succeeded(login: string): void;
}

function createCounter(threshold: number, now: () => number) {
  const entries = new Map<string, Entry>();
  const current = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e && now() - e.last > FAILURE_WINDOW_MS && e.blockedUntil <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  return {
    blockedUntil: (key: string) => current(key)?.blockedUntil ?? 0,
    fail(key: string) {
      const e = current(key) ?? { failures: 0, last: 0, blockedUntil: 0 };
      e.failures++;
      e.last = now();
      if (e.failures >= threshold) e.blockedUntil = now() + Math.min(1000 * 2 ** Math.min(e.failures - threshold, 20), MAX_BLOCK_MS);
      entries.delete(key);
      entries.set(key, e);
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    },
    reset(key: string) {
      entries.delete(key);
    },
  };
}

export function createLoginThrottle(maxFailures: number, now: () => number = Date.now): LoginThrottle {
  const logins = createCounter(maxFailures, now);
  const ips = createCounter(maxFailures * IP_FACTOR, now);
  return {
    blockedFor(login, ip) {
      if (maxFailures <= 0) return undefined;
      const until = Math.max(logins.blockedUntil(login), ips.blockedUntil(ip));
      const wait = until - now();
      return wait > 0 ? Math.ceil(wait / 1000) : undefined;
    },
    failed(login, ip) {
      if (maxFailures <= 0) return;
      logins.fail(login);
      ips.fail(ip);
    },
    succeeded(login) {
      logins.reset(login);
    },
  };
}

/** The login of an HTTP Basic header (as users.authenticate reads it), or undefined. */
export function basicLogin(header: string | undefined): string | undefined {
  if (!header || !header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon <= 0 ? undefined : decoded.slice(0, colon);
}

/** The 429 answer to a throttled login attempt (the caller sets `Retry-After`). */
export function tooManyLogins(seconds: number): ApiError {
  return new ApiError('rest_too_many_requests', `Too many failed login attempts. Try again in ${seconds} seconds.`, 429);
}

/**
 * Authenticate through the throttle: a blocked login/IP throws the 429 error (with `retryAfter`
 * seconds), else the credentials are checked and the outcome counted.
 */
export async function throttledAuthenticate(throttle: LoginThrottle, header: string | undefined, ip: string, authenticate: (header: string | undefined) => Promise<Viewer>): Promise<Viewer> {
  const login = basicLogin(header);
  if (login === undefined) return authenticate(header);
  const wait = throttle.blockedFor(login, ip);
  if (wait !== undefined) throw Object.assign(tooManyLogins(wait), { retryAfter: wait });
  const viewer = await authenticate(header);
  if (viewer === ANONYMOUS || viewer.id <= 0) throttle.failed(login, ip);
  else throttle.succeeded(login);
  return viewer;
}
