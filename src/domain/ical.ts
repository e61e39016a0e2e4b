/**
 * iCalendar (RFC 5545) text of events, for the feeds (src/pages) and the CalDAV face's calendar
 * object resources (src/caldav: the same VEVENTs, so a subscription and a CalDAV
 * calendar agree). Generated generated with `ical-generator` and VTIMEZONE
 * components from `@touch4it/ical-timezones` (one per time zone the events use).
 *
 * Per event: `UID` `{id}@{site host}` (the record id never changes, so the UID is the same across
 * fetches, instances and edits); `SEQUENCE` the seconds from 2000-01-01T00:00Z to the event's last
 * modification (`modified_utc`), so it grows with every change saved a second or more after the
 * last; `DTSTART`/`DTEND` in the event's zone with `TZID` (events in `UTC` or a manual offset such
 * as `UTC+2`, which have no VTIMEZONE, in UTC), all-day events as `VALUE=DATE` with the exclusive
 * end date; plain-text `DESCRIPTION`, `LOCATION` (venue name and address), `GEO`, `CATEGORIES`,
 * `ORGANIZER` (the first organizer that has a valid e-mail address), `URL`, `LAST-MODIFIED`,
 * `ATTACH;FMTTYPE=…` (the featured image).
 *
 * Parameter values (the organizer's `CN`, the only one written from stored text) are written by
 * `paramValue`, not by the library (which backslash-escapes a `"` inside a quoted value: RFC 5545 has
 * no such escape, and parsers end the value there): always quoted, RFC 6868 caret encoding
 * (`^'` for `"`, `^n` for a line break, `^^` for `^`), other control characters removed.
 *
 * @example
 *   const text = icalendar(events, { name: 'Events Calendar', timezone: 'Europe/Rome', siteUrl: 'https://x' });
 */
import ical, { escape, ICalCalendarMethod, type ICalCalendar, type ICalEvent } from 'ical-generator';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import { DateTime } from 'luxon';
import type { PublicEvent, PublicImage, PublicVenue, SeriesFeed } from './public-records.js';
import { imageDetails } from './representations/image.js';
import { plainText } from './plain-text.js';
import { isOrganizerEmail } from './linked-posts/index.js';

/** The description of a password-protected event in a feed (the original's words). */
export const PROTECTED_DESCRIPTION = 'Content is protected.';

export type { SeriesFeed } from './public-records.js';

export const ICAL_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** How often calendar clients should fetch a subscribed feed again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
export const REFRESH_SECONDS = 3600;

/** SEQUENCE counts seconds from here (fits a 32-bit integer until 2068). */
const SEQUENCE_EPOCH = Date.UTC(2000, 0, 1) / 1000;

export interface FeedOptions {
  /** X-WR-CALNAME */
  name: string;
  /** X-WR-TIMEZONE: the site zone */
  timezone: string;
  /** SITE_URL: the host part of UIDs, the PRODID */
  siteUrl: string;
  /** X-WR-CALDESC */
  description?: string;
  /**
   * Recurring events by series id: occurrences of these series are written as their
   * series' one VEVENT (RRULE/RDATE/EXDATE) plus an override per occurrence edited alone.
   */
  series?: ReadonlyMap<number, SeriesFeed>;
  /**
   * A calendar object resource (CalDAV, RFC 4791 §4.1) rather than a feed: no `METHOD` (a resource
   * must not have one), and `DTSTAMP` the event's last modification instead of the time of writing,
   * so the same version of an event is always the same bytes (its ETag names them).
   */
  resource?: boolean;
  /**
   * CalDAV's `expand` (RFC 4791 §9.6.5): times in UTC (no VTIMEZONE; all-day events keep their
   * dates), and an occurrence of a series carries `RECURRENCE-ID` (its start), as an instance.
   */
  expand?: boolean;
}

/** An occurrence's series id, when the event is one (its representation says so). */
function seriesIdOf(e: PublicEvent): number | undefined {
  const id = (e as PublicEvent & { recurring_event_id?: number }).recurring_event_id;
  return typeof id === 'number' ? id : undefined;
}

/**
 * A property parameter value (RFC 5545 §3.2, RFC 6868), quoted: `^` → `^^`, `"` → `^'`, a line
 * break → `^n`, other control characters but HTAB removed. A backslash is written doubled: RFC 5545
 * has no escapes in parameter values, but ical.js (Thunderbird, this service's `import ics`) reads
 * them as in TEXT, so a name round-trips there; a stricter reader sees two backslashes.
 *
 * @example paramValue('Real Org":mailto:x@evil.example') // `"Real Org^':mailto:x@evil.example"`
 */
export function paramValue(value: string): string {
  const clean = value
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/[\\^"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '^' ? '^^' : c === '"' ? "^'" : '^n'));
  return `"${clean}"`;
}

/**
 * The `ORGANIZER` line of an organizer, or undefined when the address is not a valid e-mail
 * address (a calendar user address must be one; a stored value from before e-mail addresses were checked may not be).
 */
export function organizerLine(name: string, email: string): string | undefined {
  const address = email.trim();
  if (!isOrganizerEmail(address)) return undefined;
  return `ORGANIZER;CN=${paramValue(name)}:mailto:${address}`;
}

/** Add property lines to an event (written unfolded before its END:VEVENT; the calendar folds them). */
export function addLines(event: ICalEvent, lines: string[]): void {
  if (lines.length === 0) return;
  const original = event.toString.bind(event);
  event.toString = () => original().replace(/END:VEVENT\r\n$/, `${lines.join('\r\n')}\r\nEND:VEVENT\r\n`);
}

const IMAGE_TYPES: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' };

/**
 * The featured image as `ATTACH;FMTTYPE=image/…:URL` (RFC 5545 §3.8.1.1): its type as uploaded
 * (the media library), else guessed from the URL's extension (left out when unknown); only an
 * http(s) URL without spaces, so nothing but the URL reaches the line.
 */
export function attachLine(image: PublicImage): string | undefined {
  if (!/^https?:\/\/[^\s"]+$/i.test(image.url)) return undefined;
  const type = imageDetails(image)?.mime || IMAGE_TYPES[/\.([a-z0-9]+)(?:[?#].*)?$/i.exec(image.url)?.[1]?.toLowerCase() ?? ''];
  return `ATTACH${type ? `;FMTTYPE=${type}` : ''}:${image.url}`;
}

/** Which zones have a VTIMEZONE (kept: the answer never changes while the process runs). */
const vtimezoneKnown = new Map<string, boolean>();
export function hasVtimezone(tz: string): boolean {
  let known = vtimezoneKnown.get(tz);
  if (known === undefined) {
    // 'UTC' maps to Etc/UTC there (another TZID): UTC times are written as UTC instead.
    known = tz !== '' && tz !== 'UTC' && !/^UTC[+-]/.test(tz) && getVtimezoneComponent(tz) !== null;
    vtimezoneKnown.set(tz, known);
  }
  return known;
}

function utc(wall: string): DateTime {
  return DateTime.fromSQL(wall, { zone: 'utc' });
}

/** The venue's address as one line: street, city, region and postal code, country. */
export function venueAddress(v: PublicVenue): string {
  const region = [v.stateprovince || v.state || v.province, v.zip].filter(Boolean).join(' ');
  return [v.address, v.city, region, v.country].filter((s) => s !== undefined && s !== '').join(', ');
}

/** The UID of an event: `{id}@{site host}`. */
export function eventUid(id: number, siteUrl: string): string {
  return `${id}@${new URL(siteUrl).hostname}`;
}

/** SEQUENCE: seconds from 2000-01-01T00:00Z to the last modification. */
export function eventSequence(modifiedUtc: string): number {
  const t = utc(modifiedUtc);
  return t.isValid ? Math.max(0, Math.floor(t.toSeconds() - SEQUENCE_EPOCH)) : 0;
}

/** The calendar of these events, each VEVENT added (the feeds' and CalDAV's one writer). */
function calendarOf(options: FeedOptions): { cal: ICalCalendar; add: (e: PublicEvent) => void } {
  const host = new URL(options.siteUrl).hostname;
  const cal = ical({
    name: options.name,
    description: options.description ?? options.name,
    prodId: { company: host, product: 'events-calendar', language: 'EN' },
    ...(options.resource ? {} : { method: ICalCalendarMethod.PUBLISH }),
    // No calendar zone (it would write DTSTAMP without its Z): each event's zone gets its VTIMEZONE.
    timezone: { name: null, generator: getVtimezoneComponent },
    ...(options.resource ? {} : { ttl: REFRESH_SECONDS }),
  });
  const now = new Date();
  const written = new Set<number>();
  const addEvent = (e: PublicEvent, extra: { uidId?: number; repeating?: string; recurrenceId?: string } = {}) => {
    const venue = Array.isArray(e.venue) ? undefined : e.venue;
    const organizer = e.organizer.map((o) => (o.email ? organizerLine(plainText(o.organizer), o.email) : undefined)).find((line) => line !== undefined);
    const inZone = !e.all_day && !options.expand && hasVtimezone(e.timezone);
    // An expanded instance of a series names itself by its start (RFC 4791 §9.6.5).
    if (options.expand && extra.recurrenceId === undefined && seriesIdOf(e) !== undefined) extra = { ...extra, recurrenceId: e.start_date };
    const start = e.all_day ? DateTime.fromISO(e.start_date.slice(0, 10), { zone: 'utc' }) : utc(e.utc_start_date);
    // All-day: DTEND is the day after the last day (exclusive).
    const end = e.all_day ? DateTime.fromISO(e.end_date.slice(0, 10), { zone: 'utc' }).plus({ days: 1 }) : utc(e.utc_end_date);
    const address = venue ? venueAddress(venue) : '';
    const event = cal.createEvent({
      id: eventUid(extra.uidId ?? e.id, options.siteUrl),
      ...(extra.repeating ? { repeating: extra.repeating } : {}),
      ...(extra.recurrenceId
        ? {
            recurrenceId: e.all_day
              ? DateTime.fromISO(extra.recurrenceId.slice(0, 10), { zone: 'utc' })
              : inZone
                ? DateTime.fromSQL(extra.recurrenceId, { zone: e.timezone })
                : DateTime.fromSQL(extra.recurrenceId, { zone: e.timezone || 'utc' }).toUTC(),
          }
        : {}),
      sequence: eventSequence(e.modified_utc),
      stamp: options.resource ? utc(e.modified_utc) : now,
      start,
      end,
      allDay: e.all_day,
      ...(inZone ? { timezone: e.timezone } : {}),
      summary: plainText(e.title),
      // A protected event's content is withheld (public-reader.ts); the original's feed says so.
      description: e.protected ? PROTECTED_DESCRIPTION : plainText(e.description),
      url: e.url,
      lastModified: utc(e.modified_utc),
      ...(venue
        ? {
            location: {
              title: plainText(venue.venue),
              ...(address ? { address } : {}),
              ...(venue.geo_lat !== undefined && venue.geo_lng !== undefined ? { geo: { lat: venue.geo_lat, lon: venue.geo_lng } } : {}),
            },
          }
        : {}),
      categories: e.categories.map((c) => ({ name: plainText(c.name) })),
    });
    // ORGANIZER is a calendar user address: written for an organizer with an e-mail address, its CN by paramValue.
    const attach = e.image ? attachLine(e.image) : undefined;
    addLines(
      event,
      [organizer, attach].filter((l): l is string => l !== undefined),
    );
  };
  const add = (e: PublicEvent) => {
    const seriesId = seriesIdOf(e);
    const feed = seriesId === undefined ? undefined : options.series?.get(seriesId);
    if (!feed) return addEvent(e);
    // The series once (UID of the series id), with its overrides: the occurrence is among them.
    if (written.has(seriesId!)) return;
    written.add(seriesId!);
    addEvent(feed.series, { repeating: `${feed.lines.join('\r\n')}\r\n` });
    for (const o of feed.overrides) addEvent(o.event, { uidId: seriesId!, recurrenceId: o.originalStart });
  };
  return { cal, add };
}

/** The calendar's text as the feeds write it: X-WR-TIMEZONE added, every line ended. */
function finished(text: string, options: FeedOptions): string {
  // X-WR-TIMEZONE among the calendar's properties (before its components, as RFC 5545 orders them).
  const out = text.replace(/(\r\nX-WR-CALNAME:[^\r]*(?:\r\n [^\r]*)*)/, `$1\r\nX-WR-TIMEZONE:${options.timezone}`);
  // Every line ends with CRLF, the last one too (RFC 5545 §3.1).
  return out.endsWith('\r\n') ? out : `${out}\r\n`;
}

/** The calendar text of these events. */
export function icalendar(events: PublicEvent[], options: FeedOptions): string {
  const { cal, add } = calendarOf(options);
  for (const e of events) add(e);
  return finished(calendarToString(cal, getVtimezoneComponent), options);
}

/** Events written between two turns of the event loop by {@link icalendarInSteps}. */
const WRITE_CHUNK = 200;

/** Wait for the next turn of the event loop. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The same text as {@link icalendar}, written in steps, other requests running in between: a feed
 * of a thousand events took about 0.25 s of CPU in one piece (ical-generator folds its lines
 * measuring each character with a new `TextEncoder`: most of it). The events are added and their
 * VEVENTs folded 200 at a time (by {@link foldLines}, the library's rule measured without an
 * encoder); the calendar around them (properties, VTIMEZONEs in the order the events first use
 * them) is the library's own text of a calendar holding one stand-in event per zone in that order.
 */
export async function icalendarInSteps(events: PublicEvent[], options: FeedOptions): Promise<string> {
  const { cal, add } = calendarOf(options);
  for (let i = 0; i < events.length; i += WRITE_CHUNK) {
    if (i > 0) await nextTurn();
    for (const e of events.slice(i, i + WRITE_CHUNK)) add(e);
  }
  const vevents: string[] = [];
  const written = cal.events();
  for (let i = 0; i < written.length; i += WRITE_CHUNK) {
    await nextTurn();
    for (const event of written.slice(i, i + WRITE_CHUNK)) vevents.push(foldLines(event.toString()));
  }
  // The frame: the same calendar with a stand-in event per zone (and one without), whose VEVENTs are
  // then replaced by the real ones.
  const frame = calendarOf(options).cal;
  const zones = [...new Set(written.map((event) => event.timezone()))].filter((tz): tz is string => tz !== null);
  for (const tz of zones) frame.createEvent({ start: new Date(0), timezone: tz });
  frame.createEvent({ start: new Date(0) });
  const text = frame.toString();
  const from = text.indexOf('\r\nBEGIN:VEVENT\r\n') + 2;
  const to = text.lastIndexOf('\r\nEND:VEVENT\r\n') + '\r\nEND:VEVENT\r\n'.length;
  return finished(text.slice(0, from) + vevents.join('') + text.slice(to), options);
}

/**
 * ical-generator's `foldLines`, measured without an encoder: each line cut before the character
 * that would take it past 74 bytes of UTF-8, the rest on a line starting with a space. As the
 * library does, a high surrogate is taken with the character after it whatever that is, and a
 * lone surrogate counts as U+FFFD (3 bytes).
 */
export function foldLines(input: string): string {
  return input
    .split('\r\n')
    .map((line) => {
      // Short ASCII lines (most of them) are left as they are.
      if (line.length <= 74 && !/[^\x00-\x7f]/.test(line)) return line;
      let result = '';
      let c = 0;
      for (let i = 0; i < line.length; i++) {
        let ch = line.charAt(i);
        let size = utf8Size(line.charCodeAt(i));
        if (ch >= '\ud800' && ch <= '\udbff') {
          const next = line.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) size = 4;
          else if (i + 1 < line.length) size += utf8Size(next);
          ch += line.charAt(++i);
        }
        c += size;
        if (c > 74) {
          result += '\r\n ';
          c = size;
        }
        result += ch;
      }
      return result;
    })
    .join('\r\n');
}

/** Bytes of one UTF-16 code unit in UTF-8, a lone surrogate as U+FFFD. */
function utf8Size(code: number): number {
  return code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
}

/**
 * The text `ICalCalendar.toString()` writes (the same lines in the same order, every field it
 * writes), folded by {@link foldLines}: the library folds by encoding each character with a new
 * `TextEncoder`, about half the CPU time of an event's text (a CalDAV answer writes a thousand).
 * `generator`: the calendar's VTIMEZONE generator (the library keeps it private).
 */
export function calendarToString(cal: ICalCalendar, generator: (tz: string) => string | null | undefined): string {
  let e = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-${cal.prodId()}\r\n`;
  if (cal.url()) e += `URL:${cal.url()}\r\n`;
  if (cal.source()) e += `SOURCE;VALUE=URI:${cal.source()}\r\n`;
  if (cal.scale()) e += `CALSCALE:${cal.scale()}\r\n`;
  if (cal.method()) e += `METHOD:${cal.method()}\r\n`;
  if (cal.name()) e += `NAME:${cal.name()}\r\nX-WR-CALNAME:${cal.name()}\r\n`;
  if (cal.description()) e += `X-WR-CALDESC:${cal.description()}\r\n`;
  const events = cal.events();
  for (const tz of [...new Set([cal.timezone(), ...events.map((ev) => ev.timezone())])]) {
    if (tz === null || tz.startsWith('/')) continue;
    const vtz = generator(tz);
    if (vtz) e += `${vtz.replace(/\r\n/g, '\n').replace(/\n/g, '\r\n').trim()}\r\n`;
  }
  if (cal.timezone()) e += `TIMEZONE-ID:${cal.timezone()}\r\nX-WR-TIMEZONE:${cal.timezone()}\r\n`;
  const ttl = cal.ttl();
  if (ttl) e += `REFRESH-INTERVAL;VALUE=DURATION:${duration(ttl)}\r\nX-PUBLISHED-TTL:${duration(ttl)}\r\n`;
  if (cal.color()) e += `X-APPLE-CALENDAR-COLOR:${cal.color()}\r\n`;
  for (const ev of events) e += ev.toString();
  for (const { key, value } of cal.x() as Array<{ key: string; value: string }>) e += `${key.toUpperCase()}:${escape(value, false)}\r\n`;
  return foldLines(`${e}END:VCALENDAR`);
}

/** A duration in seconds as the library writes it (`PT1H`, `P1DT2H`, `-PT30M`). */
function duration(seconds: number): string {
  let s = seconds;
  let out = '';
  if (s < 0) {
    out = '-';
    s *= -1;
  }
  out += 'P';
  if (s >= 86400) {
    out += `${Math.floor(s / 86400)}D`;
    s %= 86400;
  }
  if (!s && out.length > 1) return out;
  out += 'T';
  if (s >= 3600) {
    out += `${Math.floor(s / 3600)}H`;
    s %= 3600;
  }
  if (s >= 60) {
    out += `${Math.floor(s / 60)}M`;
    s %= 60;
  }
  if (s > 0) out += `${s}S`;
  else if (out.length <= 2) out += '0S';
  return out;
}
