/**
 * Webhook tables (migration 007): endpoints with their cursor in the change log, deliveries and
 * their attempts. The rules (what a message says, when to retry, when to disable) are the webhook
 * service's (`webhooks/service.ts`); this file holds its SQL.
 *
 * @example
 *   const id = await insertEndpoint(db, { url: 'https://example.com/hook', … });
 *   await storeDeliveries(db, id, 1043, 1050, rows) // 3: the cursor moved from 1043 to 1050 with them
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';
import { acrossCalendars, byCalendarAndId } from './calendar-scope.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** Every endpoint, by id. */
export async function listEndpoints(db: Executor): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute();
}

export async function findEndpoint(db: Executor, id: number): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Insert an endpoint; returns its id. */
export async function insertEndpoint(db: Executor, values: Insertable<WebhookEndpointsTable>): Promise<number> {
  const row = await db.insertInto('webhook_endpoints').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateEndpoint(db: Executor, id: number, set: Record<string, unknown>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
}

/** Delete an endpoint with its deliveries and their attempts, in one transaction. */
export async function deleteEndpoint(db: Executor, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', trx.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id))
      .execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  });
}

/**
 * The enabled endpoints of every calendar, with their calendar, cursors and event types, by
 * calendar and id: the webhook worker's scan, which then makes each calendar's deliveries in it.
 */
export async function enabledEndpoints(db: Executor): Promise<Array<Pick<EndpointRow, 'id' | 'cursor_seq' | 'events'> & { calendar_id: number }>> {
  const rows = await acrossCalendars(() =>
    db.selectFrom('webhook_endpoints').select(['id', 'cursor_seq', 'events', 'calendar_id']).where('enabled', '=', 1).orderBy('calendar_id').orderBy('id').execute(),
  );
  return rows.map((r) => ({ ...r, calendar_id: Number(r.calendar_id) }));
}

/** Whether any endpoint of any calendar is enabled (the worker's cheap look before its work). */
export async function anyEndpointEnabled(db: Executor): Promise<boolean> {
  return (await acrossCalendars(() => db.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1).limit(1).executeTakeFirst())) !== undefined;
}

/**
 * Each calendar's lowest webhook endpoint cursor, enabled or not (a disabled endpoint delivers from
 * its cursor once enabled again); calendars without endpoints are absent. An endpoint reads its own
 * calendar's rows only, so it holds back only those: log rows of that calendar past it are still to
 * be delivered.
 */
export async function lowestWebhookCursors(db: Executor): Promise<Map<number, number>> {
  const rows = await acrossCalendars(() =>
    db
      .selectFrom('webhook_endpoints')
      .select(['calendar_id', (eb) => eb.fn.min('cursor_seq').as('low')])
      .groupBy('calendar_id')
      .execute(),
  );
  const out = new Map<number, number>();
  for (const r of rows) if (r.low !== null && r.low !== undefined) out.set(Number(r.calendar_id), Number(r.low));
  return out;
}

/** An endpoint's deliveries, newest first, with their total (of that status, when given). */
export async function listDeliveries(db: Executor, endpointId: number, options: { status?: string; limit?: number; offset?: number }): Promise<{ rows: DeliveryRow[]; total: number }> {
  let q = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (options.status) q = q.where('status', '=', options.status);
  const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await q
    .selectAll()
    .orderBy('seq', 'desc')
    .orderBy('idx', 'desc')
    .limit(options.limit ?? 50)
    .offset(options.offset ?? 0)
    .execute();
  return { rows, total };
}

export async function findDelivery(db: Executor, endpointId: number, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
}

/** The attempts of these deliveries, in the order they were made. */
export async function attemptsOf(db: Executor, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
}

/** Make a delivery pending again, due now; false when the endpoint has no such delivery. */
export async function resetDelivery(db: Executor, endpointId: number, id: string, nowMs: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_ms: nowMs, lease_until_ms: 0 })
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Move an endpoint's cursor from `from` to `to` and insert its new deliveries, in one transaction.
 * Compare-and-set: when another instance got here first (the cursor is no longer `from`), nothing
 * is made and this answers 0; otherwise how many deliveries were inserted.
 */
export async function storeDeliveries(db: Executor, endpointId: number, from: number, to: number, deliveries: Array<Insertable<WebhookDeliveriesTable>>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx.updateTable('webhook_endpoints').set({ cursor_seq: to }).where('id', '=', endpointId).where('cursor_seq', '=', from).executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return 0;
    for (let i = 0; i < deliveries.length; i += 100)
      await trx
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(i, i + 100))
        .execute();
    return deliveries.length;
  });
}

/** A claimed delivery, with where it goes. */
export interface ClaimedDelivery {
  id: string;
  /** the calendar of the delivery (its attempt is recorded in it) */
  calendar_id: number;
  endpoint_id: number;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Claim up to `limit` due deliveries of enabled endpoints, of every calendar (none while an earlier
 * one of the same record to the same endpoint is pending), leasing them until `leaseUntilMs`; on
 * PostgreSQL with `FOR UPDATE SKIP LOCKED`, so concurrent claimers take different ones. Each comes
 * with its calendar: its attempt is recorded in it. The claimed rows are named by their key,
 * calendar and id (migration 034).
 */
export async function claimDeliveries(db: Executor, options: { now: number; leaseUntilMs: number; limit: number; skipLocked: boolean }): Promise<ClaimedDelivery[]> {
  const { now, leaseUntilMs, limit, skipLocked } = options;
  const claimed = await acrossCalendars(() =>
    db.transaction().execute(async (trx) => {
      const due = await sql<{ id: string; calendar_id: string }>`
        select d."id", d."calendar_id" from "webhook_deliveries" d
          inner join "webhook_endpoints" e on e."id" = d."endpoint_id" and e."calendar_id" = d."calendar_id"
        where d."status" = 'pending' and d."next_attempt_ms" <= ${now} and d."lease_until_ms" < ${now} and e."enabled" = 1
          and not exists (
            select 1 from "webhook_deliveries" p
            where p."endpoint_id" = d."endpoint_id" and p."calendar_id" = d."calendar_id" and p."record_key" = d."record_key" and p."status" = 'pending'
              and (p."seq" < d."seq" or (p."seq" = d."seq" and p."idx" < d."idx")))
        order by d."seq", d."idx"
        limit ${limit}
        ${skipLocked ? sql`for update of d skip locked` : sql``}`.execute(trx);
      if (due.rows.length === 0) return [];
      const keys = due.rows.map((r) => [Number(r.calendar_id), r.id] as const);
      await trx.updateTable('webhook_deliveries').set({ lease_until_ms: leaseUntilMs }).where(byCalendarAndId(keys)).execute();
      return trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', (j) => j.onRef('e.id', '=', 'd.endpoint_id').onRef('e.calendar_id', '=', 'd.calendar_id'))
        .select(['d.id', 'd.calendar_id', 'd.endpoint_id', 'd.payload', 'd.attempts', 'e.url', 'e.secret'])
        .where(byCalendarAndId(keys, 'd'))
        .orderBy('d.seq')
        .orderBy('d.idx')
        .execute();
    }),
  );
  return claimed.map((d) => ({ ...d, calendar_id: Number(d.calendar_id) }));
}

/** One attempt to record (`recordAttempt`). */
export interface AttemptRecord {
  deliveryId: string;
  endpointId: number;
  /** the delivery's attempts, this one included */
  attempts: number;
  attempt: Omit<Insertable<WebhookAttemptsTable>, 'delivery_id'>;
  /** the receiver accepted it */
  ok: boolean;
  responseCode: number | null;
  /** a failure: when to try again (undefined: no more tries, the delivery failed) */
  nextAttemptMs?: number;
  /** when the attempt started, and now (ms since the epoch) */
  startedMs: number;
  now: number;
  /** an endpoint failing this long without a success is disabled */
  disableAfterMs: number;
}

/**
 * Record an attempt, in one transaction: the attempt's row, the delivery's state (succeeded,
 * pending again, or failed) and the endpoint's (a success clears `failing_since`; a failure sets
 * it when unset, and disables the endpoint once it has been failing for `disableAfterMs`).
 */
export async function recordAttempt(db: Executor, a: AttemptRecord): Promise<void> {
  await db.transaction().execute(async (trx: Executor) => {
    await trx
      .insertInto('webhook_attempts')
      .values({ delivery_id: a.deliveryId, ...a.attempt })
      .execute();
    if (a.ok) {
      await trx.updateTable('webhook_deliveries').set({ status: 'succeeded', attempts: a.attempts, lease_until_ms: 0, last_response_code: a.responseCode }).where('id', '=', a.deliveryId).execute();
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', a.endpointId).execute();
      return;
    }
    const spent = a.nextAttemptMs === undefined;
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: spent ? 'failed' : 'pending',
        attempts: a.attempts,
        next_attempt_ms: a.nextAttemptMs ?? a.now,
        lease_until_ms: 0,
        last_response_code: a.responseCode,
      })
      .where('id', '=', a.deliveryId)
      .execute();
    const ep = await trx.selectFrom('webhook_endpoints').select(['failing_since', 'enabled']).where('id', '=', a.endpointId).executeTakeFirst();
    if (!ep) return;
    const since = ep.failing_since === null ? a.startedMs : Number(ep.failing_since);
    const disable = Number(ep.enabled) === 1 && a.now - since >= a.disableAfterMs;
    await trx
      .updateTable('webhook_endpoints')
      .set({
        failing_since: since,
        ...(disable ? { enabled: 0, disabled_reason: `failing since ${new Date(since).toISOString()} without a success` } : {}),
      })
      .where('id', '=', a.endpointId)
      .execute();
  });
}
