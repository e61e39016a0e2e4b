/**
 * RFC 4791 where clients rely on it: a time-range matches an all-day event as its dates, floating
 * times read in the calendar's zone (§9.9; `calendar-timezone` is the site zone), not as instants
 * in the event's own zone ending a second before midnight; and `expand` in `calendar-data`
 * (§9.6.5) answers each instance in UTC (no VTIMEZONE, no TZID), an occurrence of a series with
 * its `RECURRENCE-ID`, and only instances within the expand range.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses } from '../support/caldav.js';

const CAL = '/dav/public/calendars/events/';

const query = (range: string, data = '<c:calendar-data/>') =>
  `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>${data}</d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
const range = (start: string, end: string) => `<c:time-range start="${start}" end="${end}"/>`;
const expand = (start: string, end: string) => `<c:calendar-data><c:expand start="${start}" end="${end}"/></c:calendar-data>`;

forEachStore(
  'CalDAV: RFC 4791 time-ranges of all-day events and expand',
  (t: TestServer) => {
    const ids: Record<string, number> = {};
    let occurrences: number[] = [];
    before(async () => {
      const create = async (key: string, json: Record<string, unknown>) => {
        const res = await t.api.post('/events', { as: 'admin', json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids[key] = res.body.id;
      };
      // 5 April in Rome: its instants are 4 April 22:00Z to 5 April 21:59:59Z; as floating dates in
      // the calendar's zone (New York, UTC-4 then) it is 5 April 04:00Z to 6 April 04:00Z.
      await create('rome', { title: 'Rome Fair', all_day: true, start_date: '2031-04-05', end_date: '2031-04-05', timezone: 'Europe/Rome' });
      // 8 April in New York: instants 8 April 04:00Z to 9 April 03:59:59Z; floating, to 9 April 04:00Z.
      await create('york', { title: 'York Fair', all_day: true, start_date: '2031-04-08', end_date: '2031-04-08', timezone: 'America/New_York' });
      await create('single', { title: 'Single Talk', start_date: '2031-03-12 18:00', end_date: '2031-03-12 19:00', timezone: 'America/New_York' });
      const series = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'Weekly Class', status: 'publish', start_date: '2031-03-04 19:00:00', end_date: '2031-03-04 20:00:00', timezone: 'America/New_York', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
      });
      assert.equal(series.status, 201, series.text);
      const listed = await t.api.get('/events', { query: { post_parent: series.body.id, start_date: '2031-01-01', end_date: '2031-12-31' } });
      occurrences = (listed.body.events as Array<{ id: number }>).map((o) => o.id);
      assert.equal(occurrences.length, 4);
    });

    const found = async (start: string, end: string) => {
      const res = await dav(t, 'REPORT', CAL, query(range(start, end), ''), { depth: '1' });
      assert.equal(res.status, 207, res.text);
      return [...responses(res.doc).keys()].map((h) => Number(/(\d+)\.ics$/.exec(h)![1])).sort((a, b) => a - b);
    };

    it('matches all-day events as floating dates in the calendar zone at both ends of the range', async () => {
      // The day before, in UTC: the Rome fair's instants begin in it; its date (in New York) does not.
      assert.deepEqual(await found('20310404T000000Z', '20310405T000000Z'), [], 'the day before');
      // Its date ends at New York's midnight, 04:00Z on 6 April: an early range of 6 April overlaps it.
      assert.deepEqual(await found('20310406T000000Z', '20310406T030000Z'), [ids.rome], 'the day after, before midnight in New York');
      assert.deepEqual(await found('20310406T040000Z', '20310407T000000Z'), [], 'from midnight in New York (DTEND is exclusive)');
      assert.deepEqual(await found('20310405T030000Z', '20310405T040000Z'), [], 'up to its start (exclusive)');
      assert.deepEqual(await found('20310405T040000Z', '20310405T040001Z'), [ids.rome], 'its first second');
      // The last second of the New York fair's date: no longer lost to its end at 23:59:59.
      assert.deepEqual(await found('20310409T035959Z', '20310409T040000Z'), [ids.york], 'the last second of its date');
      // Open ranges, and the same rule for one resource.
      assert.deepEqual(await found('20310406T035959Z', '20310406T040000Z'), [ids.rome]);
      const one = await dav(t, 'REPORT', `${CAL}${ids.rome}.ics`, query(range('20310404T000000Z', '20310405T000000Z'), ''), { depth: '0' });
      assert.equal(responses(one.doc).size, 0, 'the resource itself, the day before');
    });

    it('expands: instances in UTC, occurrences of a series with RECURRENCE-ID, only within the expand range', async () => {
      const from = '20310310T000000Z';
      const to = '20310320T000000Z';
      const res = await dav(t, 'REPORT', CAL, query(range(from, to), expand(from, to)), { depth: '1' });
      assert.equal(res.status, 207, res.text);
      const all = responses(res.doc);
      const byId = new Map([...all].map(([h, r]) => [Number(/(\d+)\.ics$/.exec(h)![1]), String(r.ok['calendar-data'])]));
      assert.deepEqual(
        [...byId.keys()].sort((a, b) => a - b),
        [occurrences[1]!, occurrences[2]!, ids.single!].sort((a, b) => a - b),
      );
      for (const [i, day] of [
        [1, '11'],
        [2, '18'],
      ] as const) {
        const text = byId.get(occurrences[i]!)!;
        assert.doesNotMatch(text, /VTIMEZONE|TZID/, 'UTC, no zone');
        const vevents = new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent');
        assert.equal(vevents.length, 1);
        const v = vevents[0]!;
        // 19:00 in New York (EDT from 9 March) is 23:00Z.
        assert.equal(v.getFirstProperty('dtstart')!.toICALString(), `DTSTART:203103${day}T230000Z`);
        assert.equal(v.getFirstProperty('dtend')!.toICALString(), `DTEND:203103${Number(day) + 1}T000000Z`);
        assert.equal(v.getFirstProperty('recurrence-id')!.toICALString(), `RECURRENCE-ID:203103${day}T230000Z`);
      }
      const single = byId.get(ids.single!)!;
      assert.match(single, /DTSTART:20310312T220000Z/);
      assert.doesNotMatch(single, /RECURRENCE-ID|TZID/, 'an event of no series is no instance of one');

      // A multiget expanding a narrower range: an instance outside it has no VEVENT.
      const hrefs = [1, 2].map((i) => `<d:href>${CAL}${occurrences[i]}.ics</d:href>`).join('');
      const mg = await dav(
        t,
        'REPORT',
        CAL,
        `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${expand('20310311T000000Z', '20310312T000000Z')}</d:prop>${hrefs}</c:calendar-multiget>`,
      );
      const m = responses(mg.doc);
      assert.match(String(m.get(`${CAL}${occurrences[1]}.ics`)!.ok['calendar-data']), /BEGIN:VEVENT[\s\S]*RECURRENCE-ID:20310311T230000Z/);
      const outside = String(m.get(`${CAL}${occurrences[2]}.ics`)!.ok['calendar-data']);
      assert.match(outside, /BEGIN:VCALENDAR/);
      assert.doesNotMatch(outside, /BEGIN:VEVENT/);
      // All-day events keep their dates.
      const fair = await dav(t, 'REPORT', CAL, query(range('20310405T000000Z', '20310406T000000Z'), expand('20310405T000000Z', '20310406T000000Z')), { depth: '1' });
      assert.match(String(responses(fair.doc).get(`${CAL}${ids.rome}.ics`)!.ok['calendar-data']), /DTSTART;VALUE=DATE:20310405/);
      // Without expand, the stored zone as before.
      const plain = await dav(t, 'GET', `${CAL}${occurrences[1]}.ics`);
      assert.match(plain.text, /DTSTART;TZID=America\/New_York:20310311T190000/);
      assert.doesNotMatch(plain.text, /RECURRENCE-ID/);
      // An unreadable expand range: 400.
      assert.equal((await dav(t, 'REPORT', CAL, query(range(from, to), expand('yesterday', to)), { depth: '1' })).status, 400);
    });
  },
  { CALENDAR_TIMEZONE: 'America/New_York' },
);
