/**
 * Opening the database: SQLite through better-sqlite3 (default; `sqlite-binding.ts` picks the
 * build for the running Node.js) or PostgreSQL through `pg`,
 * both behind one Kysely instance. Migrations run here, at start-up.
 *
 * @example
 *   const store = await openStore('sqlite::memory:');
 *   await store.db.selectFrom('users').selectAll().execute();
 *   await store.close();
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration, type MigrationProvider, type SqliteDatabase } from 'kysely';
import type { Database } from './schema.js';
import { registerStoreDialect } from './revision.js';
import { createPostgresFeed, createSqliteFeed, registerChangeFeed } from './change-feed.js';
import { createBackgroundReader, registerBackgroundReader } from './background-reader.js';
import { openSqlite, type SqliteConnection, type SqliteStatement } from './sqlite-binding.js';
import { initialMigration } from './migrations/001_initial.js';
import { listingIndexMigration } from './migrations/002_listing_index_and_change_counter.js';
import { changeCounterAllTablesMigration } from './migrations/003_change_counter_all_tables.js';
import { linkedListIndexMigration } from './migrations/004_linked_list_index.js';
import { changeLogMigration } from './migrations/005_change_log.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Human-readable location, for logs (never includes a password). */
  describe: string;
  /** PostgreSQL: the schema the store lives in, when not the default one. */
  schema?: string;
  /** PostgreSQL: the connection pool (its counts feed /metrics). */
  pool?: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: use (and create) this schema instead of `public`. Tests give each run its own. */
  schema?: string;
  /** PostgreSQL only: drop `schema` when the store closes. */
  dropSchemaOnClose?: boolean;
  /** Skip migrations (the caller runs them). */
  skipMigrations?: boolean;
  /** Largest number of pooled PostgreSQL connections. */
  poolSize?: number;
}

/** Raised for a DATABASE_URL that names no supported database. */
export class StoreUrlError extends Error {}

/** The migrations, in order. New ones are appended with a sortable name. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_initial': initialMigration(dialect),
    '002_listing_index_and_change_counter': listingIndexMigration(dialect),
    '003_change_counter_all_tables': changeCounterAllTablesMigration(dialect),
    '004_linked_list_index': linkedListIndexMigration(),
    '005_change_log': changeLogMigration(dialect),
  };
}

class InlineMigrations implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** Apply pending migrations; returns the names applied. */
export async function migrate(store: Store): Promise<string[]> {
  // Kysely looks for its migration tables in every schema unless told which one: with several
  // schemas in one database (parallel test runs) it would find another run's and skip creating its own.
  const migrator = new Migrator({
    db: store.db,
    provider: new InlineMigrations(store.dialect),
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's SQLite driver prepares every query anew; parsing and planning the SQL is a good part
 * of a small query's cost. Keep the most recently used prepared statements (by SQL text) instead.
 * Safe with one connection: Kysely runs one query at a time on it, and better-sqlite3 executes a
 * statement to completion (or, streaming, holds the connection until the iterator is done).
 */
function withStatementCache(database: SqliteConnection, size = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(text: string) {
      let stmt = statements.get(text);
      if (stmt) {
        statements.delete(text);
      } else {
        stmt = database.prepare(text);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, stmt);
      return stmt;
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}

/** The SQLite connection of each SQLite store (for `backupSqlite`). */
const sqliteConnections = new WeakMap<object, SqliteConnection>();

/** Progress of a backup: pages of the source database, and how many are still to copy. */
export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
}

/**
 * SQLite only: copy the database into `file` with SQLite's online backup API, consistent while
 * other connections (a running server) read and write. It copies `pagesPerStep` pages per step
 * (other work runs between steps) and calls `progress` after each. Writes by another connection
 * make SQLite restart the copy; after two restarts the rest is copied in one step (one read
 * snapshot, which WAL writers do not wait for), so a busy database still finishes.
 *
 * @example await backupSqlite(store, '/backups/calendar.db')
 */
export async function backupSqlite(store: Store, file: string, progress?: (p: BackupProgress) => void, { pagesPerStep = 4096 } = {}): Promise<BackupProgress & { restarts: number }> {
  const database = sqliteConnections.get(store.db);
  if (!database) throw new StoreUrlError(`${store.describe} is not a SQLite database`);
  let restarts = 0;
  let lastRemaining = Infinity;
  const result = await database.backup(file, {
    progress(p) {
      if (p.remainingPages > lastRemaining) restarts++;
      lastRemaining = p.remainingPages;
      progress?.(p);
      return restarts >= 2 ? 0x7fffffff : pagesPerStep;
    },
  });
  return { ...result, restarts };
}

function sqliteStore(path: string): Store {
  const file = path === ':memory:' ? ':memory:' : resolve(path);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = openSqlite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma('cache_size = -65536');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  sqliteConnections.set(db, database);
  // The change feed reads on this connection directly (change-feed.ts).
  registerChangeFeed(db, createSqliteFeed(database));
  registerStoreDialect(db, 'sqlite');
  // Long counts run beside the event loop, on a connection of their own (files only).
  const reader = file === ':memory:' ? null : createBackgroundReader(file);
  if (reader) registerBackgroundReader(db, reader);
  return {
    db,
    dialect: 'sqlite',
    describe: `sqlite:${file}`,
    close: async () => {
      await reader?.close();
      await db.destroy();
    },
  };
}

/**
 * PostgreSQL parses and plans every unnamed statement it receives, which costs more than running
 * the small queries of this API. Give each distinct query text a name, so that node-postgres
 * prepares it once per connection and afterwards only binds and executes it. (A prepared `select *`
 * whose table gained a column answers 0A000 "cached plan must not change result type": that text
 * then gets a new name and the query is run unnamed once.)
 */
function preparedStatements(pool: pg.Pool): void {
  const names = new Map<string, string>();
  let generation = 0;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= 5000 || text.length > 20_000 || !/^\s*(select|insert|update|delete|with)\b/i.test(text)) return undefined;
      name = `q${generation}_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
      names.set(text, name);
    }
    return name;
  };
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<unknown>;
    (client as unknown as { query: unknown }).query = (text: unknown, values?: unknown) => {
      const name = typeof text === 'string' ? nameOf(text) : undefined;
      if (name === undefined) return query(text, values);
      return query({ name, text, values }).catch((err: { code?: string }) => {
        if (err?.code !== '0A000') throw err;
        names.delete(text as string);
        generation++;
        return query(text, values);
      });
    };
  });
}

async function postgresStore(url: string, options: OpenOptions): Promise<Store> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new StoreUrlError(`invalid schema name "${schema}"`);
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  preparedStatements(pool);
  // COUNT(*) and other bigints arrive as strings; ids and counts fit in a JS number.
  pg.types.setTypeParser(20, (v) => Number(v));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  registerStoreDialect(db, 'postgres');
  registerChangeFeed(db, createPostgresFeed(db));
  const safeUrl = (() => {
    try {
      const u = new URL(url);
      u.password = '';
      return u.toString();
    } catch {
      return 'postgres://…';
    }
  })();
  return {
    db,
    dialect: 'postgres',
    pool,
    describe: schema ? `${safeUrl} (schema ${schema})` : safeUrl,
    ...(schema ? { schema } : {}),
    close: async () => {
      if (schema && options.dropSchemaOnClose) await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(db);
      await db.destroy();
    },
  };
}

/**
 * Open (and migrate) the store named by a DATABASE_URL.
 *
 * @example await openStore('postgres://postgres@127.0.0.1:5432/test', { schema: 'run_42', dropSchemaOnClose: true })
 */
export async function openStore(url: string, options: OpenOptions = {}): Promise<Store> {
  let store: Store;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new StoreUrlError('DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/calendar.db or sqlite::memory:');
    store = sqliteStore(path);
  } else if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    store = await postgresStore(url, options);
  } else {
    throw new StoreUrlError(`DATABASE_URL must start with sqlite: or postgres:// (got "${url.split(':')[0]}:…")`);
  }
  if (!options.skipMigrations) {
    try {
      await migrate(store);
    } catch (e) {
      await store.close().catch(() => {});
      throw e;
    }
  }
  return store;
}
