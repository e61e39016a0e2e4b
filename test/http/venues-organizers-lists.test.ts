/**
 * GET /venues and GET /organizers: envelope, paging, headers, visibility and the status filter,
 * search, and the event / has_events / only_with_upcoming filters (behavior.md §10.2).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { example, forEachStore, keysOf, shapeOf, type TestServer } from '../support/harness.js';

type Json = Record<string, any>;

async function create(t: TestServer, plural: 'venues' | 'organizers' | 'events', json: Json, as: string | null = 'admin'): Promise<Json> {
  const res = await t.api.post(`/${plural}`, { as, json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const ids = (items: Array<{ id: number }>) => items.map((i) => i.id).sort((a, b) => a - b);
const sorted = (...list: number[]) => [...list].sort((a, b) => a - b);

forEachStore('venue and organizer lists: envelope and paging', (t) => {
  let venues: Json[] = [];
  before(async () => {
    venues = [];
    for (const name of ['Alpha Hall', 'Beta Hall', 'Gamma Hall']) venues.push(await create(t, 'venues', { venue: name, city: 'Springfield' }));
  });

  it('an empty list is 200 with zero totals, as the original', async () => {
    const res = await t.api.get('/organizers');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { organizers: [], rest_url: `${t.base}/organizers/?page=1&per_page=10&status=publish`, total: 0, total_pages: 0 });
    assert.equal(res.headers.get('x-tec-total'), '0');
    assert.equal(res.headers.get('x-tec-totalpages'), '0');
  });

  it('has the envelope of 06b: keys, item shape, headers, rest_url', async () => {
    const ex = await example('06b-get-venues-list.json');
    const res = await t.api.get('/venues');
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), keysOf(ex.body));
    assert.deepEqual(shapeOf(res.body.venues[0]), {
      ...Object.fromEntries(Object.entries(shapeOf(ex.body.venues[0]) as Json).filter(([k]) => !['address', 'country', 'state', 'zip', 'phone', 'website', 'stateprovince'].includes(k))),
    });
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=publish`);
    assert.equal(res.body.total, 3);
    assert.equal(res.body.total_pages, 1);
    assert.equal(res.headers.get('x-tec-total'), '3');
    assert.equal(res.headers.get('x-tec-totalpages'), '1');
    assert.equal(res.headers.get('allow'), 'GET');
    assert.equal(
      res.body.venues.every((v: Json) => !('json_ld' in v)),
      true,
    );
  });

  it('orders by publication date, newest first', async () => {
    const res = await t.api.get('/venues');
    assert.deepEqual(
      res.body.venues.map((v: Json) => v.id),
      venues.map((v) => v.id).reverse(),
    );
  });

  it('pages with next_rest_url / previous_rest_url as the original', async () => {
    const p1 = await t.api.get('/venues', { query: { per_page: 2 } });
    assert.equal(p1.body.venues.length, 2);
    assert.deepEqual(keysOf(p1.body), ['venues', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    assert.equal(p1.body.rest_url, `${t.base}/venues/?page=1&per_page=2&status=publish`);
    assert.equal(p1.body.next_rest_url, `${t.base}/venues/?per_page=2&status=publish&page=2`);
    assert.equal(p1.body.total, 3);
    assert.equal(p1.body.total_pages, 2);
    assert.equal(p1.headers.get('x-tec-totalpages'), '2');
    const p2 = await t.api.get('/venues', { query: { per_page: 2, page: 2 } });
    assert.deepEqual(keysOf(p2.body), ['venues', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
    assert.equal(p2.body.venues.length, 1);
    assert.equal(p2.body.previous_rest_url, `${t.base}/venues/?per_page=2&status=publish`);
    const p3 = await t.api.get('/venues', { query: { per_page: 1, page: 3 } });
    assert.equal(p3.body.previous_rest_url, `${t.base}/venues/?per_page=1&status=publish&page=2`);
  });

  it('a page past the end is 404 *-archive-page-not-found, without X-TEC headers', async () => {
    const res = await t.api.get('/venues', { query: { per_page: 2, page: 3 } });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { code: 'venue-archive-page-not-found', message: 'The requested venue archive page does not exist', data: { status: 404 } });
    assert.equal(res.headers.get('x-tec-total'), null);
    const org = await t.api.get('/organizers', { query: { page: 2 } });
    assert.equal(org.status, 404);
    assert.deepEqual(org.body, { code: 'organizer-archive-page-not-found', message: 'The requested organizer archive page does not exist', data: { status: 404 } });
  });

  it('caps per_page at MAX_PER_PAGE and rejects bad paging values', async () => {
    const res = await t.api.get('/venues', { query: { per_page: 100 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=50&status=publish`);
    for (const query of [{ page: 0 }, { page: 'foo' }, { per_page: 0 }, { per_page: -3 }]) {
      const bad = await t.api.get('/venues', { query });
      assert.equal(bad.status, 400, JSON.stringify(query));
      assert.equal(bad.body.code, 'rest_invalid_param');
    }
  });
});

forEachStore(
  'venue and organizer lists: the per_page cap follows MAX_PER_PAGE',
  (t) => {
    it('clamps to the configured maximum', async () => {
      for (const name of ['One', 'Two', 'Three']) await create(t, 'organizers', { organizer: name });
      const res = await t.api.get('/organizers', { query: { per_page: 10 } });
      assert.equal(res.body.organizers.length, 2);
      assert.equal(res.body.total_pages, 2);
      assert.equal(res.body.rest_url, `${t.base}/organizers/?page=1&per_page=2&status=publish`);
    });
  },
  { MAX_PER_PAGE: '2' },
);

forEachStore('venue and organizer lists: visibility and status', (t) => {
  const v: Record<string, Json> = {};
  before(async () => {
    await t.user('contributor');
    await t.user('contributor', 'contrib2');
    await t.user('editor');
    v.pub = await create(t, 'venues', { venue: 'Published Venue' });
    v.draft = await create(t, 'venues', { venue: 'Admin Draft Venue', status: 'draft' });
    v.priv = await create(t, 'venues', { venue: 'Admin Private Venue', status: 'private' });
    v.own = await create(t, 'venues', { venue: 'Contributor Draft Venue' }, 'contributor');
    v.other = await create(t, 'venues', { venue: 'Contrib2 Draft Venue' }, 'contrib2');
    v.trashed = await create(t, 'venues', { venue: 'Trashed Venue' });
    assert.equal((await t.api.delete(`/venues/${v.trashed.id}`, { as: 'admin' })).status, 200);
  });

  it('anonymous users see published records only', async () => {
    const res = await t.api.get('/venues');
    assert.deepEqual(ids(res.body.venues), [v.pub.id]);
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=publish`);
    assert.equal((await t.api.get('/venues', { query: { status: 'publish' } })).status, 200);
  });

  it('anonymous users may not ask for other statuses', async () => {
    for (const status of ['draft', 'publish,draft', 'publish, draft', 'any']) {
      const res = await t.api.get('/venues', { query: { status } });
      assert.equal(res.status, 400, status);
      assert.deepEqual(res.body.data.params, { status: 'Invalid parameter.' });
    }
  });

  it('editors and administrators see every status but trash by default (status=any)', async () => {
    for (const as of ['admin', 'editor']) {
      const res = await t.api.get('/venues', { as });
      assert.deepEqual(ids(res.body.venues), sorted(v.pub.id, v.draft.id, v.priv.id, v.own.id, v.other.id), as);
      assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=any`);
    }
  });

  it("contributors see others' published records and their own (COMPAT 11)", async () => {
    const res = await t.api.get('/venues', { as: 'contributor' });
    assert.deepEqual(ids(res.body.venues), sorted(v.pub.id, v.own.id));
    assert.equal(res.body.total, 2);
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=any`);
    const drafts = await t.api.get('/venues', { as: 'contributor', query: { status: 'draft' } });
    assert.deepEqual(ids(drafts.body.venues), [v.own.id]);
  });

  it('the status filter takes a CSV or an array of known statuses', async () => {
    const drafts = await t.api.get('/venues', { as: 'admin', query: { status: 'draft' } });
    assert.deepEqual(ids(drafts.body.venues), sorted(v.draft.id, v.own.id, v.other.id));
    assert.equal(drafts.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=draft`);
    const two = await t.api.get('/venues', { as: 'admin', query: { status: 'publish, private' } });
    assert.deepEqual(ids(two.body.venues), sorted(v.pub.id, v.priv.id));
    assert.equal(two.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=publish,private`);
    const arr = await t.api.get('/venues', { as: 'admin', query: { status: ['private', 'draft'] } });
    assert.deepEqual(ids(arr.body.venues), sorted(v.priv.id, v.draft.id, v.own.id, v.other.id));
    const trash = await t.api.get('/venues', { as: 'admin', query: { status: 'trash' } });
    assert.deepEqual(ids(trash.body.venues), [v.trashed.id]);
    for (const status of ['foo', 'foo, bar, publish', 'any, foo']) {
      const bad = await t.api.get('/venues', { as: 'admin', query: { status } });
      assert.equal(bad.status, 400, status);
    }
    // `any` is the editors' default (an extension: the original's next_rest_url carries it, but it answered 400)
    const any = await t.api.get('/venues', { as: 'admin', query: { status: 'any' } });
    assert.deepEqual(ids(any.body.venues), ids((await t.api.get('/venues', { as: 'admin' })).body.venues));
    assert.equal(any.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=any`);
  });

  it('organizers follow the same rules', async () => {
    const pub = await create(t, 'organizers', { organizer: 'Public Org' });
    const draft = await create(t, 'organizers', { organizer: 'Draft Org', status: 'draft' });
    assert.deepEqual(ids((await t.api.get('/organizers')).body.organizers), [pub.id]);
    assert.deepEqual(ids((await t.api.get('/organizers', { as: 'editor' })).body.organizers), sorted(pub.id, draft.id));
    assert.deepEqual(ids((await t.api.get('/organizers', { as: 'contributor' })).body.organizers), [pub.id]);
    assert.equal((await t.api.get('/organizers', { query: { status: 'draft' } })).status, 400);
  });
});

forEachStore('venue and organizer lists: search', (t) => {
  const v: Record<string, Json> = {};
  const o: Record<string, Json> = {};
  before(async () => {
    v.eye = await create(t, 'venues', { venue: 'The Eye', city: 'London' });
    v.ben = await create(t, 'venues', { venue: 'Big Ben', address: 'Westminster, London', zip: '223345' });
    v.temple = await create(t, 'venues', { venue: 'Le Marais', address: '100, Avenue du Temple', city: 'Paris', province: 'Ile de France', country: 'France' });
    v.phone = await create(t, 'venues', { venue: 'Phone Box', phone: '3333333', zip: '223345' });
    v.desc = await create(t, 'venues', { venue: 'Hidden', description: 'A quiet gem of a place' });
    v.state = await create(t, 'venues', { venue: 'Stateside', state: 'Oregon' });
    o.a = await create(t, 'organizers', { organizer: 'Org A', phone: '555-1111', email: 'a@common.com' });
    o.b = await create(t, 'organizers', { organizer: 'Org B', phone: '1111-22', email: 'b@common.com', website: 'http://one.com' });
    o.c = await create(t, 'organizers', { organizer: 'Org C', website: 'http://two.com' });
  });

  it('finds venues by title, description and the venue fields the original searches', async () => {
    const cases: Array<[string, number[]]> = [
      ['london', [v.eye.id, v.ben.id]],
      ['LONDON', [v.eye.id, v.ben.id]],
      ['temple avenue', [v.temple.id]],
      ['france, ile de', [v.temple.id]],
      ['223345', [v.ben.id, v.phone.id]],
      ['3333333', [v.phone.id]],
      ['gem', [v.desc.id]],
      ['big', [v.ben.id]],
      ['oregon', [v.state.id]],
    ];
    for (const [search, expected] of cases) {
      const res = await t.api.get('/venues', { query: { search } });
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body.venues), sorted(...expected), search);
      assert.equal(res.body.total, expected.length, search);
      assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=publish`, 'search is not echoed');
    }
  });

  it('finds organizers by phone, e-mail and website', async () => {
    const cases: Array<[string, number[]]> = [
      ['1111', [o.a.id, o.b.id]],
      ['@common.com', [o.a.id, o.b.id]],
      ['http://one.com', [o.b.id]],
      ['org c', [o.c.id]],
    ];
    for (const [search, expected] of cases) {
      const res = await t.api.get('/organizers', { query: { search } });
      assert.deepEqual(ids(res.body.organizers), sorted(...expected), search);
    }
  });

  it('no match: an empty list whose totals count the list without the search (the original quirk)', async () => {
    const res = await t.api.get('/venues', { query: { search: 'zzzzzz' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.venues, []);
    assert.equal(res.body.total, 6);
    assert.equal(res.body.total_pages, 1);
    assert.equal(res.headers.get('x-tec-total'), '6');
  });

  it('an empty search is an invalid parameter', async () => {
    const res = await t.api.get('/venues', { query: { search: '' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.data.params, { search: 'Invalid parameter.' });
  });
});

forEachStore('venue and organizer lists: event, has_events, only_with_upcoming', (t) => {
  const v: Record<string, Json> = {};
  const o: Record<string, Json> = {};
  const e: Record<string, Json> = {};
  const event = (title: string, start: string, end: string, extra: Json = {}) => create(t, 'events', { title, start_date: start, end_date: end, ...extra });
  before(async () => {
    for (const k of ['future', 'draftOnly', 'none', 'past', 'hidden', 'ongoing', 'trashedEvent']) v[k] = await create(t, 'venues', { venue: `Venue ${k}` });
    for (const k of ['a', 'b', 'draftEvent', 'none']) o[k] = await create(t, 'organizers', { organizer: `Organizer ${k}` });
    o.draft = await create(t, 'organizers', { organizer: 'Organizer draft', status: 'draft' });
    e.future = await event('Future', '2099-01-01 10:00', '2099-01-01 12:00', { venue: v.future.id, organizer: [o.a.id, o.b.id, o.draft.id] });
    e.draft = await event('Draft', '2099-02-01 10:00', '2099-02-01 12:00', { venue: v.draftOnly.id, organizer: [o.draftEvent.id], status: 'draft' });
    e.past = await event('Past', '2020-01-01 10:00', '2020-01-01 12:00', { venue: v.past.id });
    e.hidden = await event('Hidden', '2099-03-01 10:00', '2099-03-01 12:00', { venue: v.hidden.id, hide_from_listings: true });
    e.ongoing = await event('Ongoing', '2020-01-01 10:00', '2099-12-31 12:00', { venue: v.ongoing.id });
    e.trashed = await event('Trashed', '2099-04-01 10:00', '2099-04-01 12:00', { venue: v.trashedEvent.id });
    assert.equal((await t.api.delete(`/events/${e.trashed.id}`, { as: 'admin' })).status, 200);
    e.bare = await event('Bare', '2099-05-01 10:00', '2099-05-01 12:00');
  });

  it('event: only the records linked to that event, whatever its status, if the caller may read it; echoed in rest_url', async () => {
    const res = await t.api.get('/venues', { query: { event: e.future.id } });
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res.body.venues), [v.future.id]);
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&event=${e.future.id}&status=publish`);
    const draftEvent = await t.api.get('/venues', { as: 'admin', query: { event: e.draft.id } });
    assert.deepEqual(ids(draftEvent.body.venues), [v.draftOnly.id]);
    // Issue 24: an event the caller may not read answers as an unknown one.
    const hidden = await t.api.get('/venues', { query: { event: e.draft.id } });
    assert.equal(hidden.status, 400);
    assert.deepEqual(Object.keys(hidden.body.data.params), ['event']);
    const orgs = await t.api.get('/organizers', { query: { event: e.future.id } });
    assert.deepEqual(ids(orgs.body.organizers), sorted(o.a.id, o.b.id), 'a draft organizer stays hidden from anonymous users');
    const orgsAdmin = await t.api.get('/organizers', { as: 'admin', query: { event: e.future.id } });
    assert.deepEqual(ids(orgsAdmin.body.organizers), sorted(o.a.id, o.b.id, o.draft.id));
    const none = await t.api.get('/organizers', { query: { event: e.bare.id } });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.organizers, []);
    assert.equal((await t.api.get('/venues', { query: { event: e.bare.id } })).body.total, 0);
  });

  it('event: an unknown id or the id of something else is 400 rest_invalid_param', async () => {
    for (const event of [999999, v.future.id, o.a.id, 'abc', 0]) {
      const res = await t.api.get('/venues', { query: { event } });
      assert.equal(res.status, 400, String(event));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), ['event']);
      assert.equal((await t.api.get('/organizers', { query: { event } })).status, 400);
    }
  });

  it('has_events: linked to an event that is not a draft or pending (trashed events count); echoed as sent', async () => {
    const yes = await t.api.get('/venues', { query: { has_events: 'true' } });
    assert.deepEqual(ids(yes.body.venues), sorted(v.future.id, v.past.id, v.hidden.id, v.ongoing.id, v.trashedEvent.id));
    assert.equal(yes.body.rest_url, `${t.base}/venues/?page=1&per_page=10&has_events=true&status=publish`);
    const no = await t.api.get('/venues', { query: { has_events: '0' } });
    assert.deepEqual(ids(no.body.venues), sorted(v.draftOnly.id, v.none.id));
    assert.equal(no.body.rest_url, `${t.base}/venues/?page=1&per_page=10&has_events=0&status=publish`);
    const orgs = await t.api.get('/organizers', { as: 'admin', query: { has_events: 1 } });
    assert.deepEqual(ids(orgs.body.organizers), sorted(o.a.id, o.b.id, o.draft.id));
    const orgsNone = await t.api.get('/organizers', { as: 'admin', query: { has_events: 'false' } });
    assert.deepEqual(ids(orgsNone.body.organizers), sorted(o.draftEvent.id, o.none.id));
  });

  it('only_with_upcoming: linked to a listed event that has not ended (ongoing ones count); not echoed', async () => {
    const res = await t.api.get('/venues', { query: { only_with_upcoming: 'true' } });
    assert.deepEqual(ids(res.body.venues), sorted(v.future.id, v.ongoing.id));
    assert.equal(res.body.rest_url, `${t.base}/venues/?page=1&per_page=10&status=publish`);
    const admin = await t.api.get('/venues', { as: 'admin', query: { only_with_upcoming: '1' } });
    assert.deepEqual(ids(admin.body.venues), sorted(v.future.id, v.ongoing.id, v.draftOnly.id), 'editors: draft events count, hidden and trashed ones do not');
    const off = await t.api.get('/venues', { query: { only_with_upcoming: 'false' } });
    assert.equal(off.body.total, 7);
    const orgs = await t.api.get('/organizers', { query: { only_with_upcoming: true } });
    assert.deepEqual(ids(orgs.body.organizers), sorted(o.a.id, o.b.id));
  });

  it('filters combine', async () => {
    const res = await t.api.get('/venues', { query: { has_events: 'true', only_with_upcoming: 'true', search: 'ongoing' } });
    assert.deepEqual(ids(res.body.venues), [v.ongoing.id]);
    const ev = await t.api.get('/organizers', { query: { event: e.future.id, search: 'organizer b' } });
    assert.deepEqual(ids(ev.body.organizers), [o.b.id]);
  });
});

forEachStore('venue and organizer lists: kept across event writes (issue 27)', (t) => {
  it('an event write does not recount a list that does not depend on events; a list filtered by events follows them; a venue write recounts', async () => {
    const alpha = await create(t, 'venues', { venue: 'Alpha Kept Hall' });
    const beta = await create(t, 'venues', { venue: 'Beta Kept Hall' });
    const org = await create(t, 'organizers', { organizer: 'Kept Organizer' });
    const title = async (id: number) => ((await t.api.get('/venues', { query: { per_page: 50 } })).body.venues as Json[]).find((v) => v.id === id)?.venue;
    assert.equal(await title(alpha.id), 'Alpha Kept Hall');
    const withEvents = async () => ids((await t.api.get('/venues', { query: { has_events: 'true' } })).body.venues);
    assert.deepEqual(await withEvents(), []);
    // Written behind the change log's back (on the server's own connection, no log row): a list
    // read again shows it only if it is counted again.
    await t.built.store.db.updateTable('posts').set({ title: 'Renamed behind the log' }).where('id', '=', alpha.id).execute();
    // An event with a venue, an organizer and a category, as the benchmark's creates.
    await create(t, 'events', {
      title: 'Kept lists',
      status: 'publish',
      start_date: '2031-05-01 10:00',
      end_date: '2031-05-01 12:00',
      venue: beta.id,
      organizer: [org.id],
      categories: ['Kept lists'],
    });
    assert.equal(await title(alpha.id), 'Alpha Kept Hall', 'the page kept across the event create');
    assert.equal((await t.api.get('/organizers')).body.total, 1);
    // A list filtered by events is kept for the data revision: it has the new event's venue.
    assert.deepEqual(await withEvents(), [beta.id]);
    // A venue write moves the lists' revision: counted again, the change behind the log shows.
    const updated = await t.api.post(`/venues/${beta.id}`, { as: 'admin', json: { city: 'Kept City' } });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(await title(alpha.id), 'Renamed behind the log');
    assert.equal(((await t.api.get('/venues', { query: { per_page: 50 } })).body.venues as Json[]).find((v) => v.id === beta.id)?.city, 'Kept City');
  });
});
