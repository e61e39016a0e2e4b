/**
 * Community submissions and their moderation log (issue 29; tables of migration 015). The rules
 * (who may submit, what a decision does) are the submission service's (`domain/submissions/`);
 * this file holds their SQL. Every write that changes a submission's status notes a `submission`
 * row in the change log with the event it is (`detail.submission`), so webhooks hear it.
 *
 * @example
 *   const id = await insertSubmission(db, row, 'received');
 *   await findSubmissionByTokenHash(db, sha256hex(token)) // the row, or undefined
 */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { noteChange, writeTransaction } from './changes.js';
import type { Executor, SubmissionLogTable, SubmissionsTable } from './schema.js';

export type SubmissionRow = Selectable<SubmissionsTable>;
export type SubmissionLogRow = Selectable<SubmissionLogTable>;

const nowGmt = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

/** Insert a submission with its first log entry; notes `received` in the change log. Returns its id. */
export async function insertSubmission(db: Executor, row: Insertable<SubmissionsTable>, log: Omit<Insertable<SubmissionLogTable>, 'submission_id'>): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const r = await trx.insertInto('submissions').values(row).returning('id').executeTakeFirstOrThrow();
    const id = Number(r.id);
    await trx
      .insertInto('submission_log')
      .values({ ...log, submission_id: id })
      .execute();
    await noteChange(trx, 'submission', id, 'create', { submission: 'received' });
    return id;
  });
}

/**
 * Change a submission and log the action, in one transaction; `event` (received, approved,
 * rejected, changes_requested) is noted in the change log for webhooks.
 */
export async function updateSubmission(
  db: Executor,
  id: number,
  set: Updateable<SubmissionsTable>,
  log: Omit<Insertable<SubmissionLogTable>, 'submission_id'> | undefined,
  event?: string,
): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx.updateTable('submissions').set(set).where('id', '=', id).execute();
    if (log)
      await trx
        .insertInto('submission_log')
        .values({ ...log, submission_id: id })
        .execute();
    if (event) await noteChange(trx, 'submission', id, 'update', { submission: event });
  });
}

export async function findSubmission(db: Executor, id: number): Promise<SubmissionRow | undefined> {
  return db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSubmissionByTokenHash(db: Executor, hash: string): Promise<SubmissionRow | undefined> {
  return db.selectFrom('submissions').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

export async function findSubmissionsByIds(db: Executor, ids: number[]): Promise<SubmissionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('submissions').selectAll().where('id', 'in', ids).orderBy('id').execute();
}

/** The queue: submissions by status (any when empty), search in the submitter's name or e-mail, newest first. */
export async function listSubmissions(
  db: Executor,
  filter: { statuses?: string[]; flagged?: boolean; email?: string; limit: number; offset: number },
): Promise<{ rows: SubmissionRow[]; total: number }> {
  let q = db.selectFrom('submissions');
  if (filter.statuses && filter.statuses.length > 0) q = q.where('status', 'in', filter.statuses);
  if (filter.flagged === true) q = q.where('flags', '!=', '{}');
  if (filter.flagged === false) q = q.where('flags', '=', '{}');
  if (filter.email) q = q.where('email', '=', filter.email.toLowerCase());
  const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await q.selectAll().orderBy('id', 'desc').limit(filter.limit).offset(filter.offset).execute();
  return { rows, total };
}

/** How many submissions came from this client address, or this e-mail address, since `sinceGmt`. */
export async function countRecentSubmissions(db: Executor, column: 'ip' | 'email', value: string, sinceGmt: string): Promise<number> {
  const r = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(column, '=', value)
    .where('created_gmt', '>=', sinceGmt)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The oldest submission from this address or e-mail since `sinceGmt` (when the limit frees a place). */
export async function oldestRecentSubmission(db: Executor, column: 'ip' | 'email', value: string, sinceGmt: string): Promise<string | undefined> {
  const r = await db.selectFrom('submissions').select('created_gmt').where(column, '=', value).where('created_gmt', '>=', sinceGmt).orderBy('created_gmt').limit(1).executeTakeFirst();
  return r?.created_gmt;
}

/** Events (not trashed, not this one) with the same title, case aside, and the same local start: likely duplicates. */
export async function likelyDuplicates(db: Executor, title: string, startLocal: string, exceptId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('posts')
    .innerJoin('events', 'events.post_id', 'posts.id')
    .select('posts.id')
    .where('posts.type', '=', 'tribe_events')
    .where('posts.status', '!=', 'trash')
    .where('posts.id', '!=', exceptId)
    .where(sql<string>`lower(posts.title)`, '=', title.toLowerCase())
    .where('events.start_local', '=', startLocal)
    .orderBy('posts.id')
    .limit(20)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** The moderation log: one submission's entries, or all (newest first), with their total. */
export async function listLog(db: Executor, filter: { submissionId?: number; limit: number; offset: number }): Promise<{ rows: SubmissionLogRow[]; total: number }> {
  let q = db.selectFrom('submission_log');
  if (filter.submissionId !== undefined) q = q.where('submission_id', '=', filter.submissionId);
  const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await q.selectAll().orderBy('id', 'desc').limit(filter.limit).offset(filter.offset).execute();
  return { rows, total };
}

/** Submissions not yet told to moderators (the digest), oldest first. */
export async function unnotifiedSubmissions(db: Executor, limit: number): Promise<SubmissionRow[]> {
  return db.selectFrom('submissions').selectAll().where('notified', '=', 0).orderBy('id').limit(limit).execute();
}

export async function markNotified(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('submissions').set({ notified: 1 }).where('id', 'in', ids).execute();
}

/** Decided submissions whose submitter data is still kept and whose decision is older than `beforeGmt`. */
export async function expiredIdentities(db: Executor, beforeGmt: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('submissions')
    .select('id')
    .where('decided_gmt', 'is not', null)
    .where('decided_gmt', '<', beforeGmt)
    .where('erased_gmt', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Erase the submitter's identity (name, e-mail, address) of these submissions; the log keeps who moderated. */
export async function eraseIdentities(db: Executor, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const r = await db.updateTable('submissions').set({ name: '', email: '', ip: '', erased_gmt: nowGmt() }).where('id', 'in', ids).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

/** Every submission of one submitter (by e-mail address, lowercased). */
export async function submissionsOfEmail(db: Executor, email: string): Promise<SubmissionRow[]> {
  return db.selectFrom('submissions').selectAll().where('email', '=', email.toLowerCase()).orderBy('id').execute();
}

/** The HMAC key of proof-of-work challenges, kept in `settings` (made once, shared by every instance). */
export async function powSecret(db: Executor): Promise<string> {
  const read = async () => (await sql<{ value: string }>`select "value" from "settings" where "name" = 'submission_pow_secret'`.execute(db)).rows[0]?.value;
  const found = await read();
  if (found) return found;
  const { randomBytes } = await import('node:crypto');
  await sql`insert into "settings" ("name", "value") values ('submission_pow_secret', ${randomBytes(32).toString('hex')}) on conflict ("name") do nothing`.execute(db);
  return (await read())!;
}

/** Users who moderate (editors and administrators) with an e-mail address. */
export async function moderatorEmails(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('users').select('email').where('role', 'in', ['administrator', 'editor']).where('email', '!=', '').orderBy('id').execute();
  return rows.map((r) => r.email);
}
