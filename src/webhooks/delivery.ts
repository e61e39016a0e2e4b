/**
 * Sending: claim the due deliveries of every calendar with a lease (on PostgreSQL `FOR UPDATE SKIP LOCKED`), send
 * each (`send.ts`), and record the attempt: success, or the next try on WEBHOOKS_RETRY_SCHEDULE,
 * the endpoint disabled after WEBHOOKS_DISABLE_AFTER of failures (`store/webhooks.ts`).
 *
 * @example
 *   const sent = await createDelivery(deps).deliverDue();
 */
import { claimDeliveries, recordAttempt as storeAttempt } from '../store/webhooks.js';
import { inCalendar } from '../store/calendar-scope.js';
import { sendWebhook, type AttemptResult } from './send.js';
import type { WebhookService, WebhookServiceDeps } from './types.js';

/** Deliveries claimed at once. */
const CLAIM = 20;

export function createDelivery(deps: WebhookServiceDeps): Pick<WebhookService, 'deliverDue'> {
  const { config } = deps;
  const { store } = deps.services;
  const db = store.db;
  const postgres = store.dialect === 'postgres';

  async function recordAttempt(d: { id: string; endpoint_id: number | string; attempts: number | string }, result: AttemptResult, startedMs: number): Promise<void> {
    const now = Date.now();
    const attempts = Number(d.attempts) + 1;
    const schedule = config.webhooksRetrySchedule;
    const spent = attempts > schedule.length;
    await storeAttempt(db, {
      deliveryId: d.id,
      endpointId: Number(d.endpoint_id),
      attempts,
      attempt: {
        attempted_gmt: new Date(startedMs).toISOString(),
        outcome: result.ok ? 'succeeded' : result.refused ? 'refused' : result.status !== undefined ? 'failed' : 'error',
        response_code: result.status ?? null,
        duration_ms: result.durationMs,
        error: result.error ?? null,
      },
      ok: result.ok,
      responseCode: result.status ?? null,
      ...(spent ? {} : { nextAttemptMs: now + schedule[attempts - 1]! }),
      startedMs,
      now,
      disableAfterMs: config.webhooksDisableAfterMs,
    });
  }

  return {
    async deliverDue() {
      const now = Date.now();
      const claimed = await claimDeliveries(db, { now, leaseUntilMs: now + 2 * config.webhooksTimeoutMs + 1000, limit: CLAIM, skipLocked: postgres });
      await Promise.all(
        claimed.map(async (d) => {
          const started = Date.now();
          const result = await sendWebhook(d.url, d.id, d.payload, d.secret, { timeoutMs: config.webhooksTimeoutMs, allowPrivate: config.webhooksAllowPrivate });
          // Claimed across calendars; the attempt is the delivery's calendar's.
          await inCalendar(d.calendar_id, () => recordAttempt(d, result, started));
        }),
      );
      return claimed.length;
    },
  };
}
