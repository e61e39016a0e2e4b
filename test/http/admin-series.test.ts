/**
 * Trash and restore in the admin namespace: one event (its status before comes back), a whole
 * series from the series or from one occurrence (every occurrence with it, one transaction), the
 * occurrences trashed alone before staying in the trash, 400 when not in the trash, permissions.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';

const A = '/api/calendar/admin/v1';
const WINDOW = { start_date: '2027-01-01', end_date: '2027-12-31', per_page: 50, status: 'any' };

async function createSeries(t: TestServer, title: string, extra: Record<string, unknown> = {}) {
  const res = await t.api.post('/events', {
    as: 'admin',
    json: { title, status: 'publish', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:30:00', timezone: 'Europe/Paris', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'], ...extra },
  });
  assert.equal(res.status, 201, res.text);
  return res.body as Record<string, any>;
}

async function statuses(t: TestServer, seriesId: number): Promise<string[]> {
  const res = await t.api.get('/events', { as: 'admin', query: { ...WINDOW, post_parent: seriesId, status: 'publish,draft,pending,private,future,trash' } });
  assert.equal(res.status, 200, res.text);
  return (res.body.events as Array<{ status: string }>).map((e) => e.status);
}

forEachStore('admin: trash and restore, one event or a whole series', (t) => {
  it('a single event goes to the trash and comes back with the status it had', async () => {
    const draft = await t.api.post('/events', { as: 'admin', json: { title: 'Draft talk', status: 'draft', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00' } });
    assert.equal(draft.status, 201);
    const trashed = await t.api.post(`${A}/events/${draft.body.id}/trash`, { as: 'admin' });
    assert.equal(trashed.status, 200, trashed.text);
    assert.deepEqual(trashed.body, { id: draft.body.id, type: 'event', status: 'trash' });
    const restored = await t.api.post(`${A}/events/${draft.body.id}/restore`, { as: 'admin' });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.status, 'draft', 'the status before the trash, not publish');
    const again = await t.api.post(`${A}/events/${draft.body.id}/restore`, { as: 'admin' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'rest_restore_not_trashed');
    assert.equal((await t.api.post(`${A}/events/999999/restore`, { as: 'admin' })).status, 404);
    assert.equal((await t.api.post(`${A}/events/${draft.body.id}/trash`, { as: 'admin', json: { scope: 'some' } })).body.code, 'rest_invalid_param');
  });

  it('the whole series from one occurrence: every occurrence trashed, then restored; one trashed alone before stays trashed', async () => {
    const series = await createSeries(t, 'Whole Series Yoga');
    const occ = (await t.api.get('/events', { as: 'admin', query: { ...WINDOW, post_parent: series.id } })).body.events as Array<Record<string, any>>;
    assert.equal(occ.length, 6);
    // One occurrence trashed alone first (an exception).
    assert.equal((await t.api.delete(`/events/${occ[4]!.id}`, { as: 'admin' })).status, 200);
    const trash = await t.api.post(`${A}/events/${occ[1]!.id}/trash`, { as: 'admin', json: { scope: 'all' } });
    assert.equal(trash.status, 200, trash.text);
    assert.deepEqual(trash.body, { id: occ[1]!.id, type: 'event', status: 'trash', series: { id: series.id, status: 'trash' } });
    assert.deepEqual(await statuses(t, series.id), ['trash', 'trash', 'trash', 'trash', 'trash', 'trash']);
    // Nothing of it is listed any more.
    assert.equal((await t.api.get('/events', { query: { start_date: '2027-01-01', end_date: '2027-12-31', search: 'Whole Series Yoga' } })).body.total, 0);

    const restore = await t.api.post(`${A}/events/${series.id}/restore`, { as: 'admin' });
    assert.equal(restore.status, 200, restore.text);
    assert.deepEqual(restore.body, { id: series.id, type: 'series', status: 'publish', series: { id: series.id, status: 'publish' } });
    assert.deepEqual(await statuses(t, series.id), ['publish', 'publish', 'publish', 'publish', 'trash', 'publish']);
    assert.equal((await t.api.get('/events', { query: { start_date: '2027-01-01', end_date: '2027-12-31', search: 'Whole Series Yoga' } })).body.total, 5);
  });

  it('the series itself: trash without a scope takes every occurrence; restore from an occurrence with scope=all', async () => {
    const series = await createSeries(t, 'Series Trashed Whole');
    const trash = await t.api.post(`${A}/events/${series.id}/trash`, { as: 'admin' });
    assert.equal(trash.status, 200, trash.text);
    assert.deepEqual(await statuses(t, series.id), Array(6).fill('trash'));
    const occ = (await t.api.get('/events', { as: 'admin', query: { ...WINDOW, post_parent: series.id, status: 'trash' } })).body.events as Array<Record<string, any>>;
    const one = await t.api.post(`${A}/events/${occ[2]!.id}/restore`, { as: 'admin', json: { scope: 'all' } });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.series.status, 'publish');
    assert.deepEqual(await statuses(t, series.id), Array(6).fill('publish'));
    // The change is one write: the sync token of the list reports every occurrence.
    const delta = await t.api.get(`${A}/events`, { as: 'admin', query: { per_page: 500 } });
    const mine = (delta.body as Array<{ id: number; status: string; recurring_event_id?: number }>).filter((e) => e.recurring_event_id === series.id);
    assert.equal(mine.length, 6);
    assert.ok(mine.every((e) => e.status === 'publish'));
  });

  it('is refused without credentials (401), to subscribers (403), and to an author on others’ series (403)', async () => {
    const series = await createSeries(t, 'Guarded Series');
    assert.equal((await t.api.post(`${A}/events/${series.id}/trash`)).status, 401);
    await t.user('subscriber', 'series-sub');
    assert.equal((await t.api.post(`${A}/events/${series.id}/trash`, { as: 'series-sub' })).status, 403);
    await t.user('author', 'series-author');
    assert.equal((await t.api.post(`${A}/events/${series.id}/trash`, { as: 'series-author' })).status, 403);
    assert.equal((await t.api.post(`${A}/events/${series.id}/restore`, { as: 'series-author' })).status, 403);
    assert.deepEqual(await statuses(t, series.id), Array(6).fill('publish'), 'nothing written');
  });
});
