/**
 * Issue 9: readers that miss the same public representation at the same moment (every reader of a
 * popular event right after a write touched it) share one build instead of each making its own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { ANONYMOUS, viewerOf } from '../../src/domain/permissions.js';
import { keptCountersOf } from '../../src/metrics.js';
import { openStore, type Store } from '../../src/store/db.js';

describe('public event representations under concurrent misses', () => {
  let store: Store;
  let services: Services;
  const admin = viewerOf({ id: 1, login: 'admin', role: 'administrator' });

  before(async () => {
    store = await openStore('sqlite::memory:');
    services = createServices(loadConfig({ DATABASE_URL: 'sqlite::memory:' }), store);
    await services.users.ensureAdmin('admin', 'a long enough password');
  });
  after(async () => {
    await store.close();
  });

  it('builds one representation for many simultaneous readers, then keeps it', async () => {
    const created = await services.events.create(admin, { title: 'Popular', start_date: '2027-03-05 20:00:00', end_date: '2027-03-05 22:00:00', status: 'publish' });
    const record = (await services.events.findById(Number(created.id)))!;
    const counters = keptCountersOf(store.db).publicEvents;
    const before = { ...counters };
    const answers = await Promise.all(Array.from({ length: 8 }, () => services.events.represent([record], ANONYMOUS, 'single', services.links)));
    assert.equal(counters.misses - before.misses, 1, 'one build for eight readers');
    assert.equal(counters.hits - before.hits, 7, 'the seven others shared it');
    for (const a of answers) assert.deepEqual(a, answers[0]);
    assert.equal((answers[0]![0] as { title: string }).title, 'Popular');

    // A write to the event makes the next readers build again, once.
    await services.events.update(admin, record, { title: 'Popular again' });
    const fresh = (await services.events.findById(Number(created.id)))!;
    const mid = { ...counters };
    const again = await Promise.all(Array.from({ length: 5 }, () => services.events.represent([fresh], ANONYMOUS, 'single', services.links)));
    assert.equal(counters.misses - mid.misses, 1);
    for (const a of again) assert.equal((a[0] as { title: string }).title, 'Popular again');
  });
});
