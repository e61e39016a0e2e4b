/**
 * Users and their application passwords. Only hashes are stored.
 *
 * @example
 *   const user = await findUserByLogin(db, 'admin');
 */
import type { Insertable, Updateable } from 'kysely';
import type { AppPasswordRow, AppPasswordsTable, Executor, UserRow, UsersTable } from './schema.js';

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).where('email', '!=', '').orderBy('id').limit(1).executeTakeFirst();
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

export async function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<number> {
  const row = await db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateUser(db: Executor, id: number, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

export async function deleteUser(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('app_passwords').where('user_id', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export async function appPasswordsOf(db: Executor, userId: number): Promise<AppPasswordRow[]> {
  return db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function insertAppPassword(db: Executor, row: Insertable<AppPasswordsTable>): Promise<number> {
  const r = await db.insertInto('app_passwords').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function deleteAppPassword(db: Executor, userId: number, uuidOrName: string): Promise<number> {
  const r = await db
    .deleteFrom('app_passwords')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('uuid', '=', uuidOrName), eb('name', '=', uuidOrName)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function touchAppPassword(db: Executor, id: number, when: string): Promise<void> {
  await db.updateTable('app_passwords').set({ last_used_gmt: when }).where('id', '=', id).execute();
}
