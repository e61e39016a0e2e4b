/**
 * Issue 28, the admin API's recurrence preview: the occurrences an event's schedule and rules
 * generate (local and UTC, across a daylight-saving change), all-day, EXDATE/RDATE, `count` and
 * `more`, the events route's exact errors for bad lines, nothing written.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

const A = '/api/calendar/admin/v1';
const P = `${A}/recurrence/preview`;

forEachStore('admin recurrence preview', (t) => {
  it('for whoever may create events', async () => {
    const body = { start_date: '2027-03-22 19:00', end_date: '2027-03-22 21:00', recurrence: ['RRULE:FREQ=WEEKLY'] };
    assert.equal((await t.api.post(P, { json: body })).status, 401);
    await t.user('subscriber', 'sub');
    assert.equal((await t.api.post(P, { as: 'sub', json: body })).status, 403);
    await t.user('contributor', 'con');
    assert.equal((await t.api.post(P, { as: 'con', json: body })).status, 200);
  });

  it('answers the next occurrences, local and UTC, across a daylight-saving change; writes nothing', async () => {
    const head = (await t.api.get(`${A}/events`, { as: 'admin' })).headers.get('x-wp-total');
    const res = await t.api.post(P, {
      as: 'admin',
      json: { start_date: '2027-03-22 19:00', end_date: '2027-03-22 21:00', timezone: 'Europe/Paris', recurrence: ['RRULE:FREQ=WEEKLY', 'EXDATE:20270405T190000'], count: 3 },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.timezone, 'Europe/Paris');
    assert.deepEqual(res.body.recurrence, ['RRULE:FREQ=WEEKLY', 'EXDATE:20270405T190000']);
    assert.deepEqual(res.body.occurrences, [
      { start_date: '2027-03-22 19:00:00', end_date: '2027-03-22 21:00:00', start_date_utc: '2027-03-22 18:00:00', end_date_utc: '2027-03-22 20:00:00' },
      { start_date: '2027-03-29 19:00:00', end_date: '2027-03-29 21:00:00', start_date_utc: '2027-03-29 17:00:00', end_date_utc: '2027-03-29 19:00:00' },
      { start_date: '2027-04-12 19:00:00', end_date: '2027-04-12 21:00:00', start_date_utc: '2027-04-12 17:00:00', end_date_utc: '2027-04-12 19:00:00' },
    ]);
    assert.equal(res.body.more, true);
    assert.equal((await t.api.get(`${A}/events`, { as: 'admin' })).headers.get('x-wp-total'), head, 'nothing written');
  });

  it('all-day, bounded rules (more: false), RDATE, rare rules found far ahead', async () => {
    const allDay = await t.api.post(P, {
      as: 'admin',
      json: { start_date: '2027-01-01', end_date: '2027-01-01', all_day: true, recurrence: 'RRULE:FREQ=MONTHLY;COUNT=2\nRDATE;VALUE=DATE:20270315', count: 50 },
    });
    assert.equal(allDay.status, 200, allDay.text);
    assert.deepEqual(
      allDay.body.occurrences.map((o: { start_date: string; end_date: string }) => [o.start_date, o.end_date]),
      [
        ['2027-01-01 00:00:00', '2027-01-01 23:59:59'],
        ['2027-02-01 00:00:00', '2027-02-01 23:59:59'],
        ['2027-03-15 00:00:00', '2027-03-15 23:59:59'],
      ],
    );
    assert.equal(allDay.body.more, false);
    const leap = await t.api.post(P, { as: 'admin', json: { start_date: '2028-02-29 10:00', end_date: '2028-02-29 11:00', recurrence: ['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29'], count: 3 } });
    assert.deepEqual(
      leap.body.occurrences.map((o: { start_date: string }) => o.start_date.slice(0, 10)),
      ['2028-02-29', '2032-02-29', '2036-02-29'],
    );
  });

  it('refuses bad lines exactly as the events route does, and count out of range', async () => {
    const bad = { start_date: '2027-03-22 19:00', end_date: '2027-03-22 21:00', recurrence: ['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=SOMETIMES'] };
    const preview = await t.api.post(P, { as: 'admin', json: bad });
    const event = await t.api.post('/events', { as: 'admin', json: { title: 'x', ...bad } });
    assert.equal(preview.status, 400);
    assert.deepEqual(preview.body, event.body);
    const dates = await t.api.post(P, { as: 'admin', json: { ...bad, start_date: 'not a date', recurrence: ['RRULE:FREQ=DAILY'] } });
    const eventDates = await t.api.post('/events', { as: 'admin', json: { title: 'x', ...bad, start_date: 'not a date', recurrence: ['RRULE:FREQ=DAILY'] } });
    assert.equal(dates.status, 400);
    assert.deepEqual(dates.body, eventDates.body);
    const count = await t.api.post(P, { as: 'admin', json: { ...bad, recurrence: ['RRULE:FREQ=DAILY'], count: 51 } });
    assert.equal(count.status, 400);
    assert.equal(count.body.code, 'rest_invalid_param');
    const none = await t.api.post(P, { as: 'admin', json: { ...bad, recurrence: [] } });
    assert.equal(none.status, 400);
    const order = await t.api.post(P, { as: 'admin', json: { ...bad, end_date: '2027-03-21 10:00', recurrence: ['RRULE:FREQ=DAILY'] } });
    assert.equal(order.status, 400);
  });
});
