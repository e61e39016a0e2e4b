/**
 * `events-calendar export --format json` and `events-calendar import json FILE`: the whole
 * calendar as one JSON document (every record in every status, trashed ones included, links,
 * images, terms with their counts, users without password hashes or application passwords), and
 * its exact restore into an empty database: the same rows with the same ids, so every API answer
 * is the same byte for byte (modulo host).
 *
 * The restore writes rows as they were exported (it restores this service's own data, already
 * validated when it was written), in one write transaction that logs an `all` reset in the change
 * log, so running servers drop what they keep; restored users have no password
 * (`events-calendar users set-password`).
 *
 * @example
 *   const doc = await exportCalendar(services); await restoreCalendar(otherServices, file);
 */
import { readFileSync } from 'node:fs';
import type { DomainServices } from '../domain/services.js';
import type { Executor } from '../store/schema.js';
import { noteChange } from '../store/change-notes.js';
import { writeTransaction } from '../store/changes.js';
import { bumpIdSequence } from '../store/import-context.js';
import { firstNonEmptyTable, insertRows, readTables, userById, userIdByLogin, type ExportTable } from '../store/exports.js';
import { ImportError } from './source.js';
import { calendarIdNow, DEFAULT_CALENDAR_ID } from '../store/calendar-scope.js';

export const EXPORT_FORMAT = 'events-calendar-export';
export const EXPORT_VERSION = 1;

/** Tables of the export, in an order that satisfies foreign keys on restore, and their sort keys. */
const TABLES: Array<ExportTable & { optional?: true }> = [
  { table: 'users', order: ['id'] },
  { table: 'images', order: ['id'] },
  { table: 'terms', order: ['id'] },
  { table: 'posts', order: ['id'] },
  { table: 'events', order: ['post_id'] },
  { table: 'venues', order: ['post_id'] },
  { table: 'organizers', order: ['post_id'] },
  { table: 'event_organizers', order: ['event_id', 'position'] },
  { table: 'event_terms', order: ['event_id', 'term_id'] },
  // Recurring events; exports made before them have none.
  { table: 'event_series', order: ['post_id'], optional: true },
  { table: 'event_occurrences', order: ['post_id'], optional: true },
  // Imported events' free-text locations (migration 029); exports made before them have none.
  { table: 'event_locations', order: ['event_id'], optional: true },
  // The days moved occurrences were at (their old addresses' redirects); older exports have none.
  { table: 'occurrence_moves', order: ['series_id', 'day'], optional: true },
];

/** Columns that hold numbers (PostgreSQL answers some aggregates and numerics as text). */
const NUMERIC = new Set([
  'id',
  'post_id',
  'author_id',
  'parent_id',
  'image_id',
  'venue_id',
  'event_id',
  'organizer_id',
  'term_id',
  'position',
  'count',
  'width',
  'height',
  'all_day',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'geo_lat',
  'geo_lng',
  'series_id',
  'complete',
  'exception',
]);

export interface CalendarExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_gmt: string;
  tables: Record<string, Array<Record<string, unknown>>>;
}

export async function exportCalendar(services: DomainServices): Promise<CalendarExport> {
  // One snapshot: all tables read in one transaction.
  const read = await readTables(services.store.db, TABLES);
  const tables: Record<string, Array<Record<string, unknown>>> = {};
  for (const { table } of TABLES) {
    tables[table] = read[table]!.map((r) => {
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) row[k] = NUMERIC.has(k) && v !== null && typeof v === 'string' ? Number(v) : v;
      if (table === 'users') delete row.password_hash; // no secrets
      // An export is of one calendar and restores into any: its rows do not name the calendar.
      delete row.calendar_id;
      return row;
    });
  }
  // People are the network's: a calendar other than the default one exports those its records name.
  if (services.calendars && calendarIdNow() !== DEFAULT_CALENDAR_ID) {
    const named = new Set<number>();
    for (const table of ['posts', 'images']) for (const row of tables[table] ?? []) named.add(Number(row.author_id));
    tables.users = (tables.users ?? []).filter((u) => named.has(Number(u.id)));
  }
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_gmt: new Date().toISOString().slice(0, 19).replace('T', ' '), tables };
}

/** Read and check an export file (exports made before recurring events lack their two tables). */
export function readExport(file: string): CalendarExport {
  let doc: CalendarExport;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ImportError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(err as Error).message})`}`);
  }
  if (doc?.format !== EXPORT_FORMAT || typeof doc.tables !== 'object') throw new ImportError(`${file} is not an export of this service (events-calendar export --format json)`);
  if (doc.version !== EXPORT_VERSION) throw new ImportError(`${file} is export version ${doc.version}; this version reads ${EXPORT_VERSION}`);
  for (const { table, optional } of TABLES) if (!optional && !Array.isArray(doc.tables[table])) throw new ImportError(`${file} has no ${table} table`);
  return doc;
}

/** Restore an export into a database without calendar records; returns row counts per table. */
export async function restoreCalendar(services: DomainServices, file: string): Promise<Record<string, number>> {
  const doc = readExport(file);
  const db = services.store.db;
  return writeTransaction(db, async (trx) => {
    const table = await firstNonEmptyTable(trx);
    if (table) throw new ImportError(`the database is not empty (it has ${table}); import json restores into an empty database (a new DATABASE_URL, after events-calendar migrate)`);
    const counts: Record<string, number> = {};
    for (const { table } of TABLES) {
      const given = doc.tables[table];
      if (given === undefined) continue;
      let rows = given;
      if (table === 'users') rows = await usersToInsert(trx, rows);
      await insertRows(trx, table, rows);
      counts[table] = given.length;
    }
    for (const table of ['users', 'images', 'terms', 'posts'] as const) await bumpIdSequence(trx, table);
    // Every record is new to running servers: one reset instead of a note per row.
    await noteChange(trx, 'all', 0, 'reset');
    return counts;
  });
}

/**
 * The exported users to insert: without a password (none was exported). A user already here with
 * the same id and login (the administrator of CALENDAR_ADMIN_USER) is kept as it is; an id held by
 * another login is refused, since records name their author by id.
 */
async function usersToInsert(trx: Executor, users: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (const u of users) {
    const here = await userById(trx, Number(u.id));
    if (here && here.login === u.login) continue;
    if (here) throw new ImportError(`user id ${u.id} is ${here.login} here but ${u.login} in the export: restore into a database without users (unset CALENDAR_ADMIN_USER for the restore)`);
    const byLogin = await userIdByLogin(trx, String(u.login));
    if (byLogin) throw new ImportError(`user ${u.login} is id ${byLogin.id} here but ${u.id} in the export: restore into a database without users`);
    out.push({ ...u, password_hash: '' });
  }
  return out;
}
