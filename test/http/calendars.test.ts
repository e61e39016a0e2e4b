/**
 * Many calendars in one service: a second calendar answers under `/c/{slug}/` with its own data,
 * URLs, settings and people, and nothing of one calendar is seen through the other.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { forEachStore } from '../support/harness.js';
import { dav } from '../support/caldav.js';

forEachStore('calendars: a second calendar under /c/{slug}/', (t) => {
  const north = (path: string) => `${t.origin}/c/north${t.config.restRoot}/calendar/events/v1${path}`;
  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
  });

  it('keeps each calendar’s events apart, with its own URLs', async () => {
    const home = await t.api.post('/events', { as: 'admin', json: { title: 'Home concert', start_date: '2027-01-01 10:00', end_date: '2027-01-01 12:00' } });
    assert.equal(home.status, 201);
    const away = await t.api.post(north('/events'), { as: 'admin', json: { title: 'North concert', start_date: '2027-01-02 10:00', end_date: '2027-01-02 12:00' } });
    assert.equal(away.status, 201, away.text);
    assert.match(away.body.url, /\/c\/north\/event\//);
    assert.ok(away.body.rest_url.startsWith(`${t.origin}/c/north/`), away.body.rest_url);
    // The same slug in two calendars.
    assert.equal(away.body.slug, 'north-concert');
    const same = await t.api.post(north('/events'), { as: 'admin', json: { title: 'Home concert', start_date: '2027-01-03 10:00', end_date: '2027-01-03 12:00' } });
    assert.equal(same.body.slug, 'home-concert');

    const homeList = await t.api.get('/events', { query: { start_date: '2026-12-01' } });
    assert.deepEqual(
      homeList.body.events.map((e: { title: string }) => e.title),
      ['Home concert'],
    );
    const northList = await t.api.get(north('/events'), { query: { start_date: '2026-12-01' } });
    assert.deepEqual(
      northList.body.events.map((e: { title: string }) => e.title),
      ['North concert', 'Home concert'],
    );
    // By id: the other calendar's event is not found.
    assert.equal((await t.api.get(`/events/${away.body.id}`)).status, 404);
    assert.equal((await t.api.get(north(`/events/${home.body.id}`))).status, 404);
    assert.equal((await t.api.get(north(`/events/${away.body.id}`))).status, 200);
    // Writes through the other calendar find nothing either.
    assert.equal((await t.api.post(north(`/events/${home.body.id}`), { as: 'admin', json: { title: 'Taken' } })).status, 404);
    assert.equal((await t.api.delete(north(`/events/${home.body.id}`), { as: 'admin' })).status, 404);
    assert.equal((await t.api.get(`/events/${home.body.id}`)).body.title, 'Home concert');
  });

  it('reads an event of another calendar again after a write to it (what is kept hears every calendar)', async () => {
    const made = await t.api.post(north('/events'), { as: 'admin', json: { title: 'Kept', start_date: '2027-03-01 10:00', end_date: '2027-03-01 12:00' } });
    assert.equal(made.status, 201, made.text);
    // Read twice as an editor would: the record is kept from the second read on.
    for (let i = 0; i < 3; i++) assert.equal((await t.api.get(north(`/events/${made.body.id}`), { as: 'admin' })).body.title, 'Kept');
    assert.equal((await t.api.post(north(`/events/${made.body.id}`), { as: 'admin', json: { title: 'Changed' } })).status, 200);
    assert.equal((await t.api.get(north(`/events/${made.body.id}`), { as: 'admin' })).body.title, 'Changed');
    assert.equal((await t.api.delete(north(`/events/${made.body.id}`), { as: 'admin' })).status, 200);
    const trashed = await t.api.get(north(`/events/${made.body.id}`), { as: 'admin' });
    assert.equal(trashed.body.code, 'event-no-longer-available', trashed.text);
  });

  it('answers no federation path under a calendar’s prefix (each calendar’s actor is /federation/actors/{slug} on the service’s origin)', async () => {
    const finger = await t.api.get(`${t.origin}/c/north/.well-known/webfinger?resource=acct:calendar@127.0.0.1`);
    assert.equal(finger.status, 404);
    const inbox = await t.api.post(`${t.origin}/c/north/federation/inbox`, { json: {} });
    assert.equal(inbox.status, 404);
  });

  it('serves each calendar’s pages and feeds with its own name and URLs', async () => {
    const made = await t.api.post(north('/events'), { as: 'admin', json: { title: 'North fair', start_date: '2027-06-01 10:00', end_date: '2027-06-01 12:00', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    const feed = await (await fetch(`${t.origin}/c/north/events/?ical=1`)).text();
    assert.match(feed, /X-WR-CALNAME:North side/);
    assert.match(feed, new RegExp(`URL;VALUE=URI:${t.origin}/c/north/event/north-fair/`));
    // No URL of the default calendar's.
    assert.doesNotMatch(feed, new RegExp(`URI:${t.origin}/event/`));
    const page = await (await fetch(`${t.origin}/c/north/event/north-fair/`)).text();
    assert.match(page, /North side/);
    assert.match(page, new RegExp(`${t.origin}/c/north/event/north-fair/`));
    const home = await (await fetch(`${t.origin}/events/?ical=1`)).text();
    assert.doesNotMatch(home, /North fair|North side/);
  });

  it('keeps the embeds, CalDAV and MCP of each calendar to its own events', async () => {
    const made = await t.api.post(north('/events'), { as: 'admin', json: { title: 'North market', start_date: '2027-07-01 10:00', end_date: '2027-07-01 12:00', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    const homeOnly = await t.api.post('/events', { as: 'admin', json: { title: 'Home picnic', start_date: '2027-07-02 10:00', end_date: '2027-07-02 12:00', status: 'publish' } });
    assert.equal(homeOnly.status, 201, homeOnly.text);
    // The iframe view.
    const embed = await (await fetch(`${t.origin}/c/north/embed/?view=list`)).text();
    assert.match(embed, /North market/);
    assert.doesNotMatch(embed, /Home picnic/);
    // CalDAV: north's public collection holds north's events, named under north's path.
    const query = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>`;
    const report = await dav(t, 'REPORT', '/c/north/dav/public/calendars/events/', query, { depth: '1' });
    assert.equal(report.status, 207, report.text);
    assert.match(report.text, /SUMMARY:North market/);
    assert.doesNotMatch(report.text, /Home picnic|URI:http:\/\/127\.0\.0\.1:\d+\/event\//);
    const home = await dav(t, 'REPORT', '/dav/public/calendars/events/', query, { depth: '1' });
    assert.match(home.text, /SUMMARY:Home picnic/);
    assert.doesNotMatch(home.text, /North market/);
    // MCP: the assistant's search in north finds north's event, in the default calendar it does not.
    const search = async (path: string) => {
      const client = new Client({ name: 'calendars-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.origin}${path}`)));
      try {
        const res = (await client.callTool({ name: 'search_events', arguments: { start_date: '2027-07-01', end_date: '2027-07-03' } })) as { content: Array<{ text: string }> };
        return res.content.map((c) => c.text).join('\n');
      } finally {
        await client.close();
      }
    };
    const there = await search('/c/north/mcp');
    assert.match(there, /North market/);
    assert.doesNotMatch(there, /Home picnic/);
    const here = await search('/mcp');
    assert.match(here, /Home picnic/);
    assert.doesNotMatch(here, /North market/);
  });

  it('answers 404 calendar_not_found for an unknown slug', async () => {
    const r = await t.api.get(`${t.origin}/c/nowhere${t.config.restRoot}/calendar/events/v1/events`);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'calendar_not_found');
    // A slug or id no calendar can have is refused or not found (not the database's error).
    const network = `${t.origin}${t.config.restRoot}/calendar/network/v1`;
    for (const path of ['/calendars/99999999999999', '/calendars/99999999999999/usage', '/calendars/3000000000/members']) {
      const odd = await t.api.get(`${network}${path}`, { as: 'admin' });
      assert.ok(odd.status === 400 || odd.status === 404, `${path}: ${odd.text}`);
    }
    const nul = await t.api.post(`${network}/follows`, { as: 'admin', json: { calendar: 'north\u0000' } });
    assert.ok(nul.status >= 400 && nul.status < 500, nul.text);
  });

  it('gives roles per calendar: an editor in one calendar is nobody in the other', async () => {
    await t.user('subscriber', 'nora');
    await t.built.services.calendars.setRole('nora', 'north', 'editor');
    const there = await t.api.post(north('/events'), { as: 'nora', json: { title: 'Nora’s', start_date: '2027-02-01 10:00', end_date: '2027-02-01 12:00' } });
    assert.equal(there.status, 201, there.text);
    const here = await t.api.post('/events', { as: 'nora', json: { title: 'Nora’s', start_date: '2027-02-01 10:00', end_date: '2027-02-01 12:00' } });
    assert.equal(here.status, 403);
  });

  it('limits an application password to one calendar: it proves nobody in the others', async () => {
    await t.user('administrator', 'ada');
    const app = await t.built.services.users.addAppPassword('ada', 'north only');
    await t.built.services.calendars.limitAppPassword(app.uuid, 'north');
    const as = `ada:${app.password}`;
    const there = await t.api.post(north('/events'), { as, json: { title: 'By app', start_date: '2027-04-01 10:00', end_date: '2027-04-01 12:00' } });
    assert.equal(there.status, 201, there.text);
    const here = await t.api.post('/events', { as, json: { title: 'By app', start_date: '2027-04-01 10:00', end_date: '2027-04-01 12:00' } });
    assert.equal(here.status, 401, here.text);
    // Ada administers the network, but this password was limited to north: it manages north's
    // records, not the calendars, from north's prefix as from anywhere.
    const network = `${t.origin}/c/north${t.config.restRoot}/calendar/network/v1/calendars`;
    assert.equal((await t.api.get(network, { as: 'ada' })).status, 200);
    // Its own calendars: north alone.
    const listed = await t.api.get(network, { as });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.map((c: { slug: string; role: string }) => [c.slug, c.role]),
      [['north', 'administrator']],
    );
    const made = await t.api.post(network, { as, json: { slug: 'by-app', name: 'By app' } });
    assert.equal(made.status, 403, made.text);
  });

  it('redirects a former slug’s paths to the calendar’s slug now (301 for reads, 308 for writes)', async () => {
    await t.built.services.calendars.create({ slug: 'old-town', name: 'Old town' });
    const made = await t.api.post(`${t.origin}/c/old-town${t.config.restRoot}/calendar/events/v1/events`, {
      as: 'admin',
      json: { title: 'Renamed fair', start_date: '2027-05-01 10:00', end_date: '2027-05-01 12:00', status: 'publish' },
    });
    assert.equal(made.status, 201, made.text);
    await t.built.services.calendars.update('old-town', { slug: 'new-town' });
    const page = await fetch(`${t.origin}/c/old-town/event/renamed-fair/?x=1`, { redirect: 'manual' });
    assert.equal(page.status, 301);
    assert.equal(page.headers.get('location'), '/c/new-town/event/renamed-fair/?x=1');
    const root = await fetch(`${t.origin}/c/old-town`, { redirect: 'manual' });
    assert.equal(root.headers.get('location'), '/c/new-town/');
    const api = await fetch(`${t.origin}/c/old-town${t.config.restRoot}/calendar/events/v1/events/${made.body.id}`, { redirect: 'manual' });
    assert.equal(api.status, 301);
    const followed = await fetch(new URL(api.headers.get('location')!, t.origin));
    assert.equal(((await followed.json()) as { title: string }).title, 'Renamed fair');
    const write = await fetch(`${t.origin}/c/old-town${t.config.restRoot}/calendar/events/v1/events`, {
      method: 'POST',
      redirect: 'manual',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(write.status, 308);
    assert.equal(write.headers.get('location'), `/c/new-town${t.config.restRoot}/calendar/events/v1/events`);
    // A slug no calendar ever had is still not found.
    assert.equal((await fetch(`${t.origin}/c/never-was/events/`, { redirect: 'manual' })).status, 404);
  });

  it('suspends a calendar: 503 on every path', async () => {
    await t.built.services.calendars.create({ slug: 'south', name: 'South' });
    await t.built.services.calendars.update('south', { status: 'suspended' });
    const r = await t.api.get(`${t.origin}/c/south${t.config.restRoot}/calendar/events/v1/events`);
    assert.equal(r.status, 503);
    assert.equal(r.body.code, 'calendar_suspended');
  });
});
