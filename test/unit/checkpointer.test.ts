/**
 * WAL checkpoints beside the event loop (issue 9): the main connection stops checkpointing once the
 * worker has taken over, the worker checkpoints the log when it grows past its limit, and the main
 * connection checkpoints by itself again when the worker stops or cannot start.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startCheckpointer } from '../../src/store/checkpointer.js';
import { checkpointerOf } from '../../src/store/handle.js';
import { openStore } from '../../src/store/db.js';
import { startServer } from '../support/harness.js';

/** Wait (polling) until `cond` holds; fails after 10 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A database in WAL mode, as the store opens its files, with a table `t (x text)`. */
function walDatabase(file: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('create table t (x text)');
  return db;
}

describe('WAL checkpointer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-checkpoint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes over from the main connection and checkpoints the log once it passes its limit', async () => {
    const file = join(dir, 'grow.db');
    const db = walDatabase(file);
    const checkpointer = startCheckpointer(file, db, { pages: 20, lookMs: 10 });
    try {
      assert.equal(await checkpointer.ready, true);
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0);
      const before = checkpointer.stats().frames;
      // About 100 pages of log, in many commits: the main connection does not checkpoint them.
      const insert = db.prepare('insert into t values (?)');
      for (let i = 0; i < 100; i++) insert.run('x'.repeat(4000));
      await until(() => checkpointer.stats().frames > before, 'the worker to checkpoint');
      // A checkpoint that began while the inserts still ran copied part of them; the next look
      // copies the rest (CI on a loaded host once read the file between the two).
      await until(() => statSync(file).size > 100 * 4000, 'the rows to reach the database file');
    } finally {
      await checkpointer.close();
    }
    // Stopped: the main connection checkpoints by itself again.
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000);
    db.close();
  });

  it('has the log start over under sustained writes, so that it does not grow without end (issue 27)', async () => {
    // Under writes that never pause, the worker's checkpoints never copy the last frames (more are
    // committed while they copy), and SQLite only starts the log over when a write begins with
    // every frame copied: the log grew by every frame written (2.7 GB in 30 s of event creates).
    const file = join(dir, 'sustained.db');
    const db = walDatabase(file);
    const restartPages = 200;
    const checkpointer = startCheckpointer(file, db, { pages: 20, lookMs: 5, restartPages });
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    let written = 0;
    try {
      assert.equal(await checkpointer.ready, true);
      // The file is cut back to twice the restart length when the log starts over.
      assert.equal(Number(db.pragma('journal_size_limit', { simple: true })), 2 * restartPages * pageSize);
      const insert = db.prepare('insert into t values (?)');
      const many = db.transaction((n: number) => {
        for (let i = 0; i < n; i++) insert.run('x'.repeat(3000));
      });
      // About 1.2 s of writes without a pause longer than one turn of the event loop, so that the
      // worker's reports are heard between two of them, and longer (up to 15 s) on a host too busy
      // to write enough in that time (9,810 rows in 1.2 s once under a loaded full suite).
      // The log file's size after each batch: it only grows unless the log starts over.
      let last = 0;
      let cutBack = 0;
      const enough = 50 * restartPages * pageSize;
      const started = Date.now();
      while (Date.now() < started + 1200 || (written * 3000 <= enough && Date.now() < started + 15_000)) {
        many(10);
        written += 10;
        const size = statSync(file + '-wal').size;
        if (size < last) cutBack++;
        last = size;
        await new Promise((r) => setImmediate(r));
      }
      const stats = checkpointer.stats();
      assert.ok(stats.catchUps > 0, `the main connection copied the rest of a long log (${JSON.stringify(stats)})`);
      // The log started over while the writes went on, and its file was cut back (each row's 3,000
      // bytes go through the log at least once, in a page of 4 KiB: without the catch-ups the file
      // only grows, to more than everything written). How far it grew between two cut-backs
      // depends on how busy the host is (a tenth of what was written on a quiet one, nearly all of
      // it once on a loaded CI host, where the worker's reports came late): not asserted.
      const writtenBytes = written * 3000;
      assert.ok(writtenBytes > enough, `enough was written to tell (${written} rows)`);
      assert.ok(cutBack > 0, `the log file was cut back while the writes went on (${statSync(file + '-wal').size} bytes after ${writtenBytes} bytes of rows)`);
    } finally {
      await checkpointer.close();
      db.close();
    }
    // Nothing written was lost on the way.
    const check = new BetterSqlite3(file, { readonly: true });
    try {
      assert.equal((check.prepare('select count(*) as n from t').get() as { n: number }).n, written);
    } finally {
      check.close();
    }
  });

  it('leaves the catch-up to the connection that writes: one that only follows writes of another on the same file never copies the log on its loop', async () => {
    const file = join(dir, 'two-instances.db');
    const writer = walDatabase(file);
    const follower = new BetterSqlite3(file);
    const snapshot = new BetterSqlite3(file);
    const restartPages = 200;
    const writes = startCheckpointer(file, writer, { pages: 20, lookMs: 5, restartPages });
    const follows = startCheckpointer(file, follower, { pages: 20, lookMs: 5, restartPages });
    try {
      assert.equal(await writes.ready, true);
      assert.equal(await follows.ready, true);
      // A reader holding an old snapshot keeps every checkpoint from finishing while the writer
      // makes the log long (whatever the timing of the workers' looks).
      snapshot.prepare('begin').run();
      snapshot.prepare('select count(*) from t').get();
      const insert = writer.prepare('insert into t values (?)');
      writer.transaction(() => {
        for (let i = 0; i < 400; i++) insert.run('x'.repeat(3000));
      })();
      follower.prepare('select count(*) from t').get();
      await until(() => follows.stats().log >= restartPages, "the follower's worker to report the long log");
      // Let go: the next checkpoints finish, and a catch-up then would copy the rest. The writer's
      // connection does it; the follower's, which wrote nothing, does not.
      snapshot.prepare('commit').run();
      const reported = follows.stats().checkpoints;
      await until(() => writes.stats().catchUps > 0 && follows.stats().checkpoints >= reported + 3, 'the writer to catch up and the follower to hear three more reports');
      assert.equal(follows.stats().catchUps, 0, `the follower never copied the log itself (${JSON.stringify(follows.stats())})`);
    } finally {
      await follows.close();
      await writes.close();
      snapshot.close();
      follower.close();
      writer.close();
    }
  });

  it("reports the log's length and its catch-ups in /metrics", async () => {
    const t = await startServer({ name: 'sqlite', url: `sqlite:${join(dir, 'served.db')}` });
    try {
      assert.equal(await checkpointerOf(t.built.store.db)!.ready, true);
      const text = await (await fetch(`${t.origin}/metrics`)).text();
      assert.match(text, /^calendar_sqlite_wal_frames \d+$/m);
      assert.match(text, /^calendar_sqlite_wal_catch_ups_total \d+$/m);
    } finally {
      await t.close();
    }
  });

  it('closes when closed with its ready message still to be handled', async () => {
    // Closed on the turn before the worker's first message was handled, it used to unreference the
    // worker while it stopped: nothing kept the process running and `close` never answered (a CLI
    // then exited 0 without its answer).
    const file = join(dir, 'close.db');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    try {
      for (let i = 0; i < 3; i++) {
        const checkpointer = startCheckpointer(file, db);
        // Hold the main thread while the worker starts and says it is ready.
        const until = Date.now() + 400;
        while (Date.now() < until);
        await checkpointer.close();
      }
    } finally {
      db.close();
    }
  });

  it('never stops a worker while it loads SQLite: a store closed at once does not abort the process', () => {
    // Stopped while better-sqlite3 set itself up in the worker, the whole process aborted ("FATAL
    // ERROR: Error::New napi_get_last_error_info"; once in CI, a CLI command that closed its store
    // at once). Both worker threads (the checkpointer and the background reader) are closed here at
    // random moments of their start, in a process of its own.
    const script = join(dir, 'close-at-once.mts');
    writeFileSync(
      script,
      `import BetterSqlite3 from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href)};
      import { startCheckpointer } from ${JSON.stringify(new URL('../../src/store/checkpointer.ts', import.meta.url).href)};
      import { createBackgroundReader } from ${JSON.stringify(new URL('../../src/store/background-reader.ts', import.meta.url).href)};
      const file = ${JSON.stringify(join(dir, 'close-at-once.db'))};
      const db = new BetterSqlite3(file);
      db.pragma('journal_mode = WAL');
      for (let i = 0; i < 120; i++) {
        const checkpointer = startCheckpointer(file, db);
        const reader = createBackgroundReader(file);
        void reader.all('select 1', []).catch(() => {});
        await new Promise((r) => setTimeout(r, Math.random() * 30));
        await Promise.all([checkpointer.close(), reader.close()]);
      }
      db.close();
      console.log('closed 120 times');`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', cwd: process.cwd(), timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr.slice(0, 2000));
    assert.match(r.stdout, /closed 120 times/);
  });

  it('leaves the main connection checkpointing when the worker cannot open the file', async () => {
    const file = join(dir, 'main.db');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    const checkpointer = startCheckpointer(join(dir, 'missing.db'), db);
    try {
      assert.equal(await checkpointer.ready, false);
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('is what a SQLite store on a file uses, with its temporary journals in memory', async () => {
    const store = await openStore(`sqlite:${join(dir, 'store.db')}`);
    try {
      const checkpointer = checkpointerOf(store.db);
      assert.ok(checkpointer, 'a file store has a checkpointer');
      assert.equal(await checkpointer.ready, true);
      // Savepoint journals (one per write of a group commit) in memory, not in a temporary file.
      const { sql } = await import('kysely');
      assert.deepEqual((await sql`pragma temp_store`.execute(store.db)).rows, [{ temp_store: 2 }]);
    } finally {
      await store.close();
    }
    const memory = await openStore('sqlite::memory:');
    try {
      assert.equal(checkpointerOf(memory.db), undefined);
    } finally {
      await memory.close();
    }
  });
});
