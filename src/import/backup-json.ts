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
 * A calendar's follows travel by the followed calendar's slug (`follows`), without the copies they
 * made: the restore re-creates each follow of a calendar here with that slug (which copies its
 * events again, once each) and tells those it could not.
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
import { followMadePosts, followsBySlug } from '../store/network.js';
import { rolesOf } from '../store/calendars.js';
import { ApiError } from '../domain/errors.js';
import { viewerOf } from '../domain/permissions.js';

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
  /**
   * The calendar's follows (optional: older exports have none, older importers ignore it): the
   * followed calendar's slug and the category slugs followed. The follows' copies and the venues
   * and organizers they mirrored are not in `tables`: restoring the follow makes them again.
   */
  follows?: ExportedFollow[];
}

export interface ExportedFollow {
  calendar: string;
  categories: string[];
}

/** What a restore did with the export's follows: those re-created, those it could not (and why). */
export interface FollowsRestored {
  followed: string[];
  skipped: Array<{ calendar: string; reason: string }>;
}

/** Events, venues and organizers a follow made: the rows of these tables that name them are left out. */
const POST_KEYS: Record<string, string> = {
  posts: 'id',
  events: 'post_id',
  venues: 'post_id',
  organizers: 'post_id',
  event_organizers: 'event_id',
  event_terms: 'event_id',
  event_series: 'post_id',
  event_occurrences: 'post_id',
  event_locations: 'event_id',
  occurrence_moves: 'post_id',
};

/**
 * `everyAccount`: the default calendar's export carries every account (a whole installation's
 * backup) when its caller manages accounts (the command line, a network administrator); else, as
 * every other calendar's, the accounts its records name; to a caller who may not list accounts
 * (`everyAccount: false`), without their e-mail addresses.
 */
export async function exportCalendar(services: DomainServices, options: { everyAccount?: boolean } = {}): Promise<CalendarExport> {
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
  const follows = await followsBySlug(services.store.db);
  leaveOutFollowMade(tables, await followMadePosts(services.store.db));
  // People are the network's: a calendar other than the default one exports those its records
  // name, and so does the default one for a caller who may not list the accounts.
  if ((services.calendars && calendarIdNow() !== DEFAULT_CALENDAR_ID) || options.everyAccount === false) {
    const named = new Set<number>();
    for (const table of ['posts', 'images']) for (const row of tables[table] ?? []) named.add(Number(row.author_id));
    tables.users = (tables.users ?? []).filter((u) => named.has(Number(u.id)));
  }
  // A calendar other than the default one exports each person's role in it, what a restore of it
  // (as an installation's default calendar) should give them: not their role in the default
  // calendar, which would tell the network's administrators among them. A network administrator
  // is an administrator of every calendar; an author without a role there any longer, a subscriber.
  if (services.calendars && calendarIdNow() !== DEFAULT_CALENDAR_ID) {
    const here = new Map((await rolesOf(services.store.db, calendarIdNow())).map((r) => [Number(r.user_id), r.role]));
    for (const u of tables.users ?? []) u.role = here.get(Number(u.id)) ?? (u.role === 'administrator' ? 'administrator' : 'subscriber');
  }
  // A caller who may not list the accounts (a calendar's own administrator) is not given their
  // addresses either: the authors of its records keep their ids, logins and names (what a restore
  // needs to keep who wrote what), not the e-mail of a network administrator who wrote there.
  if (options.everyAccount === false) for (const u of tables.users ?? []) u.email = '';
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_gmt: new Date().toISOString().slice(0, 19).replace('T', ' '), tables, ...(follows.length > 0 ? { follows } : {}) };
}

/**
 * Leave out of the tables what the calendar's follows made: their copies, and the venues and
 * organizers they mirrored that none of the calendar's own events names. Restoring the follow
 * copies the source's events again, one copy each; the terms' counts lose the copies' share (the
 * restored follow's copies count again).
 */
function leaveOutFollowMade(tables: Record<string, Array<Record<string, unknown>>>, made: { copies: number[]; mirrored: number[] }): void {
  if (made.copies.length === 0 && made.mirrored.length === 0) return;
  const copies = new Set(made.copies);
  const named = new Set<number>();
  for (const e of tables.events ?? []) if (!copies.has(Number(e.post_id)) && e.venue_id) named.add(Number(e.venue_id));
  for (const o of tables.event_organizers ?? []) if (!copies.has(Number(o.event_id))) named.add(Number(o.organizer_id));
  const out = new Set([...copies, ...made.mirrored.filter((id) => !named.has(id))]);
  const published = new Set((tables.posts ?? []).filter((p) => copies.has(Number(p.id)) && p.status === 'publish' && p.type === 'tribe_events').map((p) => Number(p.id)));
  const lessCount = new Map<number, number>();
  for (const l of tables.event_terms ?? []) if (published.has(Number(l.event_id))) lessCount.set(Number(l.term_id), (lessCount.get(Number(l.term_id)) ?? 0) + 1);
  for (const [table, key] of Object.entries(POST_KEYS)) if (tables[table]) tables[table] = tables[table]!.filter((r) => !out.has(Number(r[key])));
  for (const t of tables.terms ?? []) if (lessCount.has(Number(t.id))) t.count = Math.max(0, Number(t.count) - lessCount.get(Number(t.id))!);
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

/**
 * Restore an export into a database without calendar records; returns row counts per table. Then
 * the export's follows are re-created, each of a calendar here with its slug (its events copied
 * at once), and told to `follows` (with those it could not: unknown here, the calendar itself,
 * suspended, a category the calendar has none of).
 */
export async function restoreCalendar(services: DomainServices, file: string, follows?: FollowsRestored): Promise<Record<string, number>> {
  const doc = readExport(file);
  const counts = await restoreTables(services, doc);
  const done = await restoreFollows(services, Array.isArray(doc.follows) ? doc.follows : []);
  if (follows) {
    follows.followed.push(...done.followed);
    follows.skipped.push(...done.skipped);
  }
  return counts;
}

/** Re-create follows of an export in the calendar at hand (after its rows are restored). */
async function restoreFollows(services: DomainServices, follows: ExportedFollow[]): Promise<FollowsRestored> {
  const out: FollowsRestored = { followed: [], skipped: [] };
  // The restore is the operator's: it follows as an administrator of the calendar at hand.
  const admin = viewerOf({ id: 0, login: 'import', role: 'administrator' });
  for (const f of follows) {
    const calendar = String(f.calendar);
    try {
      await services.network.follow(admin, calendar, Array.isArray(f.categories) ? f.categories.map(String) : []);
      out.followed.push(calendar);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const reason =
        err.code === 'calendar_not_found'
          ? `no calendar "${calendar}" here`
          : err.code === 'network_same_calendar'
            ? 'it is the calendar restored into'
            : err.code === 'calendar_suspended'
              ? `calendar "${calendar}" is suspended`
              : `${err.message}${err.data.params ? ` (${Object.values(err.data.params as Record<string, string>).join(' ')})` : ''}`;
      out.skipped.push({ calendar, reason });
    }
  }
  return out;
}

async function restoreTables(services: DomainServices, doc: CalendarExport): Promise<Record<string, number>> {
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
