/**
 * Opening the database: SQLite through better-sqlite3 (default) or PostgreSQL through `pg`,
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
import { DEFAULT_MIGRATION_TABLE, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import { SqliteInListDialect } from './sqlite-in-lists.js';
import type { LockWait } from './sqlite-waits.js';
import { StoreDb, partsOf, type DialectName, type StoreParts } from './handle.js';
import { registerKept, StoreMetrics, type KeptStructure } from '../metrics.js';
import { createPostgresFeed, registerFeedMetrics, type ChangeFeed } from './change-feed.js';
import { createSqliteFeed } from './sqlite-feed.js';
import { quietWrites } from './quiet-writes.js';
import { createChangeLog, type ChangeLog } from './change-log.js';
import { createBackgroundReader } from './background-reader.js';
import { startCheckpointer } from './checkpointer.js';
import { createSqliteDirect } from './sqlite-direct.js';
import { MAIN_CACHE_KIB } from './memory-bounds.js';
import BetterSqlite3 from 'better-sqlite3';
import { isLostConnection, storeFault } from './faults.js';
import { maskUrl } from '../config.js';
import { searchIndexMissing } from './search-index.js';
import { migrations } from './migrations/index.js';
import { acrossCalendars, CALENDAR_SCOPE } from './calendar-scope.js';

export type { DialectName } from './handle.js';

export interface Store {
  /** The Kysely handle; its `parts` are what code given only the handle needs (handle.ts). */
  db: StoreDb;
  dialect: DialectName;
  /** Human-readable location, for logs (never includes a password). */
  describe: string;
  /** The change log's reader: rows after a cursor, and wake-ups after commits (change-log.ts). */
  changes: ChangeLog;
  /** The change feed: the in-process caches' consumer of the log (change-feed.ts). */
  feed: ChangeFeed;
  /** PostgreSQL: the schema the store lives in, when not the default one. */
  schema?: string;
  /** PostgreSQL: the connection pool (its counts feed /metrics). */
  pool?: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /** Where connection failures noticed outside any request (idle connections lost) are reported. */
  setLogger(logger: StoreLogger): void;
  close(): Promise<void>;
}

/** The part of a pino/Fastify logger the store uses. */
export interface StoreLogger {
  warn(obj: object, msg: string): void;
}

/** How long to wait for the database by default: a PostgreSQL connection attempt, a SQLite lock. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 3000;

export interface OpenOptions {
  /** PostgreSQL only: use (and create) this schema instead of `public`. Tests give each run its own. */
  schema?: string;
  /** PostgreSQL only: drop `schema` when the store closes. */
  dropSchemaOnClose?: boolean;
  /** Skip migrations (the caller runs them). */
  skipMigrations?: boolean;
  /** Largest number of pooled PostgreSQL connections. */
  poolSize?: number;
  /**
   * How long to wait for the database (default 3000 ms): PostgreSQL, for a new connection (a
   * request then fails with 503 instead of hanging while the server is down); SQLite, for a lock
   * held by another connection (another process, the write worker), waited for off the event loop
   * (sqlite-waits.ts).
   */
  timeoutMs?: number;
  /**
   * Hear the text of every statement the store sends (the suite checks that each one on calendar
   * data names its calendar: test/store/calendar-statements.test.ts). Costs a call per statement.
   */
  onStatement?: (sqlText: string) => void;
  /**
   * SQLite in memory only: start from a copy of this database (`serialize()` of another), e.g. an
   * already migrated one; migrations then find nothing to do. The suite's servers start this way.
   */
  sqliteImage?: Buffer;
}

/** Raised for a DATABASE_URL that names no supported database. */
export class StoreUrlError extends Error {}

class InlineMigrations implements MigrationProvider {
  private readonly dialect: DialectName;

  constructor(dialect: DialectName) {
    this.dialect = dialect;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** PostgreSQL errors of a catalog query that raced another schema's DDL (see `migrate`). */
const RACING_CATALOG_CODES = new Set(['3F000', '42P01', '42703']);

/** Apply pending migrations (up to `to` when given: a database as an earlier version left it, for tests); returns the names applied. */
export async function migrate(store: Store, to?: string): Promise<string[]> {
  // Kysely looks for its migration tables in every schema unless told which one: with several
  // schemas in one database (parallel test runs) it would find another run's and skip creating its own.
  const migrator = new Migrator({
    db: store.db,
    provider: new InlineMigrations(store.dialect),
    // Migrations numbered in parallel may land in any order: a database that already has a later
    // one still gets an earlier one added afterwards.
    allowUnorderedMigrations: true,
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  // Kysely looks for its tables with a query over every schema of the database; another schema
  // dropped or migrated meanwhile (a parallel test run's, another application's) fails it with
  // 3F000 ("schema does not exist"), 42P01 (a relation dropped) or 42703 (a column of a table being
  // altered: "column … of relation sync_state does not exist"), which say nothing about ours: ask
  // again. A failure of our own migrations repeats and is thrown after the last attempt.
  // Migrations work on the whole database, whatever calendar the rows are of.
  const run = () => acrossCalendars(() => (to === undefined ? migrator.migrateToLatest() : migrator.migrateTo(to)));
  let outcome = await run();
  for (let attempt = 1; attempt < 5 && RACING_CATALOG_CODES.has((outcome.error as { code?: string } | undefined)?.code ?? ''); attempt++) {
    await new Promise((r) => setTimeout(r, 50 * attempt));
    outcome = await run();
  }
  const { error, results } = outcome;
  // Tables made (or made anew) have no marking triggers yet (quiet-writes.ts).
  partsOf(store.db)?.quiet?.install();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's SQLite driver prepares every query anew; parsing and planning the SQL is a good part
 * of a small query's cost. Keep the most recently used prepared statements (by SQL text) instead.
 * Safe with one connection: Kysely runs one query at a time on it, and better-sqlite3 executes a
 * statement to completion (or, streaming, holds the connection until the iterator is done).
 */
function withStatementCache(database: BetterSqlite3.Database, size = 500, onCommit?: () => void): { prepare(sqlText: string): BetterSqlite3.Statement; close(): void; kept: KeptStructure } {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    kept: { entries: () => statements.size, maxEntries: size },
    prepare(sqlText: string) {
      // Transactions take the write lock when they begin: a deferred one that reads first and
      // then meets another process' lock fails at once with SQLITE_BUSY (SQLite does not wait
      // there, to avoid a deadlock), whereas BEGIN IMMEDIATE can be waited for and tried again
      // (sqlite-waits.ts). The server has one connection, whose transactions run one after the
      // other anyway.
      const text = sqlText === 'begin' ? 'begin immediate' : sqlText;
      // A transaction commits (the statement runs right after it is prepared): the change log
      // wakes its subscribers (they look on a later turn of the event loop, after the commit).
      if (text === 'commit') onCommit?.();
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
  const database = partsOf(store.db)?.connection;
  if (!database) throw new StoreUrlError(`${store.describe} is not a SQLite database`);
  let restarts = 0;
  let lastRemaining = Infinity;
  const result = await database.backup(file, {
    progress(p) {
      // A step that copied nothing new started over (a write by another connection restarts the
      // copy at its next step): with as much or more left than after the step before.
      if (p.remainingPages >= lastRemaining) restarts++;
      lastRemaining = p.remainingPages;
      progress?.(p);
      return restarts >= 2 ? 0x7fffffff : pagesPerStep;
    },
  });
  return { ...result, restarts };
}

/**
 * The geolocation filters compute `sin` and `cos` in SQL (`geo.ts`). SQLite has them when built
 * with its math functions (both bindings' builds are); a build without them gets the same
 * functions from JavaScript, registered as deterministic.
 */
export function ensureMathFunctions(database: BetterSqlite3.Database): 'native' | 'javascript' {
  try {
    database.prepare('select sin(1), cos(1)').get();
    return 'native';
  } catch {
    database.function('sin', { deterministic: true }, (x: unknown) => (x === null ? null : Math.sin(Number(x))));
    database.function('cos', { deterministic: true }, (x: unknown) => (x === null ? null : Math.cos(Number(x))));
    return 'javascript';
  }
}

/**
 * `fold_case(text)`: lower case as JavaScript (and PostgreSQL's lower() under a UTF-8 locale)
 * folds it, for names compared case-insensitively (duplicate avoidance); SQLite's own lower()
 * folds ASCII letters only.
 */
export function registerFoldCase(database: BetterSqlite3.Database): void {
  database.function('fold_case', { deterministic: true }, (x: unknown) => (x === null ? null : String(x).toLowerCase()));
}

function sqliteStore(path: string, options: OpenOptions): Store {
  const file = path === ':memory:' ? ':memory:' : resolve(path);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = file === ':memory:' && options.sqliteImage ? new BetterSqlite3(options.sqliteImage) : new BetterSqlite3(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Another connection's write lock is waited for off the event loop, by the driver (sqlite-waits.ts).
  database.pragma('busy_timeout = 0');
  // Its page cache, bounded (memory-bounds.ts; counted in RSS once filled).
  database.pragma(`cache_size = -${MAIN_CACHE_KIB}`);
  // Savepoints (group commit: a savepoint per write) journal the pages they change; on the default
  // temp_store those journals go to a temporary file once they pass 64 KiB, at one system call per
  // page (about 60 per event create). In memory they cost a copy each.
  database.pragma('temp_store = MEMORY');
  ensureMathFunctions(database);
  registerFoldCase(database);
  // This connection's writes outside the change log mark themselves, so that other servers on the
  // file keep what they have (quiet-writes.ts); added again after migrating.
  const quiet = quietWrites(database);
  quiet.install();
  // The change feed reads on this connection directly (change-feed.ts); it sees this
  // connection's commits itself (`total_changes()`, read after each commit the change log reports).
  const feed = createSqliteFeed(database, quiet.own);
  const parts: Omit<StoreParts, 'changes'> & { changes?: StoreParts['changes'] } = {
    dialect: 'sqlite',
    feed,
    connection: database,
    quiet,
    metrics: new StoreMetrics(),
    slots: new Map(),
  };
  const statements = withStatementCache(database, 500, () => parts.changes?.committed());
  const heard = options.onStatement;
  const cached = heard
    ? {
        ...statements,
        prepare: (text: string) => {
          heard(text);
          return statements.prepare(text);
        },
      }
    : statements;
  const waits = parts.metrics.lockWaits;
  const wait: LockWait = {
    timeoutMs: Math.floor(options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS),
    inTransaction: () => database.inTransaction,
    waited(ms, ran) {
      if (ran) waits.ran++;
      else waits.gaveUp++;
      waits.seconds += ms / 1000;
    },
  };
  const db = new StoreDb({ dialect: new SqliteInListDialect({ database: cached }, wait), plugins: [CALENDAR_SCOPE] }, parts as StoreParts);
  const changes = (parts.changes = createChangeLog(db));
  // A commit on this connection: the feed reads `total_changes()` again at its next sync (between
  // two, a sync in a turn that looked already calls nothing in SQLite).
  changes.onCommit(() => feed.expectOwnCommit());
  registerKept(db, 'sqlite_statements', cached.kept);
  registerFeedMetrics(db, feed);
  // Write transactions' hot statements run on the connection directly (sqlite-direct.ts).
  parts.direct = createSqliteDirect((text) => cached.prepare(text));
  // Long counts run beside the event loop, on a connection of their own (files only).
  const reader = file === ':memory:' ? null : createBackgroundReader(file);
  if (reader) parts.reader = reader;
  // WAL checkpoints beside the event loop, not in a request's commit (files only).
  const checkpointer = file === ':memory:' ? null : startCheckpointer(file, database);
  if (checkpointer) parts.checkpointer = checkpointer;
  return {
    db,
    dialect: 'sqlite',
    describe: `sqlite:${file}`,
    changes,
    feed,
    setLogger: () => {},
    close: async () => {
      changes.close();
      await reader?.close();
      await checkpointer?.close();
      await db.destroy();
    },
  };
}

type QueryFn = (text: unknown, values?: unknown) => Promise<unknown>;

/**
 * PostgreSQL parses and plans every unnamed statement it receives, which costs more than running
 * the small queries of this API. Give each distinct query text a name, so that node-postgres
 * prepares it once per connection and afterwards only binds and executes it. (A prepared `select *`
 * whose table gained a column answers 0A000 "cached plan must not change result type": that text
 * then gets a new name and the query is run unnamed once.)
 */
function preparedStatements(owner: object): (query: QueryFn) => QueryFn {
  const names = new Map<string, string>();
  registerKept(owner, 'postgres_statement_names', { entries: () => names.size, maxEntries: 5000 });
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
  return (query) => (text, values) => {
    const name = typeof text === 'string' ? nameOf(text) : undefined;
    if (name === undefined) return query(text, values);
    return query({ name, text, values }).catch((err: { code?: string }) => {
      if (err?.code !== '0A000') throw err;
      names.delete(text as string);
      generation++;
      return query(text, values);
    });
  };
}

/** Whether a statement may change data (reads answer false; a false "true" only costs a look). */
function isWrite(text: string): boolean {
  if (/^\s*select\b/i.test(text)) return false;
  if (/^\s*with\b/i.test(text)) return /\b(insert\s+into|update|delete\s+from)\b/i.test(text);
  return true;
}

/**
 * Connections that die must not take the process with them, and a read that meets a connection
 * the server has just closed (restart, failover, `pg_terminate_backend`) should not fail for it:
 *
 * - every client gets an 'error' listener for as long as it lives (pg-pool listens only while a
 *   client is idle; an error on a checked-out client without a listener would be thrown);
 * - a read (`select`, or a `with` that writes nothing) sent outside a transaction whose connection turns out to be lost is sent again on
 *   another connection of the pool (statements inside a transaction are not: the transaction is
 *   gone with its connection, and the error reaches the caller as a 503). Failures to connect are
 *   not retried: the server is down, and the caller gets its 503 at once.
 */
function resilientClients(pool: pg.Pool, wrap: (query: QueryFn) => QueryFn, report: (err: unknown, context: string) => void, committed: () => void): void {
  const maxConnections = pool.options.max ?? 10;
  /** Each client's query function without the retry, for the retry itself. */
  const plain = new WeakMap<object, QueryFn>();
  pool.on('connect', (client) => {
    client.on('error', (err) => report(err, 'database connection lost'));
    const raw = client.query.bind(client) as QueryFn;
    const query = wrap(raw);
    plain.set(client, query);
    let inTransaction = false;
    (client as unknown as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      // Callers that pass a callback or a query object (none in this code base) get pg's own query.
      if (callback !== undefined || typeof values === 'function' || typeof text !== 'string') return (raw as (...a: unknown[]) => unknown)(text, values, callback);
      let commits = false;
      if (/^\s*(begin|start\s+transaction)\b/i.test(text)) inTransaction = true;
      else if (/^\s*(commit|end|rollback)\s*;?\s*$/i.test(text)) {
        inTransaction = false;
        commits = !/^\s*rollback/i.test(text);
      } else commits = !inTransaction && isWrite(text);
      // A read (a select, or a `with` that writes nothing: the change feed's look) may be sent again.
      const retriable = !inTransaction && /^\s*(select|with)\b/i.test(text) && !isWrite(text);
      const first = query(text, values);
      // A commit, or a write outside a transaction: the change feed must look again (a look in
      // the meantime may have come before it). Attached before the caller awaits the statement.
      if (commits) void first.then(committed, committed);
      if (!retriable) return first;
      return first.catch(async (err: unknown) => {
        if (!isLostConnection(err)) throw err;
        report(err, 'database connection lost during a read; retrying it on another connection');
        // The pool may hand out other connections killed at the same moment (a restart closes
        // them all) that it has not noticed yet: each fails at once and leaves the pool, so
        // trying at most once per pooled connection, plus a new one, ends with a live one.
        let lastError = err;
        for (let attempt = 0; attempt <= maxConnections; attempt++) {
          const other = await pool.connect();
          let lost = false;
          try {
            return await plain.get(other)!(text, values);
          } catch (e) {
            lost = isLostConnection(e);
            if (!lost) throw e;
            lastError = e;
          } finally {
            other.release(lost ? (lastError as Error) : undefined);
          }
        }
        throw lastError;
      });
    };
  });
  // An idle client that fails (the server closed it) is dropped by the pool, which then emits
  // 'error': without a listener that would end the process.
  pool.on('error', (err) => report(err, 'idle database connection lost'));
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
    // Fail fast while the server is down or unreachable; the pool reconnects once it is back.
    connectionTimeoutMillis: options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS,
    keepAlive: true,
    // Names our sessions in pg_stat_activity (an `application_name` in the URL takes precedence).
    application_name: 'events-calendar',
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  let logger: StoreLogger | undefined;
  // One line per kind of failure and second at most: a restart closes every pooled connection at once.
  let lastReport = '';
  let lastReportAt = 0;
  const report = (err: unknown, context: string) => {
    const key = `${context}:${(err as Error)?.message}`;
    const now = Date.now();
    if (key === lastReport && now - lastReportAt < 1000) return;
    lastReport = key;
    lastReportAt = now;
    logger?.warn({ err }, context);
  };
  // COUNT(*) and other bigints arrive as strings; ids and counts fit in a JS number.
  pg.types.setTypeParser(20, (v) => Number(v));
  const parts = { dialect: 'postgres', metrics: new StoreMetrics(), slots: new Map() } as unknown as StoreParts;
  const db = new StoreDb({ dialect: new PostgresDialect({ pool }), plugins: [CALENDAR_SCOPE], ...(options.onStatement ? { log: (event) => options.onStatement!(event.query.sql) } : {}) }, parts);
  const feed = (parts.feed = createPostgresFeed(db));
  registerFeedMetrics(db, feed);
  const changes = (parts.changes = createChangeLog(db));
  // A commit of this process: the feed's next look reads the log at once.
  changes.onCommit(() => feed.expectOwnCommit());
  // Before the first connection (Kysely and the feed connect on their first query).
  resilientClients(pool, preparedStatements(db), report, () => changes.committed());
  // Named in logs and the CLI's output: its password and secret parameters masked.
  const safeUrl = maskUrl(url);
  return {
    db,
    dialect: 'postgres',
    changes,
    feed,
    pool,
    describe: schema ? `${safeUrl} (schema ${schema})` : safeUrl,
    ...(schema ? { schema } : {}),
    setLogger: (l) => {
      logger = l;
      // Said once the server has a logger: without pg_trgm, every new search scans the posts.
      searchIndexMissing(db, 'postgres').then(
        (reason) => reason && l.warn({ reason }, 'search runs without its trigram index (every new search scans the posts): install pg_trgm, then create the indexes of docs/operations.md'),
        () => {},
      );
    },
    close: async () => {
      changes.close();
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
    store = sqliteStore(path, options);
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

/** What `/readyz` reports about the store. */
export interface Readiness {
  ready: boolean;
  database: { status: 'ok' | 'unavailable' | 'error'; message?: string; latency_ms?: number };
  migrations: { status: 'ok' | 'pending' | 'unknown'; expected: number; applied?: number; pending?: string[] };
}

class ReadinessTimeout extends Error {}

/**
 * Is the store usable: does the database answer a cheap query within `timeoutMs`, and are all
 * migrations of this version applied? One query does both (it reads Kysely's migration table).
 *
 * @example (await checkReadiness(store, 2000)).ready
 */
export async function checkReadiness(store: Store, timeoutMs = 2000): Promise<Readiness> {
  const expected = Object.keys(migrations(store.dialect));
  const started = performance.now();
  const query = sql<{ name: string }>`select ${sql.ref('name')} from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(store.db);
  query.catch(() => {}); // when the timeout wins, the query's own failure is of no interest
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadinessTimeout(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  let applied: string[];
  try {
    applied = (await Promise.race([query, deadline])).rows.map((r) => r.name);
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    const missingTable = (e as { code?: string })?.code === '42P01' || /no such table/.test(message);
    if (!missingTable) {
      const unavailable = e instanceof ReadinessTimeout || storeFault(e) !== undefined;
      return {
        ready: false,
        database: { status: unavailable ? 'unavailable' : 'error', message },
        migrations: { status: 'unknown', expected: expected.length },
      };
    }
    applied = [];
  } finally {
    clearTimeout(timer);
  }
  const latency = Math.round((performance.now() - started) * 10) / 10;
  const pending = expected.filter((name) => !applied.includes(name));
  return {
    ready: pending.length === 0,
    database: { status: 'ok', latency_ms: latency },
    migrations: { status: pending.length ? 'pending' : 'ok', expected: expected.length, applied: applied.filter((n) => expected.includes(n)).length, ...(pending.length ? { pending } : {}) },
  };
}
