/**
 * The event records as the API answers them, and the paths the app uses (the service's own
 * namespace, `calendar/events/v1`, which answers as `tribe/events/v1`).
 */
export const NS = 'calendar/events/v1';

export interface TermRef {
  id: number;
  name: string;
  slug: string;
  parent?: number;
}

export interface VenueRef {
  id: number;
  venue: string;
}

export interface OrganizerRef {
  id: number;
  organizer: string;
}

export interface EventRecord {
  id: number;
  status: string;
  title: string;
  description: string;
  excerpt: string;
  slug: string;
  url: string;
  author: number | string;
  date: string;
  modified: string;
  modified_utc?: string;
  timezone: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  image: false | { url: string; id?: number };
  cost: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  categories: TermRef[];
  tags: TermRef[];
  venue: VenueRef | [] | Record<string, never>;
  organizer: OrganizerRef[];
  recurrence?: string[];
  recurring_event_id?: number;
  original_start_date?: string;
  /** its password ('' when none): read from the admin API, never in the REST representation */
  password?: string;
}

export interface EventList {
  events: EventRecord[];
  total: number;
  total_pages: number;
}

/** Statuses, in the order lists offer them. */
export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;

/** Whether a sync answer's item is a tombstone (`{ id, status: 'trash' | 'deleted' }`). */
export function isTombstone(e: Partial<EventRecord>): boolean {
  return e.title === undefined && (e.status === 'trash' || e.status === 'deleted');
}
