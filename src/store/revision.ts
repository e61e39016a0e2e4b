/**
 * A revision of the calendar's data: a value that changes whenever a write to events, venues,
 * organizers, their links, terms or images is committed, by this process or any other. Caches
 * keyed by it (list totals, public event representations) are never served stale.
 *
 * - SQLite: `PRAGMA data_version` changes when another connection commits; `total_changes()`
 *   counts this connection's own changed rows (the server has one connection). Both are read in
 *   one statement.
 * - PostgreSQL: `change_counter.value`, bumped by statement triggers in each writing transaction
 *   (migrations 002 and 003), visible once that transaction commits.
 *
 * Read the revision *before* computing what is cached under it: a write committed in between
 * changes the revision, so the result is only ever cached under an older one and never reused.
 *
 * @example const rev = await dataRevision(db, 'sqlite') // '2:1043'
 */
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import type { DialectName } from './db.js';

const SQLITE_REVISION = sql<string>`((select data_version from pragma_data_version) || ':' || total_changes())`;
const POSTGRES_REVISION = sql<string>`(select "value" from "change_counter" where "id" = 1)::text`;

/** The revision as an SQL expression (text), to read it in the same statement as data. */
export function revisionExpression(dialect: DialectName) {
  return dialect === 'postgres' ? POSTGRES_REVISION : SQLITE_REVISION;
}

/** Synchronous revision readers of SQLite databases, by their Kysely instance (see `db.ts`). */
const directReaders = new WeakMap<object, () => string>();

/**
 * Read the revision of this (SQLite) database straight from its connection, without a query
 * through Kysely. Safe even while a transaction of another request is open on the connection: a
 * value taken mid-transaction is new (its changes are counted), so nothing is found under it,
 * and what is computed under it is read after that transaction ended.
 */
export function registerDirectRevision(db: object, read: () => string): void {
  directReaders.set(db, read);
}

/** Dialects of open stores, by their Kysely instance (transactions are not registered). */
const dialects = new WeakMap<object, DialectName>();

export function registerStoreDialect(db: object, dialect: DialectName): void {
  dialects.set(db, dialect);
}

/**
 * The revision of a store's handle, for code that gets only the handle: undefined for a
 * transaction (or anything not opened by `openStore`), which then caches nothing.
 */
export async function revisionOfHandle(db: Executor): Promise<string | undefined> {
  const dialect = dialects.get(db);
  return dialect === undefined ? undefined : dataRevision(db, dialect);
}

/** Revision queries about to be sent, per store handle (see `dataRevision`). */
const batches = new WeakMap<object, Promise<string>>();

async function queryRevision(db: Executor, dialect: DialectName): Promise<string> {
  const r = await sql<{ revision: string | null }>`select ${revisionExpression(dialect)} as "revision"`.execute(db);
  return String(r.rows[0]?.revision ?? '');
}

export async function dataRevision(db: Executor, dialect: DialectName): Promise<string> {
  const direct = directReaders.get(db);
  if (direct) return direct();
  if (db.isTransaction) return queryRevision(db, dialect);
  // Requests that ask during the same turn of the event loop share one query, sent after all of
  // them asked (so its answer is never older than any of them): under load, one round trip serves
  // many requests.
  let batch = batches.get(db);
  if (!batch) {
    batch = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      batches.delete(db);
      return queryRevision(db, dialect);
    });
    batches.set(db, batch);
  }
  return batch;
}

/** Rows read in the same statement as a revision, with that revision. */
const stamps = new WeakMap<object, string>();

export function stampRevision(row: object, revision: string): void {
  stamps.set(row, revision);
}

/** The revision a row was read at, when it was read together with one. */
export function revisionOf(row: object): string | undefined {
  return stamps.get(row);
}

/**
 * Values kept per database for one data revision (all dropped when the revision changes), e.g.
 * list totals. Read the revision before computing a value you store here.
 *
 * @example
 *   const totals = revisionMemo<number>();
 *   const kept = totals.at(db, await dataRevision(db, dialect));
 *   const n = kept.get(key) ?? (await count());
 */
export function revisionMemo<V>(maxEntries = 1000): { at(db: object, revision: string): Map<string, V> } {
  const byDb = new WeakMap<object, { revision: string; values: Map<string, V> }>();
  return {
    at(db, revision) {
      let entry = byDb.get(db);
      if (!entry || entry.revision !== revision) byDb.set(db, (entry = { revision, values: new Map() }));
      if (entry.values.size >= maxEntries) entry.values.clear();
      return entry.values;
    },
  };
}
