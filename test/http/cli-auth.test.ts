/**
 * The `events-calendar` command and authentication: users and application passwords made by the
 * CLI work against a running server at once; revoking or changing them takes effect at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/harness.js';

const EVENT = { title: 'From CLI user', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00' };

describe('CLI and authentication [sqlite file]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-cli-'));
  const url = `sqlite:${join(dir, 'calendar.db')}`;
  // Short passwords: the password policy (its own tests: people.test.ts) is off here.
  const env = { DATABASE_URL: url, PASSWORD_MIN_LENGTH: '1', PASSWORD_MIN_STRENGTH: '0' };
  let t: TestServer;

  before(async () => {
    t = await startServer({ name: 'sqlite', url });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a --help that lists every setting', async () => {
    const res = await cli(['--help'], {});
    assert.equal(res.code, 0);
    for (const v of ['PORT', 'HOST', 'DATABASE_URL', 'REST_ROOT', 'SITE_URL', 'CALENDAR_TIMEZONE', 'CALENDAR_ADMIN_USER', 'CALENDAR_ADMIN_PASSWORD', 'MAX_PER_PAGE', 'LOG_LEVEL']) {
      assert.match(res.stdout, new RegExp(v), v);
    }
    for (const c of ['serve', 'migrate', 'users', 'app-passwords', 'seed']) assert.match(res.stdout, new RegExp(`\\b${c}\\b`), c);
    const serveHelp = await cli(['serve', '--help'], {});
    assert.match(serveHelp.stdout, /--database-url/);
  });

  it('migrates an empty database', async () => {
    const fresh = `sqlite:${join(dir, 'fresh.db')}`;
    const first = await cli(['migrate'], { DATABASE_URL: fresh });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied: 001_initial/);
    const second = await cli(['migrate'], { DATABASE_URL: fresh });
    assert.match(second.stdout, /up to date/);
  });

  it('adds a user that can write through the running server at once', async () => {
    const add = await cli(['users', 'add', 'ann', '--role', 'editor', '--password', 'ann-pw', '--email', 'ann@example.com', '--name', 'Ann'], env);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /created user ann \(id \d+, editor\)/);
    const res = await t.api.post('/events', { as: 'ann:ann-pw', json: EVENT });
    assert.equal(res.status, 201);
    const byEmail = await t.api.post('/events', { as: 'ann@example.com:ann-pw', json: EVENT });
    assert.equal(byEmail.status, 201, 'the e-mail address works as login');
    const list = await cli(['users', 'list'], env);
    assert.match(list.stdout, /ann\s+editor\s+ann@example.com/);
    const stored = await t.built.store.db.selectFrom('users').select('password_hash').where('login', '=', 'ann').executeTakeFirstOrThrow();
    assert.match(stored.password_hash, /^scrypt\$/);
    assert.ok(!stored.password_hash.includes('ann-pw'), 'the password is stored hashed');
  });

  it('rejects bad input with a message and exit code 2', async () => {
    const dup = await cli(['users', 'add', 'ann', '--role', 'editor', '--password', 'x'], env);
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /already exists/);
    const role = await cli(['users', 'add', 'bob', '--role', 'king', '--password', 'x'], env);
    assert.equal(role.code, 2);
    assert.match(role.stderr, /unknown role/);
    const missing = await cli(['users', 'set-password', 'nobody', '--password', 'x'], env);
    assert.equal(missing.code, 2);
    const badUrl = await cli(['users', 'list'], { DATABASE_URL: 'mysql://x' });
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /DATABASE_URL/);
  });

  it('changes passwords and roles, effective at once', async () => {
    assert.equal((await cli(['users', 'set-password', 'ann', '--password', 'new-pw'], env)).code, 0);
    assert.equal((await t.api.post('/events', { as: 'ann:ann-pw', json: EVENT })).status, 401);
    assert.equal((await t.api.post('/events', { as: 'ann:new-pw', json: EVENT })).status, 201);
    assert.equal((await cli(['users', 'set-role', 'ann', '--role', 'subscriber'], env)).code, 0);
    assert.equal((await t.api.post('/events', { as: 'ann:new-pw', json: EVENT })).status, 403);
    assert.equal((await cli(['users', 'set-role', 'ann', '--role', 'author'], env)).code, 0);
  });

  it('creates, lists and revokes application passwords', async () => {
    const add = await cli(['app-passwords', 'add', 'ann', '--name', 'mobile'], env);
    assert.equal(add.code, 0, add.stderr);
    const password = add.stdout.split('\n')[1].trim();
    assert.match(password, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    assert.equal((await t.api.post('/events', { as: `ann:${password}`, json: EVENT })).status, 201, 'with spaces');
    assert.equal((await t.api.post('/events', { as: `ann:${password.replace(/ /g, '')}`, json: EVENT })).status, 201, 'without spaces');
    const list = await cli(['app-passwords', 'list', 'ann'], env);
    assert.match(list.stdout, /mobile/);
    assert.match(list.stdout, /last used \d{4}-\d{2}-\d{2} /, 'use of an application password is recorded');
    assert.equal((await cli(['app-passwords', 'revoke', 'ann', 'mobile'], env)).code, 0);
    assert.equal((await t.api.post('/events', { as: `ann:${password}`, json: EVENT })).status, 401);
    const again = await cli(['app-passwords', 'revoke', 'ann', 'mobile'], env);
    assert.equal(again.code, 2);
  });

  it('removes users, effective at once', async () => {
    // ann wrote events above: her records go to admin (without --reassign the removal is refused, cli-users.test.ts).
    assert.equal((await cli(['users', 'remove', 'ann', '--reassign', 'admin'], env)).code, 0);
    assert.equal((await t.api.post('/events', { as: 'ann:new-pw', json: EVENT })).status, 401);
  });

  it('resets the administrator password from the environment at start-up', async () => {
    const changed = await cli(['users', 'set-password', 'admin', '--password', 'other'], env);
    assert.equal(changed.code, 0);
    const restarted = await startServer({ name: 'sqlite', url });
    try {
      assert.equal((await restarted.api.post('/events', { as: 'admin', json: EVENT })).status, 201);
      assert.equal((await restarted.api.post('/events', { as: 'admin:other', json: EVENT })).status, 401);
    } finally {
      await restarted.close();
    }
  });
});
