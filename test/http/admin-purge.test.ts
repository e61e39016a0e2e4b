/**
 * Issue 28: `DELETE calendar/admin/v1/events/{id}`, wp-admin's "Delete Permanently" (the legacy
 * DELETE only trashes): only from the trash, a series with all its occurrences, never one
 * occurrence alone; a tombstone `deleted` in sync; the permissions and If-Match of the event's writes.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';

const A = '/api/calendar/admin/v1';

async function created(t: TestServer, json: Record<string, unknown>, as = 'admin'): Promise<number> {
  const res = await t.api.post('/events', { as, json: { status: 'publish', start_date: '2030-05-01 10:00', end_date: '2030-05-01 11:00', ...json } });
  assert.equal(res.status, 201, res.text.slice(0, 300));
  return res.body.id as number;
}

forEachStore('deleting events permanently', (t) => {
  it('deletes a trashed event for good, and only a trashed one; sync reports it deleted', async () => {
    const id = await created(t, { title: 'Purge me' });
    const token = (await t.api.get('/events', { as: 'admin', query: { start_date: '2030-01-01', end_date: '2031-01-01' } })).headers.get('x-sync-token')!;
    const early = await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'admin' });
    assert.equal(early.status, 400);
    assert.equal(early.body.code, 'rest_purge_not_trashed');
    assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).status, 200, 'refused: nothing written');
    assert.equal((await t.api.delete(`/events/${id}`, { as: 'admin' })).status, 200);
    const purged = await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'admin' });
    assert.equal(purged.status, 200, purged.text);
    assert.deepEqual(purged.body, { deleted: true, previous: { id, type: 'event', status: 'trash', title: 'Purge me' } });
    assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).status, 404);
    assert.equal((await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'admin' })).status, 404);
    const delta = await t.api.get('/events', { as: 'admin', query: { sync_token: token } });
    assert.deepEqual(
      delta.body.events.filter((e: { id: number }) => e.id === id),
      [{ id, status: 'deleted' }],
    );
  });

  it('deletes a series with every occurrence, refuses one occurrence alone', async () => {
    const series = await created(t, { title: 'Weekly purge', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] });
    const occurrences = await t.api.get('/events', { as: 'admin', query: { post_parent: series, start_date: '2030-01-01', end_date: '2031-01-01' } });
    assert.equal(occurrences.body.total, 5);
    const one = occurrences.body.events[1].id as number;
    assert.equal((await t.api.delete(`/events/${one}`, { as: 'admin' })).status, 200);
    const alone = await t.api.delete(`${t.origin}${A}/events/${one}`, { as: 'admin' });
    assert.equal(alone.status, 400);
    assert.equal(alone.body.code, 'rest_purge_occurrence');
    assert.equal((await t.api.delete(`/events/${series}`, { as: 'admin' })).status, 200);
    const purged = await t.api.delete(`${t.origin}${A}/events/${series}`, { as: 'admin' });
    assert.equal(purged.status, 200, purged.text);
    assert.equal(purged.body.previous.type, 'series');
    const index = (await t.api.get(`${t.origin}${A}/events`, { as: 'admin', query: { per_page: 500 } })).body as Array<{ id: number; recurring_event_id?: number }>;
    assert.deepEqual(
      index.filter((e) => e.id === series || e.recurring_event_id === series),
      [],
    );
  });

  it('is for whoever may delete the event, and honours If-Match', async () => {
    const id = await created(t, { title: 'Guarded' });
    assert.equal((await t.api.delete(`/events/${id}`, { as: 'admin' })).status, 200);
    assert.equal((await t.api.delete(`${t.origin}${A}/events/${id}`, { as: null })).status, 401);
    await t.user('author', 'purge-author');
    assert.equal((await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'purge-author' })).status, 403);
    const stale = await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'admin', headers: { 'if-match': '"stale"' } });
    assert.equal(stale.status, 412);
    assert.equal((await t.api.delete(`${t.origin}${A}/events/${id}`, { as: 'admin' })).status, 200);
  });
});
