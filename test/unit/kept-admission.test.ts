/**
 * Issue 27, item 5: the maps keyed by record over far more records than their bound (event
 * records and representations, linked records, versions) keep a key at its second use
 * (`admitOnSecondUse`, a doorkeeper). Reads spread over 1,000,000 events then keep nearly
 * nothing instead of filling the map with entries pushed out before anyone reads them again
 * (each of which V8 had promoted to its old generation, where it lay as garbage).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDoorkeeper, createKeptMap } from '../../src/domain/kept.js';
import { StoreMetrics } from '../../src/metrics.js';
import { stillFeed } from '../support/still-feed.js';

describe('kept maps that keep a key at its second use', () => {
  it('keep a key set twice, not one set once', () => {
    const map = createKeptMap<string>(stillFeed(), 100, { owner: new StoreMetrics(), kind: 'test_admission', admitOnSecondUse: true });
    map.set('event:1', 'first build', 7, ['event:1']);
    assert.equal(map.get('event:1'), undefined, 'not kept at its first miss');
    map.set('event:1', 'second build', 7, ['event:1']);
    assert.equal(map.get('event:1'), 'second build', 'kept at its second');
    map.set('event:1', 'a replacement', 7, ['event:1']);
    assert.equal(map.get('event:1'), 'a replacement', 'a kept key is replaced at once');
    map.update('event:1', 'updated');
    assert.equal(map.get('event:1'), 'updated');
  });

  it('keep nearly nothing of keys spread over far more records than the bound, and the keys read again', () => {
    const map = createKeptMap<number>(stillFeed(), 1000, { owner: new StoreMetrics(), kind: 'test_admission', admitOnSecondUse: true });
    const plain = createKeptMap<number>(stillFeed(), 1000, { owner: new StoreMetrics(), kind: 'test_plain' });
    // 20,000 reads over 1,000,000 ids (each read once, or nearly), beside 50 ids read again and again.
    let state = 42;
    const random = () => (state = Math.imul(state, 1103515245) + 12345) >>> 0;
    for (let i = 0; i < 20_000; i++) {
      const id = random() % 1_000_000;
      for (const m of [map, plain]) if (m.get(`event:${id}`) === undefined) m.set(`event:${id}`, id, 7, [`event:${id}`]);
      const hot = i % 50;
      for (const m of [map, plain]) if (m.get(`hot:${hot}`) === undefined) m.set(`hot:${hot}`, hot, 7, [`event:${hot}`]);
    }
    assert.equal(plain.size, 1000, 'without admission the map fills with keys read once');
    assert.ok(map.size < 100, `${map.size} kept`);
    for (let hot = 0; hot < 50; hot++) assert.equal(map.get(`hot:${hot}`), hot, `hot:${hot} kept`);
  });

  it('prepare a value (its JSON bytes) only when it is kept', () => {
    const map = createKeptMap<{ id: number; bytes?: Buffer }>(stillFeed(), 100, { owner: new StoreMetrics(), kind: 'test_admission', admitOnSecondUse: true });
    const prepared: number[] = [];
    const prepare = (value: { id: number; bytes?: Buffer }) => {
      prepared.push(value.id);
      value.bytes = Buffer.from(JSON.stringify(value));
      return value;
    };
    const first: { id: number; bytes?: Buffer } = { id: 1 };
    assert.equal(map.set('event:1', first, 7, ['event:1'], prepare), false, 'not kept at its first offer');
    assert.deepEqual(prepared, [], 'a value not kept costs no bytes');
    assert.equal(first.bytes, undefined);
    const second = { id: 1 };
    assert.equal(map.set('event:1', second, 7, ['event:1'], prepare), true);
    assert.deepEqual(prepared, [1]);
    assert.equal(map.get('event:1')?.bytes?.toString(), '{"id":1}');
    assert.equal(map.set('event:2', { id: 2 }, 6, ['event:2'], prepare), false, 'built at an older position: not kept, not prepared');
    assert.deepEqual(prepared, [1]);
  });

  it('a doorkeeper lets a key in the second time it is offered', () => {
    const seen = createDoorkeeper(64);
    assert.equal(seen('a'), false);
    assert.equal(seen('b'), false);
    assert.equal(seen('a'), true);
    assert.equal(seen('a'), false, 'once let in, it starts over');
    assert.equal(seen('b'), true);
  });
});
