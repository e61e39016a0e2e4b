/**
 * Hostile input (issue 13, item 7): numbers out of a column's range, fractions and `Infinity` in
 * integer fields, NUL bytes, pages beyond any page, `%`/`_` in searches, errors raised before the
 * pipeline (431, 414, bad URL, malformed and oversized bodies, chunked ones included), and stalled
 * clients (408), on both stores. Each answer is a WordPress-style error with the right status,
 * never a 500, and writes nothing.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { parseRaw, raw } from '../support/raw-http.js';

function assertWpError(res: { status: number; body: any }, status: number, code?: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(typeof res.body?.code, 'string', JSON.stringify(res.body));
  assert.equal(typeof res.body?.message, 'string');
  assert.equal(res.body?.data?.status, status);
  if (code) assert.equal(res.body.code, code);
}

async function writeState(t: TestServer): Promise<string> {
  const r = await sql<Record<string, unknown>>`select (select value from change_counter where id = 1) as seq, (select count(*) from posts) as posts, (select count(*) from terms) as terms`.execute(
    t.built.store.db,
  );
  return JSON.stringify(Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)])));
}

forEachStore(
  'hostile input',
  (t) => {
    let ids: { event: number; venue: number; organizer: number; category: number; tag: number };
    const invalidParam = (res: ApiResponse, param: string) => {
      assertWpError(res, 400, 'rest_invalid_param');
      assert.ok(param in res.body.data.params, `${param} named in ${JSON.stringify(res.body.data.params)}`);
    };

    it('creates the records the probes address', async () => {
      const ev = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'Target', start_date: '2030-01-01 10:00', end_date: '2030-01-01 12:00', venue: { venue: 'Hall' }, organizer: [{ organizer: 'Org' }], categories: ['Cat'], tags: ['tag'] },
      });
      assert.equal(ev.status, 201, ev.text);
      ids = { event: ev.body.id, venue: ev.body.venue.id, organizer: ev.body.organizer[0].id, category: ev.body.categories[0].id, tag: ev.body.tags[0].id };
    });

    it('refuses ids beyond an integer column in every path, argument and field with 400 rest_invalid_param', async () => {
      const before = await writeState(t);
      for (const huge of ['2147483648', '99999999999', '1' + '0'.repeat(30)]) {
        for (const path of ['/events/', '/venues/', '/organizers/', '/categories/', '/tags/']) {
          for (const method of ['GET', 'POST', 'DELETE'] as const) {
            const res = await t.api.request(method, path + huge, { as: 'admin', json: method === 'POST' ? {} : undefined });
            invalidParam(res, 'id');
          }
        }
      }
      for (const [path, field] of [
        ['/events', 'author'],
        ['/events', 'image'],
        ['/events', 'venue'],
        ['/events', 'categories'],
        ['/events', 'tags'],
        ['/venues', 'author'],
        ['/organizers', 'image'],
      ] as const) {
        // (`Infinity` is a name for categories and tags: a new term, not an id.)
        for (const value of [2147483648, '1e+308', 1.5, '1.5', -1e308, ...(field === 'categories' || field === 'tags' ? [] : ['Infinity'])]) {
          const base = path === '/events' ? { title: 'X', start_date: '2030-01-01', end_date: '2030-01-02' } : path === '/venues' ? { venue: 'V' } : { organizer: 'O' };
          const body: Record<string, unknown> = { ...base, [field]: value };
          const res = await t.api.post(path, { as: 'admin', json: body });
          invalidParam(res, field);
        }
      }
      for (const [path, arg] of [
        ['/events', 'post_parent'],
        ['/events', 'venue'],
        ['/events', 'organizer'],
        ['/events', 'include'],
        ['/venues', 'event'],
        ['/organizers', 'event'],
        ['/categories', 'post'],
        ['/tags', 'event'],
        ['/categories', 'parent'],
      ] as const) {
        for (const value of ['2147483648', '1e+308', '1.5', 'Infinity', '-1']) {
          invalidParam(await t.api.get(path, { query: { [arg]: value } }), arg);
        }
      }
      assert.equal(await writeState(t), before);
    });

    it('answers page=1e20 (and 1e308, 2147483648) on every list with 400, and a page past the end as before', async () => {
      for (const list of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
        for (const page of ['1e20', '1e308', '2147483648', '99999999999999999999']) invalidParam(await t.api.get(list, { query: { page } }), 'page');
        // per_page stays capped at MAX_PER_PAGE whatever its size (as the original).
        const capped = await t.api.get(list, { query: { per_page: '1e20' } });
        assert.equal(capped.status, 200, `${list} per_page=1e20: ${capped.text}`);
      }
      const past = await t.api.get('/events', { query: { page: '2147483647' } });
      assertWpError(past, 404, 'event-archive-page-not-found');
    });

    it('refuses NUL bytes in every kind of argument (query, JSON, form, path, nested) with 400, writing nothing', async () => {
      const before = await writeState(t);
      invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'a\u0000b', start_date: '2030-01-01', end_date: '2030-01-02' } }), 'title');
      invalidParam(await t.api.post('/events', { as: 'admin', form: 'title=a%00b&start_date=2030-01-01&end_date=2030-01-02' }), 'title');
      invalidParam(await t.api.post('/venues', { as: 'admin', json: { venue: 'Hall\u0000' } }), 'venue');
      invalidParam(await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Org', email: '\u0000' } }), 'email');
      invalidParam(await t.api.post('/categories', { as: 'admin', json: { name: 'x\u0000' } }), 'name');
      invalidParam(await t.api.post(`/tags/${ids.tag}`, { as: 'admin', json: { description: '\u0000' } }), 'description');
      invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'T', start_date: '2030-01-01', end_date: '2030-01-02', venue: { venue: 'V\u0000' } } }), 'venue');
      invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'T', start_date: '2030-01-01', end_date: '2030-01-02', categories: ['a', { 'k\u0000': 1 }] } }), 'categories');
      invalidParam(await t.api.get('/events', { query: 'search=a%00b' }), 'search');
      invalidParam(await t.api.get('/venues', { query: 'search=%00' }), 'search');
      invalidParam(await t.api.get('/events/by-slug/a%00b'), 'slug');
      invalidParam(await t.api.get('/venues/by-slug/%00'), 'slug');
      invalidParam(await t.api.post('/organizers/by-slug/%00', { as: 'admin', json: {} }), 'slug');
      invalidParam(await t.api.post('/events/by-slug/%00', { as: 'admin', form: 'author=1' }), 'slug');
      // Credentials with a NUL byte are bad credentials: the request is anonymous.
      const anon = await t.api.post('/events', {
        headers: { authorization: 'Basic ' + Buffer.from('ad\u0000min:x').toString('base64') },
        json: { title: 'T', start_date: '2030-01-01', end_date: '2030-01-02' },
      });
      assertWpError(anon, 401, 'rest_forbidden');
      assert.equal(await writeState(t), before);
    });

    it('refuses dates beyond the year 9999 (stored as YYYY-MM-DD) with 400', async () => {
      const before = await writeState(t);
      for (const d of ['+10000 years', '9999-12-31 23:59:59 +20000 days']) {
        invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'D', start_date: d, end_date: d } }), 'start_date');
        invalidParam(await t.api.get('/events', { query: { start_date: d } }), 'start_date');
        invalidParam(await t.api.post('/venues', { as: 'admin', json: { venue: 'Dated', date: d } }), 'date');
      }
      invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'D', start_date: '9999-12-31 22:00', end_date: '9999-12-31 23:00', timezone: 'UTC-12' } }), 'start_date');
      assert.equal(await writeState(t), before);
    });

    it('matches % and _ in every search literally', async () => {
      for (const [path, body] of [
        ['/events', { title: 'Sale 100% off', start_date: '2030-02-01', end_date: '2030-02-01 23:00' }],
        ['/events', { title: 'Sale 1000 off', start_date: '2030-02-01', end_date: '2030-02-01 23:00' }],
        ['/events', { title: 'snake_case night', start_date: '2030-02-01', end_date: '2030-02-01 23:00' }],
        ['/events', { title: 'snakeXcase night', start_date: '2030-02-01', end_date: '2030-02-01 23:00' }],
        ['/venues', { venue: 'Hall 100% fun' }],
        ['/venues', { venue: 'Hall 1000 fun' }],
        ['/venues', { venue: 'snake_pit' }],
        ['/venues', { venue: 'snakeXpit' }],
        ['/organizers', { organizer: 'Org 100%' }],
        ['/organizers', { organizer: 'Org 1000' }],
        ['/categories', { name: 'cat_one' }],
        ['/categories', { name: 'catXone' }],
        ['/tags', { name: '50% tag' }],
        ['/tags', { name: '500 tag' }],
      ] as const) {
        const res = await t.api.post(path, { as: 'admin', json: body });
        assert.equal(res.status, 201, res.text);
      }
      const titles = (res: ApiResponse, key: string, field: (x: any) => string) => (res.body[key] as any[]).map(field).sort();
      assert.deepEqual(
        titles(await t.api.get('/events', { query: { search: '100%', start_date: '2030-01-01', end_date: '2031-01-01' } }), 'events', (e) => e.title),
        ['Sale 100% off'],
      );
      assert.deepEqual(
        titles(await t.api.get('/events', { query: { search: 'snake_case', start_date: '2030-01-01', end_date: '2031-01-01' } }), 'events', (e) => e.title),
        ['snake_case night'],
      );
      // Venues and organizers search like the original's find_like: words separated by anything
      // but letters, digits and `-`, so `%` and `_` separate words (never wildcards).
      assert.deepEqual(
        titles(await t.api.get('/venues', { query: { search: 'snake_pit' } }), 'venues', (v) => v.venue),
        ['snakeXpit', 'snake_pit'],
      );
      assert.deepEqual(
        titles(await t.api.get('/organizers', { query: { search: 'Org%100' } }), 'organizers', (o) => o.organizer),
        ['Org 100%', 'Org 1000'],
      );
      const all = await t.api.get('/venues', { query: { per_page: 50 } });
      assert.equal((await t.api.get('/venues', { query: { search: '%_%', per_page: 50 } })).body.total, all.body.total);
      assert.deepEqual(
        titles(await t.api.get('/categories', { query: { search: 'cat_one', hide_empty: 'false' } }), 'categories', (c) => c.name),
        ['cat_one'],
      );
      assert.deepEqual(
        titles(await t.api.get('/tags', { query: { search: '50%', hide_empty: 'false' } }), 'tags', (c) => c.name),
        ['50% tag'],
      );
    });

    it('answers over-long strings for limited columns with 400, not a database error', async () => {
      const before = await writeState(t);
      invalidParam(await t.api.post('/categories', { as: 'admin', json: { name: 'n'.repeat(201) } }), 'name');
      invalidParam(await t.api.post(`/categories/${ids.category}`, { as: 'admin', json: { name: 'n'.repeat(201) } }), 'name');
      invalidParam(await t.api.post('/events', { as: 'admin', json: { title: 'T', start_date: '2030-01-01', end_date: '2030-01-02', categories: ['c'.repeat(201)] } }), 'categories');
      assert.equal(await writeState(t), before);
      // Long titles and slugs make slugs of at most 200 characters (the column's size, as WordPress cuts them).
      const tag = await t.api.post('/tags', { as: 'admin', json: { name: 'long-slug tag', slug: 's'.repeat(201) } });
      assert.equal(tag.status, 201, tag.text);
      assert.equal(tag.body.slug, 's'.repeat(200));
      const long = await t.api.post('/events', { as: 'admin', json: { title: 'word '.repeat(300), start_date: '2030-01-01', end_date: '2030-01-02' } });
      assert.equal(long.status, 201, long.text);
      assert.ok(long.body.slug.length <= 200, long.body.slug);
      const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'v'.repeat(5000) } });
      assert.equal(venue.status, 201, venue.text);
      assert.ok(venue.body.slug.length <= 200);
    });

    it("renders Fastify's own errors in WordPress' shape: bad URL, over-long parameter, malformed and oversized bodies", async () => {
      assertWpError(await t.api.get('/events/by-slug/%zz'), 400, 'rest_bad_url');
      assertWpError(await t.api.get('/venues/by-slug/' + 'x'.repeat(1001)), 414, 'rest_uri_too_long');
      const slug200 = await t.api.get('/venues/by-slug/' + 'x'.repeat(200));
      invalidParam(slug200, 'slug');
      const malformed = await fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": "x",,}' });
      assertWpError({ status: malformed.status, body: await malformed.json() }, 400, 'rest_invalid_json');
      const big = await fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) }) });
      assertWpError({ status: big.status, body: await big.json() }, 413, 'rest_payload_too_large');
      // Other content types are ignored, as WordPress does (the body is no parameters).
      const xml = await t.api.post('/events', { as: 'admin', headers: { 'content-type': 'application/xml' }, form: '<x/>' });
      assertWpError(xml, 400, 'rest_missing_callback_param');
    });

    it('answers headers over 16 KB with 431 in the API shape', async () => {
      const r = parseRaw((await raw(t, [`GET /api/calendar/events/v1/events?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`])).text);
      assertWpError(r, 431, 'rest_headers_too_large');
      const h = parseRaw((await raw(t, [`GET /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`])).text);
      assertWpError(h, 431, 'rest_headers_too_large');
      const garbage = parseRaw((await raw(t, ['GARBAGE\r\n\r\n'])).text);
      assertWpError(garbage, 400, 'rest_bad_request');
    });

    it('answers a 5 MB chunked body with 413 (and the connection is closed)', async () => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const chunks: Array<string | Buffer> = ['POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'];
      for (let i = 0; i < 80; i++) chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
      chunks.push('0\r\n\r\n');
      const r = await raw(t, chunks);
      assertWpError(parseRaw(r.text), 413, 'rest_payload_too_large');
    });

    it('closes stalled requests with 408: headers that never end, a body that stops', async () => {
      const headers = await raw(t, ['GET /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\n']);
      assertWpError(parseRaw(headers.text), 408, 'rest_request_timeout');
      assert.ok(headers.closedAfterMs < 6000, `closed after ${headers.closedAfterMs} ms`);
      const body = await raw(t, ['POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":']);
      assertWpError(parseRaw(body.text), 408, 'rest_request_timeout');
      assert.ok(body.closedAfterMs < 8000, `closed after ${body.closedAfterMs} ms`);
    });
  },
  { HEADERS_TIMEOUT_MS: '1500', REQUEST_TIMEOUT_MS: '3000', RATE_LIMIT_MAX: '0' },
);
