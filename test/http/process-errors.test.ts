/**
 * The process-wide policy of `serve` (src/server.ts), in a child process: an unhandled promise
 * rejection is logged and the service keeps serving; an uncaught exception is logged, the server
 * shuts down gracefully and the process exits with status 1 (for its supervisor to restart it).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../bench/src/processes.js';

describe('unhandled errors in the serving process', () => {
  let child: ChildProcess;
  let origin: string;
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ test: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];

  /** The first log line (past or future) that passes `test`; fails after `ms`. */
  const logLine = (test: (l: Record<string, unknown>) => boolean, ms = 15_000): Promise<Record<string, unknown>> => {
    const seen = lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such log line; got ${JSON.stringify(lines)}`)), ms);
      waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  };

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const server = new URL('../../src/server.ts', import.meta.url).href;
    const config = new URL('../../src/config.ts', import.meta.url).href;
    const script = `
      import { serve } from ${JSON.stringify(server)};
      import { loadConfig } from ${JSON.stringify(config)};
      await serve(loadConfig({ PORT: '${port}', HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info' }));
      process.stdin.on('data', (d) => {
        const command = String(d).trim();
        if (command === 'reject') Promise.reject(new Error('boom-rejection'));
        if (command === 'throw') setTimeout(() => { throw new Error('boom-exception'); });
      });`;
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\n')) !== -1) {
        const text = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text);
        } catch {
          line = { msg: text };
        }
        lines.push(line);
        for (const w of [...waiters]) {
          if (w.test(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    });
    // Compiling the application in the child (tsx) takes a while on a busy machine.
    await logLine((l) => /events calendar API at/.test(String(l.msg)), 90_000);
  });
  after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('logs an unhandled rejection and keeps serving', async () => {
    child.stdin!.write('reject\n');
    const line = await logLine((l) => /unhandled promise rejection/.test(String(l.msg)));
    assert.equal(line.level, 50);
    assert.match(JSON.stringify(line.err), /boom-rejection/);
    assert.equal((await fetch(origin + '/livez')).status, 200);
    assert.equal((await fetch(origin + '/api/calendar/events/v1/events')).status, 200);
    assert.equal(child.exitCode, null);
  });

  it('logs an uncaught exception, shuts down gracefully and exits 1', async () => {
    const exited = once(child, 'exit');
    child.stdin!.write('throw\n');
    const [code] = await exited;
    assert.equal(code, 1);
    const fatal = await logLine((l) => /uncaught exception/.test(String(l.msg)));
    assert.equal(fatal.level, 60);
    assert.match(JSON.stringify(fatal.err), /boom-exception/);
    await logLine((l) => /shutting down/.test(String(l.msg)) && l.signal === 'uncaughtException');
  });
});
