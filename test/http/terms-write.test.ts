/**
 * Categories and tags, write side: create (201, Location, examples/08c), partial update, permanent
 * delete, every error the routes answer, the permission matrix, and `count` kept right through
 * event writes.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { example, forEachStore, keysOf, shapeOf, type TestServer } from '../support/harness.js';
import { createEvent as event, createTerm as term } from '../support/fixtures.js';

type Base = 'categories' | 'tags';

async function countOf(t: TestServer, base: Base, id: number): Promise<number> {
  const res = await t.api.get(`/${base}/${id}`);
  assert.equal(res.status, 200);
  return res.body.count;
}

forEachStore('terms: create', (t) => {
  it('creates a category: 201, Location at our route, the recorded shape with _links (examples/08c)', async () => {
    const recorded = await example('08c-post-category.json');
    const res = await t.api.post('/categories', { as: 'admin', json: recorded.request.body });
    assert.equal(res.status, 201);
    assert.deepEqual(shapeOf(res.body), shapeOf(recorded.body));
    assert.deepEqual(keysOf(res.body._links), keysOf(recorded.body._links));
    const id = res.body.id;
    assert.equal(res.headers.get('location'), `${t.base}/categories/${id}`);
    assert.equal(res.headers.get('allow'), 'GET, POST');
    assert.equal(res.headers.get('expires'), 'Wed, 11 Jan 1984 05:00:00 GMT');
    assert.deepEqual(
      { ...res.body, _links: undefined },
      {
        id,
        count: 0,
        description: 'Hands-on sessions',
        name: 'Workshops',
        slug: 'workshops',
        taxonomy: 'tribe_events_cat',
        parent: 0,
        meta: [],
        url: `${t.origin}/events/category/workshops/`,
        urls: { self: `${t.base}/categories/${id}`, collection: `${t.base}/categories` },
        _links: undefined,
      },
    );
    const read = await t.api.get(`/categories/${id}`);
    assert.deepEqual(read.body, res.body);
  });

  it('creates a child category with urls.up and _links.up', async () => {
    const music = await term(t, 'categories', { name: 'Music' });
    const res = await t.api.post('/categories', { as: 'admin', json: { name: 'Jazz', parent: music } });
    assert.equal(res.status, 201);
    assert.equal(res.body.parent, music);
    assert.equal(res.body.urls.up, `${t.base}/categories/${music}`);
    assert.deepEqual(keysOf(res.body.urls), ['self', 'collection', 'up']);
    assert.deepEqual(keysOf(res.body._links), ['self', 'collection', 'about', 'up', 'wp:post_type', 'curies']);
    assert.deepEqual(res.body._links.up, [{ embeddable: true, href: `${t.base}/categories/${music}` }]);
    const byString = await t.api.post('/categories', { as: 'admin', form: { name: 'Blues', parent: String(music) } });
    assert.equal(byString.status, 201);
    assert.equal(byString.body.parent, music);
  });

  it('creates a tag: 201, Location at our route, no parent key', async () => {
    const res = await t.api.post('/tags', { as: 'admin', form: { name: 'Outdoor', slug: 'outdoor-fun' } });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('location'), `${t.base}/tags/${res.body.id}`);
    assert.deepEqual(keysOf(res.body), ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls', '_links']);
    assert.equal(res.body.slug, 'outdoor-fun');
    assert.equal(res.body.url, `${t.origin}/events/tag/outdoor-fun/`);
  });

  it('stores names and descriptions like WordPress', async () => {
    const res = await t.api.post('/tags', { as: 'admin', json: { name: 'Rock & Roll <b>x</b>', description: 'Desc & <em>more</em><script>alert(1)</script>' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.name, 'Rock &amp; Roll x');
    assert.equal(res.body.description, 'Desc &amp; <em>more</em>');
    assert.equal(res.body.slug, 'rock-roll-x');
  });

  it('makes slugs from the name, sanitized and unique per taxonomy', async () => {
    const a = await t.api.post('/categories', { as: 'admin', json: { name: 'Café Night' } });
    assert.equal(a.body.slug, 'cafe-night');
    const b = await t.api.post('/categories', { as: 'admin', json: { name: 'Other', slug: 'Café Night' } });
    assert.equal(b.status, 201);
    assert.equal(b.body.slug, 'cafe-night-2');
    const sameSlugOtherTaxonomy = await t.api.post('/tags', { as: 'admin', json: { name: 'Café Night' } });
    assert.equal(sameSlugOtherTaxonomy.body.slug, 'cafe-night');
  });

  it('answers 400 term_exists with the existing id for a duplicate name under the same parent', async () => {
    const first = await term(t, 'categories', { name: 'Dup' });
    const res = await t.api.post('/categories', { as: 'admin', json: { name: 'Dup' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, term_id: first },
      additional_data: [first, first],
    });
    const underParent = await t.api.post('/categories', { as: 'admin', json: { name: 'Dup', parent: first } });
    assert.equal(underParent.status, 201, 'same name under another parent is fine');
    const tag = await term(t, 'tags', { name: 'DupTag' });
    const dupTag = await t.api.post('/tags', { as: 'admin', json: { name: 'DupTag' } });
    assert.equal(dupTag.status, 400);
    assert.equal(dupTag.body.code, 'term_exists');
    assert.equal(dupTag.body.message, 'A term with the name provided already exists in this taxonomy.');
    assert.equal(dupTag.body.data.term_id, tag);
  });

  it('answers 400 for a missing or empty name, empty description or slug, and bad parents', async () => {
    const missing = await t.api.post('/categories', { as: 'admin', json: { description: 'x' } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): name', data: { status: 400, params: ['name'] } });
    for (const json of [{ name: '' }, { name: 'ok', description: '' }, { name: 'ok', slug: '' }, { name: 'ok', parent: '' }, { name: 'ok', parent: '2389' }, { name: 'ok', parent: 'foo' }]) {
      const res = await t.api.post('/categories', { as: 'admin', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.code, 'rest_invalid_param');
      const bad = Object.keys(json).find((k) => k !== 'name') ?? 'name';
      assert.deepEqual(Object.keys(res.body.data.params), [bad], JSON.stringify(json));
    }
    const tagName = await t.api.post('/tags', { as: 'admin', json: { name: 5 } });
    assert.equal(tagName.status, 400);
    assert.deepEqual(Object.keys(tagName.body.data.params), ['name']);
    const onlyMarkup = await t.api.post('/tags', { as: 'admin', json: { name: '<b></b>' } });
    assert.equal(onlyMarkup.status, 400);
    assert.equal(onlyMarkup.body.code, 'empty_term_name');
  });

  it('refuses a parent on tags with 400 rest_taxonomy_not_hierarchical', async () => {
    const parent = await term(t, 'tags', { name: 'would-be-parent' });
    for (const options of [{ json: { name: 'child', parent } }, { form: { name: 'child', parent: '0' } }, { query: { parent: String(parent) }, json: { name: 'child' } }]) {
      const res = await t.api.post('/tags', { as: 'admin', ...options });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { code: 'rest_taxonomy_not_hierarchical', message: 'Cannot set parent term, taxonomy is not hierarchical.', data: { status: 400 } });
    }
    const list = await t.api.get('/tags', { query: { hide_empty: 0, search: 'child' } });
    assert.equal(list.body.total, 0, 'nothing was created');
  });
});

forEachStore('terms: permissions', (t) => {
  it('lets authors and up manage categories, editors and up manage tags; contributors and subscribers 403; anonymous 401', async () => {
    for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) await t.user(role);
    const expected: Record<Base, Record<string, number>> = {
      categories: { admin: 201, editor: 201, author: 201, contributor: 403, subscriber: 403 },
      tags: { admin: 201, editor: 201, author: 403, contributor: 403, subscriber: 403 },
    };
    for (const base of ['categories', 'tags'] as const) {
      for (const [as, status] of Object.entries(expected[base])) {
        const res = await t.api.post(`/${base}`, { as, json: { name: `${base} by ${as}` } });
        assert.equal(res.status, status, `${as} creating ${base}`);
        if (status === 403) assert.deepEqual(res.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
      }
      const anonymous = await t.api.post(`/${base}`, { json: { name: 'anon' } });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.code, 'rest_forbidden');
    }
  });

  it('applies the same rules to update and delete, and to the Allow header', async () => {
    const cat = await term(t, 'categories', { name: 'Perm cat' });
    const tag = await term(t, 'tags', { name: 'Perm tag' });
    const cases: Array<[Base, number, string | null, number]> = [
      ['categories', cat, null, 401],
      ['categories', cat, 'subscriber', 403],
      ['categories', cat, 'contributor', 403],
      ['tags', tag, null, 401],
      ['tags', tag, 'contributor', 403],
      ['tags', tag, 'author', 403],
    ];
    for (const [base, id, as, status] of cases) {
      for (const method of ['post', 'put', 'patch'] as const) {
        const res = await t.api[method](`/${base}/${id}`, { as, json: { description: 'changed' } });
        assert.equal(res.status, status, `${as} ${method} ${base}`);
        assert.equal(res.body.code, 'rest_forbidden');
      }
      const del = await t.api.delete(`/${base}/${id}`, { as });
      assert.equal(del.status, status, `${as} delete ${base}`);
    }
    assert.equal((await t.api.get(`/categories/${cat}`)).body.description, '', 'nothing changed');

    const authorCat = await t.api.patch(`/categories/${cat}`, { as: 'author', json: { description: 'by author' } });
    assert.equal(authorCat.status, 200);
    assert.equal(authorCat.headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
    const editorTag = await t.api.put(`/tags/${tag}`, { as: 'editor', json: { description: 'by editor' } });
    assert.equal(editorTag.status, 200);
    assert.equal((await t.api.get(`/tags/${tag}`, { as: 'author' })).headers.get('allow'), 'GET');
    assert.equal((await t.api.get(`/tags/${tag}`)).headers.get('allow'), 'GET');
    assert.equal((await t.api.get('/categories', { as: 'author' })).headers.get('allow'), 'GET, POST');
    assert.equal((await t.api.get('/tags', { as: 'author' })).headers.get('allow'), 'GET');
  });

  it('reports parameter errors before permission errors', async () => {
    const missing = await t.api.post('/categories', { json: { description: 'x' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const empty = await t.api.post('/tags', { as: 'subscriber', json: { name: '' } });
    assert.equal(empty.status, 400);
    for (const as of [null, 'subscriber', 'contributor']) {
      for (const base of ['categories', 'tags']) {
        const del = await t.api.delete(`/${base}/987654`, { as });
        assert.equal(del.status, 400, `${as} deleting an unknown ${base}`);
        assert.deepEqual(del.body.data.params, { id: 'Invalid parameter.' });
        const upd = await t.api.patch(`/${base}/987654`, { as, json: { name: 'x' } });
        assert.equal(upd.status, 400);
      }
    }
  });
});

forEachStore('terms: update', (t) => {
  let music = 0;
  let jazz = 0;
  let bebop = 0;

  it('changes only the fields sent (200 with _links); a new name keeps the slug', async () => {
    music = await term(t, 'categories', { name: 'Music', description: 'All music' });
    jazz = await term(t, 'categories', { name: 'Jazz' });
    bebop = await term(t, 'categories', { name: 'Bebop', parent: jazz });
    const desc = await t.api.post(`/categories/${music}`, { as: 'admin', json: { description: 'Every kind of music' } });
    assert.equal(desc.status, 200);
    assert.deepEqual(keysOf(desc.body), ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls', '_links']);
    assert.equal(desc.body.description, 'Every kind of music');
    assert.equal(desc.body.name, 'Music');
    assert.equal(desc.headers.get('location'), null);
    const renamed = await t.api.patch(`/categories/${music}`, { as: 'admin', form: { name: 'Music & Sound' } });
    assert.equal(renamed.body.name, 'Music &amp; Sound');
    assert.equal(renamed.body.slug, 'music');
    assert.equal(renamed.body.description, 'Every kind of music');
  });

  it('clears the description with "" (COMPAT 1)', async () => {
    const res = await t.api.put(`/categories/${music}`, { as: 'admin', json: { description: '' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.description, '');
    assert.equal(res.body.name, 'Music &amp; Sound');
  });

  it('changes the slug (sanitized); a slug another term has is 400 duplicate_term_slug', async () => {
    const res = await t.api.patch(`/categories/${music}`, { as: 'admin', json: { slug: 'Music Sound' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'music-sound');
    assert.equal(res.body.url, `${t.origin}/events/category/music-sound/`);
    const same = await t.api.patch(`/categories/${music}`, { as: 'admin', json: { slug: 'music-sound' } });
    assert.equal(same.status, 200, 'its own slug is fine');
    const taken = await t.api.patch(`/categories/${music}`, { as: 'admin', json: { slug: 'jazz' } });
    assert.equal(taken.status, 400);
    assert.deepEqual(taken.body, { code: 'duplicate_term_slug', message: 'The slug “jazz” is already in use by another term.', data: { status: 400 } });
    const tag = await term(t, 'tags', { name: 'jazz' });
    const otherTaxonomy = await t.api.patch(`/tags/${tag}`, { as: 'admin', json: { slug: 'music-sound' } });
    assert.equal(otherTaxonomy.status, 200, 'slugs are unique per taxonomy');
    const empty = await t.api.patch(`/categories/${music}`, { as: 'admin', json: { slug: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.data.params), ['slug']);
  });

  it('moves a category under a parent and back to the top (parent 0)', async () => {
    const moved = await t.api.patch(`/categories/${jazz}`, { as: 'admin', json: { parent: music } });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.parent, music);
    assert.equal(moved.body.urls.up, `${t.base}/categories/${music}`);
    assert.deepEqual(moved.body._links.up, [{ embeddable: true, href: `${t.base}/categories/${music}` }]);
    const top = await t.api.patch(`/categories/${jazz}`, { as: 'admin', json: { parent: 0 } });
    assert.equal(top.body.parent, 0);
    assert.equal(top.body.urls.up, undefined);
    assert.equal(top.body._links.up, undefined);
  });

  it('refuses a parent that is the category itself or one of its descendants, or unknown', async () => {
    for (const parent of [jazz, bebop]) {
      const res = await t.api.patch(`/categories/${jazz}`, { as: 'admin', json: { parent } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), ['parent']);
    }
    for (const parent of ['', 2389, 'foo']) {
      const res = await t.api.patch(`/categories/${jazz}`, { as: 'admin', json: { parent } });
      assert.equal(res.status, 400, `parent ${parent}`);
      assert.deepEqual(Object.keys(res.body.data.params), ['parent']);
    }
    assert.equal((await t.api.get(`/categories/${jazz}`)).body.parent, 0);
  });

  it('refuses empty names and a parent on tags', async () => {
    const empty = await t.api.patch(`/categories/${jazz}`, { as: 'admin', json: { name: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.data.params), ['name']);
    const tag = await term(t, 'tags', { name: 'lonely' });
    const res = await t.api.patch(`/tags/${tag}`, { as: 'admin', json: { parent: 1 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_taxonomy_not_hierarchical');
  });
});

forEachStore('terms: delete', (t) => {
  it('deletes for good: 200 with the term as it was (no _links); children move up; events lose the link', async () => {
    const music = await term(t, 'categories', { name: 'Music' });
    const jazz = await term(t, 'categories', { name: 'Jazz', parent: music });
    const bebop = await term(t, 'categories', { name: 'Bebop', parent: jazz });
    const eventId = await event(t, { categories: [jazz, bebop] });

    const res = await t.api.delete(`/categories/${jazz}`, { as: 'admin' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: jazz,
      count: 1,
      description: '',
      name: 'Jazz',
      slug: 'jazz',
      taxonomy: 'tribe_events_cat',
      parent: music,
      meta: [],
      url: `${t.origin}/events/category/jazz/`,
      urls: { self: `${t.base}/categories/${jazz}`, collection: `${t.base}/categories`, up: `${t.base}/categories/${music}` },
    });

    const child = await t.api.get(`/categories/${bebop}`);
    assert.equal(child.body.parent, music, 'the child moved to the deleted term’s parent');
    const ev = await t.api.get(`/events/${eventId}`);
    assert.deepEqual(
      ev.body.categories.map((c: { id: number }) => c.id),
      [bebop],
    );

    const again = await t.api.delete(`/categories/${jazz}`, { as: 'admin' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'rest_invalid_param');
    assert.deepEqual(again.body.data.params, { id: 'Invalid parameter.' });
    const read = await t.api.get(`/categories/${jazz}`);
    assert.equal(read.status, 400);

    const slugFree = await t.api.post('/categories', { as: 'admin', json: { name: 'Jazz' } });
    assert.equal(slugFree.body.slug, 'jazz', 'the slug is free again');
  });

  it('deletes tags the same way', async () => {
    const tag = await term(t, 'tags', { name: 'gone' });
    const eventId = await event(t, { tags: [tag] });
    const res = await t.api.delete(`/tags/${tag}`, { as: 'admin' });
    assert.equal(res.status, 200);
    assert.deepEqual(keysOf(res.body), ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls']);
    assert.equal(res.body.count, 1);
    assert.deepEqual((await t.api.get(`/events/${eventId}`)).body.tags, []);
    assert.equal((await t.api.delete(`/tags/${tag}`, { as: 'admin' })).status, 400);
  });
});

forEachStore('terms: count through event writes', (t) => {
  it('counts published events only, through create, update, status changes and trash', async () => {
    const cat = await term(t, 'categories', { name: 'Counted' });
    const tag = await term(t, 'tags', { name: 'counted' });
    const first = await event(t, { categories: [cat], tags: [tag] });
    assert.equal(await countOf(t, 'categories', cat), 1);
    assert.equal(await countOf(t, 'tags', tag), 1);

    await event(t, { status: 'draft', categories: [cat], tags: [tag] });
    assert.equal(await countOf(t, 'categories', cat), 1, 'drafts do not count');

    const second = await event(t, { categories: [cat] });
    assert.equal(await countOf(t, 'categories', cat), 2);

    assert.equal((await t.api.patch(`/events/${first}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
    assert.equal(await countOf(t, 'categories', cat), 1);
    assert.equal(await countOf(t, 'tags', tag), 0);

    assert.equal((await t.api.patch(`/events/${first}`, { as: 'admin', json: { status: 'publish' } })).status, 200);
    assert.equal(await countOf(t, 'categories', cat), 2);
    assert.equal(await countOf(t, 'tags', tag), 1);

    assert.equal((await t.api.patch(`/events/${second}`, { as: 'admin', json: { categories: [] } })).status, 200);
    assert.equal(await countOf(t, 'categories', cat), 1, 'unassigning recounts');

    assert.equal((await t.api.delete(`/events/${first}`, { as: 'admin' })).status, 200);
    assert.equal(await countOf(t, 'categories', cat), 0, 'trashed events do not count');
    assert.equal(await countOf(t, 'tags', tag), 0);

    const listed = await t.api.get('/categories');
    assert.deepEqual(listed.body.categories, [], 'hide_empty now hides it');
  });

  it('deleting a term unlinks it from events, whose other terms keep their counts', async () => {
    const keep = await term(t, 'categories', { name: 'Keep' });
    const drop = await term(t, 'categories', { name: 'Drop' });
    const eventId = await event(t, { categories: [keep, drop] });
    assert.equal((await t.api.delete(`/categories/${drop}`, { as: 'admin' })).status, 200);
    assert.equal(await countOf(t, 'categories', keep), 1);
    const byCategory = await t.api.get('/events', { query: { start_date: '2027-01-01', categories: String(keep) } });
    assert.deepEqual(
      byCategory.body.events.map((e: { id: number }) => e.id),
      [eventId],
    );
    assert.deepEqual(
      (await t.api.get(`/events/${eventId}`)).body.categories.map((c: { name: string }) => c.name),
      ['Keep'],
    );
  });
});
