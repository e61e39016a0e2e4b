/**
 * The events' read model: what is kept across requests (event records, public representations per
 * links, with the builds under way), how a representation is built in one batch (no query per row),
 * and the single-record reads. Every kept entry names the records it was built from and is dropped
 * by the change log when one of them changes (`../kept.ts`); an anonymous reader of a kept event is
 * answered without a query.
 *
 * @example
 *   const model = createReadModel(deps);
 *   const [json] = await model.represent([await model.findById(42)], ANONYMOUS, 'single', links);
 */
import type { Executor, TermRow } from '../../store/schema.js';
import * as eventsStore from '../../store/events.js';
import type { EventRecord } from '../../store/events.js';
import * as postsStore from '../../store/posts.js';
import * as termsStore from '../../store/terms.js';
import * as recurrenceStore from '../../store/recurrence.js';
import type { OrganizerRecord, VenueRecord } from '../../store/linked-posts.js';
import type { ChangeFeed } from '../../store/change-feed.js';
import { revisionOf, stampRevision } from '../../store/revision.js';
import { apiError } from '../errors.js';
import { ANONYMOUS, isAuthenticated, type Viewer } from '../permissions.js';
import { toEventJson, type EventRecurrence, type EventRelated } from '../representations/event.js';
import type { RepresentationContext } from '../representations/venue.js';
import type { Links } from '../links.js';
import { sanitizeSlug } from '../slugs.js';
import { createKeptMap, roughSizeOf, type KeptMap } from '../kept.js';
import { serializedLength, withSerialized } from '../serialized.js';
import { keptCountersOf } from '../../metrics.js';
import { SERIES_TYPE, TRASHED_SUFFIX, type EventService, type EventServiceDeps } from './types.js';

/** Public event representations kept per links, at most this many bytes of their JSON (besides 5,000 entries). */
const PUBLIC_EVENTS_MAX_BYTES = 24 * 1024 * 1024;

/**
 * Representations built between two turns of the event loop. Building one costs about 0.1 ms of
 * CPU (its dates' zone offsets and abbreviations, cost, venue, description), reading its records
 * on SQLite is synchronous too: a thousand at once (a month page, a FullCalendar range) held the
 * loop over 100 ms. 200 at a time held it 20-35 ms here, and three times that on a slower, busier
 * machine: 100 keep each turn near 20 ms for about one more query per hundred representations.
 */
const BUILD_CHUNK = 100;

/** Wait for the next turn of the event loop (other requests run meanwhile). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The read side of the event service, shared by its other parts. */
export interface ReadModel extends Pick<EventService, 'findById' | 'findIdBySlug' | 'isOtherPostType' | 'isEventId' | 'represent'> {
  /** The store's change feed (what the kept values follow). */
  feed: ChangeFeed;
  /** The sequence number kept values reflect, brought up to date. */
  current(): Promise<number>;
  /**
   * Public representations of these ids (kept ones served as kept), built from the records as
   * they are at `seq` (default: now); events gone meanwhile are represented from `known` records.
   */
  publicById(ids: number[], context: RepresentationContext, links: Links, known?: EventRecord[], seq?: number): Promise<Record<string, unknown>[]>;
  /** What an answer made of these kept public representations adds to memory; undefined when one is not kept. */
  keptBytes(ids: number[], context: RepresentationContext, links: Links): number | undefined;
  /** The organizer and term ids a record just created here was written with (its answer reads none back). */
  noteLinksWritten(record: EventRecord, links: { organizers: number[]; terms: number[] }): void;
}

export function createReadModel(deps: EventServiceDeps): ReadModel {
  const { store } = deps;
  const db = store.db;

  // What is kept across requests, each entry until a change touches what it was built from
  // (kept.ts, fed by the store's change log).
  const feed = store.feed;
  /** Event records by id. */
  const records = createKeptMap<EventRecord>(feed, 5000, { owner: db, kind: 'event_records', maxBytes: 16 * 1024 * 1024, sizeOf: roughSizeOf, admitOnSecondUse: true });
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
          owner: db,
          countsPatchedOnRead: true,
          admitOnSecondUse: true,
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

  /** The sequence number kept values reflect, brought up to date. */
  const current = (): Promise<number> => feed.sync();

  async function build(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Record<string, unknown>[]> {
    return (await buildWithDeps(records, viewer, context, links)).map((b) => b.json);
  }

  /** Representations, each with the records it was built from (for `publicRepresentations`). */
  async function buildWithDeps(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Array<{ json: Record<string, unknown>; deps: string[] }>> {
    const out: Array<{ json: Record<string, unknown>; deps: string[] }> = [];
    for (let i = 0; i < records.length; i += BUILD_CHUNK) {
      if (i > 0) await nextTurn();
      const chunk = records.slice(i, i + BUILD_CHUNK);
      const related = await relatedFor(deps, linksWritten, db, chunk, viewer);
      for (const r of chunk) {
        const rel = related.get(Number(r.id))!;
        out.push({ json: toEventJson(r, rel, links, context, deps.currency), deps: rel.deps });
      }
    }
    return out;
  }

  /**
   * Anonymous callers all see the same thing: their representations are cached per data revision,
   * built from the records as they are after the revision was read. Events gone meanwhile are
   * represented from `known` records when given, else left out.
   */
  async function publicById(ids: number[], context: RepresentationContext, links: Links, known: EventRecord[] = [], seq?: number): Promise<Record<string, unknown>[]> {
    const at = seq ?? (await current());
    const kept = publicRepresentations(links);
    const out = ids.map((id) => keptRepresentation(db, shownCounts, kept, `${context}:${id}`));
    const missing = ids.filter((_, i) => out[i] === undefined);
    const counters = keptCountersOf(db);
    counters.publicEvents.hits += ids.length - missing.length;
    counters.publicEvents.misses += missing.length;
    if (missing.length === 0) return out as Record<string, unknown>[];
    const built = await buildMissing({ db, building: buildingByLinksOf(links), kept, shownCounts, countsShownBy, counters, buildWithDeps }, missing, context, links, at);
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

  return {
    feed,
    current,
    publicById,
    keptBytes,
    findIdBySlug: (slug) => findIdBySlug(db, slug),
    isOtherPostType: (id) => isOtherPostType(db, id),
    isEventId: (id) => isEventId(db, id),
    noteLinksWritten: (record, written) => void linksWritten.set(record, written),
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
  };
}

/** What `buildMissing` works with: the read model's kept state and its builder. */
interface MissingBuild {
  db: Executor;
  building: Map<string, Promise<Record<string, unknown> | undefined>>;
  kept: KeptMap<Record<string, unknown>>;
  shownCounts: WeakMap<object, ReadonlyArray<readonly [number, number]>>;
  countsShownBy(json: Record<string, unknown>): Array<[number, number]>;
  counters: ReturnType<typeof keptCountersOf>;
  buildWithDeps(records: EventRecord[], viewer: Viewer, context: RepresentationContext, links: Links): Promise<Array<{ json: Record<string, unknown>; deps: string[] }>>;
}

/**
 * The public representations of `missing` at `at`, built and kept. Requests that miss the same
 * representation at the same sequence number (all readers of a popular event right after a write
 * touched it) share one build instead of each making its own.
 */
async function buildMissing(
  { db, building, kept, shownCounts, countsShownBy, counters, buildWithDeps }: MissingBuild,
  missing: number[],
  context: RepresentationContext,
  links: Links,
  at: number,
): Promise<Map<number, Record<string, unknown>>> {
  const built = new Map<number, Record<string, unknown>>();
  // Requests that miss the same representation at the same sequence number (all readers of a
  // popular event right after a write touched it) share one build instead of each making its own.
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
      // In steps: the records of a chunk read, their representations built and kept, then the next turn.
      for (let i = 0; i < own.length; i += BUILD_CHUNK) {
        if (i > 0) await nextTurn();
        const fresh = await eventsStore.findEventsByIds(db, own.slice(i, i + BUILD_CHUNK));
        (await buildWithDeps(fresh, ANONYMOUS, context, links)).forEach(({ json, deps }, j) => {
          const id = Number(fresh[j]!.id);
          shownCounts.set(json, countsShownBy(json));
          byId.set(id, json);
          built.set(id, json);
          // Its JSON's bytes only when kept (answered again from them); one not kept is sent once.
          kept.set(`${context}:${id}`, json, at, deps, withSerialized);
        });
      }
      settle(byId);
    } catch (err) {
      settle(undefined); // the others build their own (and meet the error themselves)
      throw err;
    } finally {
      for (const key of keys) building.delete(key);
    }
  }
  if (waits.length) await Promise.all(waits);
  return built;
}

/**
 * A kept public representation with its terms' counts as they are now (every published
 * create moves the counts of its terms, and every event of a popular category shows that count).
 * A count alone moving keeps the representation (`countsPatchedOnRead`); the first read after it
 * copies the representation with the current counts from the kept term rows and serializes it
 * again (no query, no rebuild). Undefined when it is not kept, or when one of its terms' rows is
 * not kept (its count cannot be told without reading it: the representation is built again).
 */
function keptRepresentation(
  db: Executor,
  shownCounts: WeakMap<object, ReadonlyArray<readonly [number, number]>>,
  kept: KeptMap<Record<string, unknown>>,
  key: string,
): Record<string, unknown> | undefined {
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

/**
 * What the representations of these records embed (venue, organizers, terms, images, recurrence),
 * read in one batch, with the records each was built from (`deps`, for the kept maps).
 */
async function relatedFor(
  deps: EventServiceDeps,
  linksWritten: WeakMap<EventRecord, { organizers: number[]; terms: number[] }>,
  trx: Executor,
  records: EventRecord[],
  viewer: Viewer,
): Promise<Map<number, EventRelated & { deps: string[] }>> {
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
    deps.venues.load(venueIds, { ...options, on: trx }),
    deps.organizers.load(
      organizerLinks.map((l) => Number(l.organizer_id)),
      { ...options, on: trx },
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
  // Recurring events: only records that are a series or have a parent cost a query.
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

/** An event record read on `trx` (rest-event-not-found when there is none). */
export async function reload(trx: Executor, id: number): Promise<EventRecord> {
  const [row] = await eventsStore.findEventsByIds(trx, [id]);
  if (!row) throw apiError('rest-event-not-found', { args: [id] });
  return row;
}

/** The id of the event (or series) with this slug (a trashed one: its wire slug). */
async function findIdBySlug(db: Executor, slug: string): Promise<number | undefined> {
  // A trashed event answers only to its wire slug (`slug__trashed`, as WordPress renames it),
  // like venues and organizers; a live one only to its own slug.
  const trashed = slug.endsWith(TRASHED_SUFFIX) && slug.length > TRASHED_SUFFIX.length;
  const base = trashed ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
  const wanted = sanitizeSlug(base) || base;
  // A recurring event's series answers to its slug too.
  const id = (await postsStore.findPostIdBySlug(db, 'tribe_events', wanted)) ?? (await postsStore.findPostIdBySlug(db, SERIES_TYPE, wanted));
  if (id === undefined) return undefined;
  const [row] = await eventsStore.findEventsByIds(db, [id]);
  return row && (row.status === 'trash') === trashed ? id : undefined;
}

async function isOtherPostType(db: Executor, id: number): Promise<boolean> {
  const type = await postsStore.postTypeOf(db, id);
  return type !== undefined && type !== 'tribe_events' && type !== SERIES_TYPE;
}

async function isEventId(db: Executor, id: number): Promise<boolean> {
  const type = await postsStore.postTypeOf(db, id);
  return type === 'tribe_events' || type === SERIES_TYPE;
}
