/**
 * A calendar that exercises every field, status, link and term (issue 12's import and export
 * tests), created through the API of a test server, plus helpers to read a whole calendar back and
 * compare two servers' answers modulo their host.
 *
 * @example
 *   await buildCalendar(source);
 *   assert.deepEqual(await snapshot(target), await snapshot(source)) // after normalising hosts
 */
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

async function ok<T = any>(res: Promise<{ status: number; body: any }>, status = 201): Promise<T> {
  const r = await res;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

export interface BuiltCalendar {
  eventIds: number[];
  hiddenId: number;
}

/** Build the calendar on `t` (as admin, plus an editor who authors some records). */
export async function buildCalendar(t: TestServer): Promise<BuiltCalendar> {
  const editor = await t.user('editor', 'eddie');
  const parent = await ok(t.api.post('/categories', { as: 'admin', json: { name: 'Music', description: 'All music' } }));
  const child = await ok(t.api.post('/categories', { as: 'admin', json: { name: 'Jazz & Blues', parent: parent.id, slug: 'jazz-blues' } }));
  await ok(t.api.post('/categories', { as: 'admin', json: { name: 'Unused' } }));
  const tag = await ok(t.api.post('/tags', { as: 'admin', json: { name: 'outdoor', description: 'Fresh air' } }));
  await ok(t.api.post('/tags', { as: 'admin', json: { name: 'Free entry' } }));
  const venue = await ok(
    t.api.post('/venues', {
      as: 'admin',
      json: {
        venue: 'Town Hall',
        description: 'The <b>old</b> hall',
        address: '1 Main St',
        city: 'Springfield',
        country: 'United States',
        state: 'IL',
        zip: '62701',
        phone: '555-0100',
        website: 'https://hall.example.org',
        show_map: 'false',
        show_map_link: 'true',
        image: 'https://img.example.org/hall.png',
      },
    }),
  );
  const venue2 = await ok(t.api.post('/venues', { as: eddie(editor), json: { venue: 'Park Stage', city: 'Lyon', country: 'France', province: 'Rhône', status: 'draft' } }));
  const org1 = await ok(
    t.api.post('/organizers', {
      as: 'admin',
      json: { organizer: 'Ann Smith', email: 'ann@example.org', phone: '555-0101', website: 'https://ann.example.org', image: 'https://img.example.org/ann.jpg' },
    }),
  );
  const org2 = await ok(t.api.post('/organizers', { as: 'admin', json: { organizer: 'Bob Jones', description: 'Promoter' } }));
  const events: any[] = [];
  const add = async (json: Record<string, unknown>, as = 'admin') => events.push(await ok(t.api.post('/events', { as, json })));
  await add({
    title: 'Full event',
    description: 'First paragraph.\n\nSecond <em>paragraph</em>.',
    excerpt: 'Short text',
    slug: 'full-event-slug',
    status: 'publish',
    date: '2026-01-15 09:30:00',
    start_date: '2027-06-01 19:00:00',
    end_date: '2027-06-01 23:00:00',
    timezone: 'Europe/Paris',
    cost: '$10 - $25',
    website: 'https://tickets.example.org/full',
    show_map: true,
    show_map_link: false,
    sticky: true,
    featured: true,
    image: 'https://img.example.org/full.webp',
    categories: [child.id, parent.id],
    tags: [tag.id],
    venue: venue.id,
    organizer: [org2.id, org1.id],
  });
  await add({ title: 'All day fair', all_day: true, start_date: '2027-07-04', end_date: '2027-07-05', status: 'publish', venue: venue2.id, categories: [parent.id], cost: 'Free' });
  await add({ title: 'Draft idea', start_date: '2027-08-01 10:00', end_date: '2027-08-01 11:00', status: 'draft' });
  await add({ title: 'Pending review', start_date: '2027-08-02 10:00', end_date: '2027-08-02 11:00', status: 'pending', cost: '15€' });
  await add({ title: 'Private meeting', start_date: '2027-08-03 10:00', end_date: '2027-08-03 11:00', status: 'private' });
  await add({ title: 'Scheduled post', start_date: '2027-08-04 10:00', end_date: '2027-08-04 11:00', status: 'publish', date: '2030-01-01 12:00:00' });
  await add({ title: 'Long ago', start_date: '2001-02-03 10:00', end_date: '2001-02-03 12:00', status: 'publish', timezone: 'UTC+5:30' });
  await add({ title: 'Far future', start_date: '2040-12-31 22:00', end_date: '2041-01-01 02:00', status: 'publish', timezone: 'America/New_York', tags: ['Free entry'] });
  await add({ title: 'By the editor', start_date: '2027-09-01 10:00', end_date: '2027-09-01 11:00', status: 'publish', venue: venue.id }, eddie(editor));
  const hidden = await ok(
    t.api.post('/events', { as: 'admin', json: { title: 'Hidden one', start_date: '2027-10-01 10:00', end_date: '2027-10-01 11:00', status: 'publish', hide_from_listings: true } }),
  );
  return { eventIds: events.map((e) => e.id), hiddenId: hidden.id };
}

function eddie(editor: { credentials: string }): string {
  return editor.credentials;
}

/** Create `n` small published events (paging). */
export async function addEvents(t: TestServer, n: number, prefix = 'Bulk'): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const body = await ok(
      t.api.post('/events', {
        as: 'admin',
        json: { title: `${prefix} ${i}`, start_date: `2028-01-${String((i % 28) + 1).padStart(2, '0')} 10:00`, end_date: `2028-01-${String((i % 28) + 1).padStart(2, '0')} 11:00`, status: 'publish' },
      }),
    );
    ids.push(body.id);
  }
  return ids;
}

const ALL = { start_date: '1900-01-01', end_date: '2200-12-31' };

/** Every page of a list as admin (or anonymously), the envelope's list key. */
async function all(t: TestServer, path: string, key: string, query: Record<string, string> = {}, as: string | null = 'admin'): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await t.api.get(path, { as, query: { ...query, per_page: 50, page } });
    if (res.status !== 200) break;
    out.push(...res.body[key]);
    if (page >= Number(res.body.total_pages)) break;
  }
  return out;
}

/**
 * What the API says about the whole calendar, with the server's host replaced by HOST and the
 * e-mail addresses in `json_ld` (obfuscated at random on each answer, as WordPress' antispambot
 * does) replaced by EMAIL; `omit` drops keys everywhere (e.g. `author` when authors were mapped).
 */
export async function snapshot(t: TestServer, { extraEventIds = [] as number[], omit = [] as string[] } = {}): Promise<Record<string, unknown>> {
  const events = await all(t, '/events', 'events', ALL);
  const singles: Record<string, unknown> = {};
  for (const id of [...events.map((e) => e.id), ...extraEventIds].sort((a, b) => a - b)) singles[id] = (await t.api.get(`/events/${id}`, { as: 'admin' })).body;
  const snap = {
    events,
    publicEvents: await all(t, '/events', 'events', ALL, null),
    singles,
    venues: await all(t, '/venues', 'venues'),
    organizers: await all(t, '/organizers', 'organizers'),
    categories: await all(t, '/categories', 'categories', { hide_empty: 'false' }),
    tags: await all(t, '/tags', 'tags', { hide_empty: 'false' }),
  };
  const text = JSON.stringify(snap).split(new URL(t.origin).host).join('HOST');
  return JSON.parse(text, function (key, value) {
    if (omit.includes(key)) return undefined;
    if (key === 'email' && typeof value === 'string' && value.includes('&#')) return 'EMAIL';
    return value;
  });
}
