/**
 * Issue 9: every write appends to the change log, in its own transaction, the records it touched,
 * under one sequence number per write; numbers follow commit order without gaps, also under
 * concurrent writes.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { headOf as lastSeq } from '../../src/store/change-log.js';
import { readChanges, type ChangeRow } from '../../src/store/change-log.js';

forEachStore('change log', (t) => {
  const since = async (seq: number): Promise<ChangeRow[]> => (await readChanges(t.built.store.db, seq, Number.MAX_SAFE_INTEGER, 10_000)).rows;
  const touched = (rows: ChangeRow[]) => rows.map((r) => `${r.type}:${r.action}`).sort();

  it('logs a create with its inline venue, organizer and new terms under one number', async () => {
    const start = await lastSeq(t.built.store.db);
    const res = await t.api.post('/events', {
      as: 'admin',
      json: {
        title: 'Logged',
        start_date: '2031-05-01 10:00',
        end_date: '2031-05-01 12:00',
        venue: { venue: 'Logged hall' },
        organizer: [{ organizer: 'Logged org' }],
        categories: ['Logged category'],
      },
    });
    assert.equal(res.status, 201);
    const rows = await since(start);
    assert.deepEqual([...new Set(rows.map((r) => r.seq))], [start + 1], 'one number for the whole write');
    assert.equal(await lastSeq(t.built.store.db), start + 1);
    assert.deepEqual(touched(rows), ['event:create', 'organizer:create', 'term:create', 'venue:create']);
    const event = rows.find((r) => r.type === 'event')!;
    assert.equal(event.id, res.body.id);
    assert.equal(event.action, 'create');
    assert.equal(event.detail, null, 'a create has no state before to keep');
  });

  it('logs an update with the listing state before it, and a trash', async () => {
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'Before', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00', featured: true } });
    const id = res.body.id as number;
    let start = await lastSeq(t.built.store.db);
    assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'After', start_date: '2031-07-01 10:00', end_date: '2031-07-01 11:00' } })).status, 200);
    let rows = await since(start);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.type, 'event');
    assert.equal(rows[0]!.action, 'update');
    assert.equal(rows[0]!.detail?.text, true, 'the title changed');
    assert.equal(rows[0]!.detail?.before?.start_local, '2031-06-01 10:00:00');
    assert.equal(rows[0]!.detail?.before?.featured, 1);
    assert.equal(rows[0]!.detail?.before?.status, 'publish');

    start = await lastSeq(t.built.store.db);
    assert.equal((await t.api.delete(`/events/${id}`, { as: 'admin' })).status, 200);
    rows = await since(start);
    assert.deepEqual(
      rows.map((r) => [r.type, r.id, r.action]),
      [['event', id, 'trash']],
    );
    assert.equal(rows[0]!.detail?.text, false);
  });

  it('logs term writes, and a term delete resets event lists', async () => {
    const created = await t.api.post('/categories', { as: 'admin', json: { name: 'Short lived' } });
    const id = created.body.id as number;
    let start = await lastSeq(t.built.store.db);
    await t.api.post(`/categories/${id}`, { as: 'admin', json: { description: 'changed' } });
    assert.deepEqual(touched(await since(start)), ['term:update']);
    start = await lastSeq(t.built.store.db);
    await t.api.delete(`/categories/${id}`, { as: 'admin', query: { force: 'true' } });
    assert.deepEqual(touched(await since(start)), ['lists:reset', 'term:delete']);
  });

  it('gives concurrent writes consecutive numbers in commit order, one each', async () => {
    const start = await lastSeq(t.built.store.db);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => t.api.post('/events', { as: 'admin', json: { title: `Concurrent ${i}`, start_date: '2031-08-01 10:00', end_date: '2031-08-01 11:00' } })),
    );
    for (const r of results) assert.equal(r.status, 201);
    const rows = (await since(start)).filter((r) => r.type === 'event');
    assert.deepEqual(
      rows.map((r) => r.seq),
      Array.from({ length: 16 }, (_, i) => start + 1 + i),
    );
    assert.deepEqual(
      rows.map((r) => r.id).sort((x, y) => x - y),
      results.map((r) => r.body.id as number).sort((x, y) => x - y),
    );
  });

  it('reads nothing when nothing was written', async () => {
    const start = await lastSeq(t.built.store.db);
    await t.api.get('/events');
    await t.api.get('/venues');
    assert.equal(await lastSeq(t.built.store.db), start);
  });
});
