/**
 * Federation's jobs on the runner: the outbox (one instance at a time: it moves a shared cursor,
 * woken by commits), the deliveries (shared by instances through leases, woken when something is
 * queued and polled for other instances' work) and the inbox queue (activities Fedify verified and
 * queued, handled on any instance).
 *
 * @example registerFederationJobs(runner, { db, postgres, federation, deliveries, outbox, kv, changes, logger, retrySchedule, onInboxQueued })
 */
import type { Federation } from '@fedify/fedify';
import type { JobRunner } from '../jobs/runner.js';
import type { Store } from '../store/db.js';
import type { Executor } from '../store/schema.js';
import { claimMessages, finishMessage, postponeMessage } from '../store/federation.js';
import type { Deliveries } from './deliveries.js';
import { LEASE_MS } from './deliveries.js';
import type { createKvStore } from './kv.js';
import type { createOutbox } from './outbox.js';

export function registerFederationJobs(
  runner: JobRunner,
  deps: {
    db: Executor;
    postgres: boolean;
    federation: Federation<void>;
    deliveries: Deliveries;
    outbox: ReturnType<typeof createOutbox>;
    kv: ReturnType<typeof createKvStore>;
    changes: Store['changes'];
    logger: { warn(obj: object, msg: string): void };
    retrySchedule: readonly number[];
    /** Hand over the inbox job's nudge (the queue calls it when Fedify queues an activity). */
    onInboxJob(nudge: () => void): void;
  },
): void {
  const { db, federation, deliveries, outbox, kv, logger, retrySchedule } = deps;
  // Jobs: the outbox (one instance at a time: it moves a shared cursor) and the deliveries
  // (shared by instances through leases), woken by commits and polled for other instances' work.
  const pollMs = Math.max(100, Math.min(5_000, Math.floor(Math.min(...retrySchedule, 10_000) / 2)));
  const deliveryJob = runner.register({
    name: 'federation-delivery',
    everyMs: pollMs,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const more = await deliveries.deliverDue();
      if (!more && Math.random() < 0.01) await kv.purge();
      return more && !ctx.isStopped() ? { more: true } : undefined;
    },
  });
  deliveries.onQueued(() => deliveryJob.nudge());
  // Incoming activities Fedify verified and queued: handled here, on any instance.
  const inboxJob = runner.register({
    name: 'federation-inbox',
    everyMs: 1_000,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const now = Date.now();
      const batch = await claimMessages(db, { now, leaseUntilMs: now + LEASE_MS, limit: 10, skipLocked: deps.postgres });
      for (const m of batch) {
        try {
          await federation.processQueuedTask(undefined, JSON.parse(m.message) as Parameters<typeof federation.processQueuedTask>[1]);
          await finishMessage(db, m.id);
        } catch (err) {
          // Fedify retries a failing listener itself (it queues the message again); this is a
          // failure around it (the database): try again later, at most ten times.
          logger.warn({ err: (err as Error).message, attempts: m.attempts + 1 }, 'federation: an incoming activity could not be handled');
          if (m.attempts + 1 >= 10) await finishMessage(db, m.id);
          else await postponeMessage(db, m.id, m.attempts + 1, Date.now() + 1_000 * 2 ** m.attempts);
        }
      }
      // Messages with the same ordering key wait for the one before: look again at once.
      return batch.length > 0 && !ctx.isStopped() ? { more: true } : undefined;
    },
  });
  deps.onInboxJob(() => inboxJob.nudge());
  outbox.onQueued(() => deliveries.nudge());
  const outboxJob = runner.register({
    name: 'federation-outbox',
    everyMs: 1_000,
    singleton: true,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const more = await outbox.step();
      return more && !ctx.isStopped() ? { more: true } : undefined;
    },
    onStop: () => unsubscribe(),
  });
  const unsubscribe = deps.changes.subscribe(() => outboxJob.nudge(), { pollMs: 1_000 });
}
