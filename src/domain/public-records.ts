/**
 * The shapes the pages and feeds read (src/pages): events, terms, venues and organizers as the
 * API's public representations hold them, the list filters, a page of events and a series as a feed
 * writes it. Types only, in a module of their own so that the calendar (calendar.ts) and the
 * iCalendar writer (ical.ts) both use them without importing each other.
 */

/** A featured image as the API's public representation holds it (`sizes`: the media library's variants). */
export interface PublicImage {
  url: string;
  alt?: string;
  width?: number | false;
  height?: number | false;
  sizes?: Record<string, { width: number; height: number; url: string; 'mime-type'?: string }>;
}

/** An event as the API's public representation holds it (the fields the pages and feeds read). */
export interface PublicEvent {
  id: number;
  url: string;
  title: string;
  description: string;
  excerpt: string;
  slug: string;
  status: string;
  date_utc: string;
  modified_utc: string;
  image: false | PublicImage;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  timezone_abbr: string;
  cost: string;
  website: string;
  featured: boolean;
  categories: PublicTerm[];
  tags: PublicTerm[];
  venue: PublicVenue | [];
  /** the calendar pages only: an imported free-text location that names no venue (never in the REST answers) */
  location_text?: string;
  organizer: PublicOrganizer[];
  json_ld?: Record<string, unknown>;
  /**
   * Set when the event is password-protected and the reader has not given its password: its
   * content (description, excerpt, image, cost, website, terms, venue, organizers) is withheld
   * (public-reader.ts). Never in the REST answers.
   */
  protected?: true;
}

export interface PublicTerm {
  id: number;
  name: string;
  slug: string;
  description?: string;
  count?: number;
}

export interface PublicVenue {
  id: number;
  url: string;
  venue: string;
  slug: string;
  description?: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  stateprovince?: string;
  geo_lat?: number;
  geo_lng?: number;
  image?: false | { url: string };
  json_ld?: Record<string, unknown>;
  /** Password-protected, its password not given: only its name and address (URL) are shown. */
  protected?: true;
}

export interface PublicOrganizer {
  id: number;
  url: string;
  organizer: string;
  slug: string;
  description?: string;
  phone?: string;
  website?: string;
  email?: string;
  image?: false | { url: string };
  json_ld?: Record<string, unknown>;
  /** Password-protected, its password not given: only its name and address (URL) are shown. */
  protected?: true;
}

/** The list filters the pages and `/events.ics` accept (the REST list's, by slug or id). */
export interface EventFilter {
  categories?: string[];
  tags?: string[];
  search?: string;
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  /** the occurrences of this recurring event's series */
  series?: number;
  /** each recurring event once, at its first occurrence in the window (LIST_SERIES_ONCE) */
  firstOfSeries?: boolean;
}

export interface EventsPage {
  events: PublicEvent[];
  total: number;
  totalPages: number;
  page: number;
}

/** A series as a feed writes it. */
export interface SeriesFeed {
  /** the series' representation (its first occurrence's schedule) */
  series: PublicEvent;
  /** RRULE, RDATE and EXDATE lines for it (`icsRecurrenceLines`) */
  lines: string[];
  /** occurrences edited one by one, with their generated start (RECURRENCE-ID) */
  overrides: Array<{ event: PublicEvent; originalStart: string }>;
}
