/**
 * The soak's verdict (issue 24, `bench/src/soak.ts`): RSS growth per minute over each half of the
 * samples by least squares, and a plateau when the second half grows less than the threshold.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { growth, slope, type SoakSample } from '../../bench/src/soak.js';

const samples = (rss: (t: number) => number, seconds = 1800): SoakSample[] => Array.from({ length: seconds / 10 + 1 }, (_, i) => ({ t: i * 10, rssMiB: rss(i * 10), requests: 0 }));

describe('soak report', () => {
  it('slope is the least-squares growth', () => {
    assert.equal(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
      2,
    );
    assert.ok(Number.isNaN(slope([[0, 1]])));
  });

  it('a steady leak is no plateau; growth that levels off is', () => {
    const leak = growth(
      samples((t) => 150 + (t / 60) * 5),
      1,
    );
    assert.ok(Math.abs(leak.firstHalf - 5) < 1e-9 && Math.abs(leak.secondHalf - 5) < 1e-9);
    assert.equal(leak.plateau, false);
    const filling = growth(
      samples((t) => 150 + Math.min(t / 60, 10) * 15),
      1,
    );
    assert.ok(filling.firstHalf > 10);
    assert.equal(filling.secondHalf, 0);
    assert.equal(filling.plateau, true);
  });
});
