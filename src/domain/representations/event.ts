/**
 * The event object (shapes.md §2), every key in the original's order. The same function builds
 * single, list, create, update and delete answers; `json_ld` only in the 'single' context (and then
 * also on the embedded venue and organizers).
 *
 * @example toEventJson(record, related, links, 'list')
 */
import type { EventRecord } from '../../store/events.js';
import type { OrganizerRecord, VenueRecord } from '../../store/linked-posts.js';
import type { ImageRow, TermRow } from '../../store/schema.js';
import { formatCost, shownCost, typedCost, type CurrencyDefaults } from '../cost.js';
import { dateDetails, isoWithOffset } from '../dates/wall.js';
import { timezoneAbbr } from '../dates/abbreviations.js';
import type { Links } from '../links.js';
import { autop } from '../text/autop.js';
import { escHtml } from '../text/entities.js';
import { jsonLdDescription } from '../text/excerpts.js';
import { phpTrim } from '../text/php.js';
import { toImageJson } from './image.js';
import { organizerJsonLd, toOrganizerJson } from './organizer.js';
import { permalinkOf, wireSlug } from './post.js';
import { toEmbeddedTermJson } from './term.js';
import { markProtected, withheldJsonLd } from './protected.js';
import { isProtected, type PasswordHolder } from '../post-passwords.js';
import { toVenueJson, venueJsonLd, type RepresentationContext } from './venue.js';

/** Everything an event links to, loaded in batches by the domain before representing. */
export interface EventRelated {
  venue: VenueRecord | null;
  organizers: OrganizerRecord[];
  categories: TermRow[];
  tags: TermRow[];
  /** images by id (the event's, its venue's and its organizers') */
  images: ReadonlyMap<number, ImageRow>;
  /** Recurring events: set for a series and for its occurrences only. */
  recurrence?: EventRecurrence;
}

/** What a series or an occurrence adds to the event object. */
export type EventRecurrence = { kind: 'series'; lines: string[]; hideFromListings: number } | { kind: 'occurrence'; lines: string[]; seriesId: number; seriesSlug: string; originalStart: string };

function imageOf(related: EventRelated, id: number | null): ImageRow | null {
  return id === null ? null : (related.images.get(Number(id)) ?? null);
}

/**
 * The cost as this service's own faces show it (`shownCost` in ../cost.ts: a free-text cost as
 * typed) and as it was typed (`typedCost`: what a form loads back), carried on each event object
 * under this symbol: JSON never writes a symbol key, so the wire's `cost` stays the original's,
 * while the faces that read the objects (pages, the iframe view, the FullCalendar source,
 * submissions) use them. Read with `costShown` and `costTyped`.
 */
export const COST_AS_TYPED: unique symbol = Symbol('cost as typed');

type WithCost = { cost: string; [COST_AS_TYPED]?: { shown: string; typed: string } };

/** The cost a face shows for an event object (HTML-escaped, as `cost`): its shown cost, else the legacy `cost`. */
export function costShown(event: { cost: string }): string {
  return (event as WithCost)[COST_AS_TYPED]?.shown ?? event.cost;
}

/** The cost as typed (plain text), for a form to load back; the legacy `cost` when the object has none. */
export function costTyped(event: { cost: string }): string {
  return (event as WithCost)[COST_AS_TYPED]?.typed ?? event.cost;
}

/** Stored raw cost values of an event. */
export function storedCost(e: Pick<EventRecord, 'cost'>): string[] {
  if (e.cost === null || e.cost === '') return [];
  try {
    const v = JSON.parse(e.cost);
    return Array.isArray(v) ? v.map(String) : [String(v)];
  } catch {
    return [e.cost];
  }
}

function eventJsonLd(e: EventRecord, related: EventRelated, url: string, cost: { cost: string; values: string[] }): Record<string, unknown> {
  const image = imageOf(related, e.image_id);
  const out: Record<string, unknown> = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: escHtml(e.title),
    description: jsonLdDescription(autop(e.excerpt || e.content)),
  };
  if (image) out.image = image.url;
  out.url = url;
  out.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode';
  out.startDate = isoWithOffset(e.start_local, e.timezone);
  out.endDate = isoWithOffset(e.end_local, e.timezone);
  // A protected venue or organizer shows no more here than embedded (protected.ts).
  const jsonLdOf = (json: Record<string, unknown>, record: PasswordHolder) => (isProtected(record) ? withheldJsonLd(json) : json);
  if (related.venue) out.location = jsonLdOf(venueJsonLd(related.venue, imageOf(related, related.venue.image_id)), related.venue);
  if (related.organizers[0]) out.organizer = jsonLdOf(organizerJsonLd(related.organizers[0], imageOf(related, related.organizers[0].image_id)), related.organizers[0]);
  if (cost.values.length) {
    out.offers = {
      '@type': 'Offer',
      price: cost.values.length > 1 ? `${cost.values[0]} – ${cost.values[cost.values.length - 1]}` : cost.values[0],
      priceCurrency: 'USD',
      url,
      category: 'primary',
      availability: 'inStock',
      validFrom: `${e.date_gmt.slice(0, 10)}T00:00:00+00:00`,
    };
  }
  out.performer = 'Organization';
  return out;
}

/** `localeCompare(b, 'en', { sensitivity: 'base' })` with the collator built once (it is built per call otherwise). */
const termNameCollator = new Intl.Collator('en', { sensitivity: 'base' });
const byTermName = (a: TermRow, b: TermRow) => termNameCollator.compare(a.name, b.name) || Number(a.id) - Number(b.id);

export function toEventJson(e: EventRecord, related: EventRelated, links: Links, context: RepresentationContext, currency?: CurrencyDefaults): Record<string, unknown> {
  const id = Number(e.id);
  const globalId = links.globalId(id);
  const rec = related.recurrence;
  // An occurrence's page is its series' slug and its date (the original Pro add-on's form).
  // An occurrence's address is its date's: a moved occurrence's follows it (the old one answers 301).
  const url = rec?.kind === 'occurrence' && e.status !== 'trash' ? `${links.eventPermalink(rec.seriesSlug)}${e.start_local.slice(0, 10)}/` : permalinkOf(e, links);
  const image = imageOf(related, e.image_id);
  const rawCost = storedCost(e);
  const cost = formatCost(rawCost, e.currency_symbol, e.currency_position as '' | 'prefix' | 'postfix', currency);
  const out: Record<string, unknown> = {
    id,
    global_id: globalId,
    global_id_lineage: [globalId],
    author: String(e.author_id),
    status: e.status,
    date: e.date_local,
    date_utc: e.date_gmt,
    modified: e.modified_local,
    modified_utc: e.modified_gmt,
    url,
    rest_url: links.rest(`events/${id}`),
    title: phpTrim(e.title), // PHP trim: NBSP stays
    description: autop(e.content),
    excerpt: autop(e.excerpt),
    slug: wireSlug(e),
    image: image ? toImageJson(image) : false,
    all_day: Boolean(e.all_day),
    start_date: e.start_local,
    start_date_details: dateDetails(e.start_local),
    end_date: e.end_local,
    end_date_details: dateDetails(e.end_local),
    utc_start_date: e.start_utc,
    utc_start_date_details: dateDetails(e.start_utc),
    utc_end_date: e.end_utc,
    utc_end_date_details: dateDetails(e.end_utc),
    timezone: e.timezone,
    timezone_abbr: e.timezone ? timezoneAbbr(e.timezone, e.start_local) : '',
    cost: cost.cost,
    cost_details: cost.cost_details,
    website: e.website === null ? url : escHtml(e.website),
    show_map: Boolean(e.show_map),
    show_map_link: Boolean(e.show_map_link),
    hide_from_listings: Boolean(rec?.kind === 'series' ? rec.hideFromListings : e.hide_from_listings),
    sticky: Boolean(e.sticky),
    featured: Boolean(e.featured),
    categories: [...related.categories].sort(byTermName).map((t) => toEmbeddedTermJson(t, links)),
    tags: [...related.tags].sort(byTermName).map((t) => toEmbeddedTermJson(t, links)),
    // A protected venue or organizer is embedded whole, marked (protected.ts): each face withholds it its own way.
    venue: related.venue ? toVenueJson(related.venue, imageOf(related, related.venue.image_id), links, context) : [],
    organizer: related.organizers.map((o) => toOrganizerJson(o, imageOf(related, o.image_id), links, context)),
  };
  if (rec) {
    out.recurrence = rec.lines;
    if (rec.kind === 'occurrence') {
      out.recurring_event_id = rec.seriesId;
      out.original_start_date = rec.originalStart;
    }
  }
  if (context === 'single') out.json_ld = eventJsonLd(e, related, url, { cost: cost.cost, values: cost.cost_details.values });
  (out as Record<symbol, unknown>)[COST_AS_TYPED] = { shown: shownCost(rawCost, cost.cost), typed: typedCost(rawCost) };
  return markProtected(out, e);
}
