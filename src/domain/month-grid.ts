/**
 * A month's grid as the calendar's pages and embeds draw it: whole weeks from the site's first day
 * of the week (CALENDAR_WEEK_START, WordPress' start_of_week) around the month's days.
 *
 * @example
 *   monthGrid('2027-06', 'sunday').gridStart.toISODate(); // '2027-05-30'
 */
import { DateTime } from 'luxon';

import { WEEKDAYS, type Weekday } from '../settings/calendar.js';

export { WEEKDAYS, type Weekday };

/** Luxon's weekday number (1 Monday … 7 Sunday) of a day's name. */
export function luxonWeekday(day: string): number {
  const i = WEEKDAYS.indexOf(day as Weekday);
  return i <= 0 ? (i === 0 ? 7 : 1) : i;
}

export interface MonthGrid {
  /** the month's first day (UTC midnight) */
  first: DateTime;
  /** the month's last day (UTC midnight) */
  last: DateTime;
  /** the grid's first day: the week start on or before `first` */
  gridStart: DateTime;
  /** the grid's last day: the day before the week start, on or after `last` */
  gridEnd: DateTime;
}

/** The grid of `month` (YYYY-MM) with weeks starting on `weekStart` (a day's name). */
export function monthGrid(month: string, weekStart: string): MonthGrid {
  const start = luxonWeekday(weekStart);
  const end = start === 1 ? 7 : start - 1;
  const first = DateTime.fromISO(`${month}-01`, { zone: 'utc' });
  const last = first.endOf('month').startOf('day');
  return {
    first,
    last,
    gridStart: first.minus({ days: (first.weekday - start + 7) % 7 }),
    gridEnd: last.plus({ days: (end - last.weekday + 7) % 7 }),
  };
}
