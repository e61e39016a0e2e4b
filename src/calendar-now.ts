/**
 * Which calendar the work at hand belongs to: the request's, the job step's, the CLI command's.
 * Work outside any calendar is the default calendar's (id 1), so a single-calendar installation
 * runs as it always did. The store keeps every statement to it (store/calendar-scope.ts); the
 * metrics count the default calendar's structures apart from other calendars' slots. A module
 * without a layer, like config.ts, so that both can ask.
 *
 * @example
 *   inCalendar(7, () => calendarIdNow()); // 7
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The default calendar: the first one, which keeps every URL of a single-calendar installation. */
export const DEFAULT_CALENDAR_ID = 1;

/** The calendar of the work at hand; ACROSS (0) while a reader works across every calendar. */
const current = new AsyncLocalStorage<number>();
const ACROSS = 0;

/** The id of the calendar the work at hand belongs to (the default one outside any). */
export function calendarIdNow(): number {
  const id = current.getStore();
  return id === undefined || id === ACROSS ? DEFAULT_CALENDAR_ID : id;
}

/** Whether the work at hand reads across calendars (`acrossCalendars`). */
export function isAcrossCalendars(): boolean {
  return current.getStore() === ACROSS;
}

/** Run `fn` as work of calendar `id`: every statement it issues keeps to that calendar. */
export function inCalendar<T>(id: number, fn: () => T): T {
  if (!Number.isInteger(id) || id < 1) throw new Error(`not a calendar id: ${id}`);
  return current.run(id, fn);
}

/**
 * Run `fn` across every calendar: its statements are not filtered. For the readers whose work is
 * the whole database's (the change log's tail, the network's lists, the migration, the network
 * search): each names the calendars it touches itself.
 */
export function acrossCalendars<T>(fn: () => T): T {
  return current.run(ACROSS, fn);
}
