/**
 * Users, application passwords and authentication (HTTP Basic with a user's password or one of
 * their application passwords, COMPAT decision 10).
 *
 * Passwords are hashed with scrypt (memory-hard, from Node's own crypto; N=2^15, r=8, p=1,
 * 32 MiB). Verifying a hash on every request would cap throughput at a few dozen requests per
 * second, so a successful verification is remembered in memory under a key derived from the
 * *stored hash* and a SHA-256 of the presented password. Who a header authenticates is kept too
 * (by a SHA-256 of the header), so an authenticated request reads no user row: every write to a
 * user or their application passwords notes the user in the change log, and each server's change
 * feed drops what it kept for that user before the next request is answered. A password change, a
 * revoked application password or a removed user stops matching at once, also when the change
 * was made by the CLI in another process or on another instance (plain SQL needs `events-calendar
 * refresh`, as for any record).
 *
 * Failed checks cost the same whether the login exists or not, and whether the user has a
 * password (imported authors have none), so timing does not tell which logins exist: an unknown
 * login, or a user without a password, is verified against a dummy hash with the same scrypt
 * parameters (once for the password, and once more when the password has the shape of an
 * application password, as for a user with one application password). Only successes are
 * remembered, so a repeated failure is never cheap. (A user with several application passwords
 * still costs one verification per application password, as in WordPress.)
 *
 * Over HTTP every check goes through the failed-login throttle (`domain/login-throttle.ts`), given
 * as a `LoginGate`: it sees the subject (the user the login or e-mail names, so both share one
 * count, or the unknown login) before any password is verified, may refuse (429) or make the
 * check wait, and hears the outcome. Identical headers from one client checked at the same time
 * share one verification (one guess, one count, one scrypt).
 *
 * @example
 *   const users = createUserService(store);
 *   await users.add({ login: 'ann', role: 'editor', password: 's3cret' });
 *   const viewer = await users.authenticate('Basic ' + btoa('ann:s3cret'));
 */
import { fitsInteger } from '../store/ranges.js';
import { createHash, randomBytes, randomUUID, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Store } from '../store/db.js';
import type { Executor, UserRow } from '../store/schema.js';
import { writeTransaction } from '../store/changes.js';
import { keptCountersOf, registerKept } from '../metrics.js';
import * as usersStore from '../store/users.js';
import { deleteSessionsOf, findTotp } from '../store/sessions.js';
import { countAdministrators, lockAdministrators } from '../store/user-admin.js';
import { isEmail } from './email-address.js';
import { isSystemLogin } from './system-accounts.js';
import { ANONYMOUS, isRole, viewerOf, type Role, type Viewer } from './permissions.js';
import { viewerHere } from './calendars.js';
import { calendarIdNow, DEFAULT_CALENDAR_ID } from '../store/calendar-scope.js';

const scrypt = promisify(scryptCb) as (pw: string | Buffer, salt: Buffer, keylen: number, opts: object) => Promise<Buffer>;
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Hash a password: `scrypt$N$r$p$salt$hash` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * A hash no password matches in practice (random hash, fixed salt), with the parameters of real
 * ones: verifying against it costs what verifying against a user's hash costs.
 */
const DUMMY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64')}$${randomBytes(32).toString('base64')}`;

/** Application passwords are 24 letters and digits (spaces removed); nothing else is checked against them. */
const APP_PASSWORD_SHAPE = /^[A-Za-z0-9]{24}$/;

export { isEmail };

/** Password verifications run (scrypt work), for tests and diagnosis: a failure must never be cheap. */
export const passwordWork = { verifications: 0 };

/**
 * Check a password against a stored hash. A stored hash that is no scrypt hash (a user without a
 * password: empty) matches nothing, after the work of a real check (against the dummy hash).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await verifyPassword(password, DUMMY_HASH);
    return false;
  }
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  passwordWork.verifications++;
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Raised by user operations with a message meant for the CLI user. */
export class UserError extends Error {}

/** An operation refused in the current state (a user who still owns records): the CLI exits 1. */
export class UserRefusal extends UserError {}

/** A login, password or application password refused because the account is (or would be) one of the service's own (domain/system-accounts.ts). */
export class ReservedLogin extends UserError {}

/**
 * The longest display name the users table holds (migration 001: varchar(250)). Its other
 * limited columns have their rules: a login of 1 to 60 characters (`add`), an e-mail address of
 * at most 100 (`isEmail`); the role is one of five; hashes are made here.
 */
export const DISPLAY_NAME_MAX = 250;

function nowGmt(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

/** A new application password in WordPress' format: 24 characters shown in groups of four. */
function generateAppPassword(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = randomBytes(24);
  let out = '';
  for (let i = 0; i < 24; i++) out += alphabet[bytes[i] % alphabet.length];
  return out.replace(/(.{4})(?!$)/g, '$1 ');
}

function refuseIfOwning(login: string, owned: usersStore.OwnedCounts): void {
  const total = owned.events + owned.venues + owned.organizers + owned.images;
  if (total === 0) return;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts = [plural(owned.events, 'event', 'events'), plural(owned.venues, 'venue', 'venues'), plural(owned.organizers, 'organizer', 'organizers'), plural(owned.images, 'image', 'images')];
  throw new UserRefusal(`${login} is the author of ${total} record${total === 1 ? '' : 's'} (${parts.join(', ')}): give --reassign LOGIN to move them to another user`);
}

/** One password check let through by the throttle. */
export interface LoginAttempt {
  /** Wait this long before verifying the password. */
  delayMs: number;
  /** The outcome: `error` when the check itself failed (a database fault): neither success nor failure. */
  end(outcome: 'ok' | 'failed' | 'error'): Promise<void>;
}

/** The failed-login throttle for one client, as `authenticate` sees it (`domain/login-throttle.ts`). */
export interface LoginGate {
  /** The client's key (one per IPv4 address or IPv6 /64). */
  readonly client: string;
  /** Before a check for this subject: throws (429) when this client may not try it now. */
  attempt(subject: string): Promise<LoginAttempt>;
  /** A header already known to be right for this subject: throws (429) while this client is refused it; a success otherwise. */
  known(subject: string): Promise<void>;
}

/**
 * The subject a login attempt counts against: `id:<n>` for the user a login (or e-mail) names,
 * `login:<lowercased login>` for a login naming nobody (long ones by a SHA-256).
 */
export function subjectOf(user: { id: number | string } | undefined, login: string): string {
  if (user) return `id:${Number(user.id)}`;
  const lower = login.toLowerCase();
  return lower.length <= 100 ? `login:${lower}` : `login:#${createHash('sha256').update(lower).digest('hex')}`;
}

/** What an Authorization header proved: who, with which credential, and whether that user signs in with two factors. */
export interface Identified {
  /** anonymous when the header proved nobody */
  viewer: Viewer;
  /** the credential that matched: the account's password or one of its application passwords */
  credential?: 'password' | 'application-password';
  /** the user has two-factor sign-in (TOTP) on, confirmed */
  twoFactor: boolean;
}

export interface UserService {
  /**
   * The viewer for an Authorization header; anonymous when absent or wrong. With a gate (the
   * failed-login throttle of the request's client), the check goes through it and may throw its 429.
   * `passwordOnly`: the user's password alone, not application passwords (the admin face's sign-in).
   * Over HTTP a header is checked by `web/authentication.ts` (through `identify`), which also
   * applies the two-factor rule; this is the check alone (sign-in's first step, in-process callers).
   */
  authenticate(header: string | undefined, gate?: LoginGate, options?: { passwordOnly?: boolean }): Promise<Viewer>;
  /** `authenticate`, also saying which credential matched and whether the user has two-factor sign-in on. */
  identify(header: string | undefined, gate?: LoginGate): Promise<Identified>;
  /**
   * `noPassword`: a user nobody can log in as until `users set-password` (imported authors);
   * `password` is then ignored. The service's own accounts' logins are refused (`ReservedLogin`)
   * but to the service itself making one (`system`, domain/system-accounts.ts).
   */
  add(input: { login: string; role: string; password: string; email?: string; name?: string; noPassword?: boolean; system?: boolean }): Promise<UserRow>;
  list(): Promise<UserRow[]>;
  /**
   * A new password, and the user's sign-in sessions ended in the same transaction, but
   * `keepSession` (the caller's own, when users change their own password). Application passwords
   * stay. Returns how many sessions ended.
   */
  setPassword(login: string, password: string, options?: { keepSession?: number }): Promise<{ sessionsEnded: number }>;
  /** `keepAnAdministrator`: refuse (`LastAdministrator`) to take the role from the only administrator, checked and written as one locked step. */
  setRole(login: string, role: string, options?: { keepAnAdministrator?: boolean }): Promise<void>;
  /**
   * Delete a user and their application passwords. A user who authored records is refused
   * (`UserRefusal`) unless `reassignTo` names the user who becomes their author (in the same
   * transaction). Returns how many records moved. `keepAnAdministrator` as for `setRole`.
   */
  remove(login: string, options?: { reassignTo?: string; keepAnAdministrator?: boolean }): Promise<{ reassigned: number }>;
  /** Create an application password; returns the plain password (shown once). */
  addAppPassword(login: string, name: string): Promise<{ uuid: string; password: string }>;
  listAppPasswords(login: string): Promise<Array<{ uuid: string; name: string; created: string; lastUsed: string | null }>>;
  revokeAppPassword(login: string, uuidOrName: string): Promise<void>;
  /** Make sure an administrator with these credentials exists (created, or its password reset). */
  /** `email`: given to the administrator when they have none (CALENDAR_ADMIN_EMAIL). */
  ensureAdmin(login: string, password: string, email?: string): Promise<'created' | 'updated' | 'unchanged'>;
  exists(id: number): Promise<boolean>;
}

/** A header that authenticated someone, kept by `authenticate`. */
interface AuthenticatedEntry {
  viewer: Viewer;
  userId: number;
  /** the application password it matched (its last use is written at most once a minute), and the one calendar it may be used in */
  app?: { id: number; lastUsed: string | null; calendar: number | null };
  /** the user has two-factor sign-in on (a change to it notes the user in the change log, which drops this entry) */
  twoFactor: boolean;
}

/** What an entry (or its absence) proved. */
const identifiedBy = (found: { viewer: Viewer; entry?: AuthenticatedEntry }): Identified & { appCalendar?: number | null } =>
  found.entry
    ? { viewer: found.viewer, credential: found.entry.app ? 'application-password' : 'password', twoFactor: found.entry.twoFactor, appCalendar: found.entry.app?.calendar ?? null }
    : { viewer: found.viewer, twoFactor: false };

export function createUserService(store: Store): UserService {
  const db = store.db;
  /** key: stored hash + sha256(password) → true. Bounded. */
  const verified = new Map<string, true>();
  registerKept(db, 'verified_passwords', { entries: () => verified.size, maxEntries: 10_001 });
  const rememberVerified = (key: string) => {
    if (verified.size > 10_000) verified.clear();
    verified.set(key, true);
  };
  const digest = (password: string) => createHash('sha256').update(password).digest('base64');

  async function check(password: string, storedHash: string): Promise<boolean> {
    const key = storedHash + '|' + digest(password);
    if (verified.has(key)) return true;
    const ok = await verifyPassword(password, storedHash);
    if (ok) rememberVerified(key);
    return ok;
  }

  /**
   * Who an Authorization header authenticated, by a SHA-256 of the header (never the header
   * itself), so that a request does not read the user and their application passwords again. Kept
   * until the change log names the user (a password, role or application password changed, the
   * user was removed: `store/users.ts` notes each, also when the CLI writes from another process)
   * or the feed resets. Only successes are kept: a failure always costs its verification.
   */
  const feed = store.feed;
  const authenticated = new Map<string, AuthenticatedEntry>();
  registerKept(db, 'viewers', { entries: () => authenticated.size, maxEntries: 10_000 });
  feed.subscribe((batch) => {
    if (batch.reset) return authenticated.clear();
    if (batch.users.size === 0 || authenticated.size === 0) return;
    for (const [key, entry] of authenticated) if (batch.users.has(entry.userId)) authenticated.delete(key);
  });

  /** Remember when an application password was last used (shown by `app-passwords list`), at most once a minute. */
  function touchLater(app: { id: number; lastUsed: string | null }): void {
    const now = nowGmt();
    if (app.lastUsed !== null && app.lastUsed.slice(0, 16) === now.slice(0, 16)) return;
    app.lastUsed = now;
    // Best effort: a database that cannot be written to right now (busy, read-only, full) must not
    // turn a read into a failure.
    void usersStore.touchAppPassword(db, app.id, now).catch(() => {});
  }

  /** Check the header against the database (through the gate): the viewer, and what to keep when it authenticated someone. */
  async function authenticateNow(header: string, gate: LoginGate | undefined, passwordOnly = false): Promise<{ viewer: Viewer; entry?: AuthenticatedEntry }> {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return { viewer: ANONYMOUS };
    const login = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    // A login with a NUL byte names no user (and PostgreSQL refuses NUL in text): unknown.
    const user = login.includes('\u0000') ? undefined : ((await usersStore.findUserByLogin(db, login)) ?? (login.includes('@') ? await usersStore.findUserByEmail(db, login) : undefined));
    const attempt = await gate?.attempt(subjectOf(user, login));
    let outcome: 'ok' | 'failed' | 'error' = 'error';
    try {
      if (attempt && attempt.delayMs > 0) await sleep(attempt.delayMs);
      const found = await verify(user, password, passwordOnly);
      outcome = found.entry ? 'ok' : 'failed';
      return found;
    } finally {
      await attempt?.end(outcome);
    }
  }

  /** The password check proper: the same scrypt work for an unknown login, a user without a password, and a wrong password. */
  async function verify(user: UserRow | undefined, password: string, passwordOnly: boolean): Promise<{ viewer: Viewer; entry?: AuthenticatedEntry }> {
    // Application passwords are sent with or without their spaces.
    const appPassword = password.replace(/\s+/g, '');
    const appShaped = !passwordOnly && APP_PASSWORD_SHAPE.test(appPassword);
    if (!user) {
      // Cost what a failure for an existing login (with one application password) costs.
      await verifyPassword(password, DUMMY_HASH);
      if (appShaped) {
        // The same reads too (no user has id 0).
        await usersStore.appPasswordsOf(db, 0);
        await verifyPassword(appPassword, DUMMY_HASH);
      }
      return { viewer: ANONYMOUS };
    }
    // A user without a password (an empty hash) costs the same: verifyPassword checks the dummy hash.
    if (await check(password, user.password_hash)) {
      const viewer = viewerOf(user);
      // Whether a second factor guards this password (web/authentication.ts refuses it over Basic then).
      const twoFactor = (await findTotp(db, Number(user.id)))?.confirmed_gmt != null;
      return { viewer, entry: { viewer, userId: Number(user.id), twoFactor } };
    }
    if (!appShaped) return { viewer: ANONYMOUS };
    const apps = await usersStore.appPasswordsOf(db, user.id);
    if (apps.length === 0) await verifyPassword(appPassword, DUMMY_HASH);
    for (const app of apps) {
      if (!(await check(appPassword, app.password_hash))) continue;
      const used = { id: Number(app.id), lastUsed: app.last_used_gmt, calendar: app.calendar_id == null ? null : Number(app.calendar_id) };
      touchLater(used);
      const viewer = viewerOf(user);
      return { viewer, entry: { viewer, userId: Number(user.id), app: used, twoFactor: false } };
    }
    return { viewer: ANONYMOUS };
  }

  /** Checks under way, by header digest and client: identical ones share the first's outcome. */
  const inFlight = new Map<string, Promise<{ viewer: Viewer; entry?: AuthenticatedEntry }>>();
  function authenticateShared(header: string, key: string, gate: LoginGate | undefined, passwordOnly = false): Promise<{ viewer: Viewer; entry?: AuthenticatedEntry }> {
    const flightKey = `${key}|${gate?.client ?? ''}|${passwordOnly ? 'p' : ''}`;
    const running = inFlight.get(flightKey);
    if (running) return running;
    const started = authenticateNow(header, gate, passwordOnly).finally(() => inFlight.delete(flightKey));
    inFlight.set(flightKey, started);
    return started;
  }

  /** Who a header proved, as the calendar of the work at hand sees them (domain/calendars.ts). */
  async function identify(header: string | undefined, gate: LoginGate | undefined, passwordOnly = false): Promise<Identified> {
    const found = await identifyAnywhere(header, gate, passwordOnly);
    if (found.viewer.id <= 0 || (calendarIdNow() === DEFAULT_CALENDAR_ID && found.appCalendar == null)) return found;
    const viewer = await viewerHere(db, found.viewer, { appPasswordCalendar: found.appCalendar ?? null });
    return viewer.id <= 0 ? { viewer, twoFactor: false } : { ...found, viewer };
  }

  async function identifyAnywhere(header: string | undefined, gate: LoginGate | undefined, passwordOnly = false): Promise<Identified & { appCalendar?: number | null }> {
    if (!header || !header.startsWith('Basic ')) return { viewer: ANONYMOUS, twoFactor: false };
    const key = digest(header);
    if (!feed || passwordOnly) return identifiedBy(await authenticateShared(header, key, gate, passwordOnly));
    // Who a header authenticates is kept until the log says the user changed (see `authenticated`).
    const seq = await feed.sync();
    const known = authenticated.get(key);
    const counters = keptCountersOf(db).viewers;
    if (known) {
      counters.hits++;
      // A remembered success is still refused while this client is blocked for the user (else a
      // blocked client could keep guessing: a right guess would answer, a wrong one 429).
      await gate?.known(`id:${known.userId}`);
      if (known.app) touchLater(known.app);
      return identifiedBy({ viewer: known.viewer, entry: known });
    }
    counters.misses++;
    const found = await authenticateShared(header, key, gate);
    if (found.entry && feed.seq() === seq) {
      if (authenticated.size >= 10_000) authenticated.clear();
      authenticated.set(key, found.entry);
    }
    return identifiedBy(found);
  }

  return {
    async authenticate(header, gate, { passwordOnly = false } = {}) {
      return (await identify(header, gate, passwordOnly)).viewer;
    },

    identify: (header, gate) => identify(header, gate),

    ...createUserManagement(db, check),
  };
}

/** The users' management (the CLI's `users` and `app-passwords` commands): what is not authentication. */
type UserManagement = Omit<UserService, 'authenticate' | 'identify'>;

/** Refused: the role would be taken from the only administrator (the admin API's `rest_user_last_administrator`). */
export class LastAdministrator extends UserError {}

/**
 * Users and application passwords added, changed and removed, each write in its own transaction
 * (the store notes the user in the change log, so every server drops what it kept for them).
 * `check` is the authentication's password check (it remembers verified hashes).
 */
function createUserManagement(db: Store['db'], check: (password: string, storedHash: string) => Promise<boolean>): UserManagement {
  async function mustFind(login: string): Promise<UserRow> {
    const user = await usersStore.findUserByLogin(db, login);
    if (!user) throw new UserError(`no user with login "${login}"`);
    return user;
  }

  function checkRole(role: string): Role {
    if (!isRole(role)) throw new UserError(`unknown role "${role}" (administrator, editor, author, contributor or subscriber)`);
    return role;
  }

  function checkPassword(password: string): void {
    if (!password) throw new UserError('the password must not be empty');
  }

  /** Nobody signs in as the service's own accounts: a credential for one would make it a person's (domain/system-accounts.ts). */
  function refuseCredentials(user: UserRow): void {
    if (isSystemLogin(user.login)) throw new ReservedLogin(`${user.login} is one of the service's own accounts: nobody signs in as it`);
  }

  /**
   * Inside the write that takes a user's administrator role (a demotion or removal): refuse when
   * they are the only administrator. The check and the write are one step: the administrators'
   * lock (PostgreSQL; SQLite runs one write transaction at a time) makes a concurrent demotion wait
   * until this one commits, and it then counts again, so two administrators demoting each other at
   * once leave one.
   */
  async function refuseLastAdministrator(trx: Executor, userId: number): Promise<void> {
    await lockAdministrators(trx);
    const current = await usersStore.findUserById(trx, userId);
    if (current?.role === 'administrator' && (await countAdministrators(trx)) <= 1) throw new LastAdministrator('this is the only administrator: make another user an administrator first');
  }

  const management: UserManagement = {
    async add({ login, role, password, email = '', name = '', noPassword = false, system = false }) {
      if (!/^[A-Za-z0-9_.@ -]{1,60}$/.test(login)) throw new UserError('a login is 1 to 60 letters, digits, spaces or _ . @ -');
      // Whoever held it would author (and read) what the service writes as that account, in every calendar.
      if (!system && isSystemLogin(login)) throw new ReservedLogin(`"${login}" is the login of one of the service's own accounts`);
      if (email !== '' && !isEmail(email)) throw new UserError(`"${email}" is not an e-mail address (like ann@example.com)`);
      // The column's length (PostgreSQL refuses a longer one, SQLite would keep it): the same answer on both.
      if (name.length > DISPLAY_NAME_MAX) throw new UserError(`a display name is at most ${DISPLAY_NAME_MAX} characters`);
      if (!noPassword) checkPassword(password);
      const r = checkRole(role);
      if (await usersStore.findUserByLogin(db, login)) throw new UserError(`a user "${login}" already exists`);
      // No password: an empty hash, which no password matches (verifyPassword).
      const passwordHash = noPassword ? '' : await hashPassword(password);
      const id = await writeTransaction(db, (trx) =>
        usersStore.insertUser(trx, {
          login,
          role: r,
          email,
          display_name: name || login,
          password_hash: passwordHash,
          registered_gmt: nowGmt(),
        }),
      );
      return (await usersStore.findUserById(db, id))!;
    },

    list: () => usersStore.listUsers(db),

    async setPassword(login, password, { keepSession } = {}) {
      checkPassword(password);
      const user = await mustFind(login);
      refuseCredentials(user);
      const passwordHash = await hashPassword(password);
      // Whoever signed in with the old password (or stole a session) is signed out with it.
      const sessionsEnded = await writeTransaction(db, async (trx) => {
        await usersStore.updateUser(trx, user.id, { password_hash: passwordHash });
        return deleteSessionsOf(trx, Number(user.id), keepSession);
      });
      return { sessionsEnded };
    },

    async setRole(login, role, { keepAnAdministrator = false } = {}) {
      const user = await mustFind(login);
      const r = checkRole(role);
      await writeTransaction(db, async (trx) => {
        if (keepAnAdministrator && r !== 'administrator') await refuseLastAdministrator(trx, Number(user.id));
        await usersStore.updateUser(trx, user.id, { role: r });
      });
    },

    async remove(login, { reassignTo, keepAnAdministrator = false } = {}) {
      const user = await mustFind(login);
      const heir = reassignTo === undefined ? undefined : await mustFind(reassignTo);
      if (heir && heir.id === user.id) throw new UserError(`cannot reassign ${login}'s records to ${login}`);
      let reassigned = 0;
      await writeTransaction(db, async (trx) => {
        if (keepAnAdministrator) await refuseLastAdministrator(trx, Number(user.id));
        if (heir) {
          // A network administrator may author anywhere; anyone else only where they have a role.
          const outside = heir.role === 'administrator' ? [] : await usersStore.calendarsHeirIsNotIn(trx, user.id, heir.id);
          if (outside.length)
            throw new UserError(
              `${heir.login} has no role in ${outside.length === 1 ? 'the calendar' : 'the calendars'} ${outside.join(', ')}, where ${login} authored records: give them a role there or choose another user`,
            );
          reassigned = await usersStore.reassignOwned(trx, user.id, heir.id);
        } else refuseIfOwning(login, await usersStore.countOwned(trx, user.id));
        await usersStore.deleteUser(trx, user.id);
      });
      // A request authenticated just before the removal may still have written a record for it.
      if (heir) reassigned += await writeTransaction(db, (trx) => usersStore.reassignOwned(trx, user.id, heir.id));
      return { reassigned };
    },

    async addAppPassword(login, name) {
      const user = await mustFind(login);
      refuseCredentials(user);
      const password = generateAppPassword();
      const uuid = randomUUID();
      const passwordHash = await hashPassword(password.replace(/\s+/g, ''));
      await writeTransaction(db, (trx) =>
        usersStore.insertAppPassword(trx, {
          user_id: user.id,
          uuid,
          name,
          password_hash: passwordHash,
          created_gmt: nowGmt(),
          last_used_gmt: null,
        }),
      );
      return { uuid, password };
    },

    async listAppPasswords(login) {
      const user = await mustFind(login);
      return (await usersStore.appPasswordsOf(db, user.id)).map((a) => ({ uuid: a.uuid, name: a.name, created: a.created_gmt, lastUsed: a.last_used_gmt }));
    },

    async revokeAppPassword(login, uuidOrName) {
      const user = await mustFind(login);
      const n = await writeTransaction(db, (trx) => usersStore.deleteAppPassword(trx, user.id, uuidOrName));
      if (n === 0) throw new UserError(`user "${login}" has no application password "${uuidOrName}"`);
    },

    async ensureAdmin(login, password, email) {
      const user = await usersStore.findUserByLogin(db, login);
      if (!user) {
        await management.add({ login, role: 'administrator', password, ...(email ? { email } : {}) });
        return 'created';
      }
      refuseCredentials(user);
      if (email && user.email === '') await writeTransaction(db, (trx) => usersStore.updateUser(trx, user.id, { email }));
      const samePassword = await check(password, user.password_hash);
      if (samePassword && user.role === 'administrator') return 'unchanged';
      const passwordHash = await hashPassword(password);
      await writeTransaction(db, async (trx) => {
        await usersStore.updateUser(trx, user.id, { role: 'administrator', password_hash: passwordHash });
        // A new password ends the sessions the old one signed in (as setPassword).
        if (!samePassword) await deleteSessionsOf(trx, Number(user.id));
      });
      return 'updated';
    },

    async exists(id) {
      return fitsInteger(id) && (await usersStore.findUserById(db, id)) !== undefined;
    },
  };
  return management;
}
