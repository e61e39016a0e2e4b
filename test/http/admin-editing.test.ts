/**
 * The editor's post locks (`calendar/admin/v1/events/{id}/editors`, as WordPress' `_edit_lock`):
 * taken and refreshed by POST, released by DELETE, listed by GET with who changed the event last;
 * the change stream's `editors` events (`?editing=ID`) when someone opens or leaves the event, and
 * the lock it holds while open (`&hold=1`), released when the connection ends; two
 * instances on one database see each other's locks; for whoever may edit the event only.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startTwoInstances, STORES, type TestServer } from '../support/harness.js';
import { activeEditLocks } from '../../src/store/edit-locks.js';
import { followEditors, type Editors } from '../support/editors-stream.js';

const A = '/api/calendar/admin/v1';

const EVENT = { title: 'Rehearsal', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00', status: 'publish' };
const names = (s: Editors) => s.editors.map((e) => e.name);

forEachStore('the editor’s post locks', (t) => {
  it('takes, lists and releases per user; says who changed the event last', async () => {
    await t.user('editor', 'edna');
    await t.user('editor', 'eve');
    const id = (await t.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
    const path = `${A}/events/${id}/editors`;
    const first = await t.api.get(path, { as: 'edna' });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.editors, []);
    assert.equal(first.body.last_editor.name, 'admin', 'the author until someone updates it');
    assert.equal(first.body.heartbeat, 30);

    const taken = await t.api.post(path, { as: 'edna' });
    assert.equal(taken.status, 200);
    assert.deepEqual(names(taken.body), ['edna']);
    const expires = Date.parse(taken.body.editors[0].expires);
    assert.ok(expires > Date.now() + 100_000 && expires <= Date.now() + 151_000, `a lock lasts 150 s: ${taken.body.editors[0].expires}`);
    assert.deepEqual(names((await t.api.post(path, { as: 'eve' })).body), ['edna', 'eve']);
    // A heartbeat refreshes the lock, once per user.
    assert.deepEqual(names((await t.api.post(path, { as: 'edna' })).body), ['edna', 'eve']);

    assert.deepEqual((await t.api.delete(path, { as: 'edna' })).body, { released: true });
    assert.deepEqual(names((await t.api.get(path, { as: 'admin' })).body), ['eve']);
    assert.deepEqual((await t.api.delete(path, { as: 'edna' })).body, { released: false });

    assert.equal((await t.api.post(`/events/${id}`, { as: 'eve', json: { title: 'Rehearsal (moved)' } })).status, 200);
    assert.deepEqual((await t.api.get(path, { as: 'edna' })).body.last_editor.name, 'eve');
    // Not on the legacy wire.
    assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).body.modified_by, undefined);
  });

  it('is for whoever may edit the event: 401 anonymous, 403 others, 404 no event, 400 a bad id', async () => {
    await t.user('contributor', 'carl');
    const id = (await t.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
    const path = `${A}/events/${id}/editors`;
    for (const method of ['get', 'post', 'delete'] as const) {
      assert.equal((await t.api[method](path)).status, 401, `${method} anonymous`);
      assert.equal((await t.api[method](path, { as: 'carl' })).status, 403, `${method} by a contributor on another's event`);
    }
    assert.equal((await t.api.post(`${A}/events/999999/editors`, { as: 'admin' })).status, 404);
    assert.equal((await t.api.get(`${A}/events/abc/editors`, { as: 'admin' })).status, 404);
    // An author may take a lock on their own draft.
    const own = (await t.api.post('/events', { as: 'carl', json: { ...EVENT, status: 'draft' } })).body.id as number;
    assert.deepEqual(names((await t.api.post(`${A}/events/${own}/editors`, { as: 'carl' })).body), ['carl']);
    assert.equal((await t.api.get(`${A}/changes/stream?editing=0`, { as: 'admin' })).status, 400);
  });

  it('sends the editors on the change stream as they come and go', async () => {
    await t.user('editor', 'ed1');
    await t.user('editor', 'ed2');
    const id = (await t.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
    const path = `${A}/events/${id}/editors`;
    const s = followEditors(t, 'ed2:ed2-pw', id);
    try {
      await s.opened;
      assert.equal(s.status, 200);
      let at = await s.until(0, (x) => x.id === id && x.editors.length === 0);
      await t.api.post(path, { as: 'ed1' });
      at = await s.until(at + 1, (x) => names(x).join() === 'ed1');
      await t.api.post(path, { as: 'ed1' });
      await t.api.delete(path, { as: 'ed1' });
      at = await s.until(at + 1, (x) => x.editors.length === 0);
      assert.equal(s.states.length, at + 1, 'a refresh sends nothing');
    } finally {
      s.close();
    }
  });

  it('holds the lock while a stream with hold=1 is open and frees it when the connection ends', async () => {
    await t.user('editor', 'hal');
    await t.user('editor', 'ida');
    await t.user('contributor', 'cy');
    const id = (await t.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
    const path = `${A}/events/${id}/editors`;
    const watch = followEditors(t, 'ida:ida-pw', id);
    const first = followEditors(t, 'hal:hal-pw', id, '&hold=1');
    const second = followEditors(t, 'hal:hal-pw', id, '&hold=true');
    try {
      await Promise.all([watch.opened, first.opened, second.opened]);
      assert.equal(first.status, 200);
      const at = await watch.until(0, (x) => names(x).join() === 'hal');
      // The editor's heartbeat on top of the holds; a browser gone sends no DELETE.
      await t.api.post(path, { as: 'hal' });
      first.close();
      // Another of the user's streams still holds it.
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(names((await t.api.get(path, { as: 'admin' })).body), ['hal']);
      second.close();
      await watch.until(at + 1, (x) => x.editors.length === 0);
      assert.deepEqual((await t.api.get(path, { as: 'admin' })).body.editors, [], 'released in the database, not only on the stream');
      assert.equal(
        watch.states.some((x) => names(x).includes('ida')),
        false,
        'following without hold takes no lock',
      );
    } finally {
      for (const s of [watch, first, second]) s.close();
    }
    // No lock for who may not edit the event: a contributor may not open the stream at all.
    const denied = followEditors(t, 'cy:cy-pw', id, '&hold=1');
    await denied.opened;
    assert.equal(denied.status, 403);
    denied.close();
    // No lock on an id that is no event: the stream follows it, holding nothing.
    const none = followEditors(t, 'hal:hal-pw', 999_999, '&hold=1');
    try {
      await none.opened;
      assert.equal(none.status, 200);
      await none.until(0, (x) => x.id === 999_999);
      await new Promise((r) => setTimeout(r, 300)); // a lock taken would be written by now
      assert.deepEqual(await activeEditLocks(t.built.store.db, 999_999, Date.now()), []);
      assert.equal(
        none.states.some((x) => x.editors.length > 0),
        false,
        'no editor on the stream',
      );
    } finally {
      none.close();
    }
    assert.equal((await t.api.get(`${A}/changes/stream?editing=${id}&hold=maybe`, { as: 'admin' })).status, 400);
  });
});

for (const kind of STORES) {
  it(`two instances on one database (${kind.name}) see each other's locks, on the stream too`, async () => {
    const both = await startTwoInstances(kind, 'edit-locks');
    try {
      const { a, b } = both;
      await a.user('editor', 'edna');
      await a.user('editor', 'eve');
      const id = (await a.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
      const s = followEditors(b, 'eve:eve-pw', id);
      try {
        await s.opened;
        let at = await s.until(0, (x) => x.editors.length === 0);
        await a.api.post(`${A}/events/${id}/editors`, { as: 'edna' });
        assert.deepEqual(names((await b.api.get(`${A}/events/${id}/editors`, { as: 'eve:eve-pw' })).body), ['edna']);
        at = await s.until(at + 1, (x) => names(x).join() === 'edna');
        await a.api.delete(`${A}/events/${id}/editors`, { as: 'edna' });
        await s.until(at + 1, (x) => x.editors.length === 0);
      } finally {
        s.close();
      }
    } finally {
      await both.close();
    }
  });
}

for (const kind of STORES) {
  it(`a page's lock is its own (${kind.name}): leaving releases it and not the one the user's next page took meanwhile, on another instance`, async () => {
    const both = await startTwoInstances(kind, 'edit-lock-holders');
    try {
      const { a, b } = both;
      await a.user('editor', 'fay');
      const id = (await a.api.post('/events', { as: 'admin', json: EVENT })).body.id as number;
      const path = `${A}/events/${id}/editors`;
      const editorsOn = async (t: TestServer) => names((await t.api.get(path, { as: 'admin' })).body);
      // The first page, its stream and heartbeat on instance a; the user reopens the event at once,
      // the new page's on instance b, before the first page's leaving reaches a.
      const first = followEditors(a, 'fay:fay-pw', id, '&hold=1&holder=page-one');
      await first.opened;
      assert.equal((await a.api.post(path, { as: 'fay', query: { holder: 'page-one' } })).status, 200);
      const second = followEditors(b, 'fay:fay-pw', id, '&hold=1&holder=page-two');
      try {
        await second.opened;
        assert.equal((await b.api.post(path, { as: 'fay:fay-pw', query: { holder: 'page-two' } })).status, 200);
        assert.deepEqual(await editorsOn(a), ['fay'], 'one editor, whatever locks they hold');
        // The first page leaves: its DELETE and its stream's end.
        const left = await a.api.delete(path, { as: 'fay', query: { holder: 'page-one' } });
        assert.deepEqual(left.body, { released: true });
        first.close();
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(await editorsOn(b), ['fay'], 'the second page keeps its lock');
        assert.deepEqual(await editorsOn(a), ['fay']);
        // Released by the second page itself: gone.
        assert.deepEqual((await b.api.delete(path, { as: 'fay:fay-pw', query: { holder: 'page-two' } })).body, { released: true });
        second.close();
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(await editorsOn(a), []);
      } finally {
        first.close();
        second.close();
      }
      // Without a holder, a DELETE releases every lock of the caller on the event (as before).
      await a.api.post(path, { as: 'fay', query: { holder: 'page-three' } });
      await b.api.post(path, { as: 'fay:fay-pw' });
      assert.deepEqual((await b.api.delete(path, { as: 'fay:fay-pw' })).body, { released: true });
      assert.deepEqual(await editorsOn(a), []);
      // A holder is letters, digits, '-' and '_', 1 to 64.
      for (const holder of ['', 'a b', 'x'.repeat(65), 'é']) {
        const bad = await a.api.post(path, { as: 'fay', query: { holder } });
        assert.equal(bad.status, 400, `holder ${JSON.stringify(holder)}`);
        assert.equal(bad.body.code, 'rest_invalid_param');
      }
      assert.equal((await a.api.get(`${A}/changes/stream?editing=${id}&hold=1&holder=a%20b`, { as: 'admin' })).status, 400);
    } finally {
      await both.close();
    }
  });
}
