/**
 * "The events overlapping [from, until]" at the cost of a start-date window. The event list is read
 * through the start-date index (`events_listing`), so an overlap is read in two parts, each in start
 * order, that together hold every overlapping event whatever its length:
 *
 * - recent: the events that begin in [from - LOOKBACK_DAYS, until] and end at or after `from`, a
 *   range of the start-date index (what the month pages and the FullCalendar source read before);
 * - long: the events that began before `from - LOOKBACK_DAYS` and end at or after `from`. Such an
 *   event lasts more than LOOKBACK_DAYS, so it is in `events_long` (migration 021), a partial index
 *   of the rare events whose span exceeds LONG_SPAN_DAYS, by end date.
 *
 * Every long event begins before every recent one: in start order the list is the long part, then
 * the recent part (reversed for a descending list).
 *
 * The span is counted in "day numbers" (year * 372 + month * 31 + day, from the wall time's text):
 * an expression both stores accept in a partial index (PostgreSQL wants IMMUTABLE: its text-to-date
 * casts are not) that never fails on a row and grows by at least one from one calendar day to the
 * next, so it is never less than the days between two dates. An event longer than LOOKBACK_DAYS
 * spans 31 dates or more, more than LONG_SPAN_DAYS day numbers; a few shorter events crossing a
 * month's end are in the index too, which costs nothing but a few entries.
 *
 * The planner uses a partial index only when the query carries its condition as written:
 * LONG_EVENT_CONDITION is the one text of both (the index's WHERE and the long part's); a change to
 * it needs a migration that makes the index again. `test/unit/event-overlaps.test.ts` checks that
 * both stores read the long part through the index.
 *
 * @example
 *   lookbackStart('2031-06-01 00:00:00') // '2031-05-01 00:00:00'
 */

/** How long before `from` the recent part of an overlap starts (the start-date window's margin). */
export const LOOKBACK_DAYS = 31;
/** Events whose span exceeds this many day numbers are in `events_long`. */
export const LONG_SPAN_DAYS = 30;

const dayNumber = (column: string) => `(cast(substr(${column}, 1, 4) as integer) * 372 + cast(substr(${column}, 6, 2) as integer) * 31 + cast(substr(${column}, 9, 2) as integer))`;

/** An event's span in day numbers. */
const SPAN = `${dayNumber('"end_local"')} - ${dayNumber('"start_local"')}`;

/** The condition of `events_long`, and of the long part of an overlap (the same text: see above). */
export const LONG_EVENT_CONDITION = `${SPAN} > ${LONG_SPAN_DAYS}`;

/** The index of the long events (migration 021). */
export const LONG_EVENTS_INDEX = 'events_long';

/** The statement creating `events_long`: by end date (the overlap's one-sided bound), then start. */
export const LONG_EVENTS_INDEX_SQL = `create index "${LONG_EVENTS_INDEX}" on "events" ("end_local", "start_local", "post_id") where ${LONG_EVENT_CONDITION}`;

/**
 * PostgreSQL (14 and later): statistics of the span, so that the planner knows how few events are
 * long (without them it guesses a third of the table, and for the long part of an overlap it would
 * plan, and compile, for tens of thousands of rows where there are a hundred). ANALYZE fills them.
 */
export const SPAN_STATISTICS_SQL = `create statistics if not exists "events_span" on (${SPAN}) from "events"`;

/**
 * The wall time `LOOKBACK_DAYS` before `from` (`YYYY-MM-DD HH:MM:SS`, calendar days); '' (before
 * every start: the recent part is then the whole list, the long part empty) for a text that is not one.
 */
export function lookbackStart(from: string): string {
  const ms = Date.parse(`${from.slice(0, 10)}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}/.test(from) || Number.isNaN(ms)) return '';
  return `${new Date(ms - LOOKBACK_DAYS * 86_400_000).toISOString().slice(0, 10)}${from.slice(10)}`;
}
