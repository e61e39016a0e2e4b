/**
 * Versions read from the change log (migration 005) for ETags, `Last-Modified` and sync tokens
 * (issue 11): a record's version is the sequence number of the last change of anything its
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
  if (type === 'term') await sql`select "id" from "terms" where "id" = ${id} for update`.execute(trx);
  else await sql`select "id" from "posts" where "id" = ${id} for update`.execute(trx);
}

/** When the change with this sequence number was committed (undefined: not in the log). */
export const changeTime = timeOf;

/** This database's id (migration 007), made when it was migrated. */
export async function databaseId(db: Executor): Promise<string> {
  const row = await db.selectFrom('sync_state').select('database_id').where('id', '=', 1).executeTakeFirst();
  return row?.database_id ?? '';
}
