/**
 * What the iframe view (`/embed/`) shows, read through the domain services as an anonymous
 * visitor (published events only, as the API shows an anonymous client): the upcoming events and
 * a month's events, with the REST list's filters. Windows are wall times in the events' own zones,
 * compared as the calendar pages compare them.
 *
 * @example
 *   const reader = createEmbedReader(services);
 *   const { events } = await reader.month({ categories: ['concerts'] }, '2027-06');
 */
import { DateTime } from 'luxon';
import type { EventListArgs } from '../domain/events/index.js';
import { ANONYMOUS } from '../domain/permissions.js';
import type { Services } from '../domain/services.js';

/** The list filters of the iframe view (the REST list's names and meanings). */
export interface EmbedFilter {
  categories?: string[];
  tags?: string[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  search?: string;
}

/** The fields of the API's public representation the view reads. */
export interface EmbedEvent {
  id: number;
  url: string;
  title: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  timezone_abbr: string;
  cost: string;
  featured: boolean;
  venue: { venue: string; city?: string } | [];
  categories: Array<{ name: string }>;
}

/** The most events a month view reads (ICAL_MAX_EVENTS' default). */
export const MONTH_MAX_EVENTS = 1000;

export interface EmbedReader {
  /** The site zone's today, `YYYY-MM-DD`. */
  today(): string;
  /** Upcoming events (starting today or later and not yet ended), the first `limit`. */
  upcoming(filter: EmbedFilter, limit: number): Promise<EmbedEvent[]>;
  /** The events overlapping a month (`YYYY-MM`), however long before it they began, in start order. */
  month(filter: EmbedFilter, month: string): Promise<EmbedEvent[]>;
}

export function createEmbedReader(services: Services): EmbedReader {
  const argsOf = (f: EmbedFilter): Partial<EventListArgs> => {
    const out: Partial<EventListArgs> = {};
    if (f.categories?.length) out.categories = f.categories;
    if (f.tags?.length) out.tags = f.tags;
    if (f.venue?.length) out.venue = f.venue;
    if (f.organizer?.length) out.organizer = f.organizer;
    if (f.featured !== undefined) out.featured = f.featured;
    if (f.search) out.search = f.search;
    return out;
  };
  // The embeds show events, never a total: none is counted (the upcoming window ends at the current minute).
  // The links of the calendar at hand (a getter: each calendar's events link to its own pages).
  const read = async (args: EventListArgs): Promise<EmbedEvent[]> => (await services.reader.list(ANONYMOUS, { ...args, countTotal: false }, services.links)).events;
  return {
    today: () => services.clock.nowLocal().slice(0, 10),
    async upcoming(f, limit) {
      const now = `${services.clock.nowLocal().slice(0, 16)}:00`;
      return read({ page: 1, per_page: limit, range: { startsFrom: `${now.slice(0, 10)} 00:00:00`, endsFrom: now }, ...argsOf(f) });
    },
    async month(f, month) {
      const first = DateTime.fromISO(`${month}-01`, { zone: 'utc' });
      const last = first.endOf('month').toFormat('yyyy-MM-dd');
      const range = { overlaps: { from: `${month}-01 00:00:00`, until: `${last} 23:59:59` } };
      return read({ page: 1, per_page: MONTH_MAX_EVENTS, range, ...argsOf(f) });
    },
  };
}
