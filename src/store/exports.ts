/**
 * The reads and writes of the whole-calendar export and restore (`export --format json|ics`,
 * `import json`), for `import/backup-json.ts` and `import/ics-export.ts` (SQL only in the
 * store): every row of a set of tables in one snapshot, the checks and inserts of a restore, and
 * the ids of the events an iCalendar export writes.
 *
 * @example
 *   const tables = await readTables(db, [{ table: 'posts', order: ['id'] }]);
 *   await writeTransaction(db, (trx) => insertRows(trx, 'posts', tables.posts!));
 */
import type { Database, Executor, UserRow } from './schema.js';

/** A table of an export and the columns its rows are sorted by. */
export interface ExportTable {
  table: keyof Database;
  order: string[];
}

/** Every row of each table (sorted by its `order`), all read in one transaction: one snapshot. */
export async function readTables(db: Executor, tables: ExportTable[]): Promise<Record<string, Array<Record<string, unknown>>>> {
  return db.transaction().execute(async (trx) => {
    const out: Record<string, Array<Record<string, unknown>>> = {};
    for (const { table, order } of tables) {
      let q = trx.selectFrom(table as 'posts').selectAll();
      for (const c of order) q = q.orderBy(c as 'id');
      out[table] = (await q.execute()) as Array<Record<string, unknown>>;
    }
    return out;
  });
}

/** The first of posts, terms and images that holds a row (a restore needs none), or undefined. */
export async function firstNonEmptyTable(trx: Executor): Promise<'posts' | 'terms' | 'images' | undefined> {
  for (const table of ['posts', 'terms', 'images'] as const) {
    const row = await trx.selectFrom(table).select('id').limit(1).executeTakeFirst();
    if (row) return table;
  }
  return undefined;
}

/** Insert rows as they were exported, 200 per statement. */
export async function insertRows(trx: Executor, table: keyof Database, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await trx
      .insertInto(table as 'posts')
      .values(rows.slice(i, i + 200) as never)
      .execute();
}

/** The user of an id. */
export async function userById(trx: Executor, id: number): Promise<UserRow | undefined> {
  return trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The id of the user of a login. */
export async function userIdByLogin(trx: Executor, login: string): Promise<{ id: number } | undefined> {
  return trx.selectFrom('users').select('id').where('login', '=', login).executeTakeFirst();
}

/** Ids of the events not in the trash (no series), ascending: what `export --format ics` writes. */
export async function liveEventIds(db: Executor, filter: ExportFilter = {}): Promise<number[]> {
  let q = db.selectFrom('posts').innerJoin('events', 'events.post_id', 'posts.id').select('posts.id').where('posts.type', '=', 'tribe_events').where('posts.status', '!=', 'trash');
  // Overlapping the range, in the events' own wall time, as the REST lists' start_date/end_date.
  if (filter.start !== undefined) q = q.where('events.end_local', '>=', `${filter.start} 00:00:00`);
  if (filter.end !== undefined) q = q.where('events.start_local', '<=', `${filter.end} 23:59:59`);
  if (filter.categoryId !== undefined) {
    const categoryId = filter.categoryId;
    q = q.where((eb) => eb.exists(eb.selectFrom('event_terms').select('event_terms.event_id').whereRef('event_terms.event_id', '=', 'posts.id').where('event_terms.term_id', '=', categoryId)));
  }
  return (await q.orderBy('posts.id').execute()).map((r) => Number(r.id));
}

/** Which events an iCalendar export takes: days (`YYYY-MM-DD`, inclusive) and a category id. */
export interface ExportFilter {
  start?: string;
  end?: string;
  categoryId?: number;
}
