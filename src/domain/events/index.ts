/**
 * Events: what a write does (dates and time zones per COMPAT decision 5, cost, linked venue and
 * organizers, terms, image, slug, status), partial updates (COMPAT decision 1), trash, the list's
 * semantics (behavior.md §10.1) and batch representation (no query per row).
 *
 * @example
 *   const event = await services.events.create(viewer, { title: 'Jazz', start_date: 'tomorrow 8pm', end_date: 'tomorrow 11pm' });
 *   const [json] = await services.events.represent([event], viewer, 'single', ctx.links);
 */
import { DateTime } from 'luxon';
import type { Store } from '../../store/db.js';
import * as eventsStore from '../../store/events.js';
import type { EventListFilter, EventRecord } from '../../store/events.js';
import * as postsStore from '../../store/posts.js';
import * as termsStore from '../../store/terms.js';
import type { Executor, TermRow } from '../../store/schema.js';
import type { OrganizerRecord, VenueRecord } from '../../store/linked-posts.js';
import { parseCostInput } from '../cost.js';
import { endOfDay, parseDateInput, startOfDay, toWallTime, wallToUtc, isValidTimezone, invalidDateFailure } from '../dates/index.js';
import { apiError, forbidden, invalidParams } from '../errors.js';
import type { ImageService } from '../images.js';
import type { Clock, LinkedPostService } from '../linked-posts.js';
import { ANONYMOUS, can, canAssignTerms, canDeletePost, canEditPost, canReadPost, isAuthenticated, type Viewer } from '../permissions.js';
import { toEventJson, type EventRelated } from '../representations/event.js';
import type { RepresentationContext } from '../representations/venue.js';
import type { Links } from '../links.js';
import { firstSlugCandidate, sanitizeSlug, uniqueSlug } from '../slugs.js';
import { applyScheduling, listScope, scaleBackStatus } from '../statuses.js';
import { MAX_NEW_TERMS_PER_WRITE, type TermService } from '../terms.js';
import { createKeptMap, roughSizeOf, type KeptMap } from '../kept.js';
import { serializedLength, withSerialized } from '../serialized.js';
import { revisionOf, stampRevision } from '../../store/revision.js';
import { markupFailure, phpTrim, sanitizePostHtml } from '../text.js';
import { isEmptyValue, isPositiveInt, listToArray } from '../values.js';
import { isCreatedHere, isStatementWrite, writeStatement, writeTransaction } from '../../store/changes.js';
import { keptCountersOf } from '../../metrics.js';
import { postTextLength } from '../../store/sizes.js';
import type { ListingState } from '../../store/changes.js';
import { DEFAULT_GEOLOC, geoFilterOf } from '../geo.js';
import * as recurrenceStore from '../../store/recurrence.js';
import { isClearingRecurrence, parseRecurrence, type Recurrence } from '../recurrence.js';
import { materialise, rulesContinuingFrom, rulesEndingBefore, type SeriesDeps } from '../series.js';
import type { EventRecurrence } from '../representations/event.js';
import { expandOccurrences } from '../recurrence.js';
import { recountTerms } from '../../store/terms.js';

export const ZERO_DATE = '0000-00-00 00:00:00';

/** What an event's answer holds besides its text (dates, venue, organizers, terms, URLs), roughly. */
const ANSWER_BYTES_PER_EVENT = 4096;

/** The suffix of a trashed post's wire slug. */
const TRASHED_SUFFIX = '__trashed';
/** Public event representations kept per links, at most this many bytes of their JSON (besides 5,000 entries). */
const PUBLIC_EVENTS_MAX_BYTES = 24 * 1024 * 1024;

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
  /** Recurring events (issue 15): RRULE/RDATE/EXDATE lines; `[]` or `""` make the event single again. */
  recurrence?: unknown;
  /** On an occurrence: `this` (default), `following` (split the series) or `all` (the series). */
  recurrence_scope?: RecurrenceScope;
}

/** Which occurrences an update or delete of an occurrence applies to (issue 15). */
export type RecurrenceScope = 'this' | 'following' | 'all';

const SCOPE_ON_OCCURRENCES = 'recurrence_scope this and following apply to occurrences of recurring events only.';
const RULES_NEED_SCOPE = 'recurrence cannot be set on one occurrence: send recurrence_scope=following or all.';
const MOVE_NEEDS_SERIES = (seriesId: number) => `recurrence_scope=all cannot move the series from one occurrence: update the series (id ${seriesId}) or use recurrence_scope=following.`;

/** The post type of a recurring event's series (issue 15). */
export const SERIES_TYPE = 'tribe_event_series';
/** Slugs of events and series are one space (by-slug routes address either). */
const EVENT_SLUG_TYPES = ['tribe_events', SERIES_TYPE] as const;

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
  /** Recurring events (issue 15): the occurrence of a series generated on a day (`YYYY-MM-DD`). */
  occurrenceOn(seriesId: number, day: string): Promise<number | undefined>;
  /**
   * Recurring events (issue 15), for feeds: the series' rules and first occurrence, how far its
   * occurrences are generated, and its occurrences edited or deleted one by one (with their status).
   */
  seriesDetails(seriesId: number): Promise<{ rules: string[]; horizon: string; exceptions: Array<{ id: number; original_start: string; status: string }> } | undefined>;
  /** `reserve`: called with the answer's estimated size before its records are loaded (answer-budget.ts). */
  list(viewer: Viewer, args: EventListArgs, links: Links, reserve?: (bytes: number) => Promise<void>): Promise<EventPage>;
  /** The declared defaults of the list's date window, computed now (for args and the index). */
  defaultWindow(): { start: string; end: string };
  /**
   * Sync tokens (issue 11): the list's filter for these arguments without the default date window
   * (explicit `start_date`/`end_date` still apply), as the ids of `ids` it shows now, and a test of
   * an earlier listing state (undefined: cannot tell, e.g. a search over text not kept).
   */
  syncFilter(viewer: Viewer, args: EventListArgs, sent: ReadonlySet<string>): Promise<{ matching(ids: number[]): Promise<Set<number>>; listed(state: ListingState): boolean | undefined }>;
  /**
   * Issue 24: call `listener` after a write has committed that left occurrences of a series to
   * generate (more than one write inserts, `OCCURRENCES_PER_WRITE`); the horizon job listens.
   * Returns the function that stops listening.
   */
  onGenerationLeft(listener: () => void): () => void;
}

export function createEventService(deps: EventServiceDeps): EventService {
  const { store, siteTimezone, clock } = deps;
  const db = store.db;
  const seriesDeps: SeriesDeps = { horizonMonths: deps.recurrenceHorizonMonths ?? 60, clock };
  /** Transactions whose writes left occurrences to generate (issue 24), and who wants to know once they commit. */
  const generationLeft = new WeakSet<Executor>();
  const generationListeners = new Set<() => void>();
  /** `materialise` within a write: at most OCCURRENCES_PER_WRITE occurrences, the rest noted for the horizon job. */
  async function generate(trx: Executor, seriesId: number, options: { rewrite: boolean; scheduleChanged?: boolean }): Promise<void> {
    if ((await materialise(trx, seriesId, seriesDeps, options)).pending) generationLeft.add(trx);
  }
  /** Run a write; once it has committed, tell the listeners if it left occurrences to generate. */
  async function seriesWrite<T>(run: typeof writeTransaction, write: (trx: Executor) => Promise<T>): Promise<T> {
    let last: Executor | undefined;
    const out = await run(db, (trx) => {
      last = trx;
      return write(trx);
    });
    if (last && generationLeft.has(last)) for (const listener of generationListeners) listener();
    return out;
  }

  let windowMemo: { second: number; start: string; end: string } | undefined;

  // What is kept across requests, each entry until a change touches what it was built from
  // (kept.ts, fed by the store's change log).
  const feed = store.feed;
  /** Event records by id. */
  const records = createKeptMap<EventRecord>(feed, 5000, { kind: 'event_records', maxBytes: 16 * 1024 * 1024, sizeOf: roughSizeOf });
  /** Ids of list term filters (categories / tags references): until any term changes. */
  const termFilters = createKeptMap<number[]>(feed, 1000, { kind: 'event_term_filters' });
  /** Public (anonymous) event representations, by context and id, per links (REST root and namespace). */
  const publicRepresentationsByLinks = new WeakMap<Links, KeptMap<Record<string, unknown>>>();
  /**
   * The organizer and term ids of event records this instance has just created (in the order
   * written), so that the answer to the create is built without reading them back.
   */
  const linksWritten = new WeakMap<EventRecord, { organizers: number[]; terms: number[] }>();
  /** Builds of public representations under way, by `context:id@seq`, per links. */
  const buildingByLinks = new WeakMap<Links, Map<string, Promise<Record<string, unknown> | undefined>>>();
  const buildingByLinksOf = (links: Links) => {
    let building = buildingByLinks.get(links);
    if (!building) buildingByLinks.set(links, (building = new Map()));
    return building;
  };
  const publicRepresentations = (links: Links) => {
    let kept = publicRepresentationsByLinks.get(links);
    if (!kept)
      publicRepresentationsByLinks.set(
        links,
        (kept = createKeptMap<Record<string, unknown>>(feed, 5000, {
          countsPatchedOnRead: true,
          kind: 'public_events',
          maxBytes: PUBLIC_EVENTS_MAX_BYTES,
          sizeOf: (json: Record<string, unknown>) => serializedLength(json) ?? roughSizeOf(json),
        })),
      );
    return kept;
  };
  /** The term counts a kept public representation shows (its categories' and tags' `count`), by the representation. */
  const shownCounts = new WeakMap<object, ReadonlyArray<readonly [number, number]>>();
  const countsShownBy = (json: Record<string, unknown>): Array<[number, number]> =>
    [...((json.categories as Array<{ id: number; count: number }> | undefined) ?? []), ...((json.tags as Array<{ id: number; count: number }> | undefined) ?? [])].map((t) => [t.id, t.count]);

  /**
   * A kept public representation with its terms' counts as they are now (issue 9: every published
   * create moves the counts of its terms, and every event of a popular category shows that count).
   * A count alone moving keeps the representation (`countsPatchedOnRead`); the first read after it
   * copies the representation with the current counts from the kept term rows and serializes it
   * again (no query, no rebuild). Undefined when it is not kept, or when one of its terms' rows is
   * not kept (its count cannot be told without reading it: the representation is built again).
   */
  function keptRepresentation(kept: KeptMap<Record<string, unknown>>, key: string): Record<string, unknown> | undefined {
    const json = kept.get(key);
    const shown = json && shownCounts.get(json);
    if (!json || !shown?.length) return json;
    let moved: Map<number, number> | undefined;
    for (const [id, count] of shown) {
      const now = termsStore.keptTermCount(db, id);
      if (now === undefined) return undefined;
      if (now !== count) (moved ??= new Map()).set(id, now);
    }
    if (!moved) return json;
    const current = moved;
    const patch = (terms: unknown) =>
      (terms as Array<{ id: number; count: number }>).map((t) => {
        const now = current.get(t.id);
        return now === undefined ? t : { ...t, count: now };
      });
    const copy: Record<string, unknown> = { ...json };
    if (Array.isArray(copy.categories)) copy.categories = patch(copy.categories);
    if (Array.isArray(copy.tags)) copy.tags = patch(copy.tags);
    const patched = withSerialized(copy);
    shownCounts.set(
      patched,
      shown.map(([id, count]) => [id, current.get(id) ?? count]),
    );
    kept.update(key, patched);
    return patched;
  }

  /** The sequence number kept values reflect, brought up to date. */
  const current = (): Promise<number> => feed.sync();

  async function build(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Record<string, unknown>[]> {
    return (await buildWithDeps(records, viewer, context, links)).map((b) => b.json);
  }

  /** Representations, each with the records it was built from (for `publicRepresentations`). */
  async function buildWithDeps(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Array<{ json: Record<string, unknown>; deps: string[] }>> {
    if (records.length === 0) return [];
    const related = await relatedFor(db, records, viewer);
    return records.map((r) => {
      const id = Number(r.id);
      const rel = related.get(id)!;
      return { json: toEventJson(r, rel, links, context), deps: rel.deps };
    });
  }

  /**
   * Anonymous callers all see the same thing: their representations are cached per data revision,
   * built from the records as they are after the revision was read. Events gone meanwhile are
   * represented from `known` records when given, else left out.
   */
  async function publicById(ids: number[], context: RepresentationContext, links: Links, known: EventRecord[] = [], seq?: number): Promise<Record<string, unknown>[]> {
    const at = seq ?? (await current());
    const kept = publicRepresentations(links);
    const out = ids.map((id) => keptRepresentation(kept, `${context}:${id}`));
    const missing = ids.filter((_, i) => out[i] === undefined);
    const counters = keptCountersOf(db);
    counters.publicEvents.hits += ids.length - missing.length;
    counters.publicEvents.misses += missing.length;
    if (missing.length === 0) return out as Record<string, unknown>[];
    const built = new Map<number, Record<string, unknown>>();
    // Requests that miss the same representation at the same sequence number (all readers of a
    // popular event right after a write touched it) share one build instead of each making its own.
    const building = buildingByLinksOf(links);
    const waits: Array<Promise<void>> = [];
    const own: number[] = [];
    for (const id of missing) {
      const pending = building.get(`${context}:${id}@${at}`);
      if (pending) waits.push(pending.then((json) => void (json && built.set(id, json))));
      else own.push(id);
    }
    // A reader that joined another's build found its answer without building: a hit.
    counters.publicEvents.hits += missing.length - own.length;
    counters.publicEvents.misses -= missing.length - own.length;
    if (own.length) {
      let settle!: (byId: Map<number, Record<string, unknown>> | undefined) => void;
      const mine = new Promise<Map<number, Record<string, unknown>> | undefined>((resolve) => (settle = resolve));
      const keys = own.map((id) => `${context}:${id}@${at}`);
      own.forEach((id, i) =>
        building.set(
          keys[i]!,
          mine.then((byId) => byId?.get(id)),
        ),
      );
      const byId = new Map<number, Record<string, unknown>>();
      try {
        const fresh = await eventsStore.findEventsByIds(db, own);
        (await buildWithDeps(fresh, ANONYMOUS, context, links)).forEach(({ json, deps }, i) => {
          const id = Number(fresh[i]!.id);
          const serialized = withSerialized(json);
          shownCounts.set(serialized, countsShownBy(serialized));
          byId.set(id, serialized);
          built.set(id, serialized);
          kept.set(`${context}:${id}`, serialized, at, deps);
        });
        settle(byId);
      } catch (err) {
        settle(undefined); // the others build their own (and meet the error themselves)
        throw err;
      } finally {
        for (const key of keys) building.delete(key);
      }
    }
    if (waits.length) await Promise.all(waits);
    const gone = known.filter((r) => !built.has(Number(r.id)) && missing.includes(Number(r.id)));
    if (gone.length) (await build(gone, ANONYMOUS, context, links)).forEach((json, i) => built.set(Number(gone[i]!.id), json));
    const result: Record<string, unknown>[] = [];
    ids.forEach((id, i) => {
      const json = out[i] ?? built.get(id);
      if (json) result.push(json);
    });
    return result;
  }

  /**
   * When every one of these public representations is kept, what an answer made of them adds to
   * memory: their JSON once more (the kept objects exist already). Undefined when one is not kept.
   */
  function keptBytes(ids: number[], context: RepresentationContext, links: Links): number | undefined {
    const kept = publicRepresentations(links);
    let bytes = 0;
    for (const id of ids) {
      const json = kept.get(`${context}:${id}`);
      const length = json && serializedLength(json);
      if (length === undefined) return undefined;
      bytes += length;
    }
    return bytes;
  }

  async function relatedFor(trx: Executor, records: EventRecord[], viewer: Viewer): Promise<Map<number, EventRelated & { deps: string[] }>> {
    const ids = records.map((r) => Number(r.id));
    const venueIds = records
      .map((r) => r.venue_id)
      .filter((v): v is number => v !== null)
      .map(Number);
    // An event this instance has just written carries its links: no need to read them back.
    const known = records.map((r) => linksWritten.get(r));
    const [organizerLinks, termLinks] = known.every((k) => k !== undefined)
      ? [known.flatMap((k, i) => k!.organizers.map((organizer_id) => ({ event_id: ids[i]!, organizer_id }))), known.flatMap((k, i) => k!.terms.map((term_id) => ({ event_id: ids[i]!, term_id })))]
      : await Promise.all([eventsStore.organizerLinksOf(trx, ids), eventsStore.termLinksOf(trx, ids)]);
    // The answer to a one-statement create (PostgreSQL): its statement returned the counts it left
    // on its terms, and it changed none of the linked records, so they are taken as this request
    // found them (it validated against them), without another look at the change feed.
    const countsLeft = records.map((r) => eventsStore.termCountsWrittenWith(r));
    const justWritten = known.every((k) => k !== undefined) && countsLeft.every((c) => c !== undefined);
    const options = { current: !justWritten };
    const [venues, organizers, keptTerms] = await Promise.all([
      deps.venues.load(trx, venueIds, options),
      deps.organizers.load(
        trx,
        organizerLinks.map((l) => Number(l.organizer_id)),
        options,
      ),
      termsStore.findTermsByIds(trx, [...new Set(termLinks.map((l) => Number(l.term_id)))], options),
    ]);
    const terms = justWritten
      ? keptTerms.map((t) => {
          const count = countsLeft.find((c) => c!.has(Number(t.id)))?.get(Number(t.id));
          return count === undefined ? t : { ...t, count };
        })
      : keptTerms;
    const imageIds: number[] = [];
    for (const r of records) if (r.image_id !== null) imageIds.push(Number(r.image_id));
    for (const v of venues.values()) if (v.image_id !== null) imageIds.push(Number(v.image_id));
    for (const o of organizers.values()) if (o.image_id !== null) imageIds.push(Number(o.image_id));
    const images = await deps.images.load(trx, imageIds, options);
    // Recurring events (issue 15): only records that are a series or have a parent cost a query.
    const recurrence = new Map<number, EventRecurrence>();
    const occurrenceIds = records.filter((r) => Number(r.parent_id) !== 0).map((r) => Number(r.id));
    const seriesIds = records.filter((r) => r.type === SERIES_TYPE).map((r) => Number(r.id));
    if (occurrenceIds.length || seriesIds.length) {
      const [infos, series] = await Promise.all([recurrenceStore.occurrenceInfoOf(trx, occurrenceIds), recurrenceStore.findSeries(trx, seriesIds)]);
      for (const [id, i] of infos) recurrence.set(id, { kind: 'occurrence', lines: i.rules, seriesId: i.series_id, seriesSlug: i.series_slug, originalStart: i.original_start });
      for (const [id, row] of series) recurrence.set(id, { kind: 'series', lines: row.rules, hideFromListings: row.hide_from_listings });
    }
    const termById = new Map<number, TermRow>(terms.map((t) => [Number(t.id), t]));
    const out = new Map<number, EventRelated & { deps: string[] }>();
    for (const r of records) {
      const id = Number(r.id);
      const venue = r.venue_id !== null ? venues.get(Number(r.venue_id)) : undefined;
      const rel = {
        venue: venue && deps.venues.visibleTo(venue, viewer) ? (venue as VenueRecord) : null,
        organizers: [] as OrganizerRecord[],
        categories: [] as TermRow[],
        tags: [] as TermRow[],
        images,
        // What the representation is built from, visible or not (a change may make it visible).
        deps: r.venue_id !== null ? [`event:${id}`, `venue:${r.venue_id}`] : [`event:${id}`],
      } as EventRelated & { deps: string[] };
      const rec = recurrence.get(id);
      if (rec) {
        rel.recurrence = rec;
        // An occurrence shows its series' lines and slug.
        if (rec.kind === 'occurrence') rel.deps.push(`event:${rec.seriesId}`);
      }
      out.set(id, rel);
    }
    for (const l of organizerLinks) {
      const o = organizers.get(Number(l.organizer_id));
      out.get(Number(l.event_id))?.deps.push(`organizer:${l.organizer_id}`);
      if (o && deps.organizers.visibleTo(o, viewer)) out.get(Number(l.event_id))?.organizers.push(o as OrganizerRecord);
    }
    for (const l of termLinks) {
      const t = termById.get(Number(l.term_id));
      const rel = out.get(Number(l.event_id));
      rel?.deps.push(`term:${l.term_id}`);
      if (!t || !rel) continue;
      (t.taxonomy === 'tribe_events_cat' ? rel.categories : rel.tags).push(t);
    }
    return out;
  }

  async function reload(trx: Executor, id: number): Promise<EventRecord> {
    const [row] = await eventsStore.findEventsByIds(trx, [id]);
    if (!row) throw apiError('rest-event-not-found', { args: [id] });
    return row;
  }

  /** Parse a date input in a zone; the route validated it, so failure here is a 400 on that field. */
  function parseIn(name: string, value: string, tz: string): DateTime {
    const d = parseDateInput(value, tz); // relative to now (not built for plain dates)
    if (!d) throw invalidParams({ [name]: invalidDateFailure(name, `the event's time zone (${tz})`) });
    return d;
  }

  /** Schedule fields from the input, merged over the stored values on update. */
  function schedule(input: EventInput, existing: EventRecord | null) {
    const tzChanged = !isEmptyValue(input.timezone);
    const tz = tzChanged ? (input.timezone as string) : (existing?.timezone ?? siteTimezone);
    const allDay = input.all_day !== undefined ? input.all_day : Boolean(existing?.all_day ?? 0);
    let start = input.start_date !== undefined ? toWallTime(parseIn('start_date', input.start_date, tz)) : existing?.start_local;
    let end = input.end_date !== undefined ? toWallTime(parseIn('end_date', input.end_date, tz)) : existing?.end_local;
    if (start === undefined || end === undefined) throw invalidParams({ start_date: 'Invalid parameter.' });
    if (allDay) {
      start = startOfDay(start);
      end = endOfDay(end);
    }
    if (end < start) throw invalidParams({ end_date: 'The end date must not be before the start date.' });
    const startUtc = wallToUtc(start, tz);
    const endUtc = wallToUtc(end, tz);
    // The event's zone may move a date of the year 9999 past it (validation used the site zone).
    if (startUtc.length !== 19 || endUtc.length !== 19) {
      const name = startUtc.length !== 19 ? 'start_date' : 'end_date';
      throw invalidParams({ [name]: invalidDateFailure(name, `the event's time zone (${tz})`) });
    }
    return {
      timezone: tz,
      all_day: allDay ? 1 : 0,
      start_local: start,
      end_local: end,
      start_utc: startUtc,
      end_utc: endUtc,
    };
  }

  /**
   * The publication date (WordPress' post_date / post_date_gmt): `date` is in the site time zone,
   * whatever the event's own `timezone` (which applies to start_date/end_date only); `date_utc` in
   * UTC. When both are sent, `date` wins and `date_utc` is derived from it, as WordPress does.
   */
  function publicationDate(input: EventInput): { date_local: string; date_gmt: string } | null {
    if (!isEmptyValue(input.date)) {
      const d = parseIn('date', input.date as string, siteTimezone);
      return { date_gmt: toWallTime(d.toUTC()), date_local: toWallTime(d.setZone(siteTimezone)) };
    }
    if (!isEmptyValue(input.date_utc)) {
      const d = parseIn('date_utc', input.date_utc as string, 'UTC');
      return { date_gmt: toWallTime(d.toUTC()), date_local: toWallTime(d.setZone(siteTimezone)) };
    }
    return null;
  }

  /** Submitted markup as stored; `name` (description, excerpt) is refused beyond the markup limit (issue 24). */
  function html(viewer: Viewer, value: string, name?: string): string {
    const failure = name === undefined ? undefined : markupFailure(name, value);
    if (failure) throw invalidParams({ [name!]: failure });
    return can(viewer, 'unfiltered_html') ? value : sanitizePostHtml(value);
  }

  function costColumns(value: unknown) {
    const parsed = parseCostInput(value);
    return parsed ? { cost: JSON.stringify(parsed.raw), currency_symbol: parsed.symbol, currency_position: parsed.position } : { cost: null, currency_symbol: '', currency_position: '' };
  }

  /** The term ids a write's `categories` and `tags` name, by taxonomy (named terms the viewer may create are created). */
  async function termIdsForWrite(trx: Executor, viewer: Viewer, input: EventInput): Promise<Array<[string, number[]]>> {
    const wanted: Array<[string, number[]]> = [];
    // Issue 24: one count of new terms for the whole write (MAX_NEW_TERMS_PER_WRITE), categories and tags together.
    const newTerms = { left: MAX_NEW_TERMS_PER_WRITE };
    for (const [arg, service] of [
      ['categories', deps.categories],
      ['tags', deps.tags],
    ] as const) {
      const value = input[arg];
      if (value === undefined || value === null) continue;
      if (!canAssignTerms(viewer, service.taxonomy)) continue;
      wanted.push([service.taxonomy, await service.idsForWrite(trx, value, viewer, arg, newTerms)]);
    }
    return wanted;
  }

  async function assignTerms(trx: Executor, viewer: Viewer, eventId: number, input: EventInput): Promise<number[]> {
    const wanted = await termIdsForWrite(trx, viewer, input);
    // A new event has no links yet: every taxonomy's in one statement.
    if (isCreatedHere(trx, 'event', eventId))
      return eventsStore.addEventTerms(
        trx,
        eventId,
        wanted.flatMap(([, ids]) => ids),
      );
    const changed: number[] = [];
    for (const [taxonomy, ids] of wanted) changed.push(...(await eventsStore.setEventTerms(trx, eventId, taxonomy, ids)));
    return changed;
  }

  async function linkedIds(trx: Executor, viewer: Viewer, input: EventInput) {
    const venue = input.venue === undefined || input.venue === null ? undefined : await deps.venues.idsForEventWrite(trx, input.venue, viewer);
    const organizers = input.organizer === undefined || input.organizer === null ? undefined : await deps.organizers.idsForEventWrite(trx, input.organizer, viewer);
    return { venue, organizers };
  }

  /** The update of one event or series record (partial, COMPAT 1), inside the caller's transaction. */
  async function updateRecord(trx: Executor, viewer: Viewer, record: EventRecord, input: EventInput): Promise<EventRecord> {
    const id = Number(record.id);
    const nowGmt = clock.nowGmt();
    const nowLocal = clock.nowLocal();
    const schedTouched = input.start_date !== undefined || input.end_date !== undefined || input.all_day !== undefined || !isEmptyValue(input.timezone);
    const sched = schedTouched ? schedule(input, record) : {};
    const post: Record<string, unknown> = { modified_local: nowLocal, modified_gmt: nowGmt };
    // Stored trimmed, as WordPress' title_save_pre (PHP trim).
    if (input.title !== undefined) post.title = html(viewer, phpTrim(input.title));
    if (input.description !== undefined) post.content = html(viewer, input.description, 'description');
    if (input.excerpt !== undefined) post.excerpt = html(viewer, input.excerpt, 'excerpt');
    if (input.author !== undefined) post.author_id = input.author;
    if (input.slug !== undefined && !isEmptyValue(input.slug)) {
      const base = sanitizeSlug(input.slug) || record.slug;
      post.slug = await uniqueSlug(base, (c) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c, id));
    }
    const pub = publicationDate(input);
    if (pub) Object.assign(post, pub);
    let status = record.status;
    if (input.status !== undefined && input.status !== '') status = scaleBackStatus(viewer, input.status);
    const dateGmt = (post.date_gmt as string | undefined) ?? record.date_gmt;
    if (status !== record.status || pub) status = applyScheduling(status, dateGmt === ZERO_DATE ? nowGmt : dateGmt, nowGmt);
    if (status !== record.status) {
      post.status = status;
      if (record.status === 'trash') post.pre_trash_status = '';
      if ((status === 'publish' || status === 'future' || status === 'private') && record.date_gmt === ZERO_DATE && !pub) {
        post.date_gmt = nowGmt;
        post.date_local = nowLocal;
      }
    }
    if (input.image !== undefined) post.image_id = await deps.images.idFor(trx, input.image, viewer);
    await postsStore.updatePost(trx, id, post);

    const details: Record<string, unknown> = { ...sched };
    if (input.cost !== undefined) Object.assign(details, costColumns(input.cost));
    if (input.website !== undefined) details.website = isEmptyValue(input.website) ? '' : String(input.website).trim();
    for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
      if (input[flag] !== undefined) details[flag] = input[flag] ? 1 : 0;
    }
    // A series stays out of lists (its own flag is kept with its rules, `updateSeriesRecord`).
    if (record.type === SERIES_TYPE) delete details.hide_from_listings;
    const { venue, organizers } = await linkedIds(trx, viewer, input);
    if (input.venue !== undefined && input.venue !== null) details.venue_id = venue?.[0] ?? null;
    await eventsStore.updateEventDetails(trx, id, details);
    if (organizers !== undefined) await eventsStore.setEventOrganizers(trx, id, organizers);

    const changedTerms = await assignTerms(trx, viewer, id, input);
    if (status !== record.status && record.type !== SERIES_TYPE) {
      for (const l of await eventsStore.termLinksOf(trx, [id])) changedTerms.push(Number(l.term_id));
    }
    await termsStore.recountTerms(trx, changedTerms);
    return reload(trx, id);
  }

  // ---- Recurring events (issue 15) ----

  /** The series row of a series record (it always has one). */
  async function seriesRowOf(trx: Executor, id: number): Promise<recurrenceStore.SeriesRow> {
    const row = (await recurrenceStore.findSeries(trx, [id])).get(id);
    if (!row) throw apiError('rest-event-not-found', { args: [id] });
    return row;
  }

  function scheduleSent(input: EventInput): boolean {
    return input.start_date !== undefined || input.end_date !== undefined || input.all_day !== undefined || !isEmptyValue(input.timezone);
  }

  /** The input without what only recurring events read (for `updateRecord`). */
  function plainInput(input: EventInput): EventInput {
    const { recurrence: _r, recurrence_scope: _s, ...rest } = input;
    return rest;
  }

  /** Terms of a record, for recounting when it starts or stops being counted (a series is not). */
  async function termIdsOf(trx: Executor, id: number): Promise<number[]> {
    return (await eventsStore.termLinksOf(trx, [id])).map((l) => Number(l.term_id));
  }

  /** A single event given rules: it becomes a series (same id), its occurrences are generated. */
  async function convertToSeries(trx: Executor, record: EventRecord, rec: Recurrence): Promise<EventRecord> {
    const id = Number(record.id);
    await postsStore.updatePost(trx, id, { type: SERIES_TYPE });
    await eventsStore.updateEventDetails(trx, id, { hide_from_listings: 1 });
    await recurrenceStore.insertSeries(trx, { post_id: id, rules: rec.lines, horizon_local: record.start_local, complete: false, hide_from_listings: Number(record.hide_from_listings) });
    await recountTerms(trx, await termIdsOf(trx, id));
    await generate(trx, id, { rewrite: false });
    return reload(trx, id);
  }

  /**
   * `recurrence: []` on a series: it becomes a single event again (same id). Occurrences edited or
   * deleted one by one stay as single events; the others are deleted.
   */
  async function makeSingle(trx: Executor, series: EventRecord): Promise<EventRecord> {
    const id = Number(series.id);
    const row = await seriesRowOf(trx, id);
    const occurrences = await recurrenceStore.occurrencesOf(trx, id);
    await recurrenceStore.detachOccurrences(
      trx,
      occurrences.filter((o) => o.exception).map((o) => o.post_id),
    );
    await recurrenceStore.deleteOccurrences(
      trx,
      occurrences.filter((o) => !o.exception).map((o) => o.post_id),
    );
    await recurrenceStore.deleteSeriesRow(trx, id);
    await postsStore.updatePost(trx, id, { type: 'tribe_events' });
    await eventsStore.updateEventDetails(trx, id, { hide_from_listings: row.hide_from_listings });
    await recountTerms(trx, await termIdsOf(trx, id));
    return reload(trx, id);
  }

  /** An update of a series (scope `all`): its record, its rules, then every occurrence not edited alone. */
  async function updateSeriesRecord(trx: Executor, viewer: Viewer, series: EventRecord, input: EventInput, rec: Recurrence | undefined): Promise<EventRecord> {
    if (input.recurrence_scope !== undefined && input.recurrence_scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
    const id = Number(series.id);
    let record = series;
    if (input.recurrence !== undefined && isClearingRecurrence(input.recurrence)) record = await makeSingle(trx, series);
    const updated = await updateRecord(trx, viewer, record, plainInput(input));
    if (record.type !== SERIES_TYPE) return updated;
    const patch: { rules?: string[]; hide_from_listings?: number } = {};
    if (rec) patch.rules = rec.lines;
    if (input.hide_from_listings !== undefined) patch.hide_from_listings = input.hide_from_listings ? 1 : 0;
    await recurrenceStore.updateSeries(trx, id, patch);
    await generate(trx, id, { rewrite: true, scheduleChanged: scheduleSent(input) });
    return reload(trx, id);
  }

  /** The occurrence after a change to its series, or the series when the occurrence is gone. */
  async function occurrenceOrSeries(trx: Executor, id: number, seriesId: number): Promise<EventRecord> {
    const [row] = await eventsStore.findEventsByIds(trx, [id]);
    return row ?? reload(trx, seriesId);
  }

  /** An update of an occurrence: this one (an exception), the following ones (a split), or all. */
  async function updateOccurrence(trx: Executor, viewer: Viewer, record: EventRecord, occurrence: recurrenceStore.OccurrenceRow, input: EventInput, rec: Recurrence | undefined): Promise<EventRecord> {
    const id = Number(record.id);
    const scope = input.recurrence_scope ?? 'this';
    if (scope === 'this') {
      if (input.recurrence !== undefined) throw invalidParams({ recurrence: RULES_NEED_SCOPE });
      const updated = await updateRecord(trx, viewer, record, plainInput(input));
      await recurrenceStore.markExceptions(trx, [id]);
      return updated;
    }
    const series = await reload(trx, occurrence.series_id);
    if (!canEditPost(viewer, 'tribe_events', series)) throw forbidden(true);
    if (scope === 'all') {
      if (scheduleSent(input)) throw invalidParams({ recurrence_scope: MOVE_NEEDS_SERIES(occurrence.series_id) });
      await updateSeriesRecord(trx, viewer, series, { ...input, recurrence_scope: 'all' }, rec);
      return occurrenceOrSeries(trx, id, occurrence.series_id);
    }
    // following: the first occurrence's "following" is the whole series.
    if (occurrence.original_start <= series.start_local) {
      await updateSeriesRecord(trx, viewer, series, { ...input, recurrence_scope: 'all' }, rec);
      return occurrenceOrSeries(trx, id, occurrence.series_id);
    }
    if (input.recurrence !== undefined && isClearingRecurrence(input.recurrence)) throw invalidParams({ recurrence: 'A split series needs rules: send recurrence lines, or none to keep the rules.' });
    const newId = await split(trx, series, occurrence.original_start, rec);
    const [created] = await eventsStore.findEventsByIds(trx, [newId]);
    // The changes sent apply to the new series (the occurrence's own id stays with it).
    const withDates = scheduleSent(input) ? input : { ...input, start_date: undefined, end_date: undefined };
    await updateSeriesRecord(trx, viewer, created!, { ...withDates, recurrence: undefined, recurrence_scope: 'all' }, undefined);
    return occurrenceOrSeries(trx, id, newId);
  }

  /**
   * Split a series at a generated start `at`: the old series ends before it, a new series (a copy,
   * starting at that occurrence) continues with the same rules (COUNT reduced) or `rec`, and the
   * occurrences from `at` on move to it with their ids. Returns the new series' id.
   */
  async function split(trx: Executor, series: EventRecord, at: string, rec: Recurrence | undefined): Promise<number> {
    const seriesId = Number(series.id);
    const row = await seriesRowOf(trx, seriesId);
    const old = parseRecurrence(row.rules);
    const first = { start_local: series.start_local, end_local: series.end_local, timezone: series.timezone, all_day: Number(series.all_day) === 1 };
    const generated = expandOccurrences(old, first, `${at.slice(0, 10)} 23:59:59`).find((o) => o.start_local === at);
    const sched = generated ?? { start_local: at, end_local: at, start_utc: series.start_utc, end_utc: series.start_utc };
    const nowLocal = clock.nowLocal();
    const nowGmt = clock.nowGmt();
    const slug = await uniqueSlug(series.slug || 'event', (c) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c));
    const newId = await postsStore.insertPost(trx, {
      type: SERIES_TYPE,
      author_id: Number(series.author_id),
      status: series.status,
      title: series.title,
      content: series.content,
      excerpt: series.excerpt,
      slug,
      date_local: series.date_local,
      date_gmt: series.date_gmt,
      modified_local: nowLocal,
      modified_gmt: nowGmt,
      image_id: series.image_id === null ? null : Number(series.image_id),
    });
    await eventsStore.insertEventDetails(trx, {
      post_id: newId,
      start_local: sched.start_local,
      end_local: sched.end_local,
      start_utc: sched.start_utc,
      end_utc: sched.end_utc,
      timezone: series.timezone,
      all_day: Number(series.all_day),
      cost: series.cost,
      currency_symbol: series.currency_symbol,
      currency_position: series.currency_position,
      website: series.website,
      show_map: Number(series.show_map),
      show_map_link: Number(series.show_map_link),
      hide_from_listings: 1,
      sticky: Number(series.sticky),
      featured: Number(series.featured),
      venue_id: series.venue_id === null ? null : Number(series.venue_id),
    });
    const organizers = (await eventsStore.organizerLinksOf(trx, [seriesId])).map((l) => Number(l.organizer_id));
    if (organizers.length) await eventsStore.setEventOrganizers(trx, newId, organizers);
    await eventsStore.addEventTerms(trx, newId, await termIdsOf(trx, seriesId));
    await recurrenceStore.insertSeries(trx, {
      post_id: newId,
      rules: rec ? rec.lines : rulesContinuingFrom(old, first, at),
      horizon_local: at,
      complete: false,
      hide_from_listings: row.hide_from_listings,
    });
    await recurrenceStore.updateSeries(trx, seriesId, { rules: rulesEndingBefore(old, at, series.timezone, first.all_day) });
    const moving = (await recurrenceStore.occurrencesOf(trx, seriesId)).filter((o) => o.original_start >= at).map((o) => o.post_id);
    await recurrenceStore.moveOccurrences(trx, moving, newId);
    await postsStore.updatePost(trx, seriesId, { modified_local: nowLocal, modified_gmt: nowGmt });
    await generate(trx, seriesId, { rewrite: false });
    return newId;
  }

  /** Trash a series with all its occurrences. */
  async function trashSeries(trx: Executor, series: EventRecord): Promise<EventRecord> {
    const id = Number(series.id);
    if (series.status !== 'trash') {
      await postsStore.updatePost(trx, id, { status: 'trash', pre_trash_status: series.status, modified_local: clock.nowLocal(), modified_gmt: clock.nowGmt() });
    }
    const occurrences = await recurrenceStore.occurrencesOf(trx, id);
    await recurrenceStore.trashOccurrences(
      trx,
      occurrences.filter((o) => o.status !== 'trash').map((o) => o.post_id),
      clock.nowLocal(),
      clock.nowGmt(),
    );
    return reload(trx, id);
  }

  /** Trash one event record (the original's DELETE). */
  async function trashRecord(trx: Executor, record: EventRecord): Promise<EventRecord> {
    const id = Number(record.id);
    await postsStore.updatePost(trx, id, {
      status: 'trash',
      pre_trash_status: record.status,
      modified_local: clock.nowLocal(),
      modified_gmt: clock.nowGmt(),
    });
    await termsStore.recountTerms(
      trx,
      (await eventsStore.termLinksOf(trx, [id])).map((l) => Number(l.term_id)),
    );
    return reload(trx, id);
  }

  const service: EventService = {
    async findById(id) {
      // The record as of the current data revision: kept for that revision (read the revision
      // first, then the record), so a hot event costs one small query, not a row of every column.
      const seq = await current();
      const kept = records.get(String(id));
      if (kept) {
        stampRevision(kept, String(seq));
        return kept;
      }
      const [row] = await eventsStore.findEventsByIds(db, [id]);
      if (row) {
        records.set(String(id), row, seq, [`event:${id}`]);
        stampRevision(row, String(seq));
      }
      return row;
    },

    async findIdBySlug(slug) {
      // A trashed event answers only to its wire slug (`slug__trashed`, as WordPress renames it),
      // like venues and organizers; a live one only to its own slug.
      const trashed = slug.endsWith(TRASHED_SUFFIX) && slug.length > TRASHED_SUFFIX.length;
      const base = trashed ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
      const wanted = sanitizeSlug(base) || base;
      // A recurring event's series answers to its slug too (issue 15).
      const id = (await postsStore.findPostIdBySlug(db, 'tribe_events', wanted)) ?? (await postsStore.findPostIdBySlug(db, SERIES_TYPE, wanted));
      if (id === undefined) return undefined;
      const [row] = await eventsStore.findEventsByIds(db, [id]);
      return row && (row.status === 'trash') === trashed ? id : undefined;
    },

    async isOtherPostType(id) {
      const type = await postsStore.postTypeOf(db, id);
      return type !== undefined && type !== 'tribe_events' && type !== SERIES_TYPE;
    },

    async isEventId(id) {
      const type = await postsStore.postTypeOf(db, id);
      return type === 'tribe_events' || type === SERIES_TYPE;
    },

    async represent(records, viewer, context, links) {
      if (records.length === 0) return [];
      if (isAuthenticated(viewer)) return build(records, viewer, context, links);
      // Records read just now (findById) were read with the feed at this number: no need to look again.
      const stamp = revisionOf(records[0]!);
      const seq = stamp !== undefined && Number(stamp) === feed.seq() && records.every((r) => revisionOf(r) === stamp) ? Number(stamp) : undefined;
      return publicById(
        records.map((r) => Number(r.id)),
        context,
        links,
        records,
        seq,
      );
    },

    async create(viewer, input) {
      // A recurring event (issue 15): a series post, and its occurrences as events.
      const rec = input.recurrence === undefined || isClearingRecurrence(input.recurrence) ? undefined : parseRecurrence(input.recurrence);
      // An event that only names existing records by id writes one statement on PostgreSQL
      // (`writeStatement`); one that may create some (inline venues, named terms, an image URL)
      // or a series with its occurrences is a transaction.
      const plain = !rec && idsOnly(input.venue) && idsOnly(input.organizer) && idsOnly(input.categories) && idsOnly(input.tags) && idsOnly(input.image);
      return seriesWrite(plain ? writeStatement : writeTransaction, async (trx) => {
        const sched = schedule(input, null);
        const nowGmt = clock.nowGmt();
        const nowLocal = clock.nowLocal();
        const pub = publicationDate(input);
        // `future` without a date publishes now, as in WordPress (applyScheduling against now).
        const status = applyScheduling(scaleBackStatus(viewer, input.status), pub?.date_gmt ?? nowGmt, nowGmt);
        const unpublished = status === 'draft' || status === 'pending' || status === 'auto-draft';
        const title = html(viewer, phpTrim(input.title ?? '')); // trimmed, as WordPress' title_save_pre
        const base = sanitizeSlug(isEmptyValue(input.slug) ? title : (input.slug as string)) || 'event';
        // A one-statement write (PostgreSQL) tries the first candidate in its statement, which
        // checks it; only when it is taken are the numbered ones looked at.
        const slugTaken = (c: string) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c);
        const statement = isStatementWrite(trx);
        const slug = statement ? firstSlugCandidate(base) : await uniqueSlug(base, slugTaken);
        // Linked records and terms first (named ones may be created, in the store's lock order:
        // venue, organizer, categories, tags), then the event with its links in one go.
        const { venue, organizers } = await linkedIds(trx, viewer, input);
        const imageId = await deps.images.idFor(trx, input.image, viewer);
        const termIds = [...new Set((await termIdsForWrite(trx, viewer, input)).flatMap(([, ids]) => ids))];
        const organizerIds = [...new Set(organizers ?? [])];
        const created = await eventsStore.insertEvent(
          trx,
          {
            type: rec ? SERIES_TYPE : 'tribe_events',
            author_id: input.author ?? viewer.id,
            status,
            title,
            content: html(viewer, input.description ?? '', 'description'),
            excerpt: html(viewer, input.excerpt ?? '', 'excerpt'),
            slug,
            date_local: pub?.date_local ?? nowLocal,
            date_gmt: pub?.date_gmt ?? (unpublished ? ZERO_DATE : nowGmt),
            modified_local: nowLocal,
            modified_gmt: nowGmt,
            image_id: imageId,
          },
          {
            ...sched,
            ...costColumns(input.cost),
            website: isEmptyValue(input.website) ? null : String(input.website).trim(),
            show_map: input.show_map ? 1 : 0,
            show_map_link: input.show_map_link ? 1 : 0,
            // A series is never listed itself (its occurrences are): its own flag is kept with its rules.
            hide_from_listings: rec || input.hide_from_listings ? 1 : 0,
            sticky: input.sticky ? 1 : 0,
            featured: input.featured ? 1 : 0,
            venue_id: venue?.[0] ?? null,
          },
          organizerIds,
          termIds,
          statement ? { types: EVENT_SLUG_TYPES, next: () => uniqueSlug(base, slugTaken) } : undefined,
        );
        const id = Number(created.id);
        if (rec) {
          await recurrenceStore.insertSeries(trx, { post_id: id, rules: rec.lines, horizon_local: sched.start_local, complete: false, hide_from_listings: input.hide_from_listings ? 1 : 0 });
          await generate(trx, id, { rewrite: false });
          return reload(trx, id);
        }
        linksWritten.set(created, { organizers: organizerIds, terms: termIds });
        return created;
      });
    },

    async update(viewer, record, input) {
      const rec = input.recurrence === undefined || isClearingRecurrence(input.recurrence) ? undefined : parseRecurrence(input.recurrence);
      return seriesWrite(writeTransaction, async (trx) => {
        if (record.type === SERIES_TYPE) return updateSeriesRecord(trx, viewer, record, input, rec);
        // Only records with a parent can be occurrences: single events cost nothing more.
        if (Number(record.parent_id) !== 0) {
          const occurrence = await recurrenceStore.occurrenceOf(trx, Number(record.id));
          if (occurrence) return updateOccurrence(trx, viewer, record, occurrence, input, rec);
        }
        if (input.recurrence_scope !== undefined && input.recurrence_scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
        const updated = await updateRecord(trx, viewer, record, input);
        return rec ? convertToSeries(trx, updated, rec) : updated;
      });
    },

    async trash(record, scope, viewer) {
      return seriesWrite(writeTransaction, async (trx) => {
        if (record.type === SERIES_TYPE) {
          if (scope !== undefined && scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
          return trashSeries(trx, record);
        }
        const occurrence = Number(record.parent_id) !== 0 ? await recurrenceStore.occurrenceOf(trx, Number(record.id)) : undefined;
        if (!occurrence) {
          if (scope !== undefined && scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
          return trashRecord(trx, record);
        }
        // The whole series or its end: the caller must be allowed to delete the series itself.
        if (scope !== undefined && scope !== 'this' && viewer && !canDeletePost(viewer, 'tribe_events', await reload(trx, occurrence.series_id))) throw forbidden(true);
        if (scope === 'all') {
          await trashSeries(trx, await reload(trx, occurrence.series_id));
          return reload(trx, Number(record.id));
        }
        if (scope === 'following') {
          const series = await reload(trx, occurrence.series_id);
          if (occurrence.original_start <= series.start_local) {
            await trashSeries(trx, series);
            return reload(trx, Number(record.id));
          }
          const row = await seriesRowOf(trx, occurrence.series_id);
          const rec = parseRecurrence(row.rules);
          await recurrenceStore.updateSeries(trx, occurrence.series_id, { rules: rulesEndingBefore(rec, occurrence.original_start, series.timezone, Number(series.all_day) === 1) });
          const following = (await recurrenceStore.occurrencesOf(trx, occurrence.series_id)).filter((o) => o.original_start >= occurrence.original_start);
          // Kept as trashed exceptions (not deleted): their ids answer 403 "no longer available".
          await recurrenceStore.markExceptions(
            trx,
            following.map((o) => o.post_id),
          );
          await recurrenceStore.trashOccurrences(
            trx,
            following.filter((o) => o.status !== 'trash').map((o) => o.post_id),
            clock.nowLocal(),
            clock.nowGmt(),
          );
          await postsStore.updatePost(trx, occurrence.series_id, { modified_local: clock.nowLocal(), modified_gmt: clock.nowGmt() });
          await generate(trx, occurrence.series_id, { rewrite: false });
          return reload(trx, Number(record.id));
        }
        // this (default): an exception, never generated again.
        await recurrenceStore.markExceptions(trx, [Number(record.id)]);
        return trashRecord(trx, record);
      });
    },

    occurrenceOn(seriesId, day) {
      return recurrenceStore.occurrenceIdOn(db, seriesId, day);
    },

    onGenerationLeft(listener) {
      generationListeners.add(listener);
      return () => generationListeners.delete(listener);
    },

    async seriesDetails(seriesId) {
      const row = (await recurrenceStore.findSeries(db, [seriesId])).get(seriesId);
      if (!row) return undefined;
      const exceptions = (await recurrenceStore.occurrencesOf(db, seriesId)).filter((o) => o.exception).map((o) => ({ id: o.post_id, original_start: o.original_start, status: o.status }));
      return { rules: row.rules, horizon: row.horizon_local, exceptions };
    },

    defaultWindow() {
      // Both ends have a precision of one second: computed once per second (a list asks three times).
      const second = Math.floor(Date.now() / 1000);
      if (windowMemo?.second !== second) {
        const nowUtc = DateTime.fromMillis(second * 1000, { zone: 'utc' });
        // "yesterday 23:59" in UTC, seen in the site zone; end: now + 24 months (UTC clock).
        const start = nowUtc.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 }).setZone(siteTimezone);
        const end = nowUtc.plus({ months: 24 });
        windowMemo = { second, start: toWallTime(start), end: toWallTime(end) };
      }
      return { start: windowMemo.start, end: windowMemo.end };
    },

    async syncFilter(viewer, args, sent) {
      const scope = listScope(viewer, 'tribe_events', args.status);
      const filter: EventListFilter = { statuses: scope.statuses, order: 'date' };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;
      if (sent.has('start_date') && args.start_date !== undefined) filter.startFrom = startOfDay(toWallTime(parseIn('start_date', args.start_date, siteTimezone)));
      if (sent.has('end_date') && args.end_date !== undefined) filter.endUntil = endOfDay(toWallTime(parseIn('end_date', args.end_date, siteTimezone)));
      if (args.search !== undefined) filter.searchWords = searchWords(args.search);
      if (args.categories !== undefined) filter.categoryIds = await deps.categories.filterIds(args.categories);
      if (args.tags !== undefined) filter.tagIds = await deps.tags.filterIds(args.tags);
      if (args.venue !== undefined) filter.venueIds = listToArray(args.venue).map(Number);
      if (args.organizer !== undefined) filter.organizerIds = listToArray(args.organizer).map(Number);
      if (args.featured !== undefined) filter.featured = args.featured;
      if (args.post_parent !== undefined) filter.postParent = args.post_parent;
      if (args.include) filter.include = args.include;
      return {
        async matching(ids) {
          const wanted = args.include ? ids.filter((id) => args.include!.includes(id)) : ids;
          const out = new Set<number>();
          for (let i = 0; i < wanted.length; i += 500) {
            const chunk = wanted.slice(i, i + 500);
            const found = await eventsStore.findEventPageIds(db, store.dialect, { ...filter, include: chunk }, { limit: chunk.length, offset: 0 });
            for (const id of found.ids) out.add(Number(id));
          }
          return out;
        },
        listed: (state) => eventsStore.matchesFilter(filter, state, undefined, store.dialect),
      };
    },

    async list(viewer, args, links, reserve) {
      const perPage = args.range ? args.per_page : Math.min(args.per_page, deps.maxPerPage);
      const page = args.page;
      const scope = listScope(viewer, 'tribe_events', args.status);
      const statusLabel = scope.label;
      const filter: EventListFilter = { statuses: scope.statuses, order: 'start' };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;

      const window = service.defaultWindow();
      let startLabel: string;
      let endLabel: string;
      if (args.include) {
        filter.include = args.include;
        filter.order = 'date';
        startLabel = window.start;
        endLabel = window.end;
      } else if (args.range) {
        const r = args.range;
        if (r.startsFrom !== undefined) filter.startFrom = r.startsFrom;
        if (r.startsUntil !== undefined) filter.startUntil = r.startsUntil;
        if (r.endsFrom !== undefined) filter.endFrom = r.endsFrom;
        if (r.endsUntil !== undefined) filter.endUntil = r.endsUntil;
        if (r.descending) filter.order = 'start_desc';
        startLabel = r.startsFrom ?? r.endsFrom ?? '';
        endLabel = r.endsUntil ?? r.startsUntil ?? '';
      } else {
        const startWall = args.start_date !== undefined ? toWallTime(parseIn('start_date', args.start_date, siteTimezone)) : window.start;
        const endWall = args.end_date !== undefined ? toWallTime(parseIn('end_date', args.end_date, siteTimezone)) : window.end;
        filter.startFrom = startOfDay(startWall);
        filter.endUntil = endOfDay(endWall);
        startLabel = filter.startFrom;
        endLabel = filter.endUntil;
      }
      if (args.search !== undefined) filter.searchWords = searchWords(args.search);
      // Term references resolve to the same ids until the data changes: kept per revision.
      const seq = await current();
      const revision = feed.revision();
      const resolve = async (terms: TermService, value: unknown) => {
        const key = `${terms.taxonomy}:${JSON.stringify(value)}`;
        let ids = termFilters.get(key);
        if (ids === undefined) termFilters.set(key, (ids = await terms.filterIds(value)), seq, ['term:*']);
        return [...ids];
      };
      if (args.categories !== undefined) filter.categoryIds = await resolve(deps.categories, args.categories);
      if (args.tags !== undefined) filter.tagIds = await resolve(deps.tags, args.tags);
      if (args.venue !== undefined) filter.venueIds = listToArray(args.venue).map(Number);
      if (args.organizer !== undefined) filter.organizerIds = listToArray(args.organizer).map(Number);
      if (args.featured !== undefined) filter.featured = args.featured;
      if (args.post_parent !== undefined) filter.postParent = args.post_parent;
      const geo = geoFilterOf(args, deps.geoloc ?? DEFAULT_GEOLOC);
      if (geo) filter.geo = geo;

      const { ids, total } = await eventsStore.findEventPageIds(db, store.dialect, filter, { limit: perPage, offset: (page - 1) * perPage }, revision);
      if (ids.length === 0 && page > 1) throw apiError('event-archive-page-not-found');
      // The records, their representations and the JSON text each hold about the page's text.
      if (reserve && ids.length) await reserve((isAuthenticated(viewer) ? undefined : keptBytes(ids, 'list', links)) ?? 3 * (await postTextLength(db, ids)) + ANSWER_BYTES_PER_EVENT * ids.length);
      const query: Array<[string, string]> = [
        ['page', String(page)],
        ['per_page', String(perPage)],
        ['start_date', startLabel],
        ['end_date', endLabel],
      ];
      if (args.search !== undefined) query.push(['search', args.search]);
      if (args.geoloc !== undefined) query.push(['geoloc', args.geoloc ? '1' : '']);
      if (args.geoloc_lat !== undefined) query.push(['geoloc_lat', String(args.geoloc_lat)]);
      if (args.geoloc_lng !== undefined) query.push(['geoloc_lng', String(args.geoloc_lng)]);
      if (args.geoloc_radius !== undefined) query.push(['geoloc_radius', String(args.geoloc_radius)]);
      if (args.geoloc_unit !== undefined) query.push(['geoloc_unit', args.geoloc_unit]);
      query.push(['status', statusLabel]);
      if (args.post_parent !== undefined) query.push(['post_parent', String(args.post_parent)]);
      if (args.include) query.push(['include', args.include.join(',')]);
      return {
        events: isAuthenticated(viewer) ? await service.represent(await eventsStore.findEventsInOrder(db, ids), viewer, 'list', links) : await publicById(ids, 'list', links, [], seq),
        total,
        totalPages: Math.ceil(total / perPage),
        query,
      };
    },
  };
  return service;
}

/**
 * Whether a write's reference value (venue, organizer, categories, tags, image) names records by
 * id only, so that resolving it creates nothing: empty, positive integers, or strings of digits
 * (one, a list, or comma-separated). Anything else answers false, also what would resolve to ids
 * all the same (`{ "id": 5 }`, `"007"`): the caller then takes the general path.
 */
function idsOnly(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : [value];
  return items.every((v) => v === '' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^[1-9][0-9]{0,14}$/.test(v)));
}

/** Validators the event routes use (WordPress' is_time, is_timezone_or_empty, …). */
export const eventValidators = {
  /**
   * is_time: a Unix timestamp or something strtotime understands, within the years 1 to 9999 in
   * its zone and in UTC (dates are stored as `YYYY-MM-DD HH:MM:SS`; `+10000 years` is refused).
   */
  isTime(value: unknown, tz: string): boolean {
    if (typeof value !== 'string' && typeof value !== 'number') return false;
    const d = parseDateInput(value, tz);
    // The UTC year differs from the local one by at most one, at the turn of a year: only the
    // first and last storable years need the conversion (Luxon's is comparatively slow).
    return d !== null && isStorableYear(d.year) && (d.year > 1 && d.year < 9999 ? true : isStorableYear(d.toUTC().year));
  },
  isTimezoneOrEmpty(value: unknown): boolean {
    return isEmptyValue(value) || (typeof value === 'string' && isValidTimezone(value));
  },
};

/** A year a stored `YYYY-MM-DD HH:MM:SS` date can have. */
function isStorableYear(year: number): boolean {
  return year >= 1 && year <= 9999;
}

/** Whether the viewer may read this event (COMPAT decision 11). */
export function canReadEvent(viewer: Viewer, record: EventRecord): boolean {
  return canReadPost(viewer, 'tribe_events', record);
}

/**
 * Whether `value` names an event (or a recurring event's series) the viewer may read: what an
 * argument naming an event (`event`, `post`, `post_parent`) accepts besides its id check. Other
 * ids answer as unknown ones, so a filter never tells an unreadable event from a missing one
 * (issue 24, README "Who may do what").
 *
 * @example await namesReadableEvent(services.events, ANONYMOUS, draftId) // false
 */
export async function namesReadableEvent(events: Pick<EventService, 'findById'>, viewer: Viewer, value: unknown): Promise<boolean> {
  if (!isPositiveInt(value)) return false;
  const record = await events.findById(Number(value));
  return record !== undefined && canReadEvent(viewer, record);
}
