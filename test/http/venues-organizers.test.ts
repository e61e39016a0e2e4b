/**
 * Venue and organizer item routes and create: wire shapes against the recorded exchanges (06*, 07*),
 * every write field, partial updates, trash, not-found answers, permissions and visibility.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { example, forEachStore, keysOf, shapeOf, type TestServer } from '../support/harness.js';

const VENUE_06 = {
  venue: 'Riverside Park Bandstand',
  address: '1 River Rd',
  city: 'Springfield',
  country: 'United States',
  state: 'IL',
  zip: '62701',
  phone: '+1 555 0100',
  website: 'https://example.com/riverside',
};
const ORGANIZER_07 = { organizer: 'Springfield Jazz Society', phone: '+1 555 0111', website: 'https://example.com/sjs', email: 'info@example.com' };

async function create(t: TestServer, plural: 'venues' | 'organizers', json: Record<string, unknown>, as: string | null = 'admin') {
  const res = await t.api.post(`/${plural}`, { as, json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Record<string, any>;
}

forEachStore('venues: shapes of the recorded exchanges', (t) => {
  it('POST /venues answers 201 with the shape of 06c', async () => {
    const ex = await example('06c-post-venue.json');
    const res = await t.api.post('/venues', { as: 'admin', json: ex.request.body });
    assert.equal(res.status, 201);
    assert.deepEqual(shapeOf(res.body), shapeOf(ex.body));
    assert.equal(res.body.venue, 'Town Hall');
    assert.equal(res.body.slug, 'town-hall');
    assert.equal(res.body.url, `${t.origin}/venue/town-hall/`);
    assert.equal(res.body.global_id, `127.0.0.1?id=${res.body.id}`);
    assert.deepEqual(res.body.global_id_lineage, [res.body.global_id]);
    assert.equal(res.body.author, '1');
    assert.equal(res.headers.get('allow'), 'GET, POST');
  });

  it('GET /venues/{id} has the shape of 06 (json_ld on single GET only)', async () => {
    const ex = await example('06-get-venue-single.json');
    const created = await create(t, 'venues', VENUE_06);
    assert.equal(created.json_ld, undefined);
    const res = await t.api.get(`/venues/${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(shapeOf(res.body), shapeOf(ex.body));
    assert.deepEqual(res.body.json_ld, { ...ex.body.json_ld });
    assert.equal(res.body.stateprovince, 'IL');
    assert.equal(res.headers.get('allow'), 'GET');
    const bySlug = await t.api.get(`/venues/by-slug/${created.slug}`);
    assert.equal(bySlug.status, 200);
    assert.deepEqual(bySlug.body, res.body);
  });

  it('GET /venues/999999 answers 400 as 06d, also for writes by anonymous callers', async () => {
    const ex = await example('06d-get-venue-nonexistent.json');
    const res = await t.api.get('/venues/999999');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, ex.body);
    assert.equal(res.headers.get('allow'), 'GET');
    for (const method of ['DELETE', 'PUT', 'PATCH', 'POST'] as const) {
      const w = await t.api.request(method, '/venues/999999', { json: { city: 'x' } });
      assert.equal(w.status, 400, method);
      assert.deepEqual(w.body.data.params, { id: 'Invalid parameter.' });
    }
  });

  it('an organizer id on a venue route, and an unknown slug, are invalid parameters', async () => {
    const org = await create(t, 'organizers', { organizer: 'Not A Venue' });
    const res = await t.api.get(`/venues/${org.id}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.data.params, { id: 'Invalid parameter.' });
    const slug = await t.api.get('/venues/by-slug/no-such-venue');
    assert.equal(slug.status, 400);
    assert.deepEqual(slug.body.data.params, { slug: 'Invalid parameter.' });
    const del = await t.api.delete('/organizers/by-slug/no-such-organizer');
    assert.equal(del.status, 400);
    assert.deepEqual(del.body.data.params, { slug: 'Invalid parameter.' });
  });

  it('a non-numeric id is no route (404 rest_no_route)', async () => {
    const res = await t.api.get('/venues/foo');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'rest_no_route');
    const org = await t.api.get('/organizers/foo');
    assert.equal(org.status, 404);
    assert.equal(org.body.code, 'rest_no_route');
  });
});

forEachStore('organizers: shapes of the recorded exchanges', (t) => {
  it('POST /organizers answers 201 with the shape of 07c', async () => {
    const ex = await example('07c-post-organizer.json');
    const res = await t.api.post('/organizers', { as: 'admin', json: ex.request.body });
    assert.equal(res.status, 201);
    assert.deepEqual(shapeOf(res.body), shapeOf(ex.body));
    assert.equal(res.body.email, 'events@example.com');
    assert.equal(res.body.url, `${t.origin}/organizer/town-events-office/`);
    assert.equal(res.headers.get('allow'), 'GET, POST');
  });

  it('GET /organizers/{id} has the shape of 07, json_ld email obfuscated, plain email', async () => {
    const ex = await example('07-get-organizer-single.json');
    const created = await create(t, 'organizers', ORGANIZER_07);
    const res = await t.api.get(`/organizers/${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(shapeOf(res.body), shapeOf(ex.body));
    assert.equal(res.body.email, 'info@example.com');
    assert.equal(res.body.json_ld.url, 'https://example.com/sjs');
    assert.notEqual(res.body.json_ld.email, 'info@example.com');
    assert.match(res.body.json_ld.email, /&#/);
    // The json_ld e-mail is obfuscated at random (WordPress' antispambot), so leave it out.
    const bySlug = await t.api.get('/organizers/by-slug/springfield-jazz-society');
    const withoutEmail = (b: any) => ({ ...b, json_ld: { ...b.json_ld, email: '' } });
    assert.deepEqual(withoutEmail(bySlug.body), withoutEmail(res.body));
  });

  it('GET /organizers/999999 answers 400 rest_invalid_param params.id', async () => {
    const res = await t.api.get('/organizers/999999');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.deepEqual(res.body.data, { status: 400, params: { id: 'Invalid parameter.' }, details: [] });
  });
});

forEachStore('venues and organizers: create', (t) => {
  it('requires the name (missing → rest_missing_callback_param, empty → rest_invalid_param)', async () => {
    const v = await t.api.post('/venues', { as: 'admin', json: { city: 'Paris' } });
    assert.equal(v.status, 400);
    assert.deepEqual(v.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): venue', data: { status: 400, params: ['venue'] } });
    const o = await t.api.post('/organizers', { as: 'admin', json: {} });
    assert.equal(o.status, 400);
    assert.equal(o.body.message, 'Missing parameter(s): organizer');
    const empty = await t.api.post('/venues', { as: 'admin', json: { venue: '' } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(empty.body.data.params), ['venue']);
    // Validation runs before the permission check.
    const anon = await t.api.post('/venues', { json: {} });
    assert.equal(anon.status, 400);
  });

  it('stores every venue field, in the wire order of shapes.md §3', async () => {
    const body = await create(t, 'venues', {
      venue: 'Full Venue',
      description: 'A <b>big</b> hall',
      address: '10 Queen St',
      city: 'Toronto',
      country: 'Canada',
      province: 'Ontario',
      state: 'ON',
      zip: 'M5H 2N2',
      phone: '555-0000',
      website: 'https://full.example',
      image: 'https://img.example/full.png',
      show_map: 'false',
      show_map_link: '1',
    });
    assert.deepEqual(keysOf(body), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'description',
      'slug',
      'image',
      'address',
      'city',
      'country',
      'province',
      'state',
      'zip',
      'phone',
      'website',
      'stateprovince',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(body.description, '<p>A <b>big</b> hall</p>');
    assert.equal(body.stateprovince, 'Ontario', 'non-US: the province');
    assert.equal(body.show_map, false);
    assert.equal(body.show_map_link, true);
    assert.equal(body.image.url, 'https://img.example/full.png');
    assert.equal(body.website, 'https://full.example');
  });

  it('derives stateprovince: state for the US or no country, else the province; an explicit one wins', async () => {
    const us = await create(t, 'venues', { venue: 'SP US', state: 'CA', country: 'US' });
    assert.equal(us.stateprovince, 'CA');
    const none = await create(t, 'venues', { venue: 'SP None', state: 'TX' });
    assert.equal(none.stateprovince, 'TX');
    const fr = await create(t, 'venues', { venue: 'SP FR', state: 'X', province: 'Île-de-France', country: 'France' });
    assert.equal(fr.stateprovince, 'Île-de-France');
    const explicit = await create(t, 'venues', { venue: 'SP Explicit', state: 'CA', country: 'US', stateprovince: 'California' });
    assert.equal(explicit.stateprovince, 'California');
    const empty = await create(t, 'venues', { venue: 'SP Empty', country: 'United States' });
    assert.equal(empty.stateprovince, undefined);
  });

  it('show_map/show_map_link default to true and are strings (a JSON boolean is a type error)', async () => {
    const plain = await create(t, 'venues', { venue: 'Map Default' });
    assert.equal(plain.show_map, true);
    assert.equal(plain.show_map_link, true);
    const bad = await t.api.post('/venues', { as: 'admin', json: { venue: 'Map Bool', show_map: false } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.data.params.show_map, 'show_map is not of type string.');
    assert.equal(bad.body.data.details.show_map.code, 'rest_invalid_type');
  });

  it('validates website, image, author, date and status, all failures at once', async () => {
    const res = await t.api.post('/venues', {
      as: 'admin',
      json: { venue: 'Bad', website: 'not a url', image: 'nope', author: 999, date: 'not a date', status: 'bogus' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.data.params), ['author', 'date', 'status', 'website', 'image']);
    const org = await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Bad', website: 'ftp//x', date_utc: 'never' } });
    assert.equal(org.status, 400);
    assert.deepEqual(Object.keys(org.body.data.params), ['date_utc', 'website']);
  });

  it('stores every organizer field (email an address: issue 24), date and author', async () => {
    const editor = await t.user('editor');
    const body = await create(t, 'organizers', {
      organizer: 'Full Org',
      description: 'Organizes',
      phone: '555-1111',
      website: 'https://org.example',
      email: 'full.org@example.org',
      image: 'https://img.example/org.jpg',
      date: '2026-01-02 03:04:05',
      author: editor.id,
    });
    assert.deepEqual(keysOf(body), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'slug',
      'image',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(body.email, 'full.org@example.org');
    assert.equal(body.date, '2026-01-02 03:04:05');
    assert.equal(body.date_utc, '2026-01-02 03:04:05');
    assert.equal(body.author, String(editor.id));
  });

  it('accepts form-encoded bodies', async () => {
    const res = await t.api.post('/venues', { as: 'admin', form: { venue: 'Form Hall', city: 'Lyon', show_map: '0' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.city, 'Lyon');
    assert.equal(res.body.show_map, false);
  });

  it('avoids duplicates: the same name (any case) returns the existing record, 201, with the new fields', async () => {
    const first = await create(t, 'venues', { venue: 'Dup Hall', city: 'Rome' });
    const again = await create(t, 'venues', { venue: 'DUP hall', phone: '123' });
    assert.equal(again.id, first.id);
    assert.equal(again.venue, 'Dup Hall');
    assert.equal(again.city, 'Rome');
    assert.equal(again.phone, '123');
    const org = await create(t, 'organizers', { organizer: 'Dup Org', description: 'one' });
    const other = await create(t, 'organizers', { organizer: 'Dup Org', description: 'two' });
    assert.notEqual(other.id, org.id, 'a different description is another organizer');
  });

  it('does not let a contributor rewrite a record they cannot edit through duplicate avoidance', async () => {
    await t.user('contributor', 'dupcontrib');
    const admins = await create(t, 'venues', { venue: 'Guarded Hall', city: 'Oslo' });
    const res = await t.api.post('/venues', { as: 'dupcontrib', json: { venue: 'Guarded Hall', city: 'Hacked' } });
    assert.equal(res.status, 201);
    const after = await t.api.get(`/venues/${admins.id}`);
    assert.equal(after.body.city, 'Oslo');
  });
});

forEachStore('venues and organizers: permissions and status on write', (t) => {
  before(async () => {
    await t.user('subscriber');
    await t.user('contributor');
    await t.user('author');
    await t.user('editor');
  });

  it('create: anonymous 401, subscriber 403, contributor and up allowed', async () => {
    for (const plural of ['venues', 'organizers'] as const) {
      const name = plural === 'venues' ? 'venue' : 'organizer';
      const anon = await t.api.post(`/${plural}`, { json: { [name]: 'Anon' } });
      assert.equal(anon.status, 401);
      assert.equal(anon.body.code, 'rest_forbidden');
      const sub = await t.api.post(`/${plural}`, { as: 'subscriber', json: { [name]: 'Sub' } });
      assert.equal(sub.status, 403);
      assert.equal(sub.body.code, 'rest_forbidden');
      assert.equal((await t.api.post(`/${plural}`, { as: 'contributor', json: { [name]: `Contrib ${plural}` } })).status, 201);
    }
  });

  it('status is scaled back: contributors get draft by default and pending for publish; authors publish', async () => {
    const draft = await create(t, 'venues', { venue: 'Contrib Default' }, 'contributor');
    assert.equal(draft.status, 'draft');
    assert.equal(draft.date_utc, '0000-00-00 00:00:00');
    const pending = await create(t, 'organizers', { organizer: 'Contrib Publish', status: 'publish' }, 'contributor');
    assert.equal(pending.status, 'pending');
    const published = await create(t, 'venues', { venue: 'Author Venue' }, 'author');
    assert.equal(published.status, 'publish');
    const adminDraft = await create(t, 'venues', { venue: 'Admin Draft', status: 'draft' });
    assert.equal(adminDraft.status, 'draft');
  });

  it('update and delete need edit_post/delete_post on the record, by id and by slug alike', async () => {
    const admins = await create(t, 'venues', { venue: 'Admin Owned' });
    const own = await create(t, 'venues', { venue: 'Contributor Owned' }, 'contributor');
    const anon = await t.api.patch(`/venues/${admins.id}`, { json: { city: 'x' } });
    assert.equal(anon.status, 401);
    assert.equal((await t.api.delete(`/venues/${admins.id}`)).status, 401);
    assert.equal((await t.api.patch(`/venues/${admins.id}`, { as: 'contributor', json: { city: 'x' } })).status, 403);
    assert.equal((await t.api.delete(`/venues/${admins.id}`, { as: 'contributor' })).status, 403);
    // COMPAT 3: by-slug writes check the record, not only the type capability.
    assert.equal((await t.api.put(`/venues/by-slug/${admins.slug}`, { as: 'contributor', json: { city: 'x' } })).status, 403);
    assert.equal((await t.api.delete(`/venues/by-slug/${admins.slug}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.api.put(`/venues/by-slug/${admins.slug}`, { as: 'author', json: { city: 'x' } })).status, 403);
    const mine = await t.api.patch(`/venues/${own.id}`, { as: 'contributor', json: { city: 'Mine' } });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.city, 'Mine');
    const edited = await t.api.put(`/venues/by-slug/${admins.slug}`, { as: 'editor', json: { city: 'Edited' } });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.city, 'Edited');
    assert.equal((await t.api.delete(`/venues/${own.id}`, { as: 'contributor' })).status, 200);
  });

  it('the same rules hold for organizers', async () => {
    const admins = await create(t, 'organizers', { organizer: 'Admin Org' });
    assert.equal((await t.api.patch(`/organizers/${admins.id}`, { as: 'contributor', json: { phone: '1' } })).status, 403);
    assert.equal((await t.api.delete(`/organizers/by-slug/${admins.slug}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.api.delete(`/organizers/${admins.id}`, { as: 'subscriber' })).status, 403);
    assert.equal((await t.api.patch(`/organizers/${admins.id}`, { as: 'editor', json: { phone: '1' } })).status, 200);
  });

  it('Allow lists the methods the caller may use on the record', async () => {
    const admins = await create(t, 'venues', { venue: 'Allow Venue' });
    assert.equal((await t.api.get(`/venues/${admins.id}`, { as: 'admin' })).headers.get('allow'), 'GET, DELETE, POST, PUT, PATCH');
    assert.equal((await t.api.get(`/venues/${admins.id}`, { as: 'contributor' })).headers.get('allow'), 'GET');
    assert.equal((await t.api.get('/organizers', { as: 'contributor' })).headers.get('allow'), 'GET, POST');
    assert.equal((await t.api.get('/organizers', { as: 'subscriber' })).headers.get('allow'), 'GET');
  });

  it('single reads: unpublished records answer 403 *-not-accessible to those who may not read them', async () => {
    const draft = await create(t, 'venues', { venue: 'Secret Draft', status: 'draft' });
    const anon = await t.api.get(`/venues/${draft.id}`);
    assert.equal(anon.status, 403);
    assert.deepEqual(anon.body, { code: 'venue-not-accessible', message: 'The requested venue is not accessible', data: { status: 403 } });
    assert.equal((await t.api.get(`/venues/by-slug/${draft.slug}`)).status, 403);
    assert.equal((await t.api.get(`/venues/${draft.id}`, { as: 'contributor' })).status, 403);
    assert.equal((await t.api.get(`/venues/${draft.id}`, { as: 'editor' })).status, 200);
    const own = await create(t, 'organizers', { organizer: 'Own Draft Org' }, 'contributor');
    assert.equal((await t.api.get(`/organizers/${own.id}`, { as: 'contributor' })).status, 200);
    const anonOrg = await t.api.get(`/organizers/${own.id}`);
    assert.equal(anonOrg.status, 403);
    assert.equal(anonOrg.body.code, 'organizer-not-accessible');
    assert.equal(anonOrg.body.message, 'The requested organizer is not accessible');
  });
});

forEachStore('venues and organizers: partial updates', (t) => {
  it('changes only the fields sent (COMPAT 1), keeps image, flags and stateprovince', async () => {
    const v = await create(t, 'venues', { ...VENUE_06, venue: 'Patch Venue', image: 'https://img.example/p.png', show_map: '0' });
    const res = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { city: 'Shelbyville' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.json_ld, undefined);
    const { city, modified, modified_utc, ...rest } = res.body;
    const { city: _c, modified: _m, modified_utc: _mu, ...before } = v;
    assert.equal(city, 'Shelbyville');
    assert.deepEqual(rest, before);
    for (const method of ['POST', 'PUT'] as const) {
      const r = await t.api.request(method, `/venues/${v.id}`, { as: 'admin', json: { zip: method === 'POST' ? '11111' : '22222' } });
      assert.equal(r.status, 200);
      assert.equal(r.body.city, 'Shelbyville');
    }
  });

  it('"" clears a text field and the key disappears; "" clears the image', async () => {
    const v = await create(t, 'venues', { ...VENUE_06, venue: 'Clear Venue', image: 'https://img.example/c.png' });
    const res = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { address: '', phone: '', website: '', image: '' } });
    assert.equal(res.status, 200);
    for (const k of ['address', 'phone', 'website', 'image']) assert.equal(k in res.body, false, k);
    assert.equal(res.body.city, 'Springfield');
    const o = await create(t, 'organizers', { ...ORGANIZER_07, organizer: 'Clear Org' });
    const ores = await t.api.put(`/organizers/${o.id}`, { as: 'admin', json: { email: '' } });
    assert.equal(ores.status, 200);
    assert.equal('email' in ores.body, false);
    assert.equal(ores.body.phone, ORGANIZER_07.phone);
    assert.equal(ores.body.website, ORGANIZER_07.website);
  });

  it('re-derives stateprovince when state, province or country change (or it is sent empty)', async () => {
    const v = await create(t, 'venues', { venue: 'Derive Venue', state: 'CA', province: 'Quebec', country: 'US' });
    assert.equal(v.stateprovince, 'CA');
    const moved = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { country: 'Canada' } });
    assert.equal(moved.body.stateprovince, 'Quebec');
    const explicit = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { stateprovince: 'QC' } });
    assert.equal(explicit.body.stateprovince, 'QC');
    const kept = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { city: 'Montreal' } });
    assert.equal(kept.body.stateprovince, 'QC');
    const cleared = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { stateprovince: '' } });
    assert.equal(cleared.body.stateprovince, 'Quebec');
  });

  it('flags change only when sent', async () => {
    const v = await create(t, 'venues', { venue: 'Flag Venue', show_map: 'false' });
    const r1 = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { show_map_link: 'no' } });
    assert.equal(r1.body.show_map, false);
    assert.equal(r1.body.show_map_link, false);
    const r2 = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { show_map: 'true' } });
    assert.equal(r2.body.show_map, true);
    assert.equal(r2.body.show_map_link, false);
  });

  it('renames, rejects an empty name, and updates by slug', async () => {
    const o = await create(t, 'organizers', { organizer: 'Slug Org', phone: '42' });
    const empty = await t.api.patch(`/organizers/${o.id}`, { as: 'admin', json: { organizer: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.data.params), ['organizer']);
    const renamed = await t.api.patch(`/organizers/by-slug/slug-org`, { as: 'admin', json: { organizer: 'Renamed Org' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.organizer, 'Renamed Org');
    assert.equal(renamed.body.slug, 'slug-org');
    assert.equal(renamed.body.phone, '42');
    // no dedup on update: another organizer may take the same name
    const other = await create(t, 'organizers', { organizer: 'Other Org' });
    const same = await t.api.patch(`/organizers/${other.id}`, { as: 'admin', json: { organizer: 'Renamed Org' } });
    assert.equal(same.status, 200);
    assert.equal(same.body.id, other.id);
  });

  it('publishing a draft sets its publication date; status is scaled back for contributors', async () => {
    await t.user('contributor');
    const draft = await create(t, 'venues', { venue: 'Draft To Publish', status: 'draft' });
    assert.equal(draft.date_utc, '0000-00-00 00:00:00');
    const pub = await t.api.patch(`/venues/${draft.id}`, { as: 'admin', json: { status: 'publish' } });
    assert.equal(pub.body.status, 'publish');
    assert.notEqual(pub.body.date_utc, '0000-00-00 00:00:00');
    const own = await create(t, 'venues', { venue: 'Contrib Update' }, 'contributor');
    const res = await t.api.patch(`/venues/${own.id}`, { as: 'contributor', json: { status: 'publish' } });
    assert.equal(res.body.status, 'pending');
  });
});

forEachStore('venues and organizers: delete', (t) => {
  it('trashes and returns the record; a second DELETE is 410', async () => {
    const v = await create(t, 'venues', { venue: 'Tmp' });
    const res = await t.api.delete(`/venues/${v.id}`, { as: 'admin' });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'trash');
    assert.equal(res.body.slug, 'tmp__trashed');
    assert.equal(res.body.url, `${t.origin}/?post_type=tribe_venue&p=${v.id}`);
    assert.equal(res.body.json_ld, undefined);
    assert.deepEqual(keysOf(res.body), keysOf(v));
    const again = await t.api.delete(`/venues/${v.id}`, { as: 'admin' });
    assert.equal(again.status, 410);
    assert.deepEqual(again.body, { code: 'venue-is-in-trash', message: 'The venue is already trashed', data: { status: 410 } });
  });

  it('organizers: 410 organizer-is-in-trash, by slug too', async () => {
    const o = await create(t, 'organizers', { organizer: 'Tmp Org' });
    const res = await t.api.delete('/organizers/by-slug/tmp-org', { as: 'admin' });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, o.id);
    assert.equal(res.body.slug, 'tmp-org__trashed');
    const again = await t.api.delete(`/organizers/${o.id}`, { as: 'admin' });
    assert.equal(again.status, 410);
    assert.deepEqual(again.body, { code: 'organizer-is-in-trash', message: 'The organizer is already trashed', data: { status: 410 } });
    const bySlug = await t.api.delete('/organizers/by-slug/tmp-org__trashed', { as: 'admin' });
    assert.equal(bySlug.status, 410);
  });

  it('a trashed record: 403 to anonymous, readable by editors, its old slug no longer resolves', async () => {
    const v = await create(t, 'venues', { venue: 'Gone Venue' });
    await t.api.delete(`/venues/${v.id}`, { as: 'admin' });
    const anon = await t.api.get(`/venues/${v.id}`);
    assert.equal(anon.status, 403);
    assert.equal(anon.body.code, 'venue-not-accessible');
    const admin = await t.api.get(`/venues/${v.id}`, { as: 'admin' });
    assert.equal(admin.status, 200);
    assert.equal(admin.body.status, 'trash');
    assert.equal((await t.api.get('/venues/by-slug/gone-venue', { as: 'admin' })).status, 400);
    assert.equal((await t.api.get('/venues/by-slug/gone-venue__trashed', { as: 'admin' })).status, 200);
    const listed = await t.api.get('/venues', { as: 'admin' });
    assert.equal(
      listed.body.venues.some((x: { id: number }) => x.id === v.id),
      false,
    );
  });

  it('a new record may reuse the name of a trashed one, and an update restores a trashed one', async () => {
    const v = await create(t, 'venues', { venue: 'Phoenix' });
    await t.api.delete(`/venues/${v.id}`, { as: 'admin' });
    const fresh = await create(t, 'venues', { venue: 'Phoenix' });
    assert.notEqual(fresh.id, v.id, 'a trashed record is not a duplicate');
    const restored = await t.api.patch(`/venues/${v.id}`, { as: 'admin', json: { status: 'publish' } });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.status, 'publish');
  });
});

forEachStore(
  'venues and organizers: links under SITE_URL',
  (t) => {
    it('url, global_id and the list URLs follow SITE_URL', async () => {
      const v = await create(t, 'venues', { venue: 'Site Hall', date_utc: '2026-03-04 05:06:07' });
      assert.equal(v.url, 'http://example.com/blog/venue/site-hall/');
      assert.equal(v.global_id, `example.com/blog?id=${v.id}`);
      assert.equal(v.date_utc, '2026-03-04 05:06:07');
      const o = await create(t, 'organizers', { organizer: 'Site Org' });
      assert.equal(o.url, 'http://example.com/blog/organizer/site-org/');
      const list = await t.api.get('/organizers');
      assert.equal(list.body.rest_url, 'http://example.com/blog/api/calendar/events/v1/organizers/?page=1&per_page=10&status=publish');
      const trashed = await t.api.delete(`/organizers/${o.id}`, { as: 'admin' });
      assert.equal(trashed.body.url, `http://example.com/blog/?post_type=tribe_organizer&p=${o.id}`);
    });
  },
  { SITE_URL: 'http://example.com/blog' },
);
