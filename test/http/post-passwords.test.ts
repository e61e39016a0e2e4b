/**
 * Password-protected events, venues and organizers (WordPress' post_password): how they are
 * written (the write routes take `password`, at most 255 characters, stored as given; the admin
 * API hands it back to editors) and how each face withholds their content. On both stores.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { forEachStore, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const ADMIN_API = '/api/calendar/admin/v1';

forEachStore('post passwords: writes', (t: TestServer) => {
  const day = DateTime.utc().plus({ days: 12 }).toFormat('yyyy-MM-dd');
  const times = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC' };

  before(async () => {
    await t.user('author');
  });

  it('an event is created and updated with a password, stored as given, read back by its editors only', async () => {
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'Secret gig', ...times, password: ' open sesame ' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.password, undefined, 'the representation never carries the password');
    const id = created.body.id;
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, ' open sesame ');
    const updated = await t.api.post(`/events/${id}`, { as: 'admin', form: { password: 'other' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, 'other');
    // An update that does not send it keeps it.
    await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Secret gig, again' } });
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, 'other');
    // '' removes it.
    await t.api.post(`/events/${id}`, { as: 'admin', json: { password: '' } });
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'admin' })).body.password, '');
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: 'author' })).status, 403);
    assert.equal((await t.api.get(`${ADMIN_API}/events/${id}`, { as: null })).status, 401);
  });

  it('a password longer than 255 characters, or not a string, is refused with rest_invalid_param', async () => {
    const long = await t.api.post('/events', { as: 'admin', json: { title: 'Too long', ...times, password: 'x'.repeat(256) } });
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.code, 'rest_invalid_param');
    assert.match(long.body.data.params.password, /at most 255/);
    const ok = await t.api.post('/events', { as: 'admin', json: { title: 'Just right', ...times, password: 'é'.repeat(255) } });
    assert.equal(ok.status, 201, ok.text);
    const notString = await t.api.post('/events', { as: 'admin', json: { title: 'Array', ...times, password: ['a'] } });
    assert.equal(notString.status, 400, notString.text);
    for (const [path, name] of [
      ['/venues', 'venue'],
      ['/organizers', 'organizer'],
    ]) {
      const res = await t.api.post(path!, { as: 'admin', json: { [name!]: 'Long', password: 'y'.repeat(256) } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'rest_invalid_param');
    }
  });

  it('venues and organizers take a password on create and update, also inline in an event write', async () => {
    for (const [path, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const created = await t.api.post(`/${path}`, { as: 'admin', json: { [name]: `Hidden ${name}`, password: 'pw1' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.password, undefined);
      const id = created.body.id;
      assert.deepEqual((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'admin' })).body, { id, password: 'pw1' });
      assert.equal((await t.api.post(`/${path}/${id}`, { as: 'admin', json: { password: 'pw2' } })).status, 200);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'admin' })).body.password, 'pw2');
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: 'author' })).status, 403);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/${id}`, { as: null })).status, 401);
      assert.equal((await t.api.get(`${ADMIN_API}/${path}/999999`, { as: 'admin' })).status, 400);
    }
    const event = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'With inline venue', ...times, venue: { venue: 'Inline hall', password: 'hall' }, organizer: [{ organizer: 'Inline org', password: 'org' }] },
    });
    assert.equal(event.status, 201, event.text);
    const venueId = event.body.venue.id;
    const organizerId = event.body.organizer[0].id;
    assert.equal((await t.api.get(`${ADMIN_API}/venues/${venueId}`, { as: 'admin' })).body.password, 'hall');
    assert.equal((await t.api.get(`${ADMIN_API}/organizers/${organizerId}`, { as: 'admin' })).body.password, 'org');
    const badInline = await t.api.post('/events', { as: 'admin', json: { title: 'Bad inline', ...times, venue: { venue: 'Bad hall', password: 'z'.repeat(300) } } });
    assert.equal(badInline.status, 400, badInline.text);
  });

  it("a recurring event's password reaches its occurrences", async () => {
    const series = await t.api.post('/events', { as: 'admin', json: { title: 'Weekly secret', ...times, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'], password: 'weekly' } });
    assert.equal(series.status, 201, series.text);
    const list = await t.api.get(`${ADMIN_API}/events`, { as: 'admin', query: { per_page: 500 } });
    const occurrences = (list.body as any[]).filter((e) => e.recurring_event_id === series.body.id || e.id === series.body.id);
    assert.ok(occurrences.length >= 3, JSON.stringify(list.body));
    for (const o of occurrences) assert.equal((await t.api.get(`${ADMIN_API}/events/${o.id}`, { as: 'admin' })).body.password, 'weekly', `event ${o.id}`);
  });
});

forEachStore('post passwords: the legacy REST API', (t: TestServer) => {
  const day = DateTime.utc().plus({ days: 14 }).toFormat('yyyy-MM-dd');
  const times = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC' };
  let venueId = 0;
  let organizerId = 0;
  let protectedId = 0;
  let openId = 0;

  before(async () => {
    await t.user('author');
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Hidden hall', address: '1 Secret street', city: 'Lyon', phone: '555', password: 'venuepw' } });
    venueId = venue.body.id;
    const organizer = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Hidden host', email: 'host@example.org', phone: '123', password: 'orgpw' } });
    organizerId = organizer.body.id;
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Jazz' } });
    const created = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Members only', description: 'The secret programme', excerpt: 'Secret excerpt', cost: '25', categories: [cat.body.id], ...times, password: 'letmein' },
    });
    assert.equal(created.status, 201, created.text);
    protectedId = created.body.id;
    const open = await t.api.post('/events', { as: 'admin', json: { title: 'Open night', description: 'Everyone welcome', ...times, venue: venueId, organizer: [organizerId] } });
    openId = open.body.id;
  });

  it('a single protected event answers 403 event-password-protected without the password, to anonymous and signed-in readers', async () => {
    for (const as of [null, 'author', 'admin']) {
      for (const path of [`/events/${protectedId}`, `/events/${protectedId}?password=wrong`]) {
        const res = await t.api.get(path, { as });
        assert.equal(res.status, 403, `${as} ${path}: ${res.text}`);
        assert.deepEqual(res.body, { code: 'event-password-protected', message: 'The requested event is not accessible without a password', data: { status: 403 } });
      }
    }
  });

  it('the right password, or the edit context for who may edit it, shows the whole event', async () => {
    const withPassword = await t.api.get(`/events/${protectedId}`, { query: { password: 'letmein' } });
    assert.equal(withPassword.status, 200, withPassword.text);
    assert.match(withPassword.body.description, /The secret programme/);
    assert.equal(withPassword.body.password, undefined, 'the password is never in an answer');
    const bySlug = await t.api.get(`/events/by-slug/members-only`, { query: { password: 'letmein' } });
    assert.equal(bySlug.status, 200, bySlug.text);
    assert.equal((await t.api.get(`/events/by-slug/members-only`)).status, 403);
    const edit = await t.api.get(`/events/${protectedId}`, { as: 'admin', query: { context: 'edit' } });
    assert.equal(edit.status, 200, edit.text);
    assert.match(edit.body.description, /The secret programme/);
    // The edit context lets through only who may edit the event.
    assert.equal((await t.api.get(`/events/${protectedId}`, { as: 'author', query: { context: 'edit' } })).status, 403);
    assert.equal((await t.api.get(`/events/${protectedId}`, { query: { context: 'edit' } })).status, 403);
    // On the original's namespace too.
    const legacy = await fetch(`${t.origin}/wp-json/tribe/events/v1/events/${protectedId}`);
    assert.equal(legacy.status, 403);
    assert.equal(((await legacy.json()) as any).code, 'event-password-protected');
    assert.equal((await fetch(`${t.origin}/wp-json/tribe/events/v1/events/${protectedId}?password=letmein`)).status, 200);
  });

  it('the event list shows a protected event without its content, unless the password is given', async () => {
    const list = await t.api.get('/events');
    const event = list.body.events.find((e: any) => e.id === protectedId);
    assert.ok(event, 'a protected event is listed');
    assert.equal(event.title, 'Members only');
    assert.equal(event.start_date, `${day} 18:00:00`, 'dates stay');
    assert.equal(event.description, '');
    assert.equal(event.excerpt, '');
    assert.equal(event.cost, '');
    assert.deepEqual(event.cost_details, { currency_symbol: '', currency_position: '', currency_code: '', values: [] });
    assert.deepEqual(event.categories, []);
    assert.equal(event.image, false);
    assert.equal(event.all_day, null);
    assert.equal(event.featured, null);
    assert.equal(event.website, '');
    assert.deepEqual(event.venue, []);
    assert.ok(!list.text.includes('secret programme') && !list.text.includes('Secret excerpt'), 'no protected text in the answer');
    const unlocked = await t.api.get('/events', { query: { password: 'letmein' } });
    assert.match(unlocked.body.events.find((e: any) => e.id === protectedId).description, /The secret programme/);
    const edit = await t.api.get('/events', { as: 'admin', query: { context: 'edit' } });
    assert.match(edit.body.events.find((e: any) => e.id === protectedId).description, /The secret programme/);
    const signedIn = await t.api.get('/events', { as: 'admin' });
    assert.equal(signedIn.body.events.find((e: any) => e.id === protectedId).description, '', 'signed in is not enough');
    const open = list.body.events.find((e: any) => e.id === openId);
    assert.match(open.description, /Everyone welcome/, 'other events are untouched');
    // A kept representation copied with new term counts keeps its mark (another event in its category).
    const jazz = (await t.api.get('/categories', { query: { search: 'Jazz' } })).body.categories[0].id;
    await t.api.post('/events', { as: 'admin', json: { title: 'More jazz', categories: [jazz], ...times } });
    const again = await t.api.get('/events');
    assert.equal(again.body.events.find((e: any) => e.id === protectedId).description, '');
    assert.ok(!again.text.includes('secret programme'));
  });

  it('a protected venue or organizer embedded in an event is shown without its content, whoever asks', async () => {
    for (const query of [undefined, { password: 'venuepw' }]) {
      const single = await t.api.get(`/events/${openId}`, { as: 'admin', query });
      assert.equal(single.status, 200);
      const venue = single.body.venue;
      assert.equal(venue.id, venueId);
      // The original's list of protected fields names `venue` and `organizer` (an event's), so a
      // venue's and an organizer's own name fields are emptied too.
      assert.deepEqual(venue.venue, []);
      assert.equal(venue.slug, 'hidden-hall');
      assert.equal(venue.address, '');
      assert.equal(venue.city, '');
      assert.equal(venue.phone, '');
      const organizer = single.body.organizer[0];
      assert.deepEqual(organizer.organizer, []);
      assert.equal(organizer.email, '');
      assert.equal(organizer.phone, '');
      assert.ok(!single.text.includes('Secret street') && !single.text.includes('host@example.org'), single.text);
    }
  });

  it('a single venue or organizer without its password is shown without its content; with it, whole', async () => {
    const venue = await t.api.get(`/venues/${venueId}`);
    assert.equal(venue.status, 200);
    assert.deepEqual(venue.body.venue, []);
    assert.equal(venue.body.address, '');
    assert.deepEqual(Object.keys(venue.body.json_ld), ['@type', 'name', 'url']);
    assert.equal(venue.body.city, '');
    assert.ok(!venue.text.includes('Secret street'), venue.text);
    const unlocked = await t.api.get(`/venues/${venueId}`, { query: { password: 'venuepw' } });
    assert.equal(unlocked.body.address, '1 Secret street');
    assert.ok(unlocked.body.json_ld.address, 'the whole json_ld');
    const edit = await t.api.get(`/venues/${venueId}`, { as: 'admin', query: { context: 'edit' } });
    assert.equal(edit.body.city, 'Lyon');
    const organizer = await t.api.get(`/organizers/${organizerId}`);
    assert.equal(organizer.body.email, '');
    assert.equal((await t.api.get(`/organizers/${organizerId}`, { query: { password: 'orgpw' } })).body.email, 'host@example.org');
    const venues = await t.api.get('/venues');
    assert.equal(venues.body.venues.find((v: any) => v.id === venueId).address, '');
    assert.equal((await t.api.get('/venues', { query: { password: 'venuepw' } })).body.venues.find((v: any) => v.id === venueId).address, '1 Secret street');
    const organizers = await t.api.get('/organizers');
    assert.equal(organizers.body.organizers.find((o: any) => o.id === organizerId).email, '');
  });

  it('the sync delta of the lists withholds the same, unless the password is given', async () => {
    const first = await t.api.get('/events');
    const token = first.headers.get('x-sync-token')!;
    const changed = await t.api.post(`/events/${protectedId}`, { as: 'admin', json: { excerpt: 'Secret excerpt, changed' } });
    assert.equal(changed.status, 200);
    const delta = await t.api.get('/events', { query: { sync_token: token } });
    assert.equal(delta.status, 200, delta.text);
    const item = delta.body.events.find((e: any) => e.id === protectedId);
    assert.ok(item, delta.text);
    assert.equal(item.excerpt, '');
    assert.ok(!delta.text.includes('Secret excerpt'));
    const unlocked = await t.api.get('/events', { query: { sync_token: token, password: 'letmein' } });
    assert.match(unlocked.body.events.find((e: any) => e.id === protectedId).excerpt, /Secret excerpt, changed/);
    const venues = await t.api.get('/venues');
    await t.api.post(`/venues/${venueId}`, { as: 'admin', json: { phone: '556' } });
    const venueDelta = await t.api.get('/venues', { query: { sync_token: venues.headers.get('x-sync-token')! } });
    assert.equal(venueDelta.body.venues.find((v: any) => v.id === venueId).phone, '');
  });

  it('write answers: the event is answered whole to its writer, a venue without its content unless in the edit context', async () => {
    const updated = await t.api.post(`/events/${protectedId}`, { as: 'admin', json: { excerpt: 'Secret excerpt 2' } });
    assert.equal(updated.status, 200);
    assert.match(updated.body.excerpt, /Secret excerpt 2/);
    const venue = await t.api.post(`/venues/${venueId}`, { as: 'admin', json: { city: 'Paris' } });
    assert.equal(venue.status, 200);
    assert.equal(venue.body.city, '');
    const edit = await t.api.post(`/venues/${venueId}`, { as: 'admin', json: { city: 'Lyon', context: 'edit' } });
    assert.equal(edit.body.city, 'Lyon');
  });
});

forEachStore('post passwords: the pages, feeds, CalDAV and embeds', (t: TestServer) => {
  const day = DateTime.utc().plus({ days: 16 }).toFormat('yyyy-MM-dd');
  const times = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC' };
  let protectedEvent: { id: number; url: string } = { id: 0, url: '' };
  let openEvent: { id: number; url: string } = { id: 0, url: '' };
  let venueUrl = '';

  const get = (url: string, headers: Record<string, string> = {}) => fetch(url.startsWith('http') ? url : `${t.origin}${url}`, { headers, redirect: 'manual' });
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body, redirect: 'manual' });
  const cookieFrom = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

  before(async () => {
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Hidden hall', address: '1 Secret street', city: 'Lyon', phone: '555 0101', password: 'venuepw' } });
    venueUrl = venue.body.url;
    const created = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Members only', description: 'The secret programme', cost: '25', categories: ['Jazz'], venue: venue.body.id, ...times, password: 'letmein' },
    });
    assert.equal(created.status, 201, created.text);
    protectedEvent = { id: created.body.id, url: created.body.url };
    const open = await t.api.post('/events', { as: 'admin', json: { title: 'Open night', description: 'Everyone welcome', ...times, venue: venue.body.id } });
    openEvent = { id: open.body.id, url: open.body.url };
  });

  it("a protected event's page shows WordPress' password form, never its content, and no shared cache keeps it", async () => {
    const res = await get(protectedEvent.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /private, no-store/);
    const page = await res.text();
    assert.match(page, /Protected: Members only/);
    assert.match(page, /<form action="[^"]+" class="post-password-form" method="post">/);
    assert.match(page, /This content is password protected\. To view it please enter your password below:/);
    assert.match(page, /<label for="pwbox-\d+">Password:<\/label> <input name="post_password"/);
    assert.ok(!page.includes('secret programme') && !page.includes('Secret street') && !page.includes('Jazz'), 'no protected content');
    assert.ok(!page.includes('role="alert"'), 'no error before a password was typed');
  });

  it('the form sets the wp-postpass cookie (an HMAC, not the password), and the page then shows the event; a wrong password shows the form again', async () => {
    const wrong = await post(protectedEvent.url, 'post_password=nope');
    assert.equal(wrong.status, 303);
    assert.equal(wrong.headers.get('location'), new URL(protectedEvent.url).pathname);
    const wrongCookie = cookieFrom(wrong);
    assert.match(wrongCookie, /^wp-postpass_[0-9a-f]{32}=[\w-]+$/);
    assert.match(wrong.headers.get('set-cookie')!, /HttpOnly/);
    assert.match(wrong.headers.get('set-cookie')!, /SameSite=Lax/);
    const again = await (await get(protectedEvent.url, { cookie: wrongCookie })).text();
    assert.match(again, /post-password-form/);
    assert.match(again, /role="alert"/);
    assert.ok(!again.includes('secret programme'));

    const right = await post(protectedEvent.url, 'post_password=letmein');
    const cookie = cookieFrom(right);
    assert.ok(!cookie.includes('letmein'), 'the cookie does not hold the password');
    const opened = await get(protectedEvent.url, { cookie });
    assert.equal(opened.status, 200);
    assert.match(opened.headers.get('cache-control') ?? '', /private, no-store/);
    const page = await opened.text();
    assert.match(page, /The secret programme/);
    assert.ok(!page.includes('post-password-form'));
    // The venue keeps its own password: its name only.
    assert.match(page, /Hidden hall/);
    assert.ok(!page.includes('Secret street'));
    // Neither page carries validators: no cached copy of one is ever answered for the other.
    assert.equal(opened.headers.get('etag'), null);
    assert.equal((await get(protectedEvent.url)).headers.get('etag'), null);
    // The feed of the event never shows protected content, cookie or not.
    const ics = await (await get(`${protectedEvent.url}?ical=1`, { cookie })).text();
    assert.match(ics, /DESCRIPTION:Content is protected\./);
    assert.ok(!ics.includes('secret programme'));
  });

  it('the lists, the feeds, the venue page, CalDAV and the embeds withhold the protected content', async () => {
    const list = await (await get('/events/list/')).text();
    assert.match(list, /Protected: Members only/);
    assert.ok(!list.includes('secret programme') && !list.includes('Secret street') && !list.includes('Lyon'), 'nothing protected in the list');
    assert.match(list, /Open night/);
    const feed = await (await get('/events.ics')).text();
    assert.match(feed, /SUMMARY:Members only/);
    assert.match(feed, /DESCRIPTION:Content is protected\./);
    assert.ok(!feed.includes('secret programme') && !feed.includes('Secret street'), feed);
    assert.match(feed, /DESCRIPTION:Everyone welcome/);
    const venuePage = await (await get(venueUrl)).text();
    assert.match(venuePage, /Hidden hall/);
    assert.ok(!venuePage.includes('Secret street') && !venuePage.includes('555 0101'));
    const dav = await get(`/dav/public/calendars/events/${protectedEvent.id}.ics`);
    assert.equal(dav.status, 200);
    const davText = await dav.text();
    assert.match(davText, /Content is protected\./);
    assert.ok(!davText.includes('secret programme'));
    const openDav = await (await get(`/dav/public/calendars/events/${openEvent.id}.ics`)).text();
    assert.ok(!openDav.includes('Secret street'), 'a protected venue is withheld from an open event too');
    const fc = await t.api.get(`/api/calendar/embed/v1/fullcalendar?start=${day}&end=${DateTime.fromISO(day).plus({ days: 1 }).toISODate()}`);
    assert.equal(fc.status, 200, fc.text);
    assert.ok(fc.text.includes('Members only'));
    assert.ok(!fc.text.includes('secret programme') && !fc.text.includes('Secret street') && !fc.text.includes('Lyon'), fc.text);
    const iframe = await (await get('/embed/')).text();
    assert.ok(!iframe.includes('secret programme') && !iframe.includes('Secret street'));
  });
});

forEachStore(
  'post passwords: federation',
  (t: TestServer) => {
    it('a protected event is not federated: its object answers 404, an open one 200', async () => {
      const day = DateTime.utc().plus({ days: 18 }).toFormat('yyyy-MM-dd');
      const times = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, timezone: 'UTC' };
      const hidden = await t.api.post('/events', { as: 'admin', json: { title: 'Secret gig', description: 'hush-hush programme', ...times, password: 'pw' } });
      const open = await t.api.post('/events', { as: 'admin', json: { title: 'Open gig', ...times } });
      const object = (id: number) => fetch(`${t.origin}/federation/events/${id}`, { headers: { accept: 'application/activity+json' } });
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await object(open.body.id)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, 'the open event is federated');
      assert.equal((await object(hidden.body.id)).status, 404);
      const page = await fetch(hidden.body.url, { headers: { accept: 'application/activity+json' } });
      assert.ok(!(await page.text()).includes('hush-hush'), 'no content negotiation gives it away');
    });
  },
  { FEDERATION: 'true', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true' },
);

forEachStore(
  'post passwords: webhooks',
  (t: TestServer) => {
    let r: Receiver;
    before(async () => {
      r = await startReceiver();
    });
    after(async () => {
      await r.close();
    });

    it('webhooks, which administrators set up, carry the full representation, never the password', async () => {
      const hook = await t.api.post('/api/calendar/admin/v1/webhooks', { as: 'admin', json: { url: r.url } });
      assert.equal(hook.status, 201, hook.text);
      r.secret = hook.body.secret;
      const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Hook hall', address: '3 Hook road', password: 'hallpw' } });
      const created = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'Hooked', description: 'Full programme', start_date: '2032-01-01 10:00:00', end_date: '2032-01-01 11:00:00', venue: venue.body.id, password: 'eventpw' },
      });
      const [m] = await r.waitFor((x) => x.body?.type === 'event.created' && x.body?.data?.id === created.body.id);
      assert.match(m!.body.data.description, /Full programme/);
      assert.equal(m!.body.data.venue.address, '3 Hook road');
      assert.ok(!m!.raw.includes('eventpw') && !m!.raw.includes('hallpw'), 'no password in a delivery');
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms', WEBHOOKS_TIMEOUT: '2s' },
);
