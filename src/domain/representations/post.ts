/**
 * Pieces every post representation shares (events, venues, organizers).
 *
 * @example postDates(row) // { date, date_utc, modified, modified_utc }
 */
import type { PostRow } from '../../store/schema.js';
import type { Links } from '../links.js';

/** Permalink of a post: its public URL, or WordPress' `?post_type=…&p=…` form once trashed. */
export function permalinkOf(post: Pick<PostRow, 'id' | 'type' | 'status' | 'slug'>, links: Links): string {
  if (post.status === 'trash' || post.slug === '') return links.trashedPermalink(post.type, Number(post.id));
  if (post.type === 'tribe_events') return links.eventPermalink(post.slug);
  // A recurring event's series: the page of all its occurrences.
  if (post.type === 'tribe_event_series') return `${links.eventPermalink(post.slug)}all/`;
  if (post.type === 'tribe_venue') return links.venuePermalink(post.slug);
  return links.organizerPermalink(post.slug);
}

/** The original keeps `__trashed` on the slug of a trashed post. */
export function wireSlug(post: Pick<PostRow, 'status' | 'slug'>): string {
  return post.status === 'trash' && post.slug !== '' ? `${post.slug}__trashed` : post.slug;
}
