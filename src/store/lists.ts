/**
 * Lists in SQL: no statement binds more values than a database takes. SQLite refuses a
 * statement with more than SQLITE_MAX_VARIABLE_NUMBER bound values (32,766 on builds since 3.32,
 * 999 on older ones) with "too many SQL variables"; PostgreSQL's protocol takes at most 65,535.
 *
 * - Look-ups by a list of ids run once per chunk of ID_CHUNK ids (`byChunks`).
 * - Multi-row inserts run once per chunk of rows, `rowsPerStatement(columns)` rows at a time.
 * - A list inside a larger query (a filter of a paged list, which cannot be split) is bound as
 *   one value when long (`inList`): `IN (SELECT value FROM json_each(?))` on SQLite,
 *   `= ANY(?::bigint[])` on PostgreSQL.
 *
 * @example
 *   const rows = await byChunks(ids, (chunk) => db.selectFrom('terms').selectAll().where('id', 'in', chunk).execute());
 *   q = q.where((eb) => inList(eb, db, 'posts.id', ids));
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Executor } from './schema.js';
import type { DialectName } from './dialect.js';

/** Ids bound per look-up statement (well under SQLite's oldest limit, 999). */
export const ID_CHUNK = 500;
/** Values bound per statement at most (multi-row inserts). */
export const MAX_BOUND_VALUES = 8000;
/** Above this many, a list inside a query is bound as one value. */
const INLINE_MAX = 500;

/** The items in chunks of `size`. */
export function chunksOf<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Run `query` once per chunk of `ids` (ID_CHUNK at a time) and concatenate the rows. */
export async function byChunks<T, R>(ids: readonly T[], query: (chunk: T[]) => Promise<R[]>, size = ID_CHUNK): Promise<R[]> {
  if (ids.length <= size) return ids.length === 0 ? [] : query([...ids]);
  const out: R[] = [];
  for (const chunk of chunksOf(ids, size)) out.push(...(await query(chunk)));
  return out;
}

/** Rows of `columns` values each per multi-row insert. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.floor(MAX_BOUND_VALUES / Math.max(1, columns)));
}

function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter.constructor.name.toLowerCase().includes('postgres');
}

/**
 * `column IN (ids)` as a condition of a larger query, whatever the number of ids: up to
 * INLINE_MAX bound one by one, more as one JSON (SQLite) or array (PostgreSQL) value. An empty
 * list matches nothing. Ids must be integers.
 */
export function inList<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, on: Executor | DialectName, column: string, ids: readonly number[]): Expression<SqlBool> {
  if (ids.length === 0) return sql<SqlBool>`1 = 0`;
  if (ids.length <= INLINE_MAX) return eb(column as any, 'in', [...ids]);
  const ints = ids.map((id) => Math.trunc(Number(id)));
  if (typeof on === 'string' ? on === 'postgres' : isPostgres(on)) return sql<SqlBool>`${sql.ref(column)} = any(${ints}::bigint[])`;
  return sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(ints)}))`;
}
