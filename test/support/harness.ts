/**
 * Black-box test harness: a real server on a random port over a fresh store, on SQLite and (when
 * TEST_POSTGRES_URL is set) on PostgreSQL in a schema of its own that is dropped afterwards.
 *
 * @example
 *   forEachStore('events list', (t) => {
 *     it('is empty', async () => {
 *       const res = await t.api.get('/events');
 *       assert.equal(res.status, 200);
 *     });
 *   });
 */
import { after, before, describe } from 'node:test';
import { randomBytes } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { openStore, type OpenOptions } from '../../src/store/db.js';
import type { Role } from '../../src/domain/permissions.js';
import { freePort } from '../../bench/src/processes.js';
import { freshDatabase, type FreshDatabase } from './pg-template.js';

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  url: string;
}

/** The stores every HTTP test runs against. */
export const STORES: StoreKind[] = [{ name: 'sqlite', url: 'sqlite::memory:' }, ...(process.env.TEST_POSTGRES_URL ? [{ name: 'postgres' as const, url: process.env.TEST_POSTGRES_URL }] : [])];

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** parsed JSON (or the raw text when the body is not JSON) */
  body: any;
  text: string;
}

export interface RequestOptions {
  /** JSON body */
  json?: unknown;
  /** form body: a string (already encoded) or an object (qs-encoded with PHP brackets) */
  form?: string | Record<string, unknown>;
  /** query string (string or object) */
  query?: string | Record<string, string | number | boolean | Array<string | number> | undefined>;
  /** 'admin', a role name created by `user()`, a login:password pair, or null for anonymous */
  as?: string | null;
  headers?: Record<string, string>;
}

export interface Client {
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  get(path: string, options?: RequestOptions): Promise<ApiResponse>;
  post(path: string, options?: RequestOptions): Promise<ApiResponse>;
  put(path: string, options?: RequestOptions): Promise<ApiResponse>;
  patch(path: string, options?: RequestOptions): Promise<ApiResponse>;
  delete(path: string, options?: RequestOptions): Promise<ApiResponse>;
}

export interface TestServer {
  built: BuiltApp;
  config: Config;
  /** The database URL the store was opened with (PostgreSQL: with the schema in `built.store.schema`). */
  storeUrl: string;
  /** The URL a CLI or another connection reaches this server's data with (PostgreSQL: its search_path set). */
  databaseUrl: string;
  /** 'http://127.0.0.1:PORT' */
  origin: string;
  /** '{origin}/api/calendar/events/v1' */
  base: string;
  api: Client;
  /** Create a user of this role (login = role unless given); returns its login:password. */
  user(role: Role, login?: string): Promise<{ id: number; credentials: string }>;
  close(): Promise<void>;
}

export const ADMIN = { login: 'admin', password: 'admin-password' };

function encodeForm(value: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (prefix: string, v: unknown) => {
    if (Array.isArray(v)) v.forEach((item, i) => walk(`${prefix}[${typeof item === 'object' && item !== null ? i : ''}]`, item));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(`${prefix}[${k}]`, x);
    else parts.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(v ?? ''))}`);
  };
  for (const [k, v] of Object.entries(value)) walk(k, v);
  return parts.join('&').replace(/%5B/g, '[').replace(/%5D/g, ']');
}

function encodeQuery(q: RequestOptions['query']): string {
  if (q === undefined) return '';
  if (typeof q === 'string') return q;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) parts.push(`${encodeURIComponent(k)}[]=${encodeURIComponent(String(item))}`);
    else parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join('&');
}

let counter = 0;

let sqliteTemplate: Promise<Buffer> | undefined;

/**
 * A database of its own has an identity of its own: the id and secret its sync tokens carry, drawn
 * at random by migrations 007 and 012, are drawn again for each copy of the template (a token of
 * one copy is another's "token of another database"), as pg-template.ts does for PostgreSQL.
 */
function redrawIdentity(connection: BetterSqlite3.Database): void {
  const id = connection.prepare('update sync_state set database_id = ? where id = 1').run(randomBytes(8).toString('hex'));
  const secret = connection.prepare("update settings set value = ? where name = 'sync_token_secret'").run(randomBytes(32).toString('hex'));
  if (id.changes !== 1 || secret.changes !== 1) throw new Error('the SQLite template has no sync identity to draw again (migrations 007 and 012)');
}

/**
 * An in-memory SQLite database with every migration applied, serialized: built once per test
 * process by `openStore` as a server's would be, then copied for each server. The migrations
 * themselves stay tested where a test opens a store of its own (test/store/, the upgrade tests).
 */
function migratedSqlite(): Promise<Buffer> {
  return (sqliteTemplate ??= openStore('sqlite::memory:').then(async (store) => {
    try {
      return store.db.parts.connection!.serialize();
    } finally {
      await store.close();
    }
  }));
}

/**
 * Start a server on a fresh store (`storeOptions` add to or override the harness' own), or, with
 * `peerOf`, a second instance on the same database as that server (SQLite: give a file URL to
 * both; PostgreSQL: the same schema, left to the first to drop).
 */
export async function startServer(kind: StoreKind, env: Record<string, string> = {}, { peerOf, ...storeOptions }: OpenOptions & { peerOf?: TestServer } = {}): Promise<TestServer> {
  // PostgreSQL: a copy of the migrated template (pg-template.ts), unless a test asks for a schema,
  // its own migrations or another server's database (or TEST_POSTGRES_TEMPLATE=off: every server
  // migrates a schema of its own, as before the template).
  let fresh: FreshDatabase | undefined;
  let storeUrl = kind.url;
  let schema: string | undefined;
  if (kind.name === 'postgres') {
    if (peerOf) {
      storeUrl = peerOf.storeUrl;
      schema = peerOf.built.store.schema;
    } else if (storeOptions.schema === undefined && !storeOptions.skipMigrations && process.env.TEST_POSTGRES_TEMPLATE !== 'off') {
      fresh = await freshDatabase(kind.url);
      storeUrl = fresh.url;
      schema = fresh.schema;
    } else {
      schema = `t_${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;
    }
  }
  // SQLite in memory: a copy of a database migrated once in this process (migrating one takes
  // about a third of a server's start), unless a test asks for its own migrations.
  const sqliteImage = kind.name === 'sqlite' && kind.url === 'sqlite::memory:' && !storeOptions.skipMigrations && process.env.TEST_SQLITE_TEMPLATE !== 'off' ? await migratedSqlite() : undefined;
  let store;
  try {
    store = await openStore(storeUrl, { schema, dropSchemaOnClose: !peerOf && !fresh, poolSize: 4, ...(sqliteImage ? { sqliteImage } : {}), ...storeOptions });
    if (sqliteImage) redrawIdentity(store.db.parts.connection!);
  } catch (e) {
    await fresh?.drop();
    throw e;
  }
  const databaseUrl = fresh
    ? fresh.urlWithSchema
    : kind.name === 'postgres'
      ? `${storeUrl}${storeUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${store.schema}`)}`
      : storeUrl;
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: kind.name === 'postgres' ? databaseUrl : kind.url,
    CALENDAR_ADMIN_USER: ADMIN.login,
    CALENDAR_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'silent',
    // The tests' short passwords pass; the password policy's own tests set it (test/http/people-*.test.ts).
    PASSWORD_MIN_LENGTH: '1',
    PASSWORD_MIN_STRENGTH: '0',
    ...env,
  });
  const built = await buildApp(config, { store, logger: false });
  await built.app.listen({ port, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}${config.restRoot}/calendar/events/v1`;
  const credentials = new Map<string, string>([['admin', `${ADMIN.login}:${ADMIN.password}`]]);

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const who = options.as === undefined ? null : options.as;
    if (who !== null) {
      const cred = credentials.get(who) ?? who;
      headers.authorization = 'Basic ' + Buffer.from(cred).toString('base64');
    }
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = typeof options.form === 'string' ? options.form : encodeForm(options.form);
    }
    const query = encodeQuery(options.query);
    const url =
      (path.startsWith('http') ? path : path.startsWith('/api') || path.startsWith('/?') || path === '/' ? origin + path : base + path) + (query ? (path.includes('?') ? '&' : '?') + query : '');
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const api: Client = {
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, o) => request('POST', p, o),
    put: (p, o) => request('PUT', p, o),
    patch: (p, o) => request('PATCH', p, o),
    delete: (p, o) => request('DELETE', p, o),
  };

  return {
    built,
    config,
    storeUrl,
    databaseUrl,
    origin,
    base,
    api,
    async user(role, login = role) {
      const password = `${login}-pw`;
      const row = await built.services.users.add({ login, role, password });
      credentials.set(login, `${login}:${password}`);
      return { id: Number(row.id), credentials: `${login}:${password}` };
    },
    async close() {
      // A response a test left unread keeps its connection busy, and closing waited until the test
      // process' garbage collector dropped it (70 s once). Past a second, what is left is closed.
      const force = setTimeout(() => built.app.server.closeAllConnections(), 1000);
      try {
        await built.app.close();
      } finally {
        clearTimeout(force);
      }
      await store.close();
      await fresh?.drop();
    },
  };
}

/**
 * Two instances of the service on one database (SQLite: a file in a temporary folder of its own,
 * named after `prefix`; PostgreSQL: one schema), as two servers of a deployment share it; `envA`
 * and `envB` add to each one's settings. `close` stops both and removes the folder.
 */
export async function startTwoInstances(
  kind: StoreKind,
  prefix: string,
  envA: Record<string, string> = {},
  envB: Record<string, string> = envA,
): Promise<{ a: TestServer; b: TestServer; close(): Promise<void> }> {
  let shared: StoreKind = kind;
  let dir: string | undefined;
  if (kind.name === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    shared = { name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` };
  }
  const a = await startServer(shared, envA);
  const b = await startServer(shared, envB, { peerOf: a });
  return {
    a,
    b,
    async close() {
      await b.close();
      await a.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Run a block of tests once per store, each with its own server started before and closed after.
 * Tests inside use `t.api`, `t.user(…)`, `t.base`, … through the object passed in (filled once started).
 */
export function forEachStore(title: string, body: (t: TestServer) => void, env: Record<string, string> = {}): void {
  for (const kind of STORES) {
    describe(`${title} [${kind.name}]`, () => {
      const holder = {} as TestServer;
      before(async () => {
        Object.assign(holder, await startServer(kind, env));
      });
      after(async () => {
        await holder.close?.();
      });
      body(holder);
    });
  }
}

/** Top-level keys of an object, in order. */
export function keysOf(o: unknown): string[] {
  return o && typeof o === 'object' ? Object.keys(o as object) : [];
}

/** A recorded exchange of the original plugin, from test/fixtures/reference/examples. */
export async function example(name: string): Promise<{ request: any; status: number; headers: Array<[string, string]>; body: any }> {
  const { readFile } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const path = fileURLToPath(new URL(`../fixtures/reference/examples/${name}`, import.meta.url));
  return JSON.parse(await readFile(path, 'utf8'));
}

/**
 * The "shape" of a JSON value: same keys in the same order and the same types, recursively;
 * values themselves (ids, dates, hosts) are ignored. Arrays compare their first element's shape.
 */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
  if (value === null) return 'null';
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shapeOf(v)]));
  return typeof value;
}
