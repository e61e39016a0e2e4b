/**
 * Issue 30: read-only CalDAV (src/caldav) with raw requests: discovery, PROPFIND (prop, allprop,
 * propname, Depth 0/1, unknown properties as 404 propstats), the three REPORTs, GET/HEAD of events,
 * ETags that the REST API's If-Match accepts, visibility (drafts and private events never reach an
 * anonymous client on any method; editors see them), writes answered 403 with a DAV error body,
 * malformed or hostile XML answered 400, wrong credentials 401.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses, syncCollection } from '../support/caldav.js';
import { eventVersions, recordVersion } from '../../src/store/versions.js';

const PROPFIND_CAL = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/" xmlns:X="urn:example:unknown">
  <D:prop><D:displayname/><D:resourcetype/><CS:getctag/><D:getetag/><D:sync-token/><C:supported-calendar-component-set/><A:calendar-color/><C:calendar-description/><C:calendar-timezone/><D:supported-report-set/><D:current-user-privilege-set/><X:nothing/></D:prop>
</D:propfind>`;

forEachStore('CalDAV: raw requests', (t: TestServer) => {
  const ids: Record<string, number> = {};
  /** The site calendar in the public tree (anonymous) and in the authenticated one. */
  const CAL = '/dav/public/calendars/events/';
  const AUTH = '/dav/calendars/events/';
  before(async () => {
    const create = async (key: string, json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.id;
    };
    await create('concert', { title: 'Concert & Friends', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00', timezone: 'Europe/Rome', categories: ['Music'] });
    await create('fair', { title: 'Craft Fair', all_day: true, start_date: '2031-04-05', end_date: '2031-04-06', timezone: 'Europe/Rome' });
    await create('talk', { title: 'Late Talk', start_date: '2031-05-01 18:00', end_date: '2031-05-01 19:00', timezone: 'America/New_York', categories: ['Music'] });
    await create('draft', { title: 'Secret Draft', status: 'draft', start_date: '2031-03-11 10:00', end_date: '2031-03-11 11:00', categories: ['Music'] });
    await create('private', { title: 'Private Party', status: 'private', start_date: '2031-03-12 10:00', end_date: '2031-03-12 11:00' });
    await t.user('editor');
  });

  it('redirects /.well-known/caldav to the DAV root on every method', async () => {
    for (const method of ['GET', 'PROPFIND', 'OPTIONS']) {
      const res = await dav(t, method, '/.well-known/caldav', method === 'PROPFIND' ? '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>' : undefined);
      assert.equal(res.status, 301, method);
      assert.equal(res.headers.get('location'), '/dav/');
    }
  });

  it('answers OPTIONS with the DAV classes and the read methods', async () => {
    const res = await dav(t, 'OPTIONS', CAL);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('dav'), '1, 3, calendar-access');
    assert.deepEqual(res.headers.get('allow')!.split(', ').sort(), ['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT']);
  });

  it('gives anonymous callers the public tree and its principal, and users their own principal', async () => {
    const body = '<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:current-user-principal/><c:calendar-home-set/></d:prop></d:propfind>';
    const anon = await dav(t, 'PROPFIND', '/dav/public/', body, { depth: '0' });
    assert.equal(anon.status, 207);
    const r = responses(anon.doc).get('/dav/public/')!;
    assert.equal(r.ok['current-user-principal'].href[0], '/dav/public/principals/anonymous/');
    assert.equal(r.ok['calendar-home-set'].href[0], '/dav/public/calendars/');
    const admin = await dav(t, 'PROPFIND', '/dav/', body, { depth: '0' }, 'admin');
    assert.equal(responses(admin.doc).get('/dav/')!.ok['current-user-principal'].href[0], '/dav/principals/users/admin/');
    assert.equal(responses(admin.doc).get('/dav/')!.ok['calendar-home-set'].href[0], '/dav/calendars/');
    // A user's principal asks for credentials when asked anonymously, and is nobody else's.
    const challenged = await dav(t, 'PROPFIND', '/dav/principals/users/admin/', body, { depth: '0' });
    assert.equal(challenged.status, 401);
    assert.match(challenged.headers.get('www-authenticate')!, /^Basic realm=/);
    assert.equal((await dav(t, 'PROPFIND', '/dav/principals/users/admin/', body, { depth: '0' }, 'editor:editor-pw')).status, 404);
    const own = await dav(t, 'PROPFIND', '/dav/principals/users/admin/', body, { depth: '0' }, 'admin');
    assert.equal(own.status, 207);
    assert.equal((await dav(t, 'PROPFIND', '/dav/public/principals/anonymous/', body, { depth: '0' })).status, 207);
  });

  it('lists the site calendar and one per category, with their properties (unknown ones 404)', async () => {
    const res = await dav(t, 'PROPFIND', '/dav/public/calendars/', PROPFIND_CAL, { depth: '1' });
    assert.equal(res.status, 207);
    assert.match(res.headers.get('content-type')!, /^application\/xml/);
    const all = responses(res.doc);
    assert.deepEqual([...all.keys()], ['/dav/public/calendars/', CAL, '/dav/public/calendars/category-music/']);
    const cal = all.get(CAL)!;
    assert.ok('calendar' in cal.ok.resourcetype && 'collection' in cal.ok.resourcetype);
    assert.equal(cal.ok.displayname, 'Events Calendar');
    assert.equal(cal.ok['supported-calendar-component-set'].comp[0].name, 'VEVENT');
    assert.match(cal.ok['calendar-color'], /^#[0-9A-F]{6}$/);
    assert.match(String(cal.ok.getctag), /\./);
    assert.match(cal.ok['sync-token'], /^urn:events-calendar:sync:/);
    assert.match(cal.ok['calendar-timezone'], /BEGIN:VTIMEZONE/);
    const reports = cal.ok['supported-report-set']['supported-report'].map((s: any) => Object.keys(s.report)[0]).sort();
    assert.deepEqual(reports, ['calendar-multiget', 'calendar-query', 'sync-collection']);
    assert.deepEqual(Object.keys(cal.ok['current-user-privilege-set'].privilege.length ? cal.ok['current-user-privilege-set'].privilege[0] : cal.ok['current-user-privilege-set'].privilege), ['read']);
    assert.deepEqual(cal.missing, ['nothing']);
    // The home itself has no calendar properties: 404 for them.
    assert.ok(all.get('/dav/public/calendars/')!.missing.includes('getctag'));
    // Brief: t leaves the 404 propstats out.
    const brief = responses((await dav(t, 'PROPFIND', CAL, PROPFIND_CAL, { depth: '0', brief: 't' })).doc).get(CAL)!;
    assert.deepEqual(brief.missing, []);
    assert.equal(brief.ok.displayname, 'Events Calendar');
  });

  it('answers allprop and propname, and refuses Depth: infinity on collections', async () => {
    const allprop = responses((await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>', { depth: '0' })).doc).get(CAL)!;
    assert.ok('displayname' in allprop.ok && 'getctag' in allprop.ok && 'resourcetype' in allprop.ok);
    assert.equal(allprop.missing.length, 0);
    const empty = responses((await dav(t, 'PROPFIND', CAL, undefined, { depth: '0' })).doc).get(CAL)!;
    assert.ok('displayname' in empty.ok, 'no body is allprop');
    const names = responses((await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:propname/></d:propfind>', { depth: '0' })).doc).get(CAL)!;
    assert.equal(names.ok.displayname, '');
    assert.ok('sync-token' in names.ok);
    const infinite = await dav(t, 'PROPFIND', CAL, PROPFIND_CAL, { depth: 'infinity' });
    assert.equal(infinite.status, 403);
    assert.ok('propfind-finite-depth' in infinite.doc.error);
  });

  it('lists the events of a calendar with ETags the REST API accepts, and serves each as iCalendar', async () => {
    const res = await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/><d:getlastmodified/></d:prop></d:propfind>', { depth: '1' });
    const all = responses(res.doc);
    const hrefs = [...all.keys()].filter((h) => h.endsWith('.ics')).sort();
    assert.deepEqual(hrefs, [ids.concert, ids.fair, ids.talk].map((id) => `${CAL}${id}.ics`).sort());
    const concert = all.get(`${CAL}${ids.concert}.ics`)!;
    assert.match(concert.ok.getcontenttype, /^text\/calendar/);
    const etag = concert.ok.getetag as string;
    assert.match(etag, new RegExp(`^"[^.]+\\.e${ids.concert}\\.[A-Za-z0-9_-]{16}\\.ics"$`));
    assert.ok(!Number.isNaN(Date.parse(concert.ok.getlastmodified)));

    const got = await dav(t, 'GET', `${CAL}${ids.concert}.ics`);
    assert.equal(got.status, 200);
    assert.match(got.headers.get('content-type')!, /^text\/calendar/);
    assert.equal(got.headers.get('etag'), etag);
    const vcal = new ICAL.Component(ICAL.parse(got.text));
    assert.equal(vcal.getFirstPropertyValue('method'), null, 'a calendar object resource has no METHOD');
    const vevents = vcal.getAllSubcomponents('vevent');
    assert.equal(vevents.length, 1);
    assert.equal(vevents[0]!.getFirstPropertyValue('uid'), `${ids.concert}@127.0.0.1`);
    assert.equal(vevents[0]!.getFirstPropertyValue('summary'), 'Concert & Friends');
    // The same VEVENT as the feed's (DTSTAMP aside: the feed stamps the time of writing).
    const feed = await t.api.get(`${t.origin}/events.ics`);
    const fromFeed = new ICAL.Component(ICAL.parse(feed.text)).getAllSubcomponents('vevent').find((v) => v.getFirstPropertyValue('uid') === `${ids.concert}@127.0.0.1`)!;
    for (const p of ['summary', 'dtstart', 'dtend', 'sequence', 'url', 'categories']) assert.equal(String(vevents[0]!.getFirstPropertyValue(p)), String(fromFeed.getFirstPropertyValue(p)), p);
    // The same bytes again, and a 304 for the tag; HEAD has the headers only.
    assert.equal((await dav(t, 'GET', `${CAL}${ids.concert}.ics`)).text, got.text);
    assert.equal((await dav(t, 'GET', `${CAL}${ids.concert}.ics`, undefined, { 'if-none-match': etag })).status, 304);
    const head = await dav(t, 'HEAD', `${CAL}${ids.concert}.ics`);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), etag);
    assert.equal(head.text, '');
    // The REST API's If-Match takes the CalDAV tag (same database, record and version).
    const edit = await t.api.post(`/events/${ids.concert}`, { as: 'admin', json: { title: 'Concert & Friends' }, headers: { 'if-match': etag } });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    const stale = await t.api.post(`/events/${ids.concert}`, { as: 'admin', json: { title: 'Concert & Friends' }, headers: { 'if-match': etag } });
    assert.equal(stale.status, 412);
    const after = responses((await dav(t, 'PROPFIND', `${CAL}${ids.concert}.ics`, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '0' })).doc);
    assert.notEqual(after.get(`${CAL}${ids.concert}.ics`)!.ok.getetag, etag, 'the edit made a new version');
    // The REST item ETag of the new version names the same version.
    const rest = await t.api.get(`/events/${ids.concert}`);
    assert.equal(rest.headers.get('etag')!.replace(/\.[^.]+"$/, ''), after.get(`${CAL}${ids.concert}.ics`)!.ok.getetag.replace(/\.ics"$/, ''));
  });

  it("reads many events' versions at once exactly as one by one (the ETags of a listing)", async () => {
    const db = t.built.store.db;
    const all = Object.values(ids);
    const batch = await eventVersions(db, [...all, 987654]);
    for (const id of [...all, 987654]) assert.deepEqual(batch.get(id), await recordVersion(db, 'event', id), `event ${id}`);
    assert.ok(
      batch.get(ids.concert!)!.deps.some((d) => d.startsWith('term:')),
      'terms are covered',
    );
  });

  it('answers a category calendar with its events only, and 404 for an unknown category', async () => {
    const res = await dav(t, 'PROPFIND', '/dav/public/calendars/category-music/', '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' });
    const hrefs = [...responses(res.doc).keys()].filter((h) => h.endsWith('.ics')).sort();
    assert.deepEqual(hrefs, [ids.concert, ids.talk].map((id) => `/dav/public/calendars/category-music/${id}.ics`).sort());
    assert.equal((await dav(t, 'PROPFIND', '/dav/public/calendars/category-nothing/', PROPFIND_CAL, { depth: '0' })).status, 404);
    assert.equal((await dav(t, 'GET', `/dav/public/calendars/category-music/${ids.fair}.ics`)).status, 404, 'not in that category');
  });

  it('answers calendar-query with a time range, and multiget by href', async () => {
    const query = (range: string) =>
      `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
    const march = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310301T000000Z" end="20310401T000000Z"/>'), { depth: '1' });
    assert.equal(march.status, 207);
    const found = responses(march.doc);
    assert.deepEqual([...found.keys()], [`${CAL}${ids.concert}.ics`]);
    assert.match(found.get(`${CAL}${ids.concert}.ics`)!.ok['calendar-data'], /BEGIN:VEVENT/);
    // 22:00 in New York on 1 May is 02:00 UTC on 2 May: the range compares instants.
    const lateUtc = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310501T225000Z" end="20310501T230000Z"/>'), { depth: '1' });
    assert.deepEqual([...responses(lateUtc.doc).keys()], [`${CAL}${ids.talk}.ics`]);
    const none = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310501T230000Z" end="20310502T000000Z"/>'), { depth: '1' });
    assert.equal(responses(none.doc).size, 0);
    const everything = await dav(t, 'REPORT', CAL, query(''), { depth: '1' });
    assert.equal(responses(everything.doc).size, 3);
    const todos = await dav(
      t,
      'REPORT',
      CAL,
      '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter></c:calendar-query>',
      { depth: '1' },
    );
    assert.equal(responses(todos.doc).size, 0);
    const badRange = await dav(t, 'REPORT', CAL, query('<c:time-range start="yesterday"/>'), { depth: '1' });
    assert.equal(badRange.status, 403);
    assert.ok('valid-filter' in badRange.doc.error);

    const multiget = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${CAL}${ids.fair}.ics</d:href><d:href>${t.origin}${CAL}${ids.talk}.ics</d:href><d:href>${CAL}${ids.draft}.ics</d:href><d:href>${CAL}999999.ics</d:href></c:calendar-multiget>`;
    const mg = responses((await dav(t, 'REPORT', CAL, multiget, { depth: '1' })).doc);
    assert.match(mg.get(`${CAL}${ids.fair}.ics`)!.ok['calendar-data'], /DTSTART;VALUE=DATE:20310405/);
    assert.ok(mg.get(`${CAL}${ids.talk}.ics`)!.ok.getetag, 'an absolute href is answered by its path');
    assert.match(mg.get(`${CAL}${ids.draft}.ics`)!.status!, / 404 /);
    assert.match(mg.get(`${CAL}999999.ics`)!.status!, / 404 /);
  });

  it('keeps drafts and private events from anonymous callers on every method, and shows them to editors', async () => {
    for (const key of ['draft', 'private']) {
      const href = `${CAL}${ids[key]}.ics`;
      assert.equal((await dav(t, 'GET', href)).status, 404, key);
      assert.equal((await dav(t, 'HEAD', href)).status, 404, key);
      assert.equal((await dav(t, 'PROPFIND', href, undefined, { depth: '0' })).status, 404, key);
      const q = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>`;
      assert.equal((await dav(t, 'REPORT', href, q, { depth: '0' })).status, 404, key);
      assert.equal((await dav(t, 'GET', href.replace(CAL, AUTH), undefined, {}, 'editor:editor-pw')).status, 200, `${key} for an editor`);
      // Credentials sent to the public tree do not make it show more.
      assert.equal((await dav(t, 'GET', href, undefined, {}, 'editor:editor-pw')).status, 404, `${key} in the public tree`);
    }
    const anonList = await dav(t, 'PROPFIND', CAL, undefined, { depth: '1' });
    assert.doesNotMatch(anonList.text, new RegExp(`/${ids.draft}\\.ics|/${ids.private}\\.ics`));
    const anonCal = await dav(t, 'GET', CAL);
    assert.doesNotMatch(anonCal.text, /Secret Draft|Private Party/);
    const anonSync = await dav(t, 'REPORT', CAL, syncCollection(''));
    assert.doesNotMatch(anonSync.text, new RegExp(`/${ids.draft}\\.ics|/${ids.private}\\.ics`));
    const editorSync = await dav(t, 'REPORT', AUTH, syncCollection(''), {}, 'editor:editor-pw');
    assert.match(editorSync.text, new RegExp(`/${ids.draft}\\.ics`));
    assert.match(editorSync.text, new RegExp(`/${ids.private}\\.ics`));
  });

  it('answers every write method 403 with a DAV error body (401 first in the authenticated tree without credentials)', async () => {
    const href = `${CAL}${ids.concert}.ics`;
    for (const [method, path, condition] of [
      ['PUT', href, 'need-privileges'],
      ['PUT', `${CAL}new.ics`, 'need-privileges'],
      ['DELETE', href, 'need-privileges'],
      ['MKCOL', '/dav/public/calendars/new/', 'need-privileges'],
      ['MKCALENDAR', '/dav/public/calendars/new/', 'need-privileges'],
      ['PROPPATCH', CAL, 'cannot-modify-protected-property'],
      ['MOVE', href, 'need-privileges'],
      ['COPY', href, 'need-privileges'],
      ['LOCK', href, 'need-privileges'],
      ['POST', CAL, 'need-privileges'],
    ] as const) {
      const body = method === 'PUT' ? 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n' : '<d:x xmlns:d="DAV:"/>';
      const headers: Record<string, string> = method === 'PUT' ? { 'content-type': 'text/calendar' } : {};
      for (const [where, as] of [
        [path, undefined],
        [path.replace('/dav/public/', '/dav/'), 'admin'],
      ] as const) {
        const res = await dav(t, method, where, body, headers, as);
        assert.equal(res.status, 403, `${method} ${where} ${as ?? 'anonymous'}`);
        assert.ok(condition in res.doc.error, `${method}: ${res.text}`);
      }
      assert.equal((await dav(t, method, path.replace('/dav/public/', '/dav/'), body, headers)).status, 401, `${method} without credentials`);
    }
    assert.equal((await dav(t, 'GET', href)).status, 200, 'still there');
  });

  it('answers malformed and hostile XML 400, wrong credentials 401, unknown paths 404, never 500', async () => {
    const bodies = [
      '<d:propfind xmlns:d="DAV:"><d:prop>',
      'not xml at all',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&e;</d:displayname></d:prop></d:propfind>',
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><lolz>&lol2;</lolz>',
      '<x:propfind xmlns:d="DAV:"><d:prop/></x:propfind>',
      '<d:a xmlns:d="DAV:">' + '<d:a>'.repeat(100) + '</d:a>'.repeat(100) + '</d:a>',
    ];
    for (const body of bodies) {
      for (const method of ['PROPFIND', 'REPORT']) {
        const res = await dav(t, method, CAL, body, { depth: '0' });
        assert.equal(res.status, 400, `${method} ${body.slice(0, 40)}`);
        assert.ok('bad-request' in res.doc.error);
      }
    }
    assert.equal((await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop/></d:propfind>', { depth: 'two' })).status, 400);
    assert.equal((await dav(t, 'REPORT', CAL, '<d:foo xmlns:d="DAV:"/>')).status, 403);
    const big = '<d:propfind xmlns:d="DAV:"><d:prop>' + '<d:displayname/>'.repeat(80_000) + '</d:prop></d:propfind>';
    assert.equal((await dav(t, 'PROPFIND', CAL, big, { depth: '0' })).status, 413);
    const wrong = await dav(t, 'PROPFIND', AUTH, undefined, { depth: '0' }, 'admin:wrong');
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate')!, /Basic/);
    for (const path of ['/dav/public/nothing/', '/dav/public/calendars/events/abc.ics', '/dav/public/calendars/events/1/2/', '/dav/public/calendars/%E0%A4%A0/'])
      assert.equal((await dav(t, 'PROPFIND', path, undefined, { depth: '0' })).status, 404, path);
    // A path that is not valid percent-encoding: refused before routing.
    assert.equal((await dav(t, 'PROPFIND', '/dav/public/calendars/%E0%A4%A/', undefined, { depth: '0' })).status, 400);
  });

  it('checks Basic credentials through the failed-login throttle shared with the REST API', async () => {
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<typeof dav>> | undefined;
    for (let i = 0; i < 12 && !throttled; i++) {
      const res = await dav(t, 'PROPFIND', AUTH, undefined, { depth: '0' }, 'nobody-here:wrong');
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
    }
    assert.ok(throttled, `statuses: ${statuses.join(',')}`);
    assert.ok(statuses.slice(0, -1).every((s) => s === 401));
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
    // The same client and login are throttled on the REST API too.
    assert.equal((await t.api.get('/events', { as: 'nobody-here:wrong' })).status, 429);
    // An application password works like the user's password.
    const app = await t.built.services.users.addAppPassword('editor', 'CalDAV');
    assert.equal((await dav(t, 'GET', `${AUTH}${ids.draft}.ics`, undefined, {}, `editor:${app.password}`)).status, 200);
  });

  it('keeps parsed request bodies in a bounded memo, reported in /metrics', async () => {
    await dav(t, 'PROPFIND', CAL, PROPFIND_CAL, { depth: '0' });
    const text = await (await fetch(`${t.origin}/metrics`)).text();
    const entries = Number(/^calendar_kept_entries\{kind="caldav_parsed_bodies"\} (\S+)$/m.exec(text)?.[1]);
    const max = Number(/^calendar_kept_entries_max\{kind="caldav_parsed_bodies"\} (\S+)$/m.exec(text)?.[1]);
    assert.ok(entries >= 1 && entries <= max, `${entries} of ${max}`);
  });

  describe('sync-collection', () => {
    it('syncs from an empty token, then reports only the changes since, deletions as 404', async () => {
      const first = await dav(t, 'REPORT', CAL, syncCollection(''), {}, null);
      assert.equal(first.status, 207);
      const token = first.doc.multistatus['sync-token'] as string;
      assert.equal(responses(first.doc).size, 3);
      const unchanged = await dav(t, 'REPORT', CAL, syncCollection(token));
      assert.equal(responses(unchanged.doc).size, 0);
      assert.equal(unchanged.doc.multistatus['sync-token'], token, 'the same token while nothing changed');

      const created = await t.api.post('/events', { as: 'admin', json: { title: 'New One', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' } });
      await t.api.post(`/events/${ids.fair}`, { as: 'admin', json: { title: 'Craft Fair (moved)' } });
      await t.api.delete(`/events/${ids.talk}`, { as: 'admin' });
      // A draft created and deleted since the token never reaches an anonymous client.
      const ghost = await t.api.post('/events', { as: 'admin', json: { title: 'Ghost', status: 'draft', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' } });
      await t.api.delete(`/events/${ghost.body.id}`, { as: 'admin', query: { force: true } });

      const delta = await dav(t, 'REPORT', CAL, syncCollection(token));
      const r = responses(delta.doc);
      assert.deepEqual([...r.keys()].sort(), [created.body.id, ids.fair, ids.talk].map((id) => `${CAL}${id}.ics`).sort());
      assert.ok(r.get(`${CAL}${created.body.id}.ics`)!.ok.getetag);
      assert.ok(r.get(`${CAL}${ids.fair}.ics`)!.ok.getetag);
      assert.match(r.get(`${CAL}${ids.talk}.ics`)!.status!, / 404 /);
      const next = delta.doc.multistatus['sync-token'] as string;
      assert.notEqual(next, token);
      assert.equal(responses((await dav(t, 'REPORT', CAL, syncCollection(next))).doc).size, 0);
      // The category calendar: the deleted talk was in it; the new event is not.
      const music = await dav(t, 'REPORT', '/dav/public/calendars/category-music/', syncCollection(token));
      assert.deepEqual([...responses(music.doc).keys()], [`/dav/public/calendars/category-music/${ids.talk}.ics`]);
    });

    it('refuses an invalid token with valid-sync-token, and truncates at the limit', async () => {
      for (const bad of ['urn:events-calendar:sync:AAAA', 'http://example.com/sync/1', 'garbage']) {
        const res = await dav(t, 'REPORT', CAL, syncCollection(bad));
        assert.equal(res.status, 403, bad);
        assert.ok('valid-sync-token' in res.doc.error);
      }
      const start = (await dav(t, 'REPORT', CAL, syncCollection(''))).doc.multistatus['sync-token'] as string;
      const made: number[] = [];
      for (let i = 0; i < 3; i++) made.push((await t.api.post('/events', { as: 'admin', json: { title: `Batch ${i}`, start_date: '2031-07-01 10:00', end_date: '2031-07-01 11:00' } })).body.id);
      const limit = '<d:limit><d:nresults>2</d:nresults></d:limit>';
      const part = await dav(t, 'REPORT', CAL, syncCollection(start, limit));
      const r = responses(part.doc);
      assert.deepEqual([...r.keys()], [`${CAL}${made[0]}.ics`, `${CAL}${made[1]}.ics`, CAL]);
      assert.match(r.get(CAL)!.status!, / 507 /);
      const rest = responses((await dav(t, 'REPORT', CAL, syncCollection(part.doc.multistatus['sync-token'], limit))).doc);
      assert.deepEqual([...rest.keys()], [`${CAL}${made[2]}.ics`]);
      // An initial sync larger than the limit cannot be cut: 507 number-of-matches-within-limits.
      const tooMany = await dav(t, 'REPORT', CAL, syncCollection('', limit));
      assert.equal(tooMany.status, 507);
      assert.ok('number-of-matches-within-limits' in tooMany.doc.error);
    });
  });
});

forEachStore(
  'CalDAV: a delta longer than SYNC_MAX_CHANGES comes in parts',
  (t: TestServer) => {
    it('answers 507 on the collection with a token that continues, until the delta is complete', async () => {
      const CAL = '/dav/public/calendars/events/';
      const start = (await dav(t, 'REPORT', CAL, syncCollection(''))).doc.multistatus['sync-token'] as string;
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push((await t.api.post('/events', { as: 'admin', json: { title: `Part ${i}`, start_date: '2031-07-01 10:00', end_date: '2031-07-01 11:00' } })).body.id);
      const seen: string[] = [];
      let token = start;
      let rounds = 0;
      for (; rounds < 10; rounds++) {
        const res = await dav(t, 'REPORT', CAL, syncCollection(token));
        assert.equal(res.status, 207);
        const r = responses(res.doc);
        token = res.doc.multistatus['sync-token'];
        seen.push(...[...r.keys()].filter((h) => h.endsWith('.ics')));
        if (!r.has(CAL)) break;
        assert.match(r.get(CAL)!.status!, / 507 /);
      }
      assert.ok(rounds >= 2, 'more than one part');
      assert.deepEqual(seen.sort(), made.map((id) => `${CAL}${id}.ics`).sort());
    });
  },
  { SYNC_MAX_CHANGES: '2' },
);

forEachStore(
  'CalDAV: a calendar larger than CALDAV_MAX_EVENTS is not listed whole (issue 27)',
  (t: TestServer) => {
    it('GET, PROPFIND Depth 1, an open calendar-query and an initial sync answer 507; a narrow query, a sync with a token and one event still answer', async () => {
      const CAL = '/dav/public/calendars/events/';
      const start = (await dav(t, 'REPORT', CAL, syncCollection(''))).doc.multistatus['sync-token'] as string;
      const made: number[] = [];
      for (let i = 0; i < 4; i++)
        made.push((await t.api.post('/events', { as: 'admin', json: { title: `Many ${i}`, status: 'publish', start_date: `2031-08-0${i + 1} 10:00`, end_date: `2031-08-0${i + 1} 11:00` } })).body.id);
      const tooMany = (res: { status: number; doc: any }, what: string) => {
        assert.equal(res.status, 507, what);
        assert.ok('number-of-matches-within-limits' in res.doc.error, what);
      };
      tooMany(await dav(t, 'GET', CAL), 'GET of the calendar');
      tooMany(await dav(t, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' }), 'PROPFIND Depth 1');
      const query = (range: string) =>
        `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`;
      tooMany(await dav(t, 'REPORT', CAL, query(''), { depth: '1' }), 'calendar-query without a range');
      tooMany(await dav(t, 'REPORT', CAL, syncCollection('')), 'initial sync');
      // Within the bound: a range of two days, the delta since a token (SYNC_MAX_CHANGES parts), one event.
      const narrow = await dav(t, 'REPORT', CAL, query('<c:time-range start="20310801T000000Z" end="20310803T000000Z"/>'), { depth: '1' });
      assert.equal(narrow.status, 207);
      assert.deepEqual([...responses(narrow.doc).keys()].sort(), [`${CAL}${made[0]}.ics`, `${CAL}${made[1]}.ics`].sort());
      const delta = await dav(t, 'REPORT', CAL, syncCollection(start, '<d:limit><d:nresults>3</d:nresults></d:limit>'));
      assert.equal(delta.status, 207);
      assert.equal((await dav(t, 'GET', `${CAL}${made[3]}.ics`)).status, 200);
      // The calendar itself (Depth 0) lists no events.
      const PROPFIND_DEPTH0 = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>';
      assert.equal((await dav(t, 'PROPFIND', CAL, PROPFIND_DEPTH0, { depth: '0' })).status, 207, 'the calendar itself, Depth 0');
    });
  },
  { CALDAV_MAX_EVENTS: '3' },
);
