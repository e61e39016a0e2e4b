/**
 * The SQLite binding does not abort the process on any supported Node.js line (issue 18).
 *
 * better-sqlite3 12.x aborts on Node 24.19+ when a statement is finalised by the garbage collector
 * outside JavaScript (`Assertion failed: (env) != nullptr`, SIGABRT); 13.x segfaults on Node 20.
 * These tests do, in child processes, what triggers it: evicted cached statements and forced GC,
 * the totals worker started and stopped, a database closed and reopened, every CLI command. Each
 * child must end with exit code 0 and no signal. (With 12.x on Node 24.21 the churn died by SIGABRT
 * every time, CLI commands now and then; the service now needs Node 22+ and uses 13.x only.)
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unsupportedNodeMessage } from '../../src/cli/node-support.js';
import { describeExit, runNode } from '../support/child.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const TSX = ['--import', 'tsx'];

describe('supported Node.js lines', () => {
  it('refuses Node < 22 with one line', () => {
    assert.equal(unsupportedNodeMessage('22.23.3'), undefined);
    assert.equal(unsupportedNodeMessage('24.21.0'), undefined);
    assert.equal(unsupportedNodeMessage('26.0.0'), undefined);
    for (const old of ['20.20.2', '18.20.8']) {
      const msg = unsupportedNodeMessage(old);
      assert.ok(msg && !msg.includes('\n'));
      assert.match(msg, new RegExp(`Node\\.js ${old.replaceAll('.', '\\.')} is not supported`));
    }
  });
});

describe(`no abort on Node ${process.versions.node} (better-sqlite3 13.x)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-binding-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('survives statement eviction, forced and idle GC, the totals worker stopping, close and reopen, exit', async () => {
    const r = await runNode(['--expose-gc', ...TSX, 'test/support/statement-churn.ts', dir]);
    assert.equal(r.signal, null, describeExit(r));
    assert.equal(r.code, 0, describeExit(r));
    assert.match(r.stdout, /^ok$/m);
  });

  it('runs every CLI command to exit code 0, no signal', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, CALENDAR_ADMIN_USER: 'admin', CALENDAR_ADMIN_PASSWORD: 'admin-pw', PASSWORD_MIN_LENGTH: '1', PASSWORD_MIN_STRENGTH: '0' };
    const commands: Array<[string[], RegExp]> = [
      [['migrate'], /applied: 001_initial/],
      [['users', 'add', 'ann', '--role', 'editor', '--password', 'pw-1', '--email', 'ann@example.com'], /created user ann/],
      [['users', 'list'], /ann\s+editor/],
      [['users', 'set-password', 'ann', '--password', 'pw-2'], /password of ann changed/],
      [['users', 'set-role', 'ann', '--role', 'author'], /ann is now author/],
      [['app-passwords', 'add', 'ann', '--name', 'phone'], /application password for ann \(phone/],
      [['app-passwords', 'list', 'ann'], /phone/],
      [['app-passwords', 'revoke', 'ann', 'phone'], /revoked phone/],
      [['users', 'remove', 'ann'], /removed ann/],
      [['seed', '--events', '300', '--no-progress'], /done in .*300 events/],
      [['import', 'ics', 'test/fixtures/ics/calendar.ics', '--no-progress'], /events: 6 created/],
      [['export', '--out', join(dir, 'cli.json')], /exported to/],
      [['export', '--format', 'ics', '--out', join(dir, 'cli.ics')], /exported to/],
      [['migrate'], /up to date/],
    ];
    for (const [args, expected] of commands) {
      const r = await runNode([...CLI_ENTRY, ...args], env);
      const what = `events-calendar ${args.join(' ')}: ${describeExit(r)}`;
      assert.equal(r.signal, null, what);
      assert.equal(r.code, 0, what);
      assert.match(r.stdout, expected, what);
    }
  });
});
