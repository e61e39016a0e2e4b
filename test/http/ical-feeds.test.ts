/**
 * Issue 10: the iCalendar feeds read back with an independent parser (ical.js): event count,
 * stable UIDs, a growing SEQUENCE, times across a DST change in the event's zone (TZID with its
 * VTIMEZONE), all-day dates, escaping of commas, semicolons and newlines, 75-octet lines, the
 * calendar's properties, and ICAL_MAX_EVENTS.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { forEachStore, startServer, STORES, type TestServer } from '../support/harness.js';

function parse(text: string) {
  const root = new ICAL.Component(ICAL.parse(text));
  const events = root.getAllSubcomponents('vevent');
  return { root, events, byUid: new Map(events.map((e) => [String(e.getFirstPropertyValue('uid')), e])) };
}

forEachStore(
  'iCalendar feeds read back with ical.js',
  (t: TestServer) => {
    const ids: Record<string, number> = {};
    const feed = async (path: string) => {
      const res = await t.api.get(t.origin + path);
      assert.equal(res.status, 200, path);
      return res.text;
    };

    before(async () => {
      const create = async (key: string, json: Record<string, unknown>) => {
        const res = await t.api.post('/events', { as: 'admin', json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids[key] = res.body.id;
      };
      // New York's clocks go forward at 02:00 on Sunday 9 March 2031: the night spans the change.
      await create('dst', {
        title: 'Night Across DST',
        start_date: '2031-03-08 22:00',
        end_date: '2031-03-09 10:00',
        timezone: 'America/New_York',
        venue: { venue: 'Pier 5', address: '5 Harbor Way', city: 'New York', state: 'NY', zip: '10001', country: 'United States' },
        organizer: [{ organizer: 'Harbor Club', email: 'club@example.org' }],
        categories: ['Night Life'],
      });
      await create('allday', { title: 'Craft Fair', all_day: true, start_date: '2031-04-05', end_date: '2031-04-06', timezone: 'Europe/Rome' });
      await create('escapes', {
        title: 'Rock, Paper; Scissors',
        description: '<p>First line, with a comma; and a semicolon</p><p>Second paragraph ' + 'long '.repeat(30) + '</p>',
        start_date: '2031-04-10 12:00',
        end_date: '2031-04-10 13:00',
      });
      await create('draft', { title: 'Draft Only', status: 'draft', start_date: '2031-04-10 12:00', end_date: '2031-04-10 13:00' });
    });

    it('has the published events, with stable UIDs, and none of the drafts', async () => {
      const first = parse(await feed('/events.ics'));
      const second = parse(await feed('/events/?ical=1'));
      assert.equal(first.events.length, 3);
      const uids = [ids.dst, ids.allday, ids.escapes].map((id) => `${id}@127.0.0.1`);
      assert.deepEqual([...first.byUid.keys()].sort(), [...uids].sort());
      assert.deepEqual([...second.byUid.keys()].sort(), [...uids].sort(), 'the same UIDs on every fetch and page');
      assert.ok(!first.byUid.has(`${ids.draft}@127.0.0.1`));
      for (const e of first.events) {
        assert.ok(e.getFirstPropertyValue('dtstamp'), 'DTSTAMP');
        assert.ok(e.getFirstPropertyValue('last-modified'), 'LAST-MODIFIED');
        assert.match(String(e.getFirstPropertyValue('url')), /^http:\/\/127\.0\.0\.1:\d+\/event\/[a-z0-9-]+\/$/);
      }
    });

    it('gives the calendar its name, zone and refresh interval', async () => {
      const { root } = parse(await feed('/events.ics'));
      assert.equal(root.getFirstPropertyValue('x-wr-calname'), 'Springfield Events');
      assert.equal(root.getFirstPropertyValue('x-wr-timezone'), 'Europe/Rome');
      assert.equal(String(root.getFirstPropertyValue('refresh-interval')), 'PT1H');
      assert.equal(root.getFirstPropertyValue('x-published-ttl'), 'PT1H');
      assert.equal(root.getFirstPropertyValue('version'), '2.0');
    });

    it('writes times in the event zone with its VTIMEZONE, right across a DST change', async () => {
      const text = await feed(`/event/night-across-dst/ical/`);
      const { root, events } = parse(text);
      assert.equal(events.length, 1);
      const zones = root.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'));
      assert.deepEqual(zones, ['America/New_York']);
      for (const z of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(z);
      const vevent = events[0]!;
      assert.equal(vevent.getFirstProperty('dtstart')!.getParameter('tzid'), 'America/New_York');
      assert.match(text, /\r\nDTSTART;TZID=America\/New_York:20310308T220000\r\n/);
      assert.match(text, /\r\nDTEND;TZID=America\/New_York:20310309T100000\r\n/);
      const event = new ICAL.Event(vevent);
      // 22:00 EST is 03:00Z; 10:00 EDT (after the change) is 14:00Z.
      assert.equal(event.startDate.toJSDate().toISOString(), '2031-03-09T03:00:00.000Z');
      assert.equal(event.endDate.toJSDate().toISOString(), '2031-03-09T14:00:00.000Z');
      const api = (await t.api.get(`/events/${ids.dst}`)).body;
      assert.equal(event.startDate.toJSDate().toISOString(), `${api.utc_start_date.replace(' ', 'T')}.000Z`);
      assert.equal(event.summary, 'Night Across DST');
      assert.equal(event.location, 'Pier 5\n5 Harbor Way, New York, NY 10001, United States');
      assert.equal(vevent.getFirstPropertyValue('categories'), 'Night Life');
      assert.equal(vevent.getFirstPropertyValue('organizer'), 'mailto:club@example.org');
      assert.equal(vevent.getFirstProperty('organizer')!.getParameter('cn'), 'Harbor Club');
      assert.equal(event.uid, `${ids.dst}@127.0.0.1`);
    });

    it('writes all-day events as dates, the end exclusive', async () => {
      const { events } = parse(await feed('/event/craft-fair/?ical=1'));
      const event = new ICAL.Event(events[0]!);
      assert.equal(event.startDate.isDate, true);
      assert.equal(event.startDate.toString(), '2031-04-05');
      assert.equal(event.endDate.toString(), '2031-04-07');
    });

    it('escapes commas, semicolons and newlines, gives plain-text descriptions and folds lines at 75 octets', async () => {
      const text = await feed('/events.ics');
      for (const line of text.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, `line over 75 octets: ${line}`);
      assert.match(text, /\r\nSUMMARY:Rock\\, Paper\\; Scissors\r\n/);
      assert.ok(text.endsWith('END:VCALENDAR\r\n'));
      const { byUid } = parse(text);
      const event = new ICAL.Event(byUid.get(`${ids.escapes}@127.0.0.1`)!);
      assert.equal(event.summary, 'Rock, Paper; Scissors');
      assert.equal(event.description, `First line, with a comma; and a semicolon\n\nSecond paragraph ${'long '.repeat(30).trim()}`);
    });

    it('raises SEQUENCE when the event changes, keeping its UID', async () => {
      const before = new ICAL.Event(parse(await feed('/event/craft-fair/ical/')).events[0]!);
      await new Promise((r) => setTimeout(r, 1100)); // modified times have a precision of one second
      const res = await t.api.post(`/events/${ids.allday}`, { as: 'admin', json: { title: 'Craft Fair', end_date: '2031-04-07' } });
      assert.equal(res.status, 200);
      const after = new ICAL.Event(parse(await feed('/event/craft-fair/ical/')).events[0]!);
      assert.equal(after.uid, before.uid);
      assert.ok(after.sequence > before.sequence, `${after.sequence} > ${before.sequence}`);
      assert.equal(after.endDate.toString(), '2031-04-08');
    });
  },
  { SITE_NAME: 'Springfield Events', CALENDAR_TIMEZONE: 'Europe/Rome' },
);

describe('ICAL_MAX_EVENTS bounds a feed', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer(STORES[0]!, { ICAL_MAX_EVENTS: '3' });
    for (let i = 1; i <= 5; i++) {
      const res = await t.api.post('/events', { as: 'admin', json: { title: `Bounded ${i}`, start_date: `2031-07-0${i} 10:00`, end_date: `2031-07-0${i} 11:00` } });
      assert.equal(res.status, 201);
    }
  });
  after(async () => t?.close());

  it('holds at most ICAL_MAX_EVENTS events, the first ones', async () => {
    for (const path of ['/events.ics', '/events/?ical=1', '/events/month/2031-07/?ical=1']) {
      const { events } = parse((await t.api.get(t.origin + path)).text);
      assert.deepEqual(
        events.map((e) => e.getFirstPropertyValue('summary')),
        ['Bounded 1', 'Bounded 2', 'Bounded 3'],
        path,
      );
    }
  });
});
