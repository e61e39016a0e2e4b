/**
 * The service's own accounts: `community-submissions` authors anonymous submissions and proposals
 * (domain/submissions), `calendar-network` authors the network's copies of followed calendars'
 * events (domain/network.ts). Each is found by its login and made when missing, so the logins are
 * reserved: no user, invitation, import or login derived from an e-mail address may take one
 * (compared without case, as WordPress compares its illegal logins), or its holder would author,
 * and read, what the service writes as that account in every calendar.
 *
 * Nobody signs in as them: they are made without a password, and no password, application password
 * or link is given to them (domain/users.ts, domain/people.ts). An account found under one of
 * these logins that can sign in anyway (made before the logins were reserved, or given a password
 * by hand in the database) is a person's, not the service's: it is never used as the author, and
 * what would write as it is refused until an administrator removes or renames that account.
 *
 * @example
 *   isSystemLogin('Community-Submissions'); // true
 *   const id = await systemAccount(db, users, SUBMISSIONS_USER, { role: 'contributor', name: 'Community submissions' });
 */
import type { Executor } from '../store/schema.js';
import * as usersStore from '../store/users.js';
import { apiError } from './errors.js';
import { NETWORK_USER } from './network-user.js';

/** The account anonymous submissions and proposals are authored by (a contributor nobody can sign in as). */
export const SUBMISSIONS_USER = 'community-submissions';

/** How an account is made (domain/users.ts `UserService.add`; not imported, which would make a cycle). */
interface MakesUsers {
  add(input: { login: string; role: string; password: string; noPassword: boolean; name: string; system: true }): Promise<{ id: number | string }>;
}

/** The logins of the service's own accounts. */
export const SYSTEM_LOGINS: readonly string[] = [SUBMISSIONS_USER, NETWORK_USER];

/** Whether a login is (or differs only by case from) one of the service's own accounts. */
export function isSystemLogin(login: string): boolean {
  const lower = login.trim().toLowerCase();
  return SYSTEM_LOGINS.includes(lower);
}

/**
 * The id of the service's own account `login`, made (without a password) when missing. An account
 * of that login that can sign in (a password or an application password) is refused: 503
 * `rest_system_account_taken`, never adopted.
 */
export async function systemAccount(db: Executor, users: MakesUsers, login: string, made: { role: string; name: string }): Promise<number> {
  const found = await usersStore.findUserByLogin(db, login);
  if (found) return usable(db, Number(found.id), found.password_hash, login);
  try {
    return Number((await users.add({ login, role: made.role, password: '', noPassword: true, name: made.name, system: true })).id);
  } catch (e) {
    // Another instance made it first.
    const again = await usersStore.findUserByLogin(db, login);
    if (!again) throw e;
    return usable(db, Number(again.id), again.password_hash, login);
  }
}

async function usable(db: Executor, id: number, passwordHash: string, login: string): Promise<number> {
  if (passwordHash !== '' || (await usersStore.appPasswordsOf(db, id)).length > 0) throw apiError('rest_system_account_taken', { args: [login] });
  return id;
}
