/**
 * Times of an iCalendar import: which zone an ical.js time is in (a `TZID` without `VTIMEZONE` is
 * resolved by name: IANA, a producer's prefix, Windows through CLDR), its instant and wall time, an
 * event's start, end and zone, and a recurring VEVENT's `recurrence` lines. Pure: no I/O.
 *
 * @example
 *   const schedule = scheduleOf(new ICAL.Event(vevent), 'Europe/Paris', (tzid) => warn(tzid));
 */
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { EventInput } from '../domain/events/index.js';
import { isValidTimezone } from '../domain/dates/zones.js';
import { toWallTime } from '../domain/dates/wall.js';
import { resolveTzid, WINDOWS_VIA } from './windows-zones.js';

/** The wall time of an ical.js time as `YYYY-MM-DD HH:MM:SS`. */
export function wallOf(t: ICAL.Time): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.year, 4)}-${p(t.month)}-${p(t.day)} ${p(t.hour)}:${p(t.minute)}:${p(t.second)}`;
}

/**
 * What zone an ical.js time is in. ical.js leaves a time whose `TZID` has no `VTIMEZONE` in the
 * file *floating* (its `toUnixTime()` then reads the wall time as UTC, silently): such a `TZID` is
 * resolved here (IANA name, prefixed IANA name, Windows name through CLDR), or reported unknown.
 */
type ZoneOf = { kind: 'utc' } | { kind: 'floating' } | { kind: 'iana'; zone: string; tzid: string; via: string } | { kind: 'vtimezone'; tzid: string } | { kind: 'unknown'; tzid: string };

export function zoneOf(t: ICAL.Time): ZoneOf {
  const tzid = t.zone?.tzid ?? '';
  if (tzid === 'UTC' || tzid === 'Z' || tzid === 'GMT') return { kind: 'utc' };
  const named = (t as unknown as { timezone?: string }).timezone;
  if (tzid === 'floating' || tzid === '') {
    if (!named) return { kind: 'floating' };
    const resolved = resolveTzid(named);
    return resolved ? { kind: 'iana', zone: resolved.zone, tzid: named, via: resolved.via } : { kind: 'unknown', tzid: named };
  }
  // A zone of the file's own VTIMEZONEs: an IANA name keeps its wall times (the name is the zone),
  // and so does a Windows name CLDR maps (Outlook writes its VTIMEZONE beside it): the event keeps its zone.
  const original = named ?? tzid;
  if (isValidTimezone(original) && !/^utc./i.test(original)) return { kind: 'iana', zone: original, tzid: original, via: 'IANA' };
  const windows = resolveTzid(original);
  if (windows?.via === WINDOWS_VIA) return { kind: 'iana', zone: windows.zone, tzid: original, via: windows.via };
  return { kind: 'vtimezone', tzid };
}

/** The instant of an ical.js time in Unix seconds; floating (and unknown-zone) times are read in `floatingZone`. */
export function secondsOf(t: ICAL.Time, floatingZone: string): number {
  const z = zoneOf(t);
  if (z.kind === 'utc' || z.kind === 'vtimezone') return t.toUnixTime();
  const zone = z.kind === 'iana' ? z.zone : floatingZone;
  const dt = DateTime.fromObject({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second }, { zone });
  return Math.floor(dt.toSeconds());
}

export const wallIn = (seconds: number, zone: string) => toWallTime(DateTime.fromSeconds(seconds, { zone }));

/**
 * Start, end and zone of an event. A `TZID` that is an IANA name (with or without a `VTIMEZONE`,
 * or behind a producer's prefix) is kept with the wall times as written, and so is a Windows name
 * with or without its `VTIMEZONE` (through CLDR's mapping); a `TZID` known only by the file's `VTIMEZONE`
 * (Outlook's custom zones) is resolved through it and the times expressed in the site zone; UTC
 * times stay UTC; floating times, and times of a `TZID` known nowhere (`unknown` is told), are taken
 * in the site zone.
 */
export function scheduleOf(event: ICAL.Event, siteTimezone: string, unknown: (tzid: string) => void): Pick<EventInput, 'start_date' | 'end_date' | 'timezone' | 'all_day'> {
  const start = event.startDate;
  if (!start) throw new Error('no DTSTART');
  let end = event.endDate ?? start.clone();
  if (start.isDate) {
    // DTEND of an all-day event is the day after its last day.
    const last = end.clone();
    if (end.compare(start) > 0) last.adjust(-1, 0, 0, 0);
    return { all_day: true, timezone: siteTimezone, start_date: `${wallOf(start).slice(0, 10)} 00:00:00`, end_date: `${wallOf(last).slice(0, 10)} 23:59:59` };
  }
  const z = zoneOf(start);
  if (z.kind === 'unknown') unknown(z.tzid);
  const zone = z.kind === 'utc' ? 'UTC' : z.kind === 'iana' ? z.zone : siteTimezone;
  const startSeconds = secondsOf(start, zone);
  const startWall = z.kind === 'vtimezone' ? wallIn(startSeconds, zone) : wallOf(start);
  if (end.isDate) end = start.clone();
  const endZone = zoneOf(end);
  if (endZone.kind === 'unknown' && endZone.tzid !== (z as { tzid?: string }).tzid) unknown(endZone.tzid);
  let endSeconds = secondsOf(end, zone);
  if (endSeconds < startSeconds) endSeconds = startSeconds;
  const sameZone = JSON.stringify(endZone) === JSON.stringify(z) && z.kind !== 'vtimezone';
  const endWall = sameZone && endSeconds !== startSeconds ? wallOf(end) : wallIn(endSeconds, zone);
  return { all_day: false, timezone: zone, start_date: startWall, end_date: endSeconds === startSeconds ? startWall : endWall };
}

/** `YYYYMMDD` / `YYYYMMDDTHHMMSS(Z)` of an ical.js time: a DATE, a UTC time, or a floating one (also for a TZID known nowhere). */
export function icalValue(t: ICAL.Time, floatingZone: string): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  if (t.isDate) return `${p(t.year, 4)}${p(t.month)}${p(t.day)}`;
  const z = zoneOf(t);
  if (z.kind === 'floating' || z.kind === 'unknown') return `${p(t.year, 4)}${p(t.month)}${p(t.day)}T${p(t.hour)}${p(t.minute)}${p(t.second)}`;
  return DateTime.fromSeconds(secondsOf(t, floatingZone), { zone: 'UTC' }).toFormat("yyyyMMdd'T'HHmmss'Z'");
}

/**
 * The `recurrence` lines of a recurring VEVENT: its RRULEs as written, its RDATE and EXDATE values
 * as DATEs, UTC times (a TZID is resolved through the file's zones, Outlook's included, or by name)
 * or floating times (the event's zone). RDATE periods keep their start.
 */
export function recurrenceLinesOf(vevent: ICAL.Component, zone: string): string[] {
  const lines: string[] = [];
  for (const prop of vevent.getAllProperties('rrule')) lines.push(`RRULE:${String(prop.getFirstValue())}`);
  for (const name of ['rdate', 'exdate']) {
    for (const prop of vevent.getAllProperties(name)) {
      for (const raw of prop.getValues() as unknown[]) {
        const value = raw instanceof ICAL.Period ? raw.start : raw;
        if (!(value instanceof ICAL.Time)) continue;
        lines.push(`${name.toUpperCase()}${value.isDate ? ';VALUE=DATE' : ''}:${icalValue(value, zone)}`);
      }
    }
  }
  return lines;
}
