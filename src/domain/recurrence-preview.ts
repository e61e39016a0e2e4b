/**
 * A recurring event's occurrences, computed without writing anything
 * (`POST calendar/admin/v1/recurrence/preview`): the schedule is read as an event write reads it
 * (start and end in the event's zone, all-day days widened), the `recurrence` lines parsed and
 * expanded by the same functions (domain/recurrence.ts), so the preview shows what saving the
 * event would generate. The expansion looks one year ahead, then ten, then a hundred, until it has
 * `count` occurrences or the rules end, so an open-ended daily rule costs little.
 *
 * @example
 *   previewRecurrence({ start_date: '2027-01-04 19:00', end_date: '2027-01-04 21:00', timezone: 'Europe/Paris', all_day: false, recurrence: ['RRULE:FREQ=WEEKLY'] }, 'UTC', 3)
 *   // { occurrences: [{ start_date: '2027-01-04 19:00:00', …, start_date_utc: '2027-01-04 18:00:00' }, …], more: true, … }
 */
import { endOfDay, startOfDay, toWallTime, wallToUtc } from './dates/wall.js';
import { invalidDateFailure } from './dates/hints.js';
import { invalidParams } from './errors.js';
import { parseIn } from './events/validators.js';
import { candidateStarts, parseRecurrence, placeStarts, type SeriesStart } from './recurrence.js';

export const MAX_PREVIEW = 50;

export interface PreviewInput {
  start_date: string;
  end_date: string;
  timezone?: string;
  all_day: boolean;
  recurrence: unknown;
}

export interface PreviewOccurrence {
  start_date: string;
  end_date: string;
  start_date_utc: string;
  end_date_utc: string;
}

export interface Preview {
  recurrence: string[];
  timezone: string;
  all_day: boolean;
  occurrences: PreviewOccurrence[];
  /** whether the rules generate more occurrences than those answered */
  more: boolean;
}

/** The first occurrence, as an event write computes it (events/writes.ts `schedule`). */
function firstOf(input: PreviewInput, siteTimezone: string): SeriesStart {
  const tz = input.timezone !== undefined && input.timezone !== '' ? input.timezone : siteTimezone;
  let start = toWallTime(parseIn('start_date', input.start_date, tz));
  let end = toWallTime(parseIn('end_date', input.end_date, tz));
  if (input.all_day) {
    start = startOfDay(start);
    end = endOfDay(end);
  }
  if (end < start) throw invalidParams({ end_date: 'The end date must not be before the start date.' });
  for (const [name, wall] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (wallToUtc(wall, tz).length !== 19) throw invalidParams({ [name]: invalidDateFailure(name, `the event's time zone (${tz})`) });
  }
  return { start_local: start, end_local: end, timezone: tz, all_day: input.all_day };
}

/** Add years to a wall time (`YYYY-MM-DD HH:MM:SS`), capped at the last representable year. */
function yearsAfter(wall: string, years: number): string {
  const year = Math.min(9999, Number(wall.slice(0, 4)) + years);
  return `${String(year).padStart(4, '0')}${wall.slice(4)}`;
}

export function previewRecurrence(input: PreviewInput, siteTimezone: string, count: number): Preview {
  const rec = parseRecurrence(input.recurrence);
  const first = firstOf(input, siteTimezone);
  let occurrences: PreviewOccurrence[] = [];
  let more = false;
  for (const years of [1, 10, 100, 10_000]) {
    const horizon = years === 10_000 ? '9999-12-31 23:59:59' : yearsAfter(first.start_local, years);
    const starts = candidateStarts(rec, first, horizon);
    const placed = placeStarts(starts, rec, first, count + 1);
    occurrences = placed.slice(0, count).map((o) => ({ start_date: o.start_local, end_date: o.end_local, start_date_utc: o.start_utc, end_date_utc: o.end_utc }));
    more = placed.length > count;
    if (more || horizon.startsWith('9999')) break;
  }
  return { recurrence: rec.lines, timezone: first.timezone, all_day: first.all_day, occurrences, more };
}
