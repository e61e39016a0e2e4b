/**
 * Federation's jobs, handed to the composition root as specs for the runner, each working for every
 * calendar (it looks for due work across calendars, then does each item in its calendar, as the
 * webhook worker does): the outbox (one instance at a time: it moves each calendar's cursor, woken by commits), the deliveries (shared by
 * instances through leases, woken when something is queued and polled for other instances' work)
 * and the inbox queue (activities Fedify verified and queued, handled on any instance). The face
 * registers nothing itself; it wakes its jobs by name through the runner's `nudge`, which the root
 * gives it (a job not registered yet is not woken: its first step comes on its schedule).
 *
 * @example
 *   const specs = federationJobs({ store, federation, deliveries, outbox, kv, logger, retrySchedule, nudge: (name) => runner.nudge(name) });
 *   for (const spec of specs) runner.register(spec);
 */
import type { Federation } from '@fedify/fedify';
import type { FederationStore } from '../domain/federation-store.js';
import type { JobSpec } from '../job-spec.js';
import type { Deliveries } from './deliveries.js';
import { LEASE_MS } from './deliveries.js';
import type { createKvStore } from './kv.js';
import type { createOutbox } from './outbox.js';

/** The jobs' names (the `job` label of their metrics and log lines). */
export const FEDERATION_JOBS = { delivery: 'federation-delivery', inbox: 'federation-inbox', outbox: 'federation-outbox' } as const;

export function federationJobs(deps: {
  store: FederationStore;
  federation: Federation<void>;
  deliveries: Deliveries;
  outbox: ReturnType<typeof createOutbox>;
  kv: ReturnType<typeof createKvStore>;
  logger: { warn(obj: object, msg: string): void };
  retrySchedule: readonly number[];
  /** Wake a job by name (the runner's `nudge`). */
  nudge(name: string): void;
  /** Run `fn` in a calendar (each item of due work is done in its own); absent, in the default calendar (one calendar alone). */
  within?<T>(calendarId: number, fn: () => Promise<T>): Promise<T>;
}): JobSpec[] {
  const { store, federation, deliveries, outbox, kv, logger, retrySchedule, nudge } = deps;
  const within = deps.within ?? (<T>(_calendarId: number, fn: () => Promise<T>) => fn());
  // Jobs: the outbox (one instance at a time: it moves each calendar's cursor) and the deliveries
  // (shared by instances through leases), woken by commits and polled for other instances' work.
  const pollMs = Math.max(100, Math.min(5_000, Math.floor(Math.min(...retrySchedule, 10_000) / 2)));
  const deliveryJob: JobSpec = {
    name: FEDERATION_JOBS.delivery,
    everyMs: pollMs,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const more = await deliveries.deliverDue();
      if (!more && Math.random() < 0.01) await kv.purge();
      return more && !ctx.isStopped() ? { more: true } : undefined;
    },
  };
  deliveries.onQueued(() => nudge(FEDERATION_JOBS.delivery));
  // Incoming activities Fedify verified and queued: handled here, on any instance.
  const inboxJob: JobSpec = {
    name: FEDERATION_JOBS.inbox,
    everyMs: 1_000,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const now = Date.now();
      const batch = await store.claimMessages({ now, leaseUntilMs: now + LEASE_MS, limit: 10 });
      // Messages of every active calendar (the actor each was addressed to); each handled in its calendar.
      for (const m of batch) {
        try {
          await within(m.calendar_id, async () => {
            try {
              await federation.processQueuedTask(undefined, JSON.parse(m.message) as Parameters<typeof federation.processQueuedTask>[1]);
              await store.finishMessage(m.id);
            } catch (err) {
              // Fedify retries a failing listener itself (it queues the message again); this is a
              // failure around it (the database): try again later, at most ten times.
              logger.warn({ err: (err as Error).message, attempts: m.attempts + 1 }, 'federation: an incoming activity could not be handled');
              if (m.attempts + 1 >= 10) await store.finishMessage(m.id);
              else await store.postponeMessage(m.id, m.attempts + 1, Date.now() + 1_000 * 2 ** m.attempts);
            }
          });
        } catch (err) {
          // A calendar deleted since the claim: its messages went with it.
          if ((err as { code?: string }).code !== 'calendar_not_found') throw err;
        }
      }
      // Messages with the same ordering key wait for the one before: look again at once.
      return batch.length > 0 && !ctx.isStopped() ? { more: true } : undefined;
    },
  };
  outbox.onQueued(() => deliveries.nudge());
  const unsubscribe = store.subscribeToChanges(() => nudge(FEDERATION_JOBS.outbox), { pollMs: 1_000 });
  const outboxJob: JobSpec = {
    name: FEDERATION_JOBS.outbox,
    everyMs: 1_000,
    singleton: true,
    backoff: { initialMs: 1_000, maxMs: 60_000 },
    async run(ctx) {
      const more = await outbox.step();
      return more && !ctx.isStopped() ? { more: true } : undefined;
    },
    onStop: () => unsubscribe(),
  };
  return [deliveryJob, inboxJob, outboxJob];
}
