/**
 * What the calendar's HTML views are made of besides markup: the page and view shapes, the
 * date and time texts, the safe links (maps, "add to calendar", subscriptions) and the kept
 * sanitised descriptions.
 */
import { formatWall } from '../domain/php-date.js';
import { DateTime } from 'luxon';
import { sanitizePostHtml } from '../domain/text/kses.js';
import { plusDays } from '../domain/dates/wall.js';
import { venueAddress } from '../domain/ical.js';
import type { EventFilter, EventsPage, PublicEvent, PublicVenue } from '../domain/public-records.js';
import { plainText, trusted, type SafeHtml } from './html.js';
import { registerKept } from '../metrics.js';

/**
 * An event's title as the pages show it: WordPress' "Protected: %s" for a password-protected
 * event whose password the reader has not given.
 */
export function shownTitle(e: Pick<PublicEvent, 'title' | 'protected'>): string {
  return e.protected ? `Protected: ${plainText(e.title)}` : plainText(e.title);
}

/** The stylesheet's path (served by routes.ts). */
export const STYLESHEET_PATH = '/events-calendar.css';

export interface PageMeta {
  title: string;
  description: string;
  /** absolute canonical URL */
  canonical: string;
  ogType?: 'website' | 'article';
  image?: string;
  /** the page's own iCalendar export */
  ics?: string;
  /** robots: noindex (404 pages, search results) */
  noindex?: boolean;
}

/** A subscription target: the feed URL clients fetch again and again. */
export interface Subscription {
  /** http(s) URL of the feed */
  feed: string;
  /** the calendar's name in the client */
  name: string;
}

const description300 = (text: string) => (text.length > 300 ? text.slice(0, 297).replace(/\s+\S*$/, '') + '…' : text);

/** Kept sanitised descriptions: the same stored HTML is sanitised once. */
const sanitised = new Map<string, string>();
registerKept(undefined, 'page_descriptions', { entries: () => sanitised.size, maxEntries: 1000 });
export function safeDescription(markup: string): SafeHtml {
  let out = sanitised.get(markup);
  if (out === undefined) {
    out = sanitizePostHtml(markup);
    if (sanitised.size >= 1000) sanitised.clear();
    sanitised.set(markup, out);
  }
  return trusted(out);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Dates are formatted from the wall times the representation holds (already in the event's
 * zone), with plain string arithmetic: no time zone database on the page's hot path.
 */
const ms = (wall: string) => Date.UTC(+wall.slice(0, 4), +wall.slice(5, 7) - 1, +wall.slice(8, 10), +wall.slice(11, 13) || 0, +wall.slice(14, 16) || 0, +wall.slice(17, 19) || 0);

/** The formats the hand-written `dayText` and `timeText` write (the settings' defaults). */
const DEFAULT_DATE_FORMAT = 'l j F Y';
const DEFAULT_TIME_FORMAT = 'g:i A';

/** "Saturday 27 March 2027" */
export function dayText(wall: string): string {
  return `${WEEKDAYS[new Date(ms(wall.slice(0, 10))).getUTCDay()]} ${+wall.slice(8, 10)} ${MONTHS[+wall.slice(5, 7) - 1]} ${wall.slice(0, 4)}`;
}

/** "9:00 AM", or the time in a PHP time format (CALENDAR_TIME_FORMAT) */
export function timeText(wall: string, format?: string): string {
  if (format !== undefined && format !== DEFAULT_TIME_FORMAT) return formatWall(wall, format);
  const h = +wall.slice(11, 13);
  return `${h % 12 === 0 ? 12 : h % 12}:${wall.slice(14, 16)} ${h < 12 ? 'AM' : 'PM'}`;
}

/** The site's date and time formats (PHP date formats: CALENDAR_DATE_FORMAT, CALENDAR_TIME_FORMAT). */
export interface DateFormats {
  date: string;
  time: string;
}

/** An event's date in the site's date format ("Saturday 27 March 2027" by default). */
export function eventDay(wall: string, formats?: DateFormats): string {
  return formats && formats.date !== DEFAULT_DATE_FORMAT ? formatWall(wall, formats.date) : dayText(wall);
}

/** "Saturday 27 March 2027, 9:00 AM – 10:00 AM EDT" and the other shapes of a schedule, in the site's formats. */
export function whenText(e: PublicEvent, formats?: DateFormats): string {
  const day = (w: string) => eventDay(w, formats);
  const time = (w: string) => timeText(w, formats?.time);
  const sameDay = e.start_date.slice(0, 10) === e.end_date.slice(0, 10);
  if (e.all_day) return sameDay ? `${day(e.start_date)} (all day)` : `${day(e.start_date)} – ${day(e.end_date)} (all day)`;
  const zone = e.timezone_abbr || e.timezone;
  if (sameDay) return `${day(e.start_date)}, ${time(e.start_date)} – ${time(e.end_date)} ${zone}`;
  return `${day(e.start_date)}, ${time(e.start_date)} – ${day(e.end_date)}, ${time(e.end_date)} ${zone}`;
}

/** ISO 8601 with the offset (the local wall time minus the UTC one), or the date of an all-day event. */
export function isoOf(wall: string, utcWall: string, allDay: boolean): string {
  if (allDay) return wall.slice(0, 10);
  const minutes = Math.round((ms(wall) - ms(utcWall)) / 60000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const offset = minutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${wall.slice(0, 10)}T${wall.slice(11, 19)}${offset}`;
}

/**
 * The local days (`YYYY-MM-DD`) an event covers: an end at midnight does not cover its day. With
 * `within` (a grid's first and last days), only the days inside it, however long before it began.
 */
export function daysCovered(e: Pick<PublicEvent, 'start_date' | 'end_date'>, within?: { from: string; until: string }): string[] {
  let first = e.start_date.slice(0, 10);
  let last = e.end_date.slice(0, 10);
  // Plain calendar arithmetic: a month page places up to a thousand events.
  if (last > first && e.end_date.slice(11) === '00:00:00') last = plusDays(last, -1);
  if (within && within.from > first) first = within.from;
  if (within && within.until < last) last = within.until;
  const out: string[] = [];
  for (let day = first; out.length < 400 && day <= last; day = plusDays(day, 1)) out.push(day);
  return out;
}

/**
 * A link target from stored data, only when it is an http(s) URL: escaping keeps a value inside its
 * attribute, but a `javascript:` URL would still run when followed.
 */
export function safeUrl(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && /^https?:\/\/[^\s]+$/i.test(v) ? v : undefined;
}

/** OpenStreetMap: the coordinates when known, else a search for the address. */
export function mapUrl(v: PublicVenue): string | undefined {
  if (v.geo_lat !== undefined && v.geo_lng !== undefined) return `https://www.openstreetmap.org/?mlat=${v.geo_lat}&mlon=${v.geo_lng}#map=16/${v.geo_lat}/${v.geo_lng}`;
  const address = venueAddress(v);
  return address ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}` : undefined;
}

function compact(wall: string): string {
  return wall.replace(/[-: ]/g, (c) => (c === ' ' ? 'T' : ''));
}

/** Google Calendar's "add event" link (the original's shape: action=TEMPLATE, dates, ctz). */
export function googleCalendarUrl(e: PublicEvent): string {
  const p = new URLSearchParams({ action: 'TEMPLATE', text: plainText(e.title) });
  if (e.all_day) {
    const endDay = DateTime.fromISO(e.end_date.slice(0, 10), { zone: 'utc' }).plus({ days: 1 }).toFormat('yyyyLLdd');
    p.set('dates', `${e.start_date.slice(0, 10).replace(/-/g, '')}/${endDay}`);
  } else {
    p.set('dates', `${compact(e.utc_start_date)}Z/${compact(e.utc_end_date)}Z`);
    if (e.timezone && !/^UTC[+-]/.test(e.timezone)) p.set('ctz', e.timezone);
  }
  p.set('details', description300(plainText(e.description)));
  const venue = Array.isArray(e.venue) ? undefined : e.venue;
  if (venue) p.set('location', [plainText(venue.venue), venueAddress(venue)].filter(Boolean).join(', '));
  p.set('trp', 'false');
  p.set('sprop', `website:${e.url}`);
  return `https://www.google.com/calendar/event?${p.toString()}`;
}

/** Outlook on the web's "add event" deep link (UTC times, as Outlook reads them). */
export function outlookUrl(e: PublicEvent): string {
  const iso = (wall: string) => `${wall.replace(' ', 'T')}Z`;
  const p = new URLSearchParams({ path: '/calendar/action/compose', rru: 'addevent', subject: plainText(e.title) });
  if (e.all_day) {
    p.set('startdt', e.start_date.slice(0, 10));
    p.set('enddt', DateTime.fromISO(e.end_date.slice(0, 10), { zone: 'utc' }).plus({ days: 1 }).toISODate()!);
    p.set('allday', 'true');
  } else {
    p.set('startdt', iso(e.utc_start_date));
    p.set('enddt', iso(e.utc_end_date));
    p.set('allday', 'false');
  }
  p.set('body', description300(plainText(e.description)));
  const venue = Array.isArray(e.venue) ? undefined : e.venue;
  if (venue) p.set('location', [plainText(venue.venue), venueAddress(venue)].filter(Boolean).join(', '));
  return `https://outlook.live.com/calendar/0/deeplink/compose?${p.toString()}`;
}

/** Subscribe links as the original offers them: webcal://, Google Calendar (cid=), Outlook (addsubscription), the .ics file. */
export function subscribeLinks(sub: Subscription): Array<{ label: string; href: string }> {
  const webcal = sub.feed.replace(/^https?:\/\//, 'webcal://');
  const outlook = (host: string) =>
    `https://${host}/owa?path=${encodeURIComponent('/calendar/action/compose')}&rru=addsubscription&url=${encodeURIComponent(webcal)}&name=${encodeURIComponent(sub.name)}`;
  return [
    { label: 'Google Calendar', href: `https://www.google.com/calendar/render?cid=${encodeURIComponent(webcal)}` },
    { label: 'iCalendar (Apple Calendar and others)', href: webcal },
    { label: 'Outlook 365', href: outlook('outlook.office.com') },
    { label: 'Outlook Live', href: outlook('outlook.live.com') },
    { label: 'Export .ics file', href: sub.feed },
  ];
}

export interface ListView {
  page: EventsPage;
  past: boolean;
  filter: EventFilter;
  /** heading, e.g. 'Upcoming events' or 'Concerts' */
  heading: string;
  intro?: string;
  meta: PageMeta;
  /** URL of page n */
  pageUrl(n: number): string;
  /** the other direction (past / upcoming) */
  otherUrl: string;
  /** where the search box sends its query */
  searchAction: string;
  subscription: Subscription;
}

export interface MonthView {
  month: string; // YYYY-MM
  /** the grid's first day of the week (a day's name) */
  weekStart: string;
  today: string;
  events: PublicEvent[];
  truncated: boolean;
  filter: EventFilter;
  meta: PageMeta;
  monthUrl(month: string): string;
  dayUrl(day: string): string;
  subscription: Subscription;
}

export interface DayView {
  day: string;
  events: PublicEvent[];
  meta: PageMeta;
  dayUrl(day: string): string;
  subscription: Subscription;
}
