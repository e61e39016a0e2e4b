/**
 * Networks of calendars: a followed calendar's copies bring their venue, organizers and categories
 * as records of the follower (one mirrored record per source record, however many copies use it),
 * kept up to date by the job, read-only there, trashed when the follow ends unless the follower's
 * own events use them; the followed calendar sees none of them.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

type Json = Record<string, any>;

forEachStore('calendar networks: a copy’s venue, organizers and categories', (t) => {
  const at = (slug: string, path: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/${path}`;
  const api = (slug: string, what: string) => at(slug, `events/v1/${what}`);
  const follows = (slug: string) => at(slug, 'network/v1/follows');
  const made = async (slug: string, what: string, json: Json) => {
    const r = await t.api.post(api(slug, what), { as: 'admin', json });
    assert.equal(r.status, 201, r.text);
    return r.body as Json;
  };
  const copiesIn = async (slug: string) => {
    const r = await t.api.get(api(slug, 'events'), { query: { start_date: '2026-12-01', per_page: '50' } });
    assert.equal(r.status, 200, r.text);
    return (r.body.events as Json[]).sort((x, y) => String(x.title).localeCompare(String(y.title)));
  };
  const listed = async (slug: string, what: 'venues' | 'organizers') => {
    const r = await t.api.get(api(slug, what), { query: { per_page: '50' } });
    assert.equal(r.status, 200, r.text);
    return r.body[what] as Json[];
  };

  let hall: Json;
  let ada: Json;
  let backstage: Json;
  let music: Json;
  before(async () => {
    await t.built.services.calendars.create({ slug: 'a', name: 'Alpha' });
    await t.built.services.calendars.create({ slug: 'b', name: 'Beta' });
    hall = await made('a', 'venues', {
      venue: 'Town Hall',
      address: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      country: 'United States',
      phone: '555-0100',
      website: 'https://hall.example/',
      geo_lat: 39.8,
      geo_lng: -89.6,
    });
    ada = await made('a', 'organizers', { organizer: 'Ada Presents', email: 'ada@example.com', phone: '555-0199', website: 'https://ada.example/' });
    // Not public in A: it does not leave it.
    backstage = await made('a', 'venues', { venue: 'Backstage', status: 'draft' });
    music = await made('a', 'categories', { name: 'Music' });
    const when = { start_date: '2027-05-01 20:00', end_date: '2027-05-01 23:00', status: 'publish' };
    await made('a', 'events', { ...when, title: 'Jazz night', venue: hall.id, organizer: [ada.id], categories: [music.id] });
    await made('a', 'events', { ...when, title: 'Organ recital', venue: hall.id, organizer: [ada.id] });
    await made('a', 'events', { ...when, title: 'Rehearsal', venue: backstage.id });
  });

  it('a copy shows the source’s venue and organizer as the follower’s records, one for every copy that uses them', async () => {
    const follow = await t.api.post(follows('b'), { as: 'admin', json: { calendar: 'a' } });
    assert.equal(follow.status, 201, follow.text);
    const copies = await copiesIn('b');
    assert.deepEqual(
      copies.map((c) => c.title),
      ['Jazz night', 'Organ recital', 'Rehearsal'],
    );
    const jazz = await t.api.get(`${api('b', 'events')}/${copies[0]!.id}`);
    assert.equal(jazz.status, 200, jazz.text);
    const venue = jazz.body.venue as Json;
    assert.notEqual(venue.id, hall.id);
    assert.equal(venue.venue, 'Town Hall');
    assert.equal(venue.address, '1 Main St');
    assert.equal(venue.city, 'Springfield');
    assert.equal(venue.state, 'IL');
    assert.equal(venue.zip, '62701');
    assert.equal(venue.country, 'United States');
    assert.equal(venue.phone, '555-0100');
    assert.equal(venue.website, 'https://hall.example/');
    assert.equal(venue.geo_lat, 39.8);
    assert.equal(venue.geo_lng, -89.6);
    assert.match(venue.url, /\/c\/b\/venue\//);
    const organizers = jazz.body.organizer as Json[];
    assert.equal(organizers.length, 1);
    assert.notEqual(organizers[0]!.id, ada.id);
    assert.equal(organizers[0]!.organizer, 'Ada Presents');
    assert.equal(organizers[0]!.email, 'ada@example.com');
    assert.equal(organizers[0]!.phone, '555-0199');
    assert.equal(organizers[0]!.website, 'https://ada.example/');
    // The category, found or made in B by its name and slug.
    assert.deepEqual(
      jazz.body.categories.map((c: Json) => [c.name, c.slug]),
      [['Music', 'music']],
    );
    assert.notEqual(jazz.body.categories[0].id, music.id);
    // The second copy names the same records; the draft venue stayed in A.
    const organ = await t.api.get(`${api('b', 'events')}/${copies[1]!.id}`);
    assert.equal(organ.body.venue.id, venue.id);
    assert.equal(organ.body.organizer[0].id, organizers[0]!.id);
    assert.deepEqual(organ.body.categories, []);
    assert.deepEqual((await t.api.get(`${api('b', 'events')}/${copies[2]!.id}`)).body.venue, []);
    assert.deepEqual(
      (await listed('b', 'venues')).map((v) => [v.id, v.venue]),
      [[venue.id, 'Town Hall']],
    );
    assert.deepEqual(
      (await listed('b', 'organizers')).map((o) => o.id),
      [organizers[0]!.id],
    );
    // A is as it was, and shows none of B's records.
    assert.deepEqual(
      (await listed('a', 'venues')).map((v) => v.id),
      [hall.id],
    );
    assert.deepEqual(
      (await listed('a', 'organizers')).map((o) => o.id),
      [ada.id],
    );
    // By id, B's records are unknown ids in A (400 rest_invalid_param, as any unknown id).
    for (const [what, id] of [
      ['venues', venue.id],
      ['organizers', organizers[0]!.id],
    ] as const) {
      const read = await t.api.get(`${api('a', what)}/${id}`);
      assert.ok([400, 404].includes(read.status), read.text);
      assert.ok(!read.text.includes('Town Hall') && !read.text.includes('Ada Presents'), read.text);
    }
    const source = (await copiesIn('a')).find((e) => e.title === 'Jazz night')!;
    assert.equal(source.venue.id, hall.id);
    assert.equal(source.organizer[0].id, ada.id);
  });

  it('the mirrored records are read-only in B and follow their source at the job’s next step', async () => {
    const [jazz] = await copiesIn('b');
    const venueId = jazz!.venue.id as number;
    const organizerId = jazz!.organizer[0].id as number;
    const edit = await t.api.post(`${api('b', 'venues')}/${venueId}`, { as: 'admin', json: { city: 'Mine now' } });
    assert.equal(edit.status, 403, edit.text);
    assert.equal(edit.body.code, 'network_linked_read_only');
    const editOrganizer = await t.api.post(`${api('b', 'organizers')}/${organizerId}`, { as: 'admin', json: { phone: '0' } });
    assert.equal(editOrganizer.status, 403, editOrganizer.text);
    assert.equal(editOrganizer.body.code, 'network_linked_read_only');
    // B's own event naming a venue of that name links to the mirrored one and does not rewrite it.
    const own = await made('b', 'events', { title: 'Our own gig', start_date: '2027-06-01 20:00', end_date: '2027-06-01 22:00', status: 'publish', venue: { venue: 'Town Hall', city: 'Elsewhere' } });
    assert.equal(own.venue.id, venueId);
    assert.equal(own.venue.city, 'Springfield');

    // The source venue changes, and the event too: B's records are rewritten, none added.
    const changed = await t.api.post(`${api('a', 'venues')}/${hall.id}`, { as: 'admin', json: { address: '2 Elm St', city: 'Shelbyville', geo_lat: '', geo_lng: '' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await t.api.post(`${api('a', 'organizers')}/${ada.id}`, { as: 'admin', json: { phone: '555-0200' } })).status, 200);
    const step = await t.built.networkJob.runOnce();
    assert.equal(step.error, undefined);
    const after = await t.api.get(`${api('b', 'events')}/${jazz!.id}`);
    assert.equal(after.body.venue.id, venueId);
    assert.equal(after.body.venue.address, '2 Elm St');
    assert.equal(after.body.venue.city, 'Shelbyville');
    assert.equal(after.body.venue.geo_lat, undefined);
    assert.equal(after.body.organizer[0].id, organizerId);
    assert.equal(after.body.organizer[0].phone, '555-0200');
    const organ = (await copiesIn('a')).find((e) => e.title === 'Organ recital')!;
    assert.equal((await t.api.post(`${api('a', 'events')}/${organ.id}`, { as: 'admin', json: { title: 'Organ recital (encore)' } })).status, 200);
    await t.built.networkJob.runOnce();
    const copies = await copiesIn('b');
    assert.ok(copies.some((c) => c.title === 'Organ recital (encore)' && c.venue.id === venueId));
    assert.deepEqual(
      (await listed('b', 'venues')).map((v) => v.id),
      [venueId],
    );
    assert.deepEqual(
      (await listed('b', 'organizers')).map((o) => o.id),
      [organizerId],
    );
    assert.deepEqual(
      (await listed('a', 'venues')).map((v) => [v.id, v.city]),
      [[hall.id, 'Shelbyville']],
    );
  });

  it('a mirrored record no copy names any more is trashed at the step, and mirrored anew when named again', async () => {
    const [jazz] = await copiesIn('b');
    const townHall = jazz!.venue.id as number;
    const bandstand = await made('a', 'venues', { venue: 'Bandstand', city: 'Springfield' });
    const brass = await made('a', 'events', { title: 'Brass band', start_date: '2027-05-02 20:00', end_date: '2027-05-02 22:00', status: 'publish', venue: bandstand.id });
    assert.equal((await t.built.networkJob.runOnce()).error, undefined);
    const mirrored = (await copiesIn('b')).find((c) => c.title === 'Brass band')!.venue.id as number;
    assert.notEqual(mirrored, bandstand.id);
    assert.deepEqual((await listed('b', 'venues')).map((v) => v.id).sort(), [townHall, mirrored].sort());

    // The source event moves to the Town Hall: B's Bandstand is named by nothing and goes.
    assert.equal((await t.api.post(`${api('a', 'events')}/${brass.id}`, { as: 'admin', json: { venue: hall.id } })).status, 200);
    assert.equal((await t.built.networkJob.runOnce()).error, undefined);
    assert.equal((await copiesIn('b')).find((c) => c.title === 'Brass band')!.venue.id, townHall);
    assert.deepEqual(
      (await listed('b', 'venues')).map((v) => v.id),
      [townHall],
    );
    assert.equal((await t.api.get(`${api('b', 'venues')}/${mirrored}`, { as: 'admin' })).body.status, 'trash');

    // Named again: a new mirror, published, not the trashed one.
    assert.equal((await t.api.post(`${api('a', 'events')}/${brass.id}`, { as: 'admin', json: { venue: bandstand.id } })).status, 200);
    assert.equal((await t.built.networkJob.runOnce()).error, undefined);
    const again = (await copiesIn('b')).find((c) => c.title === 'Brass band')!.venue;
    assert.notEqual(again.id, mirrored);
    assert.equal(again.venue, 'Bandstand');
    assert.deepEqual((await listed('b', 'venues')).map((v) => v.id).sort(), [townHall, again.id].sort());
  });

  it('when the follow ends, a mirrored record no event of B uses is trashed; one B’s own events use stays, as B’s own', async () => {
    const jazz = (await copiesIn('b')).find((c) => c.title === 'Jazz night');
    const venueId = jazz!.venue.id as number;
    const organizerId = jazz!.organizer[0].id as number;
    const ended = await t.api.delete(`${follows('b')}/a`, { as: 'admin' });
    assert.equal(ended.status, 200, ended.text);
    assert.deepEqual(
      (await copiesIn('b')).map((c) => c.title),
      ['Our own gig'],
    );
    assert.deepEqual(await listed('b', 'organizers'), []);
    const trashed = await t.api.get(`${api('b', 'organizers')}/${organizerId}`, { as: 'admin' });
    assert.equal(trashed.body.status, 'trash');
    assert.deepEqual(
      (await listed('b', 'venues')).map((v) => v.id),
      [venueId],
    );
    // No longer a copy: B's to change.
    const edit = await t.api.post(`${api('b', 'venues')}/${venueId}`, { as: 'admin', json: { city: 'Ours now' } });
    assert.equal(edit.status, 200, edit.text);
    // A keeps its own.
    assert.deepEqual((await listed('a', 'venues')).map((v) => v.venue).sort(), ['Bandstand', 'Town Hall']);
    assert.deepEqual(
      (await listed('a', 'organizers')).map((o) => o.id),
      [ada.id],
    );
  });
});
