/**
 * What the change log records of a change (migration 005): the kinds of records and actions, and
 * an event's listing state, the fields the event list filters and orders on, which the first note
 * of an event in a write keeps as it was before (`change-notes.ts`), so that readers keeping list totals
 * adjust them from the before and after states (`change-feed.ts`).
 *
 * @example await readListingStates(db, [42]) // [{ id: 42, status: 'publish', start_local: '2027-03-01 20:00:00', … }]
 */
import type { Executor } from './schema.js';

/**
 * Kinds of records in the log. `all` (action `reset`): anything may have changed (bulk loads).
 * `user`: a user account or role changed (servers drop who they keep authenticated; sync tokens and
 * webhooks do not report users; every calendar's revision moves, since any calendar may show it).
 * `credentials`: a user's sessions, application passwords or second factor changed: servers drop
 * who they keep authenticated, as for `user`, and no calendar's revision moves (no answer shows them). `role`: an
 * account's role in a calendar other than the default one changed (its row names that calendar):
 * that calendar's revision moves, no other's. `submission`: a community submission was received or
 * decided (only webhooks read it, as `submission.*` types; its detail says which).
 */
export type RecordType = 'event' | 'venue' | 'organizer' | 'term' | 'image' | 'user' | 'credentials' | 'role' | 'submission' | 'all' | 'lists' | 'settings';
export type ChangeAction = 'create' | 'update' | 'trash' | 'delete' | 'reset';

/** What the event list filters and orders on, for one event. */
export interface ListingState {
  id: number;
  status: string;
  author_id: number;
  parent_id: number;
  date_gmt: string;
  start_local: string;
  end_local: string;
  hide_from_listings: number;
  featured: number;
  venue_id: number | null;
  /**
   * The venue's coordinates (null: none, or no venue), for the geolocation filters. Undefined in
   * states logged before they were kept (migration 009): then a geo-filtered list cannot tell.
   */
  venue_lat?: number | null;
  venue_lng?: number | null;
  /**
   * Whether the event is password-protected (a visitor's search leaves it out). Undefined in
   * states logged before it was kept: then such a search cannot tell.
   */
  protected?: boolean;
  terms: number[];
  organizers: number[];
}

/** The detail of an event change: its listing state before the write (null: it did not exist). */
export interface EventChangeDetail {
  before: ListingState | null;
  /** title, description or excerpt changed */
  text: boolean;
}

/**
 * The detail of a venue, organizer or term change (for sync tokens): a post's status and
 * author before the write (null: it did not exist), a deleted term's taxonomy.
 */
export interface RecordChangeDetail {
  before?: { status: string; author_id: number } | null;
  taxonomy?: string;
  /**
   * A term whose published-event count alone moved, by this much (an event linked or unlinked):
   * readers that keep term rows adjust them instead of reading them again.
   */
  count?: number;
  /** A submission's event: received, approved, rejected, changes_requested. */
  submission?: string;
  /** A `settings` change: every calendar setting stored in the database after it (variable → text). */
  settings?: Record<string, string>;
}
/** The columns a listing state is read from (numbers may arrive as strings from PostgreSQL). */
export interface ListingRow {
  id: number | string;
  status: string;
  author_id: number | string;
  parent_id: number | string;
  date_gmt: string;
  start_local: string;
  end_local: string;
  hide_from_listings: number | string;
  featured: number | string;
  venue_id: number | string | null;
  venue_lat: number | string | null;
  venue_lng: number | string | null;
  /** the post's password is not empty (SQLite: 0 or 1; PostgreSQL: a boolean) */
  protected: number | string | boolean | null;
}

/** A listing state from its row and the event's term and organizer ids. */
export function listingStateOf(r: ListingRow, terms: number[], organizers: number[]): ListingState {
  return {
    id: Number(r.id),
    status: r.status,
    author_id: Number(r.author_id),
    parent_id: Number(r.parent_id),
    date_gmt: r.date_gmt,
    start_local: r.start_local,
    end_local: r.end_local,
    hide_from_listings: Number(r.hide_from_listings),
    featured: Number(r.featured),
    venue_id: r.venue_id === null ? null : Number(r.venue_id),
    venue_lat: r.venue_id === null || r.venue_lat === null || r.venue_lat === undefined ? null : Number(r.venue_lat),
    venue_lng: r.venue_id === null || r.venue_lng === null || r.venue_lng === undefined ? null : Number(r.venue_lng),
    protected: r.protected === true || r.protected === 1 || r.protected === '1' || r.protected === 'true',
    terms,
    organizers,
  };
}

/**
 * The listing states of these events (events only; other ids are left out), read on `db`.
 *
 * @example await readListingStates(db, [42]) // [{ id: 42, status: 'publish', start_local: '2027-03-01 20:00:00', … }]
 */
export async function readListingStates(db: Executor, ids: number[]): Promise<ListingState[]> {
  if (ids.length === 0) return [];
  const out: ListingState[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const [rows, terms, organizers] = await Promise.all([
      db
        .selectFrom('posts')
        .innerJoin('events', 'events.post_id', 'posts.id')
        .leftJoin('venues', 'venues.post_id', 'events.venue_id')
        .select([
          'posts.id',
          'posts.status',
          'posts.author_id',
          'posts.parent_id',
          'posts.date_gmt',
          'events.start_local',
          'events.end_local',
          'events.hide_from_listings',
          'events.featured',
          'events.venue_id',
        ])
        .select(['venues.geo_lat as venue_lat', 'venues.geo_lng as venue_lng'])
        .select((eb) => eb('posts.password', '<>', '').as('protected'))
        .where('posts.id', 'in', chunk)
        .execute(),
      db.selectFrom('event_terms').select(['event_id', 'term_id']).where('event_id', 'in', chunk).execute(),
      db.selectFrom('event_organizers').select(['event_id', 'organizer_id']).where('event_id', 'in', chunk).execute(),
    ]);
    const byId = new Map<number, ListingState>();
    for (const r of rows) {
      const state = listingStateOf(r, [], []);
      byId.set(state.id, state);
      out.push(state);
    }
    for (const t of terms) byId.get(Number(t.event_id))?.terms.push(Number(t.term_id));
    for (const o of organizers) byId.get(Number(o.event_id))?.organizers.push(Number(o.organizer_id));
  }
  return out;
}
