/**
 * The `shared-limits-pruning` job: deletes the rows of the limits shared in the database
 * (store/shared-limits.ts) that no limit counts any more: failed-login counts past their window
 * (15 minutes after the last failure, no block left, no attempt in flight) and rate-limit grants of
 * windows before the last one. Every 10 minutes; safe on several servers at once (a delete of rows
 * already gone deletes nothing).
 *
 * @example
 *   const job = registerSharedLimitsJob(runner, services);
 *   await job.runOnce(); // { value: 12 }: twelve rows deleted
 */
import type { DomainServices } from '../domain/services.js';
import { pruneSharedLimits } from '../store/shared-limits.js';
import { FAILURE_WINDOW_MS } from '../domain/login-throttle.js';
import type { JobHandle, JobRunner } from './runner.js';

const EVERY_MS = 10 * 60_000;

export function registerSharedLimitsJob(runner: JobRunner, services: Pick<DomainServices, 'config' | 'store'>): JobHandle<number> {
  return runner.register<number>({
    name: 'shared-limits-pruning',
    everyMs: EVERY_MS,
    firstMs: 60_000,
    backoff: { initialMs: 60_000, maxMs: EVERY_MS },
    async run() {
      const now = Date.now();
      const windowMs = Math.max(1, services.config.rateLimitWindow) * 1000;
      return { value: await pruneSharedLimits(services.store.db, now, FAILURE_WINDOW_MS, now - 2 * windowMs) };
    },
  });
}
