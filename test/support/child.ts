/**
 * Running Node.js child processes in tests and telling a clean exit from a crash: better-sqlite3
 * 12.x on Node 24.19+ aborts (SIGABRT), 13.x on Node 20 segfaults (SIGSEGV); both show as a signal.
 *
 * @example
 *   const r = await runNode([...CLI_ENTRY, 'migrate'], { DATABASE_URL: url });
 *   assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
 */
import { spawn } from 'node:child_process';

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `node ARGS` (this Node.js binary) in the repository, with extra environment variables. */
export function runNode(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A one-line description of how a child ended, for assertion messages. */
export function describeExit(r: ChildResult): string {
  const how = r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
  return `${how}\n--- stderr ---\n${r.stderr.slice(-2000)}\n--- stdout ---\n${r.stdout.slice(-1000)}`;
}
