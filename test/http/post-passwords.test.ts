/**
 * Password-protected events, venues and organizers (WordPress' post_password): how they are
 * written (the write routes take `password`, at most 255 characters, stored as given; the admin
 * API hands it back to editors) and how each face withholds their content. On both stores.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { forEachStore, type TestServer } from '../support/harness.js';

const ADMIN_API = '/api/calendar/admin/v1';

forEachStore('post passwords: writes', (t: TestServer) => {
  const day = DateTime.utc().plus({ days: 12 }).toFormat('yyyy-MM-dd');
  const times = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC' };

  before(async () => {
    await t.user('author');
  });

  it('an event is created and updated with a password, stored as given, read back by its editors only', async () => {
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'Secret gig', ...times, password: ' open sesame ' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.password, undefined, 'the representation never carries the password');
    const id = created.body.id;
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, ' open sesame ');
    const updated = await t.api.post(`/events/${id}`, { as: 'admin', form: { password: 'other' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, 'other');
    // An update that does not send it keeps it.
    await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Secret gig, again' } });
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, 'other');
    // '' removes it.
    await t.api.post(`/events/${id}`, { as: 'admin', json: { password: '' } });
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, '');
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'author' })).status, 403);
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: null })).status, 401);
  });

  it('a password longer than 255 characters, or not a string, is refused with rest_invalid_param', async () => {
    const long = await t.api.post('/events', { as: 'admin', json: { title: 'Too long', ...times, password: 'x'.repeat(256) } });
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.code, 'rest_invalid_param');
    assert.match(long.body.data.params.password, /at most 255/);
    const ok = await t.api.post('/events', { as: 'admin', json: { title: 'Just right', ...times, password: 'é'.repeat(255) } });
    assert.equal(ok.status, 201, ok.text);
    const notString = await t.api.post('/events', { as: 'admin', json: { title: 'Array', ...times, password: ['a'] } });
    assert.equal(notString.status, 400, notString.text);
    for (const [path, name] of [
      ['/venues', 'venue'],
      ['/organizers', 'organizer'],
    ]) {
      const res = await t.api.post(path!, { as: 'admin', json: { [name!]: 'Long', password: 'y'.repeat(256) } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'rest_invalid_param');
    }
  });

  it('venues and organizers take a password on create and update, also inline in an event write', async () => {
    for (const [path, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const created = await t.api.post(`/${path}`, { as: 'admin', json: { [name]: `Hidden ${name}`, password: 'pw1' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.password, undefined);
      const id = created.body.id;
      assert.deepEqual((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'admin' })).body, { id, password: 'pw1' });
      assert.equal((await t.api.post(`/${path}/${id}`, { as: 'admin', json: { password: 'pw2' } })).status, 200);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'admin' })).body.password, 'pw2');
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'author' })).status, 403);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: null })).status, 401);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/999999`, { as: 'admin' })).status, 400);
    }
    const event = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'With inline venue', ...times, venue: { venue: 'Inline hall', password: 'hall' }, organizer: [{ organizer: 'Inline org', password: 'org' }] },
    });
    assert.equal(event.status, 201, event.text);
    const venueId = event.body.venue.id;
    const organizerId = event.body.organizer[0].id;
    assert.equal((await t.api.get(`${ADMIN_API}/venues/${venueId}`, { as: 'admin' })).body.password, 'hall');
    assert.equal((await t.api.get(`${ADMIN_API}/organizers/${organizerId}`, { as: 'admin' })).body.password, 'org');
    const badInline = await t.api.post('/events', { as: 'admin', json: { title: 'Bad inline', ...times, venue: { venue: 'Bad hall', password: 'z'.repeat(300) } } });
    assert.equal(badInline.status, 400, badInline.text);
  });

  it("a recurring event's password reaches its occurrences", async () => {
    const series = await t.api.post('/events', { as: 'admin', json: { title: 'Weekly secret', ...times, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'], password: 'weekly' } });
    assert.equal(series.status, 201, series.text);
    const list = await t.api.get(`${ADMIN_API}/events`, { as: 'admin', query: { per_page: 500 } });
    const occurrences = (list.body as any[]).filter((e) => e.recurring_event_id === series.body.id || e.id === series.body.id);
    assert.ok(occurrences.length >= 3, JSON.stringify(list.body));
    for (const o of occurrences) assert.equal((await t.api.get(`${ADMIN_API}/events/${o.id}`, { as: 'admin' })).body.password, 'weekly', `event ${o.id}`);
  });
});
