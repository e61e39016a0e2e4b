/**
 * Issue 30: recurring events over CalDAV (each occurrence a resource of its own, with its own UID
 * and ETag; the series itself is no resource; an occurrence edited or trashed alone changes or
 * removes only that resource in a sync), and random request bodies and headers, which never get a
 * 500.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses, syncCollection } from '../support/caldav.js';

const CAL = '/dav/public/calendars/events/';

forEachStore('CalDAV: recurring events and random input', (t: TestServer) => {
  let series: { id: number };
  let occ: Array<{ id: number }>;
  before(async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Weekly Class', status: 'publish', start_date: '2031-03-04 19:00:00', end_date: '2031-03-04 20:00:00', timezone: 'America/New_York', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
    });
    assert.equal(res.status, 201, res.text);
    series = res.body;
    occ = (await t.api.get('/events', { query: { post_parent: series.id, start_date: '2031-01-01', end_date: '2031-12-31' } })).body.events;
    assert.equal(occ.length, 4);
  });

  it('serves each occurrence as a resource of its own, not the series', async () => {
    const list = responses((await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' })).doc);
    const hrefs = [...list.keys()].filter((h) => h.endsWith('.ics')).sort();
    assert.deepEqual(hrefs, occ.map((o) => `${CAL}${o.id}.ics`).sort());
    assert.equal((await dav(t, 'GET', `${CAL}${series.id}.ics`)).status, 404, 'the series is not a resource');
    const got = await dav(t, 'GET', `${CAL}${occ[1]!.id}.ics`);
    const vevents = new ICAL.Component(ICAL.parse(got.text)).getAllSubcomponents('vevent');
    assert.equal(vevents.length, 1);
    assert.equal(vevents[0]!.getFirstPropertyValue('uid'), `${occ[1]!.id}@127.0.0.1`);
    assert.equal(vevents[0]!.getFirstProperty('rrule'), null);
    assert.equal(vevents[0]!.getFirstPropertyValue('dtstart')!.toString(), '2031-03-11T19:00:00');
    // Each occurrence has its own ETag.
    assert.equal(new Set(hrefs.map((h) => list.get(h)!.ok.getetag)).size, 4);
  });

  it('reports an occurrence edited or trashed alone, and nothing else', async () => {
    const token = (await dav(t, 'REPORT', CAL, syncCollection(''))).doc.multistatus['sync-token'] as string;
    assert.equal((await t.api.post(`/events/${occ[2]!.id}`, { as: 'admin', json: { title: 'Weekly Class (guest teacher)' } })).status, 200);
    assert.equal((await t.api.delete(`/events/${occ[3]!.id}`, { as: 'admin' })).status, 200);
    const delta = responses((await dav(t, 'REPORT', CAL, syncCollection(token))).doc);
    assert.deepEqual([...delta.keys()].sort(), [`${CAL}${occ[2]!.id}.ics`, `${CAL}${occ[3]!.id}.ics`].sort());
    assert.ok(delta.get(`${CAL}${occ[2]!.id}.ics`)!.ok.getetag);
    assert.match(delta.get(`${CAL}${occ[3]!.id}.ics`)!.status!, / 404 /);
  });

  it('never answers 500 to random bodies, methods and headers', async () => {
    const fragment = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>',
        '<d:sync-collection xmlns:d="DAV:"><d:sync-token/></d:sync-collection>',
        '<c:calendar-query xmlns:c="urn:ietf:params:xml:ns:caldav"><c:filter/></c:calendar-query>',
        '<c:calendar-multiget xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:d="DAV:"><d:href>%zz</d:href></c:calendar-multiget>',
        '<d:limit xmlns:d="DAV:"><d:nresults>-1</d:nresults></d:limit>',
        '<c:time-range xmlns:c="urn:ietf:params:xml:ns:caldav" start="x" end="20310101T000000Z"/>',
        '<![CDATA[x]]>',
        '&amp;&lt;&#0;',
      ),
    );
    const body = fc.array(fragment, { maxLength: 4 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('PROPFIND', 'REPORT', 'GET', 'OPTIONS', 'PROPPATCH'),
        fc.constantFrom(CAL, '/', '/dav/', '/dav/public/', '/dav/calendars/', '/dav/principals/', `${CAL}${occ[0]!.id}.ics`, '/dav/public/principals/anonymous/', '/dav/public/calendars/category-x/'),
        body,
        fc.constantFrom('0', '1', 'infinity', 'x', ''),
        async (method, path, text, depth) => {
          const res = await dav(t, method, path, method === 'GET' || method === 'OPTIONS' ? undefined : text, depth === '' ? {} : { depth });
          assert.ok(res.status < 500, `${method} ${path} ${JSON.stringify(text)}: ${res.status} ${res.text.slice(0, 200)}`);
        },
      ),
      { numRuns: 150, seed: 30 },
    );
  });
});
