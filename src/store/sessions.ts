/**
 * Sign-in sessions and TOTP enrolments (tables of migration 013). Only hashes of session
 * ids and recovery codes are stored. Ending sessions (one, or all of a user) notes the user in the
 * change log (record type `user`), so every server drops the sessions it keeps for them before its
 * next request (domain/sessions.ts); so does a change of the user's two-factor enrolment.
 *
 * @example
 *   const row = await findSessionByHash(db, sha256hex(cookieValue));
 */
import { randomBytes } from 'node:crypto';
import { sql, type Generated, type Selectable } from 'kysely';
import { noteChange } from './change-notes.js';
import type { Executor } from './schema.js';

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_gmt: string;
  last_used_gmt: string;
  second_factor: Generated<number>;
  user_agent: Generated<string>;
  ip: Generated<string>;
  /** 1: "Remember me" (a persistent cookie; SESSION_IDLE does not end it), migration 027 */
  remember: Generated<number>;
}

export interface UserTotpTable {
  user_id: number;
  secret: string;
  confirmed_gmt: string | null;
  recovery_hashes: Generated<string>;
  /** the time step of the last code accepted (migration 017) */
  last_step: Generated<number>;
  /** wrong codes (attempts counted before their check) since the last right one or block */
  code_failures: Generated<number>;
  /** blocks since the last right code */
  code_lockouts: Generated<number>;
  /** codes refused until then, GMT ('' for never) */
  code_blocked_until_gmt: Generated<string>;
}

export type SessionRow = Selectable<SessionsTable>;
export type UserTotpRow = Selectable<UserTotpTable>;

const tables = (db: Executor) => db.withTables<{ sessions: SessionsTable; user_totp: UserTotpTable }>();

export async function insertSession(
  db: Executor,
  row: { user_id: number; token_hash: string; created_gmt: string; second_factor: number; user_agent: string; ip: string; remember?: number },
): Promise<number> {
  const r = await tables(db)
    .insertInto('sessions')
    .values({ ...row, last_used_gmt: row.created_gmt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function findSessionByHash(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  return tables(db).selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findSessionById(db: Executor, id: number): Promise<SessionRow | undefined> {
  return tables(db).selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function sessionsOf(db: Executor, userId: number): Promise<SessionRow[]> {
  return tables(db).selectFrom('sessions').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

/** When a session was last used (not logged: a kept session's idle expiry is checked against what is kept). */
export async function touchSession(db: Executor, id: number, when: string): Promise<void> {
  await tables(db).updateTable('sessions').set({ last_used_gmt: when }).where('id', '=', id).execute();
}

/** The second step of a sign-in passed. */
export async function completeSession(db: Executor, id: number, userId: number): Promise<void> {
  await tables(db).updateTable('sessions').set({ second_factor: 1 }).where('id', '=', id).execute();
  await noteChange(db, 'credentials', userId, 'update');
}

/** End one session of a user; returns whether there was one. */
export async function deleteSession(db: Executor, userId: number, id: number): Promise<boolean> {
  const r = await tables(db).deleteFrom('sessions').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  const n = Number(r.numDeletedRows);
  if (n > 0) await noteChange(db, 'credentials', userId, 'update');
  return n > 0;
}

/** End every session of a user (but `exceptId`); returns how many ended. */
export async function deleteSessionsOf(db: Executor, userId: number, exceptId?: number): Promise<number> {
  let q = tables(db).deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  const n = Number((await q.executeTakeFirst()).numDeletedRows);
  if (n > 0) await noteChange(db, 'credentials', userId, 'update');
  return n;
}

/** Sessions past their absolute or idle expiry (both GMT, `YYYY-MM-DD HH:MM:SS`; remembered ones have no idle expiry), removed without a note (they are refused already). */
export async function deleteExpiredSessions(db: Executor, createdBefore: string, usedBefore: string): Promise<number> {
  const r = await tables(db)
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('created_gmt', '<', createdBefore), eb.and([eb('last_used_gmt', '<', usedBefore), eb('remember', '=', 0)])]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function findTotp(db: Executor, userId: number): Promise<UserTotpRow | undefined> {
  return tables(db).selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Start (or restart) an enrolment: an unconfirmed secret. */
export async function putTotp(db: Executor, userId: number, secret: string): Promise<void> {
  await tables(db).deleteFrom('user_totp').where('user_id', '=', userId).execute();
  await tables(db).insertInto('user_totp').values({ user_id: userId, secret, confirmed_gmt: null, recovery_hashes: '[]' }).execute();
  await noteChange(db, 'credentials', userId, 'update');
}

/** Two-factor sign-in on: confirmed with a first code, of time step `step` (which cannot sign in again). */
export async function confirmTotp(db: Executor, userId: number, when: string, recoveryHashes: string[], step = 0): Promise<void> {
  await tables(db)
    .updateTable('user_totp')
    .set({ confirmed_gmt: when, recovery_hashes: JSON.stringify(recoveryHashes), last_step: step })
    .where('user_id', '=', userId)
    .execute();
  await noteChange(db, 'credentials', userId, 'update');
}

/** Use up one recovery code: true when it was there (and is now gone). */
export async function takeRecoveryCode(db: Executor, userId: number, hash: string): Promise<boolean> {
  const row = await findTotp(db, userId);
  if (!row) return false;
  const hashes = JSON.parse(row.recovery_hashes) as string[];
  const i = hashes.indexOf(hash);
  if (i === -1) return false;
  hashes.splice(i, 1);
  const r = await tables(db)
    .updateTable('user_totp')
    .set({ recovery_hashes: JSON.stringify(hashes) })
    .where('user_id', '=', userId)
    .where('recovery_hashes', '=', row.recovery_hashes)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Count a second-step attempt of a user before its code is checked (so that parallel attempts,
 * from any address or instance, count at once): one conditional update, allowed only while the
 * user's codes are not blocked (`code_blocked_until_gmt` past `now`) and fewer than `max` attempts
 * are counted. Returns the count with this attempt (and the blocks so far), `blockedUntil` when
 * refused, or `none` when the user has no confirmed TOTP.
 */
export async function reserveCodeAttempt(db: Executor, userId: number, now: string, max: number): Promise<{ count: number; lockouts: number } | { blockedUntil: string } | 'none'> {
  const r = await tables(db)
    .updateTable('user_totp')
    .set((eb) => ({ code_failures: eb('code_failures', '+', 1) }))
    .where('user_id', '=', userId)
    .where('confirmed_gmt', 'is not', null)
    .where('code_failures', '<', max)
    .where('code_blocked_until_gmt', '<=', now)
    .returning(['code_failures', 'code_lockouts'])
    .executeTakeFirst();
  if (r) return { count: Number(r.code_failures), lockouts: Number(r.code_lockouts) };
  const row = await findTotp(db, userId);
  if (!row || row.confirmed_gmt == null) return 'none';
  return { blockedUntil: row.code_blocked_until_gmt };
}

/** Refuse a user's codes until `until` (GMT): one more block counted, the attempts' count starts again. */
export async function blockCodes(db: Executor, userId: number, until: string): Promise<void> {
  await tables(db)
    .updateTable('user_totp')
    .set((eb) => ({ code_blocked_until_gmt: until, code_lockouts: eb('code_lockouts', '+', 1), code_failures: 0 }))
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Accept a TOTP code of time step `step` unless one of that step or a later one was accepted
 * (RFC 6238 §5.2): a conditional update, so of two attempts with one code exactly one wins, on
 * any instance. The attempts' count and blocks start again. Returns whether it was accepted.
 */
export async function acceptCodeStep(db: Executor, userId: number, step: number): Promise<boolean> {
  const r = await tables(db)
    .updateTable('user_totp')
    .set({ last_step: step, code_failures: 0, code_lockouts: 0, code_blocked_until_gmt: '' })
    .where('user_id', '=', userId)
    .where('last_step', '<', step)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A right recovery code: the attempts' count and blocks start again. */
export async function resetCodeFailures(db: Executor, userId: number): Promise<void> {
  await tables(db).updateTable('user_totp').set({ code_failures: 0, code_lockouts: 0, code_blocked_until_gmt: '' }).where('user_id', '=', userId).execute();
}

/** End a user's sessions that wait for their second step (they sign in with the password again); returns how many. */
export async function deleteHalfSignedIn(db: Executor, userId: number): Promise<number> {
  const r = await tables(db).deleteFrom('sessions').where('user_id', '=', userId).where('second_factor', '=', 0).executeTakeFirst();
  const n = Number(r.numDeletedRows);
  if (n > 0) await noteChange(db, 'credentials', userId, 'update');
  return n;
}

export async function deleteTotp(db: Executor, userId: number): Promise<void> {
  await tables(db).deleteFrom('user_totp').where('user_id', '=', userId).execute();
  await noteChange(db, 'credentials', userId, 'update');
}

/** Re-encrypt a stored TOTP secret (a plain one read before SECRET_KEY encryption), unless it changed meanwhile. Not logged: the secret's meaning is unchanged. */
export async function replaceTotpSecret(db: Executor, userId: number, from: string, to: string): Promise<void> {
  await tables(db).updateTable('user_totp').set({ secret: to }).where('user_id', '=', userId).where('secret', '=', from).execute();
}

/**
 * The key encrypting secrets at rest when SECRET_KEY is unset: made once (64 hex digits) in the
 * `settings` table with an insert that does nothing when another instance made it first, and read
 * back, so every instance uses the one in the database.
 */
export async function storedSecretKey(db: Executor): Promise<string> {
  const read = async () => (await sql<{ value: string }>`select "value" from "settings" where "name" = 'secret_key'`.execute(db)).rows[0]?.value;
  const found = await read();
  if (found) return found;
  await sql`insert into "settings" ("name", "value") values ('secret_key', ${randomBytes(32).toString('hex')}) on conflict ("name") do nothing`.execute(db);
  return (await read())!;
}

/** Whether a generated key is in the database (the settings list names its source). */
export async function hasStoredSecretKey(db: Executor): Promise<boolean> {
  return (await sql<{ n: number }>`select 1 as "n" from "settings" where "name" = 'secret_key'`.execute(db)).rows.length > 0;
}
