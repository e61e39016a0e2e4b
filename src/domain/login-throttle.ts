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
 * The counts are in the database (table `login_failures`, store/shared-limits.ts), so they hold
 * across every instance on it: an attempt is reserved on its pair, client and subject rows in one
 * transaction of conditional upserts before the password is checked (refused when a row says so),
 * and ended by one update per row (a failure counted, or the reservation released). A reservation
 * is trusted for `ATTEMPT_LEASE_MS`, so an instance stopped in the middle of a check does not
 * leave it counted longer. A header already known to be right costs a read (the pair's and the
 * client's rows; the checks of one turn of the event loop read together), no write. Rows past their window are deleted by the `shared-limits-pruning` job.
 *
 * @example
 *   const throttle = createLoginThrottle(store.db, 5);
 *   await users.authenticate(header, throttle.forClient(req.ip)); // may throw the 429
 */
import { createHash } from 'node:crypto';
import { clientKeyOf } from './client-address.js';
import { ApiError } from './errors.js';
import type { LoginAttempt, LoginGate } from './users.js';
import type { Executor } from '../store/schema.js';
import { endLoginAttempt, loginWaitMs, readLoginCounts, reserveLoginAttempt, resetLoginCount, type LoginCounter, type LoginFailureRow, type LoginPolicy } from '../store/shared-limits.js';

/** Failures are forgotten this long after the last one. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** The longest an attempt is refused for. */
export const MAX_BLOCK_MS = 15 * 60_000;
/** The per-client threshold is this many times the per-pair one. */
export const CLIENT_FACTOR = 4;
/** The first wait of a slowed subject, and the longest. */
export const SUBJECT_DELAY_MS = 250;
export const MAX_SUBJECT_DELAY_MS = 4000;
/** How long an attempt in flight counts (a check takes at most the subject's delay and a few scrypt runs). */
export const ATTEMPT_LEASE_MS = 60_000;

/** The client's key (IPv4, or IPv6 by its /64) is the domain's, shared with the submission limits. */
export { clientKeyOf };

/** How long a key with this many failures (at least `threshold`) is refused: 1 s, doubling, at most 15 minutes. */
export function blockMs(failures: number, threshold: number): number {
  return Math.min(1000 * 2 ** Math.min(failures - threshold, 20), MAX_BLOCK_MS);
}

const POLICY: LoginPolicy = { windowMs: FAILURE_WINDOW_MS, leaseMs: ATTEMPT_LEASE_MS, blockMs };

export interface LoginThrottle {
  /** The gate `users.authenticate` goes through for one client IP address. */
  forClient(ip: string): LoginGate;
  /** Seconds until this client may try this subject again; undefined when it may now. */
  blockedFor(subject: string, client: string): Promise<number | undefined>;
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

/** A subject as a key: an unknown login may hold a NUL byte, which PostgreSQL text refuses. */
function subjectKey(subject: string): string {
  return subject.includes('\u0000') ? `#${createHash('sha256').update(subject).digest('hex')}` : subject;
}

/** The rows an attempt counts on, in the order they are locked: the pair, the client, the subject. */
function countersOf(subject: string, client: string, maxFailures: number): [LoginCounter, LoginCounter, LoginCounter] {
  const s = subjectKey(subject);
  return [
    { key: `p:${s}\n${client}`, threshold: maxFailures },
    { key: `c:${client}`, threshold: maxFailures * CLIENT_FACTOR },
    // Subjects are never refused: their failures only slow their checks.
    { key: `s:${s}` },
  ];
}

/** Keys read in one statement at most. */
const MAX_BATCH = 500;

export function createLoginThrottle(db: Executor, maxFailures: number, now: () => number = Date.now): LoginThrottle {
  // Checks of remembered headers asked during one turn of the event loop share one read (an
  // authenticated request's only cost here), as the change feed's looks do.
  let batch: { keys: Set<string>; rows: Promise<Map<string, LoginFailureRow>> } | undefined;
  const readBatched = (keys: string[]): Promise<Map<string, LoginFailureRow>> => {
    if (!batch || batch.keys.size + keys.length > MAX_BATCH) {
      const next = { keys: new Set<string>(), rows: undefined as unknown as Promise<Map<string, LoginFailureRow>> };
      next.rows = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        if (batch === next) batch = undefined;
        return readLoginCounts(db, [...next.keys]);
      });
      batch = next;
    }
    for (const key of keys) batch.keys.add(key);
    return batch.rows;
  };

  /** Milliseconds this client is refused this subject for now, read from the pair's and the client's rows. */
  async function refusedFor(subject: string, client: string): Promise<{ waitMs: number; pairFailures: number; pairKey: string }> {
    const [pair, byClient] = countersOf(subject, client, maxFailures);
    const rows = await readBatched([pair.key, byClient.key]);
    const at = now();
    const pairRow = rows.get(pair.key);
    const waitMs = Math.max(loginWaitMs(pairRow, pair.threshold!, at, FAILURE_WINDOW_MS), loginWaitMs(rows.get(byClient.key), byClient.threshold!, at, FAILURE_WINDOW_MS));
    return { waitMs, pairFailures: pairRow && Number(pairRow.last_ms) >= at - FAILURE_WINDOW_MS ? pairRow.failures : 0, pairKey: pair.key };
  }

  return {
    forClient(ip) {
      const client = clientKeyOf(ip);
      return {
        client,
        async attempt(subject): Promise<LoginAttempt> {
          if (maxFailures <= 0) return { delayMs: 0, async end() {} };
          const counters = countersOf(subject, client, maxFailures);
          const reserved = await reserveLoginAttempt(db, counters, now(), POLICY);
          if ('refusedMs' in reserved) throw tooManyLogins(Math.ceil(reserved.refusedMs / 1000));
          let ended = false;
          return {
            delayMs: subjectDelayMs(reserved.failures[2]!, maxFailures),
            async end(outcome) {
              if (ended) return;
              ended = true;
              // A success from the client resets the pair (not the client's count, nor the subject's).
              await endLoginAttempt(db, counters, { failed: outcome === 'failed', reset: outcome === 'ok' ? [counters[0].key] : [] }, now(), POLICY);
            },
          };
        },
        async known(subject) {
          if (maxFailures <= 0) return;
          const { waitMs, pairFailures, pairKey } = await refusedFor(subject, client);
          if (waitMs > 0) throw tooManyLogins(Math.ceil(waitMs / 1000));
          if (pairFailures > 0) await resetLoginCount(db, pairKey);
        },
      };
    },
    async blockedFor(subject, client) {
      if (maxFailures <= 0) return undefined;
      const { waitMs } = await refusedFor(subject, client);
      return waitMs > 0 ? Math.ceil(waitMs / 1000) : undefined;
    },
  };
}
