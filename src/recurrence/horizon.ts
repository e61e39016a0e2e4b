/**
 * The horizon job (issue 15): every running server keeps the occurrences of recurring events
 * generated `RECURRENCE_HORIZON_MONTHS` ahead. Soon after start and then every hour it looks for
 * series whose generated horizon is more than a day behind and extends each one in a write
 * transaction of its own (`materialise`, which inserts only the missing occurrences; existing ones
 * keep their ids). Two servers on one database may both extend a series: the unique key on
 * (series, generated start) makes the second one's insert fail and run again, finding nothing
 * missing.
 *
 * @example
 *   const job = startHorizonJob(services, app.log);
 *   await job.runOnce(); // extends what is due now
 *   await job.stop();
 */
import { DateTime } from 'luxon';
import type { Services } from '../domain/services.js';
import { writeTransaction } from '../store/changes.js';
import { seriesDue } from '../store/recurrence.js';
import { materialise } from '../domain/series.js';
import { horizonWall } from '../domain/recurrence.js';

export interface HorizonJob {
  /** Extend every series due now; resolves with how many were extended. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface JobLogger {
  warn(obj: object, msg: string): void;
}

/** Series extended per batch (each in its own transaction). */
const BATCH = 100;

/** Extend the series that are due (horizon more than a day behind, in UTC terms). */
export async function extendHorizons(services: Pick<Services, 'store' | 'config' | 'clock'>, isStopped: () => boolean = () => false): Promise<number> {
  const months = services.config.recurrenceHorizonMonths;
  const now = DateTime.fromSQL(services.clock.nowGmt(), { zone: 'utc' });
  // Zones differ by up to a day: a series is due once its horizon is a day behind UTC's.
  const before = horizonWall('UTC', months, now.minus({ days: 1 }));
  let extended = 0;
  const seen = new Set<number>();
  for (;;) {
    const ids = (await seriesDue(services.store.db, before, BATCH)).filter((id) => !seen.has(id));
    if (ids.length === 0 || isStopped()) return extended;
    for (const id of ids) {
      seen.add(id);
      if (isStopped()) return extended;
      await writeTransaction(services.store.db, (trx) => materialise(trx, id, { horizonMonths: months, clock: services.clock }, { rewrite: false }));
      extended++;
    }
  }
}

export function startHorizonJob(services: Pick<Services, 'store' | 'config' | 'clock'>, logger: JobLogger, options: { firstMs?: number; everyMs?: number } = {}): HorizonJob {
  let stopped = false;
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const run = (): Promise<number> => {
    if (running) return running;
    running = extendHorizons(services, () => stopped)
      .catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'recurrence horizon job: run failed (retried at the next run)');
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => void run().finally(() => schedule(options.everyMs ?? 3_600_000)), delay);
    timer.unref();
  };
  schedule(options.firstMs ?? 5_000);
  return {
    async runOnce() {
      await running;
      return run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
