/**
 * Generating a series' occurrences up to the horizon (`RECURRENCE_HORIZON_MONTHS` ahead): one
 * series at a time in steps (at most OCCURRENCES_PER_WRITE occurrences, one transaction each),
 * yielding to the event loop between steps so that reads answer meanwhile. The importers generate a
 * series they just wrote (they need every occurrence before they apply exceptions); the horizon job
 * (`jobs/horizon.ts`) extends the series that are due. Both stand on this, so neither reaches into
 * the other.
 *
 * @example
 *   await generateSeries(services, seriesId);         // every occurrence up to the horizon
 *   const extended = await extendHorizons(services); // the series due now
 */
import { DateTime } from 'luxon';
import type { DomainContext } from './context.js';
import { writeTransaction } from '../store/changes.js';
import { seriesDue } from '../store/recurrence.js';
import { refreshAfterBulkWrite } from '../store/statistics.js';
import { materialise } from './series.js';
import { horizonWall } from './recurrence.js';
import { inCalendar } from '../store/calendar-scope.js';
import type { CalendarService } from './calendars.js';

/** Series looked up per batch. */
const BATCH = 100;

/** Let the event loop run what waits (I/O, timers) before the next step. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What generating needs of the services. */
export type GenerationServices = Pick<DomainContext, 'store' | 'config' | 'clock'>;

/**
 * Generate a series' occurrences up to its horizon, one step (at most OCCURRENCES_PER_WRITE
 * occurrences, one transaction) at a time, yielding between steps. Resolves with the number of
 * steps taken. Used by the importers, which need every occurrence before they apply exceptions;
 * the planner statistics are their caller's to refresh, once for everything it wrote
 * (`refreshAfterBulkWrite`: the `.ics` importer at its end).
 */
export async function generateSeries(services: GenerationServices, id: number, isStopped: () => boolean = () => false): Promise<number> {
  return (await generateSteps(services, id, isStopped)).steps;
}

/** generateSeries' steps, with the occurrences they inserted. */
async function generateSteps(services: GenerationServices, id: number, isStopped: () => boolean): Promise<{ steps: number; inserted: number }> {
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

/**
 * Extend the series that are due, of every calendar: left pending by a write, or horizon more than a
 * day behind (in UTC terms). Each is generated in its calendar (`calendars.within` when given, for
 * that calendar's configuration; else its scope alone).
 */
export async function extendHorizons(services: GenerationServices & { calendars?: Pick<CalendarService, 'within'> }, isStopped: () => boolean = () => false): Promise<number> {
  const months = services.config.recurrenceHorizonMonths;
  const now = DateTime.fromSQL(services.clock.nowGmt(), { zone: 'utc' });
  // Zones differ by up to a day: a series is due once its horizon is a day behind UTC's.
  const before = horizonWall('UTC', months, now.minus({ days: 1 }));
  let extended = 0;
  let inserted = 0;
  const seen = new Set<string>();
  const inItsCalendar = <T>(calendar: number, fn: () => Promise<T>): Promise<T> => (services.calendars ? services.calendars.within(calendar, fn) : inCalendar(calendar, fn));
  run: for (;;) {
    const due = (await seriesDue(services.store.db, before, BATCH)).filter((s) => !seen.has(`${s.calendar}:${s.id}`));
    if (due.length === 0 || isStopped()) break;
    for (const { id, calendar } of due) {
      seen.add(`${calendar}:${id}`);
      if (isStopped()) break run;
      inserted += (await inItsCalendar(calendar, () => generateSteps(services, id, isStopped))).inserted;
      extended++;
      await yieldToLoop();
    }
  }
  // Once for the whole run: many series extended together add up (see store/statistics.ts).
  await refreshAfterBulkWrite(services.store.db, inserted);
  return extended;
}
