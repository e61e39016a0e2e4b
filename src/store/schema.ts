/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL: dates are stored as
 * 'YYYY-MM-DD HH:MM:SS' text (sortable, identical on both), flags as 0/1 integers.
 *
 * Events, venues and organizers share one id space (`posts`), as WordPress posts do, so an id
 * names exactly one record across the three types; each type keeps its own fields in a
 * detail table keyed by the post id.
 */
import type { ColumnType, Generated, Insertable, Kysely, Selectable, Updateable } from 'kysely';

/** WordPress post type names, kept so that stored data reads like the original. */
export type PostType = 'tribe_events' | 'tribe_venue' | 'tribe_organizer';
/** Every type a post row may have: also a recurring event's series, an event for every right. */
export type StoredPostType = PostType | 'tribe_event_series';
/** WordPress taxonomy names of the two term kinds. */
export type Taxonomy = 'tribe_events_cat' | 'post_tag';

export interface PostsTable {
  id: Generated<number>;
  type: StoredPostType;
  author_id: number;
  status: string;
  /** status before it was trashed (WordPress' _wp_trash_meta_status), '' otherwise */
  pre_trash_status: ColumnType<string, string | undefined, string>;
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  /** publication date, site time */
  date_local: string;
  /** publication date, UTC; '0000-00-00 00:00:00' for never-published drafts */
  date_gmt: string;
  modified_local: string;
  modified_gmt: string;
  parent_id: ColumnType<number, number | undefined, number>;
  image_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** WordPress' post_password (migration 030): '' when anyone may read the post's content */
  password: ColumnType<string, string | undefined, string>;
}

export interface EventsTable {
  post_id: number;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: number;
  /** JSON array of the raw cost values, null when the event has no cost */
  cost: string | null;
  currency_symbol: string;
  currency_position: string;
  /** null: never set (output falls back to the permalink); '' : set empty */
  website: string | null;
  show_map: number;
  show_map_link: number;
  hide_from_listings: number;
  sticky: number;
  featured: number;
  venue_id: number | null;
  /** the user whose write changed the event last (migration 024); null: its author */
  modified_by: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface VenuesTable {
  post_id: number;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  website: string;
  stateprovince: string;
  show_map: number;
  show_map_link: number;
  geo_lat: number | null;
  geo_lng: number | null;
}

export interface OrganizersTable {
  post_id: number;
  phone: string;
  website: string;
  email: string;
}

export interface EventOrganizersTable {
  event_id: number;
  organizer_id: number;
  position: number;
}

export interface TermsTable {
  id: Generated<number>;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parent_id: number;
  /** published events using the term, maintained by every event write */
  count: number;
}

export interface EventTermsTable {
  event_id: number;
  term_id: number;
}

export interface ImagesTable {
  id: Generated<number>;
  url: string;
  extension: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  author_id: number;
  created_gmt: string;
  /** the uploaded files' name in the media storage; '' for an image given as a URL (026_media) */
  storage_key: Generated<string>;
  alt: Generated<string>;
  filename: Generated<string>;
  filesize: number | null;
  /** JSON: the resized variants (domain/media), '' for none */
  sizes: Generated<string>;
}

export interface UsersTable {
  id: Generated<number>;
  login: string;
  email: string;
  display_name: string;
  role: string;
  password_hash: string;
  registered_gmt: string;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: number;
  uuid: string;
  name: string;
  password_hash: string;
  created_gmt: string;
  /** the one calendar it may be used in (migration 031), or null for all the account's */
  calendar_id?: ColumnType<number | null, number | null | undefined, number | null>;
  last_used_gmt: string | null;
}

/** The sequence number of the last committed write (one row, id 1): see migration 005. */
export interface ChangeCounterTable {
  id: number;
  value: number;
}

/** The change log: the records each write touched, in commit order (see `changes.ts`). */
export interface ChangesTable {
  seq: number;
  idx: number;
  record_type: string;
  record_id: number;
  action: string;
  /** JSON: what a reader cannot read back afterwards (an event's listing fields before the write) */
  detail: string | null;
  created_gmt: string;
}

/** How far the pruning job deleted a calendar's log rows (migration 041): a sync token before `seq` lost its history. */
export interface ChangesPrunedTable {
  seq: ColumnType<number | string, number, number>;
}

/** Which local record each imported source record became (migration 008, `src/store/import-map.ts`). */
export interface ImportMapTable {
  source: string;
  kind: string;
  source_id: string;
  local_id: number;
  fingerprint: string;
  updated_gmt: string;
}

/** An imported event's free-text location that names no venue here (migration 029). */
export interface EventLocationsTable {
  event_id: number;
  location: string;
}

/** A table of calendar data: each row carries its calendar's id, which the scope plugin sets and filters by (calendar-scope.ts). */
export type Scoped<T> = T & { calendar_id: Generated<number> };

/** A calendar of the service (migration 031): the default one has id 1. */
export interface CalendarsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  /** 'active' or 'suspended' (a suspended calendar answers 503 on every path) */
  status: ColumnType<string, string | undefined, string>;
  /** a host name of its own (a custom domain), or null */
  host: ColumnType<string | null, string | null | undefined, string | null>;
  /** its quotas as JSON; {} for the installation's defaults */
  quotas: ColumnType<string, string | undefined, string>;
  created_gmt: string;
}

/** An account's role in a calendar other than the default one (the default one's is users.role). */
export interface CalendarRolesTable {
  user_id: number;
  calendar_id: number;
  role: string;
}

/** A calendar's own settings changed in the app: environment variable name and value as text. */
export interface CalendarSettingsTable {
  calendar_id: Generated<number>;
  name: string;
  value: string;
}

/** A calendar's follow of another (migration 032): the source's published events are mirrored here. */
export interface CalendarFollowsTable {
  id: Generated<number>;
  source_calendar_id: number;
  /** JSON array of the source's category slugs followed; [] : every event */
  categories: string;
  created_gmt: string;
  /** The source's events the follower's `events` quota refused at the last sync (migration 043) */
  not_copied: Generated<number>;
}

/** Where an event of this calendar came from (migration 032): a proposal or a follow of another calendar. */
export interface NetworkSourcesTable {
  post_id: number;
  /**
   * `follow-ended`: a follow's copy the network trashed when the follow stopped bringing its source
   * (the follow ended, or the source withdrew the event); a later follow of it restores the copy.
   */
  kind: 'proposal' | 'follow' | 'follow-ended';
  /** the follow that made it (0 for a proposal or an ended follow's copy) */
  follow_id: number;
  source_calendar_id: number;
  source_event_id: number;
  source_url: string;
  /** a digest of what the copy was last made from (follows), the source's modified time (proposals) */
  source_modified: string;
  created_gmt: string;
}

/** A venue or organizer a follow mirrored into this calendar (migration 033): one per source record and follow. */
export interface NetworkLinkedTable {
  follow_id: number;
  kind: 'venue' | 'organizer';
  /** the record's id in the followed calendar */
  source_id: number;
  /** the mirrored record, a venue or organizer of this calendar */
  post_id: number;
  /** a digest of the source's fields the mirrored record was last written from */
  source_digest: string;
  created_gmt: string;
}

export interface Database {
  posts: Scoped<PostsTable>;
  event_locations: Scoped<EventLocationsTable>;
  events: Scoped<EventsTable>;
  venues: Scoped<VenuesTable>;
  organizers: Scoped<OrganizersTable>;
  event_organizers: Scoped<EventOrganizersTable>;
  terms: Scoped<TermsTable>;
  event_terms: Scoped<EventTermsTable>;
  images: Scoped<ImagesTable>;
  users: UsersTable;
  app_passwords: AppPasswordsTable;
  change_counter: ChangeCounterTable;
  changes: Scoped<ChangesTable>;
  changes_pruned: Scoped<ChangesPrunedTable>;
  import_map: Scoped<ImportMapTable>;
  sync_state: SyncStateTable;
  webhook_endpoints: Scoped<WebhookEndpointsTable>;
  webhook_deliveries: Scoped<WebhookDeliveriesTable>;
  webhook_attempts: Scoped<WebhookAttemptsTable>;
  event_series: Scoped<EventSeriesTable>;
  event_occurrences: Scoped<EventOccurrencesTable>;
  occurrence_moves: Scoped<OccurrenceMovesTable>;
  preview_revocations: Scoped<PreviewRevocationsTable>;
  submissions: Scoped<SubmissionsTable>;
  submission_log: Scoped<SubmissionLogTable>;
  submission_quota: Scoped<SubmissionQuotaTable>;
  submission_pow_used: SubmissionPowUsedTable;
  calendars: CalendarsTable;
  calendar_roles: CalendarRolesTable;
  calendar_settings: CalendarSettingsTable;
  calendar_follows: Scoped<CalendarFollowsTable>;
  network_sources: Scoped<NetworkSourcesTable>;
  network_linked: Scoped<NetworkLinkedTable>;
}

/** A day a moved occurrence was at (migration 028): its old address answers 301 to its new one. */
export interface OccurrenceMovesTable {
  series_id: number;
  day: string;
  post_id: number;
}

/** When an event was last trashed (migration 028): its preview links issued before no longer open it. */
export interface PreviewRevocationsTable {
  post_id: number;
  revoked_ms: ColumnType<number, number, number>;
}

/** A community submission (migration 015). */
export interface SubmissionsTable {
  id: Generated<number>;
  token_hash: string;
  link_salt: string;
  event_id: number;
  status: string;
  user_id: ColumnType<number, number | undefined, number>;
  name: ColumnType<string, string | undefined, string>;
  email: ColumnType<string, string | undefined, string>;
  ip: ColumnType<string, string | undefined, string>;
  locale: ColumnType<string, string | undefined, string>;
  reason: ColumnType<string, string | undefined, string>;
  flags: ColumnType<string, string | undefined, string>;
  new_venue_id: ColumnType<number | null, number | null | undefined, number | null>;
  new_organizer_ids: ColumnType<string, string | undefined, string>;
  publish_at_gmt: ColumnType<string | null, string | null | undefined, string | null>;
  notified: ColumnType<number, number | undefined, number>;
  created_gmt: string;
  updated_gmt: string;
  decided_gmt: ColumnType<string | null, string | null | undefined, string | null>;
  erased_gmt: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The moderation log (migration 015). */
export interface SubmissionLogTable {
  id: Generated<number>;
  submission_id: number;
  actor_id: number;
  actor: string;
  action: string;
  reason: string;
  detail: string;
  created_gmt: string;
}

/** A place taken in a per-address or per-e-mail submission limit (migration 018). */
export interface SubmissionQuotaTable {
  id: Generated<number>;
  /** SHA-256 (hex) of `ip:<client key>` or `email:<address>` */
  key_hash: string;
  created_gmt: string;
}

/** A proof-of-work solution already accepted, until its challenge expires (migration 018). */
export interface SubmissionPowUsedTable {
  signature: string;
  expires_gmt: string;
}

/** A recurring event's rules (migration 010; the series is a `tribe_event_series` post). */
export interface EventSeriesTable {
  post_id: number;
  /** JSON array of the normalised recurrence lines */
  rules: string;
  /** occurrences exist for starts before this wall time (the event's zone) */
  horizon_local: string;
  complete: number;
  hide_from_listings: number;
}

/** An occurrence of a series (migration 010): an event post keyed by its series and generated start. */
export interface EventOccurrencesTable {
  post_id: number;
  series_id: number;
  original_start: string;
  exception: number;
}

/** This database's id (one row, id 1): see migration 007. */
export interface SyncStateTable {
  id: number;
  database_id: string;
}

/** Webhook endpoints (migration 007, `src/webhooks/`). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  url: string;
  secret: string;
  /** JSON array of event types, or ["*"] */
  events: string;
  description: string;
  enabled: number;
  disabled_reason: string | null;
  /** every change up to this sequence number has been turned into deliveries */
  cursor_seq: number;
  /** ms since the epoch of the first failure since the last success */
  failing_since: number | null;
  created_gmt: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: number;
  seq: number;
  idx: number;
  /** 'event:42': deliveries of one record go out in order */
  record_key: string;
  type: string;
  payload: string;
  /** pending, succeeded, failed */
  status: string;
  attempts: number;
  next_attempt_ms: number;
  lease_until_ms: number;
  first_attempt_ms: number | null;
  last_response_code: number | null;
  created_gmt: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_gmt: string;
  outcome: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A database handle or an open transaction: store functions take either. */
export type Executor = Kysely<Database>;

export type PostRow = Selectable<PostsTable>;
export type NewPost = Insertable<PostsTable>;
export type PostUpdate = Updateable<PostsTable>;
export type EventRow = Selectable<EventsTable>;
export type VenueRow = Selectable<VenuesTable>;
export type OrganizerRow = Selectable<OrganizersTable>;
export type TermRow = Selectable<TermsTable>;
export type ImageRow = Selectable<ImagesTable>;
export type UserRow = Selectable<UsersTable>;
export type AppPasswordRow = Selectable<AppPasswordsTable>;
