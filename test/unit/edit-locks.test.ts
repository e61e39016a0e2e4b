/**
 * The editor's post locks in the store (src/store/edit-locks.ts), on both stores: a lock ends by
 * itself when it is not refreshed in time (expired ones are not listed, and go when the event's
 * locks are next taken); a refresh moves the expiry and keeps the start. A connection's hold
 * (domain/edit-locks.ts `hold`) takes and releases in the order asked, however soon it ends, in
 * the calendar it began in.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { openStore, type Store } from '../../src/store/db.js';
import { activeEditLocks, takeEditLock } from '../../src/store/edit-locks.js';
import type { Viewer } from '../../src/domain/permissions.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  describe(`edit locks expire [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    let eventId = 0;
    let userId = 0;
    let admin: Viewer;
    before(async () => {
      const schema = kind.name === 'postgres' ? `t_locks_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      admin = await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64'));
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

    it('a hold ended at once, or ended and begun again, leaves the lock as the last step says', async () => {
      const names = async (id: number) => (await services.editLocks.state(id)).editors.map((e) => e.name);
      const id = Number((await services.events.create(admin, { title: 'Held', start_date: '2027-01-02 10:00:00', end_date: '2027-01-02 11:00:00' })).id);
      const settled = () => new Promise((r) => setTimeout(r, 200));
      services.editLocks.hold(admin, id)();
      await settled();
      assert.deepEqual(await names(id), [], 'the release waited for the take');
      const first = services.editLocks.hold(admin, id);
      first();
      const second = services.editLocks.hold(admin, id);
      await settled();
      assert.deepEqual(await names(id), ['admin'], 'the take after the release came after it');
      second();
      second();
      await settled();
      assert.deepEqual(await names(id), [], 'one end per hold');
    });

    it('a hold ended outside any calendar releases the lock in the calendar it began in', async () => {
      const other = await services.calendars.create({ slug: `held-${kind.name}`, name: 'Held elsewhere' });
      const end = await services.calendars.within(other.id, async () => {
        const id = Number((await services.events.create(admin, { title: 'There', start_date: '2027-01-03 10:00:00', end_date: '2027-01-03 11:00:00' })).id);
        const stop = services.editLocks.hold(admin, id);
        await new Promise((r) => setTimeout(r, 200));
        assert.deepEqual(
          (await services.editLocks.state(id)).editors.map((e) => e.name),
          ['admin'],
        );
        return { stop, id };
      });
      // As a socket's close: no calendar of its own.
      end.stop();
      await new Promise((r) => setTimeout(r, 200));
      const left = await services.calendars.within(other.id, () => services.editLocks.state(end.id));
      assert.deepEqual(left.editors, []);
    });
  });
}
