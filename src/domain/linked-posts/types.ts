/**
 * The venue and organizer service's vocabulary: what a list asks (`LinkedListArgs`) and answers
 * (`LinkedPage`), what the service needs (`LinkedServiceDeps`) and offers (`LinkedPostService`).
 *
 * @example
 *   const args: LinkedListArgs = { page: 1, per_page: 10, search: 'town hall' };
 */
import type { DialectName } from '../../store/db.js';
import type { Executor, PostType } from '../../store/schema.js';
import type { LinkedKind, LinkedKindInfo, LinkedRecord } from '../../store/linked-posts.js';
import type { ParamFailure } from '../errors.js';
import type { ImageService } from '../images.js';
import type { Links } from '../links.js';
import type { Viewer } from '../permissions.js';
import type { RepresentationContext } from '../representations/venue.js';

/** The list parameters, validated (absent = not sent). */
export interface LinkedListArgs {
  page: number;
  per_page: number;
  search?: string;
  event?: number;
  has_events?: unknown;
  only_with_upcoming?: unknown;
  status?: string[];
  /** only these ids (not a request argument: sync tokens) */
  ids?: number[];
  /** venues only: as on the event list */
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

/** Current UTC and site-local wall times. */
export interface Clock {
  nowGmt(): string;
  nowLocal(): string;
}

/** The write fields of a kind beyond the shared post fields (`LINKED_FIELDS`). */
export interface LinkedFieldNames {
  nameField: string;
  textFields: readonly string[];
  urlFields: readonly string[];
  flagFields: readonly string[];
}

/** A check of one inline entry (an object without an id) of an event write: true, or why not. */
export type InlineEntryCheck = (entry: Record<string, unknown>) => Promise<true | ParamFailure>;

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
  findById(id: number, on?: Executor): Promise<LinkedRecord | undefined>;
  /** Which of these ids are records of this kind (any status): is_venue_id / is_organizer_id. */
  existingIds(ids: number[]): Promise<Set<number>>;
  /**
   * The record with this slug. A trashed record answers only to its wire slug (`slug__trashed`),
   * as the original renames the slug when trashing; others to their slug.
   */
  findBySlug(slug: string, on?: Executor): Promise<LinkedRecord | undefined>;
  /**
   * Records by id (kept ones on the store's handle; `current: false`: without looking for changes
   * first, see `KeptRecords`). `on`: a write transaction to read in (default: the store's handle),
   * as for `findById` and `findBySlug`.
   */
  load(ids: number[], options?: { current?: boolean; on?: Executor }): Promise<Map<number, LinkedRecord>>;
  /**
   * One page of the list (behavior.md §10.2), with COMPAT decision 11's visibility.
   * `env` gives the per_page cap.
   */
  list(viewer: Viewer, args: LinkedListArgs, env: { maxPerPage: number }): Promise<LinkedPage>;
  /** The wire objects of records (shapes.md §3/§4), images loaded in one batch. */
  represent(records: LinkedRecord[], links: Links, context: RepresentationContext): Promise<Record<string, unknown>[]>;
  /** Whether the viewer may read the record on its own route (WordPress read_post; trashed ones too). */
  readableBy(record: LinkedRecord, viewer: Viewer): boolean;
  /**
   * Validator of an event write's `venue`/`organizer` value (is_*_id_or_entry_or_empty). Ids must
   * name records the viewer may read (others fail as unknown ones, README "Who may do what");
   * each new entry must also pass `checkEntry`, the direct create route's validators.
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

/** What the service's parts share: its arguments, and the kind's data. */
export interface LinkedServiceDeps {
  /** the store's handle: validators and reads that run outside a write transaction use it */
  db: Executor;
  /** the store's SQL dialect (the search's statements differ) */
  dialect: DialectName;
  kind: LinkedKind;
  images: ImageService;
  siteTimezone: string;
  clock: Clock;
  geoDefaults: { radius: number; unit: 'mi' | 'km' };
  /** the kind's post type and table (`LINKED_KINDS`) */
  info: LinkedKindInfo;
  /** the kind's write fields (`LINKED_FIELDS`) */
  fields: LinkedFieldNames;
}
