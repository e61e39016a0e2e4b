/**
 * What a calendar's quotas count (domain/quotas.ts has the policy), each in the calendar of the
 * work at hand (the scope plugin filters every statement by it): its events, the bytes of its
 * uploaded images, its webhook endpoints. Each is read inside the write it limits, after the
 * calendar's quota lock (`lockQuota`), so that writes at once count one after the other.
 *
 * @example
 *   await lockQuota(trx, 'events');
 *   const used = await countQuotaEvents(trx); // then insert, or refuse
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { calendarIdNow } from './calendar-scope.js';
import { lockForWrite } from './locks.js';

/**
 * Take the calendar's lock for one quota (PostgreSQL; SQLite runs one write at a time): writes of
 * that quota in that calendar, from any instance, count and insert one after the other.
 */
export async function lockQuota(trx: Executor, name: string): Promise<void> {
  await lockForWrite(trx, `calendar-quota:${calendarIdNow()}:${name}`);
}

/**
 * The calendar's events as the `events` quota counts them: events and recurring events' series,
 * trashed ones included (they are still kept); an occurrence of a series (an event post whose
 * parent is its series) is the series' and does not count.
 */
export async function countQuotaEvents(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => eb.or([eb('type', '=', 'tribe_event_series'), eb.and([eb('type', '=', 'tribe_events'), eb('parent_id', '=', 0)])]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The bytes of the calendar's uploaded images (each one's kept full-size file; URL images have none). */
export async function sumQuotaMediaBytes(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('images')
    .select(sql<number>`coalesce(sum("filesize"), 0)`.as('n'))
    .where('storage_key', '!=', '')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The calendar's webhook endpoints (enabled or not). */
export async function countQuotaWebhookEndpoints(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The public submissions the calendar received since `sinceGmt` (its `submissions_per_day` in use). */
export async function countSubmissionsSince(db: Executor, sinceGmt: string): Promise<number> {
  const row = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_gmt', '>=', sinceGmt)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
