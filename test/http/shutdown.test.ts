/**
 * Graceful shutdown (src/server.ts): on SIGTERM the server stops accepting, waits for requests in
 * flight and closes the database, within SHUTDOWN_TIMEOUT_MS; past it, it logs the step that was
 * still running and exits with 1.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/bench/processes.js';

async function startServe(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server ended at start-up:\n${out}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('server did not answer within 60 s');
    await sleep(100);
  }
  return { child, port, output: () => out };
}

describe('graceful shutdown', () => {
  it('exits 0 on SIGTERM once nothing is in flight, after closing the database', async () => {
    const { child, output } = await startServe({});
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = await exit;
    assert.deepEqual([code, signal], [0, null], output());
    assert.match(output(), /"step":"closing the database"/);
  });

  it('gives up after SHUTDOWN_TIMEOUT_MS while a request is still in flight, naming the step, with exit code 1', async () => {
    const { child, port, output } = await startServe({ SHUTDOWN_TIMEOUT_MS: '1500' });
    // A request whose body never arrives in full keeps the server waiting.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":');
    await sleep(300);
    const started = Date.now();
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = await exit;
    socket.destroy();
    assert.deepEqual([code, signal], [1, null], output());
    assert.ok(Date.now() - started >= 1400, `exited after ${Date.now() - started} ms`);
    assert.match(output(), /shutdown took longer than 1500 ms \(still finishing in-flight requests\)/);
  });
});
