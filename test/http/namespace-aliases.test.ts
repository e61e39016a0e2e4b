/**
 * Issue 17: existing clients of the original keep working. The original's namespace
 * (`tribe/events/v1`) and WordPress' REST root (`/wp-json`) answer as aliases, with the REST URLs
 * of an answer under the root and namespace of the request; the site root is discoverable; lists
 * send WordPress' paging headers. (JSONP: jsonp.test.ts; real clients: wp-clients.test.ts.)
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { createEvent, createTerm } from '../support/fixtures.js';

const OURS = '/api/calendar/events/v1';
const WINDOW = { start_date: '2027-01-01', end_date: '2027-12-31' };

/** Fill a store with one of each kind, plus three events to page through. */
async function seed(t: TestServer): Promise<{ event: number; venue: number; organizer: number; category: number; tag: number; slug: string }> {
  const category = await createTerm(t, 'categories', { name: 'Jazz', description: 'Live jazz' });
  const tag = await createTerm(t, 'tags', { name: 'Outdoor' });
  const venue = (await t.api.post('/venues', { as: 'admin', json: { venue: 'Blue Hall', city: 'Rome', country: 'Italy' } })).body.id;
  const organizer = (await t.api.post('/organizers', { as: 'admin', json: { organizer: 'Ann Org', email: 'ann@example.com' } })).body.id;
  const event = await createEvent(t, {
    title: 'Alias Concert',
    start_date: '2027-05-01 20:00',
    end_date: '2027-05-01 22:00',
    venue,
    organizer: [organizer],
    categories: [category],
    tags: [tag],
    description: 'Hello <b>world</b>',
  });
  await createEvent(t, { title: 'Second', start_date: '2027-06-01 20:00', end_date: '2027-06-01 22:00' });
  await createEvent(t, { title: 'Third', start_date: '2027-07-01 20:00', end_date: '2027-07-01 22:00' });
  const slug = (await t.api.get(`/events/${event}`)).body.slug;
  return { event, venue, organizer, category, tag, slug };
}

/** An alias's answer (or header) with its URLs and namespace names moved to ours: must equal ours byte for byte. */
function asOurs(text: string, root: string, ns: string): string {
  const moved = text.split(`${root}/${ns}`).join(OURS).split(`${root}/`).join('/api/');
  return moved.split(`"/${ns}`).join('"/calendar/events/v1').split(`"namespace":"${ns}"`).join('"namespace":"calendar/events/v1"').split(`"default":"${ns}"`).join('"default":"calendar/events/v1"');
}

function decodeNumericEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
}

forEachStore('the original namespace and /wp-json as aliases', (t) => {
  let ids: Awaited<ReturnType<typeof seed>>;
  const get = (path: string, init: RequestInit = {}) => fetch(`${t.origin}${path}`, init);

  it('answers every read under /wp-json/tribe/events/v1 (and /api/tribe/…, /wp-json/calendar/…) with our bodies, URLs aside', async () => {
    ids = await seed(t);
    const q = new URLSearchParams({ ...WINDOW, per_page: '2' }).toString();
    const paths = [
      '',
      '/doc',
      `/events?${q}`,
      `/events?${q}&page=2`,
      `/events?${q}&venue=${ids.venue}&categories=${ids.category}`,
      `/events/${ids.event}`,
      `/events/by-slug/${ids.slug}`,
      '/venues',
      `/venues/${ids.venue}`,
      '/organizers',
      `/organizers/${ids.organizer}`,
      '/categories?hide_empty=0',
      `/categories/${ids.category}`,
      '/tags',
      `/tags/${ids.tag}`,
      '/events/999999',
      '/events?page=abc',
      '/nope',
    ];
    for (const [root, ns] of [
      ['/wp-json', 'tribe/events/v1'],
      ['/api', 'tribe/events/v1'],
      ['/wp-json', 'calendar/events/v1'],
    ]) {
      for (const path of paths) {
        const ours = await get(`${OURS}${path}`);
        const alias = await get(`${root}/${ns}${path}`);
        const ourText = await ours.text();
        const aliasText = await alias.text();
        assert.equal(alias.status, ours.status, `${root}/${ns}${path}`);
        if (ns !== 'calendar/events/v1') assert.ok(!aliasText.includes('/calendar/events/v1'), `${root}/${ns}${path} names no URL of ours`);
        // Organizer e-mails are obfuscated at random (WordPress' antispambot): compared decoded.
        // The indexes declare the date window's defaults, computed from the clock at each request:
        // the two requests may fall in different seconds.
        const clockFree = (text: string) => (path === '' || path === '/doc' ? text.replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, 'YYYY-MM-DD HH:MM:SS') : text);
        assert.equal(clockFree(decodeNumericEntities(asOurs(aliasText, root, ns))), clockFree(decodeNumericEntities(ourText)), `${root}/${ns}${path}`);
        assert.equal(asOurs(alias.headers.get('link') ?? '', root, ns), ours.headers.get('link'), `${root}/${ns}${path}: Link`);
        assert.equal(alias.headers.get('link')?.startsWith(`<${t.origin}${root}/>; rel="https://api.w.org/"`), true, `${root}/${ns}${path}: discovery under the request's root`);
        for (const h of ['x-tec-total', 'x-tec-totalpages', 'x-wp-total', 'x-wp-totalpages', 'allow', 'content-type']) assert.equal(alias.headers.get(h), ours.headers.get(h), `${path} ${h}`);
      }
    }
  });

  it('puts URLs under the namespace and root of the request: rest_url, next/previous, _links, servers, Location', async () => {
    const base = `${t.origin}/wp-json/tribe/events/v1`;
    const list = await (await get(`/wp-json/tribe/events/v1/events?${new URLSearchParams({ ...WINDOW, per_page: '1', page: '2' })}`)).json();
    assert.ok(list.rest_url.startsWith(`${base}/events/?`));
    assert.ok(list.next_rest_url.startsWith(`${base}/events/?`));
    assert.ok(list.previous_rest_url.startsWith(`${base}/events/?`));
    assert.equal(list.events[0].rest_url, `${base}/events/${list.events[0].id}`);
    // public permalinks do not move
    assert.equal(list.events[0].url.startsWith(`${t.origin}/event/`), true);
    const ns = await (await get('/wp-json/tribe/events/v1')).json();
    assert.equal(ns.namespace, 'tribe/events/v1');
    assert.deepEqual(ns._links, { up: [{ href: `${t.origin}/wp-json/` }] });
    assert.deepEqual(ns.routes['/tribe/events/v1/events']._links, { self: [{ href: `${base}/events` }] });
    assert.deepEqual(ns.routes['/tribe/events/v1'].endpoints[0].args.namespace, { default: 'tribe/events/v1', required: false });
    const doc = await (await get('/wp-json/tribe/events/v1/doc')).json();
    assert.deepEqual(doc.servers, [{ url: base }]);
    const term = await (await get(`/wp-json/tribe/events/v1/categories/${ids.category}`)).json();
    assert.deepEqual(term._links.self, [{ href: `${base}/categories/${ids.category}` }]);
    assert.deepEqual(term._links.about, [{ href: `${base}/` }]);
    // a namespace the request did not come in on is refused, as WordPress does
    const other = await get('/wp-json/tribe/events/v1?namespace=calendar/events/v1');
    assert.equal(other.status, 404);
    // writes answer with the request's URLs too
    const auth = { authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64'), 'content-type': 'application/json' };
    const created = await get('/wp-json/tribe/events/v1/tags', { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Alias Tag' }) });
    assert.equal(created.status, 201);
    const tag = await created.json();
    assert.equal(created.headers.get('location'), `${base}/tags/${tag.id}`);
    const event = await get('/wp-json/tribe/events/v1/events', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Via alias', start_date: '2027-09-01 10:00', end_date: '2027-09-01 11:00' }),
    });
    assert.equal(event.status, 201);
    assert.equal((await event.json()).rest_url.startsWith(`${base}/events/`), true);
    // OPTIONS gives the route's entry in the request's namespace
    const options = await (await get('/wp-json/tribe/events/v1/events', { method: 'OPTIONS' })).json();
    assert.equal(options.namespace, 'tribe/events/v1');
  });

  it('routes ?rest_route=/tribe/events/v1/… like our own namespace', async () => {
    const res = await get(`/?rest_route=/tribe/events/v1/events/${ids.event}`);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).rest_url, `${t.origin}/api/tribe/events/v1/events/${ids.event}`);
    const index = await get('/?rest_route=/tribe/events/v1');
    assert.equal((await index.json()).namespace, 'tribe/events/v1');
    const root = await (await get('/?rest_route=/')).json();
    assert.deepEqual(root.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
  });

  it('serves the root index under /wp-json too, listing both namespaces and their routes with /wp-json URLs', async () => {
    for (const root of ['/api', '/wp-json']) {
      const res = await get(`${root}/`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.deepEqual(body.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
      assert.ok(body.routes['/calendar/events/v1/events']);
      assert.equal(body.routes['/tribe/events/v1/events'].namespace, 'tribe/events/v1');
      assert.deepEqual(body.routes['/tribe/events/v1/events']._links, { self: [{ href: `${t.origin}${root}/tribe/events/v1/events` }] });
      assert.deepEqual(body.routes['/']._links, { self: [{ href: `${t.origin}${root}/` }] });
      assert.equal(res.headers.get('link'), `<${t.origin}${root}/>; rel="https://api.w.org/"`);
    }
  });

  it('answers GET and HEAD on the site root with the discovery Link header and <link>', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await get('/', { method });
      assert.equal(res.status, 200, method);
      assert.equal(res.headers.get('link'), `<${t.origin}/api/>; rel="https://api.w.org/"`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      if (method === 'GET') {
        const html = await res.text();
        assert.ok(html.includes(`<link rel="https://api.w.org/" href="${t.origin}/api/">`));
        assert.ok(html.includes('href="/docs"'));
      }
    }
  });
});

forEachStore('WordPress paging headers on the five lists', (t) => {
  const get = (path: string, method = 'GET') => fetch(`${t.origin}${OURS}${path}`, { method });
  const links = (res: Response) => {
    const out: Record<string, string> = {};
    for (const m of (res.headers.get('link') ?? '').matchAll(/<([^>]+)>; rel="([^"]+)"/g)) out[m[2]] = m[1];
    return out;
  };

  it('sends X-WP-Total/X-WP-TotalPages equal to X-TEC-*, and Link next/prev as next_rest_url/previous_rest_url, beside the discovery link, also on HEAD', async () => {
    for (let i = 0; i < 3; i++) {
      await createEvent(t, { title: `Paged ${i}`, start_date: `2027-03-0${i + 1} 10:00`, end_date: `2027-03-0${i + 1} 11:00` });
      await t.api.post('/venues', { as: 'admin', json: { venue: `Venue ${i}` } });
      await t.api.post('/organizers', { as: 'admin', json: { organizer: `Organizer ${i}` } });
      await createTerm(t, 'categories', { name: `Cat ${i}` });
      await createTerm(t, 'tags', { name: `Tag ${i}` });
    }
    for (const list of ['events', 'venues', 'organizers']) {
      const extra = list === 'events' ? `&start_date=2027-01-01&end_date=2027-12-31` : '';
      for (const page of [1, 2, 3]) {
        for (const method of ['GET', 'HEAD']) {
          const res = await get(`/${list}?per_page=1&page=${page}${extra}`, method);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get('x-wp-total'), '3', `${list} ${method}`);
          assert.equal(res.headers.get('x-wp-totalpages'), '3');
          assert.equal(res.headers.get('x-tec-total'), '3');
          const l = links(res);
          assert.equal(l['https://api.w.org/'], `${t.origin}/api/`);
          assert.ok(res.headers.get('link')!.startsWith(`<${t.origin}/api/>; rel="https://api.w.org/"`));
          if (method === 'GET') {
            const body = await (await get(`/${list}?per_page=1&page=${page}${extra}`)).json();
            assert.equal(l.next, body.next_rest_url, `${list} page ${page} next`);
            assert.equal(l.prev, body.previous_rest_url, `${list} page ${page} prev`);
          }
          assert.equal('next' in l, page < 3);
          assert.equal('prev' in l, page > 1);
        }
      }
    }
    // Terms: next/previous_rest_url drop the query (as recorded); the Link header keeps it.
    for (const list of ['categories', 'tags']) {
      const res = await get(`/${list}?per_page=1&hide_empty=0&orderby=name&page=2`);
      assert.equal(res.headers.get('x-wp-total'), '3');
      assert.equal(res.headers.get('x-wp-totalpages'), '3');
      const l = links(res);
      assert.equal(l.next, `${t.origin}${OURS}/${list}/?per_page=1&hide_empty=0&orderby=name&page=3`);
      assert.equal(l.prev, `${t.origin}${OURS}/${list}/?per_page=1&hide_empty=0&orderby=name`);
      const head = await get(`/${list}?per_page=1&hide_empty=0&page=1`, 'HEAD');
      assert.equal(head.headers.get('x-wp-totalpages'), '3');
      assert.equal(links(head).next, `${t.origin}${OURS}/${list}/?per_page=1&hide_empty=0&page=2`);
    }
    // A single record has no paging headers.
    const single = await t.api.get('/venues');
    const one = await get(`/venues/${single.body.venues[0].id}`);
    assert.equal(one.headers.get('x-wp-total'), null);
    assert.equal(one.headers.get('link'), `<${t.origin}/api/>; rel="https://api.w.org/"`);
  });

  it('documents the headers in /doc', async () => {
    const doc = await (await get('/doc')).json();
    for (const path of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
      const headers = doc.paths[path].get.responses['200'].headers;
      assert.deepEqual(Object.keys(headers), ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages', 'Link', 'X-Sync-Token', 'X-Sync-More'], path);
    }
  });
});

forEachStore(
  'NAMESPACE_ALIASES empty turns the alias off',
  (t) => {
    it('answers 404 under tribe/events/v1 and lists only our namespace; /wp-json still works', async () => {
      const res = await fetch(`${t.origin}/api/tribe/events/v1/events`);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).code, 'rest_no_route');
      assert.equal((await fetch(`${t.origin}/wp-json/tribe/events/v1/events`)).status, 404);
      const root = await (await fetch(`${t.origin}/api/`)).json();
      assert.deepEqual(root.namespaces, ['calendar/events/v1', 'tec/v1', 'wp/v2']);
      assert.equal(
        Object.keys(root.routes).some((k) => k.startsWith('/tribe/')),
        false,
      );
      assert.equal((await fetch(`${t.origin}/wp-json/calendar/events/v1/events`)).status, 200);
    });
  },
  { NAMESPACE_ALIASES: '' },
);

forEachStore(
  'several aliases',
  (t) => {
    it('serves each, in the order given', async () => {
      const root = await (await fetch(`${t.origin}/api/`)).json();
      assert.deepEqual(root.namespaces, ['calendar/events/v1', 'tribe/events/v1', 'legacy/events/v2', 'tec/v1', 'wp/v2']);
      const res = await fetch(`${t.origin}/wp-json/legacy/events/v2/venues`);
      assert.equal(res.status, 200);
      assert.equal((await res.json()).rest_url, `${t.origin}/wp-json/legacy/events/v2/venues/?page=1&per_page=10&status=publish`);
    });
  },
  { NAMESPACE_ALIASES: 'tribe/events/v1, legacy/events/v2' },
);

forEachStore(
  'REST_ROOT=/wp-json',
  (t) => {
    it('registers /wp-json once (the server starts) and serves both namespaces there only', async () => {
      const root = await fetch(`${t.origin}/wp-json/`);
      assert.equal(root.status, 200);
      assert.deepEqual((await root.json()).namespaces, ['calendar/events/v1', 'tribe/events/v1', 'tec/v1', 'wp/v2']);
      assert.equal((await fetch(`${t.origin}/wp-json/tribe/events/v1/events`)).status, 200);
      assert.equal((await fetch(`${t.origin}/api/calendar/events/v1/events`)).status, 404);
      const site = await fetch(`${t.origin}/`);
      assert.equal(site.headers.get('link'), `<${t.origin}/wp-json/>; rel="https://api.w.org/"`);
    });
  },
  { REST_ROOT: '/wp-json' },
);
