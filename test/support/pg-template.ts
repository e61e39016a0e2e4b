/**
 * Fresh PostgreSQL databases for the tests, each a copy of a template database migrated once.
 *
 * Migrating a new schema runs every migration, 2 to 4 s on two busy cores, for each server a test
 * starts on PostgreSQL. `CREATE DATABASE … TEMPLATE` copies a migrated database in well under
 * 100 ms instead; dropping the copy afterwards costs 0.3 to 1.4 s (it waits for a checkpoint), so
 * the whole run gains less than the start alone does. The template is named after a
 * hash of the store's sources (`src/store/`: the migrations and what runs them), so a change there
 * gets a template of its own; it is built once, under an advisory lock, by the first test process
 * that needs it. Templates of other sources built more than a day ago are dropped then (a run of
 * another checkout may still be copying from a newer one).
 *
 * Migrations themselves stay tested: the template is built by `openStore` as a server would, and
 * the migration tests (test/store/, the upgrade tests) open schemas at earlier versions and migrate
 * them step by step.
 *
 * @example
 *   const fresh = await freshDatabase('postgres://postgres@127.0.0.1:5432/test');
 *   const store = await openStore(fresh.url, { schema: fresh.schema });
 *   …; await store.close(); await fresh.drop();
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openStore } from '../../src/store/db.js';

/** The schema the template's tables live in (each copy has the same). */
export const TEMPLATE_SCHEMA = 'calendar_test';

/** Any number, the same in every test process: the lock taken while a template is built. */
const TEMPLATE_LOCK = 7_340_135_034;

const SRC = fileURLToPath(new URL('../../src/store/', import.meta.url));

let templateName: string | undefined;

/** `ectpl_` and the first 16 hex digits of a hash of every file under src/store/ (names and contents). */
function nameOfTemplate(): string {
  if (templateName) return templateName;
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(path.slice(SRC.length)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(SRC);
  return (templateName = `ectpl_${hash.digest('hex').slice(0, 16)}`);
}

/** The URL of database `name` on the server of `url`. */
function urlOf(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'events-calendar-tests' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The copies of test processes that ended without dropping them (killed at a timeout, say). */
async function dropLeftCopies(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'ect\\_%'`);
  for (const { datname } of rows) {
    const pid = Number(datname.split('_')[1]);
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let template: Promise<string> | undefined;

/** The template database of these sources, built first when no test process has built it yet. */
function ensureTemplate(url: string): Promise<string> {
  template ??= withAdmin(url, async (admin) => {
    const name = nameOfTemplate();
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      await dropLeftCopies(admin);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount) return name;
      // Built under another name and renamed when complete: a copy never starts from half a template.
      const building = `${name}_b${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      const store = await openStore(urlOf(url, building), { schema: TEMPLATE_SCHEMA, poolSize: 2 });
      await store.close();
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      await admin.query(`COMMENT ON DATABASE ${name} IS '${new Date().toISOString()}'`);
      const { rows } = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database d WHERE datname LIKE 'ectpl\\_%' AND datname <> $1
           AND coalesce(shobj_description(d.oid, 'pg_database'), '') < $2`,
        [name, new Date(Date.now() - 86_400_000).toISOString()],
      );
      for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => {});
      return name;
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  template.catch(() => (template = undefined));
  return template;
}

let copies = 0;

export interface FreshDatabase {
  /** the copy's URL (no search_path: give `schema` to openStore) */
  url: string;
  schema: string;
  /** the URL a CLI or another connection uses: the copy, its search_path set to `schema` */
  urlWithSchema: string;
  drop(): Promise<void>;
}

/** A new database, a copy of the migrated template, on the server of `url`. */
export async function freshDatabase(url: string): Promise<FreshDatabase> {
  const source = await ensureTemplate(url);
  const name = `ect_${process.pid}_${++copies}_${randomBytes(3).toString('hex')}`;
  await withAdmin(url, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  const copy = urlOf(url, name);
  // A database of its own has an identity of its own: the id and secret its sync tokens carry,
  // drawn at random by migrations 007 and 012, are drawn again (a token of one copy is another's
  // "token of another database").
  const databaseId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('hex');
  await withAdmin(copy, (client) =>
    client.query(`UPDATE ${TEMPLATE_SCHEMA}.sync_state SET database_id = '${databaseId}' WHERE id = 1;
      UPDATE ${TEMPLATE_SCHEMA}.settings SET value = '${secret}' WHERE name = 'sync_token_secret'`),
  );
  return {
    url: copy,
    schema: TEMPLATE_SCHEMA,
    urlWithSchema: `${copy}${copy.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${TEMPLATE_SCHEMA}`)}`,
    drop: () => withAdmin(url, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}
