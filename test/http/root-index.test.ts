import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

forEachStore('REST root and namespace index', (t) => {
  it('serves the REST root index with our namespace and routes', async () => {
    const res = await t.api.get('/api/');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
    assert.ok(res.body.routes['/calendar/events/v1/events']);
    assert.ok(res.body.routes['/calendar/events/v1/events/(?P<id>\\d+)']);
    assert.equal(res.body.url, t.origin);
  });
  it('serves the namespace index in WordPress format; an unknown namespace is 404', async () => {
    const res = await t.api.get('');
    assert.equal(res.status, 200);
    assert.equal(res.body.namespace, 'calendar/events/v1');
    assert.deepEqual(res.body._links, { up: [{ href: `${t.origin}/api/` }] });
    const events = res.body.routes['/calendar/events/v1/events'];
    assert.deepEqual(events.methods, ['GET', 'POST']);
    assert.deepEqual(events._links, { self: [{ href: `${t.base}/events` }] });
    assert.deepEqual(events.endpoints[0].args.page, { default: 1, description: 'The archive page to return', type: 'integer', required: false });
    assert.equal(events.endpoints[1].args.title.required, true);
    const other = await t.api.get('', { query: { namespace: 'calendar/events/v2' } });
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'rest_invalid_namespace');
    assert.equal((await t.api.get('/api/calendar/events/v2')).status, 404);
  });
});

forEachStore(
  'custom REST root',
  (t) => {
    it('serves routes under REST_ROOT with links under SITE_URL', async () => {
      const res = await fetch(`${t.origin}/wp-json/calendar/events/v1/events`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.rest_url.startsWith('https://cal.example/wp-json/calendar/events/v1/events/?'), true);
    });
  },
  { REST_ROOT: '/wp-json', SITE_URL: 'https://cal.example' },
);
