/**
 * People: invitations and lost passwords (single-use, expiring links, of which only a SHA-256 is
 * stored: store/people.ts), and the e-mail outbox they and the review notifications go through.
 *
 * - **Invite**: an administrator gives an e-mail address, a role and optionally a name; the user
 *   is made without a password (nobody can sign in as them), and a set-password link valid for
 *   INVITATION_EXPIRY is e-mailed. Resending makes a new link (the old one stops working);
 *   revoking ends the link and removes the user while they never set a password.
 * - **Lost password**: asked by login or e-mail address; the answer is always the same (nothing
 *   tells whether such an account exists); at most PASSWORD_RESET_LIMIT requests an hour from one
 *   address and for one account (counted in the database, store/shared-limits.ts, so on every
 *   instance); a link valid for PASSWORD_RESET_EXPIRY.
 * - **Using a link** sets the password (the policy applies: password-policy.ts), marks the link
 *   used in the same transaction, and ends every session of the user (as any new password does).
 * - **Mails** are rows written in the transaction of what they are about, sent by the outbox job
 *   (jobs/mail-outbox.ts) and retried until the SMTP server takes them.
 *
 * @example
 *   const people = peopleOf(services);
 *   const { user } = await people.invite({ email: 'ann@example.org', role: 'editor' }, { by: 1, locale: 'en' });
 */
import { randomBytes } from 'node:crypto';
import { writeTransaction } from '../store/changes.js';
import type { Executor, UserRow } from '../store/schema.js';
import * as peopleStore from '../store/people.js';
import { endLoginAttempt, reserveLoginAttempt, type LoginPolicy } from '../store/shared-limits.js';
import * as usersStore from '../store/users.js';
import { deleteSessionsOf } from '../store/sessions.js';
import { apiError } from './errors.js';
import { checkPasswordPolicy, policyOf } from './password-policy.js';
import { invitationMail, resetMail } from './people-mail.js';
import { isRole } from './permissions.js';
import { sha256hex } from './sessions.js';
import type { DomainContext } from './context.js';
import type { Locale, Mail } from './submissions/mail.js';
import { hashPassword, isEmail } from './users.js';
import { checkDisplayName, checkLoginAllowed, userAdminOf, type UserView } from './user-admin.js';
import { isSystemLogin } from './system-accounts.js';
import { clientKeyOf } from './client-address.js';

const HOUR = 3_600_000;

/** A pending invitation, as the admin API lists it. */
export interface InvitationView {
  user_id: number;
  username: string;
  email: string;
  name: string;
  roles: string[];
  invited: string;
  expires: string;
  expired: boolean;
}

/** What a link's token names now. */
export type LinkState = { state: 'ok'; login: string; name: string; email: string } | { state: 'used' | 'expired' | 'unknown' };

export interface PeopleService {
  invite(input: { email: string; role: string; name?: string; username?: string }, who: { by: number; locale: Locale }): Promise<{ user: UserView; invitation: InvitationView; link?: string }>;
  invitations(): Promise<InvitationView[]>;
  resend(userId: number, who: { by: number; locale: Locale }): Promise<{ invitation: InvitationView; link?: string }>;
  /** End a pending invitation; the user goes too when they never set a password. */
  revoke(userId: number): Promise<{ revoked: true; removed: boolean }>;
  /** What a link's token names (without using it). */
  linkState(kind: peopleStore.TokenKind, token: string): Promise<LinkState>;
  /** Use a link: set the password (policy checked first), end the user's sessions. Throws `weak_password`; undefined when the link no longer works. */
  useLink(kind: peopleStore.TokenKind, token: string, password: string): Promise<{ login: string } | undefined>;
  /** A lost-password request: sends a link when the login or address names a user with an e-mail address, within the limits; answers nothing either way. */
  requestReset(loginOrEmail: string, client: string, locale: Locale): Promise<void>;
  /** Queue an e-mail in this transaction (the outbox job sends it). */
  queue(trx: Executor, kind: string, to: string, mail: Mail): Promise<void>;
  /** Called after a mail is queued (the outbox job's nudge). */
  onQueued(listener: () => void): () => void;
  /** Tell the listeners a mail was queued (after the transaction that queued it committed). */
  queued(): void;
}

const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const iso = (g: string) => g.replace(' ', 'T');

/** An invitation as the admin API lists it, as of `now`. */
const invitationView = (u: UserRow, t: peopleStore.UserTokenRow, now: number): InvitationView => ({
  user_id: Number(u.id),
  username: u.login,
  email: u.email,
  name: u.display_name,
  roles: [u.role],
  invited: iso(t.created_gmt),
  expires: iso(t.expires_gmt),
  expired: t.expires_gmt <= gmt(now),
});

/**
 * A free login from an e-mail address's local part (`ann`, `ann-2`, …), never one of the service's
 * own accounts' (`community-submissions@…` gets `community-submissions-2`).
 */
async function loginFor(db: Executor, email: string): Promise<string> {
  const stem =
    email
      .split('@')[0]!
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .slice(0, 50) || 'user';
  for (let i = 1; i < 1000; i++) {
    const login = i === 1 ? stem : `${stem}-${i}`;
    if (!isSystemLogin(login) && !(await usersStore.findUserByLogin(db, login))) return login;
  }
  return email.slice(0, 60);
}

// A reset request counts as a failure on its counters: after the limit, the counters block for an hour.
const resetPolicy: LoginPolicy = { windowMs: HOUR, leaseMs: 60_000, blockMs: () => HOUR };

const byServices = new WeakMap<object, PeopleService>();

/** The people service of these services (one per services). */
export function peopleOf(services: Pick<DomainContext, 'store' | 'users' | 'config' | 'clock'>): PeopleService {
  let found = byServices.get(services);
  if (!found) byServices.set(services, (found = createPeopleService(services)));
  return found;
}

function createPeopleService(services: Pick<DomainContext, 'store' | 'users' | 'config' | 'clock'>): PeopleService {
  const db = services.store.db;
  const config = services.config;
  const listeners = new Set<() => void>();
  const nowMs = () => Date.parse(services.clock.nowGmt().replace(' ', 'T') + 'Z');
  const base = config.siteUrl + config.adminPath;
  const linkOf = (kind: peopleStore.TokenKind, token: string) => `${base}/${kind === 'invite' ? 'invitation' : 'reset-password'}?token=${token}`;
  /** Without SMTP_URL nothing is e-mailed: the administrator is answered the link to hand over. */
  const mailing = () => config.smtpUrl !== undefined;

  const queue = async (trx: Executor, kind: string, to: string, mail: Mail) => {
    if (!mailing()) return;
    await peopleStore.queueMail(trx, { kind, recipient: to, subject: mail.subject, body_text: mail.text, body_html: mail.html, created_gmt: services.clock.nowGmt() });
  };
  const queued = () => {
    for (const l of listeners) l();
  };

  /** A new link for a user (their earlier one of the kind stops working), its mail queued. */
  async function newLink(trx: Executor, user: UserRow, kind: peopleStore.TokenKind, by: number | null, locale: Locale): Promise<{ token: string; row: peopleStore.UserTokenRow }> {
    const token = randomBytes(32).toString('base64url');
    const now = nowMs();
    const ttl = kind === 'invite' ? config.invitationExpiryMs : config.passwordResetExpiryMs;
    await peopleStore.insertToken(trx, { user_id: Number(user.id), kind, token_hash: sha256hex(token), created_gmt: gmt(now), expires_gmt: gmt(now + ttl), created_by: by });
    const hours = Math.max(1, Math.round(ttl / HOUR));
    const v = { site: config.siteName, name: user.display_name, login: user.login, link: linkOf(kind, token), hours };
    await queue(trx, kind, user.email, kind === 'invite' ? invitationMail(locale, v) : resetMail(locale, v));
    return { token, row: (await peopleStore.findToken(trx, sha256hex(token)))! };
  }

  return {
    queue,
    queued,
    onQueued(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async invite({ email, role, name = '', username }, { by, locale }) {
      const address = email.trim();
      if (address === '') throw apiError('rest_invitation_email');
      checkDisplayName(name);
      if (username?.trim()) checkLoginAllowed(username.trim());
      // The checks and the user's creation are the admin API's (same errors as POST /users).
      const login = username?.trim() || (await loginFor(db, address));
      if (!isRole(role)) throw apiError('rest_user_invalid_role', { args: ['administrator, editor, author, contributor, subscriber'] });
      const made = await userAdminOf(services).create({ username: login, email: address, name, role });
      const user = (await usersStore.findUserById(db, made.id))!;
      const { token, row } = await writeTransaction(db, (trx) => newLink(trx, user, 'invite', by, locale));
      queued();
      return { user: made, invitation: invitationView(user, row, nowMs()), ...(mailing() ? {} : { link: linkOf('invite', token) }) };
    },

    async invitations() {
      const now = nowMs();
      const out: InvitationView[] = [];
      for (const t of await peopleStore.openTokens(db, 'invite')) {
        const u = await usersStore.findUserById(db, Number(t.user_id));
        if (u && u.password_hash === '') out.push(invitationView(u, t, now));
      }
      return out;
    },

    async resend(userId, { by, locale }) {
      const user = await usersStore.findUserById(db, userId);
      // The service's own accounts have no password, but nobody is invited to become one.
      if (!user || user.password_hash !== '' || user.email === '' || !isEmail(user.email) || isSystemLogin(user.login)) throw apiError('rest_invitation_not_found');
      const { token, row } = await writeTransaction(db, (trx) => newLink(trx, user, 'invite', by, locale));
      queued();
      return { invitation: invitationView(user, row, nowMs()), ...(mailing() ? {} : { link: linkOf('invite', token) }) };
    },

    async revoke(userId) {
      const user = await usersStore.findUserById(db, userId);
      if (!user) throw apiError('rest_invitation_not_found');
      const n = await writeTransaction(db, (trx) => peopleStore.revokeTokens(trx, userId, 'invite', gmt(nowMs())));
      if (n === 0) throw apiError('rest_invitation_not_found');
      let removed = false;
      if (user.password_hash === '' && (await usersStore.countOwned(db, user.id)).events === 0) {
        await userAdminOf(services)
          .remove(userId)
          .then(
            () => (removed = true),
            () => undefined,
          );
      }
      return { revoked: true, removed };
    },

    async linkState(kind, token) {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return { state: 'unknown' };
      const row = await peopleStore.findToken(db, sha256hex(token));
      if (!row || row.kind !== kind) return { state: 'unknown' };
      if (row.used_gmt !== null) return { state: 'used' };
      if (row.expires_gmt <= gmt(nowMs())) return { state: 'expired' };
      const user = await usersStore.findUserById(db, Number(row.user_id));
      if (!user) return { state: 'unknown' };
      return { state: 'ok', login: user.login, name: user.display_name, email: user.email };
    },

    async useLink(kind, token, password) {
      const state = await this.linkState(kind, token);
      // A link to one of the service's own accounts (made before their logins were reserved) gives it no password.
      if (state.state !== 'ok' || isSystemLogin(state.login)) return undefined;
      checkPasswordPolicy(password, policyOf(config), [state.login, state.name, state.email]);
      const hash = await hashPassword(password);
      return writeTransaction(db, async (trx) => {
        const row = await peopleStore.takeToken(trx, sha256hex(token), kind, gmt(nowMs()));
        if (!row) return undefined;
        const userId = Number(row.user_id);
        await usersStore.updateUser(trx, userId, { password_hash: hash });
        // Whoever signed in with the old password (or stole a session) is signed out with it.
        await deleteSessionsOf(trx, userId);
        // An invitation used is a user who no longer needs a reset link sent before, and back.
        await peopleStore.revokeTokens(trx, userId, kind === 'invite' ? 'reset' : 'invite', gmt(nowMs()));
        return { login: state.login };
      });
    },

    async requestReset(loginOrEmail, client, locale) {
      const asked = loginOrEmail.trim();
      if (asked === '' || asked.length > 200) return;
      const user = (await usersStore.findUserByLogin(db, asked)) ?? (asked.includes('@') ? await usersStore.findUserByEmail(db, asked) : undefined);
      const limit = config.passwordResetLimit;
      // The account's counter is keyed by what was asked when no account matches, so both cost the same.
      const counters = [
        // A client as every limit counts it: one host holds a whole IPv6 /64.
        { key: `reset:c:${clientKeyOf(client)}`, threshold: limit },
        { key: `reset:s:${user ? `id:${user.id}` : asked.toLowerCase()}`, threshold: limit },
      ];
      const now = nowMs();
      const r = await reserveLoginAttempt(db, counters, now, resetPolicy);
      if ('refusedMs' in r) return;
      await endLoginAttempt(db, counters, { failed: true }, now, resetPolicy);
      if (!user || user.email === '' || !isEmail(user.email) || isSystemLogin(user.login)) return;
      await writeTransaction(db, (trx) => newLink(trx, user, 'reset', null, locale));
      queued();
    },
  };
}
