/**
 * The calendars of the service and people's roles in them (migration 031). These tables are the
 * network's, not any one calendar's: they are read and written whatever calendar the work at hand
 * is of. Deleting a calendar deletes every row of its data, table by table, in one transaction.
 *
 * @example
 *   const c = await findCalendarBySlug(db, 'north'); // { id: 2, slug: 'north', … } or undefined
 */
import type { Selectable } from 'kysely';
import type { CalendarsTable, Executor } from './schema.js';
import { CALENDAR_TABLES, DEFAULT_CALENDAR_ID, acrossCalendars, inCalendar } from './calendar-scope.js';
import { writeTransaction } from './changes.js';
import { noteChange } from './change-notes.js';

export type CalendarRow = Selectable<CalendarsTable>;

const COLUMNS = ['id', 'slug', 'name', 'status', 'host', 'quotas', 'created_gmt'] as const;

export async function findCalendarBySlug(db: Executor, slug: string): Promise<CalendarRow | undefined> {
  return db.selectFrom('calendars').select(COLUMNS).where('slug', '=', slug).executeTakeFirst();
}

export async function findCalendarById(db: Executor, id: number): Promise<CalendarRow | undefined> {
  return db.selectFrom('calendars').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function findCalendarByHost(db: Executor, host: string): Promise<CalendarRow | undefined> {
  return db.selectFrom('calendars').select(COLUMNS).where('host', '=', host).executeTakeFirst();
}

/** A page of calendars in id order, with the total; `search` matches slugs and names. */
export async function listCalendars(db: Executor, options: { offset: number; limit: number; search?: string; ids?: readonly number[] }): Promise<{ rows: CalendarRow[]; total: number }> {
  let q = db.selectFrom('calendars');
  if (options.search) {
    const like = `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb('slug', 'like', like), eb('name', 'like', like)]));
  }
  if (options.ids) q = q.where('id', 'in', options.ids.length ? [...options.ids] : [-1]);
  const [rows, total] = await Promise.all([
    q.select(COLUMNS).orderBy('id').offset(options.offset).limit(options.limit).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function insertCalendar(db: Executor, row: { slug: string; name: string; host: string | null; quotas: string; created_gmt: string }): Promise<CalendarRow> {
  return db.insertInto('calendars').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
}

/**
 * Change a calendar. A reset is logged in it: its name, URLs and status show in every answer it
 * kept (and in the answers replayed below the server, which last while the log does not move), so
 * that a suspended calendar stops answering at once.
 */
export async function updateCalendar(db: Executor, id: number, patch: Partial<Pick<CalendarRow, 'slug' | 'name' | 'status' | 'host' | 'quotas'>>): Promise<CalendarRow | undefined> {
  if (Object.keys(patch).length === 0) return findCalendarById(db, id);
  const row = await db.updateTable('calendars').set(patch).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
  if (row) await noteCalendarChanged(db, id);
  return row;
}

/**
 * Log a reset in a calendar that changed or went (outside any transaction: the note is the
 * calendar's, whatever calendar the work at hand is of). The log's revision moves, so nothing kept
 * of the calendar before is answered again.
 */
export async function noteCalendarChanged(db: Executor, id: number): Promise<void> {
  await inCalendar(id, () => noteChange(db, 'all', 0, 'reset'));
}

/**
 * Delete a calendar and every row of its data. Detail tables go before the rows they hang on, so
 * that no cascade is needed; the tables are those of `CALENDAR_TABLES`, each filtered by the id.
 */
export async function deleteCalendarRows(db: Executor, id: number): Promise<void> {
  if (id === DEFAULT_CALENDAR_ID) throw new Error('the default calendar cannot be deleted');
  await acrossCalendars(async () => {
    const order = [...CALENDAR_TABLES].filter((t) => t !== 'posts' && t !== 'terms');
    for (const table of [...order, 'terms', 'posts']) {
      await db
        .deleteFrom(table as 'posts')
        .where('calendar_id', '=', id)
        .execute();
    }
    await db.deleteFrom('calendar_roles').where('calendar_id', '=', id).execute();
    await db.deleteFrom('app_passwords').where('calendar_id', '=', id).execute();
    await db.deleteFrom('calendars').where('id', '=', id).execute();
  });
  // What servers keep of it goes (see `updateCalendar`); the row names a calendar no longer there.
  await inCalendar(id, () => noteChange(db, 'lists', 0, 'delete'));
}

/** An account's role in a calendar other than the default one ('' : none). */
export async function roleIn(db: Executor, userId: number, calendarId: number): Promise<string> {
  const row = await db.selectFrom('calendar_roles').select('role').where('user_id', '=', userId).where('calendar_id', '=', calendarId).executeTakeFirst();
  return row?.role ?? '';
}

/** Set (or with '' remove) an account's role in a calendar other than the default one. */
export async function setRoleIn(db: Executor, userId: number, calendarId: number, role: string): Promise<void> {
  await db.deleteFrom('calendar_roles').where('user_id', '=', userId).where('calendar_id', '=', calendarId).execute();
  if (role) await db.insertInto('calendar_roles').values({ user_id: userId, calendar_id: calendarId, role }).execute();
}

/** The people with a role in a calendar other than the default one. */
export async function rolesOf(db: Executor, calendarId: number): Promise<Array<{ user_id: number; role: string }>> {
  return db.selectFrom('calendar_roles').select(['user_id', 'role']).where('calendar_id', '=', calendarId).orderBy('user_id').execute();
}

/** The calendars (other than the default one) where an account has a role, with the role. */
export async function calendarsOfUser(db: Executor, userId: number): Promise<Array<{ calendar_id: number; role: string }>> {
  return db.selectFrom('calendar_roles').select(['calendar_id', 'role']).where('user_id', '=', userId).orderBy('calendar_id').execute();
}

/** Rows of calendar data a calendar holds, by table (for quotas and the network's list). */
export async function countPosts(db: Executor, type: 'tribe_events' | 'tribe_venue' | 'tribe_organizer'): Promise<number> {
  const row = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', type)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Limit an application password to one calendar; its user's next request is checked again (the change log names the user). */
export async function limitAppPassword(db: Executor, uuid: string, calendarId: number): Promise<void> {
  await writeTransaction(db, async (trx) => {
    const row = await trx.updateTable('app_passwords').set({ calendar_id: calendarId }).where('uuid', '=', uuid).returning('user_id').executeTakeFirst();
    if (row) await noteChange(trx, 'user', Number(row.user_id), 'update');
  });
}
