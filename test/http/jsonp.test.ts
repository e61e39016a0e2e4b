/**
 * `?_jsonp=callback` as WordPress answers it (WP_REST_Server::serve_request): the JSON wrapped as
 * `/**\/NAME(JSON)` in application/javascript, errors too, names checked like
 * wp_check_jsonp_callback; anonymous whatever credentials come along; JSONP=false refuses it.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { forEachStore } from '../support/harness.js';
import { createEvent } from '../support/fixtures.js';

/** Run a JSONP answer as a browser would, with the callback defined; returns what it was called with. */
function runJsonp(text: string, name: string): unknown {
  let got: unknown;
  const context: Record<string, unknown> = {};
  const parts = name.split('.');
  let target = context;
  for (const part of parts.slice(0, -1)) target = (target[part] = {}) as Record<string, unknown>;
  target[parts[parts.length - 1]!] = (value: unknown) => (got = value);
  vm.runInNewContext(text, context);
  return got;
}

forEachStore('JSONP', (t) => {
  const get = (path: string, init: RequestInit = {}) => fetch(`${t.origin}${path}`, init);

  it('wraps a GET answer in the callback, as JavaScript, with nosniff', async () => {
    const id = await createEvent(t, { title: 'Jsonp event' });
    const plain = await (await get(`/api/calendar/events/v1/events/${id}`)).text();
    for (const name of ['cb', 'jQuery3210_17.done', 'my_cb2']) {
      const res = await get(`/api/calendar/events/v1/events/${id}?_jsonp=${name}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/javascript; charset=UTF-8');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const text = await res.text();
      assert.equal(text, `/**/${name}(${plain})`);
      assert.equal(JSON.stringify(runJsonp(text, name)), plain);
    }
    // also under the alias, on lists and on the indexes, keeping the paging headers
    const list = await get('/wp-json/tribe/events/v1/events?_jsonp=cb&start_date=2027-01-01');
    assert.equal(list.headers.get('x-wp-total'), '1');
    const body = runJsonp(await list.text(), 'cb') as { events: Array<{ rest_url: string }> };
    assert.ok(body.events[0]!.rest_url.includes('/wp-json/tribe/events/v1/events/'));
    for (const path of ['/api/?_jsonp=cb', '/api/calendar/events/v1?_jsonp=cb', '/?rest_route=/tribe/events/v1/doc&_jsonp=cb']) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /^\/\*\*\/cb\(\{/, path);
    }
  });

  it('wraps errors too, with their status', async () => {
    const missing = await get('/api/calendar/events/v1/events/99999?_jsonp=cb');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/javascript; charset=UTF-8');
    assert.deepEqual((runJsonp(await missing.text(), 'cb') as { code: string }).code, 'rest-event-not-found');
    const bad = await get('/wp-json/tribe/events/v1/events?page=0&_jsonp=cb');
    assert.equal(bad.status, 400);
    assert.equal((runJsonp(await bad.text(), 'cb') as { code: string }).code, 'rest_invalid_param');
    const noRoute = await get('/wp-json/nowhere?_jsonp=cb');
    assert.equal(noRoute.status, 404);
    assert.equal((runJsonp(await noRoute.text(), 'cb') as { code: string }).code, 'rest_no_route');
  });

  it('refuses callback names with other characters: 400 rest_callback_invalid, in JSON', async () => {
    for (const name of ['alert(1)', 'a-b', 'a b', 'cb;x', '<script>', 'a%5B0%5D', 'é']) {
      const res = await get(`/api/calendar/events/v1/events?_jsonp=${encodeURIComponent(name)}`);
      assert.equal(res.status, 400, name);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await res.json(), { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.', data: { status: 400 } });
    }
    // an array is no name either
    const arr = await get('/api/calendar/events/v1/events?_jsonp[]=cb');
    assert.equal(arr.status, 400);
    assert.equal((await arr.json()).code, 'rest_callback_invalid');
  });

  it('takes an empty name (or "0", falsy in PHP) as no JSONP', async () => {
    for (const value of ['', '0']) {
      const res = await get(`/api/calendar/events/v1/events?_jsonp=${value}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof (await res.json()).events, 'object');
    }
  });

  it('answers anonymously: credentials are ignored when _jsonp is present', async () => {
    const draft = await createEvent(t, { title: 'Secret draft', status: 'draft' });
    const auth = { authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64') };
    assert.equal((await get(`/api/calendar/events/v1/events/${draft}`, { headers: auth })).status, 200);
    const res = await get(`/api/calendar/events/v1/events/${draft}?_jsonp=cb`, { headers: auth });
    assert.notEqual(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes('Secret draft'));
    assert.match(text, /^\/\*\*\/cb\(/);
    // a write through JSONP is anonymous, hence refused
    const write = await get('/api/calendar/events/v1/tags?_jsonp=cb', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Nope' }) });
    assert.equal(write.status, 401);
    assert.equal((runJsonp(await write.text(), 'cb') as { code: string }).code, 'rest_forbidden');
  });

  it('leaves pages outside the REST root alone', async () => {
    const res = await get('/?_jsonp=a(b)');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  });
});

forEachStore(
  'JSONP turned off',
  (t) => {
    it('answers 400 rest_callback_disabled to any _jsonp, and plain JSON without it', async () => {
      for (const name of ['cb', 'a(b)']) {
        const res = await fetch(`${t.origin}/wp-json/tribe/events/v1/events?_jsonp=${encodeURIComponent(name)}`);
        assert.equal(res.status, 400);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(await res.json(), { code: 'rest_callback_disabled', message: 'JSONP support is disabled on this site.', data: { status: 400 } });
      }
      const res = await fetch(`${t.origin}/api/calendar/events/v1/events`);
      assert.equal(res.status, 200);
    });
  },
  { JSONP: 'false' },
);
