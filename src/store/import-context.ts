/**
 * Imports keep the ids records had at their source (apps and widgets keep event ids). The domain
 * services allocate ids themselves; an importer runs a service call inside `withImportContext`
 * with the ids it wants, and the store's insert functions take them when they are free (else
 * they allocate as usual and the importer maps the id). `inTransaction` runs inside the write
 * transaction the service opens, after its write and before the change log is flushed, so the
 * importer's own bookkeeping (the import map) commits or rolls back with the record.
 *
 * @example
 *   await withImportContext({ wanted: { post: 42 }, inTransaction: (trx, e) => putMapping(trx, …) }, () =>
 *     services.events.create(admin, input));
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { Executor } from './schema.js';
import { acrossCalendars } from './calendar-scope.js';

export type WantedIdKind = 'post' | 'term' | 'image' | 'user';

export interface ImportContext {
  /** the id wanted for the next insert of each kind (taken once) */
  wanted: Partial<Record<WantedIdKind, number>>;
  /** ids wanted for the occurrences a series write generates, by generated start (wall time) */
  occurrences?: Map<string, number>;
  /** bookkeeping to run inside the write's own transaction (once), given the write's result */
  inTransaction?: (trx: Executor, result: unknown) => Promise<void>;
}

const storage = new AsyncLocalStorage<ImportContext>();

export function withImportContext<T>(context: ImportContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

/** Whether the code running now is an import's service call (`withImportContext`). */
export function inImportContext(): boolean {
  return storage.getStore() !== undefined;
}

const TABLE_OF: Record<WantedIdKind, 'posts' | 'terms' | 'images' | 'users'> = { post: 'posts', term: 'terms', image: 'images', user: 'users' };

/**
 * The id wanted for this insert when one was asked for and is free; undefined otherwise (the
 * database allocates one).
 */
export async function takeWantedId(db: Executor, kind: WantedIdKind): Promise<number | undefined> {
  const context = storage.getStore();
  const id = context?.wanted[kind];
  if (id === undefined || !context) return undefined;
  delete context.wanted[kind];
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  // Ids are the whole database's: one another calendar holds is not free (its calendar's scope would hide it).
  const taken = await acrossCalendars(() => db.selectFrom(TABLE_OF[kind]).select('id').where('id', '=', id).executeTakeFirst());
  return taken ? undefined : id;
}

/**
 * The ids wanted for occurrences starting at these wall times that are free (`import tec`
 * keeps occurrence ids); empty outside an import. Each id is taken once.
 */
export async function takeWantedOccurrenceIds(db: Executor, starts: string[]): Promise<Map<string, number>> {
  const wanted = storage.getStore()?.occurrences;
  const out = new Map<string, number>();
  if (!wanted || wanted.size === 0) return out;
  for (const start of starts) {
    const id = wanted.get(start);
    if (id !== undefined && Number.isSafeInteger(id) && id > 0) out.set(start, id);
  }
  if (out.size === 0) return out;
  const taken = await acrossCalendars(() =>
    db
      .selectFrom('posts')
      .select('id')
      .where('id', 'in', [...out.values()])
      .execute(),
  );
  const takenIds = new Set(taken.map((r) => Number(r.id)));
  for (const [start, id] of out) {
    wanted.delete(start);
    if (takenIds.has(id)) out.delete(start);
  }
  return out;
}

/**
 * After inserting an explicit id: PostgreSQL's serial sequence does not know it, so move it past
 * the largest id (SQLite's AUTOINCREMENT follows explicit ids by itself).
 */
export async function afterExplicitId(db: Executor, kind: WantedIdKind): Promise<void> {
  await bumpIdSequence(db, TABLE_OF[kind]);
}

/** Move the table's id sequence past its largest id (PostgreSQL only; a no-op on SQLite). */
export async function bumpIdSequence(db: Executor, table: 'posts' | 'terms' | 'images' | 'users' | 'app_passwords'): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest((select coalesce(max(id), 0) from ${sql.table(table)}), 1), (select count(*) > 0 from ${sql.table(table)}))`.execute(db);
}

function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter.constructor.name.toLowerCase().includes('postgres');
}

/**
 * A function that puts the current import context back as it is now: a write run again after it
 * lost a race (writeTransaction) takes its wanted ids and runs its bookkeeping again.
 */
export function importContextRestorer(): () => void {
  const context = storage.getStore();
  if (!context) return () => {};
  const wanted = { ...context.wanted };
  const hook = context.inTransaction;
  return () => {
    context.wanted = { ...wanted };
    if (hook) context.inTransaction = hook;
    else delete context.inTransaction;
  };
}

/** Run the pending in-transaction hook of the current import context, if any (writeTransaction calls it). */
export async function runImportHook(trx: Executor, result: unknown): Promise<void> {
  const context = storage.getStore();
  const hook = context?.inTransaction;
  if (!hook || !context) return;
  delete context.inTransaction;
  await hook(trx, result);
}
