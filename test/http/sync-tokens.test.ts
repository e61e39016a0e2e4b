/**
 * Issue 11, incremental sync: X-Sync-Token on the five lists, `?sync_token=` answering only what
 * changed after it (created/updated in full, trashed/deleted/hidden as tombstones), in change
 * order, paged like the list, filtered by the other arguments, never showing a caller a record it
 * could not read; 410 rest_sync_token_expired for a bad, foreign or too old token.
 *
 * Issue 24: tokens are signed (a forged or altered one is 410), their age is checked against the
 * log's own timestamps, one answer reads at most SYNC_MAX_CHANGES log rows and continues with its
 * token (X-Sync-More), and instances on one database share the key.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startServer, startTwoInstances, STORES, type TestServer } from '../support/harness.js';
import { tokenSeq } from '../support/sync-token.js';
import { syncTokenSecret } from '../../src/store/settings.js';
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

  it('a forged token (any field changed, the position zero with issued=now, the unsigned form, the position in clear under the MAC) answers 410; the genuine one 200', async () => {
    await t.api.post('/events', { as: 'admin', json: ev('Before the token') });
    const genuine = await token(t, '/events');
    await t.api.post('/events', { as: 'admin', json: ev('After the token') });
    const [version, db, sealed, issued, mac] = Buffer.from(genuine, 'base64url').toString('latin1').split('.');
    assert.equal(version, '3');
    const seq = await tokenSeq(t, genuine);
    assert.ok(seq > 0);
    const now = String(Math.floor(Date.now() / 1000));
    const forge = (...parts: string[]) => Buffer.from(parts.join('.')).toString('base64url');
    const flip = (text: string) => (text.startsWith('A') ? 'B' : 'A') + text.slice(1);
    const ok = await sync(t, '/events', forge(version!, db!, sealed!, issued!, mac!));
    assert.equal(ok.status, 200);
    assert.deepEqual(
      ok.body.events.map((e: any) => e.title),
      ['After the token'],
    );
    const forged = [
      forge(version!, db!, '0', now, mac!),
      forge(version!, db!, flip(sealed!), issued!, mac!),
      forge(version!, db!, String(seq), issued!, mac!),
      forge('2', db!, String(seq), issued!, mac!),
      forge('2', db!, sealed!, issued!, mac!),
      forge(version!, db!, sealed!, String(Number(issued) - 1), mac!),
      forge(version!, db!, sealed!, issued!, mac!.slice(0, -2) + (mac!.endsWith('AA') ? 'BA' : 'AA')),
      forge(version!, db!, sealed!, issued!),
      forge('1', db!, '0', now),
      forge('4', db!, sealed!, issued!, mac!),
    ];
    for (const bad of forged) {
      const res = await sync(t, '/events', bad);
      assert.equal(res.status, 410, Buffer.from(bad, 'base64url').toString());
      assert.equal(res.body.code, 'rest_sync_token_expired');
    }
  });

  it('issue 24: a token whose next change is older than SYNC_HISTORY_DAYS by the log timestamps answers 410, though it was issued now', async () => {
    const old = await token(t, '/events');
    const e = (await t.api.post('/events', { as: 'admin', json: ev('Backdated') })).body;
    const fresh = await token(t, '/events');
    await t.api.post(`/events/${e.id}`, { as: 'admin', json: { title: 'Backdated 2' } });
    const db = t.built.store.db;
    const oldSeq = await tokenSeq(t, old);
    const freshSeq = await tokenSeq(t, fresh);
    assert.ok(freshSeq > oldSeq);
    const restore = await db.selectFrom('changes').select(['seq', 'idx', 'created_gmt']).where('seq', '>', oldSeq).where('seq', '<=', freshSeq).execute();
    // The create's rows, 40 days old by the log (the default history is 30 days).
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).where('seq', '>', oldSeq).where('seq', '<=', freshSeq).execute();
    try {
      const res = await sync(t, '/events', old);
      assert.equal(res.status, 410, res.text);
      assert.equal(res.body.code, 'rest_sync_token_expired');
      // A token past them still has its whole history.
      const later = await sync(t, '/events', fresh);
      assert.equal(later.status, 200);
      assert.deepEqual(
        later.body.events.map((x: any) => x.title),
        ['Backdated 2'],
      );
    } finally {
      for (const r of restore) await db.updateTable('changes').set({ created_gmt: r.created_gmt }).where('seq', '=', r.seq).where('idx', '=', r.idx).execute();
    }
    assert.equal((await sync(t, '/events', old)).status, 200);
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

describe('issue 24: a delta larger than SYNC_MAX_CHANGES', () => {
  for (const kind of STORES) {
    describe(kind.name, () => {
      let t: TestServer;
      before(async () => {
        t = await startServer(kind, { SYNC_MAX_CHANGES: '4' });
      });
      after(async () => {
        await t?.close();
      });
      it('is answered in parts, each continuing from the token of the one before (X-Sync-More: true); their union is the whole delta', async () => {
        const t0 = await token(t, '/events');
        const created: number[] = [];
        for (let i = 0; i < 11; i++) {
          created.push((await t.api.post('/events', { as: 'admin', json: ev(`Part ${i}`) })).body.id);
          // Other lists' changes in between count as log rows too.
          if (i % 3 === 0) await t.api.post('/venues', { as: 'admin', json: { venue: `Venue ${i}`, status: 'publish' } });
        }
        await t.api.post(`/events/${created[0]}`, { as: 'admin', json: { title: 'Part 0 renamed' } });
        await t.api.delete(`/events/${created[1]}`, { as: 'admin' });
        // What one answer would hold: each record in its state now.
        const got = new Map<number, any>();
        let tok = t0;
        let parts = 0;
        for (;;) {
          const res = await sync(t, '/events', tok, { query: { per_page: 50 } });
          assert.equal(res.status, 200, res.text);
          parts++;
          assert.ok(parts < 30, 'ends');
          assert.deepEqual(
            Object.keys(res.body),
            ['events', 'rest_url', 'total', 'total_pages'].filter((k) => k in res.body),
          );
          for (const e of res.body.events) got.set(e.id, e);
          const next = res.headers.get('x-sync-token')!;
          assert.ok(next);
          const more = res.headers.get('x-sync-more');
          if (more === 'true') assert.notEqual(next, tok, 'a part moves the token on');
          else assert.equal(more, null);
          tok = next;
          if (!more) break;
        }
        assert.ok(parts >= 4, `${parts} parts`);
        assert.deepEqual(
          [...got.keys()].sort((a, b) => a - b),
          [...created].sort((a, b) => a - b),
        );
        assert.equal(got.get(created[0]!).title, 'Part 0 renamed');
        assert.deepEqual(got.get(created[1]!), { id: created[1], status: 'trash' });
        // The last part's token is current: nothing more.
        const empty = await sync(t, '/events', tok);
        assert.equal(empty.status, 200);
        assert.deepEqual(empty.body.events, []);
        assert.equal(empty.headers.get('x-sync-more'), null);
      });
      it('a single write with more rows than the limit is answered whole', async () => {
        const t0 = await token(t, '/events');
        const e = (await t.api.post('/events', { as: 'admin', json: ev('Many terms', { categories: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'] }) })).body;
        const seq = await t.built.store.db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', e.id).executeTakeFirstOrThrow();
        const rows = await t.built.store.db.selectFrom('changes').select('idx').where('seq', '=', seq.seq).execute();
        assert.ok(rows.length > 4, `${rows.length} rows in one write`);
        const res = await sync(t, '/events', t0);
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.events.map((x: any) => x.id),
          [e.id],
        );
        assert.equal(res.headers.get('x-sync-more'), null);
      });
    });
  }
});

describe('issue 24: instances on one database share the token key', () => {
  for (const kind of STORES) {
    it(kind.name, async () => {
      const { a, b, close } = await startTwoInstances(kind, 'sync-key');
      try {
        const fromA = await token(a, '/events');
        const e = (await b.api.post('/events', { as: 'admin', json: ev('Written on B') })).body;
        const onB = await sync(b, '/events', fromA);
        assert.equal(onB.status, 200, onB.text);
        assert.deepEqual(
          onB.body.events.map((x: any) => x.id),
          [e.id],
        );
        const onA = await sync(a, '/events', onB.headers.get('x-sync-token')!);
        assert.equal(onA.status, 200, onA.text);
        // The key is made once, race-free: made again concurrently (the row gone), both read the same.
        const dbA = a.built.store.db;
        const dbB = b.built.store.db;
        const before = await syncTokenSecret(dbA);
        assert.equal(await syncTokenSecret(dbB), before);
        await dbA
          .deleteFrom('settings' as never)
          .where('name' as never, '=', 'sync_token_secret' as never)
          .execute();
        const [x, y] = await Promise.all([syncTokenSecret(dbA), syncTokenSecret(dbB)]);
        assert.equal(x, y);
        assert.match(x, /^[0-9a-f]{64}$/);
        assert.notEqual(x, before);
      } finally {
        await close();
      }
    });
  }
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
