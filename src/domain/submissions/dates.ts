/**
 * Dates as the submission pages and e-mails show them, in the reader's language (English or
 * French), never as stored: "Saturday 21 June 2031, 6:00 PM – 11:00 PM (Europe/Paris)",
 * "samedi 21 juin 2031, 18:00 – 23:00 (Europe/Paris)". The English shapes are the calendar
 * pages' (a 12-hour clock, the day before the month).
 *
 * @example whenText('fr', { start_date: '2031-06-21 18:00:00', end_date: '2031-06-21 23:00:00', all_day: false, timezone: 'Europe/Paris' })
 */
import { DateTime } from 'luxon';
import type { Locale } from './mail.js';

const TAG: Record<Locale, string> = { en: 'en-GB', fr: 'fr-FR' };
const ALL_DAY: Record<Locale, string> = { en: 'all day', fr: 'toute la journée' };

const wall = (s: string) => DateTime.fromSQL(s.length === 16 ? `${s}:00` : s, { zone: 'utc' });

/** "Saturday 21 June 2031" / "samedi 21 juin 2031" */
export function dayText(locale: Locale, d: DateTime): string {
  return d.setLocale(TAG[locale]).toFormat('cccc d LLLL yyyy');
}

/** "6:00 PM" / "18:00" */
export function timeText(locale: Locale, d: DateTime): string {
  return locale === 'fr' ? d.toFormat('HH:mm') : d.setLocale('en-US').toFormat('h:mm a');
}

/** An event's schedule from its local wall times (`2031-06-21 18:00:00`) and its zone. */
export function whenText(locale: Locale, e: { start_date: string; end_date: string; all_day: boolean; timezone: string }): string {
  const start = wall(e.start_date);
  const end = wall(e.end_date || e.start_date);
  if (!start.isValid) return `${e.start_date} (${e.timezone})`;
  const sameDay = !end.isValid || start.toISODate() === end.toISODate();
  if (e.all_day) return sameDay ? `${dayText(locale, start)} (${ALL_DAY[locale]})` : `${dayText(locale, start)} – ${dayText(locale, end)} (${ALL_DAY[locale]})`;
  if (!end.isValid) return `${dayText(locale, start)}, ${timeText(locale, start)} (${e.timezone})`;
  if (sameDay) return `${dayText(locale, start)}, ${timeText(locale, start)} – ${timeText(locale, end)} (${e.timezone})`;
  return `${dayText(locale, start)}, ${timeText(locale, start)} – ${dayText(locale, end)}, ${timeText(locale, end)} (${e.timezone})`;
}

/** An instant (ISO 8601 with an offset or Z, or a UTC wall time) in a zone: the date and time, and the zone. */
export function instantText(locale: Locale, at: string, zone: string): string {
  const parsed = /[zZ]|[+-]\d\d:?\d\d$/.test(at) ? DateTime.fromISO(at) : DateTime.fromSQL(at, { zone: 'utc' });
  if (!parsed.isValid) return at;
  const d = parsed.setZone(zone);
  return `${dayText(locale, d)}, ${timeText(locale, d)} (${zone})`;
}
