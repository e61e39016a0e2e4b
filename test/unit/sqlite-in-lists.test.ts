/**
 * Issue 27, item 5: on SQLite, `IN` lists longer than EXACT_MAX are compiled to a few lengths only
 * (sqlite-in-lists.ts), so that look-ups whose lists vary in length share a dozen prepared
 * statements instead of filling the connection's statement cache with one per length (each a
 * program of its own in SQLite's memory). What they match is unchanged; inserts are never padded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { EXACT_MAX, paddedLength } from '../../src/store/sqlite-in-lists.js';
import { keptSizesOf, storeMetricsOf } from '../../src/metrics.js';

describe('SQLite IN lists compiled to a few lengths', () => {
  let dir: string;
  let store: Store;
  const statements = () => keptSizesOf([storeMetricsOf(store.db)]).get('sqlite_statements')!.entries;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'in-lists-'));
    store = await openStore(`sqlite:${join(dir, 'calendar.db')}`);
    await sql`create table t (id integer primary key, name text)`.execute(store.db);
    // Inserted in one statement of 600 rows: an insert's values are never padded (they would be rows).
    await store.db
      .insertInto('t' as never)
      .values(Array.from({ length: 600 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` })) as never)
      .execute();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pads to about 1.5x steps above EXACT_MAX, never below the length', () => {
    for (let n = 1; n <= 2000; n++) {
      const p = paddedLength(n);
      assert.ok(p >= n, `${n} → ${p}`);
      if (n <= EXACT_MAX) assert.equal(p, n);
      else assert.ok(p <= Math.ceil(n * 1.5), `${n} → ${p}`);
    }
    assert.deepEqual([17, 24, 25, 137, 500].map(paddedLength), [24, 24, 32, 192, 512]);
  });

  it('compiles a list to its padded length, repeating its last value', () => {
    const ids = Array.from({ length: 137 }, (_, i) => i + 1);
    const q = store.db
      .selectFrom('t' as never)
      .selectAll()
      .where('id' as never, 'in', ids as never)
      .compile();
    assert.equal((q.sql.match(/\?/g) ?? []).length, 192);
    assert.deepEqual(q.parameters.slice(0, 137), ids);
    assert.deepEqual(new Set(q.parameters.slice(137)), new Set([137]));
    const short = store.db
      .selectFrom('t' as never)
      .selectAll()
      .where('id' as never, 'in', [1, 2, 3] as never)
      .compile();
    assert.equal((short.sql.match(/\?/g) ?? []).length, 3, 'a short list is written as it is');
  });

  it('matches the same rows with IN and NOT IN, and look-ups of every length share a dozen statements', async () => {
    const before = statements();
    for (let n = 1; n <= 500; n++) {
      const ids = Array.from({ length: n }, (_, i) => 600 - 2 * i);
      const rows = await store.db
        .selectFrom('t' as never)
        .select('id' as never)
        .where('id' as never, 'in', ids as never)
        .orderBy('id' as never)
        .execute();
      assert.deepEqual(
        rows.map((r) => (r as { id: number }).id),
        ids.filter((id) => id >= 1).sort((a, b) => a - b),
        `in, ${n} ids`,
      );
      if (n % 50 === 0) {
        const [{ count }] = (await store.db
          .selectFrom('t' as never)
          .select(sql<number>`count(*)`.as('count'))
          .where('id' as never, 'not in', ids as never)
          .execute()) as Array<{ count: number }>;
        assert.equal(Number(count), 600 - ids.filter((id) => id >= 1).length, `not in, ${n} ids`);
      }
    }
    // Without padding: one statement per length (500 in, 10 not in), the cache's whole bound.
    const added = statements() - before;
    assert.ok(added <= EXACT_MAX + 2 * 10, `${added} statements for lists of 1-500 ids`);
  });
});
