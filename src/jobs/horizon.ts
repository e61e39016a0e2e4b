/**
 * The horizon job: every running server keeps the occurrences of recurring events of every
 * calendar generated `RECURRENCE_HORIZON_MONTHS` ahead, each series in its calendar (with that
 * calendar's configuration). Soon after start and then every hour it looks for
 * series whose generated horizon is more than a day behind and extends each one (`materialise`,
 * which inserts only the missing occurrences; existing ones keep their ids). Two servers on one
 * database may both extend a series: the unique key on (series, generated start) makes the second
 * one's insert fail and run again, finding nothing missing.
 *
 * It also finishes what writes leave, so that no write takes long. A write inserts at most OCCURRENCES_PER_WRITE
 * occurrences and marks the series pending when more are due; the event service then nudges the
 * job, which generates the rest in steps of that size, each step a transaction of its own, and
 * yields to the event loop between steps (so reads answer meanwhile).
 *
 * Once it has inserted many occurrences it refreshes PostgreSQL's planner statistics
 * (`store/statistics.ts`): until then a list of the new rows could take seconds.
 *
 * It runs on the job runner (`runner.ts`), which owns its timer, nudges, failures and stop.
 *
 * @example
 *   const job = registerHorizonJob(runner, services);
 *   await job.runOnce(); // extends what is due now
 *   await job.stop();
 */
import type { DomainServices } from '../domain/services.js';
import { extendHorizons, type GenerationServices } from '../domain/series-generation.js';
import type { JobRunner } from './runner.js';

export interface HorizonJob {
  /** Extend every series due now; resolves with how many were extended. */
  runOnce(): Promise<number>;
  /** Run soon (a write left occurrences to generate); a run under way runs once more after. */
  nudge(): void;
  stop(): Promise<void>;
}

/** The job's name (metrics, log lines, `runner.nudge`). */
export const HORIZON_JOB = 'occurrence-horizon';

/**
 * Declare the horizon job to the runner: first run 5 s after start, then an hour after each run
 * (a failed run is retried at the next one); a write that left occurrences to generate nudges it
 * (`events.onGenerationLeft`). Series are extended on every server: two that extend one series at
 * once are kept apart by the unique key, so it is not a singleton.
 */
export function registerHorizonJob(
  runner: JobRunner,
  services: GenerationServices & Partial<Pick<DomainServices, 'events' | 'calendars'>>,
  options: { firstMs?: number; everyMs?: number } = {},
): HorizonJob {
  const everyMs = options.everyMs ?? 3_600_000;
  const job = runner.register<number>({
    name: HORIZON_JOB,
    firstMs: options.firstMs ?? 5_000,
    everyMs,
    backoff: { initialMs: everyMs, maxMs: everyMs },
    async run(ctx) {
      return { value: await extendHorizons(services, ctx.isStopped) };
    },
    onStop: () => unsubscribe?.(),
  });
  // A write that left occurrences to generate nudges the job (dropped when it stops).
  const unsubscribe = services.events?.onGenerationLeft(() => job.nudge());
  return {
    async runOnce() {
      return (await job.runOnce()).value ?? 0;
    },
    nudge: () => job.nudge(),
    stop: () => job.stop(),
  };
}
