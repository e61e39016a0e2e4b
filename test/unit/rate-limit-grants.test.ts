/**
 * The REST rate limit's grants (src/web/rate-limit.ts over store/shared-limits.ts), on both stores:
 * an instance takes a share of what remains of a client key's window in one upsert and spends it in
 * memory; the grants of several instances never add up past the limit; far from the limit the next
 * grant is taken ahead; a new window starts a new count; past windows are pruned.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { grantSize, pruneSharedLimits } from '../../src/store/shared-limits.js';
import { createGrantStore } from '../../src/domain/rate-grants.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  describe(`rate-limit grants [${kind.name}]`, () => {
    let store: Store;
    before(async () => {
      const schema = kind.name === 'postgres' ? `t_rl_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
    });
    after(() => store.close());
    beforeEach(() => sql`delete from rate_limit_grants`.execute(store.db));
    const granted = async (key: string) => Number((await sql<{ count: number }>`select count from rate_limit_grants where key = ${key}`.execute(store.db)).rows[0]?.count ?? 0);

    it('a grant is an eighth of what remains, at most 100, at least 1, never more than remains', () => {
      assert.deepEqual([grantSize(1200), grantSize(400), grantSize(10), grantSize(1), grantSize(0)], [100, 50, 1, 1, 0]);
    });

    it('two instances on one database: grants never add up past the limit, and every request of the limit is answered', async () => {
      const now = () => 1_800_000_000_000;
      const one = createGrantStore(store.db, 40, 60_000, now);
      const two = createGrantStore(store.db, 40, 60_000, now);
      const counted = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).count('ip:10.0.0.1')));
      assert.equal(counted.filter((c) => c.current <= 40).length, 40);
      assert.equal(await granted('ip:10.0.0.1'), 40);
      assert.ok((await one.count('ip:10.0.0.1')).current > 40, 'then refused on both');
      // Which instance's last try found the window spent depends on the order the 60 landed in: each
      // learns it from the database once, then knows it without asking.
      assert.ok((await two.count('ip:10.0.0.1')).current > 40, 'then refused on both');
      assert.ok(two.countNow('ip:10.0.0.1')!.current > 40, 'known at once once this instance saw the window spent');
      assert.equal((await one.count('ip:10.0.0.2')).current, 1, 'another key has its own');
    });

    it('far from the limit: one write per 100 requests, the next grant taken once half of the last is spent', async () => {
      const now = () => 1_800_000_000_000;
      const g = createGrantStore(store.db, 1_000_000, 60_000, now);
      await g.count('user:1');
      assert.equal(await granted('user:1'), 100);
      for (let i = 1; i < 50; i++) assert.ok(g.countNow('user:1'), `request ${i + 1} counted without the database`);
      assert.ok(g.countNow('user:1'));
      // The 51st started the next grant; it lands before the first is spent.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await granted('user:1'), 200);
      for (let i = 51; i < 150; i++) assert.ok(g.countNow('user:1'), `request ${i + 1}`);
    });

    it('a new window starts a new count', async () => {
      let at = 1_800_000_000_000;
      const g = createGrantStore(store.db, 3, 60_000, () => at);
      for (let i = 0; i < 3; i++) assert.ok((await g.count('ip:10.0.0.3')).current <= 3);
      const over = await g.count('ip:10.0.0.3');
      assert.ok(over.current > 3);
      assert.ok(over.ttl > 0 && over.ttl <= 60_000);
      at += 60_000;
      assert.equal((await g.count('ip:10.0.0.3')).current, 1);
    });

    it('grants of past windows are pruned, the current window kept', async () => {
      const at = 1_800_000_000_000;
      await createGrantStore(store.db, 10, 60_000, () => at - 120_000).count('ip:old');
      await createGrantStore(store.db, 10, 60_000, () => at).count('ip:new');
      // As the job prunes: windows that started before the last one.
      await pruneSharedLimits(store.db, at, 15 * 60_000, at - 2 * 60_000 + 1);
      assert.deepEqual([await granted('ip:old'), await granted('ip:new')], [0, 1]);
    });
  });
}
