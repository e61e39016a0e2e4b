/**
 * Events as ActivityStreams `Event` objects (docs/federation.md): shaped as FEP-8a8e
 * describes and as Mobilizon and Gancio read them, from the API's public representation of the
 * event (what an anonymous reader sees, never more): name, sanitised HTML content, a summary
 * stating the date in the event's own zone and the venue (what Mastodon shows), `startTime` and
 * `endTime` with the zone's offset, `timezone`, `location` as a `Place` with a schema.org
 * `PostalAddress` and coordinates, organizers (name and website only: never e-mail or phone),
 * the featured image, categories and tags as `Hashtag`s, `url` to the event's page, addressed to
 * the public with the followers in `cc`. A deleted event is a `Tombstone`.
 *
 * @example
 *   const object = eventObject(urls, publicJson, { published: '2026-11-01T10:00:00Z' });
 *   object.startTime // '2026-12-05T20:00:00+01:00'
 */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import sanitizeHtml from 'sanitize-html';
import { imageDetails } from '../domain/representations/image.js';

export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** The JSON-LD context of our objects: ActivityStreams, plus the schema.org and Mobilizon terms they use. */
export const OBJECT_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  {
    sc: 'http://schema.org/#',
    mz: 'https://joinmobilizon.org/ns#',
    Hashtag: 'as:Hashtag',
    sensitive: 'as:sensitive',
    timezone: { '@id': 'mz:timezone', '@type': 'sc:Text' },
    address: { '@id': 'sc:address', '@type': 'sc:PostalAddress' },
    PostalAddress: 'sc:PostalAddress',
    streetAddress: 'sc:streetAddress',
    addressLocality: 'sc:addressLocality',
    addressRegion: 'sc:addressRegion',
    postalCode: 'sc:postalCode',
    addressCountry: 'sc:addressCountry',
    organizer: { '@id': 'sc:organizer' },
    Organization: 'sc:Organization',
    commentsEnabled: { '@id': 'pt:commentsEnabled', '@type': 'sc:Boolean' },
    pt: 'https://joinpeertube.org/ns#',
  },
] as const;

/** The URLs the face answers under (all absolute). */
export interface FederationUrls {
  origin: string;
  actor: string;
  inbox: string;
  sharedInbox: string;
  outbox: string;
  followers: string;
  object(eventId: number): string;
  activity(id: string): string;
}

/**
 * The URLs of an actor: the default calendar's (`underActor` false) keep the paths they always had
 * (`/federation/events/{id}`); another calendar's objects and activities are under its actor
 * (`/federation/actors/{identifier}/events/{id}`), so that each URL names its calendar.
 */
export function federationUrls(siteUrl: string, handle: string, underActor = false): FederationUrls {
  const base = `${siteUrl}/federation`;
  const actor = `${base}/actors/${encodeURIComponent(handle)}`;
  const own = underActor ? actor : base;
  return {
    origin: new URL(siteUrl).origin,
    actor,
    inbox: `${actor}/inbox`,
    sharedInbox: `${base}/inbox`,
    outbox: `${actor}/outbox`,
    followers: `${actor}/followers`,
    object: (id) => `${own}/events/${id}`,
    activity: (id) => `${own}/activities/${encodeURIComponent(id)}`,
  };
}

/** The fields of the API's public event representation read here. */
export interface PublicEventJson {
  id: number;
  url: string;
  title: string;
  description: string;
  excerpt?: string;
  date_utc: string;
  modified_utc: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  timezone: string;
  image?: false | { url: string; alt?: string; width?: number | false; height?: number | false; mime_type?: string };
  categories?: Array<{ name: string; slug: string }>;
  tags?: Array<{ name: string; slug: string }>;
  venue?:
    | {
        venue: string;
        url?: string;
        address?: string;
        city?: string;
        stateprovince?: string;
        state?: string;
        province?: string;
        zip?: string;
        country?: string;
        geo_lat?: number | string;
        geo_lng?: number | string;
      }
    | [];
  organizer?: Array<{ organizer: string; url?: string; website?: string }>;
}

/** The tags Mastodon keeps in incoming HTML (its sanitiser's list); anything else is dropped here already. */
const CONTENT_SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'span', 'a', 'del', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'ul', 'ol', 'li', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
  allowedAttributes: { a: ['href', 'rel', 'class'], span: ['class'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
};

/** HTML safe to federate: Mastodon's allowed tags, links only to http(s)/mailto. */
export function sanitizeContent(html: string): string {
  return sanitizeHtml(html ?? '', CONTENT_SANITIZE).trim();
}

const textOf = (html: string) =>
  sanitizeHtml(html ?? '', { allowedTags: [], allowedAttributes: {} })
    .replace(/\s+/g, ' ')
    .trim();
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A wall time of the event's zone as ISO 8601 with its offset (`2026-12-05T20:00:00+01:00`). */
export function withOffset(wall: string, zone: string): string {
  const dt = DateTime.fromSQL(wall, { zone });
  const valid = dt.isValid ? dt : DateTime.fromSQL(wall, { zone: 'UTC' });
  return valid.toISO({ suppressMilliseconds: true, includeOffset: true }) ?? `${wall.replace(' ', 'T')}Z`;
}

/** `2026-11-01 10:00:00` (UTC) → `2026-11-01T10:00:00Z`. */
export function utcIso(gmt: string): string {
  const dt = DateTime.fromSQL(gmt, { zone: 'UTC' });
  return dt.isValid ? dt.toISO({ suppressMilliseconds: true })!.replace(/\.000/, '').replace('+00:00', 'Z') : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A time in ms as xsd:dateTime in UTC to the millisecond (`2026-11-01T10:00:00.250Z`). */
export function msIso(ms: number): string {
  return new Date(ms).toISOString();
}

const venueOf = (e: PublicEventJson) => (e.venue && !Array.isArray(e.venue) && e.venue.venue ? e.venue : undefined);

/**
 * The date and place in words, in the event's own zone, as Mastodon shows it (it displays an
 * Event's `summary` or its name and URL): `Friday 5 December 2026, 20:00–22:30 (Europe/Paris) · Salle Pleyel, Paris`.
 */
export function summaryOf(e: PublicEventJson): string {
  const zone = e.timezone || 'UTC';
  const start = DateTime.fromSQL(e.start_date, { zone });
  const end = DateTime.fromSQL(e.end_date, { zone });
  const day = (d: DateTime) => d.setLocale('en-GB').toFormat('cccc d LLLL yyyy');
  const time = (d: DateTime) => d.toFormat('HH:mm');
  let when: string;
  if (!start.isValid) when = e.start_date;
  else if (e.all_day) when = !end.isValid || start.hasSame(end, 'day') ? `${day(start)} (all day)` : `${day(start)} – ${day(end)} (all day)`;
  else if (end.isValid && start.hasSame(end, 'day')) when = `${day(start)}, ${time(start)}–${time(end)} (${zone})`;
  else when = `${day(start)}, ${time(start)} – ${end.isValid ? `${day(end)}, ${time(end)}` : ''} (${zone})`;
  const v = venueOf(e);
  const place = v ? [textOf(v.venue), v.city ? textOf(v.city) : ''].filter(Boolean).join(', ') : '';
  return place ? `${when} · ${place}` : when;
}

const guessMediaType = (url: string): string | undefined => {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return ext ? ({ jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', svg: 'image/svg+xml' } as Record<string, string>)[ext] : undefined;
};

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

const tagName = (name: string) => `#${textOf(name).replace(/[^\p{L}\p{N}_]+/gu, '')}`;

/** The `Event` object of a public event (without `@context`: see `withContext`). */
export function eventObject(urls: FederationUrls, e: PublicEventJson, options: { categoryUrl(slug: string): string; tagUrl(slug: string): string }): Record<string, unknown> {
  const zone = e.timezone || 'UTC';
  const name = textOf(e.title);
  const description = sanitizeContent(e.description);
  const summary = summaryOf(e);
  const v = venueOf(e);
  const object: Record<string, unknown> = {
    id: urls.object(e.id),
    type: 'Event',
    name,
    summary: escapeHtml(summary),
    content: description || `<p>${escapeHtml(summary)}</p>`,
    mediaType: 'text/html',
    startTime: withOffset(e.start_date, zone),
    endTime: withOffset(e.end_date, zone),
    timezone: zone,
    url: e.url,
    published: utcIso(e.date_utc),
    updated: utcIso(e.modified_utc),
    attributedTo: urls.actor,
    to: [AS_PUBLIC],
    cc: [urls.followers],
    commentsEnabled: false,
    sensitive: false,
  };
  if (v) {
    const address: Record<string, unknown> = { type: 'PostalAddress' };
    if (v.address) address.streetAddress = textOf(v.address);
    if (v.city) address.addressLocality = textOf(v.city);
    const region = v.stateprovince || v.state || v.province;
    if (region) address.addressRegion = textOf(region);
    if (v.zip) address.postalCode = textOf(v.zip);
    if (v.country) address.addressCountry = textOf(v.country);
    const place: Record<string, unknown> = { type: 'Place', name: textOf(v.venue), address };
    if (v.url) place.url = v.url;
    const lat = num(v.geo_lat);
    const lng = num(v.geo_lng);
    if (lat !== undefined && lng !== undefined) {
      place.latitude = lat;
      place.longitude = lng;
    }
    object.location = place;
  }
  const organizers = (e.organizer ?? []).filter((o) => o && o.organizer);
  if (organizers.length) {
    object.organizer = organizers.map((o) => {
      const org: Record<string, unknown> = { type: 'Organization', name: textOf(o.organizer) };
      const site = o.website && /^https?:\/\//i.test(o.website) ? o.website : o.url;
      if (site) org.url = site;
      return org;
    });
  }
  if (e.image && e.image.url) {
    // The media library's alt text and type, kept beside the REST shape (which has no room for them).
    const details = imageDetails(e.image);
    const alt = e.image.alt || details?.alt || '';
    const mediaType = e.image.mime_type || details?.mime || guessMediaType(e.image.url);
    const image: Record<string, unknown> = { type: 'Image', url: e.image.url };
    if (mediaType) image.mediaType = mediaType;
    // Alt text is kept as plain text (not HTML, as titles are): only its white space is tidied.
    const altText = alt.replace(/\s+/g, ' ').trim();
    if (altText) image.name = altText;
    if (typeof e.image.width === 'number' && typeof e.image.height === 'number') Object.assign(image, { width: e.image.width, height: e.image.height });
    object.image = image;
    object.attachment = [{ type: 'Document', url: e.image.url, ...(mediaType ? { mediaType } : {}), name: altText || name }];
  }
  const tags = [
    ...(e.categories ?? []).map((c) => ({ type: 'Hashtag', name: tagName(c.name), href: options.categoryUrl(c.slug) })),
    ...(e.tags ?? []).map((c) => ({ type: 'Hashtag', name: tagName(c.name), href: options.tagUrl(c.slug) })),
  ].filter((h) => h.name.length > 1);
  if (tags.length) object.tag = tags;
  return object;
}

/** A deleted event's object (the object URL answers it with 410). */
export function tombstone(urls: FederationUrls, eventId: number, deletedIso: string): Record<string, unknown> {
  return { id: urls.object(eventId), type: 'Tombstone', formerType: 'Event', deleted: deletedIso };
}

/** A document with our context. */
export function withContext(doc: Record<string, unknown>): Record<string, unknown> {
  return { '@context': OBJECT_CONTEXT, ...doc };
}

/** What decides whether an Update is due: the object without its `updated` time. */
export function objectDigest(object: Record<string, unknown>): string {
  const { updated: _updated, ...rest } = object;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}
