/**
 * Users and application passwords managed over HTTP (`calendar/admin/v1/users`): what
 * the CLI's `users` and `app-passwords` commands do, with WordPress-style errors, through the same
 * user service (so every change notes the user in the change log and takes effect at once on every
 * server). Hashes never leave this module; an application password's secret is answered once, at
 * creation. The last administrator can be neither removed nor given another role (checked in the
 * transaction that writes, under the administrators' lock: domain/users.ts). A new password ends
 * the user's sign-in sessions, but the caller's own when they change their own.
 *
 * @example
 *   const admin = userAdminOf(services);
 *   const { items, total } = await admin.list({ search: 'ann', page: 1, perPage: 20 });
 *   await admin.update(viewer, 7, { role: 'editor' });
 */
import { writeTransaction } from '../store/changes.js';
import type { UserRow } from '../store/schema.js';
import * as usersStore from '../store/users.js';
import { listUsersPage } from '../store/user-admin.js';
import { fitsInteger } from '../store/ranges.js';
import { apiError, invalidParams } from './errors.js';
import { checkPasswordPolicy, policyOf } from './password-policy.js';
import { isRole, ROLES } from './permissions.js';
import type { DomainContext } from './context.js';
import { DISPLAY_NAME_MAX, isEmail, LastAdministrator, UserError, UserRefusal, verifyPassword } from './users.js';
import { isSystemLogin } from './system-accounts.js';

/** A user as the admin API answers it (WordPress' `wp/v2/users` in the edit context, trimmed). */
export interface UserView {
  id: number;
  username: string;
  name: string;
  email: string;
  roles: string[];
  registered_date: string;
  /** whether the user can sign in with a password (imported authors cannot until given one) */
  has_password: boolean;
}

/** An application password as listed (WordPress' shape: never the secret). */
export interface AppPasswordView {
  uuid: string;
  name: string;
  created: string;
  last_used: string | null;
}

const iso = (gmt: string) => gmt.replace(' ', 'T');

export function userView(u: UserRow): UserView {
  return {
    id: Number(u.id),
    username: u.login,
    name: u.display_name,
    email: u.email,
    roles: [u.role],
    registered_date: iso(u.registered_gmt),
    has_password: u.password_hash !== '',
  };
}

const invalidId = () => apiError('rest_user_invalid_id');
const invalidParam = (param: string, message: string) => invalidParams({ [param]: message });
const lastAdministrator = () => apiError('rest_user_last_administrator');
const invalidRole = () => apiError('rest_user_invalid_role', { args: [ROLES.join(', ')] });

/**
 * A display name the users table holds (varchar(250)): longer is refused with 400 on every store,
 * where PostgreSQL would fail the write (a 500) and SQLite keep it.
 */
export function checkDisplayName(name: string | undefined): void {
  if (name !== undefined && name.length > DISPLAY_NAME_MAX) throw invalidParam('name', `A display name is at most ${DISPLAY_NAME_MAX} characters.`);
}

/** A login of the service's own accounts, asked for explicitly: WordPress' answer to an illegal login. */
export function checkLoginAllowed(login: string): void {
  if (isSystemLogin(login)) throw apiError('rest_user_invalid_username');
}

export interface UserPatch {
  name?: string;
  email?: string;
  role?: string;
  password?: string;
}

export interface UserAdmin {
  list(q: { search?: string; role?: string; page: number; perPage: number }): Promise<{ items: UserView[]; total: number }>;
  get(id: number): Promise<UserView>;
  create(input: { username: string; password?: string; email?: string; name?: string; role: string }): Promise<UserView>;
  /**
   * `caller`: who asks, and the sign-in session they ask with (if any): a new password ends the
   * user's sessions, but the caller's own when they change their own password.
   */
  update(id: number, patch: UserPatch, caller?: { userId: number; sessionId?: number }): Promise<UserView>;
  /** Remove a user; with `reassign` their records move to that user, else a user who authored records is refused (409). */
  remove(id: number, reassign?: number): Promise<{ deleted: true; previous: UserView; reassigned: number }>;
  /**
   * A user's change of their own account (the account screen): name, e-mail, and a new password
   * given with the current one (400 `incorrect_password` when wrong); other sessions end with a
   * new password, the caller's stays.
   */
  updateOwn(id: number, patch: { name?: string; email?: string; password?: string; currentPassword?: string }, sessionId?: number): Promise<UserView>;
  appPasswords(id: number): Promise<AppPasswordView[]>;
  /** The new application password, its secret answered this once (`password`, in groups of four). */
  createAppPassword(id: number, name: string): Promise<AppPasswordView & { password: string }>;
  revokeAppPassword(id: number, uuid: string): Promise<{ deleted: true; previous: AppPasswordView }>;
}

/** The users' administration over these services (with `config`, its password policy applies to the passwords set). */
export function userAdminOf(services: Pick<DomainContext, 'store' | 'users'> & { config?: Pick<DomainContext['config'], 'passwordMinLength' | 'passwordMinStrength'> }): UserAdmin {
  const db = services.store.db;
  const users = services.users;
  const config = services.config;
  /** The policy, with the user's own login, name and address as known words. */
  const checkPolicy = (password: string, words: string[]) => {
    if (config) checkPasswordPolicy(password, policyOf(config), words);
  };

  async function mustFind(id: number): Promise<UserRow> {
    const row = fitsInteger(id) ? await usersStore.findUserById(db, id) : undefined;
    if (!row) throw invalidId();
    return row;
  }

  /** The CLI's messages (UserError) as 400 answers naming the parameter. */
  async function asApi<T>(param: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof LastAdministrator) throw lastAdministrator();
      if (err instanceof UserRefusal) throw apiError('rest_user_has_content', { args: [err.message.replace('give --reassign LOGIN', 'give reassign (a user ID)')] });
      if (err instanceof UserError) throw invalidParam(param, err.message);
      throw err;
    }
  }

  async function checkEmailFree(email: string, exceptId = 0): Promise<void> {
    if (email === '') return;
    if (!isEmail(email)) throw invalidParam('email', 'Invalid email address.');
    const other = await usersStore.findUserByEmail(db, email);
    if (other && Number(other.id) !== exceptId) throw apiError('existing_user_email');
  }

  const appView = (a: { uuid: string; name: string; created: string; lastUsed: string | null }): AppPasswordView => ({
    uuid: a.uuid,
    name: a.name,
    created: iso(a.created),
    last_used: a.lastUsed === null ? null : iso(a.lastUsed),
  });

  return {
    async list({ search, role, page, perPage }) {
      const { rows, total } = await listUsersPage(db, { search, role, limit: perPage, offset: (page - 1) * perPage });
      return { items: rows.map(userView), total };
    },

    async get(id) {
      return userView(await mustFind(id));
    },

    async create({ username, password, email = '', name = '', role }) {
      if (!isRole(role)) throw invalidRole();
      checkLoginAllowed(username);
      checkDisplayName(name);
      if (await usersStore.findUserByLogin(db, username)) throw apiError('existing_user_login');
      await checkEmailFree(email);
      const noPassword = password === undefined || password === '';
      if (!noPassword) checkPolicy(password, [username, email, name]);
      const row = await asApi('username', () => users.add({ login: username, role, password: password ?? '', email, name, noPassword }));
      return userView(row);
    },

    async update(id, patch, caller) {
      const user = await mustFind(id);
      if (patch.role !== undefined && !isRole(patch.role)) throw invalidRole();
      checkDisplayName(patch.name);
      if (patch.email !== undefined) await checkEmailFree(patch.email, id);
      if (patch.password !== undefined && patch.password === '') throw invalidParam('password', 'The password must not be empty.');
      if (patch.password !== undefined) checkPolicy(patch.password, [user.login, patch.email ?? user.email, patch.name ?? user.display_name]);
      // The role first: the last administrator's refusal (checked with the write, under a lock) comes before anything is written.
      if (patch.role !== undefined && patch.role !== user.role) await asApi('roles', () => users.setRole(user.login, patch.role!, { keepAnAdministrator: true }));
      const fields: { display_name?: string; email?: string } = {};
      if (patch.name !== undefined) fields.display_name = patch.name.trim() || user.login;
      if (patch.email !== undefined) fields.email = patch.email;
      if (Object.keys(fields).length) await writeTransaction(db, (trx) => usersStore.updateUser(trx, user.id, fields));
      // Users changing their own password stay signed in where they did it; every other session ends.
      const keepSession = caller !== undefined && caller.userId === id ? caller.sessionId : undefined;
      if (patch.password !== undefined) await asApi('password', () => users.setPassword(user.login, patch.password!, { keepSession }));
      return userView(await mustFind(id));
    },

    async updateOwn(id, { name, email, password, currentPassword }, sessionId) {
      const user = await mustFind(id);
      if (password !== undefined && !(await verifyPassword(currentPassword ?? '', user.password_hash))) throw apiError('incorrect_password');
      return this.update(id, { name, email, password }, { userId: id, sessionId });
    },

    async remove(id, reassign) {
      const user = await mustFind(id);
      let heir: UserRow | undefined;
      if (reassign !== undefined) {
        heir = fitsInteger(reassign) ? await usersStore.findUserById(db, reassign) : undefined;
        if (!heir) throw apiError('rest_user_invalid_reassign', { args: ['no such user'] });
        if (Number(heir.id) === id) throw apiError('rest_user_invalid_reassign', { args: ['the records cannot go to the user removed'] });
      }
      const previous = userView(user);
      const { reassigned } = await asApi('reassign', () => users.remove(user.login, { ...(heir ? { reassignTo: heir.login } : {}), keepAnAdministrator: true }));
      return { deleted: true, previous, reassigned };
    },

    async appPasswords(id) {
      const user = await mustFind(id);
      return (await users.listAppPasswords(user.login)).map(appView);
    },

    async createAppPassword(id, name) {
      const user = await mustFind(id);
      const trimmed = name.trim();
      if (trimmed === '' || trimmed.length > 100) throw apiError('rest_application_password_name');
      if ((await users.listAppPasswords(user.login)).some((a) => a.name === trimmed)) throw apiError('application_password_duplicate_name');
      const { uuid, password } = await asApi('id', () => users.addAppPassword(user.login, trimmed));
      const made = (await users.listAppPasswords(user.login)).find((a) => a.uuid === uuid)!;
      return { ...appView(made), password };
    },

    async revokeAppPassword(id, uuid) {
      const user = await mustFind(id);
      const found = (await users.listAppPasswords(user.login)).find((a) => a.uuid === uuid);
      if (!found) throw apiError('application_password_not_found');
      await users.revokeAppPassword(user.login, uuid);
      return { deleted: true, previous: appView(found) };
    },
  };
}
