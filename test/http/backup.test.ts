/**
 * `events-calendar backup FILE` (issue 13): a consistent copy of a SQLite database taken while a
 * server serves and writes; it refuses to overwrite FILE without --force, and on PostgreSQL it
 * points to pg_dump.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { backupSqlite, openStore } from '../../src/store/db.js';
import BetterSqlite3 from 'better-sqlite3';
import { cli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/harness.js';

const event = (n: number) => ({ title: `Event ${n}`, start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00', status: 'publish', venue: { venue: `Hall ${n % 5}` } });

/** Check a backup: SQLite finds it intact, and it holds these events whole (post, event row, change log). */
async function checkBackup(file: string, acknowledged: number[]): Promise<number> {
  const copy = await openStore(`sqlite:${file}`, { skipMigrations: true });
  try {
    const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(copy.db);
    assert.deepEqual(integrity.rows, [{ integrity_check: 'ok' }]);
    const posts = await copy.db.selectFrom('posts').leftJoin('events', 'events.post_id', 'posts.id').select(['posts.id', 'events.post_id']).where('posts.type', '=', 'tribe_events').execute();
    const ids = new Set(posts.map((p) => Number(p.id)));
    for (const id of acknowledged) assert.ok(ids.has(id), `event ${id}, acknowledged before the backup started, is in it`);
    for (const p of posts) assert.equal(p.post_id, p.id, 'every event post has its event row (one snapshot)');
    const counter = await sql<{ value: number }>`select value from change_counter`.execute(copy.db);
    const last = await sql<{ seq: number | null }>`select max(seq) as seq from changes`.execute(copy.db);
    assert.equal(Number(counter.rows[0].value), Number(last.rows[0].seq), 'the change counter matches the log');
    return ids.size;
  } finally {
    await copy.close();
  }
}

describe('backup [sqlite file, server writing]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-backup-'));
  const url = `sqlite:${join(dir, 'calendar.db')}`;
  let t: TestServer;
  const acknowledged: number[] = [];
  let writing = false;
  let writer: Promise<number> = Promise.resolve(0);

  /** Keep creating events (two at a time) until `stop`; resolves to how many were created. */
  function startWriting(): void {
    writing = true;
    let n = 0;
    const loop = async () => {
      while (writing) {
        const res = await t.api.post('/events', { as: 'admin', json: event(1000 + n) });
        assert.equal(res.status, 201);
        n++;
      }
    };
    writer = Promise.all([loop(), loop()]).then(() => n);
  }
  async function stopWriting(): Promise<number> {
    writing = false;
    return writer;
  }

  before(async () => {
    t = await startServer({ name: 'sqlite', url });
    for (let i = 0; i < 40; i++) {
      const res = await t.api.post('/events', { as: 'admin', json: event(i) });
      assert.equal(res.status, 201);
      acknowledged.push(res.body.id);
    }
  });
  after(async () => {
    writing = false;
    await writer.catch(() => {});
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('events-calendar backup copies a consistent database while the server writes', async () => {
    const file = join(dir, 'backup.db');
    startWriting();
    const res = await cli(['backup', file], { DATABASE_URL: url });
    const written = await stopWriting();
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^backed up sqlite:.*calendar\.db to .*backup\.db \(\d+ pages\)\n$/);
    assert.ok(written > 0, 'the server wrote while the backup ran');
    assert.ok((await checkBackup(file, acknowledged)) >= acknowledged.length);
    assert.ok(!existsSync(`${file}.partial-${process.pid}`));
  });

  it('finishes while another connection writes, even copying one page per step (restarts, then one step)', async () => {
    const store = await openStore(url, { skipMigrations: true });
    const file = join(dir, 'small-steps.db');
    try {
      startWriting();
      let steps = 0;
      // Another connection also commits during the first steps, so the copy surely meets writes
      // (the server's own may land after a fast copy has finished).
      const other = new BetterSqlite3(url.slice('sqlite:'.length));
      other.exec('create table if not exists backup_probe (x integer)');
      const probe = other.prepare('insert into backup_probe values (1)');
      const result = await backupSqlite(
        store,
        file,
        () => {
          if (steps++ < 3) probe.run();
        },
        { pagesPerStep: 1 },
      );
      other.close();
      const written = await stopWriting();
      assert.ok(written > 0);
      assert.ok(steps > 1, `${steps} steps`);
      assert.ok(result.restarts >= 1, 'writes of the server restarted the copy');
    } finally {
      await store.close();
    }
    await checkBackup(file, acknowledged);
  });

  it('refuses to overwrite a file without --force', async () => {
    const file = join(dir, 'existing.db');
    writeFileSync(file, 'precious');
    writeFileSync(`${file}-wal`, 'stale');
    const refused = await cli(['backup', file], { DATABASE_URL: url });
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `error: ${file} exists; give --force to overwrite it\n`);
    const forced = await cli(['backup', file, '--force'], { DATABASE_URL: url });
    assert.equal(forced.code, 0, forced.stderr);
    assert.ok(!existsSync(`${file}-wal`), "the old file's WAL is removed with it");
    await checkBackup(file, acknowledged);
  });

  it('says what to do for a missing database, a memory database and PostgreSQL', async () => {
    const missing = await cli(['backup', join(dir, 'x.db')], { DATABASE_URL: `sqlite:${join(dir, 'none.db')}` });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: no database at .*none\.db\n$/);
    assert.ok(!existsSync(join(dir, 'none.db')), 'no database is created');
    const memory = await cli(['backup', join(dir, 'x.db')], { DATABASE_URL: 'sqlite::memory:' });
    assert.equal(memory.code, 1);
    const pg = await cli(['backup', join(dir, 'x.db')], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' });
    assert.equal(pg.code, 1);
    assert.match(pg.stderr, /^error: backup copies SQLite databases; for PostgreSQL use pg_dump .*\n$/);
    assert.ok(!existsSync(join(dir, 'x.db')));
  });
});
