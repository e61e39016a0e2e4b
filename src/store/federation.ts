/**
 * The federation tables (migration 016; the face is src/federation, docs/federation.md): the
 * actor's keys, followers, the outbox's cursor in the change log, the state
 * of each federated event, the outbox itself and its deliveries (claimed with a lease; on
 * PostgreSQL `FOR UPDATE SKIP LOCKED`, so that instances share them), and activities kept for
 * moderation. The rules are the face's; this file holds its SQL (Fedify's own storage, its
 * key-value store and message queue, is in federation-fedify.ts).
 *
 * @example
 *   await storeOutboxStep(db, 1043, 1050, { objects, activities, deliveries }) // false: another instance moved the cursor
 */
import { sql, type Generated, type Selectable } from 'kysely';
import type { Executor, Scoped } from './schema.js';
import { acrossCalendars, byCalendarAndId, calendarIdNow } from './calendar-scope.js';
import { clearPendingMoves } from './calendars.js';

export interface FederationKeysTable {
  kind: string;
  private_jwk: string;
  public_jwk: string;
  created_gmt: string;
}
export interface FederationFollowersTable {
  id: Generated<number>;
  actor_id: string;
  host: string;
  inbox: string;
  shared_inbox: string | null;
  follow_id: string;
  handle: Generated<string>;
  status: string;
  created_gmt: string;
}
export interface FederationStateTable {
  id: number;
  cursor_seq: number | string;
}
export interface FederationObjectsTable {
  event_id: number;
  state: string;
  digest: string;
  published_gmt: string;
  updated_gmt: string;
  /** the `updated` (or `deleted`) last sent, ms since the epoch (migration 022; null before it) */
  updated_ms: number | string | null;
  /**
   * the actor identifier it was first announced under, whose URLs it keeps after a rename
   * (migration 037; null: the default calendar's, or not announced)
   */
  home: string | null;
}
export interface FederationActivitiesTable {
  ord: Generated<number>;
  id: string;
  type: string;
  event_id: number | null;
  body: string;
  created_gmt: string;
}
export interface FederationDeliveriesTable {
  id: Generated<number>;
  activity_id: string;
  activity_type: string;
  inbox: string;
  body: string;
  status: string;
  attempts: Generated<number>;
  next_attempt_ms: number | string;
  lease_until_ms: number | string | null;
  last_status: number | null;
  last_error: string | null;
  created_ms: number | string;
  updated_ms: number | string;
}
export interface FederationReceivedTable {
  id: Generated<number>;
  activity_id: string | null;
  type: string;
  actor_id: string;
  body: string;
  received_gmt: string;
}

type Tables = {
  federation_keys: Scoped<FederationKeysTable>;
  federation_followers: Scoped<FederationFollowersTable>;
  federation_state: Scoped<FederationStateTable>;
  federation_objects: Scoped<FederationObjectsTable>;
  federation_activities: Scoped<FederationActivitiesTable>;
  federation_deliveries: Scoped<FederationDeliveriesTable>;
  federation_received: Scoped<FederationReceivedTable>;
};

export type FollowerRow = Selectable<FederationFollowersTable>;
export type ObjectStateRow = Selectable<FederationObjectsTable>;
export type ActivityRow = Selectable<FederationActivitiesTable>;
export type DeliveryRow = Selectable<FederationDeliveriesTable>;
export type ReceivedRow = Selectable<FederationReceivedTable>;

const t = (db: Executor) => db.withTables<Tables>();

// ---------------------------------------------------------------- the actor's keys

export async function readKeys(db: Executor): Promise<Array<{ kind: string; private_jwk: string; public_jwk: string }>> {
  return t(db).selectFrom('federation_keys').select(['kind', 'private_jwk', 'public_jwk']).orderBy('kind').execute();
}

/** Store key pairs unless some are there already (two instances starting at once keep the first). */
export async function insertKeysOnce(db: Executor, keys: Array<{ kind: string; private_jwk: string; public_jwk: string }>, now: string): Promise<void> {
  for (const k of keys) {
    await t(db)
      .insertInto('federation_keys')
      .values({ ...k, created_gmt: now })
      .onConflict((oc) => oc.columns(['calendar_id', 'kind']).doNothing())
      .execute();
  }
}

// ---------------------------------------------------------------- followers

export async function findFollower(db: Executor, actorId: string): Promise<FollowerRow | undefined> {
  return t(db).selectFrom('federation_followers').selectAll().where('actor_id', '=', actorId).executeTakeFirst();
}

export async function findFollowerById(db: Executor, id: number): Promise<FollowerRow | undefined> {
  return t(db).selectFrom('federation_followers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Add or refresh a follower of the calendar at hand (a second Follow from the same actor replaces the first's details). */
export async function upsertFollower(db: Executor, f: Omit<FollowerRow, 'id'>): Promise<FollowerRow> {
  await t(db)
    .insertInto('federation_followers')
    .values(f)
    .onConflict((oc) => oc.columns(['calendar_id', 'actor_id']).doUpdateSet({ inbox: f.inbox, shared_inbox: f.shared_inbox, follow_id: f.follow_id, handle: f.handle, host: f.host, status: f.status }))
    .execute();
  return (await findFollower(db, f.actor_id))!;
}

export async function setFollowerStatus(db: Executor, id: number, status: string): Promise<void> {
  await t(db).updateTable('federation_followers').set({ status }).where('id', '=', id).execute();
}

export async function deleteFollower(db: Executor, actorId: string): Promise<boolean> {
  const r = await t(db).deleteFrom('federation_followers').where('actor_id', '=', actorId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function deleteFollowerById(db: Executor, id: number): Promise<boolean> {
  const r = await t(db).deleteFrom('federation_followers').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Followers whose inbox or shared inbox is `inbox` are removed (the inbox answered 410); answers how many. */
export async function deleteFollowersAt(db: Executor, inbox: string): Promise<number> {
  const r = await t(db)
    .deleteFrom('federation_followers')
    .where((eb) => eb.or([eb('inbox', '=', inbox), eb('shared_inbox', '=', inbox)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function listFollowers(db: Executor, options: { status?: string; limit: number; offset: number }): Promise<{ rows: FollowerRow[]; total: number }> {
  let q = t(db).selectFrom('federation_followers');
  if (options.status) q = q.where('status', '=', options.status);
  const rows = await q.selectAll().orderBy('id').limit(options.limit).offset(options.offset).execute();
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** Where an activity to every accepted follower goes: each shared inbox once, else each inbox. */
export async function followerInboxes(db: Executor): Promise<string[]> {
  const rows = await t(db).selectFrom('federation_followers').select(['inbox', 'shared_inbox']).where('status', '=', 'accepted').execute();
  return [...new Set(rows.map((r) => r.shared_inbox ?? r.inbox))].sort();
}

/**
 * The calendars where a remote actor is a follower, suspended ones included: one look across
 * calendars, by the index `federation_followers_actor` (a Delete of itself names most often an
 * actor no calendar has).
 */
export async function followerCalendars(db: Executor, actorId: string): Promise<number[]> {
  const rows = await acrossCalendars(() => t(db).selectFrom('federation_followers').select('calendar_id').where('actor_id', '=', actorId).orderBy('calendar_id').execute());
  return rows.map((r) => Number(r.calendar_id));
}

/** The followers of every calendar by state, in one statement (read from `federation_followers_status`). */
export async function serviceFollowerCounts(db: Executor): Promise<Record<string, number>> {
  return acrossCalendars(() => countFollowers(db));
}

/**
 * What NodeInfo says of the service, in one statement: its active calendars (each an actor) and the
 * Creates they announced (by `federation_activities_type`, joined to the active calendars).
 */
export async function serviceUsage(db: Executor): Promise<{ calendars: number; creates: number }> {
  const r = await acrossCalendars(() =>
    sql<{ calendars: number | string; creates: number | string }>`
      select
        (select count(*) from "calendars" where "status" = 'active') as "calendars",
        (select count(*) from "federation_activities" a
           inner join "calendars" c on c."id" = a."calendar_id" and c."status" = 'active'
         where a."type" = 'Create') as "creates"`.execute(db),
  );
  const row = r.rows[0];
  return { calendars: Number(row?.calendars ?? 0), creates: Number(row?.creates ?? 0) };
}

export async function countFollowers(db: Executor): Promise<Record<string, number>> {
  const rows = await t(db)
    .selectFrom('federation_followers')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

// ---------------------------------------------------------------- the outbox consumer

/**
 * Make the outbox's cursor at the change log's head unless there is one: one statement (an insert
 * of the head read by the insert itself), so two instances starting at once keep the first's, and
 * no write can commit between the read and the insert. A server calls it before it accepts
 * requests: what it publishes afterwards is after the cursor. Answers the cursor. Each calendar
 * has its own cursor, in its own row, whose `id` is the calendar's id (the default calendar's is 1,
 * as it always was).
 */
export async function ensureOutboxCursor(db: Executor): Promise<number> {
  const calendar = calendarIdNow();
  await t(db)
    .insertInto('federation_state')
    .columns(['id', 'cursor_seq', 'calendar_id'] as never)
    .expression(sql<never>`select ${calendar}, "value", ${calendar} from "change_counter" where "id" = 1`)
    .onConflict((oc) => oc.columns(['calendar_id', 'id']).doNothing())
    .execute();
  const row = await t(db).selectFrom('federation_state').select('cursor_seq').where('id', '=', calendar).executeTakeFirstOrThrow();
  return Number(row.cursor_seq);
}

/** The outbox's cursor (made by `ensureOutboxCursor` when the server started; made there if gone since). */
export async function outboxCursor(db: Executor): Promise<number> {
  return (await outboxCursorIfAny(db)) ?? ensureOutboxCursor(db);
}

/** The outbox's cursor, if the outbox has ever run (change-log pruning keeps the rows after it). */
export async function outboxCursorIfAny(db: Executor): Promise<number | undefined> {
  const row = await t(db).selectFrom('federation_state').select('cursor_seq').where('id', '=', calendarIdNow()).executeTakeFirst();
  return row ? Number(row.cursor_seq) : undefined;
}

/**
 * The calendars whose outbox has work: an active calendar with a cursor (its actor was needed
 * once) and rows of its own in the change log after it. One look across calendars, for the outbox
 * job's due work; each calendar's step then runs in it.
 */
export async function outboxCalendarsDue(db: Executor, limit: number): Promise<number[]> {
  const r = await acrossCalendars(() =>
    sql<{ calendar_id: number | string }>`
      select s."calendar_id" from "federation_state" s
        inner join "calendars" c on c."id" = s."calendar_id" and c."status" = 'active'
      where exists (select 1 from "changes" ch where ch."calendar_id" = s."calendar_id" and ch."seq" > s."cursor_seq")
      order by s."calendar_id"
      limit ${limit}`.execute(db),
  );
  return r.rows.map((row) => Number(row.calendar_id));
}

/** The active calendars with an outbox (a cursor): those the hourly sweep of series looks at. */
export async function outboxCalendars(db: Executor, limit: number): Promise<number[]> {
  const r = await acrossCalendars(() =>
    sql<{ calendar_id: number | string }>`
      select s."calendar_id" from "federation_state" s
        inner join "calendars" c on c."id" = s."calendar_id" and c."status" = 'active'
      order by s."calendar_id"
      limit ${limit}`.execute(db),
  );
  return r.rows.map((row) => Number(row.calendar_id));
}

/**
 * Each calendar's outbox cursor, of the calendars with rows of their own after it (a calendar with
 * none holds nothing: its next step moves its cursor to the head). An outbox reads its own
 * calendar's rows only, so it holds back only those.
 */
export async function outboxCursors(db: Executor): Promise<Map<number, number>> {
  const r = await acrossCalendars(() =>
    sql<{ calendar_id: number | string; seq: number | string }>`
      select s."calendar_id", s."cursor_seq" as "seq" from "federation_state" s
      where exists (select 1 from "changes" ch where ch."calendar_id" = s."calendar_id" and ch."seq" > s."cursor_seq")`.execute(db),
  );
  const out = new Map<number, number>();
  for (const row of r.rows) out.set(Number(row.calendar_id), Math.min(out.get(Number(row.calendar_id)) ?? Infinity, Number(row.seq)));
  return out;
}

export async function objectStates(db: Executor, eventIds: number[]): Promise<Map<number, ObjectStateRow>> {
  if (eventIds.length === 0) return new Map();
  const rows = await t(db).selectFrom('federation_objects').selectAll().where('event_id', 'in', eventIds).execute();
  return new Map(rows.map((r) => [Number(r.event_id), r]));
}

export async function objectState(db: Executor, eventId: number): Promise<ObjectStateRow | undefined> {
  return t(db).selectFrom('federation_objects').selectAll().where('event_id', '=', eventId).executeTakeFirst();
}

/** What one step of the outbox made. */
export interface OutboxStep {
  objects: ObjectStateRow[];
  activities: Array<{ id: string; type: string; event_id: number | null; body: string; created_gmt: string }>;
  /** deliveries of the activities: inbox and activity id */
  deliveries: Array<{ activity_id: string; activity_type: string; inbox: string; body: string }>;
  /** former slugs of the calendar whose Move the step made (no longer pending once it is stored) */
  moved?: string[];
}

/**
 * Move the cursor from `from` to `to` and store what the step made, in one transaction
 * (compare-and-set on the cursor: answers false, storing nothing, when another instance moved it).
 */
export async function storeOutboxStep(db: Executor, from: number, to: number, step: OutboxStep, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await t(trx).updateTable('federation_state').set({ cursor_seq: to }).where('id', '=', calendarIdNow()).where('cursor_seq', '=', from).executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    for (const o of step.objects) {
      await t(trx)
        .insertInto('federation_objects')
        .values(o)
        .onConflict((oc) =>
          oc
            .columns(['calendar_id', 'event_id'])
            .doUpdateSet({ state: o.state, digest: o.digest, published_gmt: o.published_gmt, updated_gmt: o.updated_gmt, updated_ms: o.updated_ms, home: o.home ?? null }),
        )
        .execute();
    }
    for (const a of step.activities) await t(trx).insertInto('federation_activities').values(a).execute();
    await insertDeliveries(trx, step.deliveries, now);
    await clearPendingMoves(trx, step.moved ?? []);
    return true;
  });
}

/** Queue deliveries (an activity already queued for an inbox is not queued twice). */
export async function insertDeliveries(db: Executor, deliveries: OutboxStep['deliveries'], now: number): Promise<void> {
  for (const d of deliveries) {
    await t(db)
      .insertInto('federation_deliveries')
      .values({ ...d, status: 'pending', attempts: 0, next_attempt_ms: now, lease_until_ms: 0, last_status: null, last_error: null, created_ms: now, updated_ms: now })
      .onConflict((oc) => oc.columns(['calendar_id', 'activity_id', 'inbox']).doNothing())
      .execute();
  }
}

/** The outbox, newest first: one page and the total. */
export async function listActivities(db: Executor, options: { limit: number; offset: number; types?: string[] }): Promise<{ rows: ActivityRow[]; total: number }> {
  let q = t(db).selectFrom('federation_activities');
  if (options.types?.length) q = q.where('type', 'in', options.types);
  const rows = await q.selectAll().orderBy('ord', 'desc').limit(options.limit).offset(options.offset).execute();
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

export async function findActivity(db: Executor, id: string): Promise<ActivityRow | undefined> {
  return t(db).selectFrom('federation_activities').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Events federated and live now (for the outbox's first page of upcoming events). */
export async function liveObjectIds(db: Executor, limit: number): Promise<number[]> {
  const rows = await t(db).selectFrom('federation_objects').select('event_id').where('state', '=', 'live').orderBy('event_id', 'desc').limit(limit).execute();
  return rows.map((r) => Number(r.event_id));
}

// ---------------------------------------------------------------- deliveries

export interface ClaimedFederationDelivery {
  id: number;
  /** the calendar whose actor sends it (its attempt is recorded there, signed with its key) */
  calendar_id: number;
  activity_id: string;
  activity_type: string;
  inbox: string;
  body: string;
  attempts: number;
}

/**
 * Claim up to `limit` due pending deliveries of every active calendar (none while an earlier one
 * of the same calendar to the same inbox is pending: a calendar's activities reach an inbox in
 * order), leased until `leaseUntilMs`. A suspended calendar's wait. Each comes with its calendar:
 * it is sent by that calendar's actor and recorded there.
 */
export async function claimFederationDeliveries(db: Executor, options: { now: number; leaseUntilMs: number; limit: number; skipLocked: boolean }): Promise<ClaimedFederationDelivery[]> {
  const { now, leaseUntilMs, limit, skipLocked } = options;
  return acrossCalendars(() =>
    db.transaction().execute(async (trx) => {
      const due = await sql<{ id: number | string; calendar_id: number | string }>`
        select d."id", d."calendar_id" from "federation_deliveries" d
          inner join "calendars" c on c."id" = d."calendar_id" and c."status" = 'active'
        where d."status" = 'pending' and d."next_attempt_ms" <= ${now} and coalesce(d."lease_until_ms", 0) < ${now}
          and not exists (
            select 1 from "federation_deliveries" p
            where p."calendar_id" = d."calendar_id" and p."inbox" = d."inbox" and p."status" = 'pending' and p."id" < d."id")
        order by d."id"
        limit ${limit}
        ${skipLocked ? sql`for update of d skip locked` : sql``}`.execute(trx);
      if (due.rows.length === 0) return [];
      // The claimed rows by their key, calendar and id.
      const keys = due.rows.map((r) => [Number(r.calendar_id), Number(r.id)] as const);
      await t(trx).updateTable('federation_deliveries').set({ lease_until_ms: leaseUntilMs }).where(byCalendarAndId(keys)).execute();
      const rows = await t(trx)
        .selectFrom('federation_deliveries')
        .select(['id', 'calendar_id', 'activity_id', 'activity_type', 'inbox', 'body', 'attempts'])
        .where(byCalendarAndId(keys))
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        ...r,
        id: Number(r.id),
        calendar_id: Number(r.calendar_id),
        attempts: Number(r.attempts),
      }));
    }),
  );
}

/** Record an attempt's outcome: `delivered`, `pending` (retried at `nextAttemptMs`), `failed` or `gone`. */
export async function recordDeliveryAttempt(
  db: Executor,
  id: number,
  outcome: { status: 'delivered' | 'pending' | 'failed' | 'gone'; attempts: number; nextAttemptMs?: number; lastStatus: number | null; lastError: string | null; now: number },
): Promise<void> {
  await t(db)
    .updateTable('federation_deliveries')
    .set({
      status: outcome.status,
      attempts: outcome.attempts,
      next_attempt_ms: outcome.nextAttemptMs ?? outcome.now,
      lease_until_ms: 0,
      last_status: outcome.lastStatus,
      last_error: outcome.lastError,
      updated_ms: outcome.now,
    })
    .where('id', '=', id)
    .execute();
}

/** Pending deliveries to `inbox` are dropped as gone (its followers were removed). */
export async function dropPendingTo(db: Executor, inbox: string, now: number): Promise<void> {
  await t(db).updateTable('federation_deliveries').set({ status: 'gone', lease_until_ms: 0, updated_ms: now }).where('inbox', '=', inbox).where('status', '=', 'pending').execute();
}

export async function listDeliveries(db: Executor, options: { status?: string; limit: number; offset: number }): Promise<{ rows: Array<Omit<DeliveryRow, 'body'>>; total: number }> {
  let q = t(db).selectFrom('federation_deliveries');
  if (options.status) q = q.where('status', '=', options.status);
  const rows = await q
    .select(['id', 'activity_id', 'activity_type', 'inbox', 'status', 'attempts', 'next_attempt_ms', 'lease_until_ms', 'last_status', 'last_error', 'created_ms', 'updated_ms'])
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** Re-queue a failed or gone delivery now; answers whether there was one. */
export async function retryDelivery(db: Executor, id: number, now: number): Promise<boolean> {
  const r = await t(db)
    .updateTable('federation_deliveries')
    .set({ status: 'pending', next_attempt_ms: now, lease_until_ms: 0, updated_ms: now })
    .where('id', '=', id)
    .where('status', 'in', ['failed', 'gone'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function countDeliveries(db: Executor): Promise<Record<string, number>> {
  const rows = await t(db)
    .selectFrom('federation_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The deliveries of every calendar by state, in one statement (read from `federation_deliveries_due`). */
export async function serviceDeliveryCounts(db: Executor): Promise<Record<string, number>> {
  return acrossCalendars(() => countDeliveries(db));
}

// ---------------------------------------------------------------- activities kept for moderation

export async function insertReceived(db: Executor, r: Omit<ReceivedRow, 'id'>): Promise<void> {
  await t(db).insertInto('federation_received').values(r).execute();
}

export async function listReceived(db: Executor, options: { limit: number; offset: number }): Promise<{ rows: ReceivedRow[]; total: number }> {
  const q = t(db).selectFrom('federation_received');
  const rows = await q.selectAll().orderBy('id', 'desc').limit(options.limit).offset(options.offset).execute();
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}
