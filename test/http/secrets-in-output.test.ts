/**
 * Issue 44: secrets stay secret where the service names its settings outside the admin API: the
 * start-up log line of `serve` (the database it runs on, the site URL) and the CLI's output (the
 * database `refresh` names). A PostgreSQL DATABASE_URL with a password holding a raw `@`, given
 * again as `?password=`, and a SITE_URL with credentials (on SQLite, whose URL has none) are
 * masked there by the one masking function (config.ts maskUrl).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES } from '../support/harness.js';
import { cli, cliTarget } from '../support/cli.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const SECRETS = ['db-p@ss', 'p@ss', 'site-secret'];

/** The target's URL with a password holding a raw `@`, and the same as `?password=` (PostgreSQL trusts the tests' connections: any password does). */
function withSecrets(url: string): string {
  if (!url.startsWith('postgres')) return url;
  const m = /^(postgres(?:ql)?:\/\/[^@/:]+)(?::[^@/]*)?@/.exec(url);
  assert.ok(m, `a user in ${url}`);
  const out = `${m[1]}:db-p@ss@${url.slice(m[0].length)}`;
  return `${out}${out.includes('?') ? '&' : '?'}password=db-p@ss`;
}

/** Start `serve`, read its log until the line that says where the API is, stop it; the log so far. */
function startUpLog(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY, 'serve'], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', WARM_UP: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const seen = (d: Buffer) => {
      out += d;
      if (out.includes('events calendar API at')) child.kill('SIGTERM');
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

for (const kind of STORES) {
  describe(`secrets in the start-up log and the CLI's output [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-secrets-'));
    let url = '';
    let close: () => Promise<void> = async () => {};
    before(async () => {
      const target = await cliTarget(kind, dir, 'secrets');
      url = withSecrets(target.url);
      close = () => target.server.close();
    });
    after(async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the start-up log names the database and the site with their secrets masked', async () => {
      const log = await startUpLog({ DATABASE_URL: url, SITE_URL: 'http://site-user:site-secret@127.0.0.1:8080' });
      assert.match(log, /events calendar API at http:\/\/site-user:\*{8}@127\.0\.0\.1:8080\/api\/calendar\/events\/v1/, log);
      if (kind.name === 'postgres') assert.match(log, /"database":"postgres:\/\/[^"]*:\*{8}@127\.0\.0\.1:\d+\/[^"]*password=\*{8}/, log);
      for (const secret of SECRETS) assert.ok(!log.includes(secret), `the log holds ${secret}:\n${log}`);
    });

    it("the CLI's output names the database with its secrets masked", async () => {
      const run = await cli(['refresh'], { DATABASE_URL: url });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /servers on /);
      if (kind.name === 'postgres') assert.match(run.stdout, /servers on postgres:\/\/[^ ]*:\*{8}@/);
      for (const secret of SECRETS) assert.ok(!(run.stdout + run.stderr).includes(secret), `the output holds ${secret}`);
    });
  });
}
