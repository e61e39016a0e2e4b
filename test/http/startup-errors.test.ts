/**
 * `events-calendar serve` refuses to start on a configuration error with one line on stderr and
 * exit code 2 (no stack trace): a port in use, an unknown time zone, a bad LOG_LEVEL or other
 * setting, an unreachable PostgreSQL, an unusable SQLite path, an admin user without a password.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ENTRY } from '../support/cli-entry.js';

const CLI = [...CLI_ENTRY, 'serve'];

function serve(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      CLI,
      { env: { ...process.env, DATABASE_URL: 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent', ...env }, cwd: process.cwd(), timeout: 60_000 },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('startup errors: one line on stderr, exit code 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-startup-'));
  let busy: Server;
  let busyPort = 0;
  before(async () => {
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as { port: number }).port;
    writeFileSync(join(dir, 'not-a-database.db'), 'this is a text file, not SQLite\n'.repeat(200));
    writeFileSync(join(dir, 'a-file'), 'x');
  });
  after(() => {
    busy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: Array<[string, () => Record<string, string>, RegExp]> = [
    ['a port in use', () => ({ PORT: String(busyPort), HOST: '127.0.0.1' }), /cannot listen on 127\.0\.0\.1:\d+: the address is already in use/],
    ['an unknown time zone', () => ({ CALENDAR_TIMEZONE: 'Mars/Olympus_Mons' }), /CALENDAR_TIMEZONE "Mars\/Olympus_Mons" is not a known time zone/],
    ['a bad LOG_LEVEL', () => ({ LOG_LEVEL: 'chatty' }), /LOG_LEVEL must be one of/],
    ['a bad RATE_LIMIT_MAX', () => ({ RATE_LIMIT_MAX: 'lots' }), /RATE_LIMIT_MAX/],
    ['a bad RATE_LIMIT_WINDOW', () => ({ RATE_LIMIT_WINDOW: 'a while' }), /RATE_LIMIT_WINDOW/],
    ['a bad TRUST_PROXY', () => ({ TRUST_PROXY: 'the proxy' }), /TRUST_PROXY/],
    ['a bad CORS_ORIGINS', () => ({ CORS_ORIGINS: 'example.org/path' }), /CORS_ORIGINS/],
    ['a bad METRICS', () => ({ METRICS: 'sometimes' }), /METRICS must be true or false/],
    ['a bad LOGIN_MAX_FAILURES', () => ({ LOGIN_MAX_FAILURES: '-3' }), /LOGIN_MAX_FAILURES/],
    [
      'an unreachable PostgreSQL',
      () => ({ DATABASE_URL: 'postgres://postgres:pw@127.0.0.1:1/nowhere' }),
      /cannot start on DATABASE_URL postgres:\/\/postgres:\*{8}@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/,
    ],
    // Issue 44: a password with a raw @ and a ?password= parameter are masked too (the one masking function).
    [
      'an unreachable PostgreSQL, its password holding a raw @ and given again as ?password=',
      () => ({ DATABASE_URL: 'postgres://postgres:pw@secret@127.0.0.1:1/nowhere?password=pw@secret' }),
      /cannot start on DATABASE_URL postgres:\/\/postgres:\*{8}@127\.0\.0\.1:1\/nowhere\?password=\*{8}: .*ECONNREFUSED/,
    ],
    [
      'a SITE_URL that is not a URL, its password masked',
      () => ({ SITE_URL: 'https://site-user:site-secret@exa mple.org' }),
      /SITE_URL must be an absolute URL, got "https:\/\/site-user:\*{8}@exa mple\.org"/,
    ],
    ['a SQLite file that is not a database', () => ({ DATABASE_URL: `sqlite:${join(dir, 'not-a-database.db')}` }), /cannot start on DATABASE_URL sqlite:.*not a database/],
    ['an unwritable SQLite path', () => ({ DATABASE_URL: `sqlite:${join(dir, 'a-file', 'calendar.db')}` }), /cannot start on DATABASE_URL sqlite:.*(EEXIST|ENOTDIR)/],
    ['CALENDAR_ADMIN_USER without CALENDAR_ADMIN_PASSWORD', () => ({ CALENDAR_ADMIN_USER: 'admin' }), /CALENDAR_ADMIN_USER is set but CALENDAR_ADMIN_PASSWORD is not/],
    ['CALENDAR_ADMIN_PASSWORD without CALENDAR_ADMIN_USER', () => ({ CALENDAR_ADMIN_PASSWORD: 'secret' }), /CALENDAR_ADMIN_PASSWORD is set but CALENDAR_ADMIN_USER is not/],
  ];

  for (const [name, env, message] of cases) {
    it(`refuses ${name}`, async () => {
      const res = await serve(env());
      assert.equal(res.code, 2, `exit code (stderr: ${res.stderr})`);
      const lines = res.stderr.split('\n').filter((l) => l.trim() !== '');
      assert.equal(lines.length, 1, `one stderr line, got:\n${res.stderr}`);
      assert.match(lines[0]!, /^error: /);
      assert.match(lines[0]!, message);
      assert.ok(!res.stderr.includes('    at '), 'no stack trace');
      assert.ok(!res.stderr.includes(':pw@') && !res.stderr.includes('secret'), 'no password');
    });
  }
});
