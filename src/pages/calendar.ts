/**
 * What the pages (src/pages) and feeds (src/pages/ical.ts) show, read in one place through the domain
 * services with an anonymous caller's visibility: published records only, exactly what the API
 * shows an anonymous client (the same public representations, kept by the domain). Every page
 * and feed is computed from one `Calendar` call, so a later response version (ETag) can be
 * attached where the call is made.
 *
 * Windows are wall times in the events' own zones, compared as the REST list compares them.
 *
 * @example
 *   const calendar = createCalendar(services);
 *   const page = await calendar.upcoming({ category: 'concerts' }, 2);
 */
import { ApiError } from '../domain/errors.js';
import type { EventListArgs, EventRange } from '../domain/events/index.js';
import { eventValidators } from '../domain/events/index.js';
import { ANONYMOUS } from '../domain/permissions.js';
import type { Services } from '../domain/services.js';
import { sanitizeSlug } from '../domain/slugs.js';
import { SERIES_TYPE } from '../domain/events/index.js';
import { icsRecurrenceLines, parseRecurrence } from '../domain/recurrence.js';
import { hasVtimezone } from '../domain/ical.js';
import type { EventFilter, EventsPage, PublicEvent, PublicOrganizer, PublicTerm, PublicVenue, SeriesFeed } from '../domain/public-records.js';
import type { GivenPasswords } from '../domain/public-reader.js';

export type { EventFilter, EventsPage, PublicEvent, PublicOrganizer, PublicTerm, PublicVenue } from '../domain/public-records.js';

/** Series whose feed lines are read and written between two turns of the event loop. */
const SERIES_STEP = 10;

export interface Calendar {
  /** The site zone's current wall time. */
  now(): string;
  /** The site zone's today, `YYYY-MM-DD`. */
  today(): string;
  /**
   * Upcoming events: starting today or later and not yet ended, one page. Its `total` is counted for
   * a search only; otherwise it is the events up to this page plus one when another page follows.
   */
  upcoming(filter: EventFilter, page: number, perPage?: number): Promise<EventsPage>;
  /** Events that have ended, latest first, one page; its `total` as `upcoming`'s. */
  past(filter: EventFilter, page: number): Promise<EventsPage>;
  /**
   * Events overlapping the days `from`..`until` (`YYYY-MM-DD`, inclusive), however long before
   * `from` they began, in start order, at most ICAL_MAX_EVENTS; `total` is not counted: more than
   * `events` says only that more exist.
   */
  between(from: string, until: string, filter?: EventFilter): Promise<{ events: PublicEvent[]; total: number }>;
  /** Events with these ids (published ones only), at most ICAL_MAX_EVENTS. */
  byIds(ids: number[]): Promise<PublicEvent[]>;
  /** The published event with this slug, with its JSON-LD, or undefined. */
  event(slug: string, given?: GivenPasswords): Promise<PublicEvent | undefined>;
  /** Recurring events: the published occurrence of the series with this slug on this day. */
  occurrence(slug: string, day: string, given?: GivenPasswords): Promise<PublicEvent | undefined>;
  /**
   * A moved occurrence: the address (its `url`) of the published occurrence of this series that was
   * on this day before it moved to another, or undefined.
   */
  movedOccurrence(slug: string, day: string): Promise<string | undefined>;
  /** A signed preview link's event (domain/previews.ts): not published yet, with this slug; undefined when the token does not open it. */
  preview(slug: string, token: unknown): Promise<PublicEvent | undefined>;
  /** Recurring events: the published series with this slug (its representation). */
  series(slug: string): Promise<PublicEvent | undefined>;
  /** Recurring events: how feeds write the series of these occurrences (public ones only). */
  seriesFeeds(events: PublicEvent[]): Promise<Map<number, SeriesFeed>>;
  venue(slug: string): Promise<PublicVenue | undefined>;
  organizer(slug: string): Promise<PublicOrganizer | undefined>;
  term(taxonomy: 'category' | 'tag', slug: string): Promise<PublicTerm | undefined>;
  /** Events of the REST list's window and filters (`/events.ics`), at most ICAL_MAX_EVENTS. */
  window(filter: EventFilter, startDate?: string, endDate?: string): Promise<{ events: PublicEvent[]; total: number }>;
  /** Whether a REST-style date (`start_date`/`end_date` of `/events.ics`) can be read. */
  isDateInput(value: string): boolean;
}

/** A page past the last one (the list's `event-archive-page-not-found`). */
export function isPageNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'event-archive-page-not-found';
}

export function createCalendar(services: Services): Calendar {
  const { config, events, reader } = services;
  const links = services.links;
  const max = config.icalMaxEvents;
  /** Event ids by slug, checked on every use (see `event`). */
  const eventIdBySlug = new Map<string, number>();
  services.keep('page_event_slugs', { entries: () => eventIdBySlug.size, maxEntries: 5000 });

  async function list(args: EventListArgs): Promise<EventsPage> {
    const r = await reader.list(ANONYMOUS, args, links);
    return { events: r.events, total: r.total, totalPages: r.totalPages, page: args.page };
  }

  /**
   * `counted: false` counts no total (`EventListArgs.countTotal`). The upcoming and past lists'
   * windows end at the current minute: a counted total would be counted again each minute (seconds
   * at 1,000,000 events). Their pages need only whether another page follows, except a search's,
   * which says how many it found; the month's page only whether it shows all of its events.
   */
  const ranged = (range: EventRange, f: EventFilter, page: number, perPage: number, counted = true) =>
    list({ page, per_page: perPage, range, ...filterArgs(f), ...(counted ? {} : { countTotal: false as const }) });
  const searching = (f: EventFilter) => filterArgs(f).search !== undefined;

  const minute = (wall: string) => `${wall.slice(0, 16)}:00`;
  const dayStart = (day: string) => `${day} 00:00:00`;
  const dayEnd = (day: string) => `${day} 23:59:59`;

  return {
    now: () => services.clock.nowLocal(),
    today: () => services.clock.nowLocal().slice(0, 10),

    // Events a list page shows: CALENDAR_EVENTS_PER_PAGE, read at each request (administrators change it).
    async upcoming(f, page, perPage = config.eventsPerPage) {
      // From today's start (read through the start-date index), not yet ended; `now` to the minute,
      // so the kept pages of this window last a minute.
      const now = minute(services.clock.nowLocal());
      return ranged({ startsFrom: dayStart(now.slice(0, 10)), endsFrom: now }, f, page, perPage, searching(f));
    },

    async past(f, page) {
      const now = minute(services.clock.nowLocal());
      return ranged({ startsUntil: now, endsUntil: now, descending: true }, f, page, config.eventsPerPage, searching(f));
    },

    async between(from, until, f = {}) {
      const r = await ranged({ overlaps: { from: dayStart(from), until: dayEnd(until) } }, f, 1, max, false);
      return { events: r.events, total: r.total };
    },

    async byIds(ids) {
      const unique = [...new Set(ids)].slice(0, max);
      if (unique.length === 0) return [];
      return (await reader.list(ANONYMOUS, { page: 1, per_page: unique.length, include: unique, range: {} }, links)).events;
    },

    async event(slug, given) {
      return eventBySlug(services, eventIdBySlug, slug, given);
    },

    async series(slug) {
      const id = await events.findIdBySlug(slug);
      const record = id === undefined ? undefined : await events.findById(id);
      if (!record || record.type !== SERIES_TYPE) return undefined;
      return reader.event(record, 'single', links);
    },

    async occurrence(slug, day, given) {
      const seriesId = await events.findIdBySlug(slug);
      const series = seriesId === undefined ? undefined : await events.findById(seriesId);
      if (!series || series.type !== SERIES_TYPE) return undefined;
      const id = await events.occurrenceOn(seriesId!, day);
      const record = id === undefined ? undefined : await events.findById(id);
      if (!record) return undefined;
      return withKeptLocation(services, await reader.event(record, 'single', links, ANONYMOUS, given), Number(record.id), seriesId);
    },

    async preview(slug, token) {
      const record = await services.previews.event(token);
      if (!record || record.slug !== (sanitizeSlug(slug) || slug)) return undefined;
      return reader.previewed(record, links);
    },

    async movedOccurrence(slug, day) {
      const seriesId = await events.findIdBySlug(slug);
      const series = seriesId === undefined ? undefined : await events.findById(seriesId);
      if (!series || series.type !== SERIES_TYPE) return undefined;
      const id = await events.movedOccurrence(seriesId!, day);
      const record = id === undefined ? undefined : await events.findById(id);
      if (!record || record.start_local.slice(0, 10) === day) return undefined;
      return (await reader.event(record, 'single', links))?.url;
    },

    async seriesFeeds(list) {
      return seriesFeedsOf(services, list);
    },

    async venue(slug) {
      const record = await services.venues.findBySlug(slug);
      return record ? reader.venue(record, links) : undefined;
    },

    async organizer(slug) {
      const record = await services.organizers.findBySlug(slug);
      return record ? reader.organizer(record, links) : undefined;
    },

    async term(taxonomy, slug) {
      const terms = taxonomy === 'category' ? services.categories : services.tags;
      const wanted = sanitizeSlug(slug) || slug;
      const row = await terms.find(wanted);
      if (!row || row.slug !== wanted) return undefined;
      return { id: Number(row.id), name: row.name, slug: row.slug, description: row.description ?? '', count: Number(row.count ?? 0) };
    },

    async window(f, startDate, endDate) {
      if (startDate === undefined && endDate === undefined) {
        const r = await this.upcoming(f, 1, max);
        return { events: r.events, total: r.total };
      }
      // The REST list's own window: its dates read as the list reads them (strtotime-style, site zone).
      const w = events.defaultWindow();
      const r = await reader.list(ANONYMOUS, { page: 1, per_page: config.maxPerPage, ...filterArgs(f), start_date: startDate ?? w.start, end_date: endDate ?? w.end }, links);
      if (r.total <= r.events.length) return { events: r.events, total: r.total };
      // More than one API page: read the same window as a range (no MAX_PER_PAGE cap), bounded by ICAL_MAX_EVENTS.
      const [, start] = r.query.find(([k]) => k === 'start_date')!;
      const [, end] = r.query.find(([k]) => k === 'end_date')!;
      const all = await ranged({ startsFrom: start, endsUntil: end }, f, 1, max);
      return { events: all.events, total: all.total };
    },

    isDateInput(value) {
      return eventValidators.isTime(value, config.timezone);
    },
  };
}

/** The REST list's arguments of a page's filter. */
function filterArgs(f: EventFilter): Partial<EventListArgs> {
  const out: Partial<EventListArgs> = {};
  if (f.categories?.length) out.categories = f.categories;
  if (f.tags?.length) out.tags = f.tags;
  if (f.search !== undefined && f.search.trim() !== '') out.search = f.search.trim();
  if (f.venue?.length) out.venue = f.venue;
  if (f.organizer?.length) out.organizer = f.organizer;
  if (f.featured !== undefined) out.featured = f.featured;
  if (f.series !== undefined) out.post_parent = f.series;
  if (f.firstOfSeries) out.firstOfSeries = true;
  return out;
}

/** An event without a venue shows the free-text location an import kept for it (or its series). */
async function withKeptLocation(services: Services, json: PublicEvent | undefined, id: number, seriesId?: number): Promise<PublicEvent | undefined> {
  // A protected event shows no location either (public-reader.ts).
  if (!json || json.protected || !Array.isArray(json.venue)) return json;
  const text = await services.imports.keptLocationOf(id, seriesId);
  return text === undefined ? json : { ...json, location_text: text };
}

/**
 * The published event with this slug. Slugs are unique among live events: the id found last time
 * (`idBySlug`) is checked against the (kept) record, and looked up again only when that record no
 * longer has the slug or is trashed.
 */
async function eventBySlug(services: Services, idBySlug: Map<string, number>, slug: string, given?: GivenPasswords): Promise<PublicEvent | undefined> {
  const { events, reader, links } = services;
  const wanted = sanitizeSlug(slug) || slug;
  const knownId = idBySlug.get(wanted);
  let record = knownId === undefined ? undefined : await events.findById(knownId);
  if (!record || record.slug !== wanted || record.status === 'trash') {
    const id = await events.findIdBySlug(slug);
    if (id === undefined) return undefined;
    record = await events.findById(id);
    if (record) {
      if (idBySlug.size >= 5000) idBySlug.clear();
      idBySlug.set(wanted, id);
    }
  }
  if (!record) return undefined;
  return withKeptLocation(services, await reader.event(record, 'single', links, ANONYMOUS, given), Number(record.id));
}

/** How feeds write the series of these occurrences (public ones only): see `Calendar.seriesFeeds`. */
async function seriesFeedsOf(services: Services, list: PublicEvent[]): Promise<Map<number, SeriesFeed>> {
  const { events, reader, links } = services;
  const out = new Map<number, SeriesFeed>();
  const ids = new Set<number>();
  for (const e of list) {
    const id = (e as PublicEvent & { recurring_event_id?: number }).recurring_event_id;
    if (typeof id === 'number') ids.add(id);
  }
  let done = 0;
  for (const id of ids) {
    // A feed of many series reads and writes each one's rules: other requests run every few
    // (SQLite answers synchronously; a hundred series held the loop about 0.2 s).
    if (++done % SERIES_STEP === 0) await new Promise((resolve) => setImmediate(resolve));
    const record = await events.findById(id);
    const details = await events.seriesDetails(id);
    // A series anonymous visitors may not read: its occurrences are written one by one.
    const series = record && details ? await reader.event(record, 'list', links) : undefined;
    if (!record || !details || !series) continue;
    const shown = details.exceptions.filter((x) => x.status === 'publish').map((x) => x.id);
    const shownJson = shown.length ? (await reader.list(ANONYMOUS, { page: 1, per_page: shown.length, include: shown, range: {} }, links)).events : [];
    const byId = new Map(shownJson.map((e) => [e.id, e]));
    const overrides: SeriesFeed['overrides'] = [];
    const removed: string[] = [];
    for (const x of details.exceptions) {
      const event = byId.get(x.id);
      if (event) overrides.push({ event, originalStart: x.original_start });
      else removed.push(x.original_start);
    }
    const first = { start_local: record.start_local, end_local: record.end_local, timezone: record.timezone, all_day: Number(record.all_day) === 1 };
    const lines = icsRecurrenceLines(parseRecurrence(details.rules), first, details.horizon, removed, !first.all_day && hasVtimezone(record.timezone));
    out.set(id, { series, lines, overrides });
  }
  return out;
}
