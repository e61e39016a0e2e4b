/**
 * Issue 30: the CalDAV face driven by a real client library, `tsdav`: discovery from the server's
 * origin (/.well-known/caldav, the authenticated tree) with credentials sent up front, or only once
 * challenged (as python-caldav and Thunderbird do), and of the public tree from its root for an
 * anonymous subscriber (the steps docs/caldav.md gives); the principal and home, the calendars
 * (site and categories), the events, a time-range query, then incremental syncs (sync-collection,
 * then multiget of what changed) that see a new event, an edit and a deletion made through the
 * REST API, anonymously and as an editor (who also sees drafts and private events).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { DAVClient, fetchHomeUrl, fetchPrincipalUrl, type DAVAccount, type DAVCalendar } from 'tsdav';
import { forEachStore, type TestServer } from '../support/harness.js';
import { uidsOf } from '../support/caldav.js';

forEachStore('CalDAV with the tsdav client', (t: TestServer) => {
  const ids: Record<string, number> = {};
  /**
   * An anonymous subscriber: tsdav's login() always starts at /.well-known/caldav (the
   * authenticated tree, which asks for credentials), so the account is discovered from the public
   * tree's root instead (docs/caldav.md, "a library").
   */
  const anonymous = () => {
    const client = new DAVClient({ serverUrl: `${t.origin}/dav/public/`, authMethod: 'Custom', authFunction: async () => ({}), defaultAccountType: 'caldav', credentials: {} });
    return Object.assign(client, {
      login: async () => {
        const account: DAVAccount = { accountType: 'caldav', serverUrl: `${t.origin}/dav/public/`, rootUrl: `${t.origin}/dav/public/` };
        account.principalUrl = await fetchPrincipalUrl({ account });
        account.homeUrl = await fetchHomeUrl({ account });
        client.account = account;
      },
    });
  };
  const editor = () => new DAVClient({ serverUrl: t.origin, authMethod: 'Basic', credentials: { username: 'editor', password: 'editor-pw' }, defaultAccountType: 'caldav' });
  /**
   * A client that sends credentials only when challenged (python-caldav's default): each request
   * goes without them until a 401 with a Basic challenge, then again with them, and every later
   * request with them. `challenges` counts the 401s it met.
   */
  const challengedEditor = () => {
    const seen = { challenges: 0, withCredentials: false };
    const basic = 'Basic ' + Buffer.from('editor:editor-pw').toString('base64');
    const lazyFetch: typeof fetch = async (input, init = {}) => {
      const send = (auth: boolean) => {
        const headers = new Headers(init.headers);
        headers.delete('authorization');
        if (auth) headers.set('authorization', basic);
        return fetch(input, { ...init, headers });
      };
      const first = await send(seen.withCredentials);
      if (first.status !== 401 || seen.withCredentials || !/^Basic realm="/.test(first.headers.get('www-authenticate') ?? '')) return first;
      seen.challenges++;
      seen.withCredentials = true;
      return send(true);
    };
    const client = new DAVClient({ serverUrl: t.origin, authMethod: 'Custom', authFunction: async () => ({}), defaultAccountType: 'caldav', credentials: {}, fetch: lazyFetch });
    return { client, seen };
  };

  before(async () => {
    const create = async (key: string, json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.id;
    };
    await create('a', { title: 'Opening Night', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00', categories: ['Theatre'] });
    await create('b', { title: 'Market', start_date: '2031-04-10 09:00', end_date: '2031-04-10 13:00' });
    await create('draft', { title: 'Draft Plan', status: 'draft', start_date: '2031-04-11 09:00', end_date: '2031-04-11 10:00' });
    await t.user('editor');
  });

  it('discovers the authenticated tree from the origin with credentials up front, and sees drafts', async () => {
    const client = editor();
    await client.login();
    assert.equal(client.account?.rootUrl, `${t.origin}/dav/`);
    assert.equal(client.account?.principalUrl, `${t.origin}/dav/principals/users/editor/`);
    assert.equal(client.account?.homeUrl, `${t.origin}/dav/calendars/`);
    const calendars = await client.fetchCalendars();
    assert.deepEqual(
      calendars.map((c) => c.url),
      [`${t.origin}/dav/calendars/events/`, `${t.origin}/dav/calendars/category-theatre/`],
    );
    const objects = await client.fetchCalendarObjects({ calendar: calendars[0]! });
    assert.ok(uidsOf(objects).includes(ids.draft!), 'the draft');
  });

  it('discovers the authenticated tree for a client that sends credentials only when challenged', async () => {
    const { client, seen } = challengedEditor();
    await client.login();
    assert.equal(seen.challenges, 1, 'challenged once, then credentials on every request');
    assert.equal(client.account?.principalUrl, `${t.origin}/dav/principals/users/editor/`);
    const [site] = await client.fetchCalendars();
    assert.equal(site!.url, `${t.origin}/dav/calendars/events/`);
    const objects = await client.fetchCalendarObjects({ calendar: site! });
    assert.deepEqual(
      uidsOf(objects),
      [ids.a!, ids.b!, ids.draft!].sort((x, y) => x - y),
      'drafts too: never the anonymous view in place of the editor',
    );
  });

  it('discovers the service and fetches calendars and events', async () => {
    const client = anonymous();
    await client.login();
    assert.equal(client.account?.rootUrl, `${t.origin}/dav/public/`);
    assert.equal(client.account?.principalUrl, `${t.origin}/dav/public/principals/anonymous/`);
    assert.equal(client.account?.homeUrl, `${t.origin}/dav/public/calendars/`);
    const calendars = await client.fetchCalendars();
    assert.deepEqual(
      calendars.map((c) => c.url),
      [`${t.origin}/dav/public/calendars/events/`, `${t.origin}/dav/public/calendars/category-theatre/`],
    );
    const site = calendars[0]!;
    assert.equal(site.displayName, 'Events Calendar');
    assert.deepEqual(site.components, ['VEVENT']);
    assert.ok(site.reports?.includes('syncCollection') && site.reports.includes('calendarQuery') && site.reports.includes('calendarMultiget'), String(site.reports));
    assert.ok(site.syncToken && site.ctag);
    const objects = await client.fetchCalendarObjects({ calendar: site });
    assert.deepEqual(
      uidsOf(objects),
      [ids.a!, ids.b!].sort((x, y) => x - y),
    );
    assert.ok(objects.every((o) => o.etag && /BEGIN:VEVENT/.test(String(o.data))));
    const theatre = await client.fetchCalendarObjects({ calendar: calendars[1]! });
    assert.deepEqual(uidsOf(theatre), [ids.a]);
    // A time-range query: April only.
    const april = await client.fetchCalendarObjects({ calendar: site, timeRange: { start: '2031-04-01T00:00:00Z', end: '2031-05-01T00:00:00Z' } });
    assert.deepEqual(uidsOf(april), [ids.b]);
  });

  it('syncs incrementally: a new event, an edit and a deletion', async () => {
    const live: number[] = [];
    for (const who of ['anonymous', 'editor'] as const) {
      const client = who === 'anonymous' ? anonymous() : editor();
      await client.login();
      const [site] = await client.fetchCalendars();
      const objects = await client.fetchCalendarObjects({ calendar: site! });
      let local: DAVCalendar = { ...site!, objects };
      const expected = [ids.a!, ids.b!, ...(who === 'editor' ? [ids.draft!] : []), ...live];
      assert.deepEqual(
        uidsOf(objects),
        expected.sort((x, y) => x - y),
        who,
      );

      // Nothing changed: nothing to fetch.
      const quiet = await client.smartCollectionSync({ collection: { ...local, objectMultiGet: client.calendarMultiGet.bind(client) } as never, method: 'webdav', detailedResult: true });
      const q = quiet.objects as unknown as { created: unknown[]; updated: unknown[]; deleted: unknown[] };
      assert.deepEqual([q.created.length, q.updated.length, q.deleted.length], [0, 0, 0], who);

      const created = await t.api.post('/events', { as: 'admin', json: { title: `New for ${who}`, start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' } });
      live.push(created.body.id);
      const editedBefore = objects.find((o) => String(o.data).includes(`UID:${ids.b}@`))!;
      await t.api.post(`/events/${ids.b}`, { as: 'admin', json: { title: `Market (${who})` } });
      const gone = (await t.api.post('/events', { as: 'admin', json: { title: 'Short-lived', start_date: '2031-05-02 10:00', end_date: '2031-05-02 11:00' } })).body.id;
      // Published after the client's token, then deleted: reported removed (RFC 6578 §3.5.2 allows
      // it; the client had not seen it and ignores it), as the REST sync reports its tombstone.
      await t.api.delete(`/events/${gone}`, { as: 'admin', query: { force: true } });
      const toDelete = (await t.api.post('/events', { as: 'admin', json: { title: `Doomed ${who}`, start_date: '2031-05-03 10:00', end_date: '2031-05-03 11:00' } })).body.id;

      const synced = await client.smartCollectionSync({ collection: { ...local, objectMultiGet: client.calendarMultiGet.bind(client) } as never, method: 'webdav', detailedResult: true });
      const d = synced.objects as unknown as { created: Array<{ data: string }>; updated: Array<{ data: string; etag: string }>; deleted: Array<{ url: string }> };
      assert.deepEqual(
        uidsOf(d.created),
        [created.body.id, toDelete].sort((x, y) => x - y),
        who,
      );
      assert.equal(d.updated.length, 1, who);
      assert.match(d.updated[0]!.data, new RegExp(`SUMMARY:Market \\(${who}\\)`));
      assert.notEqual(d.updated[0]!.etag, editedBefore.etag);
      assert.deepEqual(
        d.deleted.map((x) => x.url),
        [`${t.origin}${who === 'editor' ? '/dav/' : '/dav/public/'}calendars/events/${gone}.ics`],
      );
      local = { ...local, syncToken: synced.syncToken, objects: [...objects.filter((o) => o.url !== editedBefore.url), ...d.updated, ...d.created] as never };

      await t.api.delete(`/events/${toDelete}`, { as: 'admin' });
      const third = await client.smartCollectionSync({ collection: { ...local, objectMultiGet: client.calendarMultiGet.bind(client) } as never, method: 'webdav', detailedResult: true });
      const e = third.objects as unknown as { created: unknown[]; updated: unknown[]; deleted: Array<{ url: string }> };
      assert.deepEqual(
        e.deleted.map((x) => x.url),
        [`${t.origin}${who === 'editor' ? '/dav/' : '/dav/public/'}calendars/events/${toDelete}.ics`],
        who,
      );
      assert.deepEqual([e.created.length, e.updated.length], [0, 0]);
    }
  });

  it('syncs the calendars list with syncCalendars (ctag and sync-token move with a change)', async () => {
    const client = anonymous();
    await client.login();
    const calendars = await client.fetchCalendars();
    const withObjects = await Promise.all(calendars.map(async (c) => ({ ...c, objects: await client.fetchCalendarObjects({ calendar: c }) })));
    await t.api.post('/events', { as: 'admin', json: { title: 'Another Play', start_date: '2031-06-01 20:00', end_date: '2031-06-01 22:00', categories: ['Theatre'] } });
    const result = (await client.syncCalendars({ oldCalendars: withObjects, detailedResult: true })) as unknown as { updated: DAVCalendar[] };
    const theatre = result.updated.find((c) => c.url.endsWith('/category-theatre/'))!;
    assert.ok(theatre.objects?.some((o) => String(o.data).includes('SUMMARY:Another Play')));
  });
});
