/**
 * Real WordPress clients, unchanged, against a real server on each store (issue 17):
 * node-wpapi 1.2 (discovery, route handlers from the root index, `_paging` from X-WP-* and Link)
 * and @wordpress/api-fetch 7 (root URL middleware, `_locale=user`, X-HTTP-Method-Override,
 * `?rest_route=`), with Basic auth by password and by application password.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import WPAPI from 'wpapi';
import apiFetchImport from '@wordpress/api-fetch';
import { ADMIN, forEachStore, type TestServer } from '../support/harness.js';

type Json = Record<string, any>;

// The package's types are ES module declarations in a package without "type": "module", so
// TypeScript sees the default import as the whole module; at run time it is the function.
const apiFetch = apiFetchImport as unknown as typeof apiFetchImport.default;

const WINDOW = { start_date: '2028-01-01', end_date: '2028-12-31' };

/** What each resource needs to be created and updated, and how its body names it. */
const RESOURCES = [
  { name: 'events', create: { title: 'Client Gig', start_date: '2028-03-01 20:00', end_date: '2028-03-01 22:00' }, update: { title: 'Client Gig (moved)' }, field: 'title', bySlug: true },
  { name: 'venues', create: { venue: 'Client Hall', city: 'Turin' }, update: { venue: 'Client Hall Two' }, field: 'venue', bySlug: true },
  { name: 'organizers', create: { organizer: 'Client Org' }, update: { organizer: 'Client Org Two' }, field: 'organizer', bySlug: true },
  { name: 'categories', create: { name: 'Client Cat' }, update: { name: 'Client Cat Two' }, field: 'name', bySlug: false },
  { name: 'tags', create: { name: 'Client Tag' }, update: { name: 'Client Tag Two' }, field: 'name', bySlug: false },
] as const;

/** Create `n` published events inside WINDOW as admin; returns their ids. */
async function seedEvents(t: TestServer, n: number, prefix: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const day = String(i + 1).padStart(2, '0');
    const res = await t.api.post('/events', { as: 'admin', json: { title: `${prefix} ${i}`, start_date: `2028-05-${day} 10:00`, end_date: `2028-05-${day} 11:00` } });
    assert.equal(res.status, 201);
    ids.push(res.body.id);
  }
  return ids;
}

/** The application password of a new one for this login (WordPress' spaced form). */
async function appPassword(t: TestServer, login: string): Promise<string> {
  const { password } = await t.built.services.users.addAppPassword(login, `client test ${Math.random()}`);
  return password;
}

forEachStore('node-wpapi 1.2 as a client', (t) => {
  it('discovers the API from the site URL, the REST root and /wp-json, with handlers for both namespaces', async () => {
    for (const [from, root] of [
      [t.origin, '/api/'],
      [`${t.origin}/api`, '/api/'],
      [`${t.origin}/wp-json`, '/wp-json/'],
    ]) {
      const site = await WPAPI.discover(from);
      assert.equal(site._options.endpoint, `${t.origin}${root}`, from);
      assert.deepEqual(Object.keys(site._ns).sort(), ['calendar/events/v1', 'tec/v1', 'tribe/events/v1', 'wp/v2']);
      for (const ns of ['tribe/events/v1', 'calendar/events/v1']) {
        const handlers = site.namespace(ns);
        for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags', 'doc']) assert.equal(typeof handlers[resource], 'function', `${ns} ${resource}`);
        assert.equal(handlers.events().id(5).toString(), `${t.origin}${root}${ns}/events/5`);
        assert.equal(handlers.venues().bySlug('hall').toString(), `${t.origin}${root}${ns}/venues/by-slug/hall`);
      }
      const doc = await site.namespace('tribe/events/v1').doc().get();
      assert.equal(doc.servers[0].url, `${t.origin}${root}tribe/events/v1`);
    }
  });

  it('pages through every event with .page(n).perPage(m) and with _paging.next, seeing each once', async () => {
    const ids = await seedEvents(t, 7, 'Paged');
    const site = await WPAPI.discover(t.origin);
    const events = () => site.namespace('tribe/events/v1').events().param(WINDOW);

    const seen: number[] = [];
    let totalPages = Infinity;
    for (let page = 1; page <= totalPages; page++) {
      const body = await events().page(page).perPage(3).get();
      assert.equal(body._paging.total, 7);
      assert.equal(body._paging.totalPages, 3);
      assert.equal(body._paging.total, body.total);
      totalPages = body._paging.totalPages;
      assert.equal(Boolean(body._paging.next), page < 3, `next on page ${page}`);
      assert.equal(Boolean(body._paging.prev), page > 1, `prev on page ${page}`);
      seen.push(...body.events.map((e: Json) => e.id));
    }
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );

    // following _paging.next, as generic clients do
    const followed: number[] = [];
    let body = await events().perPage(2).get();
    for (;;) {
      followed.push(...body.events.map((e: Json) => e.id));
      if (!body._paging.next) break;
      body = await body._paging.next.get();
    }
    assert.equal(new Set(followed).size, 7);
    assert.deepEqual(
      [...followed].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );

    // the last page points back
    const last = await events().perPage(2).page(4).get();
    assert.equal(last._paging.prev.toString().includes('page=3'), true);
    const prev = await last._paging.prev.get();
    assert.equal(prev.events.length, 2);

    // venues, organizers and the terms page the same way
    for (const name of ['Paged Hall A', 'Paged Hall B']) assert.equal((await t.api.post('/venues', { as: 'admin', json: { venue: name } })).status, 201);
    const venues = await site.namespace('tribe/events/v1').venues().perPage(1).get();
    assert.equal(venues._paging.totalPages, venues.total);
    assert.ok(venues._paging.next);
    const second = await venues._paging.next.get();
    assert.notEqual(second.venues[0].id, venues.venues[0].id);
  });

  it('an authenticated client follows _paging.next and _paging.prev (Link carries status=any, which is accepted)', async () => {
    const ids = await seedEvents(t, 5, 'Paged as admin');
    const draft = await t.api.post('/events', { as: 'admin', json: { title: 'Paged draft', status: 'draft', start_date: '2028-05-20 10:00', end_date: '2028-05-20 11:00' } });
    assert.equal(draft.status, 201);
    const site = await WPAPI.discover(t.origin);
    site.auth({ username: ADMIN.login, password: ADMIN.password });
    const followed: number[] = [];
    let body = await site.namespace('tribe/events/v1').events().param(WINDOW).perPage(2).get();
    assert.match(body._paging.next.toString(), /status=any/);
    let pages = 1;
    for (;;) {
      followed.push(...body.events.map((e: Json) => e.id));
      if (!body._paging.next) break;
      body = await body._paging.next.get();
      pages++;
    }
    const all = await t.api.get('/events', { as: 'admin', query: { ...WINDOW, per_page: 50 } });
    assert.equal(pages, Math.ceil(all.body.total / 2));
    assert.equal(new Set(followed).size, followed.length, 'each event once');
    assert.deepEqual(
      [...followed].sort((a, b) => a - b),
      all.body.events.map((e: Json) => e.id).sort((a: number, b: number) => a - b),
    );
    for (const id of [...ids, draft.body.id]) assert.ok(followed.includes(id), `event ${id} reached`);
    const prev = await body._paging.prev.get();
    assert.equal(prev.events.length, 2);
    // venues page the same way for an editor
    for (const name of ['Auth Hall A', 'Auth Hall B']) assert.equal((await t.api.post('/venues', { as: 'admin', json: { venue: name, status: 'draft' } })).status, 201);
    const venues = await site.namespace('tribe/events/v1').venues().perPage(1).get();
    assert.ok(venues._paging.next);
    assert.match(venues._paging.next.toString(), /status=any/);
    const second = await venues._paging.next.get();
    assert.notEqual(second.venues[0].id, venues.venues[0].id);
  });

  for (const auth of ['password', 'application password'] as const) {
    it(`creates, updates, reads by slug and deletes the five kinds with Basic auth (${auth})`, async () => {
      const password = auth === 'password' ? ADMIN.password : await appPassword(t, ADMIN.login);
      const site = await WPAPI.discover(t.origin);
      site.auth({ username: ADMIN.login, password });
      for (const ns of ['tribe/events/v1', 'calendar/events/v1']) {
        const api = site.namespace(ns);
        for (const r of RESOURCES) {
          const handler = () => api[r.name]();
          const label = `${auth} ${ns} ${r.name}`;
          const created = await handler().create({ ...r.create, [r.field]: `${(r.create as Json)[r.field]} ${auth} ${ns}` });
          assert.ok(created.id > 0, label);
          const updated = await handler()
            .id(created.id)
            .update({ [r.field]: `${(r.update as Json)[r.field]} ${auth} ${ns}` });
          assert.equal(updated[r.field], `${(r.update as Json)[r.field]} ${auth} ${ns}`, label);
          if (r.name === 'events') assert.equal(updated.rest_url, `${t.origin}/api/${ns}/events/${created.id}`);
          if (r.name === 'categories' || r.name === 'tags') assert.deepEqual(updated._links.self, [{ href: `${t.origin}/api/${ns}/${r.name}/${created.id}` }]);
          // read by slug: by-slug routes for posts, the `slug` filter for terms
          if (r.bySlug) {
            const bySlug = await handler().bySlug(updated.slug).get();
            assert.equal(bySlug.id, created.id, label);
          } else {
            const list = await handler().param({ slug: updated.slug, hide_empty: 0 }).get();
            assert.deepEqual(
              list[r.name].map((x: Json) => x.id),
              [created.id],
              label,
            );
          }
          const read = await handler().id(created.id).get();
          assert.equal(read.id, created.id);
          const deleted = await handler().id(created.id).delete();
          assert.equal(deleted.id, created.id, label);
        }
      }
    });
  }

  it('rejects with the API error objects: 400, 401, 403, 404', async () => {
    await t.user('subscriber');
    const anonymous = (await WPAPI.discover(t.origin)).namespace('tribe/events/v1');
    const subscriberSite = await WPAPI.discover(t.origin);
    subscriberSite.auth({ username: 'subscriber', password: 'subscriber-pw' });
    const subscriber = subscriberSite.namespace('tribe/events/v1');
    const fails = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        return e as Json;
      }
      assert.fail('expected a rejection');
    };
    const bad = await fails(anonymous.events().param('page', 'abc').get());
    assert.equal(bad.code, 'rest_invalid_param');
    assert.equal(bad.data.status, 400);
    assert.ok(bad.data.params.page);
    const unauth = await fails(anonymous.tags().create({ name: 'Nope' }));
    assert.deepEqual(unauth, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
    const forbidden = await fails(subscriber.venues().create({ venue: 'Nope' }));
    assert.deepEqual(forbidden, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
    const missing = await fails(anonymous.events().id(987654).get());
    assert.equal(missing.code, 'rest-event-not-found');
    assert.equal(missing.data.status, 404);
  });

  it('gets the same bodies under tribe/events/v1 as under calendar/events/v1, URLs aside', async () => {
    const site = await WPAPI.discover(`${t.origin}/wp-json`);
    const strip = (value: unknown) =>
      JSON.stringify(value)
        .split('/tribe/events/v1')
        .join('/NS')
        .split('/calendar/events/v1')
        .join('/NS')
        .replace(/&#\d+;/g, '');
    for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      const query = resource === 'events' ? WINDOW : { hide_empty: 0 };
      const tribe = await site.namespace('tribe/events/v1')[resource]().param(query).get();
      const ours = await site.namespace('calendar/events/v1')[resource]().param(query).get();
      delete tribe._paging;
      delete ours._paging;
      assert.equal(strip(tribe), strip(ours), resource);
    }
  });
});

forEachStore('@wordpress/api-fetch 7 as a client', (t) => {
  /** The REST root URL the middleware points at (switched per test). */
  let root = '/wp-json/';
  const rootUrl = (options: Json, next: (o: Json) => Promise<unknown>) => apiFetch.createRootURLMiddleware(`${t.origin}${root}`)(options as never, next as never);
  before(() => apiFetch.use(rootUrl as never));
  after(() => apiFetch.unregister(rootUrl as never));

  const basic = (login: string, password: string) => ({ Authorization: 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64') });
  const fails = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as Json;
    }
    assert.fail('expected a rejection');
  };

  it('lists with its default _locale=user argument and pages with X-WP-TotalPages and Link rel="next"', async () => {
    root = '/wp-json/';
    const ids = await seedEvents(t, 5, 'Fetched');
    const query = new URLSearchParams({ ...WINDOW, per_page: '2' }).toString();
    const body = (await apiFetch({ path: `/tribe/events/v1/events?${query}` })) as Json;
    assert.equal(body.total, 5);
    assert.ok(body.rest_url.startsWith(`${t.origin}/wp-json/tribe/events/v1/events/`));

    // page through with the raw responses, following Link rel="next" as api-fetch's own fetch-all does
    const seen: number[] = [];
    let response = (await apiFetch({ path: `/tribe/events/v1/events?${query}`, parse: false })) as Response;
    assert.match(response.url, /_locale=user/);
    for (;;) {
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-wp-total'), '5');
      assert.equal(response.headers.get('x-wp-totalpages'), '3');
      const page = (await response.json()) as Json;
      seen.push(...page.events.map((e: Json) => e.id));
      const next = response.headers.get('link')?.match(/<([^>]+)>; rel="next"/)?.[1];
      assert.equal(next, page.next_rest_url);
      if (!next) break;
      response = (await apiFetch({ url: next, parse: false })) as Response;
    }
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );
  });

  for (const auth of ['password', 'application password'] as const) {
    it(`creates (POST), updates (PUT as X-HTTP-Method-Override) and deletes (DELETE as override) the five kinds (${auth})`, async () => {
      root = '/wp-json/';
      const password = auth === 'password' ? ADMIN.password : await appPassword(t, ADMIN.login);
      const headers = basic(ADMIN.login, password);
      // What api-fetch really sends, after its default middlewares.
      const sent: Json[] = [];
      apiFetch.setFetchHandler((options) => {
        sent.push(options as Json);
        return apiFetch.defaultFetchHandler(options);
      });
      after(() => apiFetch.setFetchHandler(apiFetch.defaultFetchHandler));
      for (const r of RESOURCES) {
        const base = `/tribe/events/v1/${r.name}`;
        const created = (await apiFetch({ path: base, method: 'POST', data: { ...r.create, [r.field]: `${(r.create as Json)[r.field]} fetch ${auth}` }, headers })) as Json;
        assert.ok(created.id > 0, r.name);
        const updated = (await apiFetch({ path: `${base}/${created.id}`, method: 'PUT', data: r.update, headers })) as Json;
        assert.equal(updated[r.field], (r.update as Json)[r.field], r.name);
        const read = r.bySlug
          ? ((await apiFetch({ path: `${base}/by-slug/${updated.slug}` })) as Json)
          : (((await apiFetch({ path: `${base}?slug=${updated.slug}&hide_empty=0` })) as Json)[r.name][0] as Json);
        assert.equal(read.id, created.id, r.name);
        const deleted = (await apiFetch({ path: `${base}/${created.id}`, method: 'DELETE', headers })) as Json;
        assert.equal(deleted.id, created.id, r.name);
      }
      apiFetch.setFetchHandler(apiFetch.defaultFetchHandler);
      const overridden = sent.filter((o) => o.headers?.['X-HTTP-Method-Override']);
      assert.deepEqual([...new Set(overridden.map((o) => `${o.method} as ${o.headers['X-HTTP-Method-Override']}`))], ['POST as PUT', 'POST as DELETE']);
      assert.ok(sent.every((o) => /[?&]_locale=user/.test(o.url)));
    });
  }

  it('works through the ?rest_route= root', async () => {
    root = '/?rest_route=/';
    try {
      const index = (await apiFetch({ path: '/tribe/events/v1' })) as Json;
      assert.equal(index.namespace, 'tribe/events/v1');
      const list = (await apiFetch({ path: '/tribe/events/v1/venues?per_page=1' })) as Json;
      assert.ok(Array.isArray(list.venues));
      const created = (await apiFetch({ path: '/tribe/events/v1/tags', method: 'POST', data: { name: 'Via rest_route' }, headers: basic(ADMIN.login, ADMIN.password) })) as Json;
      const updated = (await apiFetch({ path: `/tribe/events/v1/tags/${created.id}`, method: 'PATCH', data: { name: 'Via rest_route 2' }, headers: basic(ADMIN.login, ADMIN.password) })) as Json;
      assert.equal(updated.name, 'Via rest_route 2');
      const root = (await apiFetch({ path: '/' })) as Json;
      assert.deepEqual(root.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
    } finally {
      root = '/wp-json/';
    }
  });

  it('rejects with the API error objects: 400, 401, 403, 404', async () => {
    root = '/wp-json/';
    await t.user('subscriber');
    const bad = await fails(apiFetch({ path: '/tribe/events/v1/events?per_page=zero' }));
    assert.equal(bad.code, 'rest_invalid_param');
    assert.equal(bad.data.status, 400);
    const unauth = await fails(apiFetch({ path: '/tribe/events/v1/organizers', method: 'POST', data: { organizer: 'Nope' } }));
    assert.deepEqual(unauth, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
    const forbidden = await fails(apiFetch({ path: '/tribe/events/v1/categories', method: 'POST', data: { name: 'Nope' }, headers: basic('subscriber', 'subscriber-pw') }));
    assert.deepEqual(forbidden, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
    // unknown venue ids keep the original's 400 (docs/api.md), unknown events are 404
    const missing = await fails(apiFetch({ path: '/tribe/events/v1/venues/987654' }));
    assert.equal(missing.code, 'rest_invalid_param');
    const noEvent = await fails(apiFetch({ path: '/tribe/events/v1/events/987654' }));
    assert.equal(noEvent.code, 'rest-event-not-found');
    assert.equal(noEvent.data.status, 404);
  });
});
