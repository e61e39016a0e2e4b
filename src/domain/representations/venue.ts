/**
 * The venue object (shapes.md §3): filled in order, empty values dropped, then `show_map`,
 * `show_map_link`, `global_id`, `global_id_lineage` appended. Used for the venue routes and for
 * the venue embedded in events.
 *
 * @example toVenueJson(record, image, links, 'list')
 */
import type { ImageRow } from '../../store/schema.js';
import type { VenueRecord } from '../../store/linked-posts.js';
import type { Links } from '../links.js';
import { autop } from '../text/autop.js';
import { escHtml } from '../text/entities.js';
import { jsonLdDescription } from '../text/excerpts.js';
import { phpTrim } from '../text/php.js';
import { isEmptyValue } from '../values.js';
import { toImageJson } from './image.js';
import { permalinkOf, wireSlug } from './post.js';
import { markProtected } from './protected.js';

export type RepresentationContext = 'single' | 'list';

/** Whether the venue has both coordinates (set through `geo_lat`/`geo_lng`). */
export function hasCoordinates(v: Pick<VenueRecord, 'geo_lat' | 'geo_lng'>): boolean {
  return v.geo_lat !== null && v.geo_lat !== undefined && v.geo_lng !== null && v.geo_lng !== undefined;
}

/** Schema.org Place of a venue (its `json_ld`, also the event's `location`). */
export function venueJsonLd(v: VenueRecord, image: ImageRow | null): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '@type': 'Place',
    name: escHtml(v.title),
    description: jsonLdDescription(autop(v.content)),
  };
  if (image) out.image = image.url;
  out.url = '';
  const address: Record<string, unknown> = { '@type': 'PostalAddress' };
  if (v.address) address.streetAddress = v.address;
  if (v.city) address.addressLocality = v.city;
  if (v.stateprovince || v.state || v.province) address.addressRegion = v.stateprovince || v.state || v.province;
  if (v.zip) address.postalCode = v.zip;
  if (v.country) address.addressCountry = v.country;
  if (Object.keys(address).length > 1) out.address = address;
  if (hasCoordinates(v)) out.geo = { '@type': 'GeoCoordinates', latitude: Number(v.geo_lat), longitude: Number(v.geo_lng) };
  out.telephone = v.phone;
  out.sameAs = v.website;
  return out;
}

export function toVenueJson(v: VenueRecord, image: ImageRow | null, links: Links, context: RepresentationContext): Record<string, unknown> {
  const filled: Record<string, unknown> = {
    id: Number(v.id),
    author: String(v.author_id),
    status: v.status,
    date: v.date_local,
    date_utc: v.date_gmt,
    modified: v.modified_local,
    modified_utc: v.modified_gmt,
    url: permalinkOf(v, links),
    venue: phpTrim(v.title),
    description: autop(v.content),
    excerpt: autop(v.excerpt),
    slug: wireSlug(v),
    image: image ? toImageJson(image) : false,
    address: v.address,
    city: v.city,
    country: v.country,
    province: v.province,
    state: v.state,
    zip: v.zip,
    phone: v.phone,
    website: v.website,
    stateprovince: v.stateprovince,
  };
  // Set coordinates are shown even when 0 (a valid coordinate), unlike the add-on, which drops a 0.
  if (hasCoordinates(v)) {
    filled.geo_lat = Number(v.geo_lat);
    filled.geo_lng = Number(v.geo_lng);
  }
  if (context === 'single') filled.json_ld = venueJsonLd(v, image);
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(filled)) if (!isEmptyValue(val) || k === 'geo_lat' || k === 'geo_lng') out[k] = val;
  out.show_map = Boolean(v.show_map);
  out.show_map_link = Boolean(v.show_map_link);
  out.global_id = links.globalId(Number(v.id));
  out.global_id_lineage = [out.global_id];
  return markProtected(out, v);
}
