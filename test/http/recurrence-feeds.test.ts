/**
 * Issue 15, recurring events in the iCalendar feeds and pages: a feed writes a series as one
 * VEVENT with RRULE/EXDATE plus an override (RECURRENCE-ID) per occurrence edited alone, read back
 * and expanded with ical.js at the right instants across the DST change; an occurrence's own .ics
 * is that occurrence; the pages /event/{slug}/{date}/ and /event/{slug}/all/.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { forEachStore, type TestServer } from '../support/harness.js';

function parse(text: string) {
  const root = new ICAL.Component(ICAL.parse(text));
  return root.getAllSubcomponents('vevent');
}

forEachStore('recurring events in feeds and pages', (t: TestServer) => {
  let series: Record<string, any>;
  let occ: Array<Record<string, any>>;
  const host = () => new URL(t.origin).hostname;

  before(async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: {
        title: 'Feed Class',
        status: 'publish',
        start_date: '2027-03-02 19:00:00',
        end_date: '2027-03-02 20:00:00',
        timezone: 'America/New_York',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE;VALUE=DATE:20270330'],
      },
    });
    assert.equal(res.status, 201, res.text);
    series = res.body;
    occ = (await t.api.get('/events', { query: { post_parent: series.id, start_date: '2027-01-01', end_date: '2027-12-31' } })).body.events;
    assert.equal(occ.length, 4);
    const guest = await t.api.post(`/events/${occ[1]!.id}`, { as: 'admin', json: { title: 'Feed Class (guest)', start_date: '2027-03-09 20:00:00', end_date: '2027-03-09 21:00:00' } });
    assert.equal(guest.status, 200, guest.text);
    assert.equal((await t.api.delete(`/events/${occ[3]!.id}`, { as: 'admin' })).status, 200);
  });

  it('a feed holds the series once with RRULE and EXDATE, and an override per edited occurrence', async () => {
    const res = await t.api.get(`${t.origin}/events.ics`, { query: { start_date: '2027-03-01', end_date: '2027-04-30', search: 'Feed Class' } });
    assert.equal(res.status, 200, res.text);
    const events = parse(res.text).filter((e) => e.getFirstPropertyValue('uid') === `${series.id}@${host()}`);
    assert.equal(events.length, 2, res.text);
    const master = events.find((e) => e.getFirstProperty('rrule'))!;
    const override = events.find((e) => e.getFirstProperty('recurrence-id'))!;
    assert.equal(String(master.getFirstPropertyValue('rrule')), 'FREQ=WEEKLY;COUNT=5');
    assert.equal(master.getFirstProperty('dtstart')!.getParameter('tzid'), 'America/New_York');
    const exdates = master.getAllProperties('exdate').map((p) => String(p.getFirstValue()));
    assert.deepEqual(exdates.sort(), ['2027-03-23T19:00:00', '2027-03-30T19:00:00']);
    assert.equal(String(override.getFirstPropertyValue('recurrence-id')), '2027-03-09T19:00:00');
    assert.equal(override.getFirstPropertyValue('summary'), 'Feed Class (guest)');
    // No occurrence of the series is written on its own.
    assert.ok(!parse(res.text).some((e) => occ.some((o) => e.getFirstPropertyValue('uid') === `${o.id}@${host()}`)));

    // Expanded by ical.js: the instants across the change of time.
    const ev = new ICAL.Event(master);
    ev.relateException(override);
    const it = ev.iterator();
    const got: string[] = [];
    for (let next = it.next(); next && got.length < 10; next = it.next()) {
      const details = ev.getOccurrenceDetails(next);
      got.push(`${details.startDate.toJSDate().toISOString()} ${details.item.summary}`);
    }
    assert.deepEqual(got, ['2027-03-03T00:00:00.000Z Feed Class', '2027-03-10T01:00:00.000Z Feed Class (guest)', '2027-03-16T23:00:00.000Z Feed Class']);
  });

  it("an occurrence's own .ics is that occurrence", async () => {
    const res = await t.api.get(`${t.origin}/event/feed-class/2027-03-16/`, { query: { ical: 1 } });
    assert.equal(res.status, 200, res.text);
    const [only, ...rest] = parse(res.text);
    assert.equal(rest.length, 0);
    assert.equal(only!.getFirstPropertyValue('uid'), `${occ[2]!.id}@${host()}`);
    assert.equal(only!.getFirstProperty('rrule'), null);
    assert.equal(String(only!.getFirstPropertyValue('dtstart')), '2027-03-16T19:00:00');
  });

  it('pages: an occurrence at /event/{slug}/{date}/, the series at /event/{slug}/all/', async () => {
    const page = await t.api.get(`${t.origin}/event/feed-class/2027-03-09/`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Feed Class \(guest\)/);
    assert.match(page.text, new RegExp(`<link rel="canonical" href="${t.origin}/event/feed-class/2027-03-09/"`));
    assert.equal((await t.api.get(`${t.origin}/event/feed-class/2027-03-23/`)).status, 404, 'a deleted occurrence');
    assert.equal((await t.api.get(`${t.origin}/event/feed-class/2031-01-01/`)).status, 404);
    assert.equal((await t.api.get(`${t.origin}/event/feed-class/not-a-date/`)).status, 404);
    const all = await t.api.get(`${t.origin}/event/feed-class/all/`);
    assert.equal(all.status, 200);
    for (const day of ['2027-03-02', '2027-03-09', '2027-03-16']) assert.match(all.text, new RegExp(`/event/feed-class/${day}/`));
    assert.doesNotMatch(all.text, /\/event\/feed-class\/2027-03-23\//);
    const allFeed = await t.api.get(`${t.origin}/event/feed-class/all/`, { query: { ical: 1 } });
    assert.equal(allFeed.status, 200);
    assert.equal(parse(allFeed.text).filter((e) => e.getFirstProperty('rrule')).length, 1);
  });
});
