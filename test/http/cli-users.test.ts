/**
 * Users and credentials, issue 13: passwords from standard input instead of the command line,
 * e-mail addresses checked, and `users remove` refusing, or reassigning (logged in the change
 * log, seen by a running server at once), when the user is the author of records.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError, UserRefusal } from '../../src/domain/users.js';
import { insertImage } from '../../src/store/images.js';
import { headOf as lastSeq } from '../../src/store/change-log.js';
import { writeTransaction } from '../../src/store/changes.js';
import { cli } from '../support/cli.js';
import { forEachStore, startServer, type TestServer } from '../support/harness.js';

const EVENT = { title: 'Owned', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00', status: 'publish' };

/** Give `login` one event, venue, organizer and image; returns their ids. */
async function makeOwned(t: TestServer, login: string, userId: number) {
  const as = `${login}:${login}-pw`;
  const venue = await t.api.post('/venues', { as, json: { venue: `Hall of ${login}` } });
  assert.equal(venue.status, 201, JSON.stringify(venue.body));
  const organizer = await t.api.post('/organizers', { as, json: { organizer: `Org of ${login}` } });
  assert.equal(organizer.status, 201, JSON.stringify(organizer.body));
  const event = await t.api.post('/events', { as, json: { ...EVENT, venue: venue.body.id, organizer: [organizer.body.id] } });
  assert.equal(event.status, 201, JSON.stringify(event.body));
  const image = await writeTransaction(t.built.store.db, (trx) =>
    insertImage(trx, { url: `https://example.com/${login}.png`, extension: 'png', mime_type: 'image/png', width: 1, height: 1, author_id: userId, created_gmt: '2027-01-01 00:00:00' }),
  );
  return { event: event.body.id as number, venue: venue.body.id as number, organizer: organizer.body.id as number, image };
}

forEachStore('users remove: refused or reassigned when the user authored records', (t) => {
  it('refuses to remove an author of records, saying how many', async () => {
    const carl = await t.user('author', 'carl');
    await makeOwned(t, 'carl', carl.id);
    await assert.rejects(t.built.services.users.remove('carl'), (err: Error) => {
      assert.ok(err instanceof UserRefusal);
      assert.equal(err.message, 'carl is the author of 4 records (1 event, 1 venue, 1 organizer, 1 image): give --reassign LOGIN to move them to another user');
      return true;
    });
    assert.equal((await t.api.post('/events', { as: carl.credentials, json: EVENT })).status, 201, 'carl still exists');
    await assert.rejects(t.built.services.users.remove('carl', { reassignTo: 'nobody' }), UserError);
    await assert.rejects(t.built.services.users.remove('carl', { reassignTo: 'carl' }), UserError);
  });

  it('with reassign, moves every record in one logged write and removes the user', async () => {
    const dora = await t.user('author', 'dora');
    const ids = await makeOwned(t, 'dora', dora.id);
    const admin = await t.built.store.db.selectFrom('users').select('id').where('login', '=', 'admin').executeTakeFirstOrThrow();
    // Kept by the server before the change: the representation and a list filtered by author.
    assert.equal((await t.api.get(`/events/${ids.event}`)).body.author, String(dora.id));
    const before = await lastSeq(t.built.store.db);
    const { reassigned } = await t.built.services.users.remove('dora', { reassignTo: 'admin' });
    assert.equal(reassigned, 4);
    const db = t.built.store.db;
    assert.equal((await db.selectFrom('users').select('id').where('login', '=', 'dora').execute()).length, 0);
    assert.equal((await db.selectFrom('posts').select('id').where('author_id', '=', dora.id).execute()).length, 0, 'no post left without author');
    assert.equal((await db.selectFrom('images').select('id').where('author_id', '=', dora.id).execute()).length, 0, 'no image left without author');
    const logged = await db.selectFrom('changes').select(['seq', 'record_type', 'record_id']).where('seq', '>', before).execute();
    assert.equal(new Set(logged.map((c) => Number(c.seq))).size, 1, 'one transaction');
    const noted = logged.map((c) => `${c.record_type}:${c.record_id}`).sort();
    // The user itself too: servers drop who they kept authenticated as dora.
    assert.deepEqual(noted, [`event:${ids.event}`, `image:${ids.image}`, `organizer:${ids.organizer}`, `user:${dora.id}`, `venue:${ids.venue}`].sort());
    // The running server sees the new author at once.
    assert.equal((await t.api.get(`/events/${ids.event}`)).body.author, String(admin.id));
    assert.equal((await t.api.get(`/venues/${ids.venue}`)).body.author, String(admin.id));
    assert.equal((await t.api.post('/events', { as: dora.credentials, json: EVENT })).status, 401, 'dora is gone');
  });
});

describe('CLI: passwords from standard input, e-mail check, users remove [sqlite file]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-cli-users-'));
  const url = `sqlite:${join(dir, 'calendar.db')}`;
  // The tests' short passwords pass (the password policy has its own tests: people.test.ts).
  const env = { DATABASE_URL: url, PASSWORD_MIN_LENGTH: '1', PASSWORD_MIN_STRENGTH: '0' };
  let t: TestServer;

  before(async () => {
    t = await startServer({ name: 'sqlite', url });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('users add and set-password read the password from --password-stdin', async () => {
    const add = await cli(['users', 'add', 'eve', '--role', 'author', '--password-stdin', '--email', 'eve@example.com'], env, 'eve secret pw\n');
    assert.equal(add.code, 0, add.stderr);
    assert.equal((await t.api.post('/events', { as: 'eve:eve secret pw', json: EVENT })).status, 201, 'the trailing newline is not part of it');
    const set = await cli(['users', 'set-password', 'eve', '--password-stdin'], env, 'n3w\r\n');
    assert.equal(set.code, 0, set.stderr);
    assert.equal((await t.api.post('/events', { as: 'eve:n3w', json: EVENT })).status, 201);
    assert.equal((await t.api.post('/events', { as: 'eve:eve secret pw', json: EVENT })).status, 401);
    // --password still works.
    assert.equal((await cli(['users', 'set-password', 'eve', '--password', 'visible'], env)).code, 0);
    assert.equal((await t.api.post('/events', { as: 'eve:visible', json: EVENT })).status, 201);
  });

  it('users sign-out ends every sign-in session of a user on the running server at once (--two-factor-off too)', async () => {
    // The login form first: its pre-session cookie and login nonce (login CSRF).
    const form = await fetch(`${t.origin}/admin/login`);
    const nonce = /name="_wpnonce" value="([^"]+)"/.exec(await form.text())![1]!;
    const pre = (form.headers.get('set-cookie') ?? '').split(';')[0]!;
    const login = await fetch(`${t.origin}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
      body: `log=eve&pwd=visible&_wpnonce=${nonce}`,
    });
    assert.equal(login.status, 303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal((await fetch(`${t.origin}/admin/`, { redirect: 'manual', headers: { cookie } })).status, 200);
    const out = await cli(['users', 'sign-out', 'eve', '--two-factor-off'], env);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /eve: 1 session ended, two-factor sign-in off/);
    assert.equal((await fetch(`${t.origin}/admin/`, { redirect: 'manual', headers: { cookie } })).status, 303, 'signed out');
    assert.notEqual((await cli(['users', 'sign-out', 'nobody'], env)).code, 0);
  });

  it('asks for a password it cannot get, and refuses an empty one or both flags', async () => {
    const none = await cli(['users', 'add', 'fay', '--role', 'author'], env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no password: give it with --password-stdin/);
    const empty = await cli(['users', 'add', 'fay', '--role', 'author', '--password-stdin'], env, '\n');
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /must not be empty/);
    const both = await cli(['users', 'set-password', 'eve', '--password', 'x', '--password-stdin'], env, 'y');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either --password or --password-stdin/);
  });

  it('checks e-mail addresses', async () => {
    for (const bad of ['fay', 'fay@', 'fay@example', 'f y@example.com', '@example.com']) {
      const res = await cli(['users', 'add', 'fay', '--role', 'author', '--password', 'x', '--email', bad], env);
      assert.equal(res.code, 2, bad);
      assert.equal(res.stderr, `error: "${bad}" is not an e-mail address (like ann@example.com)\n`);
    }
    assert.equal((await cli(['users', 'add', 'fay', '--role', 'author', '--password', 'x', '--email', 'fay.b+cal@mail.example.org'], env)).code, 0);
  });

  it('users remove refuses with exit code 1 while the user authored records, and --reassign moves them', async () => {
    const made = await t.api.post('/events', { as: 'eve:visible', json: EVENT });
    const refused = await cli(['users', 'remove', 'eve'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: eve is the author of 4 records \(4 events, 0 venues, 0 organizers, 0 images\): give --reassign LOGIN to move them to another user\n$/);
    const unknown = await cli(['users', 'remove', 'eve', '--reassign', 'nobody'], env);
    assert.equal(unknown.code, 2);
    const moved = await cli(['users', 'remove', 'eve', '--reassign', 'fay'], env);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout, 'removed eve; 4 records now authored by fay\n');
    const fay = await t.built.store.db.selectFrom('users').select('id').where('login', '=', 'fay').executeTakeFirstOrThrow();
    assert.equal((await t.api.get(`/events/${made.body.id}`)).body.author, String(fay.id));
    const plain = await cli(['users', 'remove', 'fay'], { DATABASE_URL: url });
    assert.equal(plain.code, 1, 'fay now owns them');
  });

  it('users set-role and users remove refuse, with exit code 1, to take the role from the last administrator', async () => {
    const admins = () => t.built.store.db.selectFrom('users').select('login').where('role', '=', 'administrator').execute();
    assert.deepEqual(await admins(), [{ login: 'admin' }]);
    const demoted = await cli(['users', 'set-role', 'admin', '--role', 'editor'], env);
    assert.equal(demoted.code, 1);
    assert.equal(demoted.stderr, 'error: admin: this is the only administrator: make another user an administrator first\n');
    const removed = await cli(['users', 'remove', 'admin'], env);
    assert.equal(removed.code, 1);
    assert.equal(removed.stderr, 'error: admin: this is the only administrator: make another user an administrator first\n');
    assert.deepEqual(await admins(), [{ login: 'admin' }]);
    // With a second administrator, either may go.
    assert.equal((await cli(['users', 'add', 'gil', '--role', 'administrator', '--password', 'gil-pw'], env)).code, 0);
    const now = await cli(['users', 'set-role', 'gil', '--role', 'editor'], env);
    assert.equal(now.code, 0, now.stderr);
    assert.equal((await cli(['users', 'set-role', 'gil', '--role', 'administrator'], env)).code, 0);
    const gone = await cli(['users', 'remove', 'gil'], env);
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(await admins(), [{ login: 'admin' }]);
  });
});
