/**
 * Versions read from the change log (migration 005) for ETags, `Last-Modified` and sync tokens:
 * a record's version is the sequence number of the last change of anything its
 * representation is built from (an event: itself, its venue, its organizers and its terms), or of
 * the last bulk load (`all`), whichever is later. Migration 007's index on
 * `changes (record_type, record_id, seq)` makes each of these one index lookup.
 *
 * @example
 *   await recordVersion(db, 'event', 42) // { seq: 1043, gmt: '2026-11-23 19:40:12', deps: ['event:42', 'venue:7'] }
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { newestSeqOf, timeOf } from './change-log.js';
import { chunksOf } from './lists.js';
import { acrossCalendars, calendarFilter } from './calendar-scope.js';

export type VersionedType = 'event' | 'venue' | 'organizer' | 'term';

export interface RecordVersion {
  /** sequence number of the last change (0: none logged) */
  seq: number;
  /** when it was committed (UTC, `YYYY-MM-DD HH:MM:SS`), undefined when nothing is logged */
  gmt: string | undefined;
  /** the records the version covers (`event:42`, `venue:7`, …), for keeping it until one changes */
  deps: string[];
}

/** The records a representation of this record is built from. */
async function depsOf(db: Executor, type: VersionedType, id: number): Promise<Array<[string, number]>> {
  const deps: Array<[string, number]> = [[type, id]];
  if (type !== 'event') return deps;
  const [venue, organizers, terms] = await Promise.all([
    db.selectFrom('events').select('venue_id').where('post_id', '=', id).executeTakeFirst(),
    db.selectFrom('event_organizers').select('organizer_id').where('event_id', '=', id).execute(),
    db.selectFrom('event_terms').select('term_id').where('event_id', '=', id).execute(),
  ]);
  if (venue?.venue_id !== null && venue?.venue_id !== undefined) deps.push(['venue', Number(venue.venue_id)]);
  for (const o of organizers) deps.push(['organizer', Number(o.organizer_id)]);
  for (const t of terms) deps.push(['term', Number(t.term_id)]);
  return deps;
}

/** The version of one record, read on `db` (a handle or a transaction). */
export async function recordVersion(db: Executor, type: VersionedType, id: number): Promise<RecordVersion> {
  const deps = await depsOf(db, type, id);
  const seq = await newestSeqOf(db, deps);
  const gmt = seq > 0 ? await timeOf(db, seq) : undefined;
  return { seq, gmt, deps: deps.map(([t, i]) => `${t}:${i}`) };
}

/**
 * PostgreSQL, inside a write transaction: lock the record's row (`select … for update`) so that
 * its version read next holds until the commit (SQLite's write transactions hold the database lock).
 */
export async function lockRecord(trx: Executor, type: VersionedType, id: number): Promise<void> {
  if (type === 'term') await sql`select "id" from "terms" where "id" = ${id}${calendarFilter('terms')} for update`.execute(trx);
  else await sql`select "id" from "posts" where "id" = ${id}${calendarFilter('posts')} for update`.execute(trx);
}

/**
 * When the change with this sequence number was committed (undefined: not in the log). Read across
 * calendars: a calendar's position (`ChangeFeed.here`) may be a change of people, which is
 * logged in the calendar it was made in, and its time is every calendar's.
 */
export function changeTime(db: Executor, seq: number): Promise<string | undefined> {
  return acrossCalendars(() => timeOf(db, seq));
}

/** This database's id (migration 007), made when it was migrated. */
export async function databaseId(db: Executor): Promise<string> {
  const row = await db.selectFrom('sync_state').select('database_id').where('id', '=', 1).executeTakeFirst();
  return row?.database_id ?? '';
}

/**
 * The versions of many events at once (a CalDAV calendar lists thousands), equal to
 * `recordVersion(db, 'event', id)` for each: their venues, organizers and terms read in a few
 * statements per ID_CHUNK events, the newest change of each distinct record once (the terms and
 * venues events share are looked up once, not per event), the last bulk load once, and the times
 * of the sequence numbers found.
 *
 * @example await eventVersions(db, [42, 43]) // Map { 42 => { seq: 1043, gmt: '…', deps: ['event:42', 'venue:7'] }, … }
 */
export async function eventVersions(db: Executor, ids: readonly number[]): Promise<Map<number, RecordVersion>> {
  const deps = new Map<number, Array<[string, number]>>(ids.map((id) => [id, [['event', id]]]));
  for (const chunk of chunksOf([...new Set(ids)])) {
    const [venues, organizers, terms] = await Promise.all([
      db.selectFrom('events').select(['post_id', 'venue_id']).where('post_id', 'in', chunk).execute(),
      db.selectFrom('event_organizers').select(['event_id', 'organizer_id']).where('event_id', 'in', chunk).execute(),
      db.selectFrom('event_terms').select(['event_id', 'term_id']).where('event_id', 'in', chunk).execute(),
    ]);
    for (const v of venues) if (v.venue_id !== null && v.venue_id !== undefined) deps.get(Number(v.post_id))!.push(['venue', Number(v.venue_id)]);
    for (const o of organizers) deps.get(Number(o.event_id))!.push(['organizer', Number(o.organizer_id)]);
    for (const t of terms) deps.get(Number(t.event_id))!.push(['term', Number(t.term_id)]);
  }
  // The newest change of each distinct record (one index look-up each, as newestSeqOf makes them).
  const byType = new Map<string, Set<number>>();
  for (const list of deps.values()) for (const [t, i] of list) (byType.get(t) ?? byType.set(t, new Set()).get(t)!).add(i);
  const newest = new Map<string, number>();
  for (const [type, idSet] of byType) {
    // One statement per chunk of a type's records (a statement per record made a first CalDAV sync of
    // 20,000 events spend about 2 s here compiling and running them).
    for (const chunk of chunksOf([...idSet])) {
      const rows = await db
        .selectFrom('changes')
        .select(['record_id', (eb) => eb.fn.max('seq').as('s')])
        .where('record_type', '=', type)
        .where('record_id', 'in', chunk)
        .groupBy('record_id')
        .execute();
      for (const row of rows) newest.set(`${type}:${Number(row.record_id)}`, Number(row.s ?? 0));
    }
  }
  const all = await sql<{ s: number | string | null }>`select max("seq") as "s" from "changes" where "record_type" in ('all', 'settings')${calendarFilter('changes')}`.execute(db);
  const allSeq = Number(all.rows[0]?.s ?? 0);
  const seqs = new Map<number, number>();
  for (const [id, list] of deps) seqs.set(id, Math.max(allSeq, ...list.map(([t, i]) => newest.get(`${t}:${i}`) ?? 0)));
  const times = new Map<number, string>();
  for (const chunk of chunksOf([...new Set(seqs.values())].filter((s) => s > 0))) {
    const rows = await db
      .selectFrom('changes')
      .select(['seq', (eb) => eb.fn.min('created_gmt').as('gmt')])
      .where('seq', 'in', chunk)
      .groupBy('seq')
      .execute();
    for (const row of rows) times.set(Number(row.seq), String(row.gmt));
  }
  const out = new Map<number, RecordVersion>();
  for (const [id, list] of deps) {
    const seq = seqs.get(id)!;
    out.set(id, { seq, gmt: seq > 0 ? times.get(seq) : undefined, deps: list.map(([t, i]) => `${t}:${i}`) });
  }
  return out;
}
