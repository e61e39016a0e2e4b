/**
 * The faces' typed door to what readers see: the event list and events, venues and organizers as
 * the REST API represents them, answered as the typed records of public-records.ts (the shape the
 * pages, the iCalendar writer, CalDAV, the embeds and federation read). The representations are
 * built once, by the domain, as JSON for the wire; this is the one place that says which type
 * they have. An event, venue or organizer is answered only when the caller may read it (the
 * anonymous rule for the public faces: published, not in the trash).
 *
 * @example
 *   const page = await services.reader.list(ANONYMOUS, { page: 1, per_page: 10 }, links); // PublicEvent[]
 *   const shown = await services.reader.event(record, 'single', links);                   // PublicEvent | undefined
 */
import { canReadEvent, type EventListArgs, type EventService } from './events/index.js';
import type { EventRecord } from '../store/events.js';
import type { LinkedRecord } from '../store/linked-posts.js';
import type { LinkedPostService } from './linked-posts/index.js';
import type { Links } from './links.js';
import { ANONYMOUS, type Viewer } from './permissions.js';
import type { PublicEvent, PublicOrganizer, PublicVenue } from './public-records.js';
import type { RepresentationContext } from './representations/venue.js';

export interface PublicEventPage {
  events: PublicEvent[];
  total: number;
  totalPages: number;
  /** the effective query, in the original's rest_url order */
  query: Array<[string, string]>;
}

export interface PublicReader {
  /**
   * The event list as `viewer` reads it (the REST list's rules and representations); `reserve`
   * takes the answer's bytes from the memory budget of answers being built (RESPONSE_MEMORY_MB).
   */
  list(viewer: Viewer, args: EventListArgs, links: Links, reserve?: (bytes: number) => Promise<void>): Promise<PublicEventPage>;
  /** An event as `viewer` sees it; undefined when it is in the trash or `viewer` may not read it. */
  event(record: EventRecord, context: RepresentationContext, links: Links, viewer?: Viewer): Promise<PublicEvent | undefined>;
  /** An event as an editor's preview shows it (a signed preview link opened it: not published yet). */
  previewed(record: EventRecord, links: Links): Promise<PublicEvent | undefined>;
  venue(record: LinkedRecord, links: Links): Promise<PublicVenue | undefined>;
  organizer(record: LinkedRecord, links: Links): Promise<PublicOrganizer | undefined>;
}

/** The domain builds representations as wire JSON; a public event's is a `PublicEvent`. */
const asEvents = (json: Record<string, unknown>[]) => json as unknown as PublicEvent[];

export function createPublicReader(deps: { events: EventService; venues: LinkedPostService; organizers: LinkedPostService }): PublicReader {
  const { events } = deps;
  const linked = async <T>(service: LinkedPostService, record: LinkedRecord, links: Links): Promise<T | undefined> => {
    if (!service.visibleTo(record, ANONYMOUS)) return undefined;
    const [json] = await service.represent([record], links, 'single');
    return json as unknown as T | undefined;
  };
  return {
    async list(viewer, args, links, reserve) {
      const page = await events.list(viewer, args, links, reserve);
      return { events: asEvents(page.events), total: page.total, totalPages: page.totalPages, query: page.query };
    },
    async event(record, context, links, viewer = ANONYMOUS) {
      if (record.status === 'trash' || !canReadEvent(viewer, record)) return undefined;
      return asEvents(await events.represent([record], viewer, context, links))[0];
    },
    async previewed(record, links) {
      return asEvents(await events.represent([record], ANONYMOUS, 'single', links))[0];
    },
    venue: (record, links) => linked<PublicVenue>(deps.venues, record, links),
    organizer: (record, links) => linked<PublicOrganizer>(deps.organizers, record, links),
  };
}
