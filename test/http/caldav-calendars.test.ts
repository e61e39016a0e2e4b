/**
 * CalDAV of a calendar reached under its path (`/c/north/dav/`), driven by a real client library
 * (`tsdav`): every href it is answered with (the principal, the home, the calendars, the events,
 * a sync's changes) stays under `/c/north/`, so a client given that URL never strays into the
 * default calendar's tree; the well-known URI there redirects to it; a multiget names its events
 * by those hrefs, and an href of the root's tree is none of this calendar's.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { DAVClient, fetchHomeUrl, fetchPrincipalUrl, type DAVAccount } from 'tsdav';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses, uidsOf } from '../support/caldav.js';

forEachStore('CalDAV of a calendar under its path, with the tsdav client', (t: TestServer) => {
  const ids: Record<string, number> = {};
  const api = (path: string) => `${t.origin}/c/north${t.config.restRoot}/tribe/events/v1${path}`;
  const anonymous = () => {
    const root = `${t.origin}/c/north/dav/public/`;
    const client = new DAVClient({ serverUrl: root, authMethod: 'Custom', authFunction: async () => ({}), defaultAccountType: 'caldav', credentials: {} });
    return Object.assign(client, {
      login: async () => {
        const account: DAVAccount = { accountType: 'caldav', serverUrl: root, rootUrl: root };
        account.principalUrl = await fetchPrincipalUrl({ account });
        account.homeUrl = await fetchHomeUrl({ account });
        client.account = account;
      },
    });
  };

  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North' });
    const create = async (key: string, url: string, json: Record<string, unknown>) => {
      const res = await t.api.post(url, { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.id;
    };
    await create('fair', api('/events'), { title: 'North Fair', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00' });
    await create('market', api('/events'), { title: 'North Market', start_date: '2031-04-10 09:00', end_date: '2031-04-10 13:00' });
    await create('root', '/events', { title: 'Root Concert', start_date: '2031-03-11 20:00', end_date: '2031-03-11 22:00' });
  });

  it('redirects the calendar’s well-known URI to its own DAV root', async () => {
    const res = await dav(t, 'PROPFIND', '/c/north/.well-known/caldav', '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>');
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/c/north/dav/');
  });

  it('discovers the calendar’s principal, home and calendars under its path, and fetches its events only', async () => {
    const client = anonymous();
    await client.login();
    assert.equal(client.account?.principalUrl, `${t.origin}/c/north/dav/public/principals/anonymous/`);
    assert.equal(client.account?.homeUrl, `${t.origin}/c/north/dav/public/calendars/`);
    const calendars = await client.fetchCalendars();
    assert.deepEqual(
      calendars.map((c) => c.url),
      [`${t.origin}/c/north/dav/public/calendars/events/`],
    );
    const site = calendars[0]!;
    assert.equal(site.displayName, 'North');
    const objects = await client.fetchCalendarObjects({ calendar: site });
    assert.deepEqual(
      uidsOf(objects),
      [ids.fair!, ids.market!].sort((a, b) => a - b),
    );
    assert.ok(
      objects.every((o) => o.url.startsWith(`${t.origin}/c/north/dav/public/calendars/events/`)),
      objects.map((o) => o.url).join(' '),
    );
    // A multiget by those hrefs (tsdav's fetch by URL).
    const one = await client.calendarMultiGet({ url: site.url, props: { 'd:getetag': {}, 'c:calendar-data': {} }, objectUrls: [new URL(objects[0]!.url).pathname], depth: '1' });
    assert.equal(one.length, 1);
    assert.ok(one[0]!.ok && one[0]!.href?.endsWith(new URL(objects[0]!.url).pathname), JSON.stringify(one[0]));
    assert.match(String(one[0]!.props?.calendarData), /BEGIN:VEVENT/);
  });

  it('answers a sync’s changes under the calendar’s path', async () => {
    const CAL = '/c/north/dav/public/calendars/events/';
    const sync = (token: string) =>
      dav(t, 'REPORT', CAL, `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`);
    const first = await sync('');
    assert.equal(first.status, 207);
    assert.ok([...responses(first.doc).keys()].every((href) => href.startsWith(CAL)));
    const made = await t.api.post(api('/events'), { as: 'admin', json: { title: 'North Dance', start_date: '2031-05-01 20:00', end_date: '2031-05-01 22:00' } });
    assert.equal(made.status, 201);
    const delta = await sync(first.doc.multistatus['sync-token'] as string);
    assert.deepEqual([...responses(delta.doc).keys()], [`${CAL}${made.body.id}.ics`]);
  });

  it('finds no event of this calendar by an href of the root’s tree', async () => {
    const body = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><d:href>/dav/public/calendars/events/${ids.fair}.ics</d:href><d:href>/c/north/dav/public/calendars/events/${ids.fair}.ics</d:href></c:calendar-multiget>`;
    const res = await dav(t, 'REPORT', '/c/north/dav/public/calendars/events/', body, { depth: '1' });
    assert.equal(res.status, 207);
    const r = responses(res.doc);
    assert.match(r.get(`/dav/public/calendars/events/${ids.fair}.ics`)!.status!, / 404 /);
    assert.ok(r.get(`/c/north/dav/public/calendars/events/${ids.fair}.ics`)!.ok.getetag);
  });

  it('tells a browser the calendar’s own CalDAV URLs', async () => {
    const res = await fetch(`${t.origin}/c/north/dav/public/`);
    const text = await res.text();
    assert.ok(text.includes(`/c/north/dav/public/`), text);
  });
});
