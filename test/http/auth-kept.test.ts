/**
 * Who an Authorization header authenticates is kept (issue 9: an authenticated request reads no
 * user row), and dropped when the change log names the user: a password, role or application
 * password changed, or the user removed, on another instance of the same database, is effective
 * on this one at the next request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startTwoInstances, type TestServer } from '../support/harness.js';
import { keptCountersOf } from '../../src/metrics.js';

const EVENT = { title: 'Kept viewer', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00' };

for (const kind of STORES) {
  describe(`kept authentication, two instances [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;

    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'auth-kept'));
    });
    after(async () => {
      await closeBoth?.();
    });

    const create = (as: string) => a.api.post('/events', { as, json: EVENT });

    it('keeps a successful authentication: the second request is a hit', async () => {
      await a.user('editor', 'ann');
      const viewers = keptCountersOf(a.built.store.db).viewers;
      assert.equal((await create('ann:ann-pw')).status, 201);
      const hits = viewers.hits;
      const misses = viewers.misses;
      assert.equal((await create('ann:ann-pw')).status, 201);
      assert.equal(viewers.hits, hits + 1, 'answered from what was kept');
      assert.equal(viewers.misses, misses);
      // A failure is never kept: each one is checked (and costs its verification) again.
      assert.equal((await create('ann:wrong')).status, 401);
      const failedMisses = viewers.misses;
      assert.equal((await create('ann:wrong')).status, 401);
      assert.equal(viewers.misses, failedMisses + 1);
    });

    it('a password changed on the other instance stops the old one at once', async () => {
      await b.built.services.users.setPassword('ann', 'new-pw');
      assert.equal((await create('ann:ann-pw')).status, 401);
      assert.equal((await create('ann:new-pw')).status, 201);
    });

    it('a role changed on the other instance applies at once', async () => {
      assert.equal((await create('ann:new-pw')).status, 201);
      await b.built.services.users.setRole('ann', 'subscriber');
      assert.equal((await create('ann:new-pw')).status, 403);
      await b.built.services.users.setRole('ann', 'author');
      assert.equal((await create('ann:new-pw')).status, 201);
    });

    it('an application password revoked on the other instance stops at once', async () => {
      const { password } = await b.built.services.users.addAppPassword('ann', 'phone');
      assert.equal((await create(`ann:${password}`)).status, 201);
      assert.equal((await create(`ann:${password}`)).status, 201);
      await b.built.services.users.revokeAppPassword('ann', 'phone');
      assert.equal((await create(`ann:${password}`)).status, 401);
      assert.equal((await create('ann:new-pw')).status, 201, 'the password itself still works');
    });

    it('a user removed on the other instance is anonymous at once', async () => {
      assert.equal((await create('ann:new-pw')).status, 201);
      await b.built.services.users.remove('ann', { reassignTo: 'admin' });
      assert.equal((await create('ann:new-pw')).status, 401);
    });

    it('a user added again under the same login does not inherit what was kept', async () => {
      await b.built.services.users.add({ login: 'ann', role: 'contributor', password: 'new-pw' });
      const res = await a.api.post('/events', { as: 'ann:new-pw', json: { ...EVENT, status: 'publish' } });
      assert.equal(res.status, 201);
      assert.equal((res.body as { status: string }).status, 'pending', 'a contributor, not the author ann was before');
    });
  });
}
