/**
 * Issue 30: the FullCalendar event source, `GET calendar/embed/v1/fullcalendar`: FullCalendar's
 * arguments (start, end with and without offsets, timeZone local/UTC/IANA), every filter, limit,
 * FullCalendar event objects (timed, all-day, multi-day, recurring occurrences), visibility
 * (drafts and private events for authenticated callers only), errors, conditional requests, the
 * namespace index and /doc, and CORS for public reads.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';

forEachStore('FullCalendar event source', (t: TestServer) => {
  const source = (query: string, headers: Record<string, string> = {}) => fetch(`${t.origin}/api/calendar/embed/v1/fullcalendar?${query}`, { headers });
  const json = async (query: string, as?: string) => {
    const res = await t.api.get(`/api/calendar/embed/v1/fullcalendar?${query}`, as ? { as } : {});
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return res.body as any[];
  };
  const titles = async (query: string, as?: string) => (await json(query, as)).map((e) => e.title);
  const ids: Record<string, number> = {};
  let venueId = 0;
  let organizerId = 0;

  before(async () => {
    const post = async (name: string, body: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json: body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[name] = res.body.id;
      return res.body;
    };
    const ny = await post('ny', {
      title: 'Jazz & Blues Night',
      start_date: '2031-06-10 19:00:00',
      end_date: '2031-06-10 21:00:00',
      timezone: 'America/New_York',
      categories: ['Music'],
      tags: ['late'],
      cost: '15',
      venue: { venue: 'Blue Note', address: '131 W 3rd St', city: 'New York', country: 'United States' },
      organizer: [{ organizer: 'Night Owls' }],
      featured: true,
    });
    venueId = ny.venue.id;
    organizerId = ny.organizer[0].id;
    await post('allday', { title: 'Harbour Fair', all_day: true, start_date: '2031-06-12', end_date: '2031-06-13', timezone: 'Europe/Paris', categories: ['Markets'] });
    await post('paris', { title: 'Paris Talk', start_date: '2031-06-11 10:00:00', end_date: '2031-06-11 11:30:00', timezone: 'Europe/Paris', categories: ['Talks'], tags: ['history'] });
    await post('long', { title: 'Summer Exhibition', start_date: '2031-06-01 09:00:00', end_date: '2031-06-20 18:00:00', timezone: 'Europe/Paris' });
    await post('draft', { title: 'Draft Plan', status: 'draft', start_date: '2031-06-11 12:00:00', end_date: '2031-06-11 13:00:00', timezone: 'Europe/Paris' });
    await post('private', { title: 'Private Board', status: 'private', start_date: '2031-06-11 14:00:00', end_date: '2031-06-11 15:00:00', timezone: 'Europe/Paris' });
    await post('series', { title: 'Weekly Class', start_date: '2031-06-02 18:00:00', end_date: '2031-06-02 19:00:00', timezone: 'Europe/Paris', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    await post('july', { title: 'July Concert', start_date: '2031-07-15 20:00:00', end_date: '2031-07-15 22:00:00', timezone: 'Europe/Paris' });
  });

  it('answers FullCalendar event objects for a range, in start order, with extendedProps', async () => {
    const events = await json('start=2031-06-01&end=2031-07-01&timeZone=UTC');
    assert.deepEqual(
      events.map((e) => e.title),
      ['Summer Exhibition', 'Weekly Class', 'Weekly Class', 'Jazz & Blues Night', 'Paris Talk', 'Harbour Fair', 'Weekly Class'],
    );
    const jazz = events.find((e) => e.title === 'Jazz & Blues Night');
    const rest = await t.api.get(`/events/${ids.ny}`);
    assert.deepEqual(Object.keys(jazz), ['id', 'title', 'start', 'end', 'allDay', 'url', 'extendedProps']);
    assert.equal(jazz.id, String(ids.ny));
    assert.equal(jazz.url, rest.body.url, 'the event page the API names');
    assert.equal(jazz.allDay, false);
    assert.deepEqual(jazz.extendedProps.venue, {
      id: venueId,
      name: 'Blue Note',
      url: rest.body.venue.url,
      address: '131 W 3rd St',
      city: 'New York',
      stateprovince: '',
      zip: '',
      country: 'United States',
    });
    assert.deepEqual(jazz.extendedProps.organizers, [{ id: organizerId, name: 'Night Owls', url: rest.body.organizer[0].url }]);
    assert.deepEqual(
      jazz.extendedProps.categories.map((c: any) => c.slug),
      ['music'],
    );
    assert.deepEqual(
      jazz.extendedProps.tags.map((c: any) => c.slug),
      ['late'],
    );
    assert.equal(jazz.extendedProps.cost, rest.body.cost);
    assert.equal(jazz.extendedProps.featured, true);
    assert.equal(jazz.extendedProps.timezone, 'America/New_York');
    assert.equal(jazz.extendedProps.timezoneAbbr, 'EDT');
    assert.equal(jazz.extendedProps.localStart, '2031-06-10T19:00:00');
  });

  it('writes an event in America/New_York in the zone asked: UTC, Europe/Paris, and its own offset for local', async () => {
    const pick = async (query: string) => (await json(query)).find((e) => e.id === String(ids.ny));
    const utc = await pick('start=2031-06-10&end=2031-06-12&timeZone=UTC');
    assert.equal(utc.start, '2031-06-10T23:00:00Z');
    assert.equal(utc.end, '2031-06-11T01:00:00Z');
    const paris = await pick('start=2031-06-10&end=2031-06-12&timeZone=Europe/Paris');
    assert.equal(paris.start, '2031-06-11T01:00:00', 'wall time in Paris, no offset (a named zone without plugin)');
    assert.equal(paris.end, '2031-06-11T03:00:00');
    const local = await pick('start=2031-06-10T00:00:00-04:00&end=2031-06-12T00:00:00-04:00');
    assert.equal(local.start, '2031-06-10T19:00:00-04:00', "the event's own wall time and offset");
    assert.equal(local.end, '2031-06-10T21:00:00-04:00');
  });

  it('reads start and end in timeZone when they have no offset, and by their offset when they do', async () => {
    // 19:00-21:00 New York is 01:00-03:00 on 11 June in Paris, 23:00 on the 10th to 01:00 in UTC.
    assert.ok((await titles('start=2031-06-11&end=2031-06-12&timeZone=Europe/Paris')).includes('Jazz & Blues Night'), 'on the 11th in Paris');
    assert.ok(!(await titles('start=2031-06-10&end=2031-06-11&timeZone=Europe/Paris')).includes('Jazz & Blues Night'), 'not on the 10th in Paris');
    assert.ok((await titles('start=2031-06-10&end=2031-06-11&timeZone=America/New_York')).includes('Jazz & Blues Night'), 'on the 10th in New York');
    assert.ok(!(await titles('start=2031-06-11T01:00:00Z&end=2031-06-12T00:00:00Z&timeZone=UTC')).includes('Jazz & Blues Night'), 'the end is exclusive');
    assert.ok((await titles('start=2031-06-11T00:59:00%2B00:00&end=2031-06-12T00:00:00Z&timeZone=UTC')).includes('Jazz & Blues Night'), 'an offset in the value wins');
    assert.ok((await titles(`start=${encodeURIComponent('2031-06-10T20:30:00-04:00')}&end=${encodeURIComponent('2031-06-10T23:00:00-04:00')}`)).includes('Jazz & Blues Night'), 'local: overlapping');
  });

  it('writes all-day events as dates with an exclusive end, multi-day events whole', async () => {
    for (const tz of ['UTC', 'Europe/Paris', 'local', 'America/Los_Angeles']) {
      const fair = (await json(`start=2031-06-01&end=2031-07-01&timeZone=${tz}`)).find((e) => e.id === String(ids.allday));
      assert.deepEqual([fair.allDay, fair.start, fair.end], [true, '2031-06-12', '2031-06-14'], tz);
    }
    assert.deepEqual(await titles('start=2031-06-13&end=2031-06-14&timeZone=Europe/Paris'), ['Summer Exhibition', 'Harbour Fair'], 'its last day');
    assert.deepEqual(await titles('start=2031-06-14&end=2031-06-15&timeZone=Europe/Paris'), ['Summer Exhibition'], 'not the day after');
    const long = (await json('start=2031-06-15&end=2031-06-16&timeZone=Europe/Paris'))[0];
    assert.deepEqual([long.title, long.start, long.end], ['Summer Exhibition', '2031-06-01T09:00:00', '2031-06-20T18:00:00'], 'begun before the range');
  });

  it('lists recurring occurrences as events of their own', async () => {
    const classes = (await json('start=2031-06-01&end=2031-07-01&timeZone=Europe/Paris')).filter((e) => e.title === 'Weekly Class');
    assert.deepEqual(
      classes.map((e) => e.start),
      ['2031-06-02T18:00:00', '2031-06-09T18:00:00', '2031-06-16T18:00:00'],
    );
    assert.equal(new Set(classes.map((e) => e.id)).size, 3, 'each occurrence its own id');
  });

  it('takes every filter of the list: categories, tags, venue, organizer, featured, search, and limit', async () => {
    const range = 'start=2031-06-01&end=2031-08-01&timeZone=UTC';
    assert.deepEqual(await titles(`${range}&categories=music`), ['Jazz & Blues Night']);
    assert.deepEqual(await titles(`${range}&categories=music,talks`), ['Jazz & Blues Night', 'Paris Talk']);
    assert.deepEqual(await titles(`${range}&tags=history`), ['Paris Talk']);
    assert.deepEqual(await titles(`${range}&venue=${venueId}`), ['Jazz & Blues Night']);
    assert.deepEqual(await titles(`${range}&organizer=${organizerId}`), ['Jazz & Blues Night']);
    assert.deepEqual(await titles(`${range}&featured=1`), ['Jazz & Blues Night']);
    assert.ok(!(await titles(`${range}&featured=0`)).includes('Jazz & Blues Night'));
    assert.deepEqual(await titles(`${range}&search=exhibition`), ['Summer Exhibition']);
    assert.deepEqual(await titles(`${range}&limit=2`), ['Summer Exhibition', 'Weekly Class']);
    assert.deepEqual(await titles(`${range}&categories[]=markets`), ['Harbour Fair']);
  });

  it('shows anonymous callers published events only, authenticated ones what the list shows them', async () => {
    const range = 'start=2031-06-11&end=2031-06-12&timeZone=Europe/Paris';
    const anonymous = await titles(range);
    assert.ok(!anonymous.includes('Draft Plan') && !anonymous.includes('Private Board'), anonymous.join());
    const admin = await json(range, 'admin');
    assert.deepEqual(
      admin
        .filter((e) => ['Draft Plan', 'Private Board'].includes(e.title))
        .map((e) => e.extendedProps.status)
        .sort(),
      ['draft', 'private'],
    );
    assert.ok(!admin.find((e) => e.title === 'Paris Talk').extendedProps.status, 'published events carry no status');
    assert.deepEqual(
      (await json(`${range}&status=draft`, 'admin')).map((e) => e.title),
      ['Draft Plan'],
    );
    const refused = await t.api.get(`/api/calendar/embed/v1/fullcalendar?${range}&status=draft`);
    assert.equal(refused.status, 400, 'anonymous callers may not ask for drafts');
  });

  it('refuses bad arguments with WordPress-style 400s', async () => {
    const cases: Array<[string, string, string?]> = [
      ['end=2031-06-02', 'rest_missing_callback_param', 'start'],
      ['start=2031-06-01', 'rest_missing_callback_param', 'end'],
      ['start=tomorrow&end=2031-06-02', 'rest_invalid_param', 'start'],
      ['start=2031-06-01&end=2031-13-02', 'rest_invalid_param', 'end'],
      ['start=2031-06-01&end=2031-06-02&timeZone=Mars/Olympus', 'rest_invalid_param', 'timeZone'],
      ['start=2031-06-02&end=2031-06-01', 'rest_embed_range_empty'],
      ['start=2031-06-01&end=2031-06-01', 'rest_embed_range_empty'],
      ['start=2031-01-01&end=2032-02-06', 'rest_embed_range_too_wide'],
      ['start=2031-06-01&end=2031-06-02&limit=0', 'rest_invalid_param', 'limit'],
      ['start=2031-06-01&end=2031-06-02&limit=5000', 'rest_invalid_param', 'limit'],
      ['start=2031-06-01&end=2031-06-02&categories=no-such-category', 'rest_invalid_param', 'categories'],
      ['start=2031-06-01&end=2031-06-02&venue=abc', 'rest_invalid_param', 'venue'],
      ['start=2031-06-01&end=2031-06-02&featured=maybe', 'rest_invalid_param', 'featured'],
    ];
    for (const [query, code, param] of cases) {
      const res = await t.api.get(`/api/calendar/embed/v1/fullcalendar?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, code, `${query}: ${res.text}`);
      assert.equal(res.body.data.status, 400);
      if (code === 'rest_invalid_param') assert.ok(param! in res.body.data.params, `${query} names ${param}`);
      if (code === 'rest_missing_callback_param') assert.deepEqual(res.body.data.params, [param]);
    }
    const wide = await t.api.get('/api/calendar/embed/v1/fullcalendar?start=2031-01-01&end=2032-02-06');
    assert.match(wide.body.message, /400 days/);
    assert.equal((await t.api.get('/api/calendar/embed/v1/fullcalendar?start=2031-01-01&end=2032-02-05')).status, 200, '400 days is allowed');
  });

  it('answers 304 to If-None-Match with the ETag it gave, and a new tag after a change', async () => {
    const q = 'start=2031-06-01&end=2031-07-01&timeZone=UTC';
    const first = await source(q);
    assert.equal(first.status, 200);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=10');
    const again = await source(q, { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    await t.api.post('/events', { as: 'admin', json: { title: 'Late Addition', start_date: '2031-06-20 10:00', end_date: '2031-06-20 11:00' } });
    const after = await source(q, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.ok(((await after.json()) as any[]).some((e) => e.title === 'Late Addition'));
    assert.notEqual(after.headers.get('etag'), etag);
  });

  it('is declared: the namespace index and /doc list it, under every REST root', async () => {
    for (const root of ['/api', '/wp-json']) {
      const index = await t.api.get(`${t.origin}${root}/calendar/embed/v1`);
      assert.equal(index.status, 200, root);
      assert.equal(index.body.namespace, 'calendar/embed/v1');
      const entry = index.body.routes['/calendar/embed/v1/fullcalendar'];
      assert.ok(entry, `${root}: listed`);
      assert.deepEqual(Object.keys(entry.endpoints[0].args), ['start', 'end', 'timeZone', 'categories', 'tags', 'venue', 'organizer', 'featured', 'search', 'status', 'limit']);
    }
    const doc = await t.api.get('/api/calendar/embed/v1/doc');
    assert.equal(doc.status, 200);
    assert.ok(JSON.stringify(doc.body).includes('/fullcalendar'), '/doc lists it');
  });

  describe('CORS', () => {
    it('answers any origin without credentials, and lets a preflight send If-None-Match', async () => {
      const res = await source('start=2031-06-01&end=2031-07-01', { origin: 'https://blog.example.net' });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/);
      const preflight = await fetch(`${t.origin}/wp-json/calendar/embed/v1/fullcalendar?start=2031-06-01&end=2031-07-01`, {
        method: 'OPTIONS',
        headers: { origin: 'https://blog.example.net', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
      });
      await preflight.arrayBuffer();
      assert.ok(preflight.status < 300, String(preflight.status));
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /If-None-Match/i);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /GET/);
    });

    it('leaves the legacy API as it was: the origin reflected, with credentials', async () => {
      const res = await fetch(`${t.base}/events`, { headers: { origin: 'https://blog.example.net' } });
      await res.arrayBuffer();
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://blog.example.net');
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(res.headers.get('access-control-allow-headers'), 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type');
    });
  });
});
