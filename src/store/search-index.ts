/**
 * The index the event list's `search` reads (WordPress' `s`: every word a case-insensitive
 * `LIKE '%word%'` on title, excerpt or content). A scan of every post's text costs 0.4 s per new
 * term at 300,000 events; both stores index the three columns by trigrams instead.
 *
 * SQLite: `posts_search`, an FTS5 table with the `trigram` tokenizer holding the three columns
 * passed through `lower()` (SQLite's folds ASCII letters only, as LIKE does) and matched case
 * sensitively: a phrase query for a word lowered the same way finds exactly the rows `LIKE` finds
 * (a substring, ASCII letters folded, `%`, `_` and `\` literal), for words of three characters or
 * more (shorter ones have no trigram: they are still scanned). Triggers on `posts` keep it on
 * every write path (API, imports, series, seeds, restores of a copied file).
 *
 * PostgreSQL: `pg_trgm` GIN indexes on the three columns, which serve the list's `ILIKE` as it is
 * written (the planner rechecks every candidate, so results do not change). When the extension
 * cannot be created (not installed, no privilege), the migration goes on without them and the
 * server says so at start-up (`searchIndexMissing`): searches then scan, on the database server.
 *
 * @example
 *   ftsPhrases(['Jazz', 'open air']) // '"jazz" AND "open air"'
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from './handle.js';
import type { Executor } from './schema.js';

/** The SQLite index table, its columns in the order the list searches them. */
export const SEARCH_TABLE = 'posts_search';

/** The PostgreSQL indexes, one per searched column. */
const TRIGRAM_INDEXES = [
  ['posts_title_trgm', 'title'],
  ['posts_excerpt_trgm', 'excerpt'],
  ['posts_content_trgm', 'content'],
] as const;

const SQLITE_VALUES = (row: 'new' | 'posts') => {
  const p = row === 'new' ? 'new.' : '';
  return `${row === 'new' ? 'new.id' : 'id'}, lower(${p}title), lower(${p}excerpt), lower(${p}content)`;
};

/**
 * The SQLite index and its triggers. Contentless (`content=''`: only the index is stored) with
 * `contentless_delete=1`, so that a trigger removes a row by its id without its old text.
 */
export const SQLITE_SEARCH_INDEX_SQL = [
  `create virtual table ${SEARCH_TABLE} using fts5(title, excerpt, content, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
  `create trigger posts_search_insert after insert on posts begin
     insert into ${SEARCH_TABLE}(rowid, title, excerpt, content) values (${SQLITE_VALUES('new')});
   end`,
  `create trigger posts_search_update after update of title, excerpt, content on posts begin
     delete from ${SEARCH_TABLE} where rowid = old.id;
     insert into ${SEARCH_TABLE}(rowid, title, excerpt, content) values (${SQLITE_VALUES('new')});
   end`,
  `create trigger posts_search_delete after delete on posts begin
     delete from ${SEARCH_TABLE} where rowid = old.id;
   end`,
  `insert into ${SEARCH_TABLE}(rowid, title, excerpt, content) select ${SQLITE_VALUES('posts')} from posts`,
];

/**
 * Whether the SQLite index can find this search word: three characters or more (one trigram at
 * least), and none that an FTS5 query string cannot hold (NUL ends it; a lone surrogate is no
 * UTF-8). The others are scanned with LIKE.
 */
export function indexableWord(word: string): boolean {
  return [...word].length >= 3 && !/[\u0000\p{Cs}]/u.test(word);
}

/**
 * An FTS5 query matching the rows where every word occurs, as LIKE would find it: each word a
 * quoted phrase (a `"` doubled), its ASCII letters lowered as the index's text is.
 */
export function ftsPhrases(words: readonly string[]): string {
  return words.map((w) => `"${w.replace(/[A-Z]+/g, (c) => c.toLowerCase()).replace(/"/g, '""')}"`).join(' AND ');
}

/**
 * PostgreSQL: create `pg_trgm` (in `public` when there is one, so that a schema dropped later does
 * not take it along) and the GIN indexes. Returns the reason when it could not; the migration's
 * transaction goes on without them (a savepoint undoes the attempt).
 */
export async function createTrigramIndexes(db: Kysely<any>): Promise<string | undefined> {
  await sql`savepoint search_index`.execute(db);
  try {
    // Parallel migrations of several schemas of one database would race to create it.
    await sql`select pg_advisory_xact_lock(hashtext('events-calendar pg_trgm'))`.execute(db);
    const found = await sql<{ schema: string }>`select extnamespace::regnamespace::text as "schema" from pg_extension where extname = 'pg_trgm'`.execute(db);
    if (found.rows.length === 0) {
      const hasPublic = await sql<{ n: number }>`select count(*)::int as "n" from pg_namespace where nspname = 'public'`.execute(db);
      if (hasPublic.rows[0]?.n) await sql`create extension if not exists pg_trgm with schema public`.execute(db);
      else await sql`create extension if not exists pg_trgm`.execute(db);
    }
    const [{ schema }] = (await sql<{ schema: string }>`select extnamespace::regnamespace::text as "schema" from pg_extension where extname = 'pg_trgm'`.execute(db)).rows;
    for (const [name, column] of TRIGRAM_INDEXES) {
      await sql`create index if not exists ${sql.id(name)} on "posts" using gin (${sql.id(column)} ${sql.raw(schema!)}.gin_trgm_ops)`.execute(db);
    }
    await sql`release savepoint search_index`.execute(db);
    return undefined;
  } catch (e) {
    await sql`rollback to savepoint search_index`.execute(db);
    await sql`release savepoint search_index`.execute(db);
    return (e as Error).message;
  }
}

/**
 * Why the store's search index is missing (PostgreSQL without `pg_trgm`), or undefined when it is
 * there: the server logs it at start-up.
 */
export async function searchIndexMissing(db: Executor, dialect: DialectName): Promise<string | undefined> {
  if (dialect === 'sqlite') return undefined;
  const rows = await sql<{ n: number }>`select count(*)::int as "n" from pg_indexes where schemaname = current_schema() and indexname in (${sql.join(TRIGRAM_INDEXES.map(([name]) => name))})`.execute(
    db,
  );
  if ((rows.rows[0]?.n ?? 0) === TRIGRAM_INDEXES.length) return undefined;
  const available = await sql<{ n: number }>`select count(*)::int as "n" from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  return available.rows[0]?.n
    ? 'the pg_trgm extension could not be created (it needs the CREATE privilege on the database, or a superuser)'
    : 'the pg_trgm extension is not installed on the database server (postgresql-contrib)';
}
