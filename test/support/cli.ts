/**
 * Run the `events-calendar` command (from the build when it is current, else from the sources:
 * cli-entry.ts) as a child process, the way an operator would, with `input` on its standard input
 * (a pipe, not a terminal).
 *
 * @example const { code, stdout } = await cli(['users', 'list'], { DATABASE_URL: 'sqlite:/tmp/c.db' });
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN, startServer, type StoreKind, type TestServer } from './harness.js';
import { CLI_ENTRY } from './cli-entry.js';

export function cli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { env: { ...process.env, ...env }, cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * A target database for the CLI and a server over it (with `env` added to its settings): on SQLite
 * a file in `dir`, on PostgreSQL the server's own schema (the CLI's DATABASE_URL sets its search_path).
 */
export async function cliTarget(kind: StoreKind, dir: string, name: string, env: Record<string, string> = {}): Promise<{ server: TestServer; url: string }> {
  if (kind.name === 'sqlite') {
    const url = `sqlite:${join(dir, `${name}.db`)}`;
    return { server: await startServer({ name: 'sqlite', url }, env), url };
  }
  const server = await startServer(kind, env);
  return { server, url: server.databaseUrl };
}

/** The CLI's environment for a target database, as the administrator. */
export function cliEnv(url: string, extra: Record<string, string> = { LOG_LEVEL: 'silent' }): Record<string, string> {
  // The tests' short passwords pass; the password policy's own tests set it.
  return { DATABASE_URL: url, CALENDAR_ADMIN_USER: ADMIN.login, CALENDAR_ADMIN_PASSWORD: ADMIN.password, PASSWORD_MIN_LENGTH: '1', PASSWORD_MIN_STRENGTH: '0', ...extra };
}
