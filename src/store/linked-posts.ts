/**
 * Venue and organizer queries. Both are "linked posts": a post row plus a detail table; one
 * implementation serves both, with the differences as data (`LINKED_KINDS`).
 *
 * @example
 *   const rows = await findLinkedByIds(db, 'venue', [4, 5]);
 */
import { byChunks, inList } from './lists.js';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Executor, OrganizerRow, PostRow, PostType, VenueRow } from './schema.js';
import { readOffLoop, type DialectName } from './handle.js';
import { dataRevision, linkedDataRevision, revisionMemo, stampRevision } from './revision.js';
import { noteChange, noteChanges } from './change-notes.js';
import { storedIds } from './ranges.js';
import { nearCondition, type NearFilter } from './geo.js';

export type LinkedKind = 'venue' | 'organizer';

export interface LinkedKindInfo {
  postType: PostType;
  table: 'venues' | 'organizers';
  /** detail columns, in storage order */
  columns: readonly string[];
  /** detail columns the list `search` looks in (besides title, content and excerpt) */
  searchColumns: readonly string[];
}

export const LINKED_KINDS: Record<LinkedKind, LinkedKindInfo> = {
  venue: {
    postType: 'tribe_venue',
    table: 'venues',
    columns: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'],
    searchColumns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  },
  organizer: {
    postType: 'tribe_organizer',
    table: 'organizers',
    columns: ['phone', 'website', 'email'],
    searchColumns: ['phone', 'email', 'website'],
  },
};

export type VenueRecord = PostRow & Omit<VenueRow, 'post_id'>;
export type OrganizerRecord = PostRow & Omit<OrganizerRow, 'post_id'>;
export type LinkedRecord = VenueRecord | OrganizerRecord;

/** Records of this kind for these ids (any status). */
export async function findLinkedByIds(db: Executor, kind: LinkedKind, ids: number[]): Promise<LinkedRecord[]> {
  ids = storedIds(ids);
  if (ids.length === 0) return [];
  const info = LINKED_KINDS[kind];
  const rows = await byChunks(ids, (chunk) =>
    db
      .selectFrom('posts')
      .innerJoin(info.table as 'venues', `${info.table}.post_id` as 'venues.post_id', 'posts.id')
      .selectAll('posts')
      .select(info.columns.map((c) => `${info.table}.${c}`) as never[])
      .where('posts.id', 'in', chunk)
      .where('posts.type', '=', info.postType)
      .execute(),
  );
  return rows as unknown as LinkedRecord[];
}

/** Insert the detail row of a linked post. */
export async function insertLinkedDetails(db: Executor, kind: LinkedKind, postId: number, details: Record<string, unknown>): Promise<void> {
  const info = LINKED_KINDS[kind];
  await noteChange(db, kind, postId, 'update');
  await db
    .insertInto(info.table as 'venues')
    .values({ post_id: postId, ...details } as never)
    .execute();
}

/** Change detail columns of a linked post. */
export async function updateLinkedDetails(db: Executor, kind: LinkedKind, postId: number, details: Record<string, unknown>): Promise<void> {
  if (Object.keys(details).length === 0) return;
  const info = LINKED_KINDS[kind];
  await noteChange(db, kind, postId, 'update');
  await db
    .updateTable(info.table as 'venues')
    .set(details as never)
    .where('post_id', '=', postId)
    .execute();
}

/** Remove every link from events to this venue or organizer (when it is trashed). */
export async function unlinkFromEvents(db: Executor, kind: LinkedKind, postId: number): Promise<number[]> {
  // Any number of events lose a link: their representations change, event lists are recomputed.
  await noteChange(db, 'lists', 0, 'reset');
  if (kind === 'venue') {
    const rows = await db.selectFrom('events').select('post_id').where('venue_id', '=', postId).execute();
    await db.updateTable('events').set({ venue_id: null }).where('venue_id', '=', postId).execute();
    await noteChanges(
      db,
      'event',
      rows.map((r) => Number(r.post_id)),
      'update',
    );
    return rows.map((r) => Number(r.post_id));
  }
  const rows = await db.selectFrom('event_organizers').select('event_id').where('organizer_id', '=', postId).execute();
  await db.deleteFrom('event_organizers').where('organizer_id', '=', postId).execute();
  await noteChanges(
    db,
    'event',
    rows.map((r) => Number(r.event_id)),
    'update',
  );
  return rows.map((r) => Number(r.event_id));
}

/** Id of the record of this kind with this slug, among trashed or among not-trashed records. */
export async function findLinkedIdBySlug(db: Executor, kind: LinkedKind, slug: string, trashed: boolean): Promise<number | undefined> {
  const row = await db
    .selectFrom('posts')
    .select('id')
    .where('type', '=', LINKED_KINDS[kind].postType)
    .where('slug', '=', slug)
    .where('status', trashed ? '=' : '!=', 'trash')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** Which linked events count for a filter: their statuses, and optionally "published or by this author". */
export interface LinkedEventScope {
  statuses: readonly string[];
  onlyPublishedOrAuthor?: number;
}

/** Linked-post list filter (resolved by the domain). */
export interface LinkedListFilter {
  statuses: readonly string[];
  /** non-editors: only published records and their own (COMPAT decision 11) */
  onlyPublishedOrAuthor?: number;
  /** fragments that must all occur in one of the searched fields */
  searchFragments?: string[];
  /**
   * With `searchFragments`: password-protected records are left out, whatever matched (WordPress'
   * search for a visitor who is not signed in: the words of a protected content are no oracle).
   */
  searchPublicOnly?: boolean;
  /** only those linked to this event (whatever its status) */
  eventId?: number;
  /** true: linked to some event in scope; false: to none */
  hasEvents?: { value: boolean; events: LinkedEventScope };
  /** only those linked to an event in scope, not hidden from listings, that ends at or after this UTC wall time */
  upcoming?: { fromUtc: string; events: LinkedEventScope };
  /** only these ids (sync tokens) */
  ids?: number[];
  /** venues: with coordinates, and with `near` inside that circle (box, then distance) */
  geo?: { near?: NearFilter };
}

/** Ids of the linked posts of this kind that some event in scope links to. */
function linkedIdsOfEvents(kind: LinkedKind, eb: ExpressionBuilder<Database, 'posts'>, scope: LinkedEventScope, extra?: (q: any) => any) {
  let q: any =
    kind === 'venue'
      ? eb.selectFrom('events').innerJoin('posts as ep', 'ep.id', 'events.post_id').select('events.venue_id').where('events.venue_id', 'is not', null)
      : eb
          .selectFrom('event_organizers')
          .innerJoin('events', 'events.post_id', 'event_organizers.event_id')
          .innerJoin('posts as ep', 'ep.id', 'event_organizers.event_id')
          .select('event_organizers.organizer_id');
  q = q.where('ep.status', 'in', [...scope.statuses]);
  if (scope.onlyPublishedOrAuthor !== undefined) {
    const author = scope.onlyPublishedOrAuthor;
    q = q.where((w: any) => w.or([w('ep.status', '=', 'publish'), w('ep.author_id', '=', author)]));
  }
  return extra ? extra(q) : q;
}

function applyLinkedFilter(kind: LinkedKind, dialect: DialectName, q: any, f: LinkedListFilter, withSearch: boolean): any {
  const info = LINKED_KINDS[kind];
  q = q.where('posts.type', '=', info.postType).where('posts.status', 'in', [...f.statuses]);
  // A long list is bound as one value (lists.ts).
  if (f.ids) {
    const ids = f.ids;
    q = q.where((eb: any) => inList(eb, dialect, 'posts.id', ids.length ? ids : [0]));
  }
  if (f.onlyPublishedOrAuthor !== undefined) {
    const author = f.onlyPublishedOrAuthor;
    q = q.where((eb: any) => eb.or([eb('posts.status', '=', 'publish'), eb('posts.author_id', '=', author)]));
  }
  if (withSearch && f.searchFragments && f.searchFragments.length) {
    const fields = ['posts.title', 'posts.content', 'posts.excerpt', ...info.searchColumns.map((c) => `${info.table}.${c}`)];
    const op = dialect === 'postgres' ? sql`ILIKE` : sql`LIKE`;
    const frags = f.searchFragments;
    q = q.where((eb: any) => eb.or(fields.map((field) => eb.and(frags.map((frag) => eb(sql.ref(field), op, sql`${'%' + frag.replace(/[\\%_]/g, (c) => '\\' + c) + '%'} ESCAPE '\\'`))))));
    if (f.searchPublicOnly) q = q.where('posts.password', '=', '');
  }
  if (f.eventId !== undefined) {
    const eventId = f.eventId;
    if (kind === 'venue') q = q.where('posts.id', 'in', (eb: any) => eb.selectFrom('events').select('venue_id').where('post_id', '=', eventId));
    else q = q.where('posts.id', 'in', (eb: any) => eb.selectFrom('event_organizers').select('organizer_id').where('event_id', '=', eventId));
  }
  if (f.hasEvents !== undefined) {
    const { value, events } = f.hasEvents;
    q = q.where((eb: any) => eb('posts.id', value ? 'in' : 'not in', linkedIdsOfEvents(kind, eb, events)));
  }
  if (f.geo !== undefined && kind === 'venue') {
    q = q.where('venues.geo_lat', 'is not', null).where('venues.geo_lng', 'is not', null);
    if (f.geo.near) q = q.where(nearCondition(f.geo.near, 'venues.geo_lat', 'venues.geo_lng'));
  }
  if (f.upcoming !== undefined) {
    const { fromUtc, events } = f.upcoming;
    q = q.where('posts.id', 'in', (eb: any) => linkedIdsOfEvents(kind, eb, events, (sub) => sub.where('events.end_utc', '>=', fromUtc).where('events.hide_from_listings', '=', 0)));
  }
  return q;
}

const linkedTotals = revisionMemo<number>(1000, 'linked_totals');
const linkedPages = revisionMemo<LinkedRecord[]>(1000, 'linked_pages');
/** Pages and totals of lists filtered by their events (`eventId`, `hasEvents`, `upcoming`): kept for the data revision. */
const linkedByEventsTotals = revisionMemo<number>(1000, 'linked_by_events_totals');
const linkedByEventsPages = revisionMemo<LinkedRecord[]>(1000, 'linked_by_events_pages');

/** Whether a list's records or total depend on events (not only on venues and organizers). */
function dependsOnEvents(f: LinkedListFilter): boolean {
  return f.eventId !== undefined || f.hasEvents !== undefined || f.upcoming !== undefined;
}

/**
 * One page of venues or organizers, newest publication first (WordPress' default order, by the
 * site-time publication date), and the total. When `search` matches nothing, `total` counts the
 * list without the search, as the original does.
 */
export async function findLinkedPage(
  db: Executor,
  dialect: DialectName,
  kind: LinkedKind,
  filter: LinkedListFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: LinkedRecord[]; total: number }> {
  const info = LINKED_KINDS[kind];
  // Totals are kept for a revision read before anything is counted (every venue or organizer of
  // a large calendar is read to count them): a list that does not depend on events for the
  // revision only changes to something other than events and terms move (an event create does
  // not recount them), one filtered by its events for the data revision.
  const linkedRevision = db.isTransaction ? undefined : await linkedDataRevision(db);
  const byEvents = dependsOnEvents(filter);
  const revision = linkedRevision === undefined || !byEvents ? linkedRevision : await dataRevision(db, dialect);
  const pages = byEvents ? linkedByEventsPages : linkedPages;
  const totals = byEvents ? linkedByEventsTotals : linkedTotals;
  const base = () => db.selectFrom('posts').innerJoin(info.table as 'venues', `${info.table}.post_id` as 'venues.post_id', 'posts.id');
  // The page's records are kept for the revision too. They are stamped with the linked revision
  // (see `revisionOf`): their representations depend on the records alone, not on events.
  const pageKey = `${kind}:${page.limit}:${page.offset}:${JSON.stringify(filter)}`;
  let rows = revision === undefined ? undefined : pages.at(db, revision).get(pageKey);
  // A search reads every record's fields (no index serves a fragment in any of them): off the loop.
  const searching = (filter.searchFragments?.length ?? 0) > 0;
  const read = <R>(q: { compile(): { sql: string; parameters: readonly unknown[] }; execute(): Promise<R[]> }) => (searching ? readOffLoop(db, dialect, q) : q.execute());
  if (rows === undefined) {
    rows = (await read(
      applyLinkedFilter(kind, dialect, base(), filter, true)
        .selectAll('posts')
        .select(info.columns.map((c) => `${info.table}.${c}`))
        .orderBy('posts.date_local', 'desc')
        .orderBy('posts.id', 'desc')
        .limit(page.limit)
        .offset(page.offset),
    )) as LinkedRecord[];
    if (revision !== undefined) {
      for (const row of rows) stampRevision(row, linkedRevision!);
      pages.at(db, revision).set(pageKey, rows);
    }
  }
  const countWithSearch = async (withSearch: boolean) => {
    const key = `${kind}:${withSearch}:${JSON.stringify(filter)}`;
    const kept = revision === undefined ? undefined : totals.at(db, revision).get(key);
    if (kept !== undefined) return kept;
    const [c] = (await read(applyLinkedFilter(kind, dialect, base(), filter, withSearch).select((eb: any) => eb.fn.countAll().as('n')))) as Array<{ n: number | string }>;
    const n = Number(c?.n ?? 0);
    if (revision !== undefined) totals.at(db, revision).set(key, n);
    return n;
  };
  let total = page.offset === 0 && rows.length < page.limit ? rows.length : await countWithSearch(true);
  if (total === 0 && filter.searchFragments?.length) total = await countWithSearch(false);
  return { rows: [...rows], total };
}

/**
 * Every venue not in the trash with the fields a free-text location is matched on (an import's
 * `LOCATION`): title and address lines.
 *
 * @example (await venuesForMatching(db))[0] // { id: 4, title: 'Town Hall', address: '1 Main St', city: 'Lyon', zip: '', country: 'France' }
 */
export async function venuesForMatching(db: Executor): Promise<Array<{ id: number; title: string; address: string; city: string; zip: string; country: string }>> {
  const rows = await db
    .selectFrom('posts')
    .innerJoin('venues', 'venues.post_id', 'posts.id')
    .select(['posts.id', 'posts.title', 'venues.address', 'venues.city', 'venues.zip', 'venues.country'])
    .where('posts.type', '=', 'tribe_venue')
    .where('posts.status', '!=', 'trash')
    .orderBy('posts.id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), title: r.title, address: r.address, city: r.city, zip: r.zip, country: r.country }));
}
