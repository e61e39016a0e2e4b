/**
 * The editor's post locks in the store (src/store/edit-locks.ts), on both stores: a lock ends by
 * itself when it is not refreshed in time (expired ones are not listed, and go when the event's
 * locks are next taken); a refresh moves the expiry and keeps the start.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { openStore, type Store } from '../../src/store/db.js';
import { activeEditLocks, takeEditLock } from '../../src/store/edit-locks.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  describe(`edit locks expire [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    let eventId = 0;
    let userId = 0;
    before(async () => {
      const schema = kind.name === 'postgres' ? `t_locks_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      const admin = await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64'));
      userId = admin.id;
      eventId = Number((await services.events.create(admin, { title: 'Locked', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' })).id);
    });
    after(async () => {
      await store?.close();
    });

    it('lists a lock until it expires, refreshes it in place, and drops expired ones', async () => {
      const t0 = 1_800_000_000_000;
      await takeEditLock(store.db, eventId, userId, { nowMs: t0, ttlMs: 150_000, startedGmt: '2027-01-15 08:00:00' });
      assert.equal((await activeEditLocks(store.db, eventId, t0 + 149_999)).length, 1);
      assert.deepEqual(await activeEditLocks(store.db, eventId, t0 + 150_000), [], 'not refreshed for 150 s: ended');
      // A heartbeat in time moves the expiry and keeps the start.
      await takeEditLock(store.db, eventId, userId, { nowMs: t0 + 100_000, ttlMs: 150_000, startedGmt: '2027-01-15 08:01:40' });
      const [lock] = await activeEditLocks(store.db, eventId, t0 + 200_000);
      assert.deepEqual(lock, { user_id: userId, name: 'admin', started_gmt: '2027-01-15 08:00:00', expires_ms: t0 + 250_000 });
      // Another user's lock taken after this one expired removes it.
      const other = Number((await services.users.add({ login: 'eve', role: 'editor', password: 'a long enough password' })).id);
      await takeEditLock(store.db, eventId, other, { nowMs: t0 + 300_000, ttlMs: 150_000, startedGmt: '2027-01-15 08:05:00' });
      assert.deepEqual(
        (await activeEditLocks(store.db, eventId, 0)).map((l) => l.user_id),
        [other],
        'even read with an old clock, the expired lock is gone',
      );
    });
  });
}
