/**
 * A visitor who is not signed in finds no password-protected record by search (WordPress'
 * `WP_Query::parse_search` adds `post_password = ''` for such a visitor): the content of a protected
 * event, venue or organizer is hidden, and a search that matched it would tell it word by word.
 * Signed in, a search finds it as before; without search words, the lists show it as before (its
 * title is public, its content is not).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const when = { start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00' };
const window = { start_date: '2030-01-01', end_date: '2030-12-31' };

forEachStore('search leaves password-protected records out for visitors', (t) => {
  let eventId = 0;
  before(async () => {
    const made = await t.api.post('/events', { as: 'admin', json: { title: 'Board meeting', ...when, status: 'publish', password: 'sesame', description: 'Agenda: the quixotrenal merger' } });
    assert.equal(made.status, 201, made.text);
    eventId = made.body.id;
    const open = await t.api.post('/events', { as: 'admin', json: { title: 'Open meeting', ...when, status: 'publish', description: 'The quixotrenal merger, explained' } });
    assert.equal(open.status, 201, open.text);
    await t.user('subscriber', 'reader');
  });

  const titles = (body: { events: Array<{ title: string }> }) => body.events.map((e) => e.title).sort();

  it('a visitor’s search finds no protected event, by a word of its content or of its title; the list without search shows it', async () => {
    const byContent = await t.api.get('/events', { query: { search: 'quixotrenal', ...window } });
    assert.equal(byContent.status, 200);
    assert.deepEqual(titles(byContent.body), ['Open meeting']);
    assert.equal(byContent.headers.get('x-wp-total'), '1');
    const byTitle = await t.api.get('/events', { query: { search: 'board', ...window } });
    assert.deepEqual(byTitle.body.events, [], 'WordPress leaves the protected post out of a visitor’s search, title too');
    // An exclusion tells nothing either: the protected event is out of any search.
    const excluding = await t.api.get('/events', { query: { search: '-quixotrenal', ...window } });
    assert.deepEqual(titles(excluding.body), []);
    const all = await t.api.get('/events', { query: window });
    assert.deepEqual(titles(all.body), ['Board meeting', 'Open meeting']);
  });

  it('signed in (any role), the search finds it', async () => {
    for (const as of ['reader', 'admin']) {
      const res = await t.api.get('/events', { as, query: { search: 'quixotrenal', ...window } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(titles(res.body), ['Board meeting', 'Open meeting'], as);
    }
  });

  it('the kept results follow the password: taken off, the event is found; set again, it is not', async () => {
    const search = () => t.api.get('/events', { query: { search: 'quixotrenal', ...window } });
    assert.deepEqual(titles((await search()).body), ['Open meeting']);
    assert.equal((await t.api.post(`/events/${eventId}`, { as: 'admin', json: { password: '' } })).status, 200);
    const opened = await search();
    assert.deepEqual(titles(opened.body), ['Board meeting', 'Open meeting']);
    assert.equal(opened.headers.get('x-wp-total'), '2');
    assert.equal((await t.api.post(`/events/${eventId}`, { as: 'admin', json: { password: 'sesame' } })).status, 200);
    const closed = await search();
    assert.deepEqual(titles(closed.body), ['Open meeting']);
    assert.equal(closed.headers.get('x-wp-total'), '1');
  });

  it('a visitor’s sync of a search reports the event gone when it becomes protected', async () => {
    const open = await t.api.post('/events', { as: 'admin', json: { title: 'Zorblat night', ...when, status: 'publish', description: 'zorblat' } });
    assert.equal(open.status, 201, open.text);
    const first = await t.api.get('/events', { query: { search: 'zorblat', ...window } });
    assert.deepEqual(titles(first.body), ['Zorblat night']);
    assert.equal((await t.api.post(`/events/${open.body.id}`, { as: 'admin', json: { password: 'sesame' } })).status, 200);
    const delta = await t.api.get('/events', { query: { search: 'zorblat', sync_token: first.headers.get('x-sync-token')! } });
    assert.equal(delta.status, 200, delta.text);
    assert.deepEqual(delta.body.events, [{ id: open.body.id, status: 'trash' }]);
  });

  it('venues and organizers: a visitor’s search leaves the protected ones out; signed in, it finds them', async () => {
    for (const [path, list] of [
      ['/venues', 'venues'],
      ['/organizers', 'organizers'],
    ] as const) {
      const name = list === 'venues' ? 'venue' : 'organizer';
      const hidden = await t.api.post(path, { as: 'admin', json: { [name]: `Hidden ${name}`, description: 'plimsoquark', password: 'sesame', status: 'publish' } });
      assert.equal(hidden.status, 201, hidden.text);
      const shown = await t.api.post(path, { as: 'admin', json: { [name]: `Shown ${name}`, description: 'plimsoquark', status: 'publish' } });
      assert.equal(shown.status, 201, shown.text);
      const anonymous = await t.api.get(path, { query: { search: 'plimsoquark' } });
      assert.equal(anonymous.status, 200, anonymous.text);
      const ids = (body: Record<string, Array<{ id: number }>>) => body[list]!.map((r) => r.id).sort((x, y) => x - y);
      assert.deepEqual(ids(anonymous.body), [shown.body.id]);
      const signedIn = await t.api.get(path, { as: 'reader', query: { search: 'plimsoquark' } });
      assert.deepEqual(
        ids(signedIn.body),
        [hidden.body.id, shown.body.id].sort((x, y) => x - y),
      );
    }
  });
  it('in another calendar, an account with no role there searches as a visitor; given a role there, it finds the protected records', async () => {
    await t.built.services.calendars.create({ slug: 'sp-north', name: 'SP north' });
    await t.user('subscriber', 'stranger');
    const at = (path: string) => `${t.origin}/c/sp-north${t.config.restRoot}/tribe/events/v1${path}`;
    const made = await t.api.post(at('/events'), { as: 'admin', json: { title: 'North board', ...when, status: 'publish', password: 'sesame', description: 'Agenda: the vontriquel sale' } });
    assert.equal(made.status, 201, made.text);
    const venue = await t.api.post(at('/venues'), { as: 'admin', json: { venue: 'North vault', description: 'vontriquel', password: 'sesame', status: 'publish' } });
    assert.equal(venue.status, 201, venue.text);
    const find = async (as: string) => ({
      events: titles((await t.api.get(at('/events'), { as, query: { search: 'vontriquel', ...window } })).body),
      venues: ((await t.api.get(at('/venues'), { as, query: { search: 'vontriquel' } })).body.venues as Array<{ id: number }>).map((v) => v.id),
    });
    assert.deepEqual(await find('stranger'), { events: [], venues: [] }, 'signed in, but nobody in this calendar');
    assert.deepEqual(await find('admin'), { events: ['North board'], venues: [venue.body.id] }, 'a network administrator');
    await t.built.services.calendars.setRole('stranger', 'sp-north', 'subscriber');
    assert.deepEqual(await find('stranger'), { events: ['North board'], venues: [venue.body.id] }, 'a subscriber there');
    await t.built.services.calendars.setRole('stranger', 'sp-north', '');
    assert.deepEqual(await find('stranger'), { events: [], venues: [] }, 'the role taken away');
    // In the default calendar the account's own role holds, as before.
    assert.deepEqual(titles((await t.api.get('/events', { as: 'stranger', query: { search: 'quixotrenal', ...window } })).body), ['Board meeting', 'Open meeting']);
  });
});
