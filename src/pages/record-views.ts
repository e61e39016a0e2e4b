/**
 * The calendar's views of one record: an event's page, a venue's or organizer's page.
 */
import { costShown } from '../domain/representations/event.js';
import { venueAddress } from '../domain/ical.js';
import type { EventsPage, PublicEvent, PublicOrganizer, PublicVenue } from '../domain/public-records.js';
import { html, jsonLdScript, plainText } from './html.js';
import { eventDay, googleCalendarUrl, shownTitle, isoOf, mapUrl, outlookUrl, safeDescription, safeUrl, timeText, whenText, type PageMeta, type Subscription } from './view-helpers.js';
import type { ViewParts } from './view-parts.js';
import { imageTag } from './image-views.js';
import type { SafeHtml } from '../web/html.js';

/** What an event page shows besides the event: its series' dates, the preview banner. */
export interface EventExtras {
  series?: SafeHtml;
  banner?: SafeHtml;
}

/** A single event's page (or one occurrence's), with its JSON-LD. */
export function eventView(parts: ViewParts, e: PublicEvent, meta: PageMeta, extra: EventExtras = {}): string {
  const { url, layout, termLinks, organizerBlock } = parts;
  const venue = Array.isArray(e.venue) ? undefined : e.venue;
  const map = venue ? mapUrl(venue) : undefined;
  const image = e.image ? e.image : undefined;
  const f = parts.formats();
  const main = html`<article class="event-single" itemscope>
${extra.banner ?? ''}<p class="back"><a href="${url('/events/')}">« All events</a></p>
<h1>${shownTitle(e)}</h1>
<p class="when"><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${whenText(e, f)}</time>${e.all_day ? '' : html` <span class="zone">(${e.timezone})</span>`}</p>
${extra.series ?? ''}${image && safeUrl(image.url) ? html`<figure class="image">${imageTag(image, { sizes: '(max-width: 50rem) 100vw, 50rem', alt: plainText(e.title) })}</figure>` : ''}
<div class="description">${safeDescription(e.description)}</div>
<section class="details" aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
<dt>Start</dt><dd><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${e.all_day ? eventDay(e.start_date, f) : `${eventDay(e.start_date, f)}, ${timeText(e.start_date, f.time)}`}</time></dd>
<dt>End</dt><dd><time datetime="${isoOf(e.end_date, e.utc_end_date, e.all_day)}">${e.all_day ? eventDay(e.end_date, f) : `${eventDay(e.end_date, f)}, ${timeText(e.end_date, f.time)}`}</time></dd>
${e.all_day ? '' : html`<dt>Time zone</dt><dd>${e.timezone}${e.timezone_abbr ? ` (${e.timezone_abbr})` : ''}</dd>`}
${!venue && e.location_text ? html`<dt>Location</dt><dd class="location">${e.location_text}</dd>` : ''}
${e.cost ? html`<dt>Cost</dt><dd>${plainText(costShown(e))}</dd>` : ''}
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
}

/**
 * A password-protected event's page before its password is given: its title, and WordPress'
 * password form (get_the_password_form), which posts to the page itself (event-pages.ts sets the
 * cookie and comes back here). `wrong`: the cookie holds another password.
 */
export function protectedEventView(parts: ViewParts, e: PublicEvent, meta: PageMeta, action: string, wrong: boolean): string {
  const { url, layout } = parts;
  const field = `pwbox-${e.id}`;
  const main = html`<article class="event-single protected">
<p class="back"><a href="${url('/events/')}">« All events</a></p>
<h1>${shownTitle(e)}</h1>
<form action="${action}" class="post-password-form" method="post">
<p id="${field}-help">This content is password protected. To view it please enter your password below:</p>
${wrong ? html`<p class="password-wrong" role="alert">The password you entered is not the right one.</p>` : ''}
<p><label for="${field}">Password:</label> <input name="post_password" id="${field}" type="password" spellcheck="false" size="20" autocomplete="current-password" aria-describedby="${field}-help" required> <button type="submit">Enter</button></p>
</form>
</article>`;
  return layout(meta, main);
}

/** A venue's or organizer's page: its details and upcoming events, with its JSON-LD. */
export function linkedView(
  parts: ViewParts,
  kind: 'venue' | 'organizer',
  record: PublicVenue | PublicOrganizer,
  page: EventsPage,
  meta: PageMeta,
  pageUrl: (n: number) => string,
  subscription: Subscription,
): string {
  const { url, layout, eventCard, pager, subscribeBlock, organizerContacts } = parts;
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
}
