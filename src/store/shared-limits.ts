/**
 * The limits shared by every instance on one database (migration 020): the failed-login
 * throttle's counts (`login_failures`, domain/login-throttle.ts has the policy) and the REST rate
 * limit's grants (`rate_limit_grants`, web/rate-limit.ts). Each change is one atomic statement on
 * its row (an upsert or an update), so counts taken at once on several instances add up.
 *
 * @example
 *   const r = await reserveLoginAttempt(db, [{ key: 'p:id:1\n10.0.0.1', threshold: 5 }], Date.now(), policy);
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './schema.js';
import { writeTransaction } from './changes.js';

type Tables = {
  login_failures: LoginFailureRow & { key: string };
  rate_limit_grants: { key: string; window_start_ms: number | string; count: number; granted: number };
};
const t = (db: Executor) => db.withTables<Tables>();

export interface LoginFailureRow {
  failures: number;
  pending: number;
  pending_until_ms: number | string;
  last_ms: number | string;
  blocked_until_ms: number | string;
}

/** One count an attempt goes through; `threshold` undefined: never refused (only counted). */
export interface LoginCounter {
  key: string;
  threshold?: number;
}

export interface LoginPolicy {
  /** failures are forgotten this long after the last one */
  windowMs: number;
  /** attempts in flight are trusted this long (an instance may stop in the middle of a check) */
  leaseMs: number;
  /** how long a key is refused once it has this many failures (`threshold` or more) */
  blockMs(failures: number, threshold: number): number;
}

const n = (v: number) => sql.lit(Math.floor(v));

/** The SQL of `now`'s view of a row of `login_failures` (inside its upsert or update). */
function live(now: number, windowMs: number) {
  const pending = sql<number>`(case when "login_failures"."pending_until_ms" < ${n(now)} then 0 else "login_failures"."pending" end)`;
  const expired = sql<boolean>`("login_failures"."last_ms" < ${n(now - windowMs)} and "login_failures"."blocked_until_ms" <= ${n(now)} and ${pending} = 0)`;
  const failures = sql<number>`(case when ${expired} then 0 else "login_failures"."failures" end)`;
  return { pending, expired, failures };
}

/** How long a row refuses an attempt now, in ms (0: it does not), as the upsert's condition decides. */
export function loginWaitMs(row: LoginFailureRow | undefined, threshold: number, now: number, windowMs: number): number {
  if (!row) return 0;
  const blocked = Number(row.blocked_until_ms);
  const pending = Number(row.pending_until_ms) < now ? 0 : row.pending;
  if (pending === 0 && Number(row.last_ms) < now - windowMs && blocked <= now) return 0;
  if (blocked > now) return blocked - now;
  return pending >= Math.max(threshold - row.failures, 1) ? 1000 : 0;
}

class Refused extends Error {
  readonly waitMs: number;

  constructor(waitMs: number) {
    super('refused');
    this.waitMs = waitMs;
  }
}

/**
 * Count an attempt in flight on each counter, all or none, in one transaction (counters in a fixed
 * order of kinds, so two attempts never wait for each other in a cycle): `failures` of each (the
 * completed ones, for the caller's delay), or how long the first refusing counter refuses (ms).
 */
export async function reserveLoginAttempt(db: Executor, counters: LoginCounter[], now: number, policy: LoginPolicy): Promise<{ failures: number[] } | { refusedMs: number }> {
  try {
    return await writeTransaction(db, async (trx) => {
      const failures: number[] = [];
      const v = live(now, policy.windowMs);
      for (const { key, threshold } of counters) {
        const allowed =
          threshold === undefined
            ? sql<boolean>`1 = 1`
            : sql<boolean>`"login_failures"."blocked_until_ms" <= ${n(now)} and ${v.pending} < (case when ${n(threshold)} - ${v.failures} > 1 then ${n(threshold)} - ${v.failures} else 1 end)`;
        const row = await sql<{ failures: number }>`
          insert into "login_failures" ("key", "failures", "pending", "pending_until_ms", "last_ms", "blocked_until_ms")
          values (${key}, 0, 1, ${n(now + policy.leaseMs)}, ${n(now)}, 0)
          on conflict ("key") do update set
            "failures" = ${v.failures},
            "blocked_until_ms" = case when ${v.expired} then 0 else "login_failures"."blocked_until_ms" end,
            "pending" = ${v.pending} + 1,
            "pending_until_ms" = ${n(now + policy.leaseMs)}
          where ${allowed}
          returning "failures"`.execute(trx);
        const got = row.rows[0];
        if (got) {
          failures.push(Number(got.failures));
          continue;
        }
        const current = await t(trx).selectFrom('login_failures').select(['failures', 'pending', 'pending_until_ms', 'last_ms', 'blocked_until_ms']).where('key', '=', key).executeTakeFirst();
        throw new Refused(Math.max(loginWaitMs(current, threshold!, now, policy.windowMs), 1000));
      }
      return { failures };
    });
  } catch (err) {
    if (err instanceof Refused) return { refusedMs: err.waitMs };
    throw err;
  }
}

/**
 * End an attempt reserved on these counters: `failed` counts a failure (and blocks a counter with
 * a threshold from it on, for `policy.blockMs`), `reset` forgets the failures of the counters
 * named (a success of a pair); the attempt stops counting as in flight either way.
 */
export async function endLoginAttempt(db: Executor, counters: LoginCounter[], outcome: { failed: boolean; reset?: string[] }, now: number, policy: LoginPolicy): Promise<void> {
  await writeTransaction(db, async (trx) => {
    for (const { key, threshold } of counters) {
      const pending = sql<number>`case when "pending_until_ms" < ${n(now)} or "pending" <= 0 then 0 else "pending" - 1 end`;
      let set: RawBuilder<unknown>;
      if (outcome.failed) {
        // The block for failures + 1, written as a CASE (no power function in both databases).
        let block: RawBuilder<unknown> = sql`"blocked_until_ms"`;
        if (threshold !== undefined) {
          const steps: RawBuilder<unknown>[] = [];
          for (let k = 0; k < 32; k++) {
            steps.push(sql`when ${n(threshold + k)} then ${n(now + policy.blockMs(threshold + k, threshold))}`);
            if (policy.blockMs(threshold + k, threshold) === policy.blockMs(threshold + k + 1, threshold)) break;
          }
          const last = now + policy.blockMs(threshold + 1000, threshold);
          block = sql`case when "failures" + 1 < ${n(threshold)} then "blocked_until_ms" else (case "failures" + 1 ${sql.join(steps, sql` `)} else ${n(last)} end) end`;
        }
        set = sql`"pending" = ${pending}, "failures" = "failures" + 1, "last_ms" = ${n(now)}, "blocked_until_ms" = ${block}`;
      } else if (outcome.reset?.includes(key)) set = sql`"pending" = ${pending}, "failures" = 0, "blocked_until_ms" = 0`;
      else set = sql`"pending" = ${pending}`;
      await sql`update "login_failures" set ${set} where "key" = ${key}`.execute(trx);
    }
  });
}

/** The rows of these keys (a remembered success's check: read only). */
export async function readLoginCounts(db: Executor, keys: string[]): Promise<Map<string, LoginFailureRow>> {
  const rows = await t(db).selectFrom('login_failures').select(['key', 'failures', 'pending', 'pending_until_ms', 'last_ms', 'blocked_until_ms']).where('key', 'in', keys).execute();
  return new Map(rows.map((r) => [r.key, r]));
}

/** Forget a key's failures (a remembered success of a pair that had some). */
export async function resetLoginCount(db: Executor, key: string): Promise<void> {
  await writeTransaction(db, (trx) => t(trx).updateTable('login_failures').set({ failures: 0, blocked_until_ms: 0 }).where('key', '=', key).execute());
}

/**
 * Take up to `want` requests of `max` for a key in the window starting at `windowStartMs`: at
 * most what remains (so grants over every instance never add up past `max`). Answers how many
 * were granted (0: none left) and how many the window has granted in all.
 */
export async function takeRateGrant(db: Executor, key: string, windowStartMs: number, max: number): Promise<{ granted: number; total: number }> {
  // `grantSize` of what remains, in SQL.
  const first = grantSize(max);
  // One statement, atomic on its own: no transaction around it (this is on the hot read path).
  const old = sql<number>`(case when "rate_limit_grants"."window_start_ms" = ${n(windowStartMs)} then "rate_limit_grants"."count" else 0 end)`;
  const remaining = sql<number>`(${n(max)} - ${old})`;
  const { divisor, most } = GRANT_SHAPE;
  const grant = sql<number>`(case when ${remaining} <= 0 then 0 when ${remaining} / ${n(divisor)} < 1 then 1 when ${remaining} / ${n(divisor)} > ${n(most)} then ${n(most)} else ${remaining} / ${n(divisor)} end)`;
  const r = await sql<{ count: number; granted: number }>`
    insert into "rate_limit_grants" ("key", "window_start_ms", "count", "granted")
    values (${key}, ${n(windowStartMs)}, ${n(first)}, ${n(first)})
    on conflict ("key") do update set
      "count" = ${old} + ${grant},
      "granted" = ${grant},
      "window_start_ms" = ${n(windowStartMs)}
    returning "count", "granted"`.execute(db);
  const row = r.rows[0]!;
  return { granted: Number(row.granted), total: Number(row.count) };
}

/**
 * How big a grant is: what remains divided by `divisor`, at least 1 and at most `most`. Small
 * grants near the end keep an instance from holding requests another needs (a client sent to
 * several instances is refused at most `remaining / divisor` early per instance).
 */
export const GRANT_SHAPE = { divisor: 8, most: 100 } as const;
export function grantSize(remaining: number): number {
  if (remaining <= 0) return 0;
  return Math.max(1, Math.min(GRANT_SHAPE.most, Math.floor(remaining / GRANT_SHAPE.divisor)));
}

/** Delete what no limit counts any more: login counts past their window and grants of past windows. */
export async function pruneSharedLimits(db: Executor, now: number, loginWindowMs: number, rateWindowStartBeforeMs: number): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const a = await t(trx)
      .deleteFrom('login_failures')
      .where('last_ms', '<', now - loginWindowMs)
      .where('blocked_until_ms', '<=', now)
      .where('pending_until_ms', '<', now)
      .executeTakeFirst();
    const b = await t(trx).deleteFrom('rate_limit_grants').where('window_start_ms', '<', rateWindowStartBeforeMs).executeTakeFirst();
    return Number(a.numDeletedRows) + Number(b.numDeletedRows);
  });
}
