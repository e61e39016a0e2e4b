/**
 * Recurring events' storage (migration 010): series rows, occurrence rows, and the bulk
 * writes that materialise a series' occurrences as ordinary event posts. Every write notes what it
 * touches in the change log (change-notes.ts), as the other store modules do.
 *
 * @example
 *   const series = await findSeries(db, [42]); // Map { 42 => { rules: ['RRULE:FREQ=WEEKLY'], … } }
 */
import { chunksOf, rowsPerStatement } from './lists.js';
import type { Executor } from './schema.js';
import { acrossCalendars } from './calendar-scope.js';
import type { EventRecord } from './events.js';
import { addTermCounts, isPostgres, noteChange, noteChanges } from './change-notes.js';
import { readListingStates } from './listing-states.js';
import { recountTerms } from './terms.js';
import { revokePreviews } from './previews.js';
import { afterExplicitId, takeWantedOccurrenceIds } from './import-context.js';

/** A series row. */
export interface SeriesRow {
  post_id: number;
  rules: string[];
  horizon_local: string;
  complete: boolean;
  /** occurrences before the horizon are left to generate: the horizon job continues from `horizon_local` */
  pending: boolean;
  hide_from_listings: number;
}

/** An occurrence row with its post's status. */
export interface OccurrenceRow {
  post_id: number;
  series_id: number;
  original_start: string;
  exception: boolean;
  status: string;
}

/** What a representation of an occurrence adds: its series' lines and slug, its generated start. */
export interface OccurrenceInfo {
  series_id: number;
  original_start: string;
  rules: string[];
  series_slug: string;
}

const CHUNK = 200;
/**
 * `event_series.complete` of a series whose occurrences before its horizon are not all generated
 * yet: 0 = generated up to `horizon_local` (extended by the job once that is a day
 * behind), 1 = the rules end before it, 2 = generated up to `horizon_local`, more due now.
 */
const PENDING = 2;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  return chunksOf(items, size);
}

/** The series rows of these post ids (others are left out). */
export async function findSeries(db: Executor, ids: number[]): Promise<Map<number, SeriesRow>> {
  const out = new Map<number, SeriesRow>();
  if (ids.length === 0) return out;
  for (const chunk of chunks(ids)) {
    const rows = await db.selectFrom('event_series').selectAll().where('post_id', 'in', chunk).execute();
    for (const r of rows) {
      out.set(Number(r.post_id), {
        post_id: Number(r.post_id),
        rules: JSON.parse(r.rules) as string[],
        horizon_local: r.horizon_local,
        complete: Number(r.complete) === 1,
        pending: Number(r.complete) === PENDING,
        hide_from_listings: Number(r.hide_from_listings),
      });
    }
  }
  return out;
}

export async function insertSeries(db: Executor, row: { post_id: number; rules: string[]; horizon_local: string; complete: boolean; hide_from_listings: number }): Promise<void> {
  await db
    .insertInto('event_series')
    .values({ post_id: row.post_id, rules: JSON.stringify(row.rules), horizon_local: row.horizon_local, complete: row.complete ? 1 : 0, hide_from_listings: row.hide_from_listings })
    .execute();
}

export async function updateSeries(db: Executor, id: number, patch: { rules?: string[]; horizon_local?: string; complete?: boolean; pending?: boolean; hide_from_listings?: number }): Promise<void> {
  const set: Record<string, unknown> = {};
  if (patch.rules) set.rules = JSON.stringify(patch.rules);
  if (patch.horizon_local !== undefined) set.horizon_local = patch.horizon_local;
  if (patch.complete !== undefined || patch.pending !== undefined) set.complete = patch.pending ? PENDING : patch.complete ? 1 : 0;
  if (patch.hide_from_listings !== undefined) set.hide_from_listings = patch.hide_from_listings;
  if (Object.keys(set).length) await db.updateTable('event_series').set(set).where('post_id', '=', id).execute();
}

export async function deleteSeriesRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('event_series').where('post_id', '=', id).execute();
}

/**
 * Lock a series' row until the transaction ends (PostgreSQL `FOR UPDATE`), so that two writers
 * generating its occurrences (the horizon job and a write or an import) take turns: the second
 * reads how far the first got instead of inserting the same occurrences and losing a race on their
 * slugs again and again. SQLite runs one writer at a time: nothing to do there.
 */
export async function lockSeries(db: Executor, id: number): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('event_series').select('post_id').where('post_id', '=', id).forUpdate().execute();
}

/** The occurrences of a series, by generated start (those generated at `from` or later, when given). */
export async function occurrencesOf(db: Executor, seriesId: number, from?: string): Promise<OccurrenceRow[]> {
  let query = db
    .selectFrom('event_occurrences')
    .innerJoin('posts', 'posts.id', 'event_occurrences.post_id')
    .select(['event_occurrences.post_id', 'event_occurrences.series_id', 'event_occurrences.original_start', 'event_occurrences.exception', 'posts.status'])
    .where('event_occurrences.series_id', '=', seriesId);
  if (from !== undefined) query = query.where('event_occurrences.original_start', '>=', from);
  const rows = await query.orderBy('event_occurrences.original_start').execute();
  return rows.map((r) => ({ post_id: Number(r.post_id), series_id: Number(r.series_id), original_start: r.original_start, exception: Number(r.exception) === 1, status: r.status }));
}

/** The occurrence row of one event post, or undefined when it is not an occurrence. */
export async function occurrenceOf(db: Executor, id: number): Promise<OccurrenceRow | undefined> {
  const r = await db
    .selectFrom('event_occurrences')
    .innerJoin('posts', 'posts.id', 'event_occurrences.post_id')
    .select(['event_occurrences.post_id', 'event_occurrences.series_id', 'event_occurrences.original_start', 'event_occurrences.exception', 'posts.status'])
    .where('event_occurrences.post_id', '=', id)
    .executeTakeFirst();
  return r && { post_id: Number(r.post_id), series_id: Number(r.series_id), original_start: r.original_start, exception: Number(r.exception) === 1, status: r.status };
}

/** Occurrence details of these event ids, for their representations (ids that are not occurrences are left out). */
export async function occurrenceInfoOf(db: Executor, ids: number[]): Promise<Map<number, OccurrenceInfo>> {
  const out = new Map<number, OccurrenceInfo>();
  for (const chunk of chunks(ids)) {
    const rows = await db
      .selectFrom('event_occurrences')
      .innerJoin('event_series', 'event_series.post_id', 'event_occurrences.series_id')
      .innerJoin('posts', 'posts.id', 'event_occurrences.series_id')
      .select(['event_occurrences.post_id', 'event_occurrences.series_id', 'event_occurrences.original_start', 'event_series.rules', 'posts.slug'])
      .where('event_occurrences.post_id', 'in', chunk)
      .execute();
    for (const r of rows) out.set(Number(r.post_id), { series_id: Number(r.series_id), original_start: r.original_start, rules: JSON.parse(r.rules) as string[], series_slug: r.slug });
  }
  return out;
}

/** Mark occurrences as exceptions (edited or deleted one by one): regeneration leaves them alone. */
export async function markExceptions(db: Executor, ids: number[]): Promise<void> {
  for (const chunk of chunks(ids)) await db.updateTable('event_occurrences').set({ exception: 1 }).where('post_id', 'in', chunk).execute();
}

/** Move occurrences (and their posts' parent) to another series. */
export async function moveOccurrences(db: Executor, ids: number[], toSeries: number): Promise<void> {
  const states = await readListingStates(db, ids);
  for (const s of states) await noteChange(db, 'event', s.id, 'update', { before: s, text: false });
  for (const chunk of chunks(ids)) {
    await db.updateTable('event_occurrences').set({ series_id: toSeries }).where('post_id', 'in', chunk).execute();
    await db.updateTable('posts').set({ parent_id: toSeries }).where('id', 'in', chunk).execute();
  }
}

/** Detach occurrences from their series: they become single events (the series is made single again). */
export async function detachOccurrences(db: Executor, ids: number[]): Promise<void> {
  const states = await readListingStates(db, ids);
  for (const s of states) await noteChange(db, 'event', s.id, 'update', { before: s, text: false });
  for (const chunk of chunks(ids)) {
    await db.deleteFrom('event_occurrences').where('post_id', 'in', chunk).execute();
    await db.updateTable('posts').set({ parent_id: 0 }).where('id', 'in', chunk).execute();
  }
}

/** One occurrence to insert: its schedule and slug. */
export interface NewOccurrence {
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  slug: string;
}

/**
 * The slugs among `candidates` that event posts use already. (Not locked: a concurrent create that
 * takes one meets the unique index, and the write runs again, `isLostRace`.)
 */
export async function takenEventSlugs(db: Executor, candidates: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const chunk of chunks(candidates, 500)) {
    const rows = await db.selectFrom('posts').select('slug').where('type', '=', 'tribe_events').where('slug', 'in', chunk).execute();
    for (const r of rows) out.add(r.slug);
  }
  return out;
}

/** The fields every generated occurrence copies from its series. */
export interface SeriesCopy {
  series: EventRecord;
  hideFromListings: number;
  organizers: number[];
  terms: number[];
  nowLocal: string;
  nowGmt: string;
}

/** The `events` columns every occurrence copies from its series (all but its dates). */
function eventColumnsOf(copy: SeriesCopy) {
  const s = copy.series;
  return {
    timezone: s.timezone,
    all_day: Number(s.all_day),
    cost: s.cost,
    currency_symbol: s.currency_symbol,
    currency_position: s.currency_position,
    website: s.website,
    show_map: Number(s.show_map),
    show_map_link: Number(s.show_map_link),
    hide_from_listings: copy.hideFromListings,
    sticky: Number(s.sticky),
    featured: Number(s.featured),
    venue_id: s.venue_id === null ? null : Number(s.venue_id),
  };
}

/** The series' organizer and term links for these occurrences (rows in statements of a bounded size, lists.ts). */
async function insertLinks(db: Executor, ids: number[], copy: SeriesCopy): Promise<void> {
  const organizers = ids.flatMap((event_id) => copy.organizers.map((organizer_id, position) => ({ event_id, organizer_id, position })));
  for (const rows of chunksOf(organizers, rowsPerStatement(3))) await db.insertInto('event_organizers').values(rows).execute();
  const terms = ids.flatMap((event_id) => copy.terms.map((term_id) => ({ event_id, term_id })));
  for (const rows of chunksOf(terms, rowsPerStatement(2))) await db.insertInto('event_terms').values(rows).execute();
}

/**
 * Insert occurrences of a series as event posts (one statement per table and chunk), with their
 * links, occurrence rows, change log notes and term counts.
 */
export async function insertOccurrences(db: Executor, copy: SeriesCopy, occurrences: NewOccurrence[]): Promise<number[]> {
  const s = copy.series;
  const seriesId = Number(s.id);
  const ids: number[] = [];
  for (const chunk of chunks(occurrences)) {
    // An import keeps the source's occurrence ids where they are free; inserted apart
    // (a multi-row insert takes the same columns in every row).
    const wanted = await takeWantedOccurrenceIds(
      db,
      chunk.map((o) => o.start_local),
    );
    const groups = wanted.size === 0 ? [chunk] : [chunk.filter((o) => wanted.has(o.start_local)), chunk.filter((o) => !wanted.has(o.start_local))].filter((g) => g.length > 0);
    const rows: Array<{ id: number; slug: string }> = [];
    for (const group of groups) {
      rows.push(
        ...(await db
          .insertInto('posts')
          .values(
            group.map((o) => ({
              ...(wanted.has(o.start_local) ? { id: wanted.get(o.start_local)! } : {}),
              type: 'tribe_events' as const,
              author_id: Number(s.author_id),
              status: s.status,
              pre_trash_status: '',
              title: s.title,
              content: s.content,
              excerpt: s.excerpt,
              slug: o.slug,
              date_local: s.date_local,
              date_gmt: s.date_gmt,
              modified_local: copy.nowLocal,
              modified_gmt: copy.nowGmt,
              parent_id: seriesId,
              image_id: s.image_id === null ? null : Number(s.image_id),
              password: s.password,
            })),
          )
          .returning(['id', 'slug'])
          .execute()),
      );
    }
    if (wanted.size > 0) await afterExplicitId(db, 'post');
    // RETURNING gives no order guarantee: match rows by their (unique) slug.
    const idBySlug = new Map(rows.map((r) => [r.slug, Number(r.id)]));
    const chunkIds = chunk.map((o) => idBySlug.get(o.slug)!);
    await noteChanges(db, 'event', chunkIds, 'create');
    await db
      .insertInto('events')
      .values(
        chunk.map((o, i) => ({
          post_id: chunkIds[i]!,
          start_local: o.start_local,
          end_local: o.end_local,
          start_utc: o.start_utc,
          end_utc: o.end_utc,
          ...eventColumnsOf(copy),
        })),
      )
      .execute();
    await db
      .insertInto('event_occurrences')
      .values(chunk.map((o, i) => ({ post_id: chunkIds[i]!, series_id: seriesId, original_start: o.start_local, exception: 0 })))
      .execute();
    await insertLinks(db, chunkIds, copy);
    ids.push(...chunkIds);
  }
  if (s.status === 'publish' && copy.terms.length && ids.length) await addTermCounts(db, copy.terms, ids.length);
  return ids;
}

/**
 * Copy the series' fields (text, status, author, image, flags, cost, venue, organizers, terms) to
 * these occurrences, and set their schedules where given.
 */
export async function rewriteOccurrences(db: Executor, copy: SeriesCopy, ids: number[], schedules: Map<number, Omit<NewOccurrence, 'slug'>>): Promise<void> {
  if (ids.length === 0) return;
  const s = copy.series;
  const states = await readListingStates(db, ids);
  for (const st of states) await noteChange(db, 'event', st.id, 'update', { before: st, text: true });
  const oldTerms = new Set<number>();
  for (const chunk of chunks(ids)) {
    for (const r of await db.selectFrom('event_terms').select('term_id').where('event_id', 'in', chunk).execute()) oldTerms.add(Number(r.term_id));
    await db
      .updateTable('posts')
      .set({
        author_id: Number(s.author_id),
        status: s.status,
        title: s.title,
        content: s.content,
        excerpt: s.excerpt,
        date_local: s.date_local,
        date_gmt: s.date_gmt,
        modified_local: copy.nowLocal,
        modified_gmt: copy.nowGmt,
        image_id: s.image_id === null ? null : Number(s.image_id),
        password: s.password,
      })
      .where('id', 'in', chunk)
      .execute();
    await db
      .updateTable('events')
      .set({
        ...eventColumnsOf(copy),
      })
      .where('post_id', 'in', chunk)
      .execute();
    await db.deleteFrom('event_organizers').where('event_id', 'in', chunk).execute();
    await db.deleteFrom('event_terms').where('event_id', 'in', chunk).execute();
    await insertLinks(db, chunk, copy);
  }
  for (const [id, sched] of schedules) {
    await db.updateTable('events').set(sched).where('post_id', '=', id).execute();
  }
  await recountTerms(db, [...oldTerms, ...copy.terms]);
}

/** Delete occurrences outright (posts, details, links), noting each deletion and recounting their terms. */
export async function deleteOccurrences(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const states = await readListingStates(db, ids);
  for (const st of states) await noteChange(db, 'event', st.id, 'delete', { before: st, text: false });
  const terms = new Set<number>();
  for (const st of states) for (const t of st.terms) terms.add(t);
  for (const chunk of chunks(ids)) {
    await db.deleteFrom('event_terms').where('event_id', 'in', chunk).execute();
    await db.deleteFrom('event_organizers').where('event_id', 'in', chunk).execute();
    await db.deleteFrom('event_occurrences').where('post_id', 'in', chunk).execute();
    await db.deleteFrom('occurrence_moves').where('post_id', 'in', chunk).execute();
    await db.deleteFrom('events').where('post_id', 'in', chunk).execute();
    await db.deleteFrom('posts').where('id', 'in', chunk).execute();
  }
  await recountTerms(db, [...terms]);
}

/** Trash these occurrences (a series deleted), keeping each one's status before. */
export async function trashOccurrences(db: Executor, ids: number[], nowLocal: string, nowGmt: string): Promise<void> {
  if (ids.length === 0) return;
  const states = await readListingStates(db, ids);
  const terms = new Set<number>();
  for (const st of states) {
    await noteChange(db, 'event', st.id, 'trash', { before: st, text: false });
    for (const t of st.terms) terms.add(t);
  }
  for (const st of states) {
    if (st.status === 'trash') continue;
    await db.updateTable('posts').set({ status: 'trash', pre_trash_status: st.status, modified_local: nowLocal, modified_gmt: nowGmt }).where('id', '=', st.id).execute();
  }
  await revokePreviews(db, ids, Date.now());
  await recountTerms(db, [...terms]);
}

/**
 * Take these trashed posts out of the trash (a whole series restored, or one event): each gets the
 * status it had before (`pre_trash_status`, a draft when none was kept), noting each change and
 * recounting their terms. Posts not in the trash are left alone.
 */
export async function untrashPosts(db: Executor, ids: number[], nowLocal: string, nowGmt: string): Promise<void> {
  if (ids.length === 0) return;
  const states = await readListingStates(db, ids);
  const trashed = states.filter((st) => st.status === 'trash');
  if (trashed.length === 0) return;
  const terms = new Set<number>();
  for (const st of trashed) {
    await noteChange(db, 'event', st.id, 'update', { before: st, text: false });
    for (const t of st.terms) terms.add(t);
  }
  const before = new Map<number, string>();
  for (const chunk of chunks(trashed.map((st) => st.id))) {
    for (const r of await db.selectFrom('posts').select(['id', 'pre_trash_status']).where('id', 'in', chunk).execute()) before.set(Number(r.id), r.pre_trash_status);
  }
  for (const st of trashed) {
    const status = before.get(st.id) || 'draft';
    await db.updateTable('posts').set({ status, pre_trash_status: '', modified_local: nowLocal, modified_gmt: nowGmt }).where('id', '=', st.id).execute();
  }
  await recountTerms(db, [...terms]);
}

/**
 * Series of every calendar whose occurrences need generating: those left pending by a write
 * (first), then those not complete whose horizon is before `before`. Trashed series wait. Each
 * comes with its calendar: the horizon job generates it there.
 */
export async function seriesDue(db: Executor, before: string, limit: number): Promise<Array<{ id: number; calendar: number }>> {
  const due = (complete: number, horizonBefore?: string) => {
    let query = db
      .selectFrom('event_series')
      .innerJoin('posts', (j) => j.onRef('posts.id', '=', 'event_series.post_id').onRef('posts.calendar_id', '=', 'event_series.calendar_id'))
      .select(['event_series.post_id', 'event_series.calendar_id'])
      .where('event_series.complete', '=', complete)
      .where('posts.status', '!=', 'trash');
    if (horizonBefore !== undefined) query = query.where('event_series.horizon_local', '<', horizonBefore);
    return query.orderBy('event_series.horizon_local').limit(limit).execute();
  };
  return acrossCalendars(async () => {
    const rows = [...(await due(PENDING))];
    if (rows.length < limit) rows.push(...(await due(0, before)).slice(0, limit - rows.length));
    return rows.map((r) => ({ id: Number(r.post_id), calendar: Number(r.calendar_id) }));
  });
}

/**
 * Webhooks: of one write's log rows, those of occurrences whose series is logged in the
 * same write (generated, rewritten, deleted or trashed with it). The series' own message stands for
 * them, so a change to a series is delivered once. Rows are `(seq, idx, record_type, record_id,
 * detail)` as read from `changes`; the answer holds `seq:idx` keys.
 */
export async function rowsCoveredBySeries(
  db: Executor,
  rows: ReadonlyArray<{ seq: number | string; idx: number | string; record_type: string; record_id: number | string; detail: string | null }>,
): Promise<Set<string>> {
  const out = new Set<string>();
  const eventRows = rows.filter((r) => r.record_type === 'event');
  if (eventRows.length < 2) return out;
  const idsBySeq = new Map<string, Set<number>>();
  for (const r of eventRows) {
    const seq = String(r.seq);
    let ids = idsBySeq.get(seq);
    if (!ids) idsBySeq.set(seq, (ids = new Set()));
    ids.add(Number(r.record_id));
  }
  // The posts as they are now (type and parent) and, where logged, the parent before the write.
  const current = new Map<number, { type: string; parent: number }>();
  for (const chunk of chunks([...new Set(eventRows.map((r) => Number(r.record_id)))], 500)) {
    const found = await db.selectFrom('posts').select(['id', 'type', 'parent_id']).where('id', 'in', chunk).execute();
    for (const p of found) current.set(Number(p.id), { type: p.type, parent: Number(p.parent_id) });
  }
  const seriesInSeq = new Map<string, boolean>();
  for (const r of eventRows) if (current.get(Number(r.record_id))?.type === 'tribe_event_series') seriesInSeq.set(String(r.seq), true);
  for (const r of eventRows) {
    const key = `${r.seq}:${r.idx}`;
    const before = r.detail ? (JSON.parse(r.detail) as { before?: { parent_id?: number } | null }).before : undefined;
    const now = current.get(Number(r.record_id));
    const parent = before?.parent_id ?? now?.parent ?? 0;
    if (parent !== 0 && idsBySeq.get(String(r.seq))!.has(parent)) out.add(key);
    // Created with a series' write and deleted since (a later rule change): it was an occurrence.
    else if (now === undefined && !before && seriesInSeq.get(String(r.seq))) out.add(key);
  }
  return out;
}

/** The id of the series' occurrence generated on this day (`YYYY-MM-DD`), the first if several. */
export async function occurrenceIdOn(db: Executor, seriesId: number, day: string): Promise<number | undefined> {
  const r = await db
    .selectFrom('event_occurrences')
    .select('post_id')
    .where('series_id', '=', seriesId)
    .where('original_start', '>=', `${day} 00:00:00`)
    .where('original_start', '<=', `${day} 23:59:59`)
    .orderBy('original_start')
    .limit(1)
    .executeTakeFirst();
  return r ? Number(r.post_id) : undefined;
}

/**
 * The id of the series' occurrence that starts on this day (`YYYY-MM-DD`) now, wherever its rules
 * generated it (a moved occurrence's address follows its date); the first by start if several.
 */
export async function occurrenceIdStartingOn(db: Executor, seriesId: number, day: string): Promise<number | undefined> {
  const r = await db
    .selectFrom('posts')
    .innerJoin('events', 'events.post_id', 'posts.id')
    .innerJoin('event_occurrences', 'event_occurrences.post_id', 'posts.id')
    .select('posts.id')
    .where('posts.parent_id', '=', seriesId)
    .where('event_occurrences.series_id', '=', seriesId)
    .where('events.start_local', '>=', `${day} 00:00:00`)
    .where('events.start_local', '<=', `${day} 23:59:59`)
    .orderBy('events.start_local')
    .orderBy('posts.id')
    .limit(1)
    .executeTakeFirst();
  return r ? Number(r.id) : undefined;
}

/** The occurrence that was at this day before it moved (migration 028), or undefined. */
export async function movedOccurrenceFrom(db: Executor, seriesId: number, day: string): Promise<number | undefined> {
  const r = await db.selectFrom('occurrence_moves').select('post_id').where('series_id', '=', seriesId).where('day', '=', day).executeTakeFirst();
  return r ? Number(r.post_id) : undefined;
}

/** Note that an occurrence left this day (its start moved to another one): that day's address redirects to it. */
export async function noteOccurrenceMove(db: Executor, seriesId: number, day: string, postId: number): Promise<void> {
  await db.deleteFrom('occurrence_moves').where('series_id', '=', seriesId).where('day', '=', day).execute();
  await db.insertInto('occurrence_moves').values({ series_id: seriesId, day, post_id: postId }).execute();
}
