/**
 * The log destination (src/log-destination.ts) over a stream that takes lines only when the test
 * says so (a log pipe whose reader stalls, then reads again): bounded memory, dropped lines
 * counted, one report when lines flow again, a failed stream drops without throwing, and `drain`
 * never waits past its bound.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import Fastify from 'fastify';
import { createLogDestination, type DroppedLines } from '../../src/log-destination.js';
import type { LogOutputCounters } from '../../src/metrics.js';

/** A stream that holds every chunk until `take()`: like a pipe whose reader stopped reading. */
function stalledStream() {
  const waiting: Array<() => void> = [];
  const written: string[] = [];
  const stream = new Writable({
    // 'drain' comes only once a write found the stream past its high-water mark: Node 22 raised the
    // default from 16 KiB to 64 KiB, above these tests' bounds (the server's is 4 MiB, above both).
    highWaterMark: 16 * 1024,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      waiting.push(() => {
        written.push(chunk);
        callback();
      });
    },
  });
  /** The reader takes chunks until the stream holds at most `bytes`. */
  const take = (bytes = 0) => {
    while (stream.writableLength > bytes && waiting.length) waiting.shift()!();
  };
  return { stream, written, take };
}

function counters(): LogOutputCounters {
  return { droppedLines: 0, droppedBytes: 0, buffered: () => 0 };
}

/** A log line of 100 bytes. */
const line = (i: number) => JSON.stringify({ i: String(i).padStart(4, '0'), msg: 'x'.repeat(78) }) + '\n';

describe('log destination', () => {
  it('writes every line while the stream takes them', () => {
    const { stream, written, take } = stalledStream();
    const c = counters();
    const d = createLogDestination(stream, { maxBufferedBytes: 10_000, counters: c });
    for (let i = 0; i < 500; i++) {
      d.write(line(i));
      take();
    }
    assert.equal(written.length, 500);
    assert.deepEqual([c.droppedLines, c.droppedBytes, c.buffered()], [0, 0, 0]);
  });

  it('holds at most the bound while stalled, drops and counts the rest, and reports once when lines flow again', async () => {
    const { stream, written, take } = stalledStream();
    const c = counters();
    const d = createLogDestination(stream, { maxBufferedBytes: 10_000, counters: c });
    const reports: DroppedLines[] = [];
    d.onResumed = (dropped) => reports.push(dropped);
    const size = line(0).length;
    for (let i = 0; i < 1000; i++) d.write(line(i));
    const kept = Math.floor(10_000 / size);
    assert.ok(c.buffered() <= 10_000 && c.buffered() > 10_000 - size, `holds ${c.buffered()}`);
    assert.equal(c.droppedLines, 1000 - kept);
    assert.equal(c.droppedBytes, (1000 - kept) * size);
    // The reader takes a little: still past half the bound, so lines are still dropped (a stretch
    // of log, not one line in ten).
    take(8000);
    d.write(line(1000));
    assert.equal(c.droppedLines, 1000 - kept + 1);
    await tick();
    assert.deepEqual(reports, []);
    // Under half: lines flow again, and one report tells what was dropped meanwhile.
    take(4000);
    d.write(line(1001));
    d.write(line(1002));
    assert.equal(c.droppedLines, 1000 - kept + 1);
    await tick();
    assert.deepEqual(reports, [{ lines: 1000 - kept + 1, bytes: (1000 - kept + 1) * size }]);
    take();
    assert.deepEqual(
      written.map((w) => Number((JSON.parse(w) as { i: string }).i)),
      [...Array.from({ length: kept }, (_, i) => i), 1001, 1002],
    );
  });

  it('reports when stdout drains, even when nothing more is logged', async () => {
    const { stream, take } = stalledStream();
    const d = createLogDestination(stream, { maxBufferedBytes: 20_000 });
    const reports: DroppedLines[] = [];
    d.onResumed = (dropped) => reports.push(dropped);
    for (let i = 0; i < 300; i++) d.write(line(i));
    take();
    await tick();
    await tick();
    assert.equal(reports.length, 1);
    assert.ok(reports[0]!.lines > 0);
  });

  it('drops and counts every line once the stream failed (EPIPE), without throwing', async () => {
    const { stream, written, take } = stalledStream();
    const c = counters();
    const d = createLogDestination(stream, { counters: c });
    d.write(line(0));
    take();
    stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await tick();
    d.write(line(1));
    d.write(line(2));
    assert.equal(written.length, 1);
    assert.equal(c.droppedLines, 2);
    assert.equal(c.buffered(), 0);
    await d.drain(1000);
  });

  it('drain resolves once the stream has written everything, or at its bound when it never does', async () => {
    const { stream, written, take } = stalledStream();
    const d = createLogDestination(stream);
    d.write(line(0));
    const drained = d.drain(60_000);
    setTimeout(() => take(), 20);
    await drained;
    assert.equal(written.length, 1);
    d.write(line(1));
    await d.drain(50); // never taken: resolves anyway
    assert.equal(written.length, 1);
  });

  it("is a Fastify (pino) logger's stream: JSON lines, one per write", () => {
    const { stream, written, take } = stalledStream();
    const log = Fastify({ logger: { level: 'info', stream: createLogDestination(stream) } }).log;
    log.info({ a: 1 }, 'hello');
    log.debug('not written');
    take();
    assert.equal(written.length, 1);
    assert.deepEqual(JSON.parse(written[0]!), { ...JSON.parse(written[0]!), level: 30, a: 1, msg: 'hello' });
  });
});
