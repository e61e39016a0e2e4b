import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

forEachStore('smoke', (t) => {
  it('creates an event and lists it', async () => {
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'Smoke', start_date: '2027-01-01 10:00', end_date: '2027-01-01 12:00' } });
    assert.equal(created.status, 201);
    const list = await t.api.get('/events', { query: { start_date: '2026-12-01' } });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.events.map((e: { title: string }) => e.title),
      ['Smoke'],
    );
  });
});
