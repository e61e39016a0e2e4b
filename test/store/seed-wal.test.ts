/**
 * A bulk load on SQLite starts the write-ahead log over after each batch: the load does not yield
 * to the server's checkpointer between its batches, and a log never reset grew past 20 GB while a
 * million events were loaded, every read looking through it. After each batch the log is empty.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { bulkLoad } from '../../src/store/seed.js';

it('a bulk load on SQLite leaves the write-ahead log empty after each batch', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-wal-'));
  const file = join(dir, 'load.db');
  const store = await openStore(`sqlite:${file}`);
  try {
    const sizes: number[] = [];
    await bulkLoad(store, async (load) => {
      for (let batch = 0; batch < 3; batch++) {
        await load.transaction(async (tx) => {
          const ids = await tx.reserveIds('terms', 2_000);
          await tx.insert(
            'terms',
            ['id', 'taxonomy', 'name', 'slug', 'description', 'parent_id', 'count'],
            ids.map((id) => [id, 'post_tag', `Tag ${id}`, `tag-${id}`, 'x'.repeat(200), 0, 0]),
          );
        });
        sizes.push(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
      }
    });
    assert.deepEqual(sizes, [0, 0, 0]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
