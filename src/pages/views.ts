/**
 * The calendar's HTML views: pure functions from what `calendar.ts` read to a page. Every value
 * is escaped by the `html` template; the only markup inserted as it is comes from the stored
 * description (sanitised again here, as kses would) and the JSON-LD (made safe for a script).
 *
 * @example
 *   const v = createViews(config, links);
 *   v.list({ page, filter, past: false, icsUrl }).value
 */
import { DateTime } from 'luxon';
import type { Config } from '../config.js';
import type { Links } from '../domain/links.js';
import { sanitizePostHtml } from '../domain/text.js';
import { venueAddress } from './ical.js';
import type { EventFilter, EventsPage, PublicEvent, PublicOrganizer, PublicTerm, PublicVenue } from './public.js';
import { html, jsonLdScript, plainText, trusted, type SafeHtml } from './html.js';
import { registerKept } from '../metrics.js';

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
function safeDescription(markup: string): SafeHtml {
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

/** "Saturday 27 March 2027" */
export function dayText(wall: string): string {
  return `${WEEKDAYS[new Date(ms(wall.slice(0, 10))).getUTCDay()]} ${+wall.slice(8, 10)} ${MONTHS[+wall.slice(5, 7) - 1]} ${wall.slice(0, 4)}`;
}

/** "9:00 AM" */
export function timeText(wall: string): string {
  const h = +wall.slice(11, 13);
  return `${h % 12 === 0 ? 12 : h % 12}:${wall.slice(14, 16)} ${h < 12 ? 'AM' : 'PM'}`;
}

/** "Saturday 27 March 2027, 9:00 AM – 10:00 AM EDT" and the other shapes of a schedule. */
export function whenText(e: PublicEvent): string {
  const sameDay = e.start_date.slice(0, 10) === e.end_date.slice(0, 10);
  if (e.all_day) return sameDay ? `${dayText(e.start_date)} (all day)` : `${dayText(e.start_date)} – ${dayText(e.end_date)} (all day)`;
  const zone = e.timezone_abbr || e.timezone;
  if (sameDay) return `${dayText(e.start_date)}, ${timeText(e.start_date)} – ${timeText(e.end_date)} ${zone}`;
  return `${dayText(e.start_date)}, ${timeText(e.start_date)} – ${dayText(e.end_date)}, ${timeText(e.end_date)} ${zone}`;
}

/** ISO 8601 with the offset (the local wall time minus the UTC one), or the date of an all-day event. */
function isoOf(wall: string, utcWall: string, allDay: boolean): string {
  if (allDay) return wall.slice(0, 10);
  const minutes = Math.round((ms(wall) - ms(utcWall)) / 60000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const offset = minutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${wall.slice(0, 10)}T${wall.slice(11, 19)}${offset}`;
}

/** The local days (`YYYY-MM-DD`) an event covers: an end at midnight does not cover its day. */
export function daysCovered(e: Pick<PublicEvent, 'start_date' | 'end_date'>): string[] {
  const first = e.start_date.slice(0, 10);
  let last = e.end_date.slice(0, 10);
  if (last > first && e.end_date.slice(11) === '00:00:00') last = DateTime.fromISO(last, { zone: 'utc' }).minus({ days: 1 }).toISODate()!;
  const out: string[] = [];
  for (let d = DateTime.fromISO(first, { zone: 'utc' }); out.length < 400; d = d.plus({ days: 1 })) {
    const day = d.toISODate()!;
    if (day > last) break;
    out.push(day);
  }
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

/** Views bound to the site's settings and links. */
export function createViews(config: Config, links: Links) {
  const site = links.siteUrl;
  const url = (path: string) => `${site}${path}`;
  const siteName = config.siteName;

  function layout(meta: PageMeta, main: SafeHtml, extraHead: SafeHtml | string = ''): string {
    const title = meta.title === siteName ? siteName : `${meta.title} – ${siteName}`;
    return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${meta.description}">
${meta.noindex ? html`<meta name="robots" content="noindex">\n` : ''}<link rel="canonical" href="${meta.canonical}">
<meta property="og:title" content="${meta.title}">
<meta property="og:type" content="${meta.ogType ?? 'website'}">
<meta property="og:url" content="${meta.canonical}">
<meta property="og:site_name" content="${siteName}">
<meta property="og:description" content="${meta.description}">
${meta.image ? html`<meta property="og:image" content="${meta.image}">\n` : ''}<link rel="stylesheet" href="${url(STYLESHEET_PATH)}">
${meta.ics ? html`<link rel="alternate" type="text/calendar" title="${siteName} (iCalendar)" href="${meta.ics}">\n` : ''}<link rel="https://api.w.org/" href="${links.restRoot}">
${extraHead}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site-header">
<p class="site-name"><a href="${url('/events/')}">${siteName}</a></p>
<nav aria-label="Calendar views">
<ul>
<li><a href="${url('/events/list/')}">List</a></li>
<li><a href="${url('/events/month/')}">Month</a></li>
<li><a href="${url('/events/today/')}">Today</a></li>
</ul>
</nav>
</header>
<main id="main">
${main}
</main>
<footer class="site-footer">
<p>Times are shown in each event's own time zone. Site time zone: ${config.timezone}.</p>
</footer>
</body>
</html>
`.value;
  }

  function termLinks(terms: PublicTerm[], kind: 'category' | 'tag'): SafeHtml {
    if (!terms.length) return html``;
    return html`<ul class="terms ${kind === 'category' ? 'categories' : 'tags'}" aria-label="${kind === 'category' ? 'Categories' : 'Tags'}">${terms.map(
      (t) => html`<li><a href="${url(`/events/${kind}/${encodeURIComponent(t.slug)}/`)}"${kind === 'tag' ? html` rel="tag"` : ''}>${plainText(t.name)}</a></li>`,
    )}</ul>`;
  }

  /**
   * Cards are kept per representation object: the domain hands out the same kept object until the
   * event (or what it embeds) changes, so an unchanged event is rendered once.
   */
  const cards = { 2: new WeakMap<PublicEvent, SafeHtml>(), 3: new WeakMap<PublicEvent, SafeHtml>() };
  function eventCard(e: PublicEvent, headingLevel: 2 | 3 = 2): SafeHtml {
    let card = cards[headingLevel].get(e);
    if (!card) cards[headingLevel].set(e, (card = renderCard(e, headingLevel)));
    return card;
  }

  function renderCard(e: PublicEvent, headingLevel: 2 | 3): SafeHtml {
    const venue = Array.isArray(e.venue) ? undefined : e.venue;
    const title = html`<a href="${e.url}">${plainText(e.title)}</a>`;
    return html`<article class="event${e.featured ? ' featured' : ''}">
${headingLevel === 2 ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`}
<p class="when"><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${whenText(e)}</time></p>
${venue ? html`<p class="where"><a href="${venue.url}">${plainText(venue.venue)}</a>${venue.city ? html`, ${venue.city}` : ''}</p>` : ''}
${e.cost ? html`<p class="cost">${plainText(e.cost)}</p>` : ''}
${termLinks(e.categories, 'category')}
</article>`;
  }

  function subscribeBlock(sub: Subscription, exportUrl?: string): SafeHtml {
    const links = subscribeLinks(sub);
    if (exportUrl) links[links.length - 1] = { label: 'Export .ics file', href: exportUrl };
    return html`<section class="subscribe" aria-labelledby="subscribe-heading">
<h2 id="subscribe-heading">Subscribe to calendar</h2>
<ul>${links.map((l) => html`<li><a href="${l.href}" rel="nofollow">${l.label}</a></li>`)}</ul>
</section>`;
  }

  function searchForm(action: string, filter: EventFilter, past: boolean): SafeHtml {
    return html`<form class="search" role="search" method="get" action="${action}">
<label for="event-search">Search events</label>
<input id="event-search" type="search" name="search" value="${filter.search ?? ''}">
${past ? html`<input type="hidden" name="eventDisplay" value="past">` : ''}<button type="submit">Find events</button>
</form>`;
  }

  function pager(label: string, prev: string | undefined, next: string | undefined, prevText: string, nextText: string): SafeHtml {
    if (!prev && !next) return html``;
    return html`<nav class="pager" aria-label="${label}"><ul>
${prev ? html`<li class="prev"><a href="${prev}" rel="prev">${prevText}</a></li>` : ''}
${next ? html`<li class="next"><a href="${next}" rel="next">${nextText}</a></li>` : ''}
</ul></nav>`;
  }

  return {
    layout,
    eventCard,

    list(v: ListView): string {
      const { page } = v;
      const prev = page.page > 1 ? v.pageUrl(page.page - 1) : undefined;
      const next = page.page < page.totalPages ? v.pageUrl(page.page + 1) : undefined;
      const main = html`<h1>${v.heading}</h1>
${v.intro ? html`<p class="intro">${v.intro}</p>` : ''}
${searchForm(v.searchAction, v.filter, v.past)}
${v.filter.search ? html`<p class="results" role="status">${page.total} ${page.total === 1 ? 'event' : 'events'} found for “${v.filter.search}”.</p>` : ''}
${page.events.length ? html`<div class="events">${page.events.map((e) => eventCard(e))}</div>` : html`<p class="empty">${v.past ? 'No past events.' : 'There are no upcoming events.'}</p>`}
${pager('Pages', prev, next, v.past ? 'Newer events' : 'Previous events', v.past ? 'Older events' : 'Next events')}
<p class="other"><a href="${v.otherUrl}">${v.past ? 'Upcoming events' : 'Past events'}</a></p>
${subscribeBlock(v.subscription, v.meta.ics)}`;
      return layout(v.meta, main);
    },

    month(v: MonthView): string {
      const first = DateTime.fromISO(`${v.month}-01`, { zone: 'utc' });
      const gridStart = first.minus({ days: first.weekday - 1 });
      const last = first.endOf('month');
      const gridEnd = last.plus({ days: 7 - last.weekday });
      const byDay = new Map<string, PublicEvent[]>();
      for (const e of v.events) for (const d of daysCovered(e)) (byDay.get(d) ?? byDay.set(d, []).get(d)!).push(e);
      const weeks: SafeHtml[] = [];
      for (let w = gridStart; w <= gridEnd; w = w.plus({ days: 7 })) {
        const cells: SafeHtml[] = [];
        for (let i = 0; i < 7; i++) {
          const d = w.plus({ days: i });
          const day = d.toISODate()!;
          const events = byDay.get(day) ?? [];
          const shown = events.slice(0, 3);
          const more = events.length - shown.length;
          const classes = ['day', d.month !== first.month ? 'other-month' : '', day === v.today ? 'today' : '', events.length ? 'has-events' : ''].filter(Boolean).join(' ');
          cells.push(html`<td class="${classes}"${day === v.today ? html` aria-current="date"` : ''}>
<a class="day-number" href="${v.dayUrl(day)}" aria-label="${dayText(day)}${events.length ? `, ${events.length} ${events.length === 1 ? 'event' : 'events'}` : ''}">${d.day}</a>
${shown.length ? html`<ul>${shown.map((e) => html`<li><a href="${e.url}">${e.all_day ? '' : html`<span class="time">${timeText(e.start_date)}</span> `}${plainText(e.title)}</a></li>`)}</ul>` : ''}
${more > 0 || (v.truncated && events.length) ? html`<a class="more" href="${v.dayUrl(day)}">${more > 0 ? `+ ${more} more` : 'more'}</a>` : ''}
</td>`);
        }
        weeks.push(html`<tr>${cells}</tr>`);
      }
      const prevMonth = first.minus({ months: 1 }).toFormat('yyyy-LL');
      const nextMonth = first.plus({ months: 1 }).toFormat('yyyy-LL');
      const heading = first.toFormat('LLLL yyyy');
      const main = html`<h1>Events in ${heading}</h1>
${pager('Months', v.monthUrl(prevMonth), v.monthUrl(nextMonth), `‹ ${first.minus({ months: 1 }).toFormat('LLLL yyyy')}`, `${first.plus({ months: 1 }).toFormat('LLLL yyyy')} ›`)}
<table class="month">
<caption>${heading}</caption>
<thead><tr>${['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].map((d) => html`<th scope="col"><abbr title="${d}">${d.slice(0, 3)}</abbr></th>`)}</tr></thead>
<tbody>
${weeks}
</tbody>
</table>
${v.events.length === 0 ? html`<p class="empty">No events this month.</p>` : ''}
${subscribeBlock(v.subscription, v.meta.ics)}`;
      return layout(v.meta, main);
    },

    day(v: DayView): string {
      const d = DateTime.fromISO(v.day, { zone: 'utc' });
      const prev = d.minus({ days: 1 }).toISODate()!;
      const next = d.plus({ days: 1 }).toISODate()!;
      const main = html`<h1>Events on ${dayText(v.day)}</h1>
${pager('Days', v.dayUrl(prev), v.dayUrl(next), `‹ ${d.minus({ days: 1 }).toFormat('cccc d LLLL')}`, `${d.plus({ days: 1 }).toFormat('cccc d LLLL')} ›`)}
${v.events.length ? html`<div class="events">${v.events.map((e) => eventCard(e))}</div>` : html`<p class="empty">No events on this day.</p>`}
${subscribeBlock(v.subscription, v.meta.ics)}`;
      return layout(v.meta, main);
    },

    event(e: PublicEvent, meta: PageMeta): string {
      const venue = Array.isArray(e.venue) ? undefined : e.venue;
      const map = venue ? mapUrl(venue) : undefined;
      const image = e.image ? e.image : undefined;
      const main = html`<article class="event-single" itemscope>
<p class="back"><a href="${url('/events/')}">« All events</a></p>
<h1>${plainText(e.title)}</h1>
<p class="when"><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${whenText(e)}</time>${e.all_day ? '' : html` <span class="zone">(${e.timezone})</span>`}</p>
${image && safeUrl(image.url) ? html`<figure class="image"><img src="${safeUrl(image.url)}" alt="${plainText(e.title)}"${image.width ? html` width="${image.width}"` : ''}${image.height ? html` height="${image.height}"` : ''}></figure>` : ''}
<div class="description">${safeDescription(e.description)}</div>
<section class="details" aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
<dt>Start</dt><dd><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${e.all_day ? dayText(e.start_date) : `${dayText(e.start_date)}, ${timeText(e.start_date)}`}</time></dd>
<dt>End</dt><dd><time datetime="${isoOf(e.end_date, e.utc_end_date, e.all_day)}">${e.all_day ? dayText(e.end_date) : `${dayText(e.end_date)}, ${timeText(e.end_date)}`}</time></dd>
${e.all_day ? '' : html`<dt>Time zone</dt><dd>${e.timezone}${e.timezone_abbr ? ` (${e.timezone_abbr})` : ''}</dd>`}
${e.cost ? html`<dt>Cost</dt><dd>${plainText(e.cost)}</dd>` : ''}
${e.website && e.website !== e.url && safeUrl(plainText(e.website)) ? html`<dt>Website</dt><dd><a href="${safeUrl(plainText(e.website))}" rel="nofollow">${plainText(e.website)}</a></dd>` : ''}
${e.categories.length ? html`<dt>Categories</dt><dd>${termLinks(e.categories, 'category')}</dd>` : ''}
${e.tags.length ? html`<dt>Tags</dt><dd>${termLinks(e.tags, 'tag')}</dd>` : ''}
</dl>
</section>
${
  venue
    ? html`<section class="venue" aria-labelledby="venue-heading">
<h2 id="venue-heading">Venue</h2>
<p class="venue-name"><a href="${venue.url}">${plainText(venue.venue)}</a></p>
${venueAddress(venue) ? html`<address>${venueAddress(venue)}</address>` : ''}
${venue.phone ? html`<p>Phone: <a href="tel:${venue.phone.replace(/[^+\d]/g, '')}">${venue.phone}</a></p>` : ''}
${safeUrl(venue.website) ? html`<p><a href="${safeUrl(venue.website)}" rel="nofollow">Venue website</a></p>` : ''}
${map ? html`<p><a class="map" href="${map}">Map (OpenStreetMap)</a></p>` : ''}
</section>`
    : ''
}
${
  e.organizer.length
    ? html`<section class="organizers" aria-labelledby="organizers-heading">
<h2 id="organizers-heading">${e.organizer.length === 1 ? 'Organizer' : 'Organizers'}</h2>
${e.organizer.map((o) => organizerBlock(o))}
</section>`
    : ''
}
<section class="add-to-calendar" aria-labelledby="add-heading">
<h2 id="add-heading">Add to calendar</h2>
<ul>
<li><a href="${googleCalendarUrl(e)}" rel="nofollow">Google Calendar</a></li>
<li><a href="${outlookUrl(e)}" rel="nofollow">Outlook (web)</a></li>
<li><a href="${`${e.url}?ical=1`}" rel="nofollow">Download .ics (iCalendar)</a></li>
<li><a href="${`${e.url}?outlook-ical=1`}" rel="nofollow">Download .ics for Outlook</a></li>
</ul>
</section>
</article>`;
      // The API's json_ld object, plus the eventStatus search engines' event results ask for
      // (a published event is scheduled: the calendar has no cancelled or postponed state).
      return layout(meta, main, e.json_ld ? html`${jsonLdScript({ ...e.json_ld, eventStatus: 'https://schema.org/EventScheduled' })}\n` : '');
    },

    linked(kind: 'venue' | 'organizer', record: PublicVenue | PublicOrganizer, page: EventsPage, meta: PageMeta, pageUrl: (n: number) => string, subscription: Subscription): string {
      const name = plainText(kind === 'venue' ? (record as PublicVenue).venue : (record as PublicOrganizer).organizer);
      const v = kind === 'venue' ? (record as PublicVenue) : undefined;
      const map = v ? mapUrl(v) : undefined;
      const prev = page.page > 1 ? pageUrl(page.page - 1) : undefined;
      const next = page.page < page.totalPages ? pageUrl(page.page + 1) : undefined;
      const main = html`<article class="${kind}-single">
<p class="back"><a href="${url('/events/')}">« All events</a></p>
<h1>${name}</h1>
${
  v
    ? html`${venueAddress(v) ? html`<address>${venueAddress(v)}</address>` : ''}
${v.phone ? html`<p>Phone: <a href="tel:${v.phone.replace(/[^+\d]/g, '')}">${v.phone}</a></p>` : ''}
${safeUrl(v.website) ? html`<p><a href="${safeUrl(v.website)}" rel="nofollow">Website</a></p>` : ''}
${map ? html`<p><a class="map" href="${map}">Map (OpenStreetMap)</a></p>` : ''}`
    : organizerContacts(record as PublicOrganizer)
}
${record.description ? html`<div class="description">${safeDescription(record.description)}</div>` : ''}
<section class="upcoming" aria-labelledby="upcoming-heading">
<h2 id="upcoming-heading">Upcoming events</h2>
${page.events.length ? html`<div class="events">${page.events.map((e) => eventCard(e, 3))}</div>` : html`<p class="empty">There are no upcoming events.</p>`}
${pager('Pages', prev, next, 'Previous events', 'Next events')}
</section>
${subscribeBlock(subscription, meta.ics)}
</article>`;
      return layout(meta, main, record.json_ld ? html`${jsonLdScript({ '@context': 'http://schema.org', ...record.json_ld })}\n` : '');
    },

    notFound(requested: string): string {
      const main = html`<h1>Page not found</h1>
<p>There is nothing at this address. The event may have been removed, or it is not published.</p>
<p><a href="${url('/events/')}">See the upcoming events</a></p>`;
      return layout({ title: 'Page not found', description: 'There is nothing at this address.', canonical: requested, noindex: true }, main);
    },

    unavailable(): string {
      const main = html`<h1>The calendar is unavailable</h1>
<p>The calendar cannot be read right now. Please try again in a moment.</p>`;
      return layout({ title: 'Unavailable', description: 'The calendar cannot be read right now.', canonical: url('/events/'), noindex: true }, main);
    },
  };

  function organizerContacts(o: PublicOrganizer): SafeHtml {
    return html`${o.phone ? html`<p>Phone: <a href="tel:${o.phone.replace(/[^+\d]/g, '')}">${o.phone}</a></p>` : ''}
${o.email ? html`<p>E-mail: <a href="mailto:${o.email}">${o.email}</a></p>` : ''}
${safeUrl(o.website) ? html`<p><a href="${safeUrl(o.website)}" rel="nofollow">Website</a></p>` : ''}`;
  }

  function organizerBlock(o: PublicOrganizer): SafeHtml {
    return html`<div class="organizer">
<p class="organizer-name"><a href="${o.url}">${plainText(o.organizer)}</a></p>
${organizerContacts(o)}
</div>`;
  }
}

export type Views = ReturnType<typeof createViews>;

/** The stylesheet: small, responsive (the month grid becomes a list on narrow screens), no JavaScript needed. */
export const STYLESHEET = `:root{--fg:#1d2327;--muted:#50575e;--accent:#1d4ed8;--line:#d0d5dd;--bg:#fff;--soft:#f3f5f8;--today:#fff7d6}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.site-header,.site-footer,main{max-width:72rem;margin:0 auto;padding:1rem}
.site-header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;border-bottom:1px solid var(--line)}
.site-name{margin:0;font-size:1.25rem;font-weight:700}.site-name a{color:var(--fg);text-decoration:none}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:1rem}
.site-footer{color:var(--muted);font-size:.875rem;border-top:1px solid var(--line);margin-top:2rem}
h1{font-size:1.75rem;line-height:1.2}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
.search input{flex:1 1 14rem;padding:.5rem;border:1px solid var(--muted);border-radius:4px;font:inherit}
.search button{padding:.5rem 1rem;border:0;border-radius:4px;background:var(--accent);color:#fff;font:inherit;cursor:pointer}
.events{display:grid;gap:1rem}
.event{border:1px solid var(--line);border-radius:6px;padding:1rem}
.event.featured{border-left:4px solid var(--accent)}
.event h2,.event h3{margin:0 0 .25rem;font-size:1.2rem}
.event p{margin:.25rem 0}.when{color:var(--muted)}
.terms{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem}
.terms a{display:inline-block;padding:0 .5rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:.875rem}
.pager ul{justify-content:space-between;margin:1.5rem 0}
.subscribe,.add-to-calendar{margin-top:2rem}.subscribe ul,.add-to-calendar ul{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;list-style:none;padding:0}
table.month{width:100%;border-collapse:collapse;table-layout:fixed}
table.month caption{position:absolute;left:-9999px}
table.month th{padding:.25rem;background:var(--soft);border:1px solid var(--line)}
table.month abbr{text-decoration:none}
table.month td{vertical-align:top;height:7rem;padding:.25rem;border:1px solid var(--line);overflow:hidden}
table.month td.other-month{background:var(--soft)}
table.month td.other-month .day-number{color:var(--muted)}
table.month td.today{background:var(--today)}
table.month ul{list-style:none;margin:.25rem 0 0;padding:0;font-size:.8rem}
table.month li{margin-bottom:.2rem;overflow-wrap:anywhere}
.day-number{font-weight:700;text-decoration:none}
.time{color:var(--muted)}
.more{font-size:.8rem}
.event-single .description{margin:1rem 0}
.event-single img{max-width:100%;height:auto}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:700}dd{margin:0}
dd .terms{margin:0}
address{font-style:normal}
@media (max-width:40rem){
table.month,table.month tbody,table.month tr,table.month td{display:block;width:100%}
table.month thead{display:none}
table.month td{height:auto;border-width:0 0 1px}
table.month td:not(.has-events){display:none}
dl{grid-template-columns:1fr}
}
`;
