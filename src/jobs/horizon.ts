/**
 * The horizon job (issue 15): every running server keeps the occurrences of recurring events
 * generated `RECURRENCE_HORIZON_MONTHS` ahead. Soon after start and then every hour it looks for
 * series whose generated horizon is more than a day behind and extends each one (`materialise`,
 * which inserts only the missing occurrences; existing ones keep their ids). Two servers on one
 * database may both extend a series: the unique key on (series, generated start) makes the second
 * one's insert fail and run again, finding nothing missing.
 *
 * Issue 24: it also finishes what writes leave. A write inserts at most OCCURRENCES_PER_WRITE
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
import { DateTime } from 'luxon';
import type { Services } from '../domain/services.js';
import { writeTransaction } from '../store/changes.js';
import { seriesDue } from '../store/recurrence.js';
import { refreshAfterBulkWrite } from '../store/statistics.js';
import { materialise } from '../domain/series.js';
import { horizonWall } from '../domain/recurrence.js';
import type { JobRunner } from './runner.js';

export interface HorizonJob {
  /** Extend every series due now; resolves with how many were extended. */
  runOnce(): Promise<number>;
  /** Run soon (a write left occurrences to generate); a run under way runs once more after. */
  nudge(): void;
  stop(): Promise<void>;
}

/** Series looked up per batch. */
const BATCH = 100;

/** Let the event loop run what waits (I/O, timers) before the next step. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

type JobServices = Pick<Services, 'store' | 'config' | 'clock'>;

/**
 * Generate a series' occurrences up to its horizon, one step (at most OCCURRENCES_PER_WRITE
 * occurrences, one transaction) at a time, yielding between steps. Resolves with the number of
 * steps taken. Used by the importers, which need every occurrence before they apply exceptions;
 * the planner statistics are their caller's to refresh, once for everything it wrote
 * (`refreshAfterBulkWrite`: the `.ics` importer at its end).
 */
export async function generateSeries(services: JobServices, id: number, isStopped: () => boolean = () => false): Promise<number> {
  return (await generateSteps(services, id, isStopped)).steps;
}

/** generateSeries' steps, with the occurrences they inserted. */
async function generateSteps(services: JobServices, id: number, isStopped: () => boolean): Promise<{ steps: number; inserted: number }> {
  const deps = { horizonMonths: services.config.recurrenceHorizonMonths, clock: services.clock };
  let steps = 0;
  let inserted = 0;
  for (;;) {
    const done = await writeTransaction(services.store.db, (trx) => materialise(trx, id, deps, { rewrite: false }));
    steps++;
    inserted += done.inserted.length;
    if (!done.pending || isStopped()) return { steps, inserted };
    await yieldToLoop();
  }
}

/** Extend the series that are due: left pending by a write, or horizon more than a day behind (in UTC terms). */
export async function extendHorizons(services: JobServices, isStopped: () => boolean = () => false): Promise<number> {
  const months = services.config.recurrenceHorizonMonths;
  const now = DateTime.fromSQL(services.clock.nowGmt(), { zone: 'utc' });
  // Zones differ by up to a day: a series is due once its horizon is a day behind UTC's.
  const before = horizonWall('UTC', months, now.minus({ days: 1 }));
  let extended = 0;
  let inserted = 0;
  const seen = new Set<number>();
  run: for (;;) {
    const ids = (await seriesDue(services.store.db, before, BATCH)).filter((id) => !seen.has(id));
    if (ids.length === 0 || isStopped()) break;
    for (const id of ids) {
      seen.add(id);
      if (isStopped()) break run;
      inserted += (await generateSteps(services, id, isStopped)).inserted;
      extended++;
      await yieldToLoop();
    }
  }
  // Once for the whole run: many series extended together add up (see store/statistics.ts).
  await refreshAfterBulkWrite(services.store.db, inserted);
  return extended;
}

/** The job's name (metrics, log lines, `runner.nudge`). */
export const HORIZON_JOB = 'occurrence-horizon';

/**
 * Declare the horizon job to the runner: first run 5 s after start, then an hour after each run
 * (a failed run is retried at the next one); a write that left occurrences to generate nudges it
 * (`events.onGenerationLeft`). Series are extended on every server: two that extend one series at
 * once are kept apart by the unique key, so it is not a singleton.
 */
export function registerHorizonJob(runner: JobRunner, services: JobServices & Partial<Pick<Services, 'events'>>, options: { firstMs?: number; everyMs?: number } = {}): HorizonJob {
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
