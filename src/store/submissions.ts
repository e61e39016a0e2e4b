/**
 * Community submissions and their moderation log (tables of migration 015). The rules
 * (who may submit, what a decision does) are the submission service's (`domain/submissions/`);
 * this file holds their SQL. Every write that changes a submission's status notes a `submission`
 * row in the change log with the event it is (`detail.submission`), so webhooks hear it.
 *
 * @example
 *   const id = await insertSubmission(db, row, 'received');
 *   await findSubmissionByTokenHash(db, sha256hex(token)) // the row, or undefined
 */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { noteChange } from './change-notes.js';
import { writeTransaction } from './changes.js';
import { lockForWrite } from './locks.js';
import { acrossCalendars } from './calendar-scope.js';
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

/** A limit a submission takes a place in: `key` names it (a hash), `max` places per window. */
export interface QuotaLimit {
  key: string;
  max: number;
  /** the start of this limit's window, when it is not the call's */
  sinceGmt?: string;
}

/** The places taken (to give back should the submission not be stored), or the limit that refused with the places it counted. */
export type QuotaReservation = { ids: number[] } | { refused: string; oldestGmt: string | undefined; used: number };

/**
 * Count and take a place in each limit, all or none, in one transaction: at most `max` places of
 * a key since `sinceGmt`. On PostgreSQL a transaction-scoped lock per key (taken in one order, so
 * two reservations never wait for each other in a cycle) makes concurrent reservations of a key,
 * from any instance, count one after the other, each seeing the places the one before took; SQLite
 * runs one write transaction at a time (BEGIN IMMEDIATE across processes). A refusal writes nothing.
 */
export async function reserveSubmissionQuota(db: Executor, limits: QuotaLimit[], sinceGmt: string, nowGmt: string): Promise<QuotaReservation> {
  const ordered = [...limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return writeTransaction(db, async (trx): Promise<QuotaReservation> => {
    for (const { key } of ordered) await lockForWrite(trx, `submission-quota:${key}`);
    for (const { key, max, sinceGmt: since = sinceGmt } of limits) {
      const recent = trx.selectFrom('submission_quota').where('key_hash', '=', key).where('created_gmt', '>=', since);
      const n = Number((await recent.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      if (n < max) continue;
      const oldest = await recent.select('created_gmt').orderBy('created_gmt').limit(1).executeTakeFirst();
      return { refused: key, oldestGmt: oldest?.created_gmt, used: n };
    }
    const ids: number[] = [];
    for (const { key } of limits) {
      const r = await trx.insertInto('submission_quota').values({ key_hash: key, created_gmt: nowGmt }).returning('id').executeTakeFirstOrThrow();
      ids.push(Number(r.id));
    }
    return { ids };
  });
}

/** Give back places taken by a submission that was not stored after all. */
export async function releaseSubmissionQuota(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await writeTransaction(db, async (trx) => {
    await trx.deleteFrom('submission_quota').where('id', 'in', ids).execute();
  });
}

/** Forget every place of one key (a submitter's erasure). */
export async function forgetSubmissionQuota(db: Executor, key: string): Promise<void> {
  await writeTransaction(db, async (trx) => {
    await trx.deleteFrom('submission_quota').where('key_hash', '=', key).execute();
  });
}

/**
 * Note a proof-of-work solution (its challenge's signature) as used until `expiresGmt`: true when
 * this call noted it, false when it was noted before, by this instance or another (the primary key
 * decides: of solutions sent at once, one insert wins).
 */
export async function usePowSolution(db: Executor, signature: string, expiresGmt: string): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const r = await trx
      .insertInto('submission_pow_used')
      .values({ signature, expires_gmt: expiresGmt })
      .onConflict((oc) => oc.column('signature').doNothing())
      .returning('signature')
      .executeTakeFirst();
    return r !== undefined;
  });
}

/**
 * Delete places older than the window (`quotaBeforeGmt`) and solutions whose challenge has expired;
 * the places of `longer` (a key with a window of its own: a calendar's submissions a day) are kept
 * until its own start.
 */
export async function pruneSubmissionLimits(db: Executor, quotaBeforeGmt: string, nowGmt: string, longer?: { key: string; beforeGmt: string }): Promise<void> {
  await writeTransaction(db, async (trx) => {
    if (!longer) await trx.deleteFrom('submission_quota').where('created_gmt', '<', quotaBeforeGmt).execute();
    else {
      await trx.deleteFrom('submission_quota').where('created_gmt', '<', quotaBeforeGmt).where('key_hash', '!=', longer.key).execute();
      await trx.deleteFrom('submission_quota').where('created_gmt', '<', longer.beforeGmt).where('key_hash', '=', longer.key).execute();
    }
    await trx.deleteFrom('submission_pow_used').where('expires_gmt', '<', nowGmt).execute();
  });
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

/**
 * The calendars with submissions for the jobs: for `retention`, those with decided submissions
 * whose submitter data is still kept, or with places in the submission limits; for `digest`, those
 * with submissions not yet told to moderators. Read across calendars: each job then does each
 * calendar's work in it, with its configuration.
 */
export async function calendarsWithSubmissions(db: Executor, purpose: 'retention' | 'digest'): Promise<number[]> {
  return acrossCalendars(async () => {
    const ids = new Set<number>();
    if (purpose === 'digest') {
      for (const r of await db.selectFrom('submissions').select('calendar_id').distinct().where('notified', '=', 0).execute()) ids.add(Number(r.calendar_id));
    } else {
      for (const r of await db.selectFrom('submissions').select('calendar_id').distinct().where('decided_gmt', 'is not', null).where('erased_gmt', 'is', null).execute())
        ids.add(Number(r.calendar_id));
      for (const r of await db.selectFrom('submission_quota').select('calendar_id').distinct().execute()) ids.add(Number(r.calendar_id));
    }
    return [...ids].sort((a, b) => a - b);
  });
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
