/**
 * The event service's vocabulary: what a write sends (`EventInput`), what a list asks
 * (`EventListArgs`) and answers (`EventPage`), what the service needs (`EventServiceDeps`) and offers
 * (`EventService`), and the constants its parts share.
 *
 * @example
 *   const input: EventInput = { title: 'Jazz', start_date: 'tomorrow 8pm', end_date: 'tomorrow 11pm' };
 */
import type { CalendarQuotas } from '../quotas.js';
import type { Store } from '../../store/db.js';
import type { EventRecord } from '../../store/events.js';
import type { ListingState } from '../../store/listing-states.js';
import type { ImageService } from '../images.js';
import type { CurrencyDefaults } from '../cost.js';
import type { Clock, LinkedPostService } from '../linked-posts/index.js';
import type { Viewer } from '../permissions.js';
import type { RepresentationContext } from '../representations/venue.js';
import type { Links } from '../links.js';
import type { TermService } from '../terms/index.js';

export const ZERO_DATE = '0000-00-00 00:00:00';
/** The suffix of a trashed post's wire slug. */
export const TRASHED_SUFFIX = '__trashed';

/** The write fields of an event, as validated by the route (absent = not sent). */
export interface EventInput {
  author?: number;
  date?: string;
  date_utc?: string;
  title?: string;
  description?: string;
  slug?: string;
  excerpt?: string;
  status?: string;
  timezone?: string;
  all_day?: boolean;
  start_date?: string;
  end_date?: string;
  image?: unknown;
  cost?: unknown;
  website?: unknown;
  show_map?: boolean;
  show_map_link?: boolean;
  hide_from_listings?: boolean;
  sticky?: boolean;
  featured?: boolean;
  categories?: unknown;
  tags?: unknown;
  venue?: unknown;
  organizer?: unknown;
  /** WordPress' post_password: '' removes it (checked by the route: post-passwords.ts `passwordFailure`). */
  password?: string;
  /** Recurring events: RRULE/RDATE/EXDATE lines; `[]` or `""` make the event single again. */
  recurrence?: unknown;
  /** On an occurrence: `this` (default), `following` (split the series) or `all` (the series). */
  recurrence_scope?: RecurrenceScope;
}

/** Which occurrences an update or delete of an occurrence applies to. */
export type RecurrenceScope = 'this' | 'following' | 'all';

/** The post type of a recurring event's series. */
export const SERIES_TYPE = 'tribe_event_series';
/** Slugs of events and series are one space (by-slug routes address either). */
export const EVENT_SLUG_TYPES = ['tribe_events', SERIES_TYPE] as const;

/** The list parameters, validated. */
export interface EventListArgs {
  page: number;
  per_page: number;
  start_date?: string;
  end_date?: string;
  search?: string;
  categories?: unknown;
  tags?: unknown;
  venue?: unknown;
  organizer?: unknown;
  featured?: boolean;
  status?: string[];
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  /** radius around geoloc_lat/geoloc_lng, in geoloc_unit (default GEOLOC_RADIUS) */
  geoloc_radius?: number;
  geoloc_unit?: 'mi' | 'km';
  include?: number[];
  post_parent?: number;
  /**
   * Pages and feeds (src/pages) only, never a REST argument: a window of any shape
   * instead of the REST list's start/end window (e.g. the events overlapping a month), latest
   * first when `descending`. `per_page` is then not capped by MAX_PER_PAGE: the caller bounds it.
   */
  range?: EventRange;
  /**
   * Pages and embeds only, with `range`: `false` counts no total. `total` is then the matches up to
   * this page plus one when more follow (enough for a next-page link; `totalPages` is the next page
   * when more follow, else this one). The pages' list windows end at the current minute, so a
   * counted total would be counted again each minute: at 1,000,000 events, seconds per minute.
   */
  countTotal?: false;
  /**
   * Pages only, with `range`: each series once, at its first occurrence in the window (the other
   * occurrences matching the filters are left out), as TEC Pro's `hide_subsequent_recurrences`.
   */
  firstOfSeries?: boolean;
}

/** The window of `EventListArgs.range`: bounds on the local start and end (wall times), each optional. */
export interface EventRange {
  /** start at or after */
  startsFrom?: string;
  /** start at or before */
  startsUntil?: string;
  /** end at or after */
  endsFrom?: string;
  /** end at or before */
  endsUntil?: string;
  /**
   * The events overlapping [from, until] (wall times in the events' own zones, inclusive; either
   * open): begun at or before `until` and ending at or after `from`, whatever their length, at the
   * cost of a start-date window (the month and day pages, the FullCalendar source, the embeds,
   * CalDAV time-range ask for this instead of a window of their own).
   */
  overlaps?: { from?: string; until?: string };
  descending?: boolean;
}

/** What the list route needs to answer: the page, the totals, and the effective query for rest_url. */
export interface EventPage {
  events: Record<string, unknown>[];
  total: number;
  totalPages: number;
  /** the effective query, in the original's rest_url order */
  query: Array<[string, string]>;
}

/**
 * Split a search string like WordPress: words, "quoted phrases", and -excluded words.
 */
export function searchWords(search: string): string[] {
  const out: string[] = [];
  const re = /(-?)"([^"]+)"|(\S+)/g;
  // A NUL separates words: PostgreSQL cannot hold it in a text value (the REST face refuses it;
  // the pages and the embed pass their search box on as typed).
  search = search.replace(/\u0000+/g, ' ');
  let m: RegExpExecArray | null;
  while ((m = re.exec(search))) {
    if (m[2] !== undefined) out.push(m[1] + m[2]);
    else out.push(m[3]);
  }
  return out.filter((w) => w !== '' && w !== '-');
}

export interface EventServiceDeps {
  store: Store;
  siteTimezone: string;
  /** The site's currency for costs typed as bare numbers (read at each use: administrators change it). */
  currency?: CurrencyDefaults;
  maxPerPage: number;
  /** default radius of the geolocation filters (GEOLOC_RADIUS, GEOLOC_UNIT) */
  geoloc?: { radius: number; unit: 'mi' | 'km' };
  clock: Clock;
  images: ImageService;
  venues: LinkedPostService;
  organizers: LinkedPostService;
  categories: TermService;
  tags: TermService;
  /** RECURRENCE_HORIZON_MONTHS (default 60) */
  recurrenceHorizonMonths?: number;
  /** The calendars' quotas: a create past the calendar's `events` is refused (domain/quotas.ts). */
  quotas?: Pick<CalendarQuotas, 'limit' | 'guard'>;
}

export interface EventService {
  findById(id: number): Promise<EventRecord | undefined>;
  findIdBySlug(slug: string): Promise<number | undefined>;
  /** Whether this id is some other kind of post (→ rest-invalid-event-id). */
  isOtherPostType(id: number): Promise<boolean>;
  /** Whether this id is an event, any status (the original's is_event_id). */
  isEventId(id: number): Promise<boolean>;
  /** Representations with REST URLs from `links` (the REST root and namespace of the request). */
  represent(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Record<string, unknown>[]>;
  create(viewer: Viewer, input: EventInput): Promise<EventRecord>;
  update(viewer: Viewer, record: EventRecord, input: EventInput): Promise<EventRecord>;
  /** `scope` applies to occurrences of recurring events (default `this`). */
  trash(record: EventRecord, scope?: RecurrenceScope, viewer?: Viewer): Promise<EventRecord>;
  /**
   * Delete an event for good, as wp-admin's "Delete Permanently": only from the trash;
   * a series goes with all its occurrences; an occurrence alone is refused (its series would
   * generate it again): it stays trashed, or goes with its series.
   */
  purge(record: EventRecord): Promise<void>;
  /**
   * Take an event out of the trash with the status it had before (series-restore.ts): a series (or,
   * with `scope` `all`, an occurrence's series) with the occurrences trashed with it, in one transaction.
   */
  restore(record: EventRecord, scope?: RecurrenceScope): Promise<EventRecord>;
  /** Recurring events: the occurrence of a series that starts on a day (`YYYY-MM-DD`), moved ones at their new day. */
  occurrenceOn(seriesId: number, day: string): Promise<number | undefined>;
  /** The occurrence that was on this day before it was moved to another (its old address redirects), if any. */
  movedOccurrence(seriesId: number, day: string): Promise<number | undefined>;
  /**
   * Recurring events, for feeds: the series' rules and first occurrence, how far its
   * occurrences are generated, and its occurrences edited or deleted one by one (with their status).
   */
  seriesDetails(seriesId: number): Promise<{ rules: string[]; horizon: string; exceptions: Array<{ id: number; original_start: string; status: string }> } | undefined>;
  /** `reserve`: called with the answer's estimated size before its records are loaded (answer-budget.ts). */
  list(viewer: Viewer, args: EventListArgs, links: Links, reserve?: (bytes: number) => Promise<void>): Promise<EventPage>;
  /** The declared defaults of the list's date window, computed now (for args and the index). */
  defaultWindow(): { start: string; end: string };
  /**
   * Sync tokens: the list's filter for these arguments without the default date window
   * (explicit `start_date`/`end_date` still apply), as the ids of `ids` it shows now, and a test of
   * an earlier listing state (undefined: cannot tell, e.g. a search over text not kept).
   */
  syncFilter(
    viewer: Viewer,
    args: EventListArgs,
    sent: ReadonlySet<string>,
  ): Promise<{
    matching(ids: number[]): Promise<Set<number>>;
    listed(state: ListingState): boolean | undefined;
    /**
     * A page of the ids it shows now, by start then id (as the list orders them), after the
     * previous page's `last` (keyset pages): no representations read.
     */
    page(page: { limit: number; after?: { start: string; id: number } }): Promise<{ ids: number[]; last?: { start: string; id: number } }>;
  }>;
  /**
   * Call `listener` after a write has committed that left occurrences of a series to
   * generate (more than one write inserts, `OCCURRENCES_PER_WRITE`); the horizon job listens.
   * Returns the function that stops listening.
   */
  onGenerationLeft(listener: () => void): () => void;
}
