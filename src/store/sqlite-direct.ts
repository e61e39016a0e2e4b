/**
 * The hot statements of a SQLite write transaction, run straight on its connection.
 *
 * Inside a write transaction a SQLite store's one connection belongs to that transaction until it
 * commits, and better-sqlite3 runs a statement to completion synchronously. A statement built and
 * compiled by the query builder and passed through its executor costs about 25 µs of JavaScript
 * before SQLite sees it; the same prepared statement run here costs what SQLite takes (a few µs).
 * An event create runs a dozen statements in its transaction, so the store's write functions on
 * the create path (posts, events, links, the change log) use this when they are given a SQLite
 * write transaction, and the query builder otherwise (PostgreSQL, reads outside transactions).
 *
 * Statements come from the store's statement cache (db.ts), so they are prepared once. Values are
 * always bound parameters; table and column names are the store's own, never input.
 *
 * @example
 *   const direct = directOf(trx);
 *   const id = direct ? direct.insert('posts', row) : await insertWithBuilder(trx, row);
 */
import { rowsPerStatement } from './lists.js';
import { CALENDAR_TABLES, calendarIdNow } from './calendar-scope.js';
import type BetterSqlite3 from 'better-sqlite3';

type Value = string | number | bigint | Buffer | null;

export interface SqliteDirect {
  /** Rows of a query. */
  all<T>(sql: string, params: readonly unknown[]): T[];
  /** The first row of a query, or undefined. */
  get<T>(sql: string, params: readonly unknown[]): T | undefined;
  /** Run a statement; returns the rows it changed. */
  run(sql: string, params: readonly unknown[]): number;
  /**
   * Insert one row (its defined columns); returns its rowid, or the column `returning` names read
   * back with RETURNING (as the query builder's `returning`: the same statement, so the same
   * behaviour when it fails).
   */
  insert(table: string, row: object, returning?: string): number;
  /** Insert rows with the same columns in one statement. */
  insertMany(table: string, rows: readonly object[]): void;
}

/** The connection's statement cache (db.ts `withStatementCache`). */
export type PrepareFn = (sql: string) => BetterSqlite3.Statement;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function createSqliteDirect(prepare: PrepareFn): SqliteDirect {
  /** INSERT texts by table and column list. */
  const inserts = new Map<string, string>();
  const insertText = (table: string, columns: string[], rows: number): string => {
    const key = `${table}\u0000${columns.join('\u0000')}\u0000${rows}`;
    let text = inserts.get(key);
    if (text === undefined) {
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      text = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')}`;
      if (inserts.size > 200) inserts.clear();
      inserts.set(key, text);
    }
    return text;
  };
  const definedColumns = (row: object): string[] => Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined);
  // A row of calendar data is the calendar's of the work at hand, as the scope plugin sets it on
  // the query builder's inserts (calendar-scope.ts).
  const scoped = (table: string, row: object): object => (CALENDAR_TABLES.has(table) && (row as { calendar_id?: number }).calendar_id === undefined ? { ...row, calendar_id: calendarIdNow() } : row);
  return {
    all: <T>(sql: string, params: readonly unknown[]) => prepare(sql).all(...(params as Value[])) as T[],
    get: <T>(sql: string, params: readonly unknown[]) => prepare(sql).get(...(params as Value[])) as T | undefined,
    run: (sql, params) => prepare(sql).run(...(params as Value[])).changes,
    insert(table, given, returning) {
      const row = scoped(table, given);
      const columns = definedColumns(row);
      const values = columns.map((c) => (row as Record<string, Value>)[c]!);
      if (returning === undefined) return Number(prepare(insertText(table, columns, 1)).run(...values).lastInsertRowid);
      const r = prepare(`${insertText(table, columns, 1)} returning ${quote(returning)}`).get(...values) as Record<string, number>;
      return Number(r[returning]);
    },
    insertMany(table, given) {
      if (given.length === 0) return;
      const id = calendarIdNow();
      const rows = CALENDAR_TABLES.has(table) ? given.map((r) => ((r as { calendar_id?: number }).calendar_id === undefined ? { ...r, calendar_id: id } : r)) : given;
      const columns = definedColumns(rows[0]!);
      // Never more bound values than SQLite takes in one statement (lists.ts).
      const per = rowsPerStatement(columns.length);
      for (let i = 0; i < rows.length; i += per) {
        const chunk = rows.slice(i, i + per);
        const values: Value[] = [];
        for (const row of chunk) for (const c of columns) values.push((row as Record<string, Value>)[c] ?? null);
        prepare(insertText(table, columns, chunk.length)).run(...values);
      }
    },
  };
}

/** Direct access of SQLite write transactions, by their handle (registered by `writeTransaction`). */
const directs = new WeakMap<object, SqliteDirect>();
/** Give a write transaction of the store `db` direct access (a SQLite store's; others: nothing). */
export function enterDirect(direct: SqliteDirect | undefined, trx: object): void {
  if (direct) directs.set(trx, direct);
}

/** The write is over (committed or rolled back): its handle must not reach the connection any more. */
export function leaveDirect(trx: object): void {
  directs.delete(trx);
}

/**
 * Direct access for this handle: only a SQLite write transaction (or a savepoint in one) has it,
 * while its function runs; anything else (PostgreSQL, the root handle, reads) answers undefined.
 */
export function directOf(db: object): SqliteDirect | undefined {
  return directs.get(db);
}
