/**
 * A client of before tags named versions by a keyed hash (docs/calendars.md): its version 2 sync
 * token is still taken, and so is the item tag it holds (`"<db>.e<id>.<seq>.<variant>"`, the number
 * in clear) as a write's `If-Match`. It syncs, is told nothing changed, keeps its old tag, and its
 * next guarded write of that unchanged record goes through (a changed record's old tag: 412).
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { legacySyncToken } from '../support/sync-token.js';

forEachStore('a client of before the upgrade: its sync token and its item tag', (t) => {
  let id = 0;
  before(async () => {
    const made = await t.api.post('/events', { as: 'admin', json: { title: 'Held', status: 'publish', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' } });
    assert.equal(made.status, 201, made.text);
    id = made.body.id;
  });

  it('a tag of before the upgrade for a record unchanged since still passes If-Match', async () => {
    const { versions } = t.built.services;
    const key = await versions.syncKey();
    const v = await versions.of('event', id, false);
    // What the client held before the upgrade: the record's tag, and a list token at the same position.
    const oldTag = `"${key.databaseId}.e${id}.${v.seq}.x"`;
    const oldToken = legacySyncToken(key, (await versions.position()).seq, Date.now());
    // After the upgrade its sync goes on (version 2 taken) and reports nothing: it keeps its tag.
    const delta = await t.api.get('/events', { as: 'admin', query: { sync_token: oldToken } });
    assert.equal(delta.status, 200, delta.text);
    assert.deepEqual(delta.body.events, []);
    const write = await t.api.post(`/events/${id}`, { as: 'admin', headers: { 'if-match': oldTag }, json: { title: 'Held (edited)' } });
    assert.equal(write.status, 200, `a guarded write of an unchanged record: ${write.status} ${write.text.slice(0, 200)}`);
    // Now changed: the old tag is stale.
    const stale = await t.api.post(`/events/${id}`, { as: 'admin', headers: { 'if-match': oldTag }, json: { title: 'Held (again)' } });
    assert.equal(stale.status, 412, stale.text);
  });
});
