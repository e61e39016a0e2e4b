/**
 * The faces' typed door to what readers see: the event list and events, venues and organizers as
 * the REST API represents them, answered as the typed records of public-records.ts (the shape the
 * pages, the iCalendar writer, CalDAV, the embeds and federation read). The representations are
 * built once, by the domain, as JSON for the wire; this is the one place that says which type
 * they have. An event, venue or organizer is answered only when the caller may read it (the
 * anonymous rule for the public faces: published, not in the trash).
 *
 * It is also the one place of the public faces' rule for password-protected records (WordPress'
 * post_password, domain/post-passwords.ts): a protected event is answered with its title, dates
 * and addresses only (`protected: true`, its description, excerpt, image, cost, website, terms,
 * venue and organizers withheld), and a protected venue or organizer, embedded or alone, with its
 * name and address only, unless the reader has given its password (`given`: the pages' password
 * cookie; nothing by default), whoever the viewer is, as WordPress' post_password_required asks
 * only for the password.
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
import { representedPassword, withholdProtected } from './representations/protected.js';

/** Whether the reader has given this password (the pages' password cookie says so); none by default. */
export type GivenPasswords = (password: string) => boolean;
export const NO_PASSWORDS: GivenPasswords = () => false;

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
  /**
   * An event as `viewer` sees it; undefined when it is in the trash or `viewer` may not read it.
   * Protected content shows when `given` says its password was given.
   */
  event(record: EventRecord, context: RepresentationContext, links: Links, viewer?: Viewer, given?: GivenPasswords): Promise<PublicEvent | undefined>;
  /** An event as an editor's preview shows it (a signed preview link opened it: not published yet; whole). */
  previewed(record: EventRecord, links: Links): Promise<PublicEvent | undefined>;
  venue(record: LinkedRecord, links: Links, given?: GivenPasswords): Promise<PublicVenue | undefined>;
  organizer(record: LinkedRecord, links: Links, given?: GivenPasswords): Promise<PublicOrganizer | undefined>;
}

/**
 * The domain builds representations as wire JSON; these say (and check, so that a representation
 * that lost a field fails here rather than on a page) which public record one is.
 */
type Json = Record<string, unknown>;
const isRecordBase = (json: Json): boolean => typeof json.id === 'number' && typeof json.url === 'string' && typeof json.slug === 'string';
function isPublicEvent(json: Json): json is Json & PublicEvent {
  return (
    isRecordBase(json) &&
    typeof json.title === 'string' &&
    typeof json.start_date === 'string' &&
    typeof json.end_date === 'string' &&
    Array.isArray(json.categories) &&
    Array.isArray(json.tags) &&
    Array.isArray(json.organizer)
  );
}
const isPublicVenue = (json: Json): json is Json & PublicVenue => isRecordBase(json) && 'venue' in json;
const isPublicOrganizer = (json: Json): json is Json & PublicOrganizer => isRecordBase(json) && 'organizer' in json;
function typed<T>(json: Json, is: (json: Json) => json is Json & T, what: string): T {
  if (!is(json)) throw new Error(`the representation of ${what} ${String(json.id)} lacks a field the faces read`);
  return json;
}
const publicEvent = (json: Json): PublicEvent => typed(json, isPublicEvent, 'event');

/** The string-keyed fields only: what the representation marks for its faces (a typed cost, a password) is dropped. */
const fieldsOf = (json: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(json));

/** A protected event whose password was not given: the original's protected fields emptied, typed for the faces. */
function withheldEvent(json: Record<string, unknown>): PublicEvent {
  const out = fieldsOf(withholdProtected(json));
  delete out.location_text;
  return publicEvent({ ...out, all_day: Boolean(json.all_day), featured: false, sticky: false, show_map: false, show_map_link: false, protected: true });
}

/** A protected venue or organizer whose password was not given: its name, slug and addresses only. */
function withheldLinked(json: Record<string, unknown>, nameField: 'venue' | 'organizer'): Record<string, unknown> {
  const out = fieldsOf(withholdProtected(json));
  for (const [key, value] of Object.entries(out)) if (value === '' || (Array.isArray(value) && value.length === 0) || value === 0) delete out[key];
  return { ...out, [nameField]: json[nameField], image: false, protected: true };
}

/** A representation as a reader who gave `given` sees it (the same object when nothing in it is protected). */
function shownEvent(json: Record<string, unknown>, given: GivenPasswords): PublicEvent {
  const password = representedPassword(json);
  if (password !== '' && !given(password)) return withheldEvent(json);
  const hidden = (linked: Record<string, unknown>) => {
    const own = representedPassword(linked);
    return own !== '' && !given(own);
  };
  const venue = json.venue as Record<string, unknown> | [];
  const organizers = (json.organizer as Array<Record<string, unknown>> | undefined) ?? [];
  const venueHidden = !Array.isArray(venue) && hidden(venue);
  if (!venueHidden && !organizers.some(hidden)) return publicEvent(json);
  return publicEvent({
    ...json,
    venue: venueHidden ? withheldLinked(venue as Record<string, unknown>, 'venue') : venue,
    organizer: organizers.map((o) => (hidden(o) ? withheldLinked(o, 'organizer') : o)),
  });
}

export function createPublicReader(deps: { events: EventService; venues: LinkedPostService; organizers: LinkedPostService }): PublicReader {
  const { events } = deps;
  const linked = async <T>(service: LinkedPostService, record: LinkedRecord, links: Links, given: GivenPasswords, is: (json: Json) => json is Json & T): Promise<T | undefined> => {
    if (!service.visibleTo(record, ANONYMOUS)) return undefined;
    const [json] = await service.represent([record], links, 'single');
    if (!json) return undefined;
    const password = representedPassword(json);
    return typed(password !== '' && !given(password) ? withheldLinked(json, service.kind) : json, is, service.kind);
  };
  return {
    async list(viewer, args, links, reserve) {
      const page = await events.list(viewer, args, links, reserve);
      return { events: page.events.map((json) => shownEvent(json, NO_PASSWORDS)), total: page.total, totalPages: page.totalPages, query: page.query };
    },
    async event(record, context, links, viewer = ANONYMOUS, given = NO_PASSWORDS) {
      if (record.status === 'trash' || !canReadEvent(viewer, record)) return undefined;
      const [json] = await events.represent([record], viewer, context, links);
      return json && shownEvent(json, given);
    },
    async previewed(record, links) {
      const [json] = await events.represent([record], ANONYMOUS, 'single', links);
      return json && publicEvent(json);
    },
    venue: (record, links, given = NO_PASSWORDS) => linked(deps.venues, record, links, given, isPublicVenue),
    organizer: (record, links, given = NO_PASSWORDS) => linked(deps.organizers, record, links, given, isPublicOrganizer),
  };
}
