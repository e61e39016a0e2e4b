/**
 * Issue 11, incremental sync: X-Sync-Token on the five lists, `?sync_token=` answering only what
 * changed after it (created/updated in full, trashed/deleted/hidden as tombstones), in change
 * order, paged like the list, filtered by the other arguments, never showing a caller a record it
 * could not read; 410 rest_sync_token_expired for a bad, foreign or too old token.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startServer, STORES, type TestServer } from '../support/harness.js';
import { describe, after, before } from 'node:test';

const LISTS = ['/events', '/venues', '/organizers', '/categories', '/tags'];

async function token(t: TestServer, path: string, as: string | null = null): Promise<string> {
  const res = await t.api.get(path, { as });
  assert.equal(res.status, 200, res.text);
  const tok = res.headers.get('x-sync-token');
  assert.ok(tok, `${path} sends X-Sync-Token`);
  return tok!;
}

async function sync(t: TestServer, path: string, tok: string, options: { as?: string | null; query?: Record<string, string | number> } = {}) {
  return t.api.get(path, { as: options.as ?? null, query: { sync_token: tok, ...(options.query ?? {}) } });
}

const ev = (title: string, extra: Record<string, unknown> = {}) => ({ title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish', ...extra });

forEachStore('sync tokens', (t) => {
  it('every list answer carries X-Sync-Token; the argument is declared on the five lists only', async () => {
    for (const path of LISTS) await token(t, path);
    const index = (await t.api.get('')).body;
    for (const [route, entry] of Object.entries<any>(index.routes)) {
      const declared = entry.endpoints.some((e: any) => 'sync_token' in (e.args ?? {}));
      const isList = LISTS.some((p) => route.endsWith(p));
      assert.equal(declared, isList, route);
    }
    const doc = (await t.api.get('/doc')).body;
    for (const p of LISTS) {
      const params = doc.paths[p].get.parameters.map((x: any) => x.name);
      assert.ok(params.includes('sync_token'), p);
    }
  });

  it('events: creates, updates and trash since the token, in change order, with a fresh token', async () => {
    const t0 = await token(t, '/events');
    const a = (await t.api.post('/events', { as: 'admin', json: ev('Sync A') })).body;
    const b = (await t.api.post('/events', { as: 'admin', json: ev('Sync B') })).body;
    await t.api.post(`/events/${a.id}`, { as: 'admin', json: { title: 'Sync A2' } });
    const res = await sync(t, '/events', t0);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.events.map((e: any) => e.id),
      [a.id, b.id],
      'each record once, at its first change',
    );
    assert.equal(res.body.events[0].title, 'Sync A2', 'its current representation');
    assert.equal(res.body.total, 2);
    assert.equal(res.headers.get('x-wp-total'), '2');
    const t1 = res.headers.get('x-sync-token')!;
    assert.ok(t1 && t1 !== t0);

    const empty = await sync(t, '/events', t1);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.events, []);
    assert.equal(empty.body.total, 0);

    await t.api.delete(`/events/${b.id}`, { as: 'admin' });
    const trashed = await sync(t, '/events', t1);
    assert.deepEqual(trashed.body.events, [{ id: b.id, status: 'trash' }]);
  });

  it('ignores the default date window (a past event changed shows up); other arguments still filter', async () => {
    const t0 = await token(t, '/events');
    const past = (await t.api.post('/events', { as: 'admin', json: ev('Long ago', { start_date: '2001-01-01 10:00:00', end_date: '2001-01-01 11:00:00', categories: ['Old'] }) })).body;
    const other = (await t.api.post('/events', { as: 'admin', json: ev('Uncategorised') })).body;
    const all = await sync(t, '/events', t0);
    assert.deepEqual(
      all.body.events.map((e: any) => e.id),
      [past.id, other.id],
    );
    const old = await sync(t, '/events', t0, { query: { categories: 'old' } });
    assert.deepEqual(
      old.body.events.map((e: any) => e.id),
      [past.id],
    );
    // Moving out of the filter: a tombstone for the filtered mirror.
    const t1 = old.headers.get('x-sync-token')!;
    await t.api.post(`/events/${past.id}`, { as: 'admin', json: { categories: [] } });
    const moved = await sync(t, '/events', t1, { query: { categories: 'old' } });
    assert.deepEqual(moved.body.events, [{ id: past.id, status: 'trash' }]);
  });

  it('visibility: unpublishing is a tombstone for anonymous callers, an update for editors; drafts never reach anonymous callers', async () => {
    const e = (await t.api.post('/events', { as: 'admin', json: ev('Visible') })).body;
    const anon0 = await token(t, '/events');
    const admin0 = await token(t, '/events', 'admin');
    await t.api.post(`/events/${e.id}`, { as: 'admin', json: { status: 'draft' } });
    const draft = (await t.api.post('/events', { as: 'admin', json: ev('Secret draft', { status: 'draft' }) })).body;
    await t.api.post(`/events/${draft.id}`, { as: 'admin', json: { title: 'Secret draft 2' } });
    await t.api.delete(`/events/${draft.id}`, { as: 'admin' });
    const anon = await sync(t, '/events', anon0);
    assert.deepEqual(anon.body.events, [{ id: e.id, status: 'trash' }], 'never hears of the draft');
    const admin = await sync(t, '/events', admin0, { as: 'admin' });
    assert.deepEqual(
      admin.body.events.map((x: any) => x.id),
      [e.id, draft.id],
    );
    assert.equal(admin.body.events[0].status, 'draft');
    assert.deepEqual(admin.body.events[1], { id: draft.id, status: 'trash' });
    // Published again: back in full for everyone.
    const anon1 = anon.headers.get('x-sync-token')!;
    await t.api.post(`/events/${e.id}`, { as: 'admin', json: { status: 'publish' } });
    const back = await sync(t, '/events', anon1);
    assert.equal(back.body.events[0].id, e.id);
    assert.equal(back.body.events[0].title, 'Visible');
  });

  it('pages like the list (per_page, page, totals, Link) and a page past the end answers as the list does', async () => {
    const t0 = await token(t, '/events');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.api.post('/events', { as: 'admin', json: ev(`Paged ${i}`) })).body.id);
    const p1 = await sync(t, '/events', t0, { query: { per_page: 2 } });
    const p2 = await sync(t, '/events', t0, { query: { per_page: 2, page: 2 } });
    const p3 = await sync(t, '/events', t0, { query: { per_page: 2, page: 3 } });
    assert.deepEqual(
      [...p1.body.events, ...p2.body.events, ...p3.body.events].map((e: any) => e.id),
      ids,
    );
    assert.equal(p1.body.total, 5);
    assert.equal(p1.body.total_pages, 3);
    assert.equal(p1.headers.get('x-wp-totalpages'), '3');
    assert.match(p1.body.next_rest_url, /sync_token=/);
    assert.match(p1.headers.get('link')!, /rel="next"/);
    const past = await sync(t, '/events', t0, { query: { per_page: 2, page: 9 } });
    assert.equal(past.status, 404);
  });

  it('venues and organizers: create, update, trash; drafts stay hidden from anonymous callers', async () => {
    for (const [path, field] of [
      ['/venues', 'venue'],
      ['/organizers', 'organizer'],
    ] as const) {
      const t0 = await token(t, path);
      const a = (await t.api.post(path, { as: 'admin', json: { [field]: `${field} A`, status: 'publish' } })).body;
      const d = (await t.api.post(path, { as: 'admin', json: { [field]: `${field} draft`, status: 'draft' } })).body;
      await t.api.delete(`${path}/${d.id}`, { as: 'admin' });
      const first = await sync(t, path, t0);
      assert.deepEqual(
        first.body[path.slice(1)].map((x: any) => x.id),
        [a.id],
        path,
      );
      const t1 = first.headers.get('x-sync-token')!;
      await t.api.post(`${path}/${a.id}`, { as: 'admin', json: { [field]: `${field} A2` } });
      const upd = await sync(t, path, t1);
      assert.equal(upd.body[path.slice(1)][0][field], `${field} A2`);
      await t.api.delete(`${path}/${a.id}`, { as: 'admin' });
      const gone = await sync(t, path, t1);
      assert.deepEqual(gone.body[path.slice(1)], [{ id: a.id, status: 'trash' }], path);
      const admin = await sync(t, path, t0, { as: 'admin', query: { status: 'publish,draft,trash' } });
      assert.ok(
        admin.body[path.slice(1)].some((x: any) => x.id === d.id),
        `${path}: editors hear of the draft`,
      );
    }
  });

  it('categories and tags: create, update, delete (a tombstone "deleted"), each list its own taxonomy', async () => {
    const c0 = await token(t, '/categories');
    const g0 = await token(t, '/tags');
    const cat = (await t.api.post('/categories', { as: 'admin', json: { name: 'Sync cat' } })).body;
    const tag = (await t.api.post('/tags', { as: 'admin', json: { name: 'Sync tag' } })).body;
    // Empty terms are hidden by default (hide_empty), as in the full list.
    const cats = await sync(t, '/categories', c0, { query: { hide_empty: 0 } });
    assert.deepEqual(
      cats.body.categories.map((x: any) => x.id),
      [cat.id],
    );
    const tags = await sync(t, '/tags', g0, { query: { hide_empty: 0 } });
    assert.deepEqual(
      tags.body.tags.map((x: any) => x.id),
      [tag.id],
    );
    const c1 = cats.headers.get('x-sync-token')!;
    await t.api.delete(`/tags/${tag.id}`, { as: 'admin' });
    await t.api.post(`/categories/${cat.id}`, { as: 'admin', json: { description: 'now described' } });
    const after = await sync(t, '/categories', c1, { query: { hide_empty: 0 } });
    assert.deepEqual(
      after.body.categories.map((x: any) => x.id),
      [cat.id],
      'the deleted tag is not a category',
    );
    assert.equal(after.body.categories[0].description, 'now described');
    const tagsAfter = await sync(t, '/tags', tags.headers.get('x-sync-token')!, { query: { hide_empty: 0 } });
    assert.deepEqual(tagsAfter.body.tags, [{ id: tag.id, status: 'deleted' }]);
  });

  it('410 rest_sync_token_expired for malformed tokens and tokens of another database', async () => {
    for (const bad of ['garbage', 'MS5hYmMuMS4x', Buffer.from('1.ffffffffffffffff.1.' + Math.floor(Date.now() / 1000)).toString('base64url'), '']) {
      for (const path of LISTS) {
        // An empty value is sent (as WordPress treats empty arguments): not a token either.
        const res = await sync(t, path, bad);
        assert.equal(res.status, 410, `${path} ${bad}`);
        assert.equal(res.body.code, 'rest_sync_token_expired');
        assert.deepEqual(res.body.data, { status: 410 });
      }
    }
  });

  it('requests without sync_token see the list as before (besides the new headers)', async () => {
    const res = await t.api.get('/events');
    assert.deepEqual(
      Object.keys(res.body),
      ['events', 'rest_url', 'total', 'total_pages'].filter((k) => k in res.body),
    );
    assert.ok(!String(res.body.rest_url).includes('sync_token'));
  });
});

describe('sync tokens expire', () => {
  for (const kind of STORES) {
    describe(kind.name, () => {
      let t: TestServer;
      let other: TestServer;
      before(async () => {
        t = await startServer(kind, { SYNC_HISTORY_DAYS: '0.00003' }); // 2.6 s
        other = await startServer(kind);
      });
      after(async () => {
        await t?.close();
        await other?.close();
      });
      it('a token older than SYNC_HISTORY_DAYS answers 410; a token of another database too', async () => {
        const fresh = await token(t, '/events');
        const now = await sync(t, '/events', fresh);
        assert.equal(now.status, 200);
        await new Promise((r) => setTimeout(r, 3800));
        const old = await sync(t, '/events', fresh);
        assert.equal(old.status, 410);
        assert.equal(old.body.code, 'rest_sync_token_expired');
        const foreign = await sync(other, '/events', await token(t, '/events'));
        assert.equal(foreign.status, 410);
      });
    });
  }
});
