/**
 * Issue 28, the admin API's users: list (search, role, paging), create, update, delete (with
 * reassignment, or refused), the last administrator kept, application passwords (secret answered
 * once, usable at once, revoked at once), no hash in any answer, administrators only (a user
 * manages their own application passwords).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const A = '/api/calendar/admin/v1';

forEachStore('admin users', (t) => {
  it('administrators only; anonymous 401, editors 403', async () => {
    assert.equal((await t.api.get(`${A}/users`)).status, 401);
    await t.user('editor', 'eddie');
    const ed = await t.api.get(`${A}/users`, { as: 'eddie' });
    assert.equal(ed.status, 403);
    assert.equal((await t.api.post(`${A}/users`, { as: 'eddie', json: { username: 'x', password: 'y' } })).status, 403);
  });

  it('creates, lists with search, role filter and paging, and never answers a hash', async () => {
    const made = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'ann', password: 'ann-pw', email: 'ann@example.org', name: 'Ann Example', roles: ['author'] } });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.roles, ['author']);
    assert.equal(made.body.name, 'Ann Example');
    assert.equal(made.body.has_password, true);
    assert.ok(!/scrypt|password_hash/.test(made.text));
    for (const n of [1, 2, 3]) await t.api.post(`${A}/users`, { as: 'admin', json: { username: `sub${n}`, role: 'subscriber' } });
    const found = await t.api.get(`${A}/users`, { as: 'admin', query: { search: 'EXAMPLE' } });
    assert.deepEqual(
      found.body.map((u: { username: string }) => u.username),
      ['ann'],
    );
    const subs = await t.api.get(`${A}/users`, { as: 'admin', query: { role: 'subscriber', per_page: 2, page: 2 } });
    assert.equal(subs.headers.get('x-wp-total'), '3');
    assert.equal(subs.headers.get('x-wp-totalpages'), '2');
    assert.deepEqual(
      subs.body.map((u: { username: string }) => u.username),
      ['sub3'],
    );
    assert.equal(subs.body[0].has_password, false);
    const literal = await t.api.get(`${A}/users`, { as: 'admin', query: { search: '_' } });
    assert.equal(literal.body.length, 0, 'a LIKE wildcard is taken literally');
    const all = await t.api.get(`${A}/users`, { as: 'admin', query: { per_page: 100 } });
    assert.ok(!/scrypt/.test(all.text));
  });

  it('refuses bad input with WordPress-style errors', async () => {
    const dup = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'ann', password: 'x' } });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.code, 'existing_user_login');
    const email = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'bob', email: 'ann@example.org' } });
    assert.equal(email.body.code, 'existing_user_email');
    const bad = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'bob', email: 'not-an-address' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    const role = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'bob', roles: ['king'] } });
    assert.equal(role.status, 400);
    const login = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'bad/login' } });
    assert.equal(login.status, 400);
    assert.equal(login.body.code, 'rest_invalid_param');
    const none = await t.api.get(`${A}/users/999999`, { as: 'admin' });
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'rest_user_invalid_id');
  });

  it('updates name, email, role and password; the new password works at once, the old one no more', async () => {
    const ann = (await t.api.get(`${A}/users`, { as: 'admin', query: { search: 'ann' } })).body[0];
    const up = await t.api.patch(`${A}/users/${ann.id}`, { as: 'admin', json: { name: 'Ann E.', email: 'ann@example.com', roles: ['editor'], password: 'new-pw' } });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.name, 'Ann E.');
    assert.equal(up.body.email, 'ann@example.com');
    assert.deepEqual(up.body.roles, ['editor']);
    assert.equal((await t.api.get(`${A}/events`, { as: 'ann:ann-pw' })).status, 401);
    assert.equal((await t.api.get(`${A}/events`, { as: 'ann:new-pw' })).status, 200, 'an editor now');
  });

  it('keeps the last administrator', async () => {
    const me = (await t.api.get(`${A}/users`, { as: 'admin', query: { role: 'administrator' } })).body;
    assert.equal(me.length, 1);
    const demote = await t.api.patch(`${A}/users/${me[0].id}`, { as: 'admin', json: { roles: ['editor'] } });
    assert.equal(demote.status, 400);
    assert.equal(demote.body.code, 'rest_user_last_administrator');
    const remove = await t.api.delete(`${A}/users/${me[0].id}`, { as: 'admin' });
    assert.equal(remove.body.code, 'rest_user_last_administrator');
  });

  it('deletes a user: refused while they authored records, else with reassign', async () => {
    const carl = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'carl', password: 'carl-pw', roles: ['author'] } });
    const ev = await t.api.post('/events', { as: 'carl:carl-pw', json: { title: 'Carl’s', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00', status: 'publish' } });
    assert.equal(ev.status, 201, ev.text);
    const refused = await t.api.delete(`${A}/users/${carl.body.id}`, { as: 'admin' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'rest_user_has_content');
    assert.match(refused.body.message, /reassign/);
    const self = await t.api.delete(`${A}/users/${carl.body.id}`, { as: 'admin', query: { reassign: carl.body.id } });
    assert.equal(self.body.code, 'rest_user_invalid_reassign');
    const admins = (await t.api.get(`${A}/users`, { as: 'admin', query: { role: 'administrator' } })).body;
    const gone = await t.api.delete(`${A}/users/${carl.body.id}`, { as: 'admin', query: { reassign: admins[0].id } });
    assert.equal(gone.status, 200, gone.text);
    assert.equal(gone.body.deleted, true);
    assert.equal(gone.body.reassigned, 1);
    assert.equal(gone.body.previous.username, 'carl');
    const event = await t.api.get(`/events/${ev.body.id}`, { as: 'admin' });
    assert.equal(String(event.body.author), String(admins[0].id));
    assert.equal((await t.api.get(`${A}/users/${carl.body.id}`, { as: 'admin' })).status, 404);
  });

  it('application passwords: secret answered once, works at once, listed without it, revoked at once; a user manages their own', async () => {
    const dana = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'dana', password: 'dana-pw', roles: ['editor'] } });
    const made = await t.api.post(`${A}/users/${dana.body.id}/application-passwords`, { as: 'admin', json: { name: 'phone' } });
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.password, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    assert.equal(made.body.name, 'phone');
    const cred = `dana:${made.body.password}`;
    assert.equal((await t.api.get(`${A}/events`, { as: cred })).status, 200);
    const list = await t.api.get(`${A}/users/${dana.body.id}/application-passwords`, { as: 'dana:dana-pw' });
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body[0]).sort(), ['created', 'last_used', 'name', 'uuid']);
    assert.ok(!list.text.includes(made.body.password.slice(0, 4) + ' ' + made.body.password.slice(5, 9)));
    const dup = await t.api.post(`${A}/users/${dana.body.id}/application-passwords`, { as: 'dana:dana-pw', json: { name: 'phone' } });
    assert.equal(dup.status, 409);
    const empty = await t.api.post(`${A}/users/${dana.body.id}/application-passwords`, { as: 'dana:dana-pw', json: { name: ' ' } });
    assert.equal(empty.status, 400);
    // Another editor may not touch dana's.
    assert.equal((await t.api.get(`${A}/users/${dana.body.id}/application-passwords`, { as: 'eddie' })).status, 403);
    const revoked = await t.api.delete(`${A}/users/${dana.body.id}/application-passwords/${made.body.uuid}`, { as: 'dana:dana-pw' });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.previous.uuid, made.body.uuid);
    assert.equal((await t.api.get(`${A}/events`, { as: cred })).status, 401);
    const again = await t.api.delete(`${A}/users/${dana.body.id}/application-passwords/${made.body.uuid}`, { as: 'admin' });
    assert.equal(again.status, 404);
  });
});
