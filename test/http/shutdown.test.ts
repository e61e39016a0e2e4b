/**
 * Graceful shutdown (src/server.ts): on SIGTERM the server stops accepting, waits for requests in
 * flight and closes the database, within SHUTDOWN_TIMEOUT_MS; past it, it logs the step that was
 * still running and exits with 1; connections still open halfway are cut, so that a client cannot
 * hold it.
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

  it('cuts a request that never completes at half SHUTDOWN_TIMEOUT_MS, then exits 0', async () => {
    const { child, port, output } = await startServe({ SHUTDOWN_TIMEOUT_MS: '3000' });
    // A request whose body never arrives in full keeps the server waiting.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => {});
    socket.write('POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":');
    await sleep(300);
    const started = Date.now();
    const exit = once(child, 'exit');
    const closed = once(socket, 'close');
    child.kill('SIGTERM');
    const [code, signal] = await exit;
    await closed;
    assert.deepEqual([code, signal], [0, null], output());
    const took = Date.now() - started;
    assert.ok(took >= 1400 && took < 3000, `exited after ${took} ms`);
    assert.match(output(), /closing the connections still open/);
    assert.doesNotMatch(output(), /shutdown took longer/);
  });
});
