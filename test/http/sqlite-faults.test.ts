/**
 * SQLite faults: another process holding the write lock (SQLITE_BUSY), a full database
 * (SQLITE_FULL) and a database that cannot be written (SQLITE_READONLY) answer clear
 * WordPress-style errors, the process keeps serving, and a refused write leaves nothing behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { startServer, type TestServer } from '../support/harness.js';

const EVENT = { title: 'Stored once', start_date: '2027-07-01 10:00', end_date: '2027-07-01 11:00' };

describe('SQLite faults [sqlite file]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-faults-'));
  const file = join(dir, 'calendar.db');
  let t: TestServer;

  /** Posts in the database, counted on the server's own connection. */
  const postCount = async () => Number((await sql<{ n: number }>`select count(*) as n from posts`.execute(t.built.store.db)).rows[0]!.n);
  const titles = async () => (await t.api.get('/events', { as: 'admin', query: { per_page: 50 } })).body.events.map((e: { title: string }) => e.title);

  before(async () => {
    // A short busy timeout: the server waits 250 ms for a lock before answering 503.
    t = await startServer({ name: 'sqlite', url: `sqlite:${file}` }, {}, { timeoutMs: 250 });
    assert.equal((await t.api.post('/events', { as: 'admin', json: EVENT })).status, 201);
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 rest_database_busy with Retry-After while another connection holds the write lock', async () => {
    const before = await postCount();
    const gaveUp = async () => Number(/^calendar_sqlite_lock_waits_total\{outcome="gave_up"\} (\d+)$/m.exec(await (await fetch(`${t.origin}/metrics`)).text())?.[1] ?? 0);
    const gaveUpBefore = await gaveUp();
    const other = new BetterSqlite3(file);
    other.exec('begin exclusive');
    try {
      const started = performance.now();
      const res = await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'While locked' } });
      const ms = performance.now() - started;
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.deepEqual(res.body, { code: 'rest_database_busy', message: 'The database is busy. Please try again shortly.', data: { status: 503 } });
      assert.equal(res.headers.get('retry-after'), '1');
      assert.ok(ms >= 250 && ms < 5000, `answered in ${ms} ms (busy timeout 250 ms: waited for the lock, then gave up)`);
      assert.equal(await gaveUp(), gaveUpBefore + 1, 'counted as a wait given up');
      // Readers are not blocked (WAL), and the process serves on.
      assert.equal((await t.api.get('/events')).status, 200);
      assert.equal((await fetch(t.origin + '/livez')).status, 200);
      assert.equal((await fetch(t.origin + '/readyz')).status, 200);
    } finally {
      other.exec('rollback');
      other.close();
    }
    assert.equal(await postCount(), before, 'nothing was written');
    const after = await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'After the lock' } });
    assert.equal(after.status, 201);
    assert.deepEqual(await titles(), [EVENT.title, 'After the lock']);
  });

  it('answers 507 rest_database_full when the database cannot grow, and writes nothing', async () => {
    const db = t.built.store.db;
    const before = await postCount();
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
    try {
      const description = 'A long description that needs pages of its own. '.repeat(4000);
      const res = await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'Too big', description } });
      assert.equal(res.status, 507, JSON.stringify(res.body).slice(0, 300));
      assert.deepEqual(res.body, { code: 'rest_database_full', message: 'The database has run out of space; nothing was changed.', data: { status: 507 } });
      assert.equal(res.headers.get('retry-after'), null);
      assert.equal((await t.api.get('/events')).status, 200);
    } finally {
      await sql.raw('pragma max_page_count = 1073741823').execute(db);
    }
    assert.equal(await postCount(), before, 'nothing was written');
    assert.ok(!(await titles()).includes('Too big'));
  });

  it('answers 503 rest_database_read_only while the database cannot be written, and serves reads', async () => {
    const db = t.built.store.db;
    const before = await postCount();
    const listed = (await t.api.get('/events')).body.events.length;
    // What the engine answers for a read-only database file (the tests run as root, for whom
    // file permissions do not make a file read-only).
    await sql.raw('pragma query_only = 1').execute(db);
    try {
      const res = await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'Read-only' } });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        code: 'rest_database_read_only',
        message: 'The database is read-only at the moment; nothing was changed.',
        data: { status: 503 },
      });
      assert.equal(res.headers.get('retry-after'), '30');
      const list = await t.api.get('/events');
      assert.equal(list.status, 200);
      assert.equal(list.body.events.length, listed);
      assert.equal((await fetch(t.origin + '/livez')).status, 200);
    } finally {
      await sql.raw('pragma query_only = 0').execute(db);
    }
    assert.equal(await postCount(), before, 'nothing was written');
    assert.equal((await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'Writable again' } })).status, 201);
  });
});

describe('SQLite: a write waits for a lock held briefly by another process [sqlite file]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-lock-'));
  const file = join(dir, 'calendar.db');
  let t: TestServer;
  before(async () => {
    t = await startServer({ name: 'sqlite', url: `sqlite:${file}` }, {}, { timeoutMs: 10_000 });
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Another process holds the file's write lock from when this resolves until `release()`. */
  async function lockedUntilReleased(): Promise<{ release: () => void; exited: Promise<unknown> }> {
    const script = `
      const Database = require(process.env.DRIVER);
      const db = new Database(process.env.FILE);
      db.exec('begin exclusive');
      process.stdout.write('locked\\n');
      process.stdin.on('data', () => {});
      process.stdin.on('end', () => { db.exec('commit'); db.close(); });`;
    const child = spawn(process.execPath, ['-e', script], {
      env: { ...process.env, FILE: file, DRIVER: createRequire(import.meta.url).resolve('better-sqlite3') },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    await once(child.stdout!, 'data');
    return { release: () => child.stdin!.end(), exited };
  }

  /** Another process holds the file's write lock for `ms` from when this resolves; `exited`: when that process is gone. */
  async function lockedFor(ms: number): Promise<{ exited: Promise<unknown> }> {
    const lock = await lockedUntilReleased();
    setTimeout(lock.release, ms);
    return lock;
  }

  it('waits for the lock (up to the busy timeout) and then writes', async () => {
    // Another process (as the CLI would be) holds the write lock for 600 ms.
    const { exited } = await lockedFor(600);
    const started = performance.now();
    const res = await t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'Waited' } });
    const ms = performance.now() - started;
    await exited;
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(ms >= 300, `the write waited for the lock (${ms} ms)`);
    assert.deepEqual(
      (await t.api.get('/events')).body.events.map((e: { title: string }) => e.title),
      ['Waited'],
    );
  });

  it('serves reads, through the database too, while a write waits for the lock: the wait holds neither the event loop nor the connection', async () => {
    // The lock is held until the reads are done, so the check is one of order, not of time:
    // every read is answered while the write still waits. With the wait inside SQLite (its
    // busy_timeout), the reads would be answered only once the write had given up.
    const lock = await lockedUntilReleased();
    const waits = async () => Number(/^calendar_sqlite_lock_waits_total\{outcome="ran"\} (\d+)$/m.exec(await (await fetch(`${t.origin}/metrics`)).text())?.[1] ?? 0);
    const waitedBefore = await waits();
    let settled = false;
    const write = t.api.post('/events', { as: 'admin', json: { ...EVENT, title: 'Waited again' } }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    try {
      // Reads while it waits: the health check, and lists and an event read on the connection
      // (an administrator's, with drafts: nothing kept answers them).
      for (let i = 0; i < 5; i++) {
        for (const [what, read] of [
          ['livez', () => t.api.get(`${t.origin}/livez`)],
          ['list', () => t.api.get('/events', { as: 'admin', query: { status: 'draft,publish', per_page: i + 1 } })],
          ['users', () => t.api.get(`${t.origin}${t.config.restRoot}/calendar/admin/v1/users`, { as: 'admin', query: { per_page: i + 1 } })],
        ] as const) {
          const res = await read();
          assert.equal(res.status, 200, `${what}: ${res.text}`);
          assert.equal(settled, false, `${what} was answered only once the write had stopped waiting`);
        }
      }
    } finally {
      lock.release();
    }
    const res = await write;
    await lock.exited;
    assert.equal(res.status, 201, JSON.stringify(res.body));
    // The write waited (and a job's write, if one came meanwhile).
    assert.ok((await waits()) >= waitedBefore + 1);
  });
});
