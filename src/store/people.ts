/**
 * Invitation and reset links, and the e-mail outbox (migration 027). Only the SHA-256 of a link's
 * token is stored. Taking a link is one conditional update (unused, unexpired), so a link sent
 * twice at once works once. Mails are rows until the SMTP server took them.
 *
 * @example
 *   const row = await takeToken(trx, sha256hex(token), 'invite', '2026-01-01 00:00:00');
 */
import type { Executor } from './schema.js';

export type TokenKind = 'invite' | 'reset';

interface UserTokensTable {
  id: number;
  user_id: number;
  kind: string;
  token_hash: string;
  created_gmt: string;
  expires_gmt: string;
  used_gmt: string | null;
  created_by: number | null;
}

interface MailOutboxTable {
  id: number;
  kind: string;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  created_gmt: string;
  attempts: number;
  next_ms: number | string;
  sent_gmt: string | null;
  last_error: string;
}

export type UserTokenRow = UserTokensTable;
export type MailRow = MailOutboxTable;

const t = (db: Executor) => db.withTables<{ user_tokens: UserTokensTable; mail_outbox: MailOutboxTable; mail_cursors: { name: string; seq: number | string } }>();

/** How far a change-log reader that e-mails has read (undefined: never started). */
export async function mailCursor(db: Executor, name: string): Promise<number | undefined> {
  const r = await t(db).selectFrom('mail_cursors').select('seq').where('name', '=', name).executeTakeFirst();
  return r ? Number(r.seq) : undefined;
}

/** Move a reader's cursor (in the transaction that queues its mails). */
export async function setMailCursor(db: Executor, name: string, seq: number): Promise<void> {
  const n = await t(db).updateTable('mail_cursors').set({ seq }).where('name', '=', name).executeTakeFirst();
  if (Number(n.numUpdatedRows) === 0) await t(db).insertInto('mail_cursors').values({ name, seq }).execute();
}

/** Users of these roles with an e-mail address (the review notifications' editors). */
export async function addressesOfRoles(db: Executor, roles: string[]): Promise<string[]> {
  const rows = await db.selectFrom('users').select('email').where('role', 'in', roles).where('email', '!=', '').orderBy('id').execute();
  return rows.map((r) => r.email);
}

/**
 * The e-mail addresses of the people with one of `roles` in a calendar other than the default one
 * (`calendar_roles`), and of the network's administrators (administrators of every calendar), by id.
 */
export async function addressesOfCalendarRoles(db: Executor, calendarId: number, roles: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('email', '!=', '')
    .where((eb) =>
      eb.or([
        eb('role', '=', 'administrator'),
        eb('id', 'in', eb.selectFrom('calendar_roles').select('user_id').where('calendar_roles.calendar_id', '=', calendarId).where('calendar_roles.role', 'in', roles)),
      ]),
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => r.email);
}

/** A new link; the user's earlier unused links of the same kind stop working (one link at a time). */
export async function insertToken(db: Executor, row: { user_id: number; kind: TokenKind; token_hash: string; created_gmt: string; expires_gmt: string; created_by: number | null }): Promise<void> {
  await t(db).updateTable('user_tokens').set({ used_gmt: row.created_gmt }).where('user_id', '=', row.user_id).where('kind', '=', row.kind).where('used_gmt', 'is', null).execute();
  await t(db)
    .insertInto('user_tokens')
    .values({ ...row, used_gmt: null } as never)
    .execute();
}

/** The link of this hash, whatever its state (to tell "used" from "expired" from "unknown"). */
export async function findToken(db: Executor, tokenHash: string): Promise<UserTokenRow | undefined> {
  return t(db).selectFrom('user_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Take a link (mark it used) when it is of this kind, unused and unexpired at `now`; the row, or undefined. */
export async function takeToken(db: Executor, tokenHash: string, kind: TokenKind, now: string): Promise<UserTokenRow | undefined> {
  const r = await t(db)
    .updateTable('user_tokens')
    .set({ used_gmt: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_gmt', 'is', null)
    .where('expires_gmt', '>', now)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return undefined;
  return findToken(db, tokenHash);
}

/** End a user's unused links of a kind (a revoked invitation); how many. */
export async function revokeTokens(db: Executor, userId: number, kind: TokenKind, now: string): Promise<number> {
  const r = await t(db).updateTable('user_tokens').set({ used_gmt: now }).where('user_id', '=', userId).where('kind', '=', kind).where('used_gmt', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The unused links of a kind (pending invitations), newest first, with their expiry. */
export async function openTokens(db: Executor, kind: TokenKind): Promise<UserTokenRow[]> {
  return t(db).selectFrom('user_tokens').selectAll().where('kind', '=', kind).where('used_gmt', 'is', null).orderBy('id', 'desc').execute();
}

/** Queue an e-mail (in the caller's transaction). */
export async function queueMail(db: Executor, mail: { kind: string; recipient: string; subject: string; body_text: string; body_html: string; created_gmt: string }): Promise<void> {
  await t(db)
    .insertInto('mail_outbox')
    .values({ ...mail, attempts: 0, next_ms: 0, sent_gmt: null, last_error: '' } as never)
    .execute();
}

/** Mails due now (unsent, their retry time passed), oldest first. */
export async function dueMails(db: Executor, nowMs: number, limit: number): Promise<MailRow[]> {
  return t(db).selectFrom('mail_outbox').selectAll().where('sent_gmt', 'is', null).where('next_ms', '<=', nowMs).orderBy('id').limit(limit).execute();
}

export async function markMailSent(db: Executor, id: number, when: string): Promise<void> {
  await t(db).updateTable('mail_outbox').set({ sent_gmt: when }).where('id', '=', id).execute();
}

export async function markMailFailed(db: Executor, id: number, attempts: number, nextMs: number, error: string): Promise<void> {
  await t(db)
    .updateTable('mail_outbox')
    .set({ attempts, next_ms: nextMs, last_error: error.slice(0, 500) })
    .where('id', '=', id)
    .execute();
}

/** The soonest retry time of an unsent mail (ms), or undefined when none waits. */
export async function nextMailDue(db: Executor): Promise<number | undefined> {
  const r = await t(db).selectFrom('mail_outbox').select('next_ms').where('sent_gmt', 'is', null).orderBy('next_ms').limit(1).executeTakeFirst();
  return r ? Number(r.next_ms) : undefined;
}

/** Sent mails older than this (GMT) are deleted (their content is personal data). */
export async function pruneSentMails(db: Executor, before: string): Promise<number> {
  const r = await t(db).deleteFrom('mail_outbox').where('sent_gmt', 'is not', null).where('sent_gmt', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Whether an event came from a community submission (those have their own e-mails: domain/submissions). */
export async function isSubmittedEvent(db: Executor, eventId: number): Promise<boolean> {
  const r = await db.withTables<{ submissions: { event_id: number } }>().selectFrom('submissions').select('event_id').where('event_id', '=', eventId).limit(1).executeTakeFirst();
  return r !== undefined;
}
