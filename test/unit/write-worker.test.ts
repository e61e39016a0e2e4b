/**
 * The write worker's main-thread side (web/write-worker.ts) with stand-in worker scripts: a worker
 * that cannot start is stopped and leaves the writes to the main thread (its `ready` settles), and
 * one that answers is used.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWriteWorker, type WriteWorker, type WriteWorkerData } from '../../src/web/write-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'write-worker-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, text: string): URL {
  const file = join(dir, name);
  writeFileSync(file, text);
  return pathToFileURL(file);
}

function logs() {
  const lines: Array<{ level: string; msg: string }> = [];
  const at = (level: string) => (_obj: object, msg: string) => void lines.push({ level, msg });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

/** A stand-in worker that counts its starts in a file (`n`, from 1), then runs `body`. */
function countingStarts(name: string, body: string): { counter: string; url: URL } {
  const counter = join(dir, `${name}-starts`);
  writeFileSync(counter, '0');
  const url = script(
    `${name}.mjs`,
    `import { parentPort, workerData } from 'node:worker_threads'; import { readFileSync, writeFileSync } from 'node:fs';
    const n = Number(readFileSync(workerData.counter, 'utf8')) + 1; writeFileSync(workerData.counter, String(n));
    ${body}`,
  );
  return { counter, url };
}

/**
 * Run `fn` with a server whose own answer is 'here', the worker's forwarding in front of it, at
 * `url`; the worker and the server are closed after.
 */
async function answeringHere(writes: WriteWorker, fn: (url: string) => Promise<void>): Promise<void> {
  const server = createServer((_req, res) => res.end('here'));
  writes.install(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/x`);
  } finally {
    await writes.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

const options = { workerData: {} as unknown as WriteWorkerData, maxBodyBytes: 1024, committed: () => {}, nudge: () => {} };

describe('write worker, the main thread’s side', () => {
  it('stops a worker that could not start (though it would stay alive), and leaves the writes here', async () => {
    // It says it failed, and keeps a timer going: without being stopped, it would never exit.
    const failing = script('failing.mjs', "import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ type: 'failed', message: 'no database' }); setInterval(() => {}, 1000);");
    const { lines, log } = logs();
    const writes = startWriteWorker({ ...options, script: failing, log });
    const settled = await Promise.race([writes.ready.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    assert.equal(settled, true, 'ready settled');
    assert.equal(writes.stats().ready, false);
    assert.equal(writes.thread(), undefined);
    assert.ok(lines.some((l) => l.level === 'error' && l.msg.includes('could not start (no database)')));
    await writes.close();
  });

  it('answers a write in hand when the worker stops (503 rest_write_interrupted) or cannot answer it (500 rest_write_failed), in the API’s shape', async () => {
    // It takes the first write and fails it, and ends with the second one in hand.
    const dying = script(
      'dying.mjs',
      "import { parentPort } from 'node:worker_threads'; let n = 0; parentPort.on('message', (m) => { if (m.type !== 'request') return; if (n++ === 0) parentPort.postMessage({ type: 'error', id: m.id, message: 'broken' }); else process.exit(3); }); parentPort.postMessage({ type: 'ready' });",
    );
    const { log } = logs();
    const writes = startWriteWorker({ ...options, script: dying, log, maxRestarts: 1 });
    await writes.ready;
    await answeringHere(writes, async (url) => {
      const failed = await fetch(url, { method: 'POST', body: '{}' });
      assert.equal(failed.status, 500);
      assert.deepEqual(await failed.json(), { code: 'rest_write_failed', message: 'The server could not answer this request.', data: { status: 500 } });
      const interrupted = await fetch(url, { method: 'POST', body: '{}' });
      assert.equal(interrupted.status, 503);
      const body = (await interrupted.json()) as { code: string; data: { status: number } };
      assert.equal(body.code, 'rest_write_interrupted');
      assert.equal(body.data.status, 503);
      // Left stopped (one crash allowed here): the next write is this thread's.
      assert.equal(await (await fetch(url, { method: 'POST', body: '{}' })).text(), 'here');
      assert.equal(writes.stats().buffered, 0);
    });
  });

  it('tries a restart that could not start again, later each time, until one is ready (its database was away for a while)', async () => {
    // Each start counts itself in a file: the first is ready and crashes at its first write, the
    // next two fail to start, the fourth is ready.
    const { counter, url: flaky } = countingStarts(
      'flaky',
      `if (n === 2 || n === 3) { parentPort.postMessage({ type: 'failed', message: 'database away' }); setInterval(() => {}, 1000); }
      else { parentPort.on('message', (m) => { if (m.type === 'request') process.exit(3); if (m.type === 'close') parentPort.postMessage({ type: 'closed' }); }); parentPort.postMessage({ type: 'ready' }); }`,
    );
    const { lines, log } = logs();
    const writes = startWriteWorker({ ...options, workerData: { counter } as unknown as WriteWorkerData, script: flaky, log, retryFirstMs: 50, retryMaxMs: 100 });
    await writes.ready;
    await answeringHere(writes, async (url) => {
      assert.equal((await fetch(url, { method: 'POST', body: '{}' })).status, 503, 'the write the worker died with');
      assert.equal(await (await fetch(url, { method: 'POST', body: '{}' })).text(), 'here', 'writes stay here meanwhile');
      const deadline = Date.now() + 10_000;
      while (!writes.stats().ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(writes.stats().ready, true, 'ready again after two failed starts');
      assert.equal(writes.stats().restarts, 3);
      const retried = lines.filter((l) => l.msg.includes('could not start again'));
      assert.deepEqual(
        retried.map((l) => l.msg),
        [
          'the write worker could not start again; tried again in 0.05 s, writes run in the main thread meanwhile',
          'the write worker could not start again; tried again in 0.1 s, writes run in the main thread meanwhile',
        ],
      );
    });
  });

  it('stops trying a restart on close', async () => {
    const { counter, url: once } = countingStarts(
      'once',
      `if (n > 1) parentPort.postMessage({ type: 'failed', message: 'database away' }); else { parentPort.postMessage({ type: 'ready' }); setTimeout(() => process.exit(3), 10); }`,
    );
    const { lines, log } = logs();
    const writes = startWriteWorker({ ...options, workerData: { counter } as unknown as WriteWorkerData, script: once, log, retryFirstMs: 200, retryMaxMs: 200 });
    await writes.ready;
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.msg.includes('could not start again')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await writes.close();
    const starts = readFileSync(counter, 'utf8');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(readFileSync(counter, 'utf8'), starts, 'no start after close');
    assert.equal(starts, '2');
  });

  it('uses a worker that says it is ready, and stops it on close', async () => {
    const answering = script(
      'ready.mjs',
      "import { parentPort } from 'node:worker_threads'; parentPort.on('message', (m) => { if (m.type === 'close') parentPort.postMessage({ type: 'closed' }); }); parentPort.postMessage({ type: 'ready' });",
    );
    const { log } = logs();
    const writes = startWriteWorker({ ...options, script: answering, log });
    await writes.ready;
    assert.equal(writes.stats().ready, true);
    assert.ok(writes.thread());
    await writes.close();
    assert.equal(writes.stats().ready, false);
  });
});
