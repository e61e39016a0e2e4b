/**
 * Fedify's own storage over the federation tables (migration 016): its key-value store
 * (`federation_kv`: cached documents, idempotence marks, the inbox limits' counters) and its message
 * queue (`federation_queue`: incoming activities Fedify verified, handled by the inbox job on any
 * instance). Both are per calendar; the upkeep (`kvPurge`) and the claim look across calendars.
 * The federation face's own tables are in federation.ts.
 *
 * @example
 *   await kvSet(db, 'fedify/key', '"v"', Date.now() + 60_000);
 *   const claimed = await claimMessages(db, { now, leaseUntilMs: now + 60_000, limit: 10, skipLocked: true });
 */
import { sql, type Generated } from 'kysely';
import type { Executor, Scoped } from './schema.js';
import { acrossCalendars, byCalendarAndId } from './calendar-scope.js';

export interface FederationKvTable {
  key: string;
  value: string;
  expires_ms: number | string | null;
}
export interface FederationQueueTable {
  id: Generated<number>;
  message: string;
  ordering_key: string | null;
  run_at_ms: number | string;
  lease_until_ms: Generated<number | string>;
  attempts: Generated<number>;
  created_ms: number | string;
}

type Tables = {
  federation_kv: Scoped<FederationKvTable>;
  federation_queue: Scoped<FederationQueueTable>;
};

const t = (db: Executor) => db.withTables<Tables>();

// ---------------------------------------------------------------- key-value store (Fedify's)

/** A value by key (undefined: none, or expired at `now`). */
export async function kvGet(db: Executor, key: string, now: number): Promise<string | undefined> {
  return (await kvEntry(db, key, now))?.value;
}

/** A value by key with its expiry (undefined: none, or expired at `now`). */
export async function kvEntry(db: Executor, key: string, now: number): Promise<{ value: string; expiresMs: number | null } | undefined> {
  const row = await t(db).selectFrom('federation_kv').select(['value', 'expires_ms']).where('key', '=', key).executeTakeFirst();
  if (!row || (row.expires_ms !== null && Number(row.expires_ms) <= now)) return undefined;
  return { value: row.value, expiresMs: row.expires_ms === null ? null : Number(row.expires_ms) };
}

export async function kvSet(db: Executor, key: string, value: string, expiresMs: number | null): Promise<void> {
  await t(db)
    .insertInto('federation_kv')
    .values({ key, value, expires_ms: expiresMs })
    .onConflict((oc) => oc.columns(['calendar_id', 'key']).doUpdateSet({ value, expires_ms: expiresMs }))
    .execute();
}

export async function kvDelete(db: Executor, key: string): Promise<void> {
  await t(db).deleteFrom('federation_kv').where('key', '=', key).execute();
}

/**
 * Compare-and-swap: set `key` to `value` when its current value (null: absent or expired) is
 * `expected`, in one transaction. Answers whether it was set.
 */
export async function kvCas(db: Executor, key: string, expected: string | null, value: string, expiresMs: number | null, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await t(trx).selectFrom('federation_kv').select(['value', 'expires_ms']).where('key', '=', key).executeTakeFirst();
    const current = !row || (row.expires_ms !== null && Number(row.expires_ms) <= now) ? null : row.value;
    if (current !== expected) return false;
    if (row) {
      const r = await t(trx).updateTable('federation_kv').set({ value, expires_ms: expiresMs }).where('key', '=', key).where('value', '=', row.value).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    }
    const r = await t(trx)
      .insertInto('federation_kv')
      .values({ key, value, expires_ms: expiresMs })
      .onConflict((oc) => oc.columns(['calendar_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    return r !== undefined;
  });
}

/** Entries whose key starts with `prefix` (the encoded key's text), unexpired, in key order. */
export async function kvList(db: Executor, prefix: string | undefined, now: number): Promise<Array<{ key: string; value: string }>> {
  let q = t(db)
    .selectFrom('federation_kv')
    .select(['key', 'value'])
    .where((eb) => eb.or([eb('expires_ms', 'is', null), eb('expires_ms', '>', now)]));
  if (prefix !== undefined) q = q.where(sql<boolean>`substr("key", 1, ${prefix.length}) = ${prefix}`);
  return q.orderBy('key').limit(10_000).execute();
}

/**
 * Count one hit on `key` in its fixed window: the first hit (or the first after the window ended)
 * starts a window ending at `windowEndsMs`. Answers the count with this hit and when the window
 * ends. One statement (an upsert: PostgreSQL locks the row, SQLite has one writer), so parallel
 * requests and instances sharing the database each get a count of their own.
 */
export async function kvCountHit(db: Executor, key: string, now: number, windowEndsMs: number): Promise<{ count: number; endsMs: number }> {
  const expired = sql`"federation_kv"."expires_ms" is null or "federation_kv"."expires_ms" <= ${now}`;
  const row = await t(db)
    .insertInto('federation_kv')
    .values({ key, value: '1', expires_ms: windowEndsMs })
    .onConflict((oc) =>
      oc.columns(['calendar_id', 'key']).doUpdateSet({
        value: sql<string>`case when ${expired} then '1' else cast(cast("federation_kv"."value" as integer) + 1 as text) end`,
        expires_ms: sql<number>`case when ${expired} then ${windowEndsMs} else "federation_kv"."expires_ms" end`,
      }),
    )
    .returning(['value', 'expires_ms'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.value), endsMs: Number(row.expires_ms) };
}

/** Drop expired entries of every calendar (the delivery job's upkeep, now and then); answers how many. */
export async function kvPurge(db: Executor, now: number): Promise<number> {
  const r = await acrossCalendars(() => t(db).deleteFrom('federation_kv').where('expires_ms', 'is not', null).where('expires_ms', '<=', now).executeTakeFirst());
  return Number(r.numDeletedRows);
}

// ---------------------------------------------------------------- Fedify's message queue

export async function enqueueMessages(db: Executor, messages: Array<{ message: string; ordering_key: string | null }>, runAtMs: number, now: number): Promise<void> {
  if (messages.length === 0) return;
  await t(db)
    .insertInto('federation_queue')
    .values(messages.map((m) => ({ ...m, run_at_ms: runAtMs, lease_until_ms: 0, attempts: 0, created_ms: now })))
    .execute();
}

/**
 * Claim up to `limit` due messages of every active calendar (none while an earlier one with the
 * same ordering key is waiting in that calendar), leased until `leaseUntilMs`. Each comes with its
 * calendar (the actor it was addressed to): it is handled there.
 */
export async function claimMessages(
  db: Executor,
  options: { now: number; leaseUntilMs: number; limit: number; skipLocked: boolean },
): Promise<Array<{ id: number; calendar_id: number; message: string; attempts: number }>> {
  const { now, leaseUntilMs, limit, skipLocked } = options;
  return acrossCalendars(() =>
    db.transaction().execute(async (trx) => {
      const due = await sql<{ id: number | string; calendar_id: number | string }>`
        select q."id", q."calendar_id" from "federation_queue" q
          inner join "calendars" c on c."id" = q."calendar_id" and c."status" = 'active'
        where q."run_at_ms" <= ${now} and q."lease_until_ms" < ${now}
          and (q."ordering_key" is null or not exists (
            select 1 from "federation_queue" p where p."calendar_id" = q."calendar_id" and p."ordering_key" = q."ordering_key" and p."id" < q."id"))
        order by q."id"
        limit ${limit}
        ${skipLocked ? sql`for update of q skip locked` : sql``}`.execute(trx);
      if (due.rows.length === 0) return [];
      // The claimed rows by their key, calendar and id.
      const keys = due.rows.map((r) => [Number(r.calendar_id), Number(r.id)] as const);
      await t(trx).updateTable('federation_queue').set({ lease_until_ms: leaseUntilMs }).where(byCalendarAndId(keys)).execute();
      const rows = await t(trx).selectFrom('federation_queue').select(['id', 'calendar_id', 'message', 'attempts']).where(byCalendarAndId(keys)).orderBy('id').execute();
      return rows.map((r) => ({ id: Number(r.id), calendar_id: Number(r.calendar_id), message: r.message, attempts: Number(r.attempts) }));
    }),
  );
}

export async function finishMessage(db: Executor, id: number): Promise<void> {
  await t(db).deleteFrom('federation_queue').where('id', '=', id).execute();
}

/** A message whose handling threw: due again at `runAtMs`. */
export async function postponeMessage(db: Executor, id: number, attempts: number, runAtMs: number): Promise<void> {
  await t(db).updateTable('federation_queue').set({ attempts, run_at_ms: runAtMs, lease_until_ms: 0 }).where('id', '=', id).execute();
}

export async function queueDepth(db: Executor, now: number): Promise<{ queued: number; ready: number; delayed: number }> {
  const row = await t(db)
    .selectFrom('federation_queue')
    .select([(eb) => eb.fn.countAll<number | string>().as('n'), sql<number | string>`sum(case when "run_at_ms" <= ${now} then 1 else 0 end)`.as('ready')])
    .executeTakeFirstOrThrow();
  const queued = Number(row.n);
  const ready = Number(row.ready ?? 0);
  return { queued, ready, delayed: queued - ready };
}
