/**
 * The webhook worker: background work of each running server (`buildApp` starts it, `close`
 * stops it). Every poll (and soon after this process writes) it turns new change-log rows into
 * deliveries and sends the due ones (`service.ts`), until nothing is left to send; with no enabled
 * endpoint a poll is one small query.
 *
 * @example
 *   const worker = startWebhookWorker(webhooks, app.log, { pollMs: 1000 });
 *   await worker.stop();
 */
import type { WebhookService } from '../webhooks/service.js';

export interface WebhookWorker {
  /** Run soon (after a local write). */
  nudge(): void;
  /** Run once now and wait for it (tests, CLI). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerLogger {
  warn(obj: object, msg: string): void;
}

/** How often the worker looks, given the shortest retry delay (short schedules in tests look more often). */
export function pollIntervalMs(schedule: readonly number[]): number {
  const shortest = schedule.length ? Math.min(...schedule) : 1000;
  return Math.max(50, Math.min(1000, Math.floor(shortest / 2)));
}

export function startWebhookWorker(webhooks: WebhookService, logger: WorkerLogger, options: { pollMs: number }): WebhookWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const work = async () => {
    if (!(await webhooks.anyEnabled())) return;
    await webhooks.materialize();
    // Send until nothing due is left (bounded, so a stop is never far away).
    for (let round = 0; round < 50 && !stopped; round++) {
      const sent = await webhooks.deliverDue();
      if (sent === 0) break;
      if (round % 5 === 4) await webhooks.materialize();
    }
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, delay);
    timer.unref();
  };

  const tick = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    timer = undefined;
    running = work()
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'webhook worker: run failed (retried at the next poll)'))
      .finally(() => {
        running = undefined;
        const soon = again;
        again = false;
        schedule(soon ? 0 : options.pollMs);
      });
    return running;
  };

  schedule(options.pollMs);
  return {
    nudge() {
      if (running) again = true;
      else schedule(10);
    },
    async runOnce() {
      await running;
      await tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
