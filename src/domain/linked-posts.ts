/**
 * Venues and organizers ("linked posts"): their write fields, creation with the original's
 * duplicate avoidance, partial updates, trash, loading, the list (search, event, has_events,
 * only_with_upcoming, status visibility), their representation, and the event-write references
 * (`venue`: id or object; `organizer`: list of ids or objects). One implementation for both,
 * the differences as data (`LINKED_FIELDS`).
 *
 * @example
 *   const venues = createLinkedPostService(db, 'venue', images, siteTimezone);
 *   const id = await venues.create(trx, { venue: 'Town Hall', city: 'Springfield' }, viewer);
 */
import type { DialectName } from '../store/db.js';
import type { Executor, PostRow, PostType } from '../store/schema.js';
import * as linkedStore from '../store/linked-posts.js';
import type { LinkedKind, LinkedListFilter, LinkedRecord, OrganizerRecord, VenueRecord } from '../store/linked-posts.js';
import * as postsStore from '../store/posts.js';
import { lockForWrite } from '../store/locks.js';
import { writeTransaction } from '../store/changes.js';
import { parseDateInput, toWallTime } from './dates/index.js';
import { apiError, forbidden, invalidParams, type ParamFailure } from './errors.js';
import type { ImageService } from './images.js';
import { isHttpUrl } from './images.js';
import type { Links } from './links.js';
import { can, canCreatePost, canEditPost, canReadPost, isAuthenticated, typeCan, type Viewer } from './permissions.js';
import { toOrganizerJson } from './representations/organizer.js';
import { toVenueJson, type RepresentationContext } from './representations/venue.js';
import { sanitizeSlug, uniqueSlug } from './slugs.js';
import { applyScheduling, listScope, POST_STATUSES, scaleBackStatus } from './statuses.js';
import { markupFailure, phpTrim, sanitizePostHtml, stripTags } from './text.js';
import { isEmptyValue, isNumeric, isTruthy } from './values.js';
import { withSerialized } from './serialized.js';
import { revisionOf } from '../store/revision.js';
import { createKeptRecords, createRevisionCache, type RevisionCache } from './kept.js';
import { keptCountersOf } from '../metrics.js';
import { DEFAULT_GEOLOC, geoFilterOf } from './geo.js';

/** WordPress' publication date of a never-published draft. */
const ZERO_DATE = '0000-00-00 00:00:00';

/** Suffix the original gives the slug of a trashed post. */
const TRASHED_SUFFIX = '__trashed';

/**
 * Event statuses that make a venue/organizer "have events" (behavior.md §10.2): every status but
 * draft and pending (and auto-draft); trashed, private and future events count.
 */
const HAS_EVENTS_STATUSES: readonly string[] = POST_STATUSES.filter((s) => s !== 'draft' && s !== 'pending' && s !== 'auto-draft');

/** The list parameters, validated (absent = not sent). */
export interface LinkedListArgs {
  page: number;
  per_page: number;
  search?: string;
  event?: number;
  has_events?: unknown;
  only_with_upcoming?: unknown;
  status?: string[];
  /** only these ids (not a request argument: sync tokens, issue 11) */
  ids?: number[];
  /** venues only (issue 14): as on the event list */
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  geoloc_radius?: number;
  geoloc_unit?: 'mi' | 'km';
}

/** A list page: the records, the totals, and the effective query for rest_url. */
export interface LinkedPage {
  records: LinkedRecord[];
  total: number;
  totalPages: number;
  /** the effective query, in the original's rest_url order */
  query: Array<[string, string]>;
}

/**
 * Split a list `search` like the original's find_like: fragments separated by anything other
 * than letters, digits and `-`.
 *
 * @example searchFragments('france, ile de') // ['france', 'ile', 'de']
 */
export function searchFragments(search: string): string[] {
  return search.split(/[^\p{L}\p{N}-]+/u).filter((f) => f !== '');
}

/** How a list echoes `has_events` (PHP's add_query_arg: true → 1, false → 0). */
function queryValue(value: unknown): string {
  if (value === true) return '1';
  if (value === false) return '0';
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

/**
 * An organizer e-mail address as written (issue 24): WordPress's `is_email` rules (6 to 254
 * characters; a local part of letters, digits and ``!#$%&'*+/=?^_`{|}~.-``; a domain of two or more
 * dot-separated labels of letters, digits and inner hyphens), so a stored address is one a feed can
 * write as `mailto:` without escaping. The original stores any string (`is_string_or_empty`).
 *
 * @example isOrganizerEmail('info@example.com') // true
 * @example isOrganizerEmail('not an address')   // false
 */
export function isOrganizerEmail(value: unknown): boolean {
  if (typeof value !== 'string' || value.length < 6 || value.length > 254) return false;
  const at = value.indexOf('@');
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(l));
}

/** The write fields of each kind beyond the shared post fields. */
export const LINKED_FIELDS: Record<LinkedKind, { nameField: string; textFields: readonly string[]; urlFields: readonly string[]; flagFields: readonly string[] }> = {
  venue: {
    nameField: 'venue',
    textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
    urlFields: ['website'],
    flagFields: ['show_map', 'show_map_link'],
  },
  organizer: {
    nameField: 'organizer',
    textFields: ['phone', 'email'],
    urlFields: ['website'],
    flagFields: [],
  },
};

/**
 * A venue coordinate as written: absent, `""`/`null` (clears), or a number within ±limit (0 is one).
 *
 * @example isCoordinate('-33.86', 90) // true
 */
export function isCoordinate(value: unknown, limit: number): boolean {
  if (value === undefined || value === null || value === '') return true;
  return isNumeric(value) && Math.abs(Number(value)) <= limit;
}

/** Current UTC and site-local wall times. */
export interface Clock {
  nowGmt(): string;
  nowLocal(): string;
}

/**
 * `stateprovince` when none is given (behavior.md §7.2): the state for US venues (or no country),
 * else the province, else ''.
 */
export function deriveStateProvince(fields: { state?: string; province?: string; country?: string }): string {
  const country = (fields.country ?? '').trim();
  if (fields.state && (country === '' || country === 'US' || country === 'United States')) return fields.state;
  return fields.province ?? '';
}

/** A check of one inline entry (an object without an id) of an event write: true, or why not. */
export type InlineEntryCheck = (entry: Record<string, unknown>) => Promise<true | ParamFailure>;

/** The entries of an event write's `venue`/`organizer` value, empty ones left out. */
function refEntries(value: unknown): unknown[] {
  if (isEmptyValue(value)) return [];
  if (typeof value === 'string' || typeof value === 'number')
    return String(value)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((v) => !isEmptyValue(v));
  return [value];
}

/** Whether an entry is a new record's fields (an object without an id), not a reference. */
function isNewEntry(entry: unknown): entry is Record<string, unknown> {
  return entry !== null && typeof entry === 'object' && !Array.isArray(entry) && isEmptyValue((entry as Record<string, unknown>).id);
}

export interface LinkedPostService {
  kind: LinkedKind;
  /** The stored post type ('tribe_venue' / 'tribe_organizer'), which names its capabilities. */
  postType: PostType;
  /**
   * Create from write fields (validated); returns the id (an existing one when it is a duplicate).
   * `exact` (imports): no duplicate avoidance, and `input.slug` is the slug's base.
   */
  create(db: Executor, input: Record<string, unknown>, viewer: Viewer, options?: { exact?: boolean }): Promise<number>;
  /** Apply the fields present in `input` (partial update). */
  update(db: Executor, record: LinkedRecord, input: Record<string, unknown>, viewer: Viewer): Promise<void>;
  /** Move to trash and unlink from events; returns the ids of the events that lost the link. */
  trash(db: Executor, record: LinkedRecord): Promise<number[]>;
  /** `create` in a write transaction of its own (the direct create route); returns the id. */
  createPost(input: Record<string, unknown>, viewer: Viewer): Promise<number>;
  /** `update` in a write transaction of its own (the direct update route). */
  updatePost(record: LinkedRecord, input: Record<string, unknown>, viewer: Viewer): Promise<void>;
  /** `trash` in a write transaction of its own (the direct delete route). */
  trashPost(record: LinkedRecord): Promise<void>;
  findById(db: Executor, id: number): Promise<LinkedRecord | undefined>;
  /** Which of these ids are records of this kind (any status): is_venue_id / is_organizer_id. */
  existingIds(ids: number[]): Promise<Set<number>>;
  /**
   * The record with this slug. A trashed record answers only to its wire slug (`slug__trashed`),
   * as the original renames the slug when trashing; others to their slug.
   */
  findBySlug(db: Executor, slug: string): Promise<LinkedRecord | undefined>;
  /** Records by id (kept ones on the store's handle; `current: false`: without looking for changes first, see `KeptRecords`). */
  load(db: Executor, ids: number[], options?: { current?: boolean }): Promise<Map<number, LinkedRecord>>;
  /**
   * One page of the list (behavior.md §10.2), with COMPAT decision 11's visibility.
   * `env` gives the store dialect (for the search) and the per_page cap.
   */
  list(viewer: Viewer, args: LinkedListArgs, env: { dialect: DialectName; maxPerPage: number }): Promise<LinkedPage>;
  /** The wire objects of records (shapes.md §3/§4), images loaded in one batch. */
  represent(records: LinkedRecord[], links: Links, context: RepresentationContext): Promise<Record<string, unknown>[]>;
  /** Whether the viewer may read the record on its own route (WordPress read_post; trashed ones too). */
  readableBy(record: LinkedRecord, viewer: Viewer): boolean;
  /**
   * Validator of an event write's `venue`/`organizer` value (is_*_id_or_entry_or_empty). Ids must
   * name records the viewer may read (others fail as unknown ones, README "Who may do what");
   * each new entry must also pass `checkEntry`, the direct create route's validators (issue 24).
   */
  validateEventRef(value: unknown, viewer: Viewer, checkEntry?: InlineEntryCheck): Promise<boolean | ParamFailure>;
  /** The new entries of an event write's value: the objects without an id, which the write creates. */
  inlineEntries(value: unknown): Record<string, unknown>[];
  /**
   * Ids for an event write's value, creating inline entries. Venue: at most one (more → 400
   * could-not-create-venue). Organizer: a list.
   */
  idsForEventWrite(db: Executor, value: unknown, viewer: Viewer): Promise<number[]>;
  /** Whether the viewer may see this record embedded in an event (COMPAT decision 11). */
  visibleTo(record: LinkedRecord, viewer: Viewer): boolean;
}

export function createLinkedPostService(
  db: Executor,
  kind: LinkedKind,
  images: ImageService,
  siteTimezone: string,
  clock: Clock,
  geoDefaults: { radius: number; unit: 'mi' | 'km' } = DEFAULT_GEOLOC,
): LinkedPostService {
  // `db` is the store's handle: validators and reads that run outside a write transaction use it.
  const info = linkedStore.LINKED_KINDS[kind];
  /** Representations of list records, per links (one per app) and data revision. */
  const representationsByLinks = new WeakMap<Links, RevisionCache<Record<string, unknown>>>();
  const representationsFor = (links: Links) => {
    let cache = representationsByLinks.get(links);
    if (!cache) representationsByLinks.set(links, (cache = createRevisionCache<Record<string, unknown>>(2000, { owner: db, kind: `${kind}_representations` })));
    return cache;
  };
  const fields = LINKED_FIELDS[kind];
  /**
   * Records by id, kept until the change log names them (issue 9): an event write's validation
   * and answer, and the venues and organizers events embed, read no row. Only reads on the
   * store's handle use them (a transaction sees its own writes).
   */
  const keptRecords = createKeptRecords<LinkedRecord>(db, kind, (trx, ids) => linkedStore.findLinkedByIds(trx, kind, ids), keptCountersOf(db).linkedRecords);
  const recordsOf = (trx: Executor, ids: number[], options?: { current?: boolean }) => keptRecords.get(trx, ids, options);

  const text = (value: unknown) => stripTags(String(value ?? ''));
  /** A name as stored: trimmed, as WordPress' title_save_pre (PHP trim). */
  const nameText = (value: unknown) => phpTrim(text(value));

  function publicationDates(input: Record<string, unknown>): { date_local?: string; date_gmt?: string } {
    if (!isEmptyValue(input.date)) {
      const d = parseDateInput(input.date as string, siteTimezone);
      if (d) return { date_local: toWallTime(d), date_gmt: toWallTime(d.toUTC()) };
    }
    if (!isEmptyValue(input.date_utc)) {
      const d = parseDateInput(input.date_utc as string, 'UTC');
      if (d) return { date_gmt: toWallTime(d), date_local: toWallTime(d.setZone(siteTimezone)) };
    }
    return {};
  }

  /** Detail columns from the fields present in input. */
  function detailsFrom(input: Record<string, unknown>, current?: LinkedRecord): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fields.textFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = text(input[f]);
    for (const f of fields.urlFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isEmptyValue(input[f]) ? '' : String(input[f]).trim();
    for (const f of fields.flagFields) if (f in input && input[f] !== null && input[f] !== undefined) out[f] = isTruthy(input[f]) ? 1 : 0;
    if (kind === 'venue') Object.assign(out, coordinatesFrom(input, current as linkedStore.VenueRecord | undefined));
    return out;
  }

  /**
   * Venue coordinates (issue 14): `geo_lat`/`geo_lng` numbers (0 included) set them; `""` or
   * `null` in either clears both. Only one of them sent changes that one (the other must exist).
   */
  function coordinatesFrom(input: Record<string, unknown>, current?: { geo_lat: number | null; geo_lng: number | null }): Record<string, unknown> {
    const sent = (f: string) => f in input && input[f] !== undefined;
    if (!sent('geo_lat') && !sent('geo_lng')) return {};
    const clears = (f: string) => sent(f) && (input[f] === null || input[f] === '');
    if (clears('geo_lat') || clears('geo_lng')) return { geo_lat: null, geo_lng: null };
    const lat = sent('geo_lat') ? Number(input.geo_lat) : (current?.geo_lat ?? null);
    const lng = sent('geo_lng') ? Number(input.geo_lng) : (current?.geo_lng ?? null);
    if (lat === null || lng === null) {
      const missing = lat === null ? 'geo_lat' : 'geo_lng';
      throw invalidParams({ [missing]: `${missing} must be given together with ${missing === 'geo_lat' ? 'geo_lng' : 'geo_lat'}.` });
    }
    return { geo_lat: lat, geo_lng: lng };
  }

  async function createNew(trx: Executor, input: Record<string, unknown>, viewer: Viewer, slugBase?: string): Promise<number> {
    const name = nameText(input[fields.nameField]);
    const nowGmt = clock.nowGmt();
    const nowLocal = clock.nowLocal();
    const dates = publicationDates(input);
    // `future` without a date publishes now, as in WordPress (applyScheduling against now).
    const status = applyScheduling(scaleBackStatus(viewer, (input.status as string | undefined) ?? ''), dates.date_gmt ?? nowGmt, nowGmt);
    const slug = await uniqueSlug(sanitizeSlug(slugBase ?? '') || sanitizeSlug(name) || `${kind}`, (c) => postsStore.isSlugTaken(trx, info.postType, c));
    const content = String(input.description ?? '');
    const tooDense = markupFailure('description', content); // issue 24: bounded rendering
    if (tooDense) throw invalidParams({ description: tooDense });
    const id = await postsStore.insertPost(trx, {
      type: info.postType,
      author_id: isEmptyValue(input.author) ? viewer.id : Number(input.author),
      status,
      title: name,
      content: can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content),
      excerpt: '',
      slug,
      date_local: dates.date_local ?? nowLocal,
      date_gmt: dates.date_gmt ?? (status === 'draft' || status === 'pending' ? ZERO_DATE : nowGmt),
      modified_local: nowLocal,
      modified_gmt: nowGmt,
      image_id: await images.idFor(trx, input.image, viewer),
    });
    const details = detailsFrom(input);
    if (kind === 'venue') {
      if (!('show_map' in details)) details.show_map = 1;
      if (!('show_map_link' in details)) details.show_map_link = 1;
      if (!details.stateprovince) details.stateprovince = deriveStateProvince(details as Record<string, string>);
    }
    await linkedStore.insertLinkedDetails(trx, kind, id, details);
    return id;
  }

  const service: LinkedPostService = {
    kind,
    postType: info.postType,

    existingIds: async (ids) => new Set((await recordsOf(db, ids)).keys()),

    async create(trx, input, viewer, options) {
      if (options?.exact) return createNew(trx, input, viewer, typeof input.slug === 'string' ? input.slug : undefined);
      const name = nameText(input[fields.nameField]);
      const description = String(input.description ?? '');
      // Duplicate avoidance (behavior.md §7.1): same name, case-insensitively, and same description
      // when one is given. Unlike the original, only a record the viewer may read counts as a
      // duplicate, and its fields are overwritten only when the viewer may edit it (otherwise a
      // contributor could rewrite anyone's venue by posting its name).
      // Look-up and insert must not race with another create (store/locks.ts).
      await lockForWrite(trx, info.postType);
      const candidates = await postsStore.findPostIdsByTitle(trx, info.postType, name);
      // Both compared case-insensitively, as the original's database collation does.
      const folded = description.toLowerCase();
      const duplicate = candidates.find((p: PostRow) => (description === '' || p.content.toLowerCase() === folded) && canReadPost(viewer, info.postType, p));
      if (duplicate) {
        if (canEditPost(viewer, info.postType, duplicate)) {
          const { status: _s, date: _d, date_utc: _du, author: _a, description: _desc, [fields.nameField]: _n, ...rest } = input;
          await service.update(trx, (await service.findById(trx, Number(duplicate.id)))!, rest, viewer);
        }
        return Number(duplicate.id);
      }
      return createNew(trx, input, viewer);
    },

    async update(trx, record, input, viewer) {
      const patch: Record<string, unknown> = {};
      if (fields.nameField in input && input[fields.nameField] != null) patch.title = nameText(input[fields.nameField]);
      if ('description' in input && input.description != null) {
        const content = String(input.description);
        const tooDense = markupFailure('description', content);
        if (tooDense) throw invalidParams({ description: tooDense });
        patch.content = can(viewer, 'unfiltered_html') ? content : sanitizePostHtml(content);
      }
      if ('author' in input && !isEmptyValue(input.author)) patch.author_id = Number(input.author);
      const nowGmt = clock.nowGmt();
      const nowLocal = clock.nowLocal();
      const dates = publicationDates(input);
      Object.assign(patch, dates);
      let status = record.status;
      if (typeof input.status === 'string' && input.status !== '') status = scaleBackStatus(viewer, input.status);
      const dateGmt = dates.date_gmt ?? record.date_gmt;
      if (status !== record.status || dates.date_gmt) status = applyScheduling(status, dateGmt === ZERO_DATE ? nowGmt : dateGmt, nowGmt);
      if (status !== record.status) {
        patch.status = status;
        if (record.status === 'trash') patch.pre_trash_status = '';
        // First publication of a draft: it gets its publication date now (WordPress).
        if ((status === 'publish' || status === 'future' || status === 'private') && record.date_gmt === ZERO_DATE && !dates.date_gmt) {
          patch.date_gmt = nowGmt;
          patch.date_local = nowLocal;
        }
      }
      if ('image' in input && input.image != null) patch.image_id = await images.idFor(trx, input.image, viewer);
      const details = detailsFrom(input, record);
      // stateprovince: derived when sent empty, or when not sent and what it derives from changes (§7.2).
      const spSent = 'stateprovince' in details;
      if (kind === 'venue' && ((spSent && details.stateprovince === '') || (!spSent && ('state' in details || 'province' in details || 'country' in details)))) {
        const current = record as linkedStore.VenueRecord;
        details.stateprovince = deriveStateProvince({
          state: (details.state as string | undefined) ?? current.state,
          province: (details.province as string | undefined) ?? current.province,
          country: (details.country as string | undefined) ?? current.country,
        });
      }
      patch.modified_local = nowLocal;
      patch.modified_gmt = nowGmt;
      await postsStore.updatePost(trx, Number(record.id), patch);
      await linkedStore.updateLinkedDetails(trx, kind, Number(record.id), details);
    },

    async trash(trx, record) {
      await postsStore.updatePost(trx, Number(record.id), {
        status: 'trash',
        pre_trash_status: record.status,
        modified_local: clock.nowLocal(),
        modified_gmt: clock.nowGmt(),
      });
      return linkedStore.unlinkFromEvents(trx, kind, Number(record.id));
    },

    createPost(input, viewer) {
      return writeTransaction(db, (trx) => service.create(trx, input, viewer));
    },

    updatePost(record, input, viewer) {
      return writeTransaction(db, (trx) => service.update(trx, record, input, viewer));
    },

    async trashPost(record) {
      await writeTransaction(db, (trx) => service.trash(trx, record));
    },

    async findById(trx, id) {
      return (await linkedStore.findLinkedByIds(trx, kind, [id]))[0];
    },

    async findBySlug(trx, slug) {
      const trashed = slug.endsWith(TRASHED_SUFFIX) && slug.length > TRASHED_SUFFIX.length;
      const base = trashed ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
      const id = await linkedStore.findLinkedIdBySlug(trx, kind, sanitizeSlug(base) || base, trashed);
      return id === undefined ? undefined : service.findById(trx, id);
    },

    async list(viewer, args, env) {
      const perPage = Math.min(args.per_page, env.maxPerPage);
      const page = args.page;
      // COMPAT 11: non-editors see others' published records and their own.
      const scope = listScope(viewer, info.postType, args.status);
      const filter: LinkedListFilter = { statuses: scope.statuses };
      if (scope.onlyPublishedOrAuthor !== undefined) filter.onlyPublishedOrAuthor = scope.onlyPublishedOrAuthor;
      if (args.search !== undefined) {
        const fragments = searchFragments(args.search);
        if (fragments.length) filter.searchFragments = fragments;
      }
      if (args.event !== undefined) filter.eventId = args.event;
      if (args.ids !== undefined) filter.ids = args.ids;
      if (kind === 'venue') {
        const geo = geoFilterOf(args, geoDefaults);
        if (geo) filter.geo = geo;
      }
      if (args.has_events !== undefined && args.has_events !== null) {
        filter.hasEvents = { value: isTruthy(args.has_events), events: { statuses: HAS_EVENTS_STATUSES } };
      }
      if (isTruthy(args.only_with_upcoming)) {
        // The events that count are those of the list's statuses the viewer may see, that have not
        // ended yet (the rule; the original looks at the start) and are not hidden.
        const events = listScope(viewer, 'tribe_events', typeCan(viewer, 'edit', 'tribe_events') ? scope.statuses : ['publish']);
        filter.upcoming = {
          fromUtc: clock.nowGmt(),
          events: { statuses: events.statuses, ...(events.onlyPublishedOrAuthor !== undefined ? { onlyPublishedOrAuthor: events.onlyPublishedOrAuthor } : {}) },
        };
      }
      const { rows, total } = await linkedStore.findLinkedPage(db, env.dialect, kind, filter, { limit: perPage, offset: (page - 1) * perPage });
      if (rows.length === 0 && page > 1) throw apiError(kind === 'venue' ? 'venue-archive-page-not-found' : 'organizer-archive-page-not-found');
      const query: Array<[string, string]> = [
        ['page', String(page)],
        ['per_page', String(perPage)],
      ];
      if (args.event !== undefined) query.push(['event', String(args.event)]);
      if (args.has_events !== undefined && args.has_events !== null) query.push(['has_events', queryValue(args.has_events)]);
      if (args.geoloc !== undefined) query.push(['geoloc', args.geoloc ? '1' : '']);
      for (const k of ['geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit'] as const) if (args[k] !== undefined) query.push([k, String(args[k])]);
      query.push(['status', scope.label]);
      return { records: rows, total, totalPages: Math.ceil(total / perPage), query };
    },

    async represent(records, links, context) {
      // Records of a list page carry the data revision they were read at: their representations
      // (the same for every caller) are kept for it.
      const revision = records.length ? revisionOf(records[0]!) : undefined;
      const kept = revision !== undefined && records.every((r) => revisionOf(r) === revision) ? representationsFor(links).at(revision) : undefined;
      const key = (r: LinkedRecord) => `${context}:${r.id}`;
      const out = records.map((r) => kept?.get(key(r)));
      const missing = records.filter((_, i) => out[i] === undefined);
      if (missing.length === 0) return out as Record<string, unknown>[];
      const imageIds = missing
        .map((r) => r.image_id)
        .filter((id): id is number => id !== null)
        .map(Number);
      const byId = await images.load(db, imageIds);
      const built = new Map<LinkedRecord, Record<string, unknown>>();
      for (const r of missing) {
        const image = r.image_id === null ? null : (byId.get(Number(r.image_id)) ?? null);
        const json = kind === 'venue' ? toVenueJson(r as VenueRecord, image, links, context) : toOrganizerJson(r as OrganizerRecord, image, links, context);
        built.set(r, json);
        if (kept) kept.set(key(r), withSerialized(json));
      }
      return records.map((r, i) => out[i] ?? built.get(r)!);
    },

    readableBy(record, viewer) {
      return canReadPost(viewer, info.postType, record);
    },

    load: recordsOf,

    async validateEventRef(value, viewer, checkEntry) {
      if (isEmptyValue(value)) return true;
      if (Array.isArray(value) && value.every(isEmptyValue)) return true;
      let entries: unknown[];
      if (typeof value === 'string' || typeof value === 'number')
        entries = String(value)
          .split(',')
          .map((s) => s.trim());
      else if (Array.isArray(value)) entries = value;
      else if (typeof value === 'object') {
        // A bare object is one venue; organizers must come as a list (examples/10d).
        if (kind === 'organizer') return false;
        entries = [value];
      } else return false;
      const ids: number[] = [];
      for (const entry of entries) {
        if (isNumeric(entry)) {
          ids.push(Number(entry));
          continue;
        }
        if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return false;
        const obj = entry as Record<string, unknown>;
        if (!isEmptyValue(obj.id)) {
          if (!isNumeric(obj.id)) return false;
          ids.push(Number(obj.id));
          continue;
        }
        const name = obj[fields.nameField];
        if (typeof name !== 'string' || phpTrim(name) === '') return false;
        for (const f of fields.urlFields) if (!isEmptyValue(obj[f]) && !isHttpUrl(obj[f])) return false;
        if (kind === 'organizer' && !isEmptyValue(obj.email) && !isOrganizerEmail(obj.email)) return false;
        if (kind === 'venue' && (!isCoordinate(obj.geo_lat, 90) || !isCoordinate(obj.geo_lng, 180))) return false;
        if (!isEmptyValue(obj.image) && !(await images.validateRef(obj.image, viewer, true))) return false;
        if (checkEntry) {
          const checked = await checkEntry(obj);
          if (checked !== true) return checked;
        }
      }
      if (ids.length) {
        // A record the viewer may not read is refused as an unknown one (issue 24).
        const known = await recordsOf(db, ids);
        if (ids.some((id) => !known.has(id) || !service.readableBy(known.get(id)!, viewer))) return false;
      }
      return true;
    },

    inlineEntries(value) {
      return refEntries(value).filter(isNewEntry);
    },

    async idsForEventWrite(trx, value, viewer) {
      const entries = refEntries(value);
      if (kind === 'venue' && entries.length > 1) throw apiError('could-not-create-venue');
      // The routes refused these already (the permission of POST /venues, /organizers); here too
      // for any other caller.
      if (entries.some((e) => isNewEntry(e) && !canCreatePost(viewer, info.postType, e.author))) throw forbidden(isAuthenticated(viewer));
      const ids: number[] = [];
      for (const entry of entries) {
        if (isNumeric(entry)) ids.push(Number(entry));
        else ids.push(isNewEntry(entry) ? await service.create(trx, entry, viewer) : Number((entry as Record<string, unknown>).id));
      }
      return [...new Set(ids)];
    },

    visibleTo(record, viewer) {
      return record.status !== 'trash' && canReadPost(viewer, info.postType, record);
    },
  };
  return service;
}
