/**
 * Sign-in sessions ("sign-in as WordPress does it"): a password check through the same
 * throttle as HTTP Basic, a random session id (256 bits) of which only a SHA-256 is stored, idle
 * and absolute expiry, revocation (one session, or all of a user's), WordPress-style nonces bound
 * to the session, and optional two-factor sign-in (TOTP, RFC 6238) with recovery codes.
 *
 * - **Same throttle, same check**: `signIn` hands `users.authenticate` the login and password as a
 *   Basic header with the request's `LoginGate`, so a refused sign-in gets the answers and delays
 *   a refused Basic request gets (429 with Retry-After, the subject's slowing); only the password
 *   counts, not application passwords (as WordPress' login form).
 * - **Kept, and dropped at once everywhere**: a checked session is kept in memory (by the hash of
 *   its id) so that a request reads no row; every change that ends or alters a session, or the
 *   user, notes the user in the change log (`user` records, store/sessions.ts, store/users.ts), and
 *   each server's change feed drops what it kept for that user before its next request.
 * - **Nonces** (`wp_create_nonce`): an HMAC-SHA256, keyed by the session id (which only the
 *   browser and this request know), of the tick (12 hours), the user and the action; valid during
 *   its tick and the next one (12 to 24 hours), as WordPress'.
 * - **TOTP**: 6 digits, 30 s, SHA-1 (what authenticator apps read), one step of drift allowed.
 *   The secret is stored encrypted (AES-256-GCM, bound to the user id, with a key derived by HKDF
 *   from SECRET_KEY, or from a key generated once and kept in the settings table when SECRET_KEY
 *   is unset: `enc:v1:` + iv, tag and ciphertext); a plain secret stored before is still read and
 *   encrypted when next used. It is never shown again once the enrolment is confirmed; ten
 *   recovery codes are shown once and stored as SHA-256 hashes. A wrong code counts as a failed
 *   login for the user (the same throttle, whose delay it waits).
 * - **Codes guessed across addresses and instances**: the second step is also capped per user in
 *   the database (store/sessions.ts): each attempt is counted before its code is checked, at most
 *   `MAX_CODE_FAILURES` (10) wrong ones, then codes are refused (429 with Retry-After) for
 *   `CODE_BLOCK_MS` (1 minute), twice as long after each further block, at most
 *   `MAX_CODE_BLOCK_MS` (1 hour), and the user's half-signed-in sessions end; a right code starts
 *   the count again. The in-memory throttle alone counts per instance and per address.
 * - **A code works once** (RFC 6238 §5.2): its time step is accepted only when later than the last
 *   one accepted (a conditional update), so a code seen over a shoulder or replayed, or sent twice
 *   at once, signs in once. The enrolment's first code takes its step too.
 *
 * @example
 *   const sessions = createSessionService(services, { idleMs: 12 * 3600e3, maxAgeMs: 14 * 86400e3, require2fa: 'off' });
 *   const signedIn = await sessions.signIn('ann', 'pw', gate, { userAgent: '', ip: '127.0.0.1' });
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Secret, TOTP } from 'otpauth';
import { writeTransaction } from '../store/changes.js';
import * as sessionsStore from '../store/sessions.js';
import * as usersStore from '../store/users.js';
import type { Store } from '../store/db.js';
import type { Executor } from '../store/schema.js';
import { ApiError } from './errors.js';
import type { Clock } from './linked-posts/index.js';
import { viewerOf, type Role, type Viewer } from './permissions.js';
import type { LoginGate, UserService } from './users.js';
import { viewerHere } from './calendars.js';
import { calendarIdNow, DEFAULT_CALENDAR_ID } from '../store/calendar-scope.js';

/** WordPress' nonce tick: half a day. */
export const NONCE_TICK_MS = 12 * 3600_000;
/** A sign-in waiting for its second step lasts this long. */
export const SECOND_STEP_MS = 10 * 60_000;
/** The last use of a session is written at most this often. */
const TOUCH_EVERY_MS = 60_000;
/** Sessions kept in memory at most. */
const MAX_KEPT = 10_000;
/** Wrong second-step codes of a user (from anywhere) before their codes are refused for a while. */
export const MAX_CODE_FAILURES = 10;
/** The first block of a user's codes, doubled with each further one, and the longest. */
export const CODE_BLOCK_MS = 60_000;
export const MAX_CODE_BLOCK_MS = 3600_000;
/** A TOTP time step (ms). */
const STEP_MS = 30_000;

/** Whether ADMIN_REQUIRE_2FA requires two-factor sign-in of this role. */
export function secondFactorRequired(require2fa: 'administrators' | 'off', role: Role | null | undefined): boolean {
  return require2fa === 'administrators' && role === 'administrator';
}

/**
 * The second step refused because the user's codes are blocked (too many wrong ones, from
 * anywhere): 429 with Retry-After; the half-signed-in session has ended.
 */
export class CodesBlocked extends ApiError {
  readonly seconds: number;

  constructor(seconds: number) {
    super('rest_too_many_requests', `Too many wrong codes. Try again in ${seconds} seconds.`, 429);
    this.seconds = seconds;
    this.headers = { 'retry-after': String(seconds) };
  }
}

export interface SessionSettings {
  /** A session unused this long ends (ms). */
  idleMs: number;
  /** A session ends this long after sign-in, used or not (ms). */
  maxAgeMs: number;
  /** `administrators`: an administrator without two-factor sign-in must enrol before the session is usable. */
  require2fa: 'administrators' | 'off';
}

/** A valid session, as a request sees it. */
export interface Session {
  id: number;
  userId: number;
  viewer: Viewer;
  /** SHA-256 (hex) of the session id */
  tokenHash: string;
  createdMs: number;
  lastUsedMs: number;
  /** false while the sign-in waits for its TOTP code: the session authenticates nothing yet */
  complete: boolean;
  /** whether the user has two-factor sign-in on */
  totp: boolean;
  /** the user must enrol in two-factor sign-in before the session authenticates anything (by their role in the calendar of the work at hand) */
  mustEnrol: boolean;
  /** "Remember me": a persistent cookie, and SESSION_IDLE does not end the session (SESSION_MAX_AGE still does) */
  remember: boolean;
}

/** A session of a user, as listed. */
export interface SessionListing {
  id: number;
  created: string;
  lastUsed: string;
  userAgent: string;
  ip: string;
  remember: boolean;
}

export type SignInResult = { token: string; session: Session } | undefined;

export interface SessionService {
  readonly settings: SessionSettings;
  /** Check a login and password (through the gate); a new session, or undefined when refused. May throw the throttle's 429. */
  signIn(login: string, password: string, gate: LoginGate, meta: { userAgent: string; ip: string; remember?: boolean }): Promise<SignInResult>;
  /** The session a cookie value names, when it is valid now (complete or not). */
  check(token: string): Promise<Session | undefined>;
  /** Whether the session may act as its user (complete, and enrolled when it must be). */
  usable(session: Session): boolean;
  /** `wp_create_nonce(action)` for this session. */
  nonce(token: string, session: Session, action: string): string;
  /** `wp_verify_nonce`: 1 (this tick), 2 (the previous one) or false. */
  verifyNonce(token: string, session: Session, nonce: string, action: string): 1 | 2 | false;
  /**
   * The second step: a TOTP code or a recovery code (through the gate, and the user's count in the
   * database). Throws the gate's 429, or `CodesBlocked` (429, the session ended) when the user's
   * codes are blocked.
   */
  secondStep(session: Session, code: string, gate: LoginGate): Promise<boolean>;
  list(userId: number): Promise<SessionListing[]>;
  /** The user a session belongs to (undefined when there is no such session). */
  ownerOf(sessionId: number): Promise<number | undefined>;
  /** End one session of a user; false when it was not theirs or is gone. */
  revoke(userId: number, sessionId: number): Promise<boolean>;
  /** End every session of a user (sign out everywhere); returns how many ended. */
  revokeAll(userId: number): Promise<number>;
  /** End every session of a user but one (sign out everywhere else); returns how many ended. */
  revokeOthers(userId: number, keepId: number): Promise<number>;
  /** Two-factor sign-in of a user: off, waiting for confirmation (with the secret), or on. */
  totpStatus(userId: number): Promise<{ state: 'off' } | { state: 'pending'; secret: string; uri: string } | { state: 'on'; recoveryLeft: number }>;
  /** Start enrolment: a new secret (not on until confirmed). */
  startTotp(userId: number, login: string): Promise<{ secret: string; uri: string }>;
  /** Confirm enrolment with a first code: the recovery codes (shown once), or undefined when the code is wrong. */
  confirmTotp(userId: number, code: string): Promise<string[] | undefined>;
  /** Turn two-factor sign-in off without a code (the CLI, for a user who lost their device and codes). */
  resetTotp(userId: number): Promise<void>;
  /** Turn two-factor sign-in off, with a current code; false when the code is wrong. */
  disableTotp(userId: number, code: string): Promise<boolean>;
}

/** One session service per services (the admin face's pages and the REST routes share it). */
const byServices = new WeakMap<object, SessionService>();

/** The session service of these services, its settings from their configuration (ADMIN_*, SESSION_*). */
export function sessionServiceOf(services: {
  store: Store;
  users: Pick<UserService, 'authenticate'>;
  clock: Clock;
  config: { siteName: string; sessionIdleMs: number; sessionMaxAgeMs: number; adminRequire2fa: 'administrators' | 'off'; secretKey?: string };
}): SessionService {
  let found = byServices.get(services);
  if (!found) {
    const { sessionIdleMs, sessionMaxAgeMs, adminRequire2fa } = services.config;
    byServices.set(services, (found = createSessionService(services, { idleMs: sessionIdleMs, maxAgeMs: sessionMaxAgeMs, require2fa: adminRequire2fa })));
  }
  return found;
}

export const sha256hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The prefix of a secret encrypted at rest. */
const SEALED = 'enc:v1:';

/** The AES-256 key of secrets at rest, from SECRET_KEY (or the generated one in the database). */
export function secretsKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'events-calendar', 'secrets at rest v1', 32));
}

/** Encrypt a secret for storage (AES-256-GCM; `context`, e.g. `totp:7`, binds it to its row). */
export function sealSecret(key: Buffer, plain: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return SEALED + [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
}

/** A stored secret in clear: decrypted when sealed, as is when stored before encryption (`plain: true`). Throws when the key or context is wrong. */
export function openSecret(key: Buffer, stored: string, context: string): { value: string; plain: boolean } {
  if (!stored.startsWith(SEALED)) return { value: stored, plain: true };
  const [iv, tag, sealed] = stored
    .slice(SEALED.length)
    .split('.')
    .map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv!);
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(tag!);
  return { value: Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8'), plain: false };
}

/** Where the key of secrets at rest comes from: SECRET_KEY, else the one generated in the database. */
export async function secretKeyText(services: { store: Store; config: { secretKey?: string } }): Promise<string> {
  return services.config.secretKey ?? (await sessionsStore.storedSecretKey(services.store.db));
}

const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const msOf = (text: string) => Date.parse(text.replace(' ', 'T') + 'Z');

/** What the session service's parts share: the store, the settings, the clock and the key of the TOTP secrets. */
interface SessionContext {
  db: Store['db'];
  settings: SessionSettings;
  siteName: string;
  nowMs(): number;
  /** A TOTP secret sealed for storage. */
  seal(userId: number, plain: string): Promise<string>;
  /** A TOTP row's secret in clear; one stored plain (before encryption) is encrypted now (best effort). */
  secretOf(row: sessionsStore.UserTotpRow): Promise<string>;
}

const totpOf = (ctx: SessionContext, secret: string, login = '') => new TOTP({ issuer: ctx.siteName, label: login, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });

/** The time step of a right code (one step of drift either way), or undefined. */
function stepOf(ctx: SessionContext, secret: string, code: string, now = ctx.nowMs()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(ctx, secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / STEP_MS) + delta;
}

/** Accept a right code once (its step later than the last accepted); the attempts' count starts again. */
function takeCode(ctx: SessionContext, trx: Executor, userId: number, secret: string, code: string): Promise<boolean> {
  const step = stepOf(ctx, secret, code);
  return step === undefined ? Promise.resolve(false) : sessionsStore.acceptCodeStep(trx, userId, step);
}

/** The session whose token has this hash, as a request sees it (undefined when it or its user is gone). */
async function readSession(ctx: SessionContext, tokenHash: string): Promise<Session | undefined> {
  const row = await sessionsStore.findSessionByHash(ctx.db, tokenHash);
  if (!row) return undefined;
  const user = await usersStore.findUserById(ctx.db, Number(row.user_id));
  if (!user) return undefined;
  const totp = await sessionsStore.findTotp(ctx.db, Number(row.user_id));
  const viewer = viewerOf({ id: Number(user.id), login: user.login, role: user.role });
  const on = totp?.confirmed_gmt != null;
  return {
    id: Number(row.id),
    userId: Number(user.id),
    viewer,
    tokenHash,
    createdMs: msOf(row.created_gmt),
    lastUsedMs: msOf(row.last_used_gmt),
    complete: Number(row.second_factor) === 1,
    totp: on,
    mustEnrol: secondFactorRequired(ctx.settings.require2fa, viewer.role) && !on,
    remember: Number(row.remember) === 1,
  };
}

const expired = (settings: SessionSettings, s: Session, now: number) =>
  now - s.createdMs >= (s.complete ? settings.maxAgeMs : SECOND_STEP_MS) || (!(s.remember && s.complete) && now - s.lastUsedMs >= settings.idleMs);

const nonceAt = (token: string, userId: number, action: string, tick: number) => createHmac('sha256', token).update(`${tick}|${userId}|${action}`).digest('hex').slice(0, 20);

/** The second step of a sign-in (`SessionService.secondStep`). */
async function secondStep(ctx: SessionContext, s: Session, code: string, gate: LoginGate): Promise<boolean> {
  const attempt = await gate.attempt(`id:${s.userId}`);
  let outcome: 'ok' | 'failed' | 'error' = 'error';
  try {
    if (attempt.delayMs > 0) await sleep(attempt.delayMs);
    const now = ctx.nowMs();
    // Counted before the check, so parallel guesses from any address or instance count at once;
    // the attempt that reaches the cap blocks the codes at once (lifted if its code is right).
    const reserved = await writeTransaction(ctx.db, async (trx) => {
      const r = await sessionsStore.reserveCodeAttempt(trx, s.userId, gmt(now), MAX_CODE_FAILURES);
      if (r === 'none' || 'blockedUntil' in r || r.count < MAX_CODE_FAILURES) return { reserved: r, blockMs: 0 };
      const blockMs = Math.min(CODE_BLOCK_MS * 2 ** Math.min(r.lockouts, 20), MAX_CODE_BLOCK_MS);
      await sessionsStore.blockCodes(trx, s.userId, gmt(now + blockMs));
      return { reserved: r, blockMs };
    });
    const r = reserved.reserved;
    if (r === 'none') {
      outcome = 'failed';
      return false;
    }
    if ('blockedUntil' in r) {
      // No code is checked while blocked; this half-signed-in session ends.
      await writeTransaction(ctx.db, (trx) => sessionsStore.deleteSession(trx, s.userId, s.id));
      const until = r.blockedUntil === '' ? now : msOf(r.blockedUntil);
      throw new CodesBlocked(Math.max(1, Math.ceil((until - now) / 1000)));
    }
    const totp = await sessionsStore.findTotp(ctx.db, s.userId);
    const clean = code.replace(/\s+/g, '');
    let ok = false;
    if (totp?.confirmed_gmt != null) {
      const secret = await ctx.secretOf(totp);
      ok = await writeTransaction(ctx.db, async (trx) => {
        let right = await takeCode(ctx, trx, s.userId, secret, clean);
        if (!right && clean.length >= 10 && (await sessionsStore.takeRecoveryCode(trx, s.userId, sha256hex(clean.toLowerCase())))) {
          await sessionsStore.resetCodeFailures(trx, s.userId);
          right = true;
        }
        if (right) await sessionsStore.completeSession(trx, s.id, s.userId);
        return right;
      });
    }
    outcome = ok ? 'ok' : 'failed';
    if (!ok && reserved.blockMs > 0) {
      // The last wrong code allowed: every session of the user waiting for a code ends too.
      await writeTransaction(ctx.db, (trx) => sessionsStore.deleteHalfSignedIn(trx, s.userId));
      throw new CodesBlocked(Math.ceil(reserved.blockMs / 1000));
    }
    return ok;
  } finally {
    await attempt.end(outcome);
  }
}

/** Two-factor sign-in's enrolment and removal (`SessionService`'s TOTP methods). */
function totpMethods(ctx: SessionContext): Pick<SessionService, 'totpStatus' | 'startTotp' | 'confirmTotp' | 'resetTotp' | 'disableTotp'> {
  return {
    async totpStatus(userId) {
      const row = await sessionsStore.findTotp(ctx.db, userId);
      if (!row) return { state: 'off' };
      if (row.confirmed_gmt == null) {
        const user = await usersStore.findUserById(ctx.db, userId);
        const secret = await ctx.secretOf(row);
        return { state: 'pending', secret, uri: totpOf(ctx, secret, user?.login ?? '').toString() };
      }
      return { state: 'on', recoveryLeft: (JSON.parse(row.recovery_hashes) as string[]).length };
    },

    async startTotp(userId, login) {
      const secret = new Secret({ size: 20 }).base32;
      const sealed = await ctx.seal(userId, secret);
      await writeTransaction(ctx.db, (trx) => sessionsStore.putTotp(trx, userId, sealed));
      return { secret, uri: totpOf(ctx, secret, login).toString() };
    },

    async confirmTotp(userId, code) {
      const row = await sessionsStore.findTotp(ctx.db, userId);
      const now = ctx.nowMs();
      const step = row ? stepOf(ctx, await ctx.secretOf(row), code.replace(/\s+/g, ''), now) : undefined;
      if (!row || row.confirmed_gmt != null || step === undefined) return undefined;
      const codes = Array.from({ length: 10 }, () => randomBytes(8).toString('hex').toLowerCase());
      await writeTransaction(ctx.db, (trx) => sessionsStore.confirmTotp(trx, userId, gmt(now), codes.map(sha256hex), step));
      return codes;
    },

    resetTotp: (userId) => writeTransaction(ctx.db, (trx) => sessionsStore.deleteTotp(trx, userId)),

    async disableTotp(userId, code) {
      const row = await sessionsStore.findTotp(ctx.db, userId);
      if (!row) return true;
      const secret = row.confirmed_gmt != null ? await ctx.secretOf(row) : undefined;
      return writeTransaction(ctx.db, async (trx) => {
        if (secret !== undefined && !(await takeCode(ctx, trx, userId, secret, code.replace(/\s+/g, '')))) return false;
        await sessionsStore.deleteTotp(trx, userId);
        return true;
      });
    },
  };
}

export function createSessionService(
  services: { store: Store; users: Pick<UserService, 'authenticate'>; clock: Clock; config: { siteName: string; secretKey?: string } },
  settings: SessionSettings,
): SessionService {
  const db = services.store.db;
  let keyMade: Promise<Buffer> | undefined;
  const keyOf = () => (keyMade ??= secretKeyText(services).then(secretsKey, (err: unknown) => ((keyMade = undefined), Promise.reject(err as Error))));
  const seal = async (userId: number, plain: string) => sealSecret(await keyOf(), plain, `totp:${userId}`);
  const secretOf = async (row: sessionsStore.UserTotpRow): Promise<string> => {
    const userId = Number(row.user_id);
    const { value, plain } = openSecret(await keyOf(), row.secret, `totp:${userId}`);
    if (plain) await sessionsStore.replaceTotpSecret(db, userId, row.secret, await seal(userId, value)).catch(() => {});
    return value;
  };
  const nowMs = () => Date.parse(services.clock.nowGmt().replace(' ', 'T') + 'Z');
  const ctx: SessionContext = { db, settings, siteName: services.config.siteName, nowMs, seal, secretOf };

  const feed = services.store.feed;
  const kept = new Map<string, Session>();
  feed.subscribe((batch) => {
    if (batch.reset) return kept.clear();
    if (batch.users.size === 0 || kept.size === 0) return;
    for (const [key, s] of kept) if (batch.users.has(s.userId)) kept.delete(key);
  });

  return {
    settings,

    async signIn(login, password, gate, meta) {
      if (login === '' || login.includes(':')) return undefined;
      const header = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
      const viewer = await services.users.authenticate(header, gate, { passwordOnly: true });
      if (viewer.id <= 0) return undefined;
      const totp = await sessionsStore.findTotp(db, viewer.id);
      const token = randomBytes(32).toString('base64url');
      const tokenHash = sha256hex(token);
      const created = gmt(nowMs());
      await sessionsStore.insertSession(db, {
        user_id: viewer.id,
        token_hash: tokenHash,
        created_gmt: created,
        second_factor: totp?.confirmed_gmt != null ? 0 : 1,
        user_agent: meta.userAgent.slice(0, 200),
        ip: meta.ip.slice(0, 64),
        remember: meta.remember ? 1 : 0,
      });
      // Sessions past their expiry are refused already; their rows go now and then (here: at sign-in).
      const now = nowMs();
      await sessionsStore.deleteExpiredSessions(db, gmt(now - settings.maxAgeMs), gmt(now - settings.idleMs)).catch(() => 0);
      const session = await readSession(ctx, tokenHash);
      return session ? { token, session } : undefined;
    },

    async check(token) {
      if (token.length < 20 || token.length > 100) return undefined;
      const tokenHash = sha256hex(token);
      const seq = await feed.sync();
      const now = nowMs();
      let s = kept.get(tokenHash);
      // What was kept may be behind another instance's use of the session: read it again before refusing.
      if (s && expired(settings, s, now)) s = undefined;
      if (!s) {
        s = await readSession(ctx, tokenHash);
        if (!s || expired(settings, s, now)) {
          kept.delete(tokenHash);
          return undefined;
        }
        if (feed.seq() === seq) {
          if (kept.size >= MAX_KEPT) kept.clear();
          kept.set(tokenHash, s);
        }
      }
      if (now - s.lastUsedMs >= TOUCH_EVERY_MS) {
        s.lastUsedMs = now;
        // Best effort: a database that cannot be written to right now must not refuse the request.
        void sessionsStore.touchSession(db, s.id, gmt(now)).catch(() => {});
      }
      // One sign-in across the service; its role is the calendar's of the work at hand.
      if (calendarIdNow() !== DEFAULT_CALENDAR_ID) {
        const viewer = await viewerHere(db, s.viewer);
        // ADMIN_REQUIRE_2FA holds by the role here, as over Basic (web/authentication.ts): an
        // administrator of this calendar only (a subscriber of the default one) must enrol before
        // the session acts here; what `readSession` found holds for the default calendar's role.
        return { ...s, viewer, mustEnrol: secondFactorRequired(settings.require2fa, viewer.role) && !s.totp };
      }
      return s;
    },

    usable: (s) => s.complete && !s.mustEnrol,

    nonce: (token, s, action) => nonceAt(token, s.userId, action, Math.ceil(nowMs() / NONCE_TICK_MS)),

    verifyNonce(token, s, nonce, action) {
      const tick = Math.ceil(nowMs() / NONCE_TICK_MS);
      const given = Buffer.from(nonce);
      for (const [age, t] of [
        [1, tick],
        [2, tick - 1],
      ] as const) {
        const expected = Buffer.from(nonceAt(token, s.userId, action, t));
        if (given.length === expected.length && timingSafeEqual(given, expected)) return age;
      }
      return false;
    },

    secondStep: (s, code, gate) => secondStep(ctx, s, code, gate),

    async list(userId) {
      return (await sessionsStore.sessionsOf(db, userId)).map((r) => ({
        id: Number(r.id),
        created: r.created_gmt,
        lastUsed: r.last_used_gmt,
        userAgent: r.user_agent,
        ip: r.ip,
        remember: Number(r.remember) === 1,
      }));
    },

    async ownerOf(sessionId) {
      const row = await sessionsStore.findSessionById(db, sessionId);
      return row ? Number(row.user_id) : undefined;
    },

    revoke: (userId, sessionId) => writeTransaction(db, (trx) => sessionsStore.deleteSession(trx, userId, sessionId)),

    revokeAll: (userId) => writeTransaction(db, (trx) => sessionsStore.deleteSessionsOf(trx, userId)),

    revokeOthers: (userId, keepId) => writeTransaction(db, (trx) => sessionsStore.deleteSessionsOf(trx, userId, keepId)),

    ...totpMethods(ctx),
  };
}
