/**
 * The users' administration reads (the admin API's users screen): a page of users with
 * a search and a role filter, and how many administrators there are (counted under
 * `lockAdministrators` when a write depends on it). Writes go through store/users.ts (each notes
 * the user in the change log).
 *
 * @example
 *   const { rows, total } = await listUsersPage(db, { search: 'ann', role: 'editor', limit: 20, offset: 0 });
 */
import { sql } from 'kysely';
import { lockForWrite } from './locks.js';
import type { Executor, UserRow } from './schema.js';

export interface UserPageQuery {
  /** a part of the login, display name or e-mail address (case-insensitive) */
  search?: string;
  role?: string;
  limit: number;
  offset: number;
}

/** `%` and `_` of a search taken literally in a LIKE pattern (escape character `\`). */
function likePattern(text: string): string {
  return '%' + text.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}

export async function listUsersPage(db: Executor, q: UserPageQuery): Promise<{ rows: UserRow[]; total: number }> {
  let base = db.selectFrom('users');
  if (q.role !== undefined) base = base.where('role', '=', q.role);
  if (q.search !== undefined && q.search !== '') {
    const pattern = likePattern(q.search);
    base = base.where((eb) => eb.or((['login', 'display_name', 'email'] as const).map((column) => eb(eb.fn('lower', [column]), 'like', sql<string>`${pattern} ESCAPE '\\'`))));
  }
  const counted = await base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
  const rows = await base.selectAll().orderBy('id').limit(q.limit).offset(q.offset).execute();
  return { rows, total: Number(counted?.n ?? 0) };
}

export async function countAdministrators(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('role', '=', 'administrator')
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * In a write transaction that takes the administrator role from someone: wait for any other such
 * write to commit (PostgreSQL's transaction-scoped advisory lock; SQLite runs one write
 * transaction at a time), so the count that follows sees it.
 */
export async function lockAdministrators(trx: Executor): Promise<void> {
  await lockForWrite(trx, 'administrators');
}
