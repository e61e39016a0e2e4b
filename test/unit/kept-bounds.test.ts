/**
 * Issue 24: every structure kept across requests has a bound and reports its size. A kept map
 * holds at most its entries (the oldest go first) and, when bounded in bytes, at most its bytes;
 * revision caches and memos hold at most their entries; each reports through `keptSizesOf`
 * (`/metrics`: `calendar_kept_entries{kind}` and its `_max`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKeptMap } from '../../src/domain/kept.js';
import { createRevisionCache } from '../../src/domain/kept.js';
import { revisionMemo } from '../../src/store/revision.js';
import { keptSizesOf, StoreMetrics, storeMetricsOf } from '../../src/metrics.js';
import { openStore } from '../../src/store/db.js';
import { stillFeed } from '../support/still-feed.js';

describe('kept structures are bounded and report their sizes', () => {
  it('a kept map holds at most its entries after more insertions, the newest kept', () => {
    const feed = stillFeed();
    const store = new StoreMetrics();
    const map = createKeptMap<string>(feed, 10, { owner: store, kind: 'test_entries' });
    for (let i = 0; i < 25; i++) map.set(`k${i}`, `v${i}`, 7, [`event:${i}`]);
    assert.equal(map.size, 10);
    assert.equal(map.get('k24'), 'v24');
    assert.equal(map.get('k0'), undefined);
    assert.deepEqual(keptSizesOf([store]).get('test_entries'), { entries: 10, maxEntries: 10 });
  });

  it('a kept map bounded in bytes holds at most its bytes, and keeps no value over a tenth of them', () => {
    const feed = stillFeed();
    const store = new StoreMetrics();
    const map = createKeptMap<string>(feed, 1000, { owner: store, kind: 'test_bytes', maxBytes: 1000, sizeOf: (v: string) => v.length });
    for (let i = 0; i < 30; i++) map.set(`k${i}`, 'x'.repeat(90), 7, []);
    const sizes = keptSizesOf([store]).get('test_bytes')!;
    assert.ok(sizes.bytes! <= 1000, `bytes ${sizes.bytes}`);
    assert.equal(sizes.entries, 11);
    assert.equal(sizes.maxBytes, 1000);
    map.set('big', 'x'.repeat(101), 7, []);
    assert.equal(map.get('big'), undefined);
    // Replacing a value moves the byte count by the difference.
    map.update('k29', 'x'.repeat(10));
    assert.equal(keptSizesOf([store]).get('test_bytes')!.bytes, sizes.bytes! - 80);
  });

  it('a revision cache holds at most its entries', () => {
    const owner = new StoreMetrics();
    const cache = createRevisionCache<number>(100, { owner, kind: 'test_revision_cache' });
    const view = cache.at('1');
    for (let i = 0; i < 250; i++) view.set(`k${i}`, i);
    const sizes = keptSizesOf([owner]).get('test_revision_cache')!;
    assert.ok(sizes.entries <= 100 && sizes.entries > 0, `entries ${sizes.entries}`);
    assert.equal(sizes.maxEntries, 100);
  });

  it('a revision memo holds at most its entries per database', async () => {
    // A revision memo keeps in the store handle's slots: a real (in-memory) store.
    const store = await openStore('sqlite::memory:');
    try {
      const memo = revisionMemo<number>(50, 'test_revision_memo');
      for (let i = 0; i < 175; i++) memo.at(store.db, '1').set(`k${i}`, i);
      const sizes = keptSizesOf([storeMetricsOf(store.db)]).get('test_revision_memo')!;
      assert.ok(sizes.entries <= 50 && sizes.entries > 0, `entries ${sizes.entries}`);
      assert.equal(sizes.maxEntries, 50);
    } finally {
      await store.close();
    }
  });
});
