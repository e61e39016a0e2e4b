/**
 * Categories and tags, read side: single terms and lists (envelope, paging, headers, hide_empty,
 * filters, ordering, parameter errors), compared with the recorded exchanges 08* and 09*, and the
 * routes' entries in the namespace index.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { example, forEachStore, keysOf, shapeOf } from '../support/harness.js';
import { createEvent as event, createTerm as term } from '../support/fixtures.js';

const names = (list: Array<{ name: string }>) => list.map((x) => x.name);

forEachStore('terms: single and list shapes', (t) => {
  let concerts = 0;
  let jazz = 0;
  let outdoor = 0;

  it('answers an empty list with zero totals and no paging links', async () => {
    for (const base of ['categories', 'tags'] as const) {
      const res = await t.api.get(`/${base}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { rest_url: `${t.base}/${base}/`, total: 0, total_pages: 0, [base]: [] });
      assert.equal(res.headers.get('x-tec-total'), '0');
      assert.equal(res.headers.get('x-tec-totalpages'), '0');
    }
  });

  it('GET /categories/{id} has the recorded shape with _links pointing at our routes (examples/08)', async () => {
    concerts = await term(t, 'categories', { name: 'Concerts' });
    await event(t, { categories: [concerts] });
    const res = await t.api.get(`/categories/${concerts}`);
    const recorded = await example('08-get-category-single.json');
    assert.equal(res.status, recorded.status);
    assert.deepEqual(shapeOf(res.body), shapeOf(recorded.body));
    assert.deepEqual(keysOf(res.body._links), keysOf(recorded.body._links));
    assert.equal(res.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.equal(res.headers.get('allow'), 'GET');
    assert.deepEqual(res.body, {
      id: concerts,
      count: 1,
      description: '',
      name: 'Concerts',
      slug: 'concerts',
      taxonomy: 'tribe_events_cat',
      parent: 0,
      meta: [],
      url: `${t.origin}/events/category/concerts/`,
      urls: { self: `${t.base}/categories/${concerts}`, collection: `${t.base}/categories` },
      _links: {
        self: [{ href: `${t.base}/categories/${concerts}` }],
        collection: [{ href: `${t.base}/categories` }],
        about: [{ href: `${t.base}/` }],
        'wp:post_type': [{ href: `${t.base}/events?categories=${concerts}` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      },
    });
  });

  it('GET /tags/{id} has the recorded shape: no parent key, tag permalink (examples/09)', async () => {
    jazz = await term(t, 'tags', { name: 'jazz' });
    outdoor = await term(t, 'tags', { name: 'outdoor' });
    await event(t, { tags: [jazz, outdoor] });
    const res = await t.api.get(`/tags/${jazz}`);
    const recorded = await example('09-get-tag-single.json');
    assert.equal(res.status, 200);
    assert.deepEqual(shapeOf(res.body), shapeOf(recorded.body));
    assert.deepEqual(keysOf(res.body._links), keysOf(recorded.body._links));
    assert.equal('parent' in res.body, false);
    assert.equal(res.body.taxonomy, 'post_tag');
    assert.equal(res.body.count, 1);
    assert.equal(res.body.url, `${t.origin}/events/tag/jazz/`);
    assert.deepEqual(res.body.urls, { self: `${t.base}/tags/${jazz}`, collection: `${t.base}/tags` });
    assert.deepEqual(res.body._links['wp:post_type'], [{ href: `${t.base}/events?tags=${jazz}` }]);
  });

  it('GET /categories and /tags have the recorded envelopes and X-TEC headers (examples/08b, 09b)', async () => {
    const cats = await t.api.get('/categories');
    const recordedCats = await example('08b-get-categories-list.json');
    assert.equal(cats.status, 200);
    assert.deepEqual(shapeOf(cats.body), shapeOf(recordedCats.body));
    assert.deepEqual(keysOf(cats.body), keysOf(recordedCats.body));
    assert.equal(cats.body.rest_url, `${t.base}/categories/`);
    assert.equal(cats.body.categories[0]._links, undefined, 'list items have no _links');
    assert.equal(cats.headers.get('x-tec-total'), '1');
    assert.equal(cats.headers.get('x-tec-totalpages'), '1');

    const tags = await t.api.get('/tags');
    const recordedTags = await example('09b-get-tags-list.json');
    assert.deepEqual(shapeOf(tags.body), shapeOf(recordedTags.body));
    assert.deepEqual(keysOf(tags.body), keysOf(recordedTags.body));
    assert.deepEqual(names(tags.body.tags), ['jazz', 'outdoor']);
    assert.equal(tags.body.total, 2);
    assert.equal(tags.headers.get('x-tec-total'), '2');
    assert.equal(tags.headers.get('x-tec-totalpages'), '1');
  });

  it('answers 400 rest_invalid_param params.id for an unknown id or one of the other taxonomy, 404 for a non-numeric one', async () => {
    for (const [path, as] of [
      [`/categories/${jazz}`, null],
      [`/tags/${concerts}`, null],
      ['/categories/987654', 'admin'],
      ['/tags/987654', null],
    ] as const) {
      const res = await t.api.get(path, { as });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(res.body.data.params, { id: 'Invalid parameter.' });
    }
    const nonNumeric = await t.api.get('/categories/abc');
    assert.equal(nonNumeric.status, 404);
    assert.equal(nonNumeric.body.code, 'rest_no_route');
  });

  it('lists the terms in the namespace index as the reference declares them', async () => {
    const res = await t.api.get('');
    const recorded = (await example('01-get-namespace-index.json')).body.routes;
    for (const base of ['categories', 'tags']) {
      for (const suffix of ['', '/(?P<id>\\d+)']) {
        const ours = res.body.routes[`/calendar/events/v1/${base}${suffix}`];
        const theirs = recorded[`/tribe/events/v1/${base}${suffix}`];
        assert.ok(ours, `${base}${suffix} is in the index`);
        assert.deepEqual(ours.methods, theirs.methods);
        assert.equal(ours.endpoints.length, theirs.endpoints.length);
        ours.endpoints.forEach((e: { methods: string[]; args: Record<string, Record<string, unknown>> }, i: number) => {
          const ref = theirs.endpoints[i];
          assert.deepEqual(e.methods, ref.methods);
          // Ours beyond the recorded ones: `sync_token` on the list (issue 11).
          assert.deepEqual(
            Object.keys(e.args).filter((n) => n !== 'sync_token'),
            Object.keys(ref.args),
            `${base}${suffix} ${e.methods} arg names`,
          );
          for (const [name, spec] of Object.entries(ref.args as Record<string, Record<string, unknown>>)) {
            const mine = Object.fromEntries(Object.entries(e.args[name]).sort(([a], [b]) => a.localeCompare(b)));
            const expected = Object.fromEntries(Object.entries(spec).sort(([a], [b]) => a.localeCompare(b)));
            assert.deepEqual(mine, expected, `${base}${suffix} ${e.methods} ${name}`);
          }
        });
        if (suffix === '') assert.deepEqual(ours._links, { self: [{ href: `${t.base}/${base}` }] });
      }
    }
  });
});

forEachStore('terms: list paging', (t) => {
  it('pages with bare next/previous URLs, and a page past the end is 200 and empty', async () => {
    for (const name of ['A1', 'A2', 'A3', 'A4', 'A5']) await term(t, 'categories', { name });

    const p1 = await t.api.get('/categories', { query: { hide_empty: 0, per_page: 2 } });
    assert.equal(p1.status, 200);
    assert.deepEqual(keysOf(p1.body), ['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url']);
    assert.equal(p1.body.rest_url, `${t.base}/categories/`);
    assert.equal(p1.body.total, 5);
    assert.equal(p1.body.total_pages, 3);
    assert.deepEqual(names(p1.body.categories), ['A1', 'A2']);
    assert.equal(p1.body.next_rest_url, `${t.base}/categories/?page=2`);
    assert.equal(p1.headers.get('x-tec-total'), '5');
    assert.equal(p1.headers.get('x-tec-totalpages'), '3');

    const p2 = await t.api.get('/categories', { query: { hide_empty: 0, per_page: 2, page: 2 } });
    assert.deepEqual(keysOf(p2.body), ['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url', 'previous_rest_url']);
    assert.deepEqual(names(p2.body.categories), ['A3', 'A4']);
    assert.equal(p2.body.next_rest_url, `${t.base}/categories/?page=3`);
    assert.equal(p2.body.previous_rest_url, `${t.base}/categories/`);

    const p3 = await t.api.get('/categories', { query: { hide_empty: 0, per_page: 2, page: 3 } });
    assert.deepEqual(keysOf(p3.body), ['rest_url', 'total', 'total_pages', 'categories', 'previous_rest_url']);
    assert.deepEqual(names(p3.body.categories), ['A5']);
    assert.equal(p3.body.previous_rest_url, `${t.base}/categories/?page=2`);

    const past = await t.api.get('/categories', { query: { hide_empty: 0, per_page: 2, page: 5 } });
    assert.equal(past.status, 200);
    assert.deepEqual(past.body, { rest_url: `${t.base}/categories/`, total: 5, total_pages: 3, categories: [], previous_rest_url: `${t.base}/categories/?page=4` });
    assert.equal(past.headers.get('x-tec-total'), '5');
  });

  it('pages tags the same way', async () => {
    for (const name of ['t1', 't2', 't3']) await term(t, 'tags', { name });
    const p2 = await t.api.get('/tags', { query: { hide_empty: 'false', per_page: 2, page: 2 } });
    assert.deepEqual(p2.body, {
      rest_url: `${t.base}/tags/`,
      total: 3,
      total_pages: 2,
      tags: p2.body.tags,
      previous_rest_url: `${t.base}/tags/`,
    });
    assert.deepEqual(names(p2.body.tags), ['t3']);
  });

  it('defaults per_page to 10', async () => {
    for (let i = 6; i <= 12; i++) await term(t, 'categories', { name: `A${String(i).padStart(2, '0')}` });
    const res = await t.api.get('/categories', { query: { hide_empty: 0 } });
    assert.equal(res.body.total, 12);
    assert.equal(res.body.total_pages, 2);
    assert.equal(res.body.categories.length, 10);
  });

  it('rejects bad page and per_page values', async () => {
    for (const query of [{ page: 0 }, { page: 'foo' }, { per_page: -1 }, { per_page: 'foo bar' }] as Array<Record<string, string | number>>) {
      const res = await t.api.get('/categories', { query });
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), Object.keys(query));
      assert.equal(res.headers.get('x-tec-total'), null, 'errors carry no X-TEC headers');
    }
  });
});

forEachStore(
  'terms: per_page cap',
  (t) => {
    it('caps per_page at MAX_PER_PAGE', async () => {
      for (const name of ['x', 'y', 'z']) await term(t, 'tags', { name });
      const res = await t.api.get('/tags', { query: { hide_empty: 0, per_page: 50 } });
      assert.equal(res.status, 200);
      assert.equal(res.body.tags.length, 2);
      assert.equal(res.body.total_pages, 2);
      assert.equal(res.body.next_rest_url, `${t.base}/tags/?page=2`);
    });
  },
  { MAX_PER_PAGE: '2' },
);

forEachStore('terms: hide_empty', (t) => {
  it('hides unused terms by default, keeps ancestors of used categories, and counts only published events', async () => {
    const music = await term(t, 'categories', { name: 'Music' });
    const jazz = await term(t, 'categories', { name: 'Jazz', parent: music });
    const bebop = await term(t, 'categories', { name: 'Bebop', parent: jazz });
    await term(t, 'categories', { name: 'Rock', parent: music });
    await term(t, 'categories', { name: 'Sports' });
    const drafty = await term(t, 'categories', { name: 'Drafty' });
    const usedTag = await term(t, 'tags', { name: 'used' });
    await term(t, 'tags', { name: 'unused' });
    const draftTag = await term(t, 'tags', { name: 'draft-only' });
    await event(t, { categories: [bebop], tags: [usedTag] });
    await event(t, { status: 'draft', categories: [drafty], tags: [draftTag] });

    const hidden = await t.api.get('/categories');
    assert.deepEqual(names(hidden.body.categories), ['Bebop', 'Jazz', 'Music']);
    assert.deepEqual(
      hidden.body.categories.map((c: { count: number }) => c.count),
      [1, 0, 0],
      'ancestors are listed with their own count',
    );
    assert.equal(hidden.body.total, 3);
    assert.equal(hidden.headers.get('x-tec-total'), '3');

    const explicit = await t.api.get('/categories', { query: { hide_empty: 'true' } });
    assert.deepEqual(names(explicit.body.categories), ['Bebop', 'Jazz', 'Music']);

    const all = await t.api.get('/categories', { query: { hide_empty: 0 } });
    assert.deepEqual(names(all.body.categories), ['Bebop', 'Drafty', 'Jazz', 'Music', 'Rock', 'Sports']);

    const tags = await t.api.get('/tags');
    assert.deepEqual(names(tags.body.tags), ['used']);
    const allTags = await t.api.get('/tags', { query: { hide_empty: '0' } });
    assert.deepEqual(names(allTags.body.tags), ['draft-only', 'unused', 'used']);

    const bad = await t.api.get('/tags', { query: { hide_empty: 'maybe' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.data.params.hide_empty, 'hide_empty is not of type boolean.');
  });
});

forEachStore('terms: filters', (t) => {
  const ids: Record<string, number> = {};
  let eventA = 0;
  let eventB = 0;

  it('sets up terms and events', async () => {
    ids.music = await term(t, 'categories', { name: 'Music' });
    ids.jazz = await term(t, 'categories', { name: 'Jazz', parent: ids.music });
    ids.rock = await term(t, 'categories', { name: 'Rock', parent: ids.music, slug: 'rock-and-roll' });
    ids.food = await term(t, 'categories', { name: 'Food 100% Fresh' });
    ids.foo = await term(t, 'tags', { name: 'Foo' });
    ids.foobar = await term(t, 'tags', { name: 'Other', slug: 'foo-bar' });
    ids.bar = await term(t, 'tags', { name: 'Bar' });
    eventA = await event(t, { categories: [ids.jazz, ids.food], tags: [ids.foo] });
    eventB = await event(t, { categories: [ids.rock], tags: [ids.bar, ids.foobar] });
  });

  it('search matches the name or the slug, case-insensitively, with % and _ taken literally', async () => {
    const foo = await t.api.get('/tags', { query: { search: 'foo', hide_empty: 0 } });
    assert.deepEqual(names(foo.body.tags), ['Foo', 'Other']);
    const upper = await t.api.get('/tags', { query: { search: 'FOO', hide_empty: 0 } });
    assert.deepEqual(names(upper.body.tags), ['Foo', 'Other']);
    const slugOnly = await t.api.get('/categories', { query: { search: 'and-roll', hide_empty: 0 } });
    assert.deepEqual(names(slugOnly.body.categories), ['Rock']);
    const percent = await t.api.get('/categories', { query: { search: '0%', hide_empty: 0 } });
    assert.deepEqual(names(percent.body.categories), ['Food 100% Fresh']);
    const literal = await t.api.get('/categories', { query: { search: 'o%f', hide_empty: 0 } });
    assert.deepEqual(literal.body.categories, []);
    const empty = await t.api.get('/tags', { query: { search: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.data.params), ['search']);
  });

  it('include and exclude take term ids (CSV or array; slugs too); unknown entries are 400', async () => {
    const inc = await t.api.get('/categories', { query: { include: `${ids.rock},${ids.music}`, hide_empty: 0 } });
    assert.deepEqual(names(inc.body.categories), ['Music', 'Rock']);
    const incArray = await t.api.get('/categories', { query: { include: [ids.rock, 'jazz'], hide_empty: 0 } });
    assert.deepEqual(names(incArray.body.categories), ['Jazz', 'Rock']);
    const exc = await t.api.get('/categories', { query: { exclude: [ids.rock, ids.music], hide_empty: 0 } });
    assert.deepEqual(names(exc.body.categories), ['Food 100% Fresh', 'Jazz']);
    const unknown = await t.api.get('/categories', { query: { include: [2389, 1235, 3434] } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.data.params, { include: 'Invalid parameter.' });
    const otherTaxonomy = await t.api.get('/tags', { query: { exclude: String(ids.music) } });
    assert.equal(otherTaxonomy.status, 400);
    assert.deepEqual(Object.keys(otherTaxonomy.body.data.params), ['exclude']);
  });

  it('parent lists direct children; 0 lists top-level categories; bad parents are 400', async () => {
    const children = await t.api.get('/categories', { query: { parent: ids.music, hide_empty: 0 } });
    assert.deepEqual(names(children.body.categories), ['Jazz', 'Rock']);
    const top = await t.api.get('/categories', { query: { parent: 0, hide_empty: 0 } });
    assert.deepEqual(names(top.body.categories), ['Food 100% Fresh', 'Music']);
    for (const parent of ['', '2389', 'foo', 'music']) {
      const res = await t.api.get('/categories', { query: { parent } });
      assert.equal(res.status, 400, `parent=${parent}`);
      assert.deepEqual(Object.keys(res.body.data.params), ['parent']);
    }
  });

  it('post and its alias event list the terms of an event; event wins over post; bad events are 400', async () => {
    const byPost = await t.api.get('/categories', { query: { post: eventA } });
    assert.deepEqual(names(byPost.body.categories), ['Food 100% Fresh', 'Jazz']);
    const byEvent = await t.api.get('/tags', { query: { event: eventB } });
    assert.deepEqual(names(byEvent.body.tags), ['Bar', 'Other']);
    const both = await t.api.get('/categories', { query: { post: eventA, event: eventB } });
    assert.deepEqual(names(both.body.categories), ['Rock']);
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Not an event' } });
    for (const bad of ['', 'foo', '987654', ...(venue.status === 201 ? [String(venue.body.id)] : [])]) {
      for (const key of ['post', 'event']) {
        const res = await t.api.get('/tags', { query: { [key]: bad } });
        assert.equal(res.status, 400, `${key}=${bad}`);
        assert.deepEqual(Object.keys(res.body.data.params), [key]);
      }
    }
  });

  it('slug matches exactly; an empty slug is 400', async () => {
    const res = await t.api.get('/tags', { query: { slug: 'foo' } });
    assert.deepEqual(names(res.body.tags), ['Foo']);
    const none = await t.api.get('/tags', { query: { slug: 'fo' } });
    assert.deepEqual(none.body.tags, []);
    assert.equal(none.body.total, 0);
    const empty = await t.api.get('/categories', { query: { slug: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.data.params), ['slug']);
  });
});

forEachStore('terms: ordering', (t) => {
  const ids: Record<string, number> = {};

  it('orders by name ascending by default, case-insensitively', async () => {
    for (const name of ['b', 'C', 'A']) ids[name] = await term(t, 'tags', { name });
    const res = await t.api.get('/tags', { query: { hide_empty: 0 } });
    assert.deepEqual(names(res.body.tags), ['A', 'b', 'C']);
    const asc = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'name', order: 'asc' } });
    assert.deepEqual(names(asc.body.tags), ['A', 'b', 'C']);
    const desc = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'name', order: 'desc' } });
    assert.deepEqual(names(desc.body.tags), ['C', 'b', 'A']);
    const descDefault = await t.api.get('/tags', { query: { hide_empty: 0, order: 'DESC' } });
    assert.deepEqual(names(descDefault.body.tags), ['C', 'b', 'A']);
  });

  it('orders by id (also term_id, any case) both ways', async () => {
    const asc = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'id', order: 'asc' } });
    assert.deepEqual(names(asc.body.tags), ['b', 'C', 'A']);
    const desc = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'id', order: 'desc' } });
    assert.deepEqual(names(desc.body.tags), ['A', 'C', 'b']);
    const termId = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'TERM_ID', order: 'Desc' } });
    assert.deepEqual(names(termId.body.tags), ['A', 'C', 'b']);
  });

  it('orders by count, slug, include order; none keeps id order', async () => {
    await event(t, { tags: [ids.C] });
    await event(t, { tags: [ids.C, ids.A] });
    const count = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'count', order: 'desc' } });
    assert.deepEqual(names(count.body.tags), ['C', 'A', 'b']);
    const slug = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'slug', order: 'desc' } });
    assert.deepEqual(names(slug.body.tags), ['C', 'b', 'A']);
    const include = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'include', include: `${ids.C},${ids.A},${ids.b}` } });
    assert.deepEqual(names(include.body.tags), ['C', 'A', 'b']);
    const none = await t.api.get('/tags', { query: { hide_empty: 0, orderby: 'none', order: 'desc' } });
    assert.deepEqual(names(none.body.tags), ['b', 'C', 'A']);
  });

  it('orders categories by parent', async () => {
    const top = await term(t, 'categories', { name: 'Top' });
    await term(t, 'categories', { name: 'Child', parent: top });
    await term(t, 'categories', { name: 'Another' });
    const res = await t.api.get('/categories', { query: { hide_empty: 0, orderby: 'parent', order: 'desc' } });
    assert.deepEqual(names(res.body.categories), ['Child', 'Top', 'Another']);
  });

  it('rejects other order and orderby values', async () => {
    for (const query of [{ orderby: 'bogus' }, { orderby: '' }, { order: 'sideways' }, { order: '' }, { orderby: 'name', order: 'up' }] as Array<Record<string, string>>) {
      const res = await t.api.get('/tags', { query });
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.equal(Object.keys(res.body.data.params).length, 1);
    }
    const orderby = await t.api.get('/categories', { query: { orderby: 'bogus' } });
    assert.match(orderby.body.data.params.orderby, /^orderby is not one of id, term_id, name, slug, term_group, count, description, parent, include, include_slugs, none\.$/);
    assert.equal(orderby.body.data.details.orderby.code, 'rest_not_in_enum');
  });
});
