/**
 * Run the `events-calendar` command (from the sources, through tsx) as a child process, the way an
 * operator would, with `input` on its standard input (a pipe, not a terminal).
 *
 * @example const { code, stdout } = await cli(['users', 'list'], { DATABASE_URL: 'sqlite:/tmp/c.db' });
 */
import { spawn } from 'node:child_process';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

export function cli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}
