/**
 * GET /events: every parameter, the envelope, the paging URLs and headers.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { example, forEachStore, keysOf, shapeOf, type TestServer } from '../support/harness.js';

/** 'YYYY-MM-DD' n days from today (UTC). */
function day(n: number): string {
  return DateTime.utc().plus({ days: n }).toFormat('yyyy-MM-dd');
}

async function create(t: TestServer, fields: Record<string, unknown>): Promise<any> {
  const res = await t.api.post('/events', { as: 'admin', json: fields });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** The default window of the list, as rest_url shows it. */
const defaultWindow = () => {
  const start = DateTime.utc().minus({ days: 1 }).toFormat('yyyy-MM-dd') + ' 00:00:00';
  const end = DateTime.utc().plus({ months: 24 }).toFormat('yyyy-MM-dd') + ' 23:59:59';
  return { start, end };
};

forEachStore('event list (empty)', (t) => {
  it('answers an empty first page with 200 and zero totals', async () => {
    const res = await t.api.get('/events');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['events', 'rest_url', 'total', 'total_pages']);
    assert.deepEqual(res.body.events, []);
    assert.equal(res.body.total, 0);
    assert.equal(res.body.total_pages, 0);
    assert.equal(res.headers.get('x-tec-total'), '0');
    assert.equal(res.headers.get('x-tec-totalpages'), '0');
    const { start, end } = defaultWindow();
    assert.equal(res.body.rest_url, `${t.base}/events/?page=1&per_page=10&start_date=${start}&end_date=${end}&status=publish`);
    const admin = await t.api.get('/events', { as: 'admin' });
    assert.match(admin.body.rest_url, /&status=any$/);
  });
});

forEachStore('event list', (t) => {
  const ids: Record<string, number> = {};
  let catJazz = 0;
  let catMusic = 0;

  before(async () => {
    // Six published events, 1..6 days ahead, at 10:00; plus fixtures for the filters.
    for (let i = 1; i <= 6; i++) ids[`e${i}`] = (await create(t, { title: `Bulk Event ${i}`, start_date: `${day(i)} 10:00`, end_date: `${day(i)} 12:00` })).id;
    const music = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Music night', start_date: `${day(7)} 20:00`, end_date: `${day(7)} 23:00`, categories: ['Music'], tags: ['loud'], featured: true },
    });
    catMusic = music.body.categories[0].id;
    ids.music = music.body.id;
    const jazzCat = await t.built.services.store.db
      .insertInto('terms')
      .values({ taxonomy: 'tribe_events_cat', name: 'Jazz', slug: 'jazz', description: '', parent_id: catMusic, count: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    catJazz = Number(jazzCat.id);
    ids.jazz = (
      await create(t, {
        title: 'Jazz evening',
        description: 'Smooth saxophone',
        start_date: `${day(8)} 20:00`,
        end_date: `${day(8)} 22:00`,
        categories: [String(catJazz)],
        venue: { venue: 'Blue Note' },
        organizer: [{ organizer: 'Org A' }, { organizer: 'Org B' }],
      })
    ).id;
    ids.hidden = (await create(t, { title: 'Hidden one', start_date: `${day(9)} 10:00`, end_date: `${day(9)} 11:00`, hide_from_listings: true })).id;
    ids.draft = (await create(t, { title: 'Draft one', status: 'draft', start_date: `${day(9)} 10:00`, end_date: `${day(9)} 11:00` })).id;
    ids.past = (await create(t, { title: 'Long ago', start_date: '2020-03-01 10:00', end_date: '2020-03-01 11:00' })).id;
  });

  it('lists published events by start date with the recorded shape (examples/05)', async () => {
    const res = await t.api.get('/events');
    const recorded = await example('05-get-events-list.json');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), keysOf(recorded.body));
    assert.deepEqual(shapeOf(res.body.events[0]), shapeOf(recorded.body.events[0]));
    assert.deepEqual(
      res.body.events.map((e: { title: string }) => e.title),
      ['Bulk Event 1', 'Bulk Event 2', 'Bulk Event 3', 'Bulk Event 4', 'Bulk Event 5', 'Bulk Event 6', 'Music night', 'Jazz evening'],
    );
    assert.equal(res.body.total, 8);
    assert.equal(res.headers.get('x-tec-total'), '8');
    assert.equal(res.headers.get('x-tec-totalpages'), '1');
    assert.equal(res.body.events[0].json_ld, undefined);
    const jazz = res.body.events.find((e: { title: string }) => e.title === 'Jazz evening');
    assert.equal(jazz.venue.venue, 'Blue Note');
    assert.equal(jazz.organizer.length, 2);
  });

  it('pages with next and previous URLs (examples/05b)', async () => {
    const res = await t.api.get('/events', { query: { per_page: 2, page: 2 } });
    const { start, end } = defaultWindow();
    const enc = (s: string) => s.replace(/ /g, '+').replace(/:/g, '%3A');
    assert.equal(res.body.rest_url, `${t.base}/events/?page=2&per_page=2&start_date=${start}&end_date=${end}&status=publish`);
    assert.equal(res.body.next_rest_url, `${t.base}/events/?per_page=2&start_date=${enc(start)}&end_date=${enc(end)}&status=publish&page=3`);
    assert.equal(res.body.previous_rest_url, `${t.base}/events/?per_page=2&start_date=${enc(start)}&end_date=${enc(end)}&status=publish`);
    assert.deepEqual(keysOf(res.body), ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
    assert.equal(res.body.total, 8);
    assert.equal(res.body.total_pages, 4);
    assert.equal(res.headers.get('x-tec-totalpages'), '4');
    const third = await t.api.get('/events', { query: { per_page: 2, page: 3 } });
    assert.match(third.body.previous_rest_url, /&page=2$/);
    const last = await t.api.get('/events', { query: { per_page: 2, page: 4 } });
    assert.equal(last.body.next_rest_url, undefined);
    const follow = await t.api.get(res.body.next_rest_url);
    assert.equal(follow.status, 200);
    assert.deepEqual(
      follow.body.events.map((e: { id: number }) => e.id),
      third.body.events.map((e: { id: number }) => e.id),
    );
  });

  it('answers 404 past the last page (examples/05e) and validates page and per_page', async () => {
    const past = await t.api.get('/events', { query: { per_page: 1, page: 99 } });
    assert.equal(past.status, 404);
    assert.deepEqual(past.body, (await example('05e-get-events-list-page-out-of-range.json')).body);
    assert.equal(past.headers.get('x-tec-total'), null);
    for (const bad of ['0', '-1', 'foo', '1.5']) {
      const res = await t.api.get(`/events?page=${bad}`);
      assert.equal(res.status, 400, `page=${bad}`);
      assert.deepEqual(Object.keys(res.body.data.params), ['page']);
      const pp = await t.api.get(`/events?per_page=${bad}`);
      assert.equal(pp.status, 400, `per_page=${bad}`);
    }
    const capped = await t.api.get('/events', { query: { per_page: 100 } });
    assert.match(capped.body.rest_url, /[?&]per_page=50&/);
  });

  it('filters by date window, widened to whole days, on start and end', async () => {
    const res = await t.api.get('/events', { query: { start_date: `${day(2)} 12:00:00`, end_date: day(3) } });
    assert.deepEqual(
      res.body.events.map((e: { title: string }) => e.title),
      ['Bulk Event 2', 'Bulk Event 3'],
    );
    assert.match(res.body.rest_url, new RegExp(`start_date=${day(2)} 00:00:00&end_date=${day(3)} 23:59:59`));
    const old = await t.api.get('/events', { query: { start_date: '2020-01-01', end_date: '2020-12-31' } });
    assert.deepEqual(
      old.body.events.map((e: { title: string }) => e.title),
      ['Long ago'],
    );
    const natural = await t.api.get('/events', { query: { start_date: 'tomorrow', end_date: '+2 days' } });
    assert.deepEqual(
      natural.body.events.map((e: { title: string }) => e.title),
      ['Bulk Event 1', 'Bulk Event 2'],
    );
    const bad = await t.api.get('/events', { query: { start_date: 'before my birthday' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.data.params), ['start_date']);
  });

  it('searches title and description word by word', async () => {
    const res = await t.api.get('/events', { query: { search: 'jazz' } });
    assert.deepEqual(
      res.body.events.map((e: { title: string }) => e.title),
      ['Jazz evening'],
    );
    assert.match(res.body.rest_url, /&search=jazz&status=publish$/);
    const desc = await t.api.get('/events', { query: { search: 'SAXOPHONE smooth' } });
    assert.equal(desc.body.total, 1);
    const excluded = await t.api.get('/events', { query: { search: 'event -3' } });
    assert.equal(excluded.body.total, 5);
    assert.equal((await t.api.get('/events?search=')).status, 400);
  });

  it('filters by categories (ids, slugs, children included) and tags; unknown terms are 400 (examples/05d)', async () => {
    const bySlug = await t.api.get('/events', { query: { categories: 'music' } });
    assert.deepEqual(
      bySlug.body.events.map((e: { title: string }) => e.title),
      ['Music night', 'Jazz evening'],
    );
    assert.doesNotMatch(bySlug.body.rest_url, /categories/);
    const byId = await t.api.get('/events', { query: { categories: [catJazz] } });
    assert.deepEqual(
      byId.body.events.map((e: { title: string }) => e.title),
      ['Jazz evening'],
    );
    const csv = await t.api.get(`/events?categories=${catJazz},music`);
    assert.equal(csv.body.total, 2);
    const tags = await t.api.get('/events', { query: { tags: 'loud' } });
    assert.deepEqual(
      tags.body.events.map((e: { title: string }) => e.title),
      ['Music night'],
    );
    const both = await t.api.get('/events', { query: { tags: 'loud', categories: String(catJazz) } });
    assert.equal(both.body.total, 0, 'categories AND tags');
    const unknown = await t.api.get('/events', { query: { categories: 'no-such-category' } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(Object.keys(unknown.body.data.params), ['categories']);
    assert.equal((await t.api.get('/events', { query: { tags: ['nope'] } })).status, 400);
  });

  it('filters by several venues and organizers and echoes them after the rest (shapes §6.1.3)', async () => {
    const jazz = (await t.api.get(`/events/${ids.jazz}`)).body;
    const venueId = jazz.venue.id;
    const [orgA, orgB] = jazz.organizer.map((o: { id: number }) => o.id);
    const res = await t.api.get(`/events?venue=${venueId}&organizer=${orgA},${orgB}&featured=false`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.events.map((e: { title: string }) => e.title),
      ['Jazz evening'],
    );
    const { start, end } = defaultWindow();
    const enc = (s: string) => s.replace(/ /g, '+').replace(/:/g, '%3A');
    assert.equal(res.body.rest_url, `${t.base}/events/?page=1&per_page=10&start_date=${enc(start)}&end_date=${enc(end)}&status=publish&venue=${venueId}&organizer=${orgA},${orgB}`);
    const arrays = await t.api.get('/events', { query: { venue: [venueId], organizer: [orgB] } });
    assert.equal(arrays.body.total, 1);
    const unknownVenue = await t.api.get('/events', { query: { venue: '999999' } });
    assert.equal(unknownVenue.status, 400);
    assert.equal((await t.api.get('/events', { query: { organizer: 'foo' } })).status, 400);
    assert.equal((await t.api.get('/events', { query: { venue: String(orgA) } })).status, 400, 'an organizer id is not a venue');
  });

  it('filters by featured', async () => {
    const yes = await t.api.get('/events', { query: { featured: 'true' } });
    assert.deepEqual(
      yes.body.events.map((e: { title: string }) => e.title),
      ['Music night'],
    );
    assert.match(yes.body.rest_url, /&featured=1$/);
    const no = await t.api.get('/events', { query: { featured: '0' } });
    assert.equal(no.body.total, 7);
    assert.equal((await t.api.get('/events', { query: { featured: 'yes' } })).status, 400);
  });

  it('applies the status rules: anonymous may ask only for publish; editors for any status', async () => {
    assert.equal((await t.api.get('/events', { query: { status: 'publish' } })).status, 200);
    const anonDraft = await t.api.get('/events', { query: { status: 'draft' } });
    assert.equal(anonDraft.status, 400);
    assert.equal((await t.api.get('/events', { query: { status: 'publish, draft' } })).status, 400);
    const adminDrafts = await t.api.get('/events', { as: 'admin', query: { status: 'publish,draft' } });
    assert.equal(adminDrafts.status, 200);
    assert.ok(adminDrafts.body.events.some((e: { title: string }) => e.title === 'Draft one'));
    assert.match(adminDrafts.body.rest_url, /&status=publish,draft$/);
    const adminDefault = await t.api.get('/events', { as: 'admin' });
    assert.ok(
      adminDefault.body.events.some((e: { title: string }) => e.title === 'Draft one'),
      'status any',
    );
    assert.equal((await t.api.get('/events', { as: 'admin', query: { status: 'foo' } })).status, 400);
    // `any` (an extension: the original answers 400, yet links to it): the editors' default, echoed.
    const any = await t.api.get('/events', { as: 'admin', query: { status: 'any' } });
    assert.equal(any.status, 200);
    assert.deepEqual(any.body.events, adminDefault.body.events);
    assert.match(any.body.rest_url, /&status=any$/);
    const anyAndTrash = await t.api.get('/events', { as: 'admin', query: { status: 'any,trash' } });
    assert.equal(anyAndTrash.status, 200);
    assert.match(anyAndTrash.body.rest_url, /&status=any,trash$/);
    assert.equal((await t.api.get('/events', { query: { status: 'any' } })).status, 400);
    await t.user('contributor');
    const mine = await t.api.post('/events', { as: 'contributor', json: { title: 'Contributor draft', start_date: `${day(5)} 08:00`, end_date: `${day(5)} 09:00` } });
    assert.equal(mine.body.status, 'draft');
    const contributorView = await t.api.get('/events', { as: 'contributor' });
    const titles = contributorView.body.events.map((e: { title: string }) => e.title);
    assert.ok(titles.includes('Contributor draft'), 'own draft listed');
    assert.ok(!titles.includes('Draft one'), "others' drafts are not (COMPAT 11)");
  });

  it('validates geoloc parameters (issue 14: they filter; no venue here has coordinates)', async () => {
    const ok = await t.api.get('/events', { query: { geoloc: 1, geoloc_lat: 40.7, geoloc_lng: -74 } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.total, 0);
    assert.equal((await t.api.get('/events', { query: { geoloc: 0 } })).body.total, 8);
    assert.match(ok.body.rest_url, /&geoloc=1&geoloc_lat=40.7&geoloc_lng=-74&status=publish$/);
    assert.equal((await t.api.get('/events', { query: { geoloc: 'maybe' } })).status, 400);
    const lonely = await t.api.get('/events', { query: { geoloc_lat: 40.7 } });
    assert.equal(lonely.status, 400);
    assert.deepEqual(Object.keys(lonely.body.data.params), ['geoloc_lng']);
    assert.equal((await t.api.get('/events', { query: { geoloc_lat: 'north', geoloc_lng: 1 } })).status, 400);
  });

  it('lists included ids whatever their dates, never hidden ones (COMPAT 2, 12)', async () => {
    const res = await t.api.get(`/events?include=${ids.past},${ids.e2},${ids.hidden}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.events.map((e: { id: number }) => e.id).sort(), [ids.past, ids.e2].sort());
    assert.match(res.body.rest_url, new RegExp(`&status=publish&include=${ids.past},${ids.e2},${ids.hidden}$`));
    const arr = await t.api.get('/events', { query: { include: [ids.past, ids.e2] } });
    assert.equal(arr.body.total, 2);
    assert.equal((await t.api.get('/events?include=foo-bar,23')).status, 400);
    const hidden = await t.api.get(`/events/${ids.hidden}`);
    assert.equal(hidden.status, 200, 'hidden events stay readable by id');
    assert.equal(hidden.body.hide_from_listings, true);
  });

  it('filters by post_parent; a parent that is not an event is 400', async () => {
    const db = t.built.services.store.db;
    await db.updateTable('posts').set({ parent_id: ids.e1 }).where('id', 'in', [ids.e2, ids.e3]).execute();
    const res = await t.api.get('/events', { query: { post_parent: ids.e1 } });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.events.map((e: { id: number }) => e.id),
      [ids.e2, ids.e3],
    );
    assert.equal(res.body.total, 2);
    assert.match(res.body.rest_url, new RegExp(`&status=publish&post_parent=${ids.e1}$`));
    assert.equal((await t.api.get('/events', { query: { post_parent: 'foo-bar' } })).status, 400);
    assert.equal((await t.api.get('/events', { query: { post_parent: 999999 } })).status, 400);
    await db.updateTable('posts').set({ parent_id: 0 }).where('id', 'in', [ids.e2, ids.e3]).execute();
  });

  it('sends the WordPress headers, CORS on request, and answers OPTIONS with the route description', async () => {
    const res = await t.api.get('/events', { headers: { origin: 'https://widget.example' } });
    assert.equal(res.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.equal(res.headers.get('link'), `<${t.origin}/api/>; rel="https://api.w.org/"`);
    assert.equal(res.headers.get('x-robots-tag'), 'noindex');
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://widget.example');
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(res.headers.get('expires'), null, 'anonymous answers may be cached');
    const options = await t.api.request('OPTIONS', '/events');
    assert.equal(options.status, 200);
    assert.deepEqual(options.body.methods, ['GET', 'POST']);
    assert.deepEqual(Object.keys(options.body.endpoints[0].args).slice(0, 3), ['page', 'per_page', 'start_date']);
    const head = await t.api.request('HEAD', '/events');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  it('honours _fields, _envelope and the method override', async () => {
    const fields = await t.api.get(`/events/${ids.e1}?_fields=id,title`);
    assert.deepEqual(fields.body, { id: ids.e1, title: 'Bulk Event 1' });
    const env = await t.api.get('/events/999999?_envelope=1');
    assert.equal(env.status, 200);
    assert.equal(env.body.status, 404);
    assert.equal(env.body.body.code, 'rest-event-not-found');
    const override = await t.api.post(`/events/${ids.e6}`, { as: 'admin', headers: { 'x-http-method-override': 'DELETE' } });
    assert.equal(override.status, 200);
    assert.equal(override.body.status, 'trash');
  });
});
