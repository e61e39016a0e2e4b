/**
 * Imports and exports that tell the truth (the admin API): a dry run is marked and every count
 * says "would"; the result lists the events written; a free-text LOCATION is matched to a venue
 * here (normalized name or address) or listed for review, never made into a venue silently (the
 * real-world festival feed makes none), and a reviewed one is created in one call and given to its
 * events; an imported event keeps its UID in the `.ics` export, so import -> export -> import
 * changes nothing; the export takes a date range and a category and is named after the site.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImportReport } from '../../src/import/report.js';
import { forEachStore, ADMIN, type TestServer } from '../support/harness.js';

const A = '/api/calendar/admin/v1';
const auth = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');

const vevent = (uid: string, summary: string, day: string, extra: string[] = []) =>
  ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${summary}`, `DTSTART:${day}T100000Z`, `DTEND:${day}T110000Z`, ...extra, 'END:VEVENT'].join('\r\n');
const calendar = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');

async function upload(t: TestServer, text: string, query = ''): Promise<any> {
  const res = await fetch(`${t.origin}${A}/imports${query}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'text/calendar' }, body: text });
  assert.equal(res.status, 202, await res.clone().text());
  const queued = (await res.json()) as { id: number };
  for (let i = 0; i < 600; i++) {
    const got = await t.api.get(`${A}/imports/${queued.id}`, { as: 'admin' });
    if (got.body.status === 'done' || got.body.status === 'failed') return got.body;
    await sleep(50);
  }
  throw new Error('the import did not end');
}

const allEvents = async (t: TestServer, search?: string) =>
  (await t.api.get('/events', { as: 'admin', query: { start_date: '2000-01-01', end_date: '2100-01-01', per_page: 50, status: 'publish', search } })).body.events ?? [];
const venueCount = async (t: TestServer) => Number((await t.api.get('/venues', { as: 'admin', query: { per_page: 1 } })).body.total ?? 0);

it('a dry-run report says "would" on every count line', () => {
  const report = new ImportReport({ unchanged: true, dryRun: true });
  report.count('event', 'created');
  report.skip('event', 'x', 'no date');
  report.venueForReview('Somewhere');
  const lines = report.lines();
  assert.equal(lines[0], 'events: 1 would be created, 0 would be updated, 0 would be unchanged, 1 would be skipped, 0 failed');
  assert.ok(lines.some((l) => l.startsWith('would be skipped x')));
  assert.ok(lines.some((l) => l.includes('new venue for review: "Somewhere"')));
  assert.equal(new ImportReport().lines()[0], 'nothing to import');
});

forEachStore('imports and exports that tell the truth', (t) => {
  it('a dry run is marked, writes nothing, and counts what would happen', async () => {
    const text = calendar(vevent('dry-1@test', 'Dry one', '20310105', ['LOCATION:Nowhere Hall']), vevent('dry-2@test', 'Dry two', '20310106'));
    const result = await upload(t, text, '?dry_run=true');
    assert.equal(result.status, 'done');
    assert.equal(result.dry_run, true);
    assert.equal(result.counts.created, 2);
    assert.deepEqual(result.counts.events, { created: [], updated: [] }, 'nothing written, nothing to link to');
    assert.deepEqual(
      result.counts.venues_for_review.map((v: any) => v.location),
      ['Nowhere Hall'],
    );
    assert.equal((await allEvents(t, 'Dry')).filter((e: any) => e.title.startsWith('Dry')).length, 0);
    const history = await t.api.get(`${A}/imports`, { as: 'admin' });
    assert.equal(history.body.find((h: any) => h.id === result.id).dry_run, true, 'the history entry is marked');
    assert.equal(history.body.find((h: any) => h.id === result.id).counts.events, undefined, 'the history carries counts, not the ids');
  });

  it('the result lists the events written; LOCATION matches a venue by name or address, else it is listed for review and no venue is made', async () => {
    const hall = await t.api.post('/venues', { as: 'admin', json: { venue: 'Salle Pleyel', address: '252 Rue du Faubourg Saint-Honoré', city: 'Paris' } });
    assert.equal(hall.status, 201, hall.text);
    const before = await venueCount(t);
    const text = calendar(
      vevent('loc-1@test', 'By name', '20310201', ['LOCATION:salle  PLEYEL']),
      vevent('loc-2@test', 'By address', '20310202', ['LOCATION:252 rue du Faubourg Saint-Honore\\, Paris']),
      vevent('loc-3@test', 'Name then more', '20310203', ['LOCATION:Salle Pleyel\\, second floor']),
      vevent('loc-4@test', 'Unknown', '20310204', ['LOCATION:Room 12B']),
      vevent('loc-5@test', 'Unknown too', '20310205', ['LOCATION:Room 12B']),
    );
    const result = await upload(t, text);
    assert.equal(result.dry_run, false);
    assert.equal(result.counts.created, 5);
    assert.equal(result.counts.events.created.length, 5, 'the created ids, for the links');
    assert.equal(await venueCount(t), before, 'no venue was made');
    const events = await allEvents(t);
    const byTitle = (title: string) => events.find((e: any) => e.title === title);
    for (const title of ['By name', 'By address', 'Name then more']) assert.equal(byTitle(title).venue.id, hall.body.id, title);
    assert.ok(Array.isArray(byTitle('Unknown').venue) || !byTitle('Unknown').venue?.id, 'no venue for an unknown location');
    const review = result.counts.venues_for_review;
    assert.equal(review.length, 1);
    assert.equal(review[0].location, 'Room 12B');
    assert.deepEqual(review[0].events.sort(), [byTitle('Unknown').id, byTitle('Unknown too').id].sort());
    for (const id of result.counts.events.created) assert.ok(events.some((e: any) => e.id === id));

    // Created from the review in one call: the venue, given to both events.
    const wrong = await t.api.post(`${A}/imports/${result.id}/venues`, { as: 'admin', json: { location: 'Elsewhere' } });
    assert.equal(wrong.status, 400);
    const made = await t.api.post(`${A}/imports/${result.id}/venues`, { as: 'admin', json: { location: 'Room 12B' } });
    assert.equal(made.status, 200, made.text);
    assert.ok(made.body[0].venue > 0);
    assert.equal(await venueCount(t), before + 1);
    const after = await allEvents(t);
    assert.equal(after.find((e: any) => e.title === 'Unknown').venue.id, made.body[0].venue);
    assert.equal(after.find((e: any) => e.title === 'Unknown too').venue.id, made.body[0].venue);
    const again = await t.api.post(`${A}/imports/${result.id}/venues`, { as: 'admin', json: {} });
    assert.equal(again.status, 200);
    assert.equal(await venueCount(t), before + 1, 'create all: nothing left to create');
    assert.equal((await t.api.get(`${A}/imports/${result.id}`, { as: 'admin' })).body.counts.venues_for_review[0].venue, made.body[0].venue);
    const missing = await t.api.post(`${A}/imports/999999/venues`, { as: 'admin', json: {} });
    assert.equal(missing.status, 404);
    assert.equal((await t.api.post(`${A}/imports/${result.id}/venues`, { json: {} })).status, 401);
  });

  it('an event imported again keeps the venue an editor gave it when its location still names none', async () => {
    const first = await upload(t, calendar(vevent('keep-1@test', 'Keep me', '20310301', ['LOCATION:Back room'])));
    const id = first.counts.events.created[0];
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'The Back Room Bar' } });
    assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { venue: venue.body.id } })).status, 200);
    const again = await upload(t, calendar(vevent('keep-1@test', 'Keep me (changed)', '20310301', ['LOCATION:Back room'])));
    assert.deepEqual(again.counts.events.updated, [id]);
    const event = await t.api.get(`/events/${id}`, { as: 'admin' });
    assert.equal(event.body.title, 'Keep me (changed)');
    assert.equal(event.body.venue.id, venue.body.id, 'the editor’s venue is kept');
  });

  it('an unknown location is kept as text with its event: the .ics export writes it back as LOCATION', async () => {
    const first = await upload(t, calendar(vevent('text-1@test', 'Text location', '20350101', ['LOCATION:Kiosk by the pond'])));
    const id = first.counts.events.created[0];
    const read = await t.api.get(`/events/${id}`, { as: 'admin' });
    assert.ok(Array.isArray(read.body.venue), 'no venue');
    assert.equal(read.body.location_text, undefined, 'not in the REST answer');
    const page = await (await fetch(read.body.url.replace(t.config.siteUrl, t.origin))).text();
    assert.match(page, /<dt>Location<\/dt><dd class="location">Kiosk by the pond<\/dd>/, 'the event page shows it');
    const exported = await t.api.get(`${A}/export`, { as: 'admin', query: { format: 'ics', start_date: '2035-01-01', end_date: '2035-01-01' } });
    assert.match(exported.text, /LOCATION:Kiosk by the pond/);
    // Made a venue from the review: the export names the venue (the same text here).
    await t.api.post(`${A}/imports/${first.id}/venues`, { as: 'admin', json: { location: 'Kiosk by the pond' } });
    const after = await t.api.get(`${A}/export`, { as: 'admin', query: { format: 'ics', start_date: '2035-01-01', end_date: '2035-01-01' } });
    assert.equal((after.text.match(/LOCATION:/g) ?? []).length, 1);
    const withVenue = await (await fetch(read.body.url.replace(t.config.siteUrl, t.origin))).text();
    assert.doesNotMatch(withVenue, /class="location"/, 'the venue now');
    // Deleted with its event.
    assert.equal((await t.api.delete(`/events/${id}`, { as: 'admin', query: { force: true } })).status, 200);
  });

  it('the real-world festival feed (128 events with locations) makes no venue', async () => {
    const before = await venueCount(t);
    const text = readFileSync('test/fixtures/ics/real-world/festival-multiday-rrule.ics', 'utf8');
    const result = await upload(t, text);
    assert.equal(result.status, 'done', JSON.stringify(result.error));
    assert.ok(result.counts.created > 100);
    assert.equal(await venueCount(t), before);
    assert.ok(result.counts.venues_for_review.length > 5, 'the locations wait for review');
  });

  it('import -> export -> import: the export keeps the UIDs, the second import changes nothing', async () => {
    const text = calendar(vevent('round-1@elsewhere.example', 'Round one', '20320301'), vevent('round-2@elsewhere.example', 'Round two', '20320302'));
    const first = await upload(t, text);
    assert.equal(first.counts.created, 2);
    const exported = await t.api.get(`${A}/export`, { as: 'admin', query: { format: 'ics', start_date: '2032-03-01', end_date: '2032-03-31' } });
    assert.equal(exported.status, 200);
    assert.match(exported.text, /UID:round-1@elsewhere\.example/);
    assert.match(exported.text, /UID:round-2@elsewhere\.example/);
    const second = await upload(t, exported.text);
    assert.equal(second.counts.created, 0, JSON.stringify(second.counts));
    assert.equal((await allEvents(t, 'Round')).filter((e: any) => e.title.startsWith('Round')).length, 2, 'no duplicates');
  });

  it('an event made here and exported comes back as itself (UID event-ID@host)', async () => {
    const made = await t.api.post('/events', { as: 'admin', json: { title: 'Made here', start_date: '2033-04-01 10:00:00', end_date: '2033-04-01 11:00:00', status: 'publish' } });
    assert.equal(made.status, 201, made.text);
    const exported = await t.api.get(`${A}/export`, { as: 'admin', query: { format: 'ics', start_date: '2033-04-01', end_date: '2033-04-01' } });
    assert.match(exported.text, new RegExp(`UID:event-${made.body.id}@`));
    const back = await upload(t, exported.text.replace('SUMMARY:Made here', 'SUMMARY:Made here (renamed)'));
    assert.equal(back.counts.created, 0);
    assert.deepEqual(back.counts.events.updated, [made.body.id]);
    assert.equal((await t.api.get(`/events/${made.body.id}`, { as: 'admin' })).body.title, 'Made here (renamed)');
  });

  it('the iCalendar export takes a date range and a category, and is named after the site', async () => {
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Export me' } });
    assert.equal(cat.status, 201, cat.text);
    const mk = (title: string, day: string, categories: number[] = []) =>
      t.api.post('/events', { as: 'admin', json: { title, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`, status: 'publish', categories } });
    await mk('In range, in category', '2034-05-10', [cat.body.id]);
    await mk('In range, no category', '2034-05-11');
    await mk('Out of range, in category', '2034-07-01', [cat.body.id]);
    const get = (query: Record<string, string | undefined>) => t.api.get(`${A}/export`, { as: 'admin', query: { format: 'ics', ...query } });
    const range = await get({ start_date: '2034-05-01', end_date: '2034-05-31' });
    assert.equal(range.status, 200);
    assert.match(range.text, /SUMMARY:In range\\, in category/);
    assert.match(range.text, /SUMMARY:In range\\, no category/);
    assert.doesNotMatch(range.text, /Out of range/);
    const bySlug = await get({ category: cat.body.slug });
    assert.match(bySlug.text, /SUMMARY:In range\\, in category/);
    assert.match(bySlug.text, /SUMMARY:Out of range\\, in category/);
    assert.doesNotMatch(bySlug.text, /no category/);
    const both = await get({ start_date: '2034-05-01', end_date: '2034-05-31', category: String(cat.body.id) });
    assert.equal((both.text.match(/BEGIN:VEVENT/g) ?? []).length, 1);
    assert.match(both.text, new RegExp(`X-WR-CALNAME:${t.config.siteName}`));
    assert.match(both.text, new RegExp(`\\nNAME:${t.config.siteName}`));

    // Renamed in the settings: the export follows.
    const renamed = await t.api.patch(`${A}/settings`, { as: 'admin', json: { SITE_NAME: 'Riverside Events' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.match((await get({ start_date: '2034-05-10', end_date: '2034-05-10' })).text, /X-WR-CALNAME:Riverside Events/);

    for (const bad of [{ start_date: '2034-13-40' }, { start_date: '2034-06-01', end_date: '2034-05-01' }, { category: 'no-such-category' }]) {
      const res = await get(bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.code, 'rest_invalid_param');
    }
    const jsonFiltered = await t.api.get(`${A}/export`, { as: 'admin', query: { format: 'json', category: String(cat.body.id) } });
    assert.equal(jsonFiltered.status, 400, 'the JSON backup is never partial');
  });
});
