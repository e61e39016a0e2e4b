/**
 * What a failed date or zone argument tells the client: the accepted forms of
 * `parseDateInput` (strtotime.ts) and `isValidTimezone` (zones.ts), with examples, as `details` messages.
 */
import { INVALID_PARAMETER, type ParamFailure } from '../errors.js';

/**
 * The forms `parseDateInput` (strtotime.ts) accepts, each with an example it parses (test/unit/validation-hints.test.ts
 * checks every example, so the message cannot promise a form that is refused).
 */
export const DATE_INPUT_FORMS: ReadonlyArray<{ form: string; examples: readonly string[] }> = [
  { form: 'Y-m-d H:i:s', examples: ['2027-01-15 19:00:00'] },
  { form: 'Y-m-d H:i', examples: ['2027-01-15 19:00'] },
  { form: 'Y-m-d', examples: ['2027-01-15'] },
  { form: 'ISO 8601', examples: ['2027-01-15T19:00:00+01:00'] },
  { form: 'other dates PHP strtotime() reads', examples: ['January 15 2027 7pm', '01/15/2027'] },
  { form: 'relative phrases', examples: ['tomorrow 9am', 'next monday', '+2 days'] },
  { form: 'a Unix timestamp', examples: ['1800000000'] },
];

/** Zones `isValidTimezone` (zones.ts) accepts, named in the message of a refused `timezone`. */
export const TIMEZONE_EXAMPLES = { iana: ['Europe/Berlin', 'America/New_York', 'UTC'], offsets: ['UTC+2', 'UTC-3:30', 'UTC+5.5'] } as const;

/**
 * The `details` message of a refused date argument: the accepted forms with examples, the years a
 * date can have, and the zone a time without an offset is read in (`zoneNote`).
 * @example dateInputHint('the site time zone (Europe/Rome)')
 *   // 'Invalid date. Accepted forms: Y-m-d H:i:s (2027-01-15 19:00:00), …; years 1 to 9999. A time without an offset is read in the site time zone (Europe/Rome).'
 */
export function dateInputHint(zoneNote: string): string {
  const forms = DATE_INPUT_FORMS.map((f) => `${f.form} (${f.examples.join(', ')})`).join('; ');
  return `Invalid date. Accepted forms: ${forms}; years 1 to 9999. A time without an offset is read in ${zoneNote}.`;
}

/** The `details` message of a refused time zone argument. */
export function timezoneHint(): string {
  const { iana, offsets } = TIMEZONE_EXAMPLES;
  return `Unknown time zone. Use an IANA time zone name (${iana.join(', ')}) or a UTC offset as WordPress writes it (${offsets.join(', ')}); empty keeps the current one.`;
}

/**
 * The failure of a date argument: `params[name]` stays the original's "Invalid parameter." (old
 * clients read it), `details[name]` names the accepted forms (WordPress' per-parameter details).
 * @example invalidDateFailure('start_date', 'UTC').detail.code // 'rest_invalid_date'
 */
export function invalidDateFailure(name: string, zoneNote: string): ParamFailure {
  return { message: INVALID_PARAMETER, detail: { code: 'rest_invalid_date', message: dateInputHint(zoneNote), data: { param: name } } };
}

/** The failure of a time zone argument, as {@link invalidDateFailure}: the message names valid zones. */
export function invalidTimezoneFailure(name: string): ParamFailure {
  return { message: INVALID_PARAMETER, detail: { code: 'rest_invalid_timezone', message: timezoneHint(), data: { param: name } } };
}
