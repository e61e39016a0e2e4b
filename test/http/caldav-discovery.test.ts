/**
 * CalDAV authentication and discovery as clients meet them: the authenticated tree (/dav/) asks
 * for credentials (401 with a Basic challenge) on every request without them, so a client that
 * sends credentials only when challenged never gets the anonymous view in their place; the public
 * tree (/dav/public/) is the anonymous view, whatever is sent; PROPFIND on the site root (the URL
 * people type) and on every collection the server advertises (principal-collection-set, the
 * principals, the home, the calendars) answers 207, in both trees, without disturbing the pages'
 * GET / or the REST API.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses } from '../support/caldav.js';

const DISCOVER =
  '<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:resourcetype/><d:current-user-principal/><d:principal-URL/><d:principal-collection-set/><c:calendar-home-set/><d:getetag/></d:prop></d:propfind>';
const ETAGS = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>';
const syncBody = '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>';

forEachStore('CalDAV: authentication and discovery', (t: TestServer) => {
  const ids: Record<string, number> = {};
  before(async () => {
    const create = async (key: string, json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.id;
    };
    await create('open', { title: 'Open Day', start_date: '2031-03-10 10:00', end_date: '2031-03-10 12:00', categories: ['Open'] });
    await create('draft', { title: 'Secret Draft', status: 'draft', start_date: '2031-03-11 10:00', end_date: '2031-03-11 11:00' });
    await create('private', { title: 'Private Party', status: 'private', start_date: '2031-03-12 10:00', end_date: '2031-03-12 11:00' });
    await t.user('editor');
  });

  it('challenges every request without credentials in the authenticated tree; the retry with them sees drafts and private events', async () => {
    const cal = '/dav/calendars/events/';
    for (const [method, path, body, depth] of [
      ['PROPFIND', '/dav/', DISCOVER, '0'],
      ['PROPFIND', '/dav/principals/', DISCOVER, '0'],
      ['PROPFIND', '/dav/principals/users/editor/', DISCOVER, '0'],
      ['PROPFIND', '/dav/calendars/', DISCOVER, '1'],
      ['PROPFIND', cal, ETAGS, '1'],
      ['REPORT', cal, syncBody, '1'],
      ['GET', cal, undefined, undefined],
      ['GET', `${cal}${ids.open}.ics`, undefined, undefined],
      ['PROPFIND', '/dav/nothing/', DISCOVER, '0'],
    ] as const) {
      const headers: Record<string, string> = depth === undefined ? {} : { depth };
      const challenged = await dav(t, method, path, body, headers);
      assert.equal(challenged.status, 401, `${method} ${path}`);
      assert.match(challenged.headers.get('www-authenticate') ?? '', /^Basic realm="[^"]+"/, `${method} ${path}`);
      const retried = await dav(t, method, path, body, headers, 'editor:editor-pw');
      assert.ok([200, 207, 404].includes(retried.status), `${method} ${path}: ${retried.status}`);
      if (path === cal && method !== 'GET') {
        const hrefs = [...responses(retried.doc).keys()];
        for (const key of ['open', 'draft', 'private']) assert.ok(hrefs.includes(`${cal}${ids[key]}.ics`), `${method}: ${key} for the editor`);
      }
    }
    // OPTIONS needs no credentials (clients probe the DAV classes first).
    assert.equal((await dav(t, 'OPTIONS', cal)).status, 200);
  });

  it('serves the public tree anonymously: published events only, whatever credentials are sent', async () => {
    const cal = '/dav/public/calendars/events/';
    for (const as of [null, 'editor:editor-pw', 'editor:wrong']) {
      const list = await dav(t, 'PROPFIND', cal, ETAGS, { depth: '1' }, as);
      assert.equal(list.status, 207, String(as));
      assert.deepEqual(
        [...responses(list.doc).keys()].filter((h) => h.endsWith('.ics')),
        [`${cal}${ids.open}.ics`],
        String(as),
      );
      const sync = await dav(t, 'REPORT', cal, syncBody, {}, as);
      assert.deepEqual(
        [...responses(sync.doc).keys()].filter((h) => h.endsWith('.ics')),
        [`${cal}${ids.open}.ics`],
      );
      assert.equal((await dav(t, 'GET', `${cal}${ids.draft}.ics`, undefined, {}, as)).status, 404);
    }
    const root = responses((await dav(t, 'PROPFIND', '/dav/public/', DISCOVER, { depth: '0' })).doc).get('/dav/public/')!;
    assert.equal(root.ok['current-user-principal'].href[0], '/dav/public/principals/anonymous/');
    assert.equal(root.ok['calendar-home-set'].href[0], '/dav/public/calendars/');
    // Users' principals are not in the public tree.
    assert.equal((await dav(t, 'PROPFIND', '/dav/public/principals/users/editor/', DISCOVER, { depth: '0' })).status, 404);
  });

  it('answers PROPFIND on the site root as the DAV root, leaving GET / and the REST API alone', async () => {
    const challenged = await dav(t, 'PROPFIND', '/', DISCOVER, { depth: '0' });
    assert.equal(challenged.status, 401);
    assert.match(challenged.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    const res = await dav(t, 'PROPFIND', '/', DISCOVER, { depth: '0' }, 'editor:editor-pw');
    assert.equal(res.status, 207);
    const r = responses(res.doc).get('/')!;
    assert.equal(r.ok['current-user-principal'].href[0], '/dav/principals/users/editor/');
    assert.equal(r.ok['calendar-home-set'].href[0], '/dav/calendars/');
    assert.equal(r.ok['principal-collection-set'].href[0], '/dav/principals/');
    const page = await fetch(`${t.origin}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    await page.arrayBuffer();
    const list = await t.api.get('/events');
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body.events));
  });

  it('lists the principal in the principal collection of each tree', async () => {
    const auth = await dav(t, 'PROPFIND', '/dav/principals/', DISCOVER, { depth: '1' }, 'editor:editor-pw');
    assert.equal(auth.status, 207);
    const a = responses(auth.doc);
    assert.deepEqual([...a.keys()], ['/dav/principals/', '/dav/principals/users/editor/']);
    assert.ok('principal' in a.get('/dav/principals/users/editor/')!.ok.resourcetype);
    const pub = responses((await dav(t, 'PROPFIND', '/dav/public/principals/', DISCOVER, { depth: '1' })).doc);
    assert.deepEqual([...pub.keys()], ['/dav/public/principals/', '/dav/public/principals/anonymous/']);
  });

  it('answers PROPFIND with 207 on every href it advertises, from the site root and from the public root', async () => {
    for (const [start, as] of [
      ['/', 'editor:editor-pw'],
      ['/dav/public/', null],
    ] as const) {
      const seen = new Set<string>([start]);
      const queue: string[] = [start];

      while (queue.length) {
        const path = queue.shift()!;
        for (const depth of ['0', '1']) {
          if (depth === '1' && path.endsWith('.ics')) continue;
          const res = await dav(t, 'PROPFIND', path, DISCOVER, { depth }, as);
          assert.equal(res.status, 207, `PROPFIND ${path} Depth ${depth} (${as ?? 'anonymous'}): ${res.text.slice(0, 300)}`);
          for (const m of res.text.matchAll(/<d:href>([^<]+)<\/d:href>/g)) {
            const href = m[1]!;
            if (!seen.has(href)) {
              seen.add(href);
              queue.push(href);
            }
          }
        }
      }
      // The principal, its collection, the home, both calendars and the published event at least.
      assert.ok(seen.size >= 7, [...seen].join(' '));
      const tree = as ? '/dav/' : '/dav/public/';
      for (const href of [`${tree}principals/`, `${tree}calendars/`, `${tree}calendars/events/`, `${tree}calendars/category-open/`, `${tree}calendars/events/${ids.open}.ics`])
        assert.ok(seen.has(href), `${href} reached from ${start}`);
    }
  });

  it('sends /.well-known/caldav to the authenticated tree, which challenges', async () => {
    const wk = await dav(t, 'PROPFIND', '/.well-known/caldav', DISCOVER, { depth: '0' });
    assert.equal(wk.status, 301);
    assert.equal(wk.headers.get('location'), '/dav/');
    assert.equal((await dav(t, 'PROPFIND', wk.headers.get('location')!, DISCOVER, { depth: '0' })).status, 401);
  });
});
