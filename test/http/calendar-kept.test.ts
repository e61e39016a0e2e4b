/**
 * What the service keeps across requests (records, versions, representations) is kept per
 * calendar and dropped by every calendar's changes: an event edited in a second calendar reads back
 * edited, and an id read in the wrong calendar first is still found in its own.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

forEachStore('calendars: what is kept follows each calendar’s changes', (t) => {
  const north = (path: string) => `${t.origin}/c/north${t.config.restRoot}/calendar/events/v1${path}`;
  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North' });
  });

  it('reads an event edited in a second calendar as edited', async () => {
    const made = await t.api.post(north('/events'), { as: 'admin', json: { title: 'Fair', start_date: '2031-04-01 10:00', end_date: '2031-04-01 11:00', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    const id = made.body.id as number;
    // Read it more than once, as an editor and as anyone, so that it is kept.
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.api.get(north(`/events/${id}`), { as: 'admin' })).body.title, 'Fair');
      assert.equal((await t.api.get(north(`/events/${id}`))).body.title, 'Fair');
    }
    const edited = await t.api.post(north(`/events/${id}`), { as: 'admin', json: { title: 'Fair (edited)' } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal((await t.api.get(north(`/events/${id}`), { as: 'admin' })).body.title, 'Fair (edited)');
    assert.equal((await t.api.get(north(`/events/${id}`))).body.title, 'Fair (edited)');
  });

  it('finds a record in its own calendar after it was looked for in another', async () => {
    const made = await t.api.post(north('/events'), { as: 'admin', json: { title: 'Elsewhere', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'publish' } });
    const id = made.body.id as number;
    for (let i = 0; i < 3; i++) assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).status, 404);
    for (let i = 0; i < 3; i++) assert.equal((await t.api.get(north(`/events/${id}`), { as: 'admin' })).body.title, 'Elsewhere');
  });
});
