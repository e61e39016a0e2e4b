/**
 * Writing the change log (migration 005): the store's write functions note which records they
 * touch on the transaction they run in; `writeTransaction` appends those notes to `changes` as the
 * transaction's last statements, under one sequence number taken from `change_counter`.
 *
 * Noting happens in the store, next to each write, so no write path can forget it. For events, the
 * first note of a transaction also keeps the event's listing fields as they were before (status,
 * dates, flags, venue, terms, organizers): readers that keep list totals adjust them from the
 * before and after states instead of counting again (`change-feed.ts`).
 *
 * @example
 *   await writeTransaction(db, async (trx) => {
 *     await updatePost(trx, 42, { title: 'New' }); // notes ('event', 42, 'update') with its before state
 *   });
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';

/** Kinds of records in the log. `all` (action `reset`): anything may have changed (bulk loads). */
export type RecordType = 'event' | 'venue' | 'organizer' | 'term' | 'image' | 'all' | 'lists';
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
  terms: number[];
  organizers: number[];
}

/** The detail of an event change: its listing state before the write (null: it did not exist). */
export interface EventChangeDetail {
  before: ListingState | null;
  /** title, description or excerpt changed */
  text: boolean;
}

interface Pending {
  type: RecordType;
  id: number;
  action: ChangeAction;
  detail?: EventChangeDetail;
}

const pendingByTrx = new WeakMap<object, Map<string, Pending>>();

const POST_TYPES: Record<string, RecordType> = { tribe_events: 'event', tribe_venue: 'venue', tribe_organizer: 'organizer' };

/** The record type of a post type. */
export function recordTypeOfPost(postType: string): RecordType {
  return POST_TYPES[postType] ?? 'event';
}

const RANK: Record<ChangeAction, number> = { update: 0, create: 1, trash: 2, delete: 3, reset: 4 };

function pendingOf(db: Executor): Map<string, Pending> | undefined {
  if (!db.isTransaction) return undefined;
  let pending = pendingByTrx.get(db);
  if (!pending) pendingByTrx.set(db, (pending = new Map()));
  return pending;
}

/**
 * Note that a write touched a record. Outside a transaction the note is written at once (its own
 * sequence number); inside one it waits for `flushChanges`.
 */
export async function noteChange(db: Executor, type: RecordType, id: number, action: ChangeAction, detail?: EventChangeDetail): Promise<void> {
  const pending = pendingOf(db);
  if (!pending) {
    await appendChanges(db, [{ type, id, action, ...(detail ? { detail } : {}) }]);
    return;
  }
  const key = `${type}:${id}`;
  const known = pending.get(key);
  if (!known) pending.set(key, { type, id, action, ...(detail ? { detail } : {}) });
  // A record created in this transaction stays a create (unless deleted again); otherwise the
  // strongest action wins (update < trash < delete).
  else if (known.action === 'create' ? action === 'delete' : RANK[action] > RANK[known.action]) known.action = action;
}

/** Note several records of one type at once (no before states: list readers recount). */
export async function noteChanges(db: Executor, type: RecordType, ids: Iterable<number>, action: ChangeAction): Promise<void> {
  for (const id of new Set(ids)) await noteChange(db, type, id, action);
}

/**
 * Before an event's listing fields, links or text change: note the change, keeping its state before
 * the write when this is the transaction's first note of it. `text` says the write changes its text.
 */
export async function noteEventBefore(db: Executor, id: number, text = false, action: ChangeAction = 'update'): Promise<void> {
  const pending = pendingOf(db);
  const known = pending?.get(`event:${id}`);
  if (known) {
    if (text && known.detail) known.detail.text = true;
    await noteChange(db, 'event', id, action);
    return;
  }
  const [before] = await readListingStates(db, [id]);
  await noteChange(db, 'event', id, action, { before: before ?? null, text });
}

/**
 * Before a post changes (any type): events keep their before state (see `noteEventBefore`); venues
 * and organizers are noted by type.
 */
export async function notePostBefore(db: Executor, id: number, text: boolean, action: ChangeAction = 'update'): Promise<void> {
  const pending = pendingOf(db);
  if (pending) {
    for (const type of ['event', 'venue', 'organizer'] as const) {
      const known = pending.get(`${type}:${id}`);
      if (known) {
        if (text && known.detail) known.detail.text = true;
        await noteChange(db, type, id, action);
        return;
      }
    }
  }
  const row = await db.selectFrom('posts').select('type').where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const type = recordTypeOfPost(row.type);
  if (type === 'event') await noteEventBefore(db, id, text, action);
  else await noteChange(db, type, id, action);
}

/** Whether this record was created in this transaction (it has no links yet, nothing to replace). */
export function isCreatedHere(db: Executor, type: RecordType, id: number): boolean {
  return pendingByTrx.get(db)?.get(`${type}:${id}`)?.action === 'create';
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
        .select(['posts.id', 'posts.status', 'posts.author_id', 'posts.parent_id', 'posts.date_gmt', 'events.start_local', 'events.end_local', 'events.hide_from_listings', 'events.featured', 'events.venue_id'])
        .select(['venues.geo_lat as venue_lat', 'venues.geo_lng as venue_lng'])
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

function nowGmt(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

/** Take the next sequence number and write these notes under it. Returns the number. */
async function appendChanges(db: Executor, notes: Pending[]): Promise<number> {
  const r = await sql<{ value: number | string }>`update "change_counter" set "value" = "value" + 1 where "id" = 1 returning "value"`.execute(db);
  const seq = Number(r.rows[0]!.value);
  const created = nowGmt();
  for (let i = 0; i < notes.length; i += 200) {
    await db
      .insertInto('changes')
      .values(
        notes.slice(i, i + 200).map((n, j) => ({
          seq,
          idx: i + j,
          record_type: n.type,
          record_id: n.id,
          action: n.action,
          detail: n.detail ? JSON.stringify(n.detail) : null,
          created_gmt: created,
        })),
      )
      .execute();
  }
  return seq;
}

/** Write the notes of a transaction to the log (its last statements). Nothing noted: nothing written. */
export async function flushChanges(trx: Executor): Promise<number | undefined> {
  const pending = pendingByTrx.get(trx);
  if (!pending || pending.size === 0) return undefined;
  pendingByTrx.delete(trx);
  return appendChanges(trx, [...pending.values()]);
}

/**
 * Run a write in a transaction and log what it touched, in the same transaction.
 *
 * @example const id = await writeTransaction(db, (trx) => insertPost(trx, post));
 */
export async function writeTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(async (trx) => {
    const out = await fn(trx);
    await flushChanges(trx);
    return out;
  });
}

/** A change as read back from the log. */
export interface ChangeRow {
  seq: number;
  type: RecordType;
  id: number;
  action: ChangeAction;
  detail: EventChangeDetail | null;
}

/** Changes after `seq` up to `until` (inclusive), in order; at most `limit` rows. */
export async function readChangesSince(db: Executor, seq: number, until: number, limit: number): Promise<ChangeRow[]> {
  const rows = await db
    .selectFrom('changes')
    .select(['seq', 'idx', 'record_type', 'record_id', 'action', 'detail'])
    .where('seq', '>', seq)
    .where('seq', '<=', until)
    .orderBy('seq')
    .orderBy('idx')
    .limit(limit)
    .execute();
  return rows.map(toChangeRow);
}

/** A raw log row as a `ChangeRow`. */
export function toChangeRow(r: { seq: number | string; record_type: string; record_id: number | string; action: string; detail: string | null }): ChangeRow {
  return {
    seq: Number(r.seq),
    type: r.record_type as RecordType,
    id: Number(r.record_id),
    action: r.action as ChangeAction,
    detail: r.detail ? (JSON.parse(r.detail) as EventChangeDetail) : null,
  };
}

/** The sequence number of the last committed write, read on `db`. */
export async function lastSeq(db: Executor): Promise<number> {
  const r = await sql<{ value: number | string }>`select "value" from "change_counter" where "id" = 1`.execute(db);
  return Number(r.rows[0]?.value ?? 0);
}
