/**
 * Checks the event routes and pages use on arguments: dates and zones (`eventValidators`), whether
 * a viewer may read an event (`canReadEvent`), whether a value names a readable one; and the parse
 * of a validated date argument (`parseIn`).
 *
 * @example eventValidators.isTime('tomorrow 8pm', 'Europe/Paris') // true
 */
import type { EventRecord } from '../../store/events.js';
import type { DateTime } from 'luxon';
import { invalidDateFailure } from '../dates/hints.js';
import { isValidTimezone } from '../dates/zones.js';
import { parseDateInput } from '../dates/strtotime.js';
import { invalidParams } from '../errors.js';
import { canReadPost, type Viewer } from '../permissions.js';
import { isEmptyValue, isPositiveInt } from '../values.js';
import type { EventService } from './types.js';

/** Validators the event routes use (WordPress' is_time, is_timezone_or_empty, …). */
export const eventValidators = {
  /**
   * is_time: a Unix timestamp or something strtotime understands, within the years 1 to 9999 in
   * its zone and in UTC (dates are stored as `YYYY-MM-DD HH:MM:SS`; `+10000 years` is refused).
   */
  isTime(value: unknown, tz: string): boolean {
    if (typeof value !== 'string' && typeof value !== 'number') return false;
    const d = parseDateInput(value, tz);
    // The UTC year differs from the local one by at most one, at the turn of a year: only the
    // first and last storable years need the conversion (Luxon's is comparatively slow).
    return d !== null && isStorableYear(d.year) && (d.year > 1 && d.year < 9999 ? true : isStorableYear(d.toUTC().year));
  },
  isTimezoneOrEmpty(value: unknown): boolean {
    return isEmptyValue(value) || (typeof value === 'string' && isValidTimezone(value));
  },
};

/** A year a stored `YYYY-MM-DD HH:MM:SS` date can have. */
function isStorableYear(year: number): boolean {
  return year >= 1 && year <= 9999;
}

/** Whether the viewer may read this event (COMPAT decision 11). */
export function canReadEvent(viewer: Viewer, record: EventRecord): boolean {
  return canReadPost(viewer, 'tribe_events', record);
}

/**
 * Whether `value` names an event (or a recurring event's series) the viewer may read: what an
 * argument naming an event (`event`, `post`, `post_parent`) accepts besides its id check. Other
 * ids answer as unknown ones, so a filter never tells an unreadable event from a missing one
 * (docs/security.md "Who may do what").
 *
 * @example await namesReadableEvent(services.events, ANONYMOUS, draftId) // false
 */
export async function namesReadableEvent(events: Pick<EventService, 'findById'>, viewer: Viewer, value: unknown): Promise<boolean> {
  if (!isPositiveInt(value)) return false;
  const record = await events.findById(Number(value));
  return record !== undefined && canReadEvent(viewer, record);
}

/** Parse a date input in a zone; the route validated it, so failure here is a 400 on that field. */
export function parseIn(name: string, value: string, tz: string): DateTime {
  const d = parseDateInput(value, tz); // relative to now (not built for plain dates)
  if (!d) throw invalidParams({ [name]: invalidDateFailure(name, `the event's time zone (${tz})`) });
  return d;
}
