/**
 * Issue 9 ("the single event is unaffected" by writes): every published create moves the counts
 * of its terms, which every event of those terms shows. A kept public representation is not
 * dropped for that: the first read after the count moved shows the new count, patched from the
 * kept term rows without building the representation again. Anything else about a term (its
 * name) still drops what shows it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { keptCountersOf } from '../../src/metrics.js';

const event = (title: string, categories: number[]) => ({ title, status: 'publish', start_date: '2031-05-01 20:00', end_date: '2031-05-01 22:00', categories });

describe('kept public event representations and term counts', () => {
  forEachStore('kept representations', (t) => {
    it('shows a moved count on the next read without building the representation again', async () => {
      const category = await t.api.post('/categories', { as: 'admin', json: { name: 'Patched' } });
      assert.equal(category.status, 201);
      const cat = category.body.id as number;
      const first = await t.api.post('/events', { as: 'admin', json: event('Kept one', [cat]) });
      assert.equal(first.status, 201);
      const id = first.body.id as number;
      const read = async () => {
        const res = await t.api.get(`/events/${id}`);
        assert.equal(res.status, 200);
        return res.body.categories[0].count as number;
      };
      assert.equal(await read(), 1);
      assert.equal(await read(), 1);
      const counters = keptCountersOf(t.built.store.db).publicEvents;
      for (let n = 2; n <= 4; n++) {
        assert.equal((await t.api.post('/events', { as: 'admin', json: event(`Another ${n}`, [cat]) })).status, 201);
        const misses = counters.misses;
        assert.equal(await read(), n, 'the count as it is now');
        assert.equal(counters.misses, misses, 'patched, not built again');
      }
      // Trashing one moves the count back; a draft moves nothing.
      const draft = await t.api.post('/events', { as: 'admin', json: { ...event('Draft', [cat]), status: 'draft' } });
      assert.equal(draft.status, 201);
      assert.equal(await read(), 4);
      assert.equal((await t.api.delete(`/events/${draft.body.id}`, { as: 'admin' })).status, 200);
      const list = await t.api.get('/events', { query: { categories: String(cat), start_date: '2031-05-01', end_date: '2031-05-02' } });
      const another = (list.body.events as Array<{ id: number; title: string }>).find((e) => e.title === 'Another 2')!;
      assert.equal((await t.api.delete(`/events/${another.id}`, { as: 'admin' })).status, 200);
      assert.equal(await read(), 3);
    });

    it('a renamed term still drops the representations that show it', async () => {
      const category = await t.api.post('/categories', { as: 'admin', json: { name: 'Before rename' } });
      const cat = category.body.id as number;
      const created = await t.api.post('/events', { as: 'admin', json: event('Shows a name', [cat]) });
      const id = created.body.id as number;
      assert.equal((await t.api.get(`/events/${id}`)).body.categories[0].name, 'Before rename');
      assert.equal((await t.api.post(`/categories/${cat}`, { as: 'admin', json: { name: 'After rename' } })).status, 200);
      assert.equal((await t.api.get(`/events/${id}`)).body.categories[0].name, 'After rename');
    });
  });
});
