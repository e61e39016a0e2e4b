/**
 * Accounts are one login across every calendar, so managing them (users, their roles, passwords,
 * application passwords, invitations, sessions) is a network administrator's work: a calendar's own
 * administrator runs that calendar, not the accounts of everyone else, and an application password
 * limited to one calendar changes no credential, its own account's included (it would otherwise
 * mint itself an unlimited password, or take the account over by its e-mail).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

forEachStore('calendars: accounts are managed by network administrators only', (t) => {
  const admin = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/admin/v1${path}`;
  let vic: { id: number };
  let nadia: { id: number };
  let ada: { id: number };
  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    vic = await t.user('editor', 'vic');
    nadia = await t.user('subscriber', 'nadia');
    ada = await t.user('administrator', 'ada');
    await t.built.services.calendars.setRole('nadia', 'north', 'administrator');
  });

  it('refuses a calendar’s own administrator every account of the service, under any prefix', async () => {
    for (const prefix of ['/c/north', '']) {
      const as = 'nadia';
      const refused: Array<[string, Promise<{ status: number; text: string }>]> = [
        ['list users', t.api.get(admin(prefix, '/users'), { as })],
        ['read a user', t.api.get(admin(prefix, `/users/${vic.id}`), { as })],
        ['make a network administrator', t.api.post(admin(prefix, `/users/${vic.id}`), { as, json: { roles: ['administrator'] } })],
        ['set a password', t.api.post(admin(prefix, `/users/${vic.id}`), { as, json: { password: 'taken-over-pw-1234' } })],
        ['rename', t.api.post(admin(prefix, `/users/${vic.id}`), { as, json: { name: 'Owned' } })],
        ['create a user', t.api.post(admin(prefix, '/users'), { as, json: { username: 'mole', password: 'mole-pw-123456', roles: ['administrator'] } })],
        ['delete a user', t.api.delete(admin(prefix, `/users/${vic.id}`), { as })],
        ['list application passwords', t.api.get(admin(prefix, `/users/${vic.id}/application-passwords`), { as })],
        ['mint an application password', t.api.post(admin(prefix, `/users/${vic.id}/application-passwords`), { as, json: { name: 'mine now' } })],
        ['list invitations', t.api.get(admin(prefix, '/invitations'), { as })],
        ['list sessions', t.api.get(admin(prefix, '/sessions'), { as, query: { user: String(vic.id) } })],
        ['end sessions', t.api.delete(admin(prefix, '/sessions'), { as, query: { user: String(vic.id) } })],
      ];
      for (const [what, pending] of refused) {
        const res = await pending;
        assert.equal(res.status, 403, `${prefix || 'default'}: ${what}: ${res.text}`);
      }
    }
    const after = await t.built.services.users.list();
    assert.equal(after.find((u) => u.login === 'vic')?.role, 'editor');
    assert.ok(!after.some((u) => u.login === 'mole'));
    assert.equal((await t.api.get('/events', { as: 'vic:vic-pw' })).status, 200);
  });

  it('keeps a calendar’s administrator their own account, and a network administrator every account from any prefix', async () => {
    assert.equal((await t.api.get(admin('/c/north', '/me'), { as: 'nadia' })).status, 200);
    const own = await t.api.post(admin('/c/north', `/users/${nadia.id}/application-passwords`), { as: 'nadia', json: { name: 'laptop' } });
    assert.equal(own.status, 201, own.text);
    const listed = await t.api.get(admin('/c/north', '/users'), { as: 'admin' });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.body.some((u: { username: string }) => u.username === 'vic'));
    const renamed = await t.api.post(admin('/c/north', `/users/${vic.id}`), { as: 'admin', json: { name: 'Vic' } });
    assert.equal(renamed.status, 200, renamed.text);
  });

  it('lets no application password limited to one calendar change a credential or the account', async () => {
    for (const [login, id] of [
      ['ada', ada.id],
      ['nadia', nadia.id],
    ] as const) {
      const app = await t.built.services.users.addAppPassword(login, `north only ${login}`);
      await t.built.services.calendars.limitAppPassword(app.uuid, 'north');
      const as = `${login}:${app.password}`;
      // It still proves its account in north.
      assert.equal((await t.api.get(admin('/c/north', '/me'), { as })).status, 200);
      const refused: Array<[string, Promise<{ status: number; text: string }>]> = [
        ['mint an unlimited password', t.api.post(admin('/c/north', `/users/${id}/application-passwords`), { as, json: { name: 'unlimited' } })],
        ['revoke a password', t.api.delete(admin('/c/north', `/users/${id}/application-passwords/${app.uuid}`), { as })],
        ['change the e-mail', t.api.post(admin('/c/north', '/me'), { as, json: { email: 'attacker@example.com' } })],
        ['end the sessions', t.api.delete(admin('/c/north', '/sessions'), { as })],
        ['list users', t.api.get(admin('/c/north', '/users'), { as })],
        ['change a user', t.api.post(admin('/c/north', `/users/${vic.id}`), { as, json: { name: 'Owned' } })],
      ];
      for (const [what, pending] of refused) {
        const res = await pending;
        assert.equal(res.status, 403, `${login}: ${what}: ${res.text}`);
      }
      const me = await t.api.get(admin('', '/me'), { as: login });
      assert.notEqual(me.body.email, 'attacker@example.com');
      const passwords = await t.api.get(admin('', `/users/${id}/application-passwords`), { as: login });
      assert.ok(!passwords.body.some((p: { name: string }) => p.name === 'unlimited'), passwords.text);
    }
  });

  it('shows a calendar’s administrator no other account’s changes in the change log', async () => {
    const changes = (as: string, after: number) => t.api.get(admin('/c/north', '/changes'), { as, query: { after, limit: 1000 } });
    const start = (await changes('admin', 0)).body.head as number;
    await t.api.post(admin('/c/north', `/users/${vic.id}`), { as: 'admin', json: { name: 'Vic the editor' } });
    await t.api.post(admin('/c/north', `/users/${nadia.id}/application-passwords`), { as: 'nadia', json: { name: 'tablet' } });
    const records = (res: { body: { events: Array<{ changes: Array<{ type: string; id: number }> }> } }) => res.body.events.flatMap((e) => e.changes.map((c) => `${c.type}:${c.id}`));
    const network = await changes('admin', start);
    assert.equal(network.status, 200, network.text);
    assert.ok(records(network).includes(`user:${vic.id}`), network.text);
    const own = await changes('nadia', start);
    assert.equal(own.status, 200, own.text);
    assert.ok(!records(own).includes(`user:${vic.id}`), `another account's change leaked: ${own.text}`);
    assert.ok(records(own).includes(`user:${nadia.id}`), own.text);
  });
});
