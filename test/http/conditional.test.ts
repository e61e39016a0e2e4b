/**
 * Issue 11, conditional requests: strong ETags from versions and Last-Modified on single records,
 * lists and the indexes; 304 for If-None-Match / If-Modified-Since; Cache-Control and Vary; 412
 * `rest_precondition_failed` for a stale If-Match / If-Unmodified-Since on item writes, with
 * nothing changed.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';

const EVENT = { title: 'Tagged', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' };

async function createEvent(t: TestServer, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api.post('/events', { as: 'admin', json: { ...EVENT, ...extra } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

forEachStore(
  'conditional requests',
  (t) => {
    it('single event: strong ETag and Last-Modified; 304 with no body for If-None-Match and If-Modified-Since', async () => {
      const id = await createEvent(t);
      const first = await t.api.get(`/events/${id}`);
      assert.equal(first.status, 200);
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/, 'a strong tag');
      const lastModified = first.headers.get('last-modified')!;
      assert.ok(!Number.isNaN(new Date(lastModified).getTime()));
      assert.equal(first.headers.get('cache-control'), 'public, max-age=10');
      assert.match(first.headers.get('vary')!, /Authorization/);

      const again = await t.api.get(`/events/${id}`);
      assert.equal(again.headers.get('etag'), etag, 'the same version gives the same tag');

      const notModified = await t.api.get(`/events/${id}`, { headers: { 'if-none-match': etag } });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, '');
      assert.equal(notModified.headers.get('etag'), etag);
      const listed = await t.api.get(`/events/${id}`, { headers: { 'if-none-match': `"nope", W/${etag}` } });
      assert.equal(listed.status, 304, 'weak comparison, any tag of the list');
      const byDate = await t.api.get(`/events/${id}`, { headers: { 'if-modified-since': lastModified } });
      assert.equal(byDate.status, 304);
      const older = await t.api.get(`/events/${id}`, { headers: { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.equal(older.status, 200);

      const other = await t.api.get(`/events/${id}`, { headers: { 'if-none-match': '"something-else"' } });
      assert.equal(other.status, 200);
      assert.deepEqual(other.body, first.body);
    });

    it('the tag changes when the event, its venue or its terms change, and not when another record does', async () => {
      const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Hall', status: 'publish' } });
      const id = await createEvent(t, { venue: venue.body.id, categories: ['Talks'] });
      const tag = async () => (await t.api.get(`/events/${id}`)).headers.get('etag');
      const t0 = await tag();
      await createEvent(t, { title: 'Unrelated' });
      assert.equal(await tag(), t0, 'another event changed: same tag');
      await t.api.post(`/venues/${venue.body.id}`, { as: 'admin', json: { city: 'Bologna' } });
      const t1 = await tag();
      assert.notEqual(t1, t0, 'its venue changed');
      const cat = (await t.api.get('/categories', { query: { search: 'Talks' } })).body.categories[0];
      await t.api.post(`/categories/${cat.id}`, { as: 'admin', json: { description: 'About talks' } });
      const t2 = await tag();
      assert.notEqual(t2, t1, 'its category changed');
      await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Renamed' } });
      assert.notEqual(await tag(), t2, 'the event changed');
    });

    it('authenticated answers are private, no-cache, with a tag of their own', async () => {
      const id = await createEvent(t);
      const anon = await t.api.get(`/events/${id}`);
      const admin = await t.api.get(`/events/${id}`, { as: 'admin' });
      assert.equal(admin.status, 200);
      assert.match(admin.headers.get('cache-control')!, /^private, no-cache/);
      assert.notEqual(admin.headers.get('etag'), anon.headers.get('etag'));
      const again = await t.api.get(`/events/${id}`, { as: 'admin', headers: { 'if-none-match': admin.headers.get('etag')! } });
      assert.equal(again.status, 304);
      assert.match(again.headers.get('cache-control')!, /^private, no-cache/);
      // Bad credentials are anonymous, but the answer still says private.
      const bad = await t.api.get(`/events/${id}`, { as: 'admin:wrong' });
      assert.equal(bad.status, 200);
      assert.equal(bad.headers.get('cache-control'), 'private, no-cache');
    });

    it('a record the caller cannot read never answers 304 (no version leaks)', async () => {
      const id = await createEvent(t, { status: 'draft' });
      const admin = await t.api.get(`/events/${id}`, { as: 'admin' });
      const anon = await t.api.get(`/events/${id}`, { headers: { 'if-none-match': '*' } });
      assert.equal(anon.status, 403);
      assert.equal(anon.headers.get('etag'), null);
      assert.ok(admin.headers.get('etag'));
    });

    it('lists: ETag from the data revision and the arguments; 304 until any write; other arguments, other tag', async () => {
      await createEvent(t);
      for (const path of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
        const first = await t.api.get(path, { query: { per_page: 5 } });
        assert.equal(first.status, 200, path);
        const etag = first.headers.get('etag')!;
        assert.match(etag, /^"[^"]+"$/, path);
        assert.ok(first.headers.get('last-modified'), path);
        const same = await t.api.get(`${path}?per_page=5`, { headers: { 'if-none-match': etag } });
        assert.equal(same.status, 304, path);
        assert.equal(same.text, '');
        const otherArgs = await t.api.get(path, { query: { per_page: 4 }, headers: { 'if-none-match': etag } });
        assert.equal(otherArgs.status, 200, path);
        const fields = await t.api.get(path, { query: { per_page: 5, _fields: 'total' }, headers: { 'if-none-match': etag } });
        assert.equal(fields.status, 200, `${path}: _fields changes the body, so the tag`);
      }
      const before = await t.api.get('/events');
      await createEvent(t, { title: 'Another' });
      const after = await t.api.get('/events', { headers: { 'if-none-match': before.headers.get('etag')! } });
      assert.equal(after.status, 200);
      assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    });

    it('the argument order does not change a list tag', async () => {
      const a = await t.api.get('/events?per_page=3&page=1');
      const b = await t.api.get('/events?page=1&per_page=3');
      assert.equal(a.headers.get('etag'), b.headers.get('etag'));
    });

    it('indexes and /doc have tags too (from their bodies), and answer 304', async () => {
      for (const url of [t.base, `${t.base}/doc`, `${t.origin}/api/`]) {
        // The indexes declare the date window's defaults, computed from the clock: a second later the
        // body (and so its tag) may have changed, and then a 200 with the new body is right.
        for (let attempt = 1; ; attempt++) {
          const first = await t.api.get(url);
          assert.equal(first.status, 200, url);
          const etag = first.headers.get('etag')!;
          assert.ok(etag, url);
          const again = await t.api.get(url, { headers: { 'if-none-match': etag } });
          if (again.status === 304) break;
          assert.equal(again.status, 200, url);
          assert.notEqual(again.text, first.text, `${url}: a 200 to a current tag must bring a changed body`);
          assert.notEqual(again.headers.get('etag'), etag, url);
          assert.ok(attempt < 3, `${url}: no 304 in three tries`);
        }
      }
    });

    it('HEAD answers the same validators', async () => {
      const id = await createEvent(t);
      const get = await t.api.get(`/events/${id}`);
      const head = await t.api.request('HEAD', `/events/${id}`);
      assert.equal(head.headers.get('etag'), get.headers.get('etag'));
      const head304 = await t.api.request('HEAD', `/events/${id}`, { headers: { 'if-none-match': get.headers.get('etag')! } });
      assert.equal(head304.status, 304);
    });

    it('writes with a stale If-Match answer 412 rest_precondition_failed and change nothing; a current one writes', async () => {
      const id = await createEvent(t);
      const read = await t.api.get(`/events/${id}`, { as: 'admin' });
      const etag = read.headers.get('etag')!;
      const ok = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'First editor' }, headers: { 'if-match': etag } });
      assert.equal(ok.status, 200, ok.text);
      const stale = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Second editor' }, headers: { 'if-match': etag } });
      assert.equal(stale.status, 412);
      assert.deepEqual(stale.body, { code: 'rest_precondition_failed', message: stale.body.message, data: { status: 412 } });
      assert.equal((await t.api.get(`/events/${id}`)).body.title, 'First editor');
      for (const method of ['put', 'patch', 'delete'] as const) {
        const res = await t.api[method](`/events/${id}`, { as: 'admin', json: { title: 'x' }, headers: { 'if-match': etag } });
        assert.equal(res.status, 412, method);
      }
      assert.equal((await t.api.get(`/events/${id}`)).body.title, 'First editor');
      // A tag read anonymously, under the original's namespace, names the same version.
      const anonTag = (await t.api.get(`${t.origin}/api/tribe/events/v1/events/${id}`)).headers.get('etag')!;
      const star = await t.api.patch(`/events/${id}`, { as: 'admin', json: { title: 'Third' }, headers: { 'if-match': anonTag } });
      assert.equal(star.status, 200, star.text);
      const any = await t.api.patch(`/events/${id}`, { as: 'admin', json: { title: 'Fourth' }, headers: { 'if-match': '*' } });
      assert.equal(any.status, 200);
      const weak = await t.api.patch(`/events/${id}`, { as: 'admin', json: { title: 'Fifth' }, headers: { 'if-match': `W/${(await t.api.get(`/events/${id}`)).headers.get('etag')}` } });
      assert.equal(weak.status, 412, 'If-Match compares strongly');
    });

    it('If-Unmodified-Since: an older date answers 412, a later one writes', async () => {
      const id = await createEvent(t);
      const stale = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Late' }, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.equal(stale.status, 412);
      assert.equal((await t.api.get(`/events/${id}`)).body.title, EVENT.title);
      const future = new Date(Date.now() + 3600_000).toUTCString();
      const ok = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'On time' }, headers: { 'if-unmodified-since': future } });
      assert.equal(ok.status, 200);
    });

    it('412 on venues, organizers, categories and tags (by id and by slug), nothing changed', async () => {
      const venue = (await t.api.post('/venues', { as: 'admin', json: { venue: 'Stage', status: 'publish' } })).body;
      const organizer = (await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Org', status: 'publish' } })).body;
      const category = (await t.api.post('/categories', { as: 'admin', json: { name: 'Cat412' } })).body;
      const tag = (await t.api.post('/tags', { as: 'admin', json: { name: 'Tag412' } })).body;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        [`/venues/${venue.id}`, { city: 'Rome' }, 'city'],
        [`/venues/by-slug/${venue.slug}`, { city: 'Rome' }, 'city'],
        [`/organizers/${organizer.id}`, { phone: '123' }, 'phone'],
        [`/organizers/by-slug/${organizer.slug}`, { phone: '123' }, 'phone'],
        [`/categories/${category.id}`, { description: 'changed' }, 'description'],
        [`/tags/${tag.id}`, { description: 'changed' }, 'description'],
      ];
      for (const [path, change, field] of cases) {
        const read = await t.api.get(path);
        assert.equal(read.status, 200, path);
        const etag = read.headers.get('etag')!;
        const writeA = await t.api.post(path, { as: 'admin', json: { [field]: `first ${path}` }, headers: { 'if-match': etag } });
        assert.equal(writeA.status, 200, `${path}: ${writeA.text}`);
        const writeB = await t.api.post(path, { as: 'admin', json: change, headers: { 'if-match': etag } });
        assert.equal(writeB.status, 412, path);
        assert.equal(writeB.body.code, 'rest_precondition_failed');
        const del = await t.api.delete(path, { as: 'admin', headers: { 'if-match': etag } });
        assert.equal(del.status, 412, `${path} delete`);
        const now = await t.api.get(path);
        assert.equal(now.status, 200, `${path} still there`);
        assert.equal(String(now.body[field]).replace(/<\/?p>\n?/g, ''), `first ${path}`);
      }
      const tagRead = await t.api.get(`/tags/${tag.id}`);
      const del = await t.api.delete(`/tags/${tag.id}`, { as: 'admin', headers: { 'if-match': tagRead.headers.get('etag')! } });
      assert.equal(del.status, 200, 'a current tag deletes');
    });

    it('concurrent conditional writes with the same tag: exactly one wins', async () => {
      const id = await createEvent(t);
      const etag = (await t.api.get(`/events/${id}`)).headers.get('etag')!;
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => t.api.post(`/events/${id}`, { as: 'admin', json: { title: `Writer ${i}` }, headers: { 'if-match': etag } })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412]);
      const winner = results.find((r) => r.status === 200)!;
      assert.equal((await t.api.get(`/events/${id}`)).body.title, winner.body.title);
    });

    it('requests without conditional headers see the same bodies as before (only new headers)', async () => {
      const id = await createEvent(t);
      const res = await t.api.get(`/events/${id}`);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=UTF-8');
      assert.equal(res.body.id, id);
      const write = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Plain write' } });
      assert.equal(write.status, 200);
    });
  },
  {},
);
