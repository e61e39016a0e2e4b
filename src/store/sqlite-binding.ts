/**
 * The SQLite binding, chosen for the running Node.js: the only module that knows there are two.
 *
 * * Node 22 and later: better-sqlite3 13.x, installed under the alias `better-sqlite3-napi`. It is
 *   built on Node-API (prebuilt binaries in the package, no install script), and its statements
 *   can be finalised by the garbage collector at any time. 12.x aborts the process on Node 24.19+
 *   when that happens outside JavaScript (idle GC, worker teardown, exit):
 *   `Assertion failed: (env) != nullptr` in `node::RemoveEnvironmentCleanupHook`.
 * * Node 20 (end of life): better-sqlite3 12.x (`better-sqlite3`, built from source at install,
 *   an optional dependency). 13.x declares node >= 22 and crashes (SIGSEGV) on Node 20.
 *
 * Both have the same JavaScript API (typed by @types/better-sqlite3).
 *
 * @example
 *   const db = openSqlite('/srv/calendar.db');
 *   new Worker(src, { workerData: { driver: sqliteDriverPath() } });  // require(driver) there
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteConnection = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
type SqliteConstructor = typeof BetterSqlite3;

const require = createRequire(import.meta.url);

/** The package for a Node.js major version: 13.x from 22 on, 12.x before. */
export function sqlitePackageFor(nodeMajor: number): 'better-sqlite3-napi' | 'better-sqlite3' {
  return nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';
}

/** The package used by this process. `SQLITE_BINDING` overrides it (tests reproducing the abort). */
export const SQLITE_PACKAGE: string = process.env.SQLITE_BINDING || sqlitePackageFor(Number(process.versions.node.split('.')[0]));

/** Absolute path of the binding's entry, for `require` on worker threads. */
export function sqliteDriverPath(): string {
  try {
    return require.resolve(SQLITE_PACKAGE);
  } catch {
    throw new Error(`the SQLite binding ${SQLITE_PACKAGE} for Node ${process.versions.node} is not installed (run npm ci with this Node version)`);
  }
}

let constructor: SqliteConstructor | undefined;

/** Open a SQLite database file (or `:memory:`) with the binding for this Node.js. */
export function openSqlite(file: string, options?: BetterSqlite3.Options): SqliteConnection {
  constructor ??= require(sqliteDriverPath()) as SqliteConstructor;
  return new constructor(file, options);
}
