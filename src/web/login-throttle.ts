/**
 * The failed-login throttle (docs/security.md "Login throttling"). Bad credentials make a request anonymous
 * (the original's behaviour, kept), and every password check goes through this throttle: the only
 * callers of `users.authenticate` over HTTP are the REST face's credential hook (http/register.ts, through authentication.ts) and the admin face's
 * sign-in (one throttle per app instance, `loginThrottleOf`), which hand it the gate of the request's client (`forClient`).
 *
 * Who is counted:
 * - the **subject**: the user the login or e-mail names (`id:<n>`, so a login and its e-mail share
 *   one count), or `login:<lowercased login>` when it names nobody (users.ts `subjectOf`);
 * - the **client**: the IP address, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64 prefix
 *   (`clientKeyOf`: one host holds a whole /64, so rotating within it is the same client).
 *
 * The policy, with N = `LOGIN_MAX_FAILURES` (0 turns all of it off), failures forgotten 15 minutes
 * after the last one:
 * - **blocked per (subject, client)**: after N failures, attempts for that subject from that client
 *   are answered 429 without checking the password, for 1 s, then 2 s, 4 s, … doubling with each
 *   further failure, up to 15 minutes; a success from that client resets the pair;
 * - **blocked per client**: after 4 N failures from one client (any subjects), likewise for every
 *   subject from that client (a success does not reset it);
 * - **slowed per subject**: once a subject has N failures from all clients together, each password
 *   check for it (from any client, right or wrong) first waits 250 ms, doubling with each further
 *   failure, at most 4 s; it is never refused for this reason, so a stranger cannot lock a user out;
 *   a header already known to be right (users.ts remembers successes) is answered without waiting.
 * Attempts in flight count as failures until they end (at most N − failures checks of a pair, or one
 * once it reached N, run at once; 4 N likewise per client), so parallel guesses get no more than
 * sequential ones; identical headers in flight share one check (users.ts).
 *
 * State is per app instance, in memory, bounded: at most 10,000 entries per kind (pairs, clients,
 * subjects), the least recently failed dropped beyond that.
 *
 * @example
 *   const throttle = createLoginThrottle(5);
 *   await users.authenticate(header, throttle.forClient(req.ip)); // may throw the 429
 */
import { clientKeyOf } from '../domain/client-address.js';
import { ApiError } from '../domain/errors.js';
import type { LoginAttempt, LoginGate } from '../domain/users.js';

/** Failures are forgotten this long after the last one. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** The longest an attempt is refused for. */
export const MAX_BLOCK_MS = 15 * 60_000;
/** The per-client threshold is this many times the per-pair one. */
export const CLIENT_FACTOR = 4;
/** The first wait of a slowed subject, and the longest. */
export const SUBJECT_DELAY_MS = 250;
export const MAX_SUBJECT_DELAY_MS = 4000;
/** Entries kept per kind (pairs, clients, subjects). */
export const MAX_ENTRIES = 10_000;

/** The client's key (IPv4, or IPv6 by its /64) is the domain's, shared with the submission limits. */
export { clientKeyOf };

interface Entry {
  failures: number;
  /** attempts being checked now */
  pending: number;
  last: number;
  blockedUntil: number;
}

/** Failures per key, blocking from `threshold` on; bounded (least recently failed dropped). */
function createCounter(threshold: number, now: () => number) {
  const entries = new Map<string, Entry>();
  const current = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e && e.pending === 0 && now() - e.last > FAILURE_WINDOW_MS && e.blockedUntil <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  const keep = (key: string, e: Entry) => {
    entries.delete(key);
    entries.set(key, e);
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  };
  return {
    /** Milliseconds this key is refused for now (0: allowed). In-flight attempts count as failures. */
    refusedFor(key: string): number {
      const e = current(key);
      if (!e) return 0;
      if (e.blockedUntil > now()) return e.blockedUntil - now();
      // Below the threshold, the failures still allowed may run at once; past it, one at a time.
      return e.pending >= Math.max(threshold - e.failures, 1) ? 1000 : 0;
    },
    /** Count an attempt in flight; the returned function ends it (failed or not). */
    reserve(key: string): (failed: boolean) => void {
      const e = current(key) ?? { failures: 0, pending: 0, last: now(), blockedUntil: 0 };
      e.pending++;
      keep(key, e);
      return (failed) => {
        e.pending--;
        if (!failed) return;
        e.failures++;
        e.last = now();
        if (e.failures >= threshold) e.blockedUntil = now() + Math.min(1000 * 2 ** Math.min(e.failures - threshold, 20), MAX_BLOCK_MS);
        keep(key, e);
      };
    },
    /** Forget the failures (not the attempts in flight). */
    reset(key: string) {
      const e = entries.get(key);
      if (!e) return;
      if (e.pending === 0) entries.delete(key);
      else Object.assign(e, { failures: 0, blockedUntil: 0 });
    },
    failuresOf: (key: string) => current(key)?.failures ?? 0,
    get size() {
      return entries.size;
    },
  };
}

export interface LoginThrottle {
  /** The gate `users.authenticate` goes through for one client IP address. */
  forClient(ip: string): LoginGate;
  /** Seconds until this client may try this subject again; undefined when it may now. */
  blockedFor(subject: string, client: string): number | undefined;
  /** Entries kept, per kind (each at most MAX_ENTRIES). */
  sizes(): { pairs: number; clients: number; subjects: number };
}

/** The 429 answer to a throttled login attempt, with `Retry-After`. */
export function tooManyLogins(seconds: number): ApiError {
  const error = new ApiError('rest_too_many_requests', `Too many failed login attempts. Try again in ${seconds} seconds.`, 429);
  error.headers = { 'retry-after': String(seconds) };
  return error;
}

/** How long a check for a subject with this many failures (from all clients) waits first. */
export function subjectDelayMs(failures: number, maxFailures: number): number {
  if (maxFailures <= 0 || failures < maxFailures) return 0;
  return Math.min(SUBJECT_DELAY_MS * 2 ** Math.min(failures - maxFailures, 10), MAX_SUBJECT_DELAY_MS);
}

export function createLoginThrottle(maxFailures: number, now: () => number = Date.now): LoginThrottle {
  const pairs = createCounter(maxFailures, now);
  const clients = createCounter(maxFailures * CLIENT_FACTOR, now);
  // Subjects are never blocked: the threshold only starts their backoff bookkeeping.
  const subjects = createCounter(Number.MAX_SAFE_INTEGER, now);
  const pairKey = (subject: string, client: string) => `${subject}\n${client}`;
  const refusedFor = (subject: string, client: string) => Math.max(pairs.refusedFor(pairKey(subject, client)), clients.refusedFor(client));

  return {
    forClient(ip) {
      const client = clientKeyOf(ip);
      return {
        client,
        attempt(subject): LoginAttempt {
          if (maxFailures <= 0) return { delayMs: 0, end() {} };
          const wait = refusedFor(subject, client);
          if (wait > 0) throw tooManyLogins(Math.ceil(wait / 1000));
          const endPair = pairs.reserve(pairKey(subject, client));
          const endClient = clients.reserve(client);
          const endSubject = subjects.reserve(subject);
          let ended = false;
          return {
            delayMs: subjectDelayMs(subjects.failuresOf(subject), maxFailures),
            end(outcome) {
              if (ended) return;
              ended = true;
              const failed = outcome === 'failed';
              endPair(failed);
              endClient(failed);
              endSubject(failed);
              if (outcome === 'ok') pairs.reset(pairKey(subject, client));
            },
          };
        },
      };
    },
    blockedFor(subject, client) {
      const wait = maxFailures <= 0 ? 0 : refusedFor(subject, client);
      return wait > 0 ? Math.ceil(wait / 1000) : undefined;
    },
    sizes: () => ({ pairs: pairs.size, clients: clients.size, subjects: subjects.size }),
  };
}
