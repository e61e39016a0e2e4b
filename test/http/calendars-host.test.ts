/**
 * A calendar on a host name of its own: a request whose `Host` is the calendar's is that
 * calendar's (its events, its site URL in what it answers, its pages), with no `/c/{slug}/`
 * prefix; the service's own host name stays the default calendar's. Its people sign in there (a
 * session cookie belongs to the host that set it) and that session works there with its nonce.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, forEachStore } from '../support/harness.js';
import { viaHost } from '../support/raw-http.js';

const HOST = 'events.north.example';

forEachStore('calendars: a host name of its own', (t) => {
  /** A request to the test server as if sent to `host` (fetch may not set Host). */
  const send = (path: string, options: { host?: string; method?: string; headers?: Record<string, string>; body?: string } = {}) => viaHost(t, path, options.host ?? HOST, options);
  // The REST root is known once the server started.
  let api = '';

  before(async () => {
    api = `${t.config.restRoot}/calendar/events/v1`;
    await t.built.services.calendars.create({ slug: 'north', name: 'North side', host: HOST });
    const made = await t.api.post(`${t.origin}/c/north${api}/events`, {
      as: 'admin',
      json: { title: 'Harbour lights', start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00', status: 'publish' },
    });
    assert.equal(made.status, 201, made.text);
    const home = await t.api.post('/events', { as: 'admin', json: { title: 'Home fair', start_date: '2030-06-02 10:00', end_date: '2030-06-02 12:00', status: 'publish' } });
    assert.equal(home.status, 201, home.text);
    // Host names are read again in the background (within seconds): wait until this one is known.
    for (let i = 0; i < 100; i++) {
      const r = await send(`${api}/events?start_date=2030-05-01&end_date=2030-07-01`);
      if (r.status === 200 && JSON.parse(r.text).events?.[0]?.title === 'Harbour lights') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`${HOST} never answered as north`);
  });

  it("answers the calendar's own API and pages there, with its URLs, and the default calendar elsewhere", async () => {
    const list = await send(`${api}/events?start_date=2030-05-01&end_date=2030-07-01`);
    assert.equal(list.status, 200);
    const body = JSON.parse(list.text) as { events: Array<{ title: string; url: string; rest_url: string }> };
    assert.deepEqual(
      body.events.map((e) => e.title),
      ['Harbour lights'],
    );
    // Its site URL: the host name, with SITE_URL's scheme.
    assert.ok(body.events[0]!.url.startsWith(`${new URL(t.config.siteUrl).protocol}//${HOST}/event/`), body.events[0]!.url);
    // The month page of that host is north's.
    const page = await send('/events/month/2030-06/');
    assert.equal(page.status, 200);
    assert.match(page.text, /Harbour lights/);
    assert.doesNotMatch(page.text, /Home fair/);
    // The service's own host name is the default calendar's.
    const home = await send(`${api}/events?start_date=2030-05-01&end_date=2030-07-01`, { host: new URL(t.origin).host });
    assert.deepEqual(
      (JSON.parse(home.text) as { events: Array<{ title: string }> }).events.map((e) => e.title),
      ['Home fair'],
    );
  });

  it('signs its people in there, and the session works there with its nonce', async () => {
    const form = await send('/admin/login');
    assert.equal(form.status, 200);
    const preCookie = String(form.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const nonce = /name="_wpnonce" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    const signed = await send('/admin/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: preCookie, origin: `http://${HOST}` },
      body: new URLSearchParams({ log: ADMIN.login, pwd: ADMIN.password, _wpnonce: nonce }).toString(),
    });
    assert.equal(signed.status, 303, signed.text);
    const cookie = String(signed.headers['set-cookie']?.find((c) => !c.startsWith(preCookie.split('=')[0]!)) ?? signed.headers['set-cookie']?.[0]).split(';')[0]!;
    const account = await send('/admin/account', { headers: { cookie } });
    assert.equal(account.status, 200);
    const restNonce = /name="calendar-rest-nonce" content="([^"]*)"/.exec(account.text)?.[1] ?? '';
    assert.ok(restNonce);
    const created = await send(`${api}/events`, {
      method: 'POST',
      headers: { cookie, 'x-wp-nonce': restNonce, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Signed in on its host', start_date: '2030-06-03 10:00', end_date: '2030-06-03 11:00' }),
    });
    assert.equal(created.status, 201, created.text);
    // It went into north, not the default calendar.
    const there = await t.api.get(`${t.origin}/c/north${api}/events/${JSON.parse(created.text).id}`, { as: 'admin' });
    assert.equal(there.status, 200);
    assert.equal((await t.api.get(`/events/${JSON.parse(created.text).id}`, { as: 'admin' })).status, 404);
  });

  it('serves no other calendar’s prefix on a calendar’s own host name (it would answer under this one’s name and cookies)', async () => {
    await t.built.services.calendars.create({ slug: 'hosted-other', name: 'Other side' });
    const made = await t.api.post(`${t.origin}/c/hosted-other${api}/events`, {
      as: 'admin',
      json: { title: 'Other fair', start_date: '2030-06-03 10:00', end_date: '2030-06-03 12:00', status: 'publish' },
    });
    assert.equal(made.status, 201, made.text);
    for (const path of [`/c/hosted-other${api}/events?start_date=2030-05-01&end_date=2030-07-01`, '/c/hosted-other/events/', `/c/north${api}/events`]) {
      const r = await send(path);
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.doesNotMatch(r.text, /Other fair|Harbour lights/);
    }
    // On the service's own host name the prefix still names the calendar.
    const there = await t.api.get(`${t.origin}/c/hosted-other${api}/events`, { query: { start_date: '2030-05-01', end_date: '2030-07-01' } });
    assert.equal(there.body.events[0]?.title, 'Other fair', there.text);
  });
});
