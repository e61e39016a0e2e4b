/**
 * The organizer object (shapes.md §4): filled in order, `global_id`s appended, then empty values
 * dropped. Used for the organizer routes and for the organizers embedded in events.
 *
 * @example toOrganizerJson(record, null, links, 'single')
 */
import type { ImageRow } from '../../store/schema.js';
import type { OrganizerRecord } from '../../store/linked-posts.js';
import type { Links } from '../links.js';
import { autop } from '../text/autop.js';
import { escHtml } from '../text/entities.js';
import { jsonLdDescription, obfuscateEmail } from '../text/excerpts.js';
import { phpTrim } from '../text/php.js';
import { isEmptyValue } from '../values.js';
import { toImageJson } from './image.js';
import { permalinkOf, wireSlug } from './post.js';
import type { RepresentationContext } from './venue.js';
import { markProtected } from './protected.js';

/** Schema.org Person of an organizer (its `json_ld`, also the event's `organizer`). */
export function organizerJsonLd(o: OrganizerRecord, image: ImageRow | null): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '@type': 'Person',
    name: escHtml(o.title),
    description: jsonLdDescription(autop(o.content)),
  };
  if (image) out.image = image.url;
  out.url = o.website;
  out.telephone = o.phone;
  out.email = o.email ? obfuscateEmail(o.email) : '';
  out.sameAs = o.website;
  return out;
}

export function toOrganizerJson(o: OrganizerRecord, image: ImageRow | null, links: Links, context: RepresentationContext): Record<string, unknown> {
  const globalId = links.globalId(Number(o.id));
  const filled: Record<string, unknown> = {
    id: Number(o.id),
    author: String(o.author_id),
    status: o.status,
    date: o.date_local,
    date_utc: o.date_gmt,
    modified: o.modified_local,
    modified_utc: o.modified_gmt,
    url: permalinkOf(o, links),
    organizer: phpTrim(o.title),
    description: autop(o.content),
    excerpt: autop(o.excerpt),
    slug: wireSlug(o),
    image: image ? toImageJson(image) : false,
    phone: o.phone,
    website: o.website,
    email: o.email,
  };
  if (context === 'single') filled.json_ld = organizerJsonLd(o, image);
  filled.global_id = globalId;
  filled.global_id_lineage = [globalId];
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(filled)) if (!isEmptyValue(val)) out[k] = val;
  return markProtected(out, o);
}
