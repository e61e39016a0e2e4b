/**
 * Bulk loading for `events-calendar seed`: id ranges reserved up front, batched multi-row INSERTs
 * inside explicit transactions on one connection, and a set-based recount of term counts. The
 * rows themselves are built by the seeders (`src/seed/`) exactly as the API writes them; this
 * module only moves them in fast (and answers the few questions they ask of the database).
 *
 * SQLite: `PRAGMA synchronous=OFF` for the duration of the load (restored afterwards), `BEGIN
 * IMMEDIATE` so that reading the next free id and inserting happen under the write lock.
 * PostgreSQL: ids come from the tables' own sequences (`nextval` over `generate_series`), so a
 * running server can keep writing while a seed runs.
 *
 * @example
 *   await bulkLoad(store, async (load) => {
 *     await load.transaction(async (tx) => {
 *       const ids = await tx.reserveIds('posts', 2);
 *       await tx.insert('posts', ['id', 'type', …], [[ids[0], 'tribe_venue', …], …]);
 *     });
 *   });
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database, StoredPostType, Taxonomy } from './schema.js';
import type { DialectName, Store } from './db.js';
import { noteChange } from './change-notes.js';
import { CALENDAR_TABLES, calendarIdNow } from './calendar-scope.js';

type Row = ReadonlyArray<string | number | null>;
type Table = 'posts' | 'events' | 'venues' | 'organizers' | 'event_organizers' | 'terms' | 'event_terms' | 'images' | 'event_series' | 'event_occurrences';

/** SQLite: largest number of bound parameters per statement (its default limit is 32766). */
const MAX_PARAMS = 30_000;
/** SQLite: largest number of rows per statement (keeps statements small enough to prepare quickly). */
const MAX_ROWS = 500;
/** PostgreSQL: rows per statement (one array parameter per column, so no parameter limit). */
const PG_ROWS = 5000;

/** PostgreSQL element types of the columns the seed writes (for `unnest($1::int[], …)`). */
const PG_TYPES: Record<string, string> = {
  id: 'int',
  author_id: 'int',
  parent_id: 'int',
  image_id: 'int',
  post_id: 'int',
  all_day: 'int',
  show_map: 'int',
  show_map_link: 'int',
  hide_from_listings: 'int',
  sticky: 'int',
  featured: 'int',
  venue_id: 'int',
  event_id: 'int',
  organizer_id: 'int',
  position: 'int',
  term_id: 'int',
  series_id: 'int',
  complete: 'int',
  exception: 'int',
  width: 'int',
  height: 'int',
  geo_lat: 'float8',
  geo_lng: 'float8',
  calendar_id: 'int',
};

export interface BulkTransaction {
  /** `n` fresh ids of the table's primary key, ascending. */
  reserveIds(table: 'posts' | 'images' | 'terms', n: number): Promise<number[]>;
  /** Insert rows (arrays in `columns` order), split into multi-row statements. */
  insert(table: Table, columns: readonly string[], rows: readonly Row[]): Promise<void>;
}

export interface BulkLoader {
  dialect: DialectName;
  /** Run `fn` in one transaction on the loader's connection. */
  transaction<T>(fn: (tx: BulkTransaction) => Promise<T>): Promise<T>;
  /** Slugs already used by posts of this type (to keep new slugs unique). */
  existingSlugs(type: StoredPostType): Promise<Set<string>>;
  /** Number of posts of this type (to continue numbering generated names). */
  countPosts(type: StoredPostType): Promise<number>;
  /** Set `count` of these terms to their number of published events (series are not counted: their occurrences are). */
  recountTerms(termIds: number[]): Promise<void>;
  /** Ids of the terms of a taxonomy by slug. */
  termIdsBySlug(taxonomy: Taxonomy): Promise<Map<string, number>>;
  /** Refresh planner statistics and, on PostgreSQL, the visibility map (VACUUM ANALYZE; SQLite PRAGMA optimize). */
  analyze(): Promise<void>;
  /** The connection, for the domain's own (non-bulk) writes such as creating terms. */
  db: Kysely<Database>;
}

function placeholders(dialect: DialectName, columns: number, rows: number): string {
  const out: string[] = [];
  let n = 1;
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) cells.push(dialect === 'postgres' ? `$${n++}` : '?');
    out.push(`(${cells.join(', ')})`);
  }
  return out.join(', ');
}

/** The transaction side of a bulk load on this connection: ids reserved, rows inserted in batches. */
function bulkTransactionOn(conn: Kysely<Database>, dialect: DialectName): BulkTransaction {
  const statements = new Map<string, string>();
  const statementFor = (table: Table, columns: readonly string[], rows: number): string => {
    const key = `${table}|${columns.join(',')}|${rows}`;
    let text = statements.get(key);
    if (!text) {
      text = `insert into ${table} (${columns.join(', ')}) values ${placeholders(dialect, columns.length, rows)}`;
      statements.set(key, text);
    }
    return text;
  };

  return {
    async reserveIds(table, n) {
      if (n <= 0) return [];
      if (dialect === 'postgres') {
        const r = await sql<{ id: number }>`select nextval(pg_get_serial_sequence(${table}, 'id'))::int as id from generate_series(1, ${n})`.execute(conn);
        return r.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
      }
      // AUTOINCREMENT never reuses ids: continue after the larger of max(id) and the sequence.
      const r = await sql<{
        next: number;
      }>`select max(coalesce((select max(id) from ${sql.table(table)}), 0), coalesce((select seq from sqlite_sequence where name = ${table}), 0)) + 1 as next`.execute(conn);
      const first = Number(r.rows[0]!.next);
      return Array.from({ length: n }, (_, i) => first + i);
    },
    async insert(table, givenColumns, givenRows) {
      // Text statements name their calendar themselves (store/calendar-scope.ts): the calendar of the
      // load (`seed --calendar`) on every row of a table of calendar data.
      let columns = givenColumns;
      let rows = givenRows;
      if (CALENDAR_TABLES.has(table)) {
        const calendar = calendarIdNow();
        columns = [...givenColumns, 'calendar_id'];
        rows = givenRows.map((row) => [...row, calendar]);
      }
      if (dialect === 'postgres') {
        // One array per column: the statement text and parameter count do not grow with the rows.
        const text = `insert into ${table} (${columns.join(', ')}) select * from unnest(${columns.map((c, i) => `$${i + 1}::${PG_TYPES[c] ?? 'text'}[]`).join(', ')})`;
        for (let i = 0; i < rows.length; i += PG_ROWS) {
          const chunk = rows.slice(i, i + PG_ROWS);
          await conn.executeQuery(
            CompiledQuery.raw(
              text,
              columns.map((_, c) => chunk.map((row) => row[c])),
            ),
          );
        }
        return;
      }
      const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / columns.length)));
      for (let i = 0; i < rows.length; i += perStatement) {
        const chunk = rows.slice(i, i + perStatement);
        const params: Array<string | number | null> = [];
        for (const row of chunk) for (const v of row) params.push(v);
        await conn.executeQuery(CompiledQuery.raw(statementFor(table, columns, chunk.length), params));
      }
    },
  };
}

/** Set `count` of these terms to their number of published events, in one pass over the links. */
async function recountTermsOn(conn: Kysely<Database>, termIds: number[]): Promise<void> {
  // One pass over the links (a correlated count per term can end up scanning them per term).
  const ids = [...new Set(termIds)];
  if (ids.length === 0) return;
  const counts = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await conn
      .selectFrom('event_terms')
      .innerJoin('posts', 'posts.id', 'event_terms.event_id')
      .select(['event_terms.term_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('posts.status', '=', 'publish')
      // A recurring event's series is not counted: its occurrences are (as store/terms.ts recounts).
      .where('posts.type', '=', 'tribe_events')
      .where('event_terms.term_id', 'in', ids.slice(i, i + 500))
      .groupBy('event_terms.term_id')
      .execute();
    for (const r of rows) counts.set(Number(r.term_id), Number(r.n));
  }
  await sql.raw('begin').execute(conn);
  try {
    for (const id of ids)
      await conn
        .updateTable('terms')
        .set({ count: counts.get(id) ?? 0 })
        .where('id', '=', id)
        .execute();
    await sql.raw('commit').execute(conn);
  } catch (e) {
    await sql
      .raw('rollback')
      .execute(conn)
      .catch(() => {});
    throw e;
  }
}

/** The loader a bulk load's seeders are given, on this connection. */
function bulkLoaderOn(conn: Kysely<Database>, dialect: DialectName, tx: BulkTransaction): BulkLoader {
  return {
    dialect,
    db: conn,
    async transaction(body) {
      await sql.raw(dialect === 'sqlite' ? 'begin immediate' : 'begin').execute(conn);
      try {
        const out = await body(tx);
        await sql.raw('commit').execute(conn);
        // SQLite: the log starts over after each batch. The load does not yield to the server's
        // checkpointer between batches, and a log that is never reset grew past 20 GB for a
        // million events, each read looking through it, slower and slower.
        if (dialect === 'sqlite')
          await sql
            .raw('pragma wal_checkpoint(TRUNCATE)')
            .execute(conn)
            .catch(() => {});
        return out;
      } catch (e) {
        await sql
          .raw('rollback')
          .execute(conn)
          .catch(() => {});
        throw e;
      }
    },
    async existingSlugs(type) {
      const rows = await conn.selectFrom('posts').select('slug').where('type', '=', type).execute();
      return new Set(rows.map((r) => r.slug));
    },
    async countPosts(type) {
      const r = await conn
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', type)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    recountTerms: (termIds) => recountTermsOn(conn, termIds),
    async termIdsBySlug(taxonomy) {
      const rows = await conn.selectFrom('terms').select(['id', 'slug']).where('taxonomy', '=', taxonomy).execute();
      return new Map(rows.map((r) => [r.slug, Number(r.id)]));
    },
    async analyze() {
      if (dialect === 'postgres') await sql.raw('vacuum analyze').execute(conn);
      else await sql.raw('pragma optimize').execute(conn);
    },
  };
}

/**
 * Open one connection for a bulk load, run `fn`, and restore the connection's settings.
 */
export async function bulkLoad<T>(store: Store, fn: (loader: BulkLoader) => Promise<T>): Promise<T> {
  const dialect = store.dialect;
  return store.db.connection().execute(async (conn) => {
    const loader = bulkLoaderOn(conn, dialect, bulkTransactionOn(conn, dialect));

    // A bulk load touches too much to follow record by record: readers drop what they keep.
    const run = async () => {
      const out = await fn(loader);
      await noteChange(conn, 'all', 0, 'reset');
      return out;
    };

    if (dialect !== 'sqlite') {
      // Commits need not wait for the WAL flush during a bulk load (a crash loses the last batches only).
      await sql.raw('set synchronous_commit = off').execute(conn);
      try {
        const out = await run();
        // Write the loaded pages out now rather than during the next minutes' reads (a load of
        // millions of rows leaves gigabytes for the checkpointer). Needs superuser or pg_checkpoint: skipped otherwise.
        await sql
          .raw('checkpoint')
          .execute(conn)
          .catch(() => {});
        return out;
      } finally {
        await sql
          .raw('reset synchronous_commit')
          .execute(conn)
          .catch(() => {});
      }
    }
    const previous = await sql<{ synchronous: number }>`pragma synchronous`.execute(conn);
    await sql.raw('pragma synchronous = OFF').execute(conn);
    try {
      return await run();
    } finally {
      await sql.raw(`pragma synchronous = ${Number(previous.rows[0]?.synchronous ?? 1)}`).execute(conn);
      // A truncating checkpoint waits for the readers of other connections (a server on the file)
      // through SQLite's busy handler, which the connection otherwise does without (sqlite-waits.ts):
      // given 3 s here, on a command-line load, then taken back.
      await sql.raw('pragma busy_timeout = 3000').execute(conn);
      await sql
        .raw('pragma wal_checkpoint(TRUNCATE)')
        .execute(conn)
        .catch(() => {});
      await sql.raw('pragma busy_timeout = 0').execute(conn);
    }
  });
}

/** The venues and categories seeded series are given: the first 200 published venues, the first 50 categories. */
export async function seriesLinkCandidates(db: Kysely<Database>): Promise<{ venues: number[]; categories: number[] }> {
  const venues = (await db.selectFrom('posts').select('id').where('type', '=', 'tribe_venue').where('status', '=', 'publish').orderBy('id').limit(200).execute()).map((r) => Number(r.id));
  const categories = (await db.selectFrom('terms').select('id').where('taxonomy', '=', 'tribe_events_cat').orderBy('id').limit(50).execute()).map((r) => Number(r.id));
  return { venues, categories };
}
