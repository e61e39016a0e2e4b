/**
 * A free-text cost round-trips: "€5 suggested donation" is shown as typed on every face people read
 * (the event and list pages, the iframe view, the FullCalendar source and so the
 * component) and loaded back into the editor as typed (`GET calendar/admin/v1/events/{id}`), while
 * the legacy API's `cost` and `cost_details` stay the original's rendering ("€ suggested
 * donation5": every number taken out of the text, the rest read as the currency symbol). A cost of
 * numbers only is shown as the original renders it. On both stores.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { forEachStore, type TestServer } from '../support/harness.js';
import { shownCost, typedCost } from '../../src/domain/cost.js';

describe('shownCost and typedCost (unit)', () => {
  it('shows a free-text cost as typed, escaped as the REST cost is; numbers as the original renders them', () => {
    assert.equal(shownCost(['€5 suggested donation'], '€ suggested donation5'), '€5 suggested donation');
    assert.equal(shownCost(['Tom & Jerry: 5'], 'x'), 'Tom &amp; Jerry: 5');
    assert.equal(shownCost(['10', '20'], '$10 – $20'), '$10 – $20');
    assert.equal(shownCost(['1,000'], '$1000'), '$1000');
    assert.equal(typedCost(['€5 suggested donation']), '€5 suggested donation');
    assert.equal(typedCost(['10', '', '20']), '10, 20');
  });
});

forEachStore('a free-text cost round-trips', (t: TestServer) => {
  const start = DateTime.utc().plus({ days: 10 }).startOf('day').set({ hour: 18 });
  const day = start.toFormat('yyyy-MM-dd');
  const typed = '€5 suggested donation';
  let id = 0;
  let numbersId = 0;
  let url = '';

  const page = async (path: string) => {
    const res = await fetch(new URL(path, t.origin));
    assert.equal(res.status, 200, path);
    return res.text();
  };

  before(async () => {
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'Donation concert', start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC', cost: typed } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    id = res.body.id;
    url = res.body.url;
    const numbers = await t.api.post('/events', { as: 'admin', json: { title: 'Ranged fair', start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00`, timezone: 'UTC', cost: ['10', '20'] } });
    assert.equal(numbers.status, 201, JSON.stringify(numbers.body));
    numbersId = numbers.body.id;
    await t.user('contributor');
  });

  it("the legacy API answers the original's rendering, unchanged", async () => {
    for (const path of [`/events/${id}`, `/events`]) {
      const res = await t.api.get(path);
      const event = path === '/events' ? res.body.events.find((e: any) => e.id === id) : res.body;
      assert.equal(event.cost, '€ suggested donation5');
      assert.deepEqual(event.cost_details, { currency_symbol: '€ suggested donation', currency_code: '', currency_position: '', values: ['5'] });
      assert.ok(!JSON.stringify(res.body).includes(typed), 'no field carries the typed text on the wire');
    }
    const legacy = await fetch(`${t.origin}/wp-json/tribe/events/v1/events/${id}`);
    assert.equal(((await legacy.json()) as any).cost, '€ suggested donation5');
  });

  it('the event page and the list page show it as typed', async () => {
    for (const path of [url, '/events/']) {
      const html = await page(path);
      assert.ok(html.includes(typed), `${path} shows "${typed}"`);
      assert.ok(!html.includes('suggested donation5'), `${path} does not show the scrambled cost`);
    }
    assert.ok((await page('/events/')).includes('$10 – $20'), 'a cost of numbers as the original renders it');
  });

  it('the iframe view and the FullCalendar source (read by the component) show it as typed', async () => {
    for (const path of ['/embed/']) {
      const html = await page(path);
      assert.ok(html.includes(typed), `${path} shows "${typed}"`);
      assert.ok(!html.includes('suggested donation5'), path);
    }
    const res = await t.api.get(`/api/calendar/embed/v1/fullcalendar?start=${day}&end=${start.plus({ days: 1 }).toFormat('yyyy-MM-dd')}&timeZone=UTC`);
    assert.equal(res.status, 200, res.text);
    const byId = new Map((res.body as any[]).map((e) => [Number(e.id), e]));
    assert.equal(byId.get(id).extendedProps.cost, typed);
    assert.equal(byId.get(numbersId).extendedProps.cost, '$10 – $20');
  });

  it('the editor loads the cost as typed, and saving it again stores what was typed', async () => {
    const raw = await t.api.get(`/api/calendar/admin/v1/events/${id}`, { as: 'admin' });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(raw.body, { id, cost: typed, password: '' });
    const saved = await t.api.post(`/events/${id}`, { as: 'admin', json: { cost: raw.body.cost } });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.cost, '€ suggested donation5');
    assert.deepEqual((await t.api.get(`/api/calendar/admin/v1/events/${id}`, { as: 'admin' })).body, { id, cost: typed, password: '' });
    assert.ok((await page(url)).includes(typed));
    // What the legacy cost reads, saved again, is what scrambled it: the route is why the editor does not.
    const numbers = await t.api.get(`/api/calendar/admin/v1/events/${numbersId}`, { as: 'admin' });
    assert.deepEqual(numbers.body, { id: numbersId, cost: '10, 20', password: '' });
  });

  it('the route asks for credentials, refuses who may not edit the event, and 404s what is not an event', async () => {
    assert.equal((await t.api.get(`/api/calendar/admin/v1/events/${id}`, { as: null })).status, 401);
    assert.equal((await t.api.get(`/api/calendar/admin/v1/events/${id}`, { as: 'contributor' })).status, 403);
    const missing = await t.api.get('/api/calendar/admin/v1/events/999999', { as: 'admin' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'rest-event-not-found');
    assert.equal((await t.api.get('/api/calendar/admin/v1/events/abc', { as: 'admin' })).status, 404);
  });
});
