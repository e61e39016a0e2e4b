/**
 * Issue 11 on the public face (issue 10): pages and iCalendar feeds carry a strong ETag and
 * Last-Modified made from the data's version, the day and the URL; a conditional GET with the
 * current validators is answered 304 with no body, and any change to the calendar gives a new tag.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';

forEachStore('conditional requests on pages and feeds', (t: TestServer) => {
  let slug = '';
  const get = (path: string, headers: Record<string, string> = {}) => fetch(t.origin + path, { headers });

  before(async () => {
    const res = await t.api.post('/events', { as: 'admin', json: { title: 'Cached Concert', start_date: '2031-03-10 19:00', end_date: '2031-03-10 21:00', categories: ['Cached'] } });
    assert.equal(res.status, 201);
    slug = res.body.slug;
  });

  it('answers 304 to a GET that has the current ETag or Last-Modified, on every kind of page and feed', async () => {
    for (const path of ['/events/', '/events/month/2031-03/', `/event/${slug}/`, '/events/category/cached/', '/events.ics', `/event/${slug}/ical/`, '/events/?ical=1']) {
      const first = await get(path);
      assert.equal(first.status, 200, path);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]{27}"$/, `${path}: a strong tag`);
      assert.equal(first.headers.get('cache-control'), 'public, max-age=10', path);
      assert.match(first.headers.get('vary') ?? '', /Authorization/, path);
      const lastModified = first.headers.get('last-modified');
      assert.ok(lastModified && !Number.isNaN(Date.parse(lastModified)), path);
      await first.arrayBuffer();

      const again = await get(path, { 'if-none-match': etag! });
      assert.equal(again.status, 304, `${path}: If-None-Match`);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
      const since = await get(path, { 'if-modified-since': lastModified! });
      assert.equal(since.status, 304, `${path}: If-Modified-Since`);
      const other = await get(path, { 'if-none-match': '"not-this-one"' });
      assert.equal(other.status, 200, `${path}: another tag`);
      await other.arrayBuffer();
    }
  });

  it('gives every page a new tag after any change to the calendar, and none to a 404 page', async () => {
    const before = await get('/events/');
    const etag = before.headers.get('etag')!;
    await before.arrayBuffer();
    assert.equal((await t.api.post('/events', { as: 'admin', json: { title: 'Another Concert', start_date: '2031-04-10 19:00', end_date: '2031-04-10 21:00' } })).status, 201);
    const after = await get('/events/', { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    assert.match(await after.text(), /Another Concert/);

    const missing = await get('/event/no-such-event/');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('etag'), null);
    await missing.arrayBuffer();
  });
});
