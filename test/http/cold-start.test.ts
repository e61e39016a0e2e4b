/**
 * The first anonymous list after a start (issue 27, item 3): the warm-up answers the default
 * lists before `/readyz` says ready, so the first client's list finds its total (`X-WP-Total`)
 * kept instead of counting it (a count grows with the data: seconds at a million events).
 * A second instance on the same database stands for the restarted server (nothing kept yet).
 * Not timed: what is checked is whether the list's total was counted (the kept totals' hit and
 * miss counters) and what `/readyz` says while the warm-up runs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';
import { keptCountersOf } from '../../src/metrics.js';
import { warmUpPaths } from '../../src/http/warm-up.js';

/** More events than a default page (10) in the default window (from yesterday on), so the total is counted. */
const EVENTS = 12;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

for (const kind of STORES) {
  describe(`the first list after a start [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    /**
     * A GET, its body read: a body left unread keeps its connection busy, and closing the server
     * then waited until the test process' garbage collector dropped the response (70 s in the full suite).
     */
    const statusOf = async (url: string) => {
      const res = await fetch(url);
      await res.arrayBuffer();
      return res;
    };
    const list = (t: TestServer) => statusOf(`${t.origin}${t.config.restRoot}/tribe/events/v1/events`);

    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'cold-start'));
      for (let i = 0; i < EVENTS; i++) {
        const res = await a.api.post('/events', { as: 'admin', json: { title: `Cold ${i}`, status: 'publish', start_date: `${day(2 + i)} 10:00`, end_date: `${day(2 + i)} 11:00` } });
        assert.equal(res.status, 201);
      }
    });
    after(async () => {
      await closeBoth?.();
    });

    it('without a warm-up, the first list counts its total (the miss the warm-up takes away)', async () => {
      // The same database as the two instances (SQLite: their file).
      const c = await startServer({ ...kind, url: a.config.databaseUrl }, { WARM_UP: 'false' }, { peerOf: a });
      try {
        assert.equal(c.built.warmUp, undefined);
        const totals = keptCountersOf(c.built.store.db).eventTotals;
        const misses = totals.misses;
        const res = await list(c);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-wp-total'), String(EVENTS));
        assert.equal(totals.misses, misses + 1, 'counted at first use');
        const ready = await (await fetch(c.origin + '/readyz')).json();
        assert.equal(ready.checks.warm_up, undefined);
      } finally {
        await c.close();
      }
    });

    it('/readyz says warming until the warm-up has answered the default lists, then ready', async () => {
      const warmUp = b.built.warmUp!;
      assert.ok(warmUp, 'on by default');
      // Not started yet (a server built but not served): readiness is not held.
      assert.equal((await statusOf(b.origin + '/readyz')).status, 200);
      // The warm-up's reads (app.inject) wait until /readyz has been asked, so that the answer
      // is "warming" however fast the reads would be (on a busy host they once finished first).
      const app = b.built.app;
      const inject = app.inject.bind(app);
      let asked!: () => void;
      const gate = new Promise<void>((resolve) => (asked = resolve));
      (app as { inject: unknown }).inject = async (...args: Parameters<typeof inject>) => {
        await gate;
        return inject(...args);
      };
      const running = warmUp.run();
      const during = await fetch(b.origin + '/readyz').finally(() => {
        (app as { inject: unknown }).inject = inject;
        asked();
      });
      assert.equal(during.status, 503);
      assert.ok(during.headers.get('retry-after'));
      const body = await during.json();
      assert.equal(body.status, 'warming');
      assert.equal(body.checks.database.status, 'ok');
      assert.equal(body.checks.warm_up.status, 'warming');
      assert.equal(body.checks.warm_up.paths, warmUpPaths(b.config).length);
      const report = await running;
      assert.equal(report.status, 'ok', JSON.stringify(report.failures));
      const done = await fetch(b.origin + '/readyz');
      assert.equal(done.status, 200);
      const after = await done.json();
      assert.equal(after.status, 'ok');
      assert.equal(after.checks.warm_up.status, 'ok');
      assert.equal(after.checks.warm_up.done, warmUpPaths(b.config).length);
      assert.equal(typeof after.checks.warm_up.ms, 'number');
      assert.deepEqual(Object.keys(after.checks.warm_up.reads), warmUpPaths(b.config));
    });

    it('after the warm-up, the first client list finds its total kept: nothing is counted', async () => {
      const totals = keptCountersOf(b.built.store.db).eventTotals;
      const pages = keptCountersOf(b.built.store.db).eventPages;
      const { hits, misses } = totals;
      const pageMisses = pages.misses;
      const res = await list(b);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-wp-total'), String(EVENTS));
      assert.equal(totals.misses, misses, 'no count at the first client request');
      assert.equal(totals.hits, hits + 1);
      assert.equal(pages.misses, pageMisses, 'its page was kept too');
      // Page 2 shares the total.
      const second = await statusOf(`${b.origin}${b.config.restRoot}/tribe/events/v1/events?page=2`);
      assert.equal(second.status, 200);
      assert.equal(second.headers.get('x-wp-total'), String(EVENTS));
      assert.equal(totals.misses, misses);
    });

    it('a write between the warm-up and the first list adjusts the kept total instead of counting again', async () => {
      const res = await a.api.post('/events', { as: 'admin', json: { title: 'Cold late', status: 'publish', start_date: `${day(30)} 10:00`, end_date: `${day(30)} 11:00` } });
      assert.equal(res.status, 201);
      const totals = keptCountersOf(b.built.store.db).eventTotals;
      const misses = totals.misses;
      const listed = await list(b);
      assert.equal(listed.headers.get('x-wp-total'), String(EVENTS + 1));
      assert.equal(totals.misses, misses);
    });
  });
}
