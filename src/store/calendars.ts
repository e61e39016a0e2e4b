/**
 * The calendars of the service and people's roles in them (migration 031). These tables are the
 * network's, not any one calendar's: they are read and written whatever calendar the work at hand
 * is of. Deleting a calendar deletes every row of its data, table by table, in one transaction.
 *
 * A calendar's former slugs (migration 036, calendar data) are kept when its slug changes: its
 * fediverse actor's old identifiers, which keep answering (moved) for its followers. A slug is a
 * former one of at most one calendar, and of none while a calendar has it: taking a slug (a new
 * calendar's, a rename's) drops it from every calendar's former slugs, in the same transaction.
 *
 * @example
 *   const c = await findCalendarBySlug(db, 'north'); // { id: 2, slug: 'north', … } or undefined
 */
import { sql, type Selectable } from 'kysely';
import type { CalendarsTable, Executor, Scoped } from './schema.js';
import { CALENDAR_TABLES, DEFAULT_CALENDAR_ID, acrossCalendars, inCalendar } from './calendar-scope.js';
import { writeTransaction } from './changes.js';
import { noteChange } from './change-notes.js';

export type CalendarRow = Selectable<CalendarsTable>;

/** A slug a calendar had before (migration 036): its actor's former identifier. */
export interface CalendarFormerSlugsTable {
  slug: string;
  /** when the calendar left it (UTC) */
  left_gmt: string;
  /** 1: its followers are still to be sent the Move from it (the federation outbox clears it) */
  move_pending: number;
}
type FormerTables = { calendar_former_slugs: Scoped<CalendarFormerSlugsTable> };
const former = (db: Executor) => db.withTables<FormerTables>();

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

/** The calendar that had `slug` before (its actor's former identifier), if any: one look across calendars, by the slug's index. */
export async function findCalendarByFormerSlug(db: Executor, slug: string): Promise<CalendarRow | undefined> {
  return acrossCalendars(() =>
    former(db)
      .withTables<{ calendars: CalendarsTable }>()
      .selectFrom('calendar_former_slugs as f')
      .innerJoin('calendars as c', 'c.id', 'f.calendar_id')
      .select(COLUMNS.map((column) => `c.${column}` as const))
      .where('f.slug', '=', slug)
      .executeTakeFirst(),
  );
}

/** The slugs the calendar at hand had before, the most recently left first. */
export async function formerSlugs(db: Executor): Promise<string[]> {
  const rows = await former(db).selectFrom('calendar_former_slugs').select('slug').orderBy('left_gmt', 'desc').orderBy('slug').execute();
  return rows.map((r) => r.slug);
}

/** The former slugs of the calendar at hand whose Move its followers are still to be sent. */
export async function pendingMoves(db: Executor): Promise<string[]> {
  const rows = await former(db).selectFrom('calendar_former_slugs').select('slug').where('move_pending', '=', 1).orderBy('left_gmt').orderBy('slug').execute();
  return rows.map((r) => r.slug);
}

/** Those Moves are made (in the transaction that stores them: the federation outbox's step). */
export async function clearPendingMoves(db: Executor, slugs: readonly string[]): Promise<void> {
  if (slugs.length === 0) return;
  await former(db)
    .updateTable('calendar_former_slugs')
    .set({ move_pending: 0 })
    .where('slug', 'in', [...slugs])
    .execute();
}

/** A calendar takes `slug`: it is nobody's former slug from now on (another calendar's, or its own when it takes it back). */
async function takeSlug(db: Executor, slug: string): Promise<void> {
  await acrossCalendars(() => former(db).deleteFrom('calendar_former_slugs').where('slug', '=', slug).execute());
}

/**
 * Calendar `id` left `slug` (at `now`, UTC): it is kept as a former slug, its Move pending when the
 * calendar has accepted followers then (they are the ones who know the old identifier).
 */
async function leaveSlug(db: Executor, id: number, slug: string, now: string): Promise<void> {
  // (SQLite reads `on conflict` after `select … from` as a join's: the `where true` ends the select.)
  await acrossCalendars(() =>
    sql`
      insert into "calendar_former_slugs" ("calendar_id", "slug", "left_gmt", "move_pending")
      select ${id}, ${slug}, ${now},
        case when exists (select 1 from "federation_followers" where "calendar_id" = ${id} and "status" = 'accepted') then 1 else 0 end
      where true
      on conflict ("calendar_id", "slug") do update set "left_gmt" = excluded."left_gmt", "move_pending" = excluded."move_pending"`.execute(db),
  );
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

/** Make a calendar; its slug is nobody's former slug from then on (its actor is this calendar's). */
export async function insertCalendar(db: Executor, row: { slug: string; name: string; host: string | null; quotas: string; created_gmt: string }): Promise<CalendarRow> {
  return writeTransaction(db, async (trx) => {
    const made = await trx.insertInto('calendars').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
    await takeSlug(trx, row.slug);
    return made;
  });
}

/**
 * Change a calendar. A reset is logged in it: its name, URLs and status show in every answer it
 * kept (and in the answers replayed below the server, which last while the log does not move), so
 * that a suspended calendar stops answering at once. A new slug keeps the old one as a former slug
 * (`now`: when, UTC), in the same transaction; the reset then wakes the federation outbox, which
 * sends the calendar's followers the Move.
 */
export async function updateCalendar(db: Executor, id: number, patch: Partial<Pick<CalendarRow, 'slug' | 'name' | 'status' | 'host' | 'quotas'>>, now: string): Promise<CalendarRow | undefined> {
  if (Object.keys(patch).length === 0) return findCalendarById(db, id);
  const row = await writeTransaction(db, async (trx) => {
    const before = patch.slug !== undefined ? await findCalendarById(trx, id) : undefined;
    const updated = await trx.updateTable('calendars').set(patch).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
    if (updated && before && before.slug !== updated.slug) {
      await takeSlug(trx, updated.slug);
      await leaveSlug(trx, id, before.slug, now);
    }
    return updated;
  });
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

/**
 * Set (or with '' remove) an account's role in a calendar other than the default one, in one
 * transaction with its log row: a `role` row in that calendar, which moves that calendar's revision
 * alone (the default calendar's roles are the accounts' own, `user` rows, and move every one).
 */
export async function setRoleIn(db: Executor, userId: number, calendarId: number, role: string): Promise<void> {
  await inCalendar(calendarId, () =>
    writeTransaction(db, async (trx) => {
      await trx.deleteFrom('calendar_roles').where('user_id', '=', userId).where('calendar_id', '=', calendarId).execute();
      if (role) await trx.insertInto('calendar_roles').values({ user_id: userId, calendar_id: calendarId, role }).execute();
      await noteChange(trx, 'role', userId, 'update');
    }),
  );
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
    // A change of credentials: servers drop who they keep authenticated; no answer shows it.
    if (row) await noteChange(trx, 'credentials', Number(row.user_id), 'update');
  });
}
