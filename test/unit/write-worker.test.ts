/**
 * The write worker's main-thread side (web/write-worker.ts) with stand-in worker scripts: a worker
 * that cannot start is stopped and leaves the writes to the main thread (its `ready` settles), and
 * one that answers is used.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWriteWorker, type WriteWorkerData } from '../../src/web/write-worker.js';

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
    const server = createServer((_req, res) => res.end('here'));
    writes.install(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/x`;
    try {
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
    } finally {
      await writes.close();
      await new Promise((resolve) => server.close(resolve));
    }
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
