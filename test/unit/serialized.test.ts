import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringifyJson, withSerialized } from '../../src/domain/serialized.js';

describe('stringifyJson', () => {
  it('equals JSON.stringify on every kind of value', () => {
    const values: unknown[] = [
      null,
      undefined,
      0,
      -0,
      1.5,
      NaN,
      Infinity,
      '',
      'a"b\\c\n\u2028é',
      true,
      false,
      [],
      {},
      [undefined, () => 1, Symbol('s'), null, 1],
      { a: undefined, b: () => 1, c: Symbol('x'), d: null, e: 'x' },
      { 2: 'two', 1: 'one', b: 1, a: [1, { z: [1, [2, [3, [4, { deep: true }]]]] }] },
      { when: new Date(0), nested: { toJSON: () => 'custom' } },
      Object.assign(Object.create(null), { x: 1, y: [Object.create(null)] }),
      { '"key"': 1, ü: 2, '': 3 },
      [[[[[['very deep']]]]]],
      { map: new Map([[1, 2]]), set: new Set([1]) },
    ];
    for (const v of values) assert.equal(stringifyJson(v), JSON.stringify(v), String(JSON.stringify(v)));
  });

  it('uses the attached text of serialized parts, which JSON.stringify and Object.keys ignore', () => {
    const event = withSerialized({ id: 7, title: 'Jazz', venue: { city: 'Springfield' } });
    assert.deepEqual(Object.keys(event), ['id', 'title', 'venue']);
    const body = { events: [event, event], rest_url: 'http://x/', total: 2, total_pages: 1 };
    assert.equal(stringifyJson(body), JSON.stringify(body));
    assert.equal(stringifyJson({ body, status: 200, headers: { Allow: 'GET' } }), JSON.stringify({ body, status: 200, headers: { Allow: 'GET' } }));
    assert.equal(stringifyJson(event), JSON.stringify(event));
    // The text is what is sent: it was taken when the object was serialized.
    const marker = withSerialized({ a: 1 });
    (marker as { a: number }).a = 2;
    assert.equal(stringifyJson(marker), '{"a":1}');
  });
});

describe('kept serialized bytes own their memory (issue 27, item 5)', () => {
  it('the bytes of a short representation are in a buffer of their own, not a slice of a shared slab', () => {
    for (const value of [
      { id: 1, title: 'Jazz' },
      { id: 2, title: 'é'.repeat(3000) },
    ]) {
      const kept = withSerialized(value);
      const bytes = Buffer.from(stringifyJson([kept]).slice(1, -1));
      assert.deepEqual(Buffer.from(JSON.stringify(value)), bytes);
      const own = (kept as unknown as Record<symbol, Buffer>)[Object.getOwnPropertySymbols(kept)[0]!]!;
      assert.equal(own.buffer.byteLength, own.length, 'the ArrayBuffer holds these bytes only');
      assert.equal(own.byteOffset, 0);
    }
  });
});
