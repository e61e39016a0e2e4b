/**
 * The webhook worker: background work of each running server, a job on the runner (`runner.ts`;
 * `buildApp` starts the runner, `close` stops it). Every poll (and soon after this process writes) it turns new change-log rows into
 * deliveries and sends the due ones (`service.ts`), until nothing is left to send; with no enabled
 * endpoint a poll is one small query, and a nudge within a poll interval of it none.
 *
 * @example
 *   const worker = registerWebhookWorker(runner, webhooks, { pollMs: 1000 });
 *   await worker.stop();
 */
import type { WebhookService } from '../webhooks/service.js';
import type { JobRunner } from './runner.js';

export interface WebhookWorker {
  /** Run soon (after a local write). */
  nudge(): void;
  /**
   * Whether a nudge after a local write would do anything: false while the store said, less than a
   * poll interval ago, that no endpoint is enabled (and no endpoint changed here since).
   */
  wantsWakes(): boolean;
  /** Run once now and wait for it (tests, CLI). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/** How often the worker looks, given the shortest retry delay (short schedules in tests look more often). */
export function pollIntervalMs(schedule: readonly number[]): number {
  const shortest = schedule.length ? Math.min(...schedule) : 1000;
  return Math.max(50, Math.min(1000, Math.floor(shortest / 2)));
}

/** The job's name (metrics, log lines, `runner.nudge`). */
export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery';

/**
 * Declare the webhook worker to the runner: a run every `pollMs` after the last (a failed run too),
 * 10 ms after a nudge. Not a singleton: servers sharing a database run it side by side, kept apart
 * by the service itself (deliveries claimed with `FOR UPDATE SKIP LOCKED` and a lease, cursors
 * moved by compare-and-set).
 */
export function registerWebhookWorker(runner: JobRunner, webhooks: WebhookService, options: { pollMs: number }): WebhookWorker {
  let askNow = false;
  const job = runner.register({
    name: WEBHOOK_DELIVERY_JOB,
    firstMs: options.pollMs,
    everyMs: options.pollMs,
    nudgeMs: 10,
    backoff: { initialMs: options.pollMs, maxMs: options.pollMs },
    async run(ctx) {
      // With no endpoint enabled, a nudge (every local write) does not ask the store again within
      // a poll interval of its last "no": endpoints changed in this process are seen at once,
      // another's by the next scheduled poll. Nothing is lost meanwhile: deliveries are made from
      // each endpoint's cursor in the change log. `runOnce` always asks.
      const maxAgeMs = askNow ? 0 : options.pollMs;
      askNow = false;
      if (!(await webhooks.anyEnabled(maxAgeMs))) return;
      await webhooks.materialize();
      // Send until nothing due is left (bounded, so a stop is never far away).
      for (let round = 0; round < 50 && !ctx.isStopped(); round++) {
        const sent = await webhooks.deliverDue();
        if (sent === 0) break;
        if (round % 5 === 4) await webhooks.materialize();
      }
    },
  });
  return {
    nudge: () => job.nudge(),
    wantsWakes: () => !webhooks.knownNoneEnabled(options.pollMs),
    async runOnce() {
      askNow = true;
      await job.runOnce();
    },
    stop: () => job.stop(),
  };
}
