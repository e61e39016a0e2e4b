/**
 * Long events are where they run: an event of 60 days, one of 400 days and a long all-day event
 * appear in a month (and a range) that starts 45 and 300 days after they began, on every face that
 * lists by range: the FullCalendar source (what the `<events-calendar>` component reads), the month
 * page and its feed, the day page, the iframe view's month, and CalDAV calendar-query with a
 * time-range; ordinary events and the order are as before, and events that ended before the range
 * (long or not) stay out. The lists read a start-date window plus the long events
 * (`store/event-overlaps.ts`): before, the faces read only events that began at most 31 days
 * before the range.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses } from '../support/caldav.js';

forEachStore(
  'long events in the ranges they run into',
  (t: TestServer) => {
    const ids: Record<string, number> = {};
    const LONG = ['Two-year Residency', 'Year-long Exhibition', 'Winter Market', 'Summer Festival'];
    const page = async (path: string) => {
      const res = await fetch(t.origin + path);
      assert.equal(res.status, 200, path);
      return res.text();
    };
    const fullCalendar = async (query: string) => {
      const res = await t.api.get(`/api/calendar/embed/v1/fullcalendar?${query}`);
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as Array<{ id: string; title: string; start: string; end: string; allDay: boolean }>;
    };

    before(async () => {
      const create = async (key: string, json: Record<string, unknown>) => {
        const res = await t.api.post('/events', { as: 'admin', json: { timezone: 'Europe/Paris', ...json } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids[key] = res.body.id;
      };
      // March 2031 begins 300 days after the exhibition began and 45 days after the festival did;
      // the residency began 640 days before it (longer than any grid's or range's 400 days).
      await create('residency', { title: 'Two-year Residency', start_date: '2029-06-01 10:00', end_date: '2031-06-30 18:00' });
      await create('year', { title: 'Year-long Exhibition', start_date: '2030-05-05 09:00', end_date: '2031-06-09 17:00' });
      await create('market', { title: 'Winter Market', all_day: true, start_date: '2030-12-01', end_date: '2031-03-04' });
      await create('festival', { title: 'Summer Festival', start_date: '2031-01-15 10:00', end_date: '2031-03-16 18:00' });
      await create('concert', { title: 'March Concert', start_date: '2031-03-20 20:00', end_date: '2031-03-20 22:00' });
      await create('talk', { title: 'February Talk', start_date: '2031-02-10 18:00', end_date: '2031-02-10 19:00' });
      await create('course', { title: 'Ended Course', start_date: '2030-11-02 10:00', end_date: '2031-02-20 12:00' });
    });

    it('FullCalendar source: the long events in a later month and range, in start order, ordinary ones as before', async () => {
      for (const zone of ['UTC', 'Europe/Paris', 'local']) {
        const march = await fullCalendar(`start=2031-03-01&end=2031-04-01&timeZone=${zone}`);
        assert.deepEqual(
          march.map((e) => e.title),
          ['Two-year Residency', 'Year-long Exhibition', 'Winter Market', 'Summer Festival', 'March Concert'],
          zone,
        );
      }
      const market = (await fullCalendar('start=2031-03-01&end=2031-04-01&timeZone=UTC')).find((e) => e.title === 'Winter Market')!;
      assert.deepEqual([market.allDay, market.start, market.end], [true, '2030-12-01', '2031-03-05'], 'all-day: dates, the end exclusive');
      // A week 45 days into the exhibition; a week 45 days into the market (both long past their start).
      assert.deepEqual(
        (await fullCalendar('start=2030-06-19&end=2030-06-26&timeZone=UTC')).map((e) => e.title),
        ['Two-year Residency', 'Year-long Exhibition'],
      );
      assert.deepEqual(
        (await fullCalendar('start=2031-01-15&end=2031-01-22&timeZone=UTC')).map((e) => e.title),
        ['Two-year Residency', 'Year-long Exhibition', 'Ended Course', 'Winter Market', 'Summer Festival'],
      );
      assert.deepEqual(
        (await fullCalendar('start=2031-03-01&end=2031-04-01&timeZone=UTC&limit=2')).map((e) => e.title),
        ['Two-year Residency', 'Year-long Exhibition'],
        'the first N in start order',
      );
      assert.deepEqual(
        (await fullCalendar('start=2031-02-01&end=2031-03-01&timeZone=UTC')).map((e) => e.title),
        ['Two-year Residency', 'Year-long Exhibition', 'Ended Course', 'Winter Market', 'Summer Festival', 'February Talk'],
        'February: the course that ended in it too',
      );
      assert.deepEqual(await fullCalendar('start=2031-07-01&end=2031-08-01&timeZone=UTC'), [], 'after the last ended');
    });

    it('month page and its feed, day page: the long events in a month they began long before', async () => {
      const month = await page('/events/month/2031-03/');
      for (const title of [...LONG, 'March Concert']) assert.ok(month.includes(title), `month: ${title}`);
      for (const title of ['February Talk', 'Ended Course']) assert.ok(!month.includes(title), `month: not ${title}`);
      const feed = await page('/events/month/2031-03/?ical=1');
      for (const title of [...LONG, 'March Concert']) assert.ok(feed.includes(`SUMMARY:${title}`), `month feed: ${title}`);
      assert.ok(!feed.includes('February Talk'));
      const day = await page('/events/2031-03-03/');
      for (const title of LONG) assert.ok(day.includes(title), `day: ${title}`);
      assert.ok(!day.includes('March Concert'));
      const at = LONG.map((title) => day.indexOf(title));
      assert.deepEqual(
        [...at].sort((a, b) => a - b),
        at,
        'in start order',
      );
      const june = await page('/events/2030-06-19/');
      assert.ok(june.includes('Year-long Exhibition'), '45 days after it began');
    });

    it("the iframe view's month: the long events on the days they cover", async () => {
      const text = await page('/embed/?view=month&month=2031-03');
      for (const title of [...LONG, 'March Concert']) assert.ok(text.includes(title), title);
      assert.ok(!text.includes('February Talk') && !text.includes('Ended Course'));
    });

    it('CalDAV calendar-query with a time-range: the long events in a later month', async () => {
      const CAL = '/dav/public/calendars/events/';
      const query = (range: string) =>
        `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
      const march = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310301T000000Z" end="20310401T000000Z"/>'), { depth: '1' });
      assert.equal(march.status, 207);
      assert.deepEqual([...responses(march.doc).keys()].sort(), ['residency', 'year', 'market', 'festival', 'concert'].map((k) => `${CAL}${ids[k]}.ics`).sort());
      const fromOnly = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310305T000000Z"/>'), { depth: '1' });
      assert.deepEqual([...responses(fromOnly.doc).keys()].sort(), ['residency', 'year', 'festival', 'concert'].map((k) => `${CAL}${ids[k]}.ics`).sort(), 'a range open at its end');
    });
  },
  { CALENDAR_TIMEZONE: 'Europe/Paris' },
);
