/**
 * The event-loop delay histogram keeps a single long hold (issue 24, `drainLoopDelays` in
 * src/http/metrics.ts): the monitor's HDR histogram gives percentiles, not samples, and a
 * percentile just below 100 must not take the largest sample when rounding (with 1,000 samples,
 * 99.95 % of them rounds up to all of them), or a 120 ms hold would be observed at 1 ms.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IntervalHistogram } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';
import { drainLoopDelays } from '../../src/http/metrics.js';

const ms = (n: number) => n * 1e6;

/** A monitor that recorded `count` samples of 11 ms and one of 130 ms (10 ms interval). */
function monitorWith(count: number): IntervalHistogram & { resets: number } {
  const percentiles = new Map<number, number>([
    [0, ms(10.5)],
    [50, ms(11)],
    [99.951171875, ms(11)],
    [100, ms(130)],
  ]);
  const monitor = {
    count,
    percentiles,
    max: ms(130),
    resets: 0,
    reset: () => {
      monitor.resets++;
    },
  };
  return monitor as unknown as IntervalHistogram & { resets: number };
}

describe('event-loop delays drained into the histogram', () => {
  it('observes every sample once, the largest at the maximum delay', () => {
    const seen: number[] = [];
    const into = { observe: (v: number) => seen.push(v) } as unknown as Histogram;
    const monitor = monitorWith(1000);
    drainLoopDelays(monitor, into, 10);
    assert.equal(seen.length, 1000);
    assert.ok(Math.abs(Math.max(...seen) - 0.12) < 1e-9, `largest ${Math.max(...seen)}`);
    assert.ok(seen.filter((v) => v > 0.05).length >= 1);
    assert.equal(monitor.resets, 1);
  });

  it('observes nothing when nothing was sampled', () => {
    const seen: number[] = [];
    drainLoopDelays(monitorWith(0), { observe: (v: number) => seen.push(v) } as unknown as Histogram, 10);
    assert.equal(seen.length, 0);
  });
});

describe('the loop watch counts the CPU of the event loop thread, not of the worker threads beside it', () => {
  it('a hold spent waiting while a worker spins shows (nearly) no CPU', async () => {
    const { watchLoop } = await import('../../src/web/loop-delay.js');
    const { Worker } = await import('node:worker_threads');
    const watch = watchLoop();
    const shared = new Int32Array(new SharedArrayBuffer(4));
    // A worker burning CPU for 300 ms.
    const worker = new Worker('const end = Date.now() + 300; while (Date.now() < end);', { eval: true });
    await new Promise((r) => worker.once('online', r));
    await new Promise((r) => setTimeout(r, 20));
    const since = performance.now();
    // The loop held 200 ms without using the CPU (a blocking wait).
    Atomics.wait(shared, 0, 0, 200);
    await new Promise((r) => setTimeout(r, 15));
    const held = watch.heldSince(since);
    watch.stop();
    await worker.terminate();
    assert.ok(held.ms >= 150, `held ${held.ms} ms`);
    assert.ok(held.cpuMs < 60, `the loop's thread used ${held.cpuMs} ms of CPU during a ${held.ms} ms wait (the worker's spin counted?)`);
  });
});
