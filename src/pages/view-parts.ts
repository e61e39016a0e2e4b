/**
 * The pieces every calendar page is built from, bound to the site's settings and links: the
 * layout (head, navigation, footer), event cards (kept per representation), term links, the
 * subscribe block, the search form, pagers and organizer contacts.
 */
import type { Config } from '../config.js';
import type { Links } from '../domain/links.js';
import { isOrganizerEmail } from '../domain/linked-posts/index.js';
import { costShown } from '../domain/representations/event.js';
import type { EventFilter, PublicEvent, PublicOrganizer, PublicTerm } from '../domain/public-records.js';
import { HEADER_LABELS, siteHeader } from '../web/site-header.js';
import { html, plainText, trusted, type SafeHtml } from './html.js';
import { imageTag } from './image-views.js';
import { iconLink } from '../web/site-icon.js';
import { repeatingMark } from './series-views.js';
import { isoOf, safeUrl, shownTitle, STYLESHEET_PATH, subscribeLinks, whenText, type DateFormats, type PageMeta, type Subscription } from './view-helpers.js';

/** The pages' shared pieces (see {@link createViewParts}). */
export type ViewParts = ReturnType<typeof createViewParts>;

/** The pages' shared pieces, bound to the site's settings and links. */
export function createViewParts(config: Config, links: Links) {
  const site = links.siteUrl;
  const url = (path: string) => `${site}${path}`;

  // The header the submission pages show too (web/site-header.ts), with the link to the form when
  // the public may propose events.
  // Made again when administrators change the site's name (kept otherwise: one per name).
  let header: { siteName: string; html: SafeHtml } | undefined;
  const headerOf = (siteName: string): SafeHtml => {
    if (header?.siteName !== siteName) header = { siteName, html: siteHeader({ siteName, url, labels: HEADER_LABELS.en, submissions: config.submissions !== 'off' }) };
    return header.html;
  };

  function layout(meta: PageMeta, main: SafeHtml, extraHead: SafeHtml | string = ''): string {
    // Read per page: administrators change the site's name while the server runs.
    const siteName = config.siteName;
    const title = meta.title === siteName ? siteName : `${meta.title} – ${siteName}`;
    return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${trusted(iconLink(config.siteIcon, url))}
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
${headerOf(siteName)}
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
  let cards = { 2: new WeakMap<PublicEvent, SafeHtml>(), 3: new WeakMap<PublicEvent, SafeHtml>() };
  // The site's date and time formats (changed by administrators): the cards are made again when they change.
  let shownFormats: DateFormats = { date: config.dateFormat, time: config.timeFormat };
  function formats(): DateFormats {
    if (shownFormats.date !== config.dateFormat || shownFormats.time !== config.timeFormat) {
      shownFormats = { date: config.dateFormat, time: config.timeFormat };
      cards = { 2: new WeakMap<PublicEvent, SafeHtml>(), 3: new WeakMap<PublicEvent, SafeHtml>() };
    }
    return shownFormats;
  }
  function eventCard(e: PublicEvent, headingLevel: 2 | 3 = 2): SafeHtml {
    formats();
    let card = cards[headingLevel].get(e);
    if (!card) cards[headingLevel].set(e, (card = renderCard(e, headingLevel)));
    return card;
  }

  function renderCard(e: PublicEvent, headingLevel: 2 | 3): SafeHtml {
    const venue = Array.isArray(e.venue) ? undefined : e.venue;
    const title = html`<a href="${e.url}">${shownTitle(e)}</a>`;
    return html`<article class="event${e.featured ? ' featured' : ''}">
${headingLevel === 2 ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`}
${e.image ? imageTag(e.image, { sizes: '(max-width: 30rem) 100vw, 300px', alt: '', prefer: 'medium', className: 'picture' }) : ''}
<p class="when"><time datetime="${isoOf(e.start_date, e.utc_start_date, e.all_day)}">${whenText(e, shownFormats)}</time></p>
${repeatingMark(e)}${venue ? html`<p class="where"><a href="${venue.url}">${plainText(venue.venue)}</a>${venue.city ? html`, ${venue.city}` : ''}</p>` : ''}
${e.cost ? html`<p class="cost">${plainText(costShown(e))}</p>` : ''}
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

  function organizerContacts(o: PublicOrganizer): SafeHtml {
    return html`${o.phone ? html`<p>Phone: <a href="tel:${o.phone.replace(/[^+\d]/g, '')}">${o.phone}</a></p>` : ''}
${o.email ? html`<p>E-mail: ${isOrganizerEmail(o.email) ? html`<a href="mailto:${o.email}">${o.email}</a>` : o.email}</p>` : ''}
${safeUrl(o.website) ? html`<p><a href="${safeUrl(o.website)}" rel="nofollow">Website</a></p>` : ''}`;
  }

  function organizerBlock(o: PublicOrganizer): SafeHtml {
    return html`<div class="organizer">
<p class="organizer-name"><a href="${o.url}">${plainText(o.organizer)}</a></p>
${organizerContacts(o)}
</div>`;
  }

  return { url, layout, termLinks, eventCard, subscribeBlock, searchForm, pager, organizerContacts, organizerBlock, formats };
}
