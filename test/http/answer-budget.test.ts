/**
 * The memory of concurrent large answers is bounded (RESPONSE_MEMORY_MB): with a 2 MB budget,
 * parallel lists of events with large descriptions all answer, but are built one at a time, and
 * the budget is whole again afterwards.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

forEachStore(
  'answer budget',
  (t) => {
    it('builds parallel large event, venue and organizer lists one at a time within the budget', async () => {
      const description = 'lorem ipsum '.repeat(50_000); // 600 KB
      for (let i = 0; i < 4; i++) {
        const ev = await t.api.post('/events', {
          as: 'admin',
          json: { title: `Big ${i}`, description, start_date: '2030-05-01 10:00', end_date: '2030-05-01 12:00' },
        });
        assert.equal(ev.status, 201, ev.text.slice(0, 300));
        assert.equal((await t.api.post('/venues', { as: 'admin', json: { venue: `Big venue ${i}`, description } })).status, 201);
      }
      const answers = t.built.services.answers;
      const lists = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => t.api.get('/events', { as: i % 2 ? 'admin' : null, query: { start_date: '2030-01-01', end_date: '2031-01-01', per_page: 4 } })),
        ...Array.from({ length: 4 }, () => t.api.get('/venues', { query: { per_page: 4 } })),
      ]);
      for (const res of lists) assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(lists[0]!.body.events.length, 4);
      const usage = answers.usage();
      assert.equal(usage.peakHolders, 1, 'each answer is larger than the budget: built alone');
      assert.ok(usage.peakBytes <= 2 * 1024 * 1024);
      assert.deepEqual([usage.bytes, usage.holders, usage.waiting], [0, 0, 0], 'all given back');
    });
  },
  { RESPONSE_MEMORY_MB: '2', RATE_LIMIT_MAX: '0' },
);
