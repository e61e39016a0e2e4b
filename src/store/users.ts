/**
 * Users and their application passwords. Only hashes are stored. Writes note the user in the
 * change log (record type `user`), so that every server drops what it keeps about them (who an
 * Authorization header authenticates, `domain/users.ts`); call them in a `writeTransaction`.
 *
 * @example
 *   const user = await findUserByLogin(db, 'admin');
 */
import type { Insertable, Updateable } from 'kysely';
import { inCalendarNoted, noteChange, noteChanges, noteEventBefore, recordTypeOfPost } from './change-notes.js';
import { acrossCalendars, DEFAULT_CALENDAR_ID } from './calendar-scope.js';
import type { AppPasswordRow, AppPasswordsTable, Executor, UserRow, UsersTable } from './schema.js';
import { afterExplicitId, takeWantedId } from './import-context.js';

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).where('email', '!=', '').orderBy('id').limit(1).executeTakeFirst();
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

export async function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<number> {
  const wanted = await takeWantedId(db, 'user');
  const row = await db
    .insertInto('users')
    .values(wanted === undefined ? user : { ...user, id: wanted })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (wanted !== undefined) await afterExplicitId(db, 'user');
  // Servers keep who is authenticated by an Authorization header: the log tells them what changed.
  await noteChange(db, 'user', Number(row.id), 'create');
  return Number(row.id);
}

export async function updateUser(db: Executor, id: number, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
  // A new password alone is a change of credentials: it drops what servers keep authenticated for
  // the user, as any account change, but no answer shows it, so no calendar's revision moves.
  const shown = Object.keys(patch).some((column) => column !== 'password_hash');
  await noteChange(db, shown ? 'user' : 'credentials', id, 'update');
}

export async function deleteUser(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('app_passwords').where('user_id', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).execute();
  await noteChange(db, 'user', id, 'delete');
}

export async function appPasswordsOf(db: Executor, userId: number): Promise<AppPasswordRow[]> {
  return db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function insertAppPassword(db: Executor, row: Insertable<AppPasswordsTable>): Promise<number> {
  const r = await db.insertInto('app_passwords').values(row).returning('id').executeTakeFirstOrThrow();
  await noteChange(db, 'credentials', Number(row.user_id), 'update');
  return Number(r.id);
}

export async function deleteAppPassword(db: Executor, userId: number, uuidOrName: string): Promise<number> {
  const r = await db
    .deleteFrom('app_passwords')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('uuid', '=', uuidOrName), eb('name', '=', uuidOrName)]))
    .executeTakeFirst();
  if (Number(r.numDeletedRows) > 0) await noteChange(db, 'credentials', userId, 'update');
  return Number(r.numDeletedRows);
}

/** When an application password was last used (not logged: nothing kept depends on it). */
export async function touchAppPassword(db: Executor, id: number, when: string): Promise<void> {
  await db.updateTable('app_passwords').set({ last_used_gmt: when }).where('id', '=', id).execute();
}

/** How many records a user is the author of, by kind (trashed ones included), in every calendar. */
export interface OwnedCounts {
  events: number;
  venues: number;
  organizers: number;
  images: number;
}

/**
 * An account is one across the service: what it authored in any calendar counts (a removal that
 * looked at the calendar of the request only would leave the others' records to a deleted author).
 */
export async function countOwned(db: Executor, userId: number): Promise<OwnedCounts> {
  return acrossCalendars(() => countOwnedHere(db, userId));
}

async function countOwnedHere(db: Executor, userId: number): Promise<OwnedCounts> {
  const posts = await db
    .selectFrom('posts')
    .select(['type', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('author_id', '=', userId)
    .groupBy('type')
    .execute();
  const images = await db
    .selectFrom('images')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('author_id', '=', userId)
    .executeTakeFirst();
  const of = (type: string) => Number(posts.find((p) => p.type === type)?.n ?? 0);
  return { events: of('tribe_events'), venues: of('tribe_venue'), organizers: of('tribe_organizer'), images: Number(images?.n ?? 0) };
}

/** Above this many records a reassignment logs one `all`/`reset` instead of a note per record. */
const NOTE_EACH_UP_TO = 1000;

/** The calendars in which a user authored records (posts of any type, images), in id order. */
async function calendarsOwning(db: Executor, userId: number): Promise<number[]> {
  return acrossCalendars(async () => {
    const posts = await db.selectFrom('posts').select('calendar_id').distinct().where('author_id', '=', userId).execute();
    const images = await db.selectFrom('images').select('calendar_id').distinct().where('author_id', '=', userId).execute();
    return [...new Set([...posts, ...images].map((r) => Number(r.calendar_id)))].sort((a, b) => a - b);
  });
}

/**
 * The slugs of the calendars, other than the default one, where `from` authored records and `to`
 * has no role: an heir must be a member of every calendar whose records it would take (every
 * account has a role in the default calendar).
 */
export async function calendarsHeirIsNotIn(db: Executor, from: number, to: number): Promise<string[]> {
  const owning = (await calendarsOwning(db, from)).filter((id) => id !== DEFAULT_CALENDAR_ID);
  if (!owning.length) return [];
  const member = await db.selectFrom('calendar_roles').select('calendar_id').where('user_id', '=', to).where('calendar_id', 'in', owning).execute();
  const missing = owning.filter((id) => !member.some((m) => Number(m.calendar_id) === id));
  if (!missing.length) return [];
  const rows = await db.selectFrom('calendars').select(['id', 'slug']).where('id', 'in', missing).orderBy('id').execute();
  return rows.map((r) => r.slug);
}

/**
 * Make `to` the author of everything `from` authored (posts of every type, images), in every
 * calendar. Call it in a `writeTransaction`: each changed record is noted in the change log of its
 * calendar (events with their listing state before, since list filters look at the author), or,
 * for more than 1,000 records of a calendar, one `all`/`reset` there, so that each calendar's sync
 * clients and webhooks see its records' new author. The calendar of the work at hand's notes join
 * the transaction's; another calendar's are written to its log as soon as its records moved, under
 * a sequence number of their own, in the same transaction (`inCalendarNoted`). Returns how many
 * records moved.
 */
export async function reassignOwned(db: Executor, from: number, to: number): Promise<number> {
  let moved = 0;
  for (const calendar of await calendarsOwning(db, from)) moved += await inCalendarNoted(db, calendar, () => reassignOwnedHere(db, from, to));
  return moved;
}

async function reassignOwnedHere(db: Executor, from: number, to: number): Promise<number> {
  const posts = await db.selectFrom('posts').select(['id', 'type']).where('author_id', '=', from).orderBy('id').execute();
  const images = await db.selectFrom('images').select('id').where('author_id', '=', from).orderBy('id').execute();
  if (posts.length + images.length > NOTE_EACH_UP_TO) {
    await noteChange(db, 'all', 0, 'reset');
  } else {
    for (const p of posts) {
      const type = recordTypeOfPost(p.type);
      if (type === 'event') await noteEventBefore(db, Number(p.id));
      else await noteChange(db, type, Number(p.id), 'update');
    }
    await noteChanges(
      db,
      'image',
      images.map((i) => Number(i.id)),
      'update',
    );
  }
  await db.updateTable('posts').set({ author_id: to }).where('author_id', '=', from).execute();
  await db.updateTable('images').set({ author_id: to }).where('author_id', '=', from).execute();
  return posts.length + images.length;
}
