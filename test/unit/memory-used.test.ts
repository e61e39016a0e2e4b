/**
 * Issue 27, item 5: what the store's worker threads hold is visible, not only their bounds.
 * `memoryUsed` reads each running worker's V8 heap; `/metrics` reports it as
 * `calendar_memory_used_bytes{part}` beside `calendar_memory_bound_bytes{part}`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import { backgroundReaderOf, checkpointerOf } from '../../src/store/handle.js';
import { memoryBounds } from '../../src/store/memory-bounds.js';
import { memoryUsed } from '../../src/store/memory-used.js';
import { startServer, type TestServer } from '../support/harness.js';

describe('what the worker threads hold', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-used-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the checkpointer heap, and the background reader heap once it runs, each within its bound', async () => {
    const store: Store = await openStore(`sqlite:${join(dir, 'store.db')}`);
    try {
      assert.equal(await checkpointerOf(store.db)!.ready, true);
      const bounds = memoryBounds('sqlite');
      const idle = await memoryUsed(store.db);
      assert.ok(idle.worker_heap_checkpointer! > 0, `checkpointer ${idle.worker_heap_checkpointer}`);
      assert.ok(idle.worker_heap_checkpointer! <= bounds.worker_heap_checkpointer!);
      assert.equal(idle.worker_heap_background, 0, 'the background reader starts at its first question');
      await backgroundReaderOf(store.db)!.all('select count(*) as n from posts', []);
      const running = await memoryUsed(store.db);
      assert.ok(running.worker_heap_background! > 0, `background ${running.worker_heap_background}`);
      assert.ok(running.worker_heap_background! <= bounds.worker_heap_background!);
    } finally {
      await store.close();
    }
    const memory = await openStore('sqlite::memory:');
    try {
      assert.deepEqual(await memoryUsed(memory.db), {}, 'no worker threads: nothing reported');
    } finally {
      await memory.close();
    }
  });

  it('is in /metrics as calendar_memory_used_bytes{part}', async () => {
    const t: TestServer = await startServer({ name: 'sqlite', url: `sqlite:${join(dir, 'served.db')}` });
    try {
      await checkpointerOf(t.built.store.db)!.ready;
      const text = await (await fetch(`${t.origin}/metrics`)).text();
      const used = Number(/^calendar_memory_used_bytes\{part="worker_heap_checkpointer"\} (\S+)$/m.exec(text)?.[1]);
      const bound = Number(/^calendar_memory_bound_bytes\{part="worker_heap_checkpointer"\} (\S+)$/m.exec(text)?.[1]);
      assert.ok(used > 0 && used <= bound, `${used} of ${bound}`);
      assert.match(text, /^calendar_memory_used_bytes\{part="worker_heap_background"\} \d+$/m);
    } finally {
      await t.close();
    }
  });
});
