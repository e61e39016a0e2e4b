/**
 * Issue 44, item 8: a new password ends the user's sign-in sessions, in the transaction that
 * writes it: set by an administrator (admin API), by the CLI (`users set-password`), or by users
 * themselves, whose own session (the one they changed it with) lives on while the others end.
 * Application passwords are no sessions: they keep working.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { STORES, startServer, type TestServer } from '../support/harness.js';

const EVENT = { title: 'Session event', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' };

interface Browser {
  cookie: string;
  nonce: string;
}

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;
const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Sign in through the login form, as a browser; the session's cookie and REST nonce. */
async function signIn(t: TestServer, login: string, password: string): Promise<Browser> {
  const form = await fetch(t.origin + '/admin/login', { redirect: 'manual' });
  const res = await fetch(t.origin + '/admin/login', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form) },
    body: new URLSearchParams({ log: login, pwd: password, _wpnonce: formNonce(await form.text()) }).toString(),
  });
  assert.equal(res.status, 303, await res.text());
  const cookie = cookieOf(res);
  const nonce = await (await fetch(t.origin + '/admin/rest-nonce', { headers: { cookie } })).text();
  return { cookie, nonce };
}

/** Whether the session still acts as its user (a write through the REST API with its nonce). */
async function works(t: TestServer, b: Browser): Promise<boolean> {
  const res = await fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: b.cookie, 'x-wp-nonce': b.nonce }, body: JSON.stringify(EVENT) });
  await res.text();
  assert.ok(res.status === 201 || res.status === 401, String(res.status));
  return res.status === 201;
}

const userPath = (id: number) => `/api/calendar/admin/v1/users/${id}`;

for (const kind of STORES) {
  describe(`a new password ends the old sessions [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind);
    });
    after(async () => {
      await t.close();
    });

    it("an administrator sets another user's password: that user's sessions end, their application password works", async () => {
      const { id } = await t.user('editor', 'nell');
      const one = await signIn(t, 'nell', 'nell-pw');
      const two = await signIn(t, 'nell', 'nell-pw');
      const { password: app } = await t.built.services.users.addAppPassword('nell', 'phone');
      assert.ok((await works(t, one)) && (await works(t, two)));
      const res = await t.api.patch(userPath(id), { as: 'admin', json: { password: 'a new one' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(await works(t, one), false, 'first session ended');
      assert.equal(await works(t, two), false, 'second session ended');
      assert.equal((await t.api.post('/events', { as: `nell:${app}`, json: EVENT })).status, 201, 'the application password works');
      assert.equal((await t.api.post('/events', { as: 'nell:a new one', json: EVENT })).status, 201);
      // The administrator's own session is none of these and lives on.
      const admin = await signIn(t, 'admin', 'admin-password');
      assert.equal((await t.api.patch(userPath(id), { as: 'admin', json: { password: 'and another' } })).status, 200);
      assert.ok(await works(t, admin));
    });

    it('users changing their own password keep the session they did it with; their other sessions end', async () => {
      const { id } = await t.user('administrator', 'olga');
      const here = await signIn(t, 'olga', 'olga-pw');
      const elsewhere = await signIn(t, 'olga', 'olga-pw');
      const third = await signIn(t, 'olga', 'olga-pw');
      const res = await fetch(t.origin + userPath(id), {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', cookie: here.cookie, 'x-wp-nonce': here.nonce },
        body: JSON.stringify({ password: 'olga new pw' }),
      });
      assert.equal(res.status, 200, await res.text());
      assert.equal(await works(t, here), true, 'the session that changed it lives');
      assert.equal(await works(t, elsewhere), false);
      assert.equal(await works(t, third), false);
      // With Basic (no session to keep) every session ends.
      assert.equal((await t.api.patch(userPath(id), { as: 'olga:olga new pw', json: { password: 'olga third pw' } })).status, 200);
      assert.equal(await works(t, here), false);
    });
  });

  describe(`users set-password (CLI) ends the sessions [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-password-sessions-'));
    let t: TestServer;
    let url: string;
    before(async () => {
      ({ server: t, url } = await cliTarget(kind, dir, 'sessions'));
    });
    after(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('ends every session of the user on the running server at once', async () => {
      await t.user('author', 'cleo');
      const one = await signIn(t, 'cleo', 'cleo-pw');
      const two = await signIn(t, 'cleo', 'cleo-pw');
      assert.ok(await works(t, one));
      const out = await cli(['users', 'set-password', 'cleo', '--password-stdin'], cliEnv(url), 'cleo new pw\n');
      assert.equal(out.code, 0, out.stderr);
      assert.equal(await works(t, one), false);
      assert.equal(await works(t, two), false);
      assert.ok(await works(t, await signIn(t, 'cleo', 'cleo new pw')), 'the new password signs in');
    });
  });
}
