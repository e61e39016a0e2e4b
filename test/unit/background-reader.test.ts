/**
 * The SQLite background reader (a worker thread) fails without taking the process with it: a
 * missing file, a bad statement or a dead worker reject the pending queries, and it starts anew.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createBackgroundReader } from '../../src/store/background-reader.js';

describe('background reader failures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-reader-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('rejects (and does not crash) when the file cannot be opened, every time', async () => {
    const reader = createBackgroundReader(join(dir, 'missing.db'));
    try {
      await assert.rejects(reader.all('select 1 as n', []));
      await assert.rejects(reader.all('select 1 as n', []));
    } finally {
      await reader.close();
    }
  });

  it('rejects a bad statement with the SQLite code and keeps working', async () => {
    const file = join(dir, 'ok.db');
    const db = new BetterSqlite3(file);
    db.exec('create table t (x integer); insert into t values (1), (2)');
    db.close();
    const reader = createBackgroundReader(file);
    try {
      await assert.rejects(reader.all('select * from no_such_table', []), (e: { code?: string }) => e.code === 'SQLITE_ERROR');
      await assert.rejects(reader.all('insert into t values (3) returning x', []), (e: { code?: string }) => e.code === 'SQLITE_READONLY');
      assert.deepEqual(await reader.all('select count(*) as n from t', []), [{ n: 2 }]);
    } finally {
      await reader.close();
    }
  });

  it('rejects pending queries when the worker stops, and starts a new worker afterwards', async () => {
    const file = join(dir, 'ok.db');
    const reader = createBackgroundReader(file);
    // A query long enough to be pending when the worker is stopped.
    const slow = reader.all('with recursive c(i) as (select 1 union all select i + 1 from c where i < 50000000) select count(*) as n from c', []);
    await new Promise((r) => setTimeout(r, 50));
    await reader.close();
    await assert.rejects(slow, /background reader stopped/);
    assert.deepEqual(await reader.all('select count(*) as n from t', []), [{ n: 2 }]);
    await reader.close();
  });
});
