/**
 * Issue 14, geolocation: venue coordinates on create, update (by id and slug), clear and inline
 * venues; the event and venue lists' geoloc filters (has coordinates, radius around a point in
 * miles or kilometres, near the poles and across the antimeridian, box corners outside the
 * circle); argument errors; kept geo-filtered lists after a venue moves, on one and two instances.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, forEachStore, startTwoInstances, type TestServer } from '../support/harness.js';

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const inDays = (n: number) => ymd(new Date(Date.now() + n * 86_400_000));

async function venue(t: TestServer, json: Record<string, unknown>) {
  const res = await t.api.post('/venues', { as: 'admin', json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Record<string, any>;
}

async function event(t: TestServer, title: string, venueRef: unknown, day = 3) {
  const res = await t.api.post('/events', {
    as: 'admin',
    json: { title, start_date: `${inDays(day)} 20:00:00`, end_date: `${inDays(day)} 22:00:00`, status: 'publish', ...(venueRef === undefined ? {} : { venue: venueRef }) },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Record<string, any>;
}

async function titles(t: TestServer, query: Record<string, string | number>) {
  const res = await t.api.get('/events', { query: { per_page: 50, ...query } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { titles: (res.body.events as any[]).map((e) => e.title as string).sort(), total: res.body.total as number, body: res.body };
}

forEachStore('geolocation: venue coordinates', (t) => {
  it('create, read, update by id and slug, clear', async () => {
    const v = await venue(t, { venue: 'Geo Hall', city: 'Paris', geo_lat: 48.8566, geo_lng: '2.3522' });
    assert.equal(v.geo_lat, 48.8566);
    assert.equal(v.geo_lng, 2.3522);
    const keys = Object.keys(v);
    assert.equal(keys.indexOf('geo_lat'), keys.indexOf('stateprovince') === -1 ? keys.indexOf('city') + 1 : keys.indexOf('stateprovince') + 1);
    const single = await t.api.get(`/venues/${v.id}`);
    assert.deepEqual(single.body.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 48.8566, longitude: 2.3522 });
    assert.ok(Object.keys(single.body).indexOf('geo_lng') < Object.keys(single.body).indexOf('json_ld'));

    // One coordinate alone changes that one.
    const moved = await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lat: 48.9 } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.geo_lat, 48.9);
    assert.equal(moved.body.geo_lng, 2.3522);
    // 0 is a coordinate (form-encoded too), by slug.
    const zero = await t.api.post(`/venues/by-slug/${v.slug}`, { as: 'admin', form: { geo_lat: '0', geo_lng: '0' } });
    assert.equal(zero.status, 200, JSON.stringify(zero.body));
    assert.equal(zero.body.geo_lat, 0);
    assert.equal(zero.body.geo_lng, 0);
    assert.deepEqual((await t.api.get(`/venues/${v.id}`)).body.json_ld.geo, { '@type': 'GeoCoordinates', latitude: 0, longitude: 0 });
    // "" clears both, and the keys disappear.
    const cleared = await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lat: '' } });
    assert.equal(cleared.status, 200);
    assert.equal('geo_lat' in cleared.body, false);
    assert.equal('geo_lng' in cleared.body, false);
    assert.equal('geo' in (await t.api.get(`/venues/${v.id}`)).body.json_ld, false);
    // Set again, then null clears.
    assert.equal((await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lat: -33.8688, geo_lng: 151.2093 } })).body.geo_lng, 151.2093);
    const nulled = await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lng: null } });
    assert.equal('geo_lat' in nulled.body, false);
    // Other fields leave them alone.
    await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lat: 10, geo_lng: 20 } });
    assert.equal((await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { city: 'Lyon' } })).body.geo_lat, 10);
  });

  it('a venue without coordinates has no geo keys', async () => {
    const v = await venue(t, { venue: 'Plain Hall' });
    assert.equal('geo_lat' in v, false);
    assert.equal('geo' in (await t.api.get(`/venues/${v.id}`)).body.json_ld, false);
  });

  it('rejects coordinates out of range, non-numbers, and one coordinate alone on create', async () => {
    for (const json of [
      { geo_lat: 90.5, geo_lng: 0 },
      { geo_lat: 0, geo_lng: -180.01 },
      { geo_lat: 'north', geo_lng: 1 },
      { geo_lat: true, geo_lng: 1 },
    ]) {
      const res = await t.api.post('/venues', { as: 'admin', json: { venue: 'Bad Geo', ...json } });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.code, 'rest_invalid_param');
    }
    const alone = await t.api.post('/venues', { as: 'admin', json: { venue: 'Half Geo', geo_lat: 45 } });
    assert.equal(alone.status, 400);
    assert.match(JSON.stringify(alone.body), /geo_lat must be given together with geo_lng|geo_lng must be given together with geo_lat/);
    // The extremes are valid.
    const edge = await venue(t, { venue: 'Edge of the map', geo_lat: -90, geo_lng: 180 });
    assert.equal(edge.geo_lat, -90);
    assert.equal(edge.geo_lng, 180);
  });

  it('inline venue objects on event writes carry coordinates', async () => {
    const e = await event(t, 'Inline geo', { venue: 'Inline Geo Hall', geo_lat: 52.52, geo_lng: 13.405 });
    assert.equal(e.venue.geo_lat, 52.52);
    assert.equal(e.venue.geo_lng, 13.405);
    const bad = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Bad inline', start_date: `${inDays(3)} 20:00:00`, end_date: `${inDays(3)} 21:00:00`, venue: { venue: 'Nowhere Hall', geo_lat: 100, geo_lng: 0 } },
    });
    assert.equal(bad.status, 400);
    // Duplicate avoidance overwrites the coordinates of the venue it reuses.
    const again = await event(t, 'Inline geo again', { venue: 'Inline Geo Hall', geo_lat: 52.5, geo_lng: 13.4 });
    assert.equal(again.venue.id, e.venue.id);
    assert.equal(again.venue.geo_lat, 52.5);
  });

  it('the index and /doc declare the coordinates and the list arguments', async () => {
    const index = await t.api.get('');
    const venueArgs = index.body.routes['/calendar/events/v1/venues'].endpoints[1].args;
    assert.ok(venueArgs.geo_lat && venueArgs.geo_lng);
    const listArgs = index.body.routes['/calendar/events/v1/venues'].endpoints[0].args;
    for (const k of ['geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit']) assert.ok(listArgs[k], k);
    const eventArgs = index.body.routes['/calendar/events/v1/events'].endpoints[0].args;
    for (const k of ['geoloc_radius', 'geoloc_unit']) assert.ok(eventArgs[k], k);
    const doc = await t.api.get('/doc');
    assert.match(JSON.stringify(doc.body.paths['/venues']), /geo_lat/);
    assert.match(JSON.stringify(doc.body.paths['/events']), /geoloc_radius/);
  });
});

forEachStore('geolocation: list filters', (t) => {
  const ids: Record<string, number> = {};
  before(async () => {
    const make = async (name: string, lat?: number, lng?: number) => {
      const v = await venue(t, { venue: name, ...(lat === undefined ? {} : { geo_lat: lat, geo_lng: lng }) });
      ids[name] = v.id;
      await event(t, `At ${name}`, v.id);
    };
    await make('Paris', 48.8566, 2.3522);
    await make('Versailles', 48.8049, 2.1204); // 17.9 km from Paris
    await make('Chartres', 48.4439, 1.489); // 76 km from Paris
    await make('London', 51.5074, -0.1278); // 344 km
    await make('No coordinates');
    await make('Null Island', 0, 0);
    await make('Box corner', 0.8, 0.8); // 125.8 km from (0,0): inside the 100 km box, outside the circle
    await make('Inside', 0.6, 0.6); // 94.4 km from (0,0)
    await make('Fiji east', -17, 179.95);
    await make('Fiji west', -17, -179.95); // 10.6 km from Fiji east, across the antimeridian
    await make('North pole A', 89.95, 0);
    await make('North pole B', 89.95, 180); // 11.1 km from A across the pole
    await make('South pole', -89.99, 45);
    await event(t, 'No venue at all', undefined);
  });

  it('geoloc=1 keeps events whose venue has coordinates', async () => {
    const all = await titles(t, {});
    const geo = await titles(t, { geoloc: 1 });
    assert.equal(all.total, 14);
    assert.equal(geo.total, 12);
    assert.ok(!geo.titles.includes('At No coordinates'));
    assert.ok(!geo.titles.includes('No venue at all'));
    assert.ok(geo.titles.includes('At Null Island'));
    assert.equal((await titles(t, { geoloc: 0 })).total, 14);
    assert.match(geo.body.rest_url, /geoloc=1/);
  });

  it('a radius around a point, in miles by default (25 mi) or kilometres', async () => {
    assert.deepEqual((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522 })).titles, ['At Paris', 'At Versailles']);
    assert.deepEqual((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 10, geoloc_unit: 'km' })).titles, ['At Paris']);
    assert.deepEqual((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 80, geoloc_unit: 'km' })).titles, ['At Chartres', 'At Paris', 'At Versailles']);
    // 50 miles = 80.5 km: Chartres (76 km) in; 40 miles = 64 km: out.
    assert.ok((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 50 })).titles.includes('At Chartres'));
    assert.ok(!(await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 40, geoloc_unit: 'mi' })).titles.includes('At Chartres'));
    assert.deepEqual((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 400, geoloc_unit: 'km' })).titles, ['At Chartres', 'At London', 'At Paris', 'At Versailles']);
    const r = await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, geoloc_radius: 10, geoloc_unit: 'km' });
    assert.match(r.body.rest_url, /geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=10&geoloc_unit=km/);
  });

  it('the distance cut, not the bounding box, decides at the box corners', async () => {
    assert.deepEqual((await titles(t, { geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: 100, geoloc_unit: 'km' })).titles, ['At Inside', 'At Null Island']);
    assert.deepEqual((await titles(t, { geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: 126, geoloc_unit: 'km' })).titles, ['At Box corner', 'At Inside', 'At Null Island']);
  });

  it('across the antimeridian and near the poles', async () => {
    assert.deepEqual((await titles(t, { geoloc_lat: -17, geoloc_lng: 179.95, geoloc_radius: 20, geoloc_unit: 'km' })).titles, ['At Fiji east', 'At Fiji west']);
    assert.deepEqual((await titles(t, { geoloc_lat: -17, geoloc_lng: -180, geoloc_radius: 20, geoloc_unit: 'km' })).titles, ['At Fiji east', 'At Fiji west']);
    assert.deepEqual((await titles(t, { geoloc_lat: -17, geoloc_lng: -179.95, geoloc_radius: 5, geoloc_unit: 'km' })).titles, ['At Fiji west']);
    assert.deepEqual((await titles(t, { geoloc_lat: 89.95, geoloc_lng: 0, geoloc_radius: 15, geoloc_unit: 'km' })).titles, ['At North pole A', 'At North pole B']);
    assert.deepEqual((await titles(t, { geoloc_lat: 90, geoloc_lng: -120, geoloc_radius: 10, geoloc_unit: 'km' })).titles, ['At North pole A', 'At North pole B']);
    assert.deepEqual((await titles(t, { geoloc_lat: -90, geoloc_lng: 0, geoloc_radius: 5, geoloc_unit: 'km' })).titles, ['At South pole']);
    assert.deepEqual((await titles(t, { geoloc_lat: 89.95, geoloc_lng: 0, geoloc_radius: 5, geoloc_unit: 'km' })).titles, ['At North pole A']);
  });

  it('keeps start-date order and combines with other filters', async () => {
    const res = await t.api.get('/events', { query: { geoloc: 1, per_page: 3 } });
    assert.equal(res.body.total, 12);
    assert.equal(res.body.total_pages, 4);
    const starts = (res.body.events as any[]).map((e) => `${e.start_date}#${e.id}`);
    assert.deepEqual([...starts].sort(), starts);
    assert.equal((await titles(t, { geoloc_lat: 48.8566, geoloc_lng: 2.3522, venue: ids.Paris! })).total, 1);
  });

  it('400 for one coordinate alone, a radius without a point, bad units and radii', async () => {
    for (const query of [
      { geoloc_lat: 10 },
      { geoloc_lng: 10 },
      { geoloc_radius: 5 },
      { geoloc_lat: 1, geoloc_lng: 1, geoloc_unit: 'furlong' },
      { geoloc_lat: 1, geoloc_lng: 1, geoloc_radius: -1 },
      { geoloc_lat: 91, geoloc_lng: 1 },
    ]) {
      for (const path of ['/events', '/venues']) {
        const res = await t.api.get(path, { query });
        assert.equal(res.status, 400, `${path} ${JSON.stringify(query)}`);
        assert.equal(res.body.code, 'rest_invalid_param');
      }
    }
    const res = await t.api.get('/events', { query: { geoloc_lat: 10 } });
    assert.match(res.body.message + JSON.stringify(res.body.data), /geoloc_lng must be given together with geoloc_lat/);
  });

  it('the venue list filters the same way', async () => {
    const names = async (query: Record<string, string | number>) => {
      const res = await t.api.get('/venues', { query: { per_page: 50, ...query } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.venues as any[]).map((v) => v.venue as string).sort();
    };
    assert.equal((await names({ geoloc: 1 })).length, 12);
    assert.deepEqual(await names({ geoloc_lat: 48.8566, geoloc_lng: 2.3522 }), ['Paris', 'Versailles']);
    assert.deepEqual(await names({ geoloc_lat: -17, geoloc_lng: 180, geoloc_radius: 10, geoloc_unit: 'km' }), ['Fiji east', 'Fiji west']);
  });
});

forEachStore(
  'geolocation: radius settings',
  (t) => {
    it('GEOLOC_RADIUS and GEOLOC_UNIT set the default circle', async () => {
      const a = await venue(t, { venue: 'Milano Duomo', geo_lat: 45.4642, geo_lng: 9.19 });
      const b = await venue(t, { venue: 'Monza', geo_lat: 45.5845, geo_lng: 9.2744 }); // 14.9 km
      await event(t, 'Duomo night', a.id);
      await event(t, 'Monza night', b.id);
      const res = await titles(t, { geoloc_lat: 45.4642, geoloc_lng: 9.19 });
      assert.deepEqual(res.titles, ['Duomo night']);
      // A radius without a unit is in GEOLOC_UNIT; a unit without a radius converts the default.
      assert.deepEqual((await titles(t, { geoloc_lat: 45.4642, geoloc_lng: 9.19, geoloc_radius: 16 })).titles, ['Duomo night', 'Monza night']);
      assert.deepEqual((await titles(t, { geoloc_lat: 45.4642, geoloc_lng: 9.19, geoloc_unit: 'mi' })).titles, ['Duomo night']);
    });
  },
  { GEOLOC_RADIUS: '10', GEOLOC_UNIT: 'km' },
);

for (const kind of STORES) {
  describe(`geolocation: kept geo-filtered lists follow venue moves [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'geo-kept'));
    });
    after(async () => {
      await closeBoth?.();
    });

    it('a venue moving into or out of the circle changes the next read on both instances', async () => {
      const near = await venue(a, { venue: 'Kept Near', geo_lat: 40.7128, geo_lng: -74.006 });
      const far = await venue(a, { venue: 'Kept Far', geo_lat: 34.0522, geo_lng: -118.2437 });
      // Enough events for a second page, so the total is counted (and kept), not taken from page 1.
      for (let i = 0; i < 4; i++) await event(a, `Near ${i}`, near.id, 2 + i);
      for (let i = 0; i < 3; i++) await event(a, `Far ${i}`, far.id, 2 + i);
      const query = { geoloc_lat: 40.7, geoloc_lng: -74, geoloc_radius: 20, geoloc_unit: 'km', per_page: 2 };
      for (const s of [a, b]) {
        for (let round = 0; round < 2; round++) {
          const res = await s.api.get('/events', { query });
          assert.equal(res.body.total, 4);
        }
        assert.equal((await s.api.get('/events', { query: { geoloc: 1, per_page: 2 } })).body.total, 7);
      }
      // The far venue moves to New York: its events join the list without any event changing.
      const moved = await a.api.post(`/venues/${far.id}`, { as: 'admin', json: { geo_lat: 40.73, geo_lng: -73.99 } });
      assert.equal(moved.status, 200);
      for (const s of [a, b]) {
        const res = await s.api.get('/events', { query });
        assert.equal(res.body.total, 7, 'after the move in');
        assert.equal(res.body.events.length, 2);
      }
      // The near venue loses its coordinates: out of both geo lists.
      await b.api.post(`/venues/${near.id}`, { as: 'admin', json: { geo_lat: '' } });
      for (const s of [a, b]) {
        assert.equal((await s.api.get('/events', { query })).body.total, 3, 'after the clear');
        assert.equal((await s.api.get('/events', { query: { geoloc: 1, per_page: 2 } })).body.total, 3);
      }
      // An event moving between venues adjusts the kept totals (listing states carry coordinates).
      const plain = await venue(a, { venue: 'Kept Plain' });
      const ev = await event(a, 'Mover', far.id, 9);
      for (const s of [a, b]) assert.equal((await s.api.get('/events', { query })).body.total, 4);
      await a.api.post(`/events/${ev.id}`, { as: 'admin', json: { venue: plain.id } });
      for (const s of [a, b]) assert.equal((await s.api.get('/events', { query })).body.total, 3);
      await a.api.post(`/events/${ev.id}`, { as: 'admin', json: { venue: near.id } });
      await a.api.post(`/venues/${near.id}`, { as: 'admin', json: { geo_lat: 40.7128, geo_lng: -74.006 } });
      for (const s of [a, b]) assert.equal((await s.api.get('/events', { query })).body.total, 8);
    });
  });
}

forEachStore('geolocation: pages and feeds use the coordinates', (t) => {
  it('map links on the event and venue pages, GEO in the event feed', async () => {
    const v = await venue(t, { venue: 'Page Geo Hall', address: '1 Quay', city: 'Oslo', geo_lat: 59.9139, geo_lng: 10.7522 });
    const e = await event(t, 'Page geo night', v.id);
    const eventPage = await t.api.get(`${t.origin}/event/${e.slug}/`);
    assert.equal(eventPage.status, 200);
    assert.match(eventPage.text, /openstreetmap\.org\/\?mlat=59\.9139&(amp;)?mlon=10\.7522/);
    const venuePage = await t.api.get(`${t.origin}/venue/${v.slug}/`);
    assert.equal(venuePage.status, 200);
    assert.match(venuePage.text, /openstreetmap\.org\/\?mlat=59\.9139&(amp;)?mlon=10\.7522/);
    const feed = await t.api.get(`${t.origin}/event/${e.slug}/ical/`);
    assert.equal(feed.status, 200);
    assert.match(feed.text, /\r\nGEO:59\.9139;10\.7522\r\n/);
    // Without coordinates: an address search, and no GEO.
    await t.api.post(`/venues/${v.id}`, { as: 'admin', json: { geo_lat: '' } });
    const after = await t.api.get(`${t.origin}/event/${e.slug}/ical/`);
    assert.doesNotMatch(after.text, /\r\nGEO:/);
    assert.doesNotMatch((await t.api.get(`${t.origin}/venue/${v.slug}/`)).text, /mlat=/);
  });
});
