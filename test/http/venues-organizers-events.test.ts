/**
 * Venues and organizers linked to events: one representation in both places, trashed records
 * shown as absent, visibility of embedded records, the event list's venue/organizer filters, and
 * the routes' entries in the namespace index.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { example, forEachStore, type TestServer } from '../support/harness.js';
import { recordedOnly } from '../support/added-args.js';

type Json = Record<string, any>;

async function create(t: TestServer, plural: 'venues' | 'organizers' | 'events', json: Json, as: string | null = 'admin'): Promise<Json> {
  const res = await t.api.post(`/${plural}`, { as, json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** The organizer json_ld e-mail is obfuscated at random (antispambot): compare without it. */
const stableOrganizer = (o: Json) => (o.json_ld ? { ...o, json_ld: { ...o.json_ld, email: o.json_ld.email ? 'obfuscated' : '' } } : o);

forEachStore('venues and organizers embedded in events', (t) => {
  let venue: Json;
  let org1: Json;
  let org2: Json;
  let event: Json;
  before(async () => {
    venue = await create(t, 'venues', {
      venue: 'Embedded Hall',
      description: 'Big room',
      address: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      country: 'US',
      zip: '62701',
      phone: '555',
      website: 'https://hall.example',
      image: 'https://img.example/hall.png',
      show_map_link: 'false',
    });
    org1 = await create(t, 'organizers', { organizer: 'First Org', email: 'first@example.com', phone: '1', website: 'https://first.example' });
    org2 = await create(t, 'organizers', { organizer: 'Second Org' });
    event = await create(t, 'events', { title: 'Linked Event', start_date: '2099-06-01 10:00', end_date: '2099-06-01 12:00', venue: venue.id, organizer: [org1.id, org2.id] });
  });

  it('the event embeds the same venue and organizer objects as their own routes (list context)', async () => {
    const venues = await t.api.get('/venues');
    const organizers = await t.api.get('/organizers');
    assert.deepEqual(
      event.venue,
      venues.body.venues.find((v: Json) => v.id === venue.id),
    );
    assert.deepEqual(
      event.organizer,
      [org1.id, org2.id].map((id) => organizers.body.organizers.find((o: Json) => o.id === id)),
    );
    const list = await t.api.get('/events', { query: { start_date: '2099-01-01', end_date: '2099-12-31' } });
    assert.deepEqual(list.body.events[0].venue, event.venue);
    assert.deepEqual(list.body.events[0].organizer, event.organizer);
  });

  it('a single event GET embeds the single forms (with json_ld), equal to GET /venues/{id} and /organizers/{id}', async () => {
    const single = await t.api.get(`/events/${event.id}`);
    assert.equal(single.status, 200);
    const v = await t.api.get(`/venues/${venue.id}`);
    assert.deepEqual(single.body.venue, v.body);
    assert.ok(single.body.venue.json_ld);
    const o1 = await t.api.get(`/organizers/${org1.id}`);
    const o2 = await t.api.get(`/organizers/${org2.id}`);
    assert.deepEqual(single.body.organizer.map(stableOrganizer), [o1.body, o2.body].map(stableOrganizer));
  });

  it('a venue or organizer update shows in the event', async () => {
    const res = await t.api.patch(`/venues/${venue.id}`, { as: 'admin', json: { city: 'Capital City', phone: '' } });
    assert.equal(res.status, 200);
    const ev = await t.api.get(`/events/${event.id}`, { as: 'admin' });
    assert.equal(ev.body.venue.city, 'Capital City');
    assert.equal('phone' in ev.body.venue, false);
    await t.api.put(`/organizers/${org2.id}`, { as: 'admin', json: { phone: '999' } });
    const ev2 = await t.api.get(`/events/${event.id}`);
    assert.equal(ev2.body.organizer[1].phone, '999');
  });

  it('an unpublished venue or organizer is absent from the event for those who may not read it', async () => {
    const draftOrg = await create(t, 'organizers', { organizer: 'Draft Embedded', status: 'draft' });
    const draftVenue = await create(t, 'venues', { venue: 'Draft Venue Embedded', status: 'draft' });
    const ev = await create(t, 'events', { title: 'With Draft Links', start_date: '2099-07-01 10:00', end_date: '2099-07-01 12:00', venue: draftVenue.id, organizer: [org1.id, draftOrg.id] });
    const anon = await t.api.get(`/events/${ev.id}`);
    assert.deepEqual(anon.body.venue, []);
    assert.deepEqual(
      anon.body.organizer.map((o: Json) => o.id),
      [org1.id],
    );
    const admin = await t.api.get(`/events/${ev.id}`, { as: 'admin' });
    assert.equal(admin.body.venue.id, draftVenue.id);
    assert.deepEqual(
      admin.body.organizer.map((o: Json) => o.id),
      [org1.id, draftOrg.id],
    );
  });

  it('trashing a venue or an organizer unlinks it: the event shows it as absent', async () => {
    const v = await create(t, 'venues', { venue: 'Doomed Hall' });
    const keep = await create(t, 'organizers', { organizer: 'Keeper Org' });
    const doomed = await create(t, 'organizers', { organizer: 'Doomed Org' });
    const ev = await create(t, 'events', { title: 'Losing Links', start_date: '2099-08-01 10:00', end_date: '2099-08-01 12:00', venue: v.id, organizer: [doomed.id, keep.id] });
    assert.equal(ev.venue.id, v.id);
    assert.equal((await t.api.delete(`/venues/${v.id}`, { as: 'admin' })).status, 200);
    assert.equal((await t.api.delete(`/organizers/by-slug/${doomed.slug}`, { as: 'admin' })).status, 200);
    for (const as of [null, 'admin']) {
      const after = await t.api.get(`/events/${ev.id}`, { as });
      assert.deepEqual(after.body.venue, [], String(as));
      assert.deepEqual(
        after.body.organizer.map((o: Json) => o.id),
        [keep.id],
        String(as),
      );
      assert.equal('location' in after.body.json_ld, false);
    }
    const venues = await t.api.get('/venues', { as: 'admin', query: { event: ev.id } });
    assert.deepEqual(venues.body.venues, []);
    const organizers = await t.api.get('/organizers', { as: 'admin', query: { event: ev.id } });
    assert.deepEqual(
      organizers.body.organizers.map((o: Json) => o.id),
      [keep.id],
    );
  });

  it('an event created with an inline venue reuses an existing one by name (duplicate avoidance)', async () => {
    const ev = await create(t, 'events', { title: 'Inline', start_date: '2099-09-01 10:00', end_date: '2099-09-01 12:00', venue: { venue: 'embedded hall' }, organizer: [{ organizer: 'First Org' }] });
    assert.equal(ev.venue.id, venue.id);
    assert.deepEqual(
      ev.organizer.map((o: Json) => o.id),
      [org1.id],
    );
  });
});

forEachStore('event list filtered by several venues and organizers', (t) => {
  const v: Json[] = [];
  const o: Json[] = [];
  const e: Record<string, Json> = {};
  const range = { start_date: '2099-01-01', end_date: '2099-12-31' };
  const titles = (res: { body: Json }) => res.body.events.map((x: Json) => x.title).sort();
  before(async () => {
    for (const n of [1, 2, 3]) v.push(await create(t, 'venues', { venue: `Filter Venue ${n}` }));
    for (const n of [1, 2, 3]) o.push(await create(t, 'organizers', { organizer: `Filter Org ${n}` }));
    const ev = (title: string, month: string, extra: Json) => create(t, 'events', { title, start_date: `2099-${month}-01 10:00`, end_date: `2099-${month}-01 11:00`, ...extra });
    e.a = await ev('A', '01', { venue: v[0].id, organizer: [o[0].id] });
    e.b = await ev('B', '02', { venue: v[1].id, organizer: [o[1].id, o[2].id] });
    e.c = await ev('C', '03', { venue: v[2].id });
    e.d = await ev('D', '04', { organizer: [o[2].id] });
  });

  it('venue[] and a venue CSV select events at any of the venues', async () => {
    const arr = await t.api.get('/events', { query: { ...range, venue: [v[0].id, v[1].id] } });
    assert.equal(arr.status, 200);
    assert.deepEqual(titles(arr), ['A', 'B']);
    const csv = await t.api.get('/events', { query: { ...range, venue: `${v[0].id},${v[2].id}` } });
    assert.deepEqual(titles(csv), ['A', 'C']);
    const one = await t.api.get('/events', { query: { ...range, venue: v[1].id } });
    assert.deepEqual(titles(one), ['B']);
  });

  it('organizer[] and an organizer CSV select events with any of the organizers', async () => {
    const arr = await t.api.get('/events', { query: { ...range, organizer: [o[0].id, o[2].id] } });
    assert.deepEqual(titles(arr), ['A', 'B', 'D']);
    const csv = await t.api.get('/events', { query: { ...range, organizer: `${o[1].id}` } });
    assert.deepEqual(titles(csv), ['B']);
  });

  it('venue and organizer filters combine (both must match); rest_url appends them as CSV', async () => {
    const res = await t.api.get('/events', { query: { ...range, venue: [v[0].id, v[1].id], organizer: [o[2].id] } });
    assert.deepEqual(titles(res), ['B']);
    assert.ok(res.body.rest_url.endsWith(`&venue=${v[0].id},${v[1].id}&organizer=${o[2].id}`), res.body.rest_url);
    assert.match(res.body.rest_url, /start_date=2099-01-01\+00%3A00%3A00/);
  });

  it('unknown ids, or ids of the other kind, are 400', async () => {
    for (const query of [{ venue: 999999 }, { venue: `${v[0].id},${o[0].id}` }, { organizer: [o[0].id, v[0].id] }, { organizer: 'abc' }]) {
      const res = await t.api.get('/events', { query: { ...range, ...query } });
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), Object.keys(query));
    }
  });
});

forEachStore('venue and organizer routes in the namespace index', (t) => {
  it('come after the events routes in the original order, with the original args', async () => {
    const res = await t.api.get('');
    assert.equal(res.status, 200);
    const ns = '/calendar/events/v1';
    const keys = Object.keys(res.body.routes);
    const expected = [
      `${ns}/events/by-slug/(?P<slug>[^/]+)`,
      `${ns}/venues`,
      `${ns}/venues/(?P<id>\\d+)`,
      `${ns}/venues/by-slug/(?P<slug>[^/]+)`,
      `${ns}/organizers`,
      `${ns}/organizers/(?P<id>\\d+)`,
      `${ns}/organizers/by-slug/(?P<slug>[^/]+)`,
    ];
    const start = keys.indexOf(expected[0]);
    assert.ok(start >= 0);
    assert.deepEqual(keys.slice(start, start + expected.length), expected);

    const ref = (await example('01-get-namespace-index.json')).body.routes;
    for (const path of expected.slice(1)) {
      const ours = res.body.routes[path];
      const theirs = ref[path.replace('calendar/events/v1', 'tribe/events/v1')];
      assert.deepEqual(ours.methods, theirs.methods, path);
      assert.equal(ours.endpoints.length, theirs.endpoints.length, path);
      ours.endpoints.forEach((endpoint: Json, i: number) => {
        const want = theirs.endpoints[i];
        assert.deepEqual(endpoint.methods, want.methods, path);
        assert.deepEqual(recordedOnly(Object.keys(endpoint.args), Object.keys(want.args)), Object.keys(want.args), `${path} ${want.methods}`);
        for (const [name, spec] of Object.entries(want.args as Record<string, Json>)) {
          // Same keywords, values and keyword order as the reference lists them.
          assert.deepEqual(Object.entries(endpoint.args[name]), Object.entries(spec), `${path} ${want.methods} ${name}`);
        }
      });
      assert.equal('_links' in ours, '_links' in theirs, path);
    }
  });
});

forEachStore('venue and organizer author assignment', (t) => {
  before(async () => {
    await t.user('contributor');
    await t.user('editor');
  });

  it('naming another user as author needs edit_others (403 otherwise); naming oneself is fine', async () => {
    const contributor = await t.user('contributor', 'contrib-author');
    const res = await t.api.post('/venues', { as: 'contributor', json: { venue: 'Not Mine', author: 1 } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'rest_forbidden');
    const self = await t.api.post('/organizers', { as: 'contrib-author', json: { organizer: 'Mine', author: contributor.id } });
    assert.equal(self.status, 201);
    assert.equal(self.body.author, String(contributor.id));
    const upd = await t.api.patch(`/organizers/${self.body.id}`, { as: 'contrib-author', json: { author: 1 } });
    assert.equal(upd.status, 403);
    const editor = await t.api.post('/venues', { as: 'editor', json: { venue: 'For Contributor', author: contributor.id } });
    assert.equal(editor.status, 201);
    assert.equal(editor.body.author, String(contributor.id));
  });
});
