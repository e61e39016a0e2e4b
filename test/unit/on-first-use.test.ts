import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { onFirstUse } from '../../src/domain/on-first-use.js';

describe('onFirstUse', () => {
  it('loads once for every caller, and again after a failed load', async () => {
    let calls = 0;
    const of = onFirstUse(async () => {
      calls++;
      if (calls === 1) throw new Error('not installed');
      return { n: calls };
    });
    await assert.rejects(of(), /not installed/);
    const [a, b] = await Promise.all([of(), of()]);
    assert.equal(a, b);
    assert.deepEqual(await of(), { n: 2 });
    assert.equal(calls, 2);
  });
});
