/**
 * Each calendar has a data revision of its own (store/change-feed.ts): the number of its last
 * change, or of people's (accounts and roles, not credentials), which every calendar shows. Another calendar's writes (drafts included)
 * leave a calendar's list ETags, Last-Modified, sync tokens and replayed answers as they were, so
 * a reader of one calendar neither has its answers rebuilt by them nor learns how often the store
 * is written; its own writes and people's move them. The revision is the log's alone: a second
 * instance on the same database gives the same validators.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES, forEachStore, startServer, type TestServer } from '../support/harness.js';
import { SYNC_TOKEN_PREFIX } from '../../src/caldav/calendars.js';
import { dav, responses, syncCollection } from '../support/caldav.js';
import { legacySyncToken, tokenSeq } from '../support/sync-token.js';

const PROPFIND_CTAG = '<d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/></d:prop></d:propfind>';

async function replays(t: TestServer): Promise<number> {
  const text = await (await fetch(`${t.origin}/metrics`)).text();
  const m = /^calendar_replayed_answers_total\{status="200"\} (\d+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

const event = (title: string, status = 'publish') => ({ title, status, start_date: '2027-06-01 10:00', end_date: '2027-06-01 11:00' });

forEachStore('calendars: each has a data revision of its own', (t) => {
  const api = (slug: string, path: string) => `${t.origin}/c/${slug}${t.config.restRoot}/tribe/events/v1${path}`;
  const northList = () => fetch(api('north', '/events'));
  before(async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North' });
    await t.built.services.calendars.create({ slug: 'south', name: 'South' });
    const made = await t.api.post(api('north', '/events'), { as: 'admin', json: event('North fair') });
    assert.equal(made.status, 201, made.text);
  });

  it('keeps a calendar’s list ETag, Last-Modified and sync token through other calendars’ writes, drafts included', async () => {
    const first = await northList();
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag');
    const lastModified = first.headers.get('last-modified');
    const seq = await tokenSeq(t, first.headers.get('x-sync-token'));
    assert.ok(etag && lastModified);
    const defaultBefore = (await t.api.get('/events')).headers.get('etag');
    assert.ok(defaultBefore);

    // A draft in the default calendar, and a published event and its edit in another.
    assert.equal((await t.api.post('/events', { as: 'admin', json: event('Unannounced', 'draft') })).status, 201);
    const south = await t.api.post(api('south', '/events'), { as: 'admin', json: event('South fair') });
    assert.equal(south.status, 201, south.text);
    assert.equal((await t.api.post(api('south', `/events/${south.body.id}`), { as: 'admin', json: { title: 'South fair (moved)' } })).status, 200);

    const again = await northList();
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(again.headers.get('last-modified'), lastModified);
    assert.equal(await tokenSeq(t, again.headers.get('x-sync-token')), seq);
    const conditional = await fetch(api('north', '/events'), { headers: { 'if-none-match': etag } });
    assert.equal(conditional.status, 304);
    // The default calendar's own list did move (its draft is its data).
    assert.notEqual((await t.api.get('/events')).headers.get('etag'), defaultBefore);

    // A sync from the token finds nothing of the other calendars.
    const delta = await fetch(api('north', `/events?sync_token=${encodeURIComponent(first.headers.get('x-sync-token')!)}`));
    assert.equal(delta.status, 200);
    assert.deepEqual(((await delta.json()) as { events: unknown[] }).events, []);
  });

  it('takes a version 2 token that carries the whole log’s number (as tokens did before), and goes on from the calendar’s last change', async () => {
    const list = await northList();
    const own = await tokenSeq(t, list.headers.get('x-sync-token'));
    const log = await t.built.store.feed.sync();
    assert.ok(log > own, 'other calendars wrote since');
    const token = legacySyncToken(await t.built.services.versions.syncKey(), log, Date.now());
    const delta = await fetch(api('north', `/events?sync_token=${encodeURIComponent(token)}`));
    assert.equal(delta.status, 200);
    assert.deepEqual(((await delta.json()) as { events: unknown[] }).events, []);
    assert.equal(await tokenSeq(t, delta.headers.get('x-sync-token')), own);
    const ahead = legacySyncToken(await t.built.services.versions.syncKey(), log + 1000, Date.now());
    assert.equal((await fetch(api('north', `/events?sync_token=${encodeURIComponent(ahead)}`))).status, 410, 'a token ahead of the log is refused');
  });

  it('moves them with the calendar’s own write, and a sync from the old token finds it', async () => {
    const before = await northList();
    const token = before.headers.get('x-sync-token')!;
    const made = await t.api.post(api('north', '/events'), { as: 'admin', json: event('North market') });
    assert.equal(made.status, 201, made.text);
    const after = await northList();
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    assert.ok((await tokenSeq(t, after.headers.get('x-sync-token'))) > (await tokenSeq(t, token)));
    const delta = await fetch(api('north', `/events?sync_token=${encodeURIComponent(token)}`));
    const ids = ((await delta.json()) as { events: Array<{ id: number }> }).events.map((e) => e.id);
    assert.deepEqual(ids, [made.body.id]);
  });

  it('keeps a calendar’s CalDAV ctag and sync token through other calendars’ writes, and takes a whole-log token', async () => {
    const CAL = '/c/north/dav/public/calendars/events/';
    const ctag = async () => {
      const res = await dav(t, 'PROPFIND', CAL, PROPFIND_CTAG, { depth: '0' });
      assert.equal(res.status, 207);
      return String(responses(res.doc).get(CAL)!.ok.getctag);
    };
    const before = await ctag();
    const first = await dav(t, 'REPORT', CAL, syncCollection(''));
    assert.equal(first.status, 207);
    const token = first.doc.multistatus['sync-token'] as string;
    assert.equal((await t.api.post(api('south', '/events'), { as: 'admin', json: event('South dance') })).status, 201);
    assert.equal(await ctag(), before);
    const same = await dav(t, 'REPORT', CAL, syncCollection(token));
    assert.equal(responses(same.doc).size, 0);
    assert.equal(same.doc.multistatus['sync-token'], token, 'the same token: nothing of this calendar changed');
    // A token carrying the whole log's number, as tokens did before calendars had their own.
    const log = await t.built.store.feed.sync();
    const legacy = `${SYNC_TOKEN_PREFIX}${legacySyncToken(await t.built.services.versions.syncKey(), log, Math.floor(Date.now() / 86_400_000) * 86_400_000)}`;
    const fromLegacy = await dav(t, 'REPORT', CAL, syncCollection(legacy));
    assert.equal(fromLegacy.status, 207);
    assert.equal(responses(fromLegacy.doc).size, 0);
    assert.equal(fromLegacy.doc.multistatus['sync-token'], token);
  });

  it('shows no change log number in a calendar’s tokens and validators, so they tell nothing of the writes of others between its changes; a token opens in its calendar only', async () => {
    const CAL = '/c/north/dav/public/calendars/events/';
    const made = await t.api.post(api('north', '/events'), { as: 'admin', json: event('North concert') });
    assert.equal(made.status, 201, made.text);
    const before = await northList();
    const item = await fetch(api('north', `/events/${made.body.id}`));
    // Others write between two changes of north: a reader who saw the log's numbers would see the gap.
    for (let i = 0; i < 3; i++) assert.equal((await t.api.post(api('south', '/events'), { as: 'admin', json: event(`South ${i}`) })).status, 201);
    assert.equal((await t.api.post(api('north', `/events/${made.body.id}`), { as: 'admin', json: { title: 'North concert (moved)' } })).status, 200);
    const after = await northList();
    const itemAfter = await fetch(api('north', `/events/${made.body.id}`));
    const first = await dav(t, 'REPORT', CAL, syncCollection(''));
    const listing = await dav(t, 'PROPFIND', CAL, PROPFIND_CTAG, { depth: '0' });
    const seqs = [await tokenSeq(t, before.headers.get('x-sync-token')), await tokenSeq(t, after.headers.get('x-sync-token'))];
    assert.ok(seqs[1]! - seqs[0]! > 3, 'the log moved by others’ writes in between');
    const shown = [
      before.headers.get('etag'),
      after.headers.get('etag'),
      item.headers.get('etag'),
      itemAfter.headers.get('etag'),
      String(responses(listing.doc).get(CAL)!.ok.getctag),
      String(first.doc.multistatus['sync-token']),
      ...[...responses(first.doc).values()].map((r) => String(r.ok?.getetag)),
      // What a reader decodes of a token: base64url of text.
      Buffer.from(before.headers.get('x-sync-token')!, 'base64url').toString('latin1'),
      Buffer.from(after.headers.get('x-sync-token')!, 'base64url').toString('latin1'),
      Buffer.from(String(first.doc.multistatus['sync-token']).slice(SYNC_TOKEN_PREFIX.length), 'base64url').toString('latin1'),
    ];
    // Each names its parts with dots (`"<database>.L<revision>.<hash>"`, `3.<database>.<position>.<issued>.<mac>`): none is a number of the log.
    for (const text of shown) {
      const fields = text!.replace(/^W\/|"/g, '').split('.');
      for (const seq of seqs) assert.ok(!fields.some((f) => f === String(seq) || f === `L${seq}`), `${text} shows ${seq}`);
    }
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    assert.notEqual(itemAfter.headers.get('etag'), item.headers.get('etag'));
    // The item's tag still works as a precondition, and is current while the item is.
    assert.equal((await fetch(api('north', `/events/${made.body.id}`), { headers: { 'if-none-match': itemAfter.headers.get('etag')! } })).status, 304);
    const stale = await t.api.post(api('north', `/events/${made.body.id}`), { as: 'admin', json: { title: 'Stale' }, headers: { 'if-match': item.headers.get('etag')! } });
    assert.equal(stale.status, 412, stale.text);
    // North's token is north's: south refuses it (REST 410, CalDAV's valid-sync-token).
    const token = after.headers.get('x-sync-token')!;
    assert.equal((await fetch(api('north', `/events?sync_token=${encodeURIComponent(token)}`))).status, 200);
    const elsewhere = await fetch(api('south', `/events?sync_token=${encodeURIComponent(token)}`));
    assert.equal(elsewhere.status, 410);
    assert.equal(((await elsewhere.json()) as { code: string }).code, 'rest_sync_token_expired');
    assert.equal((await fetch(`${t.base}/events?sync_token=${encodeURIComponent(token)}`)).status, 410);
    const davToken = String(first.doc.multistatus['sync-token']);
    const davElsewhere = await dav(t, 'REPORT', '/c/south/dav/public/calendars/events/', syncCollection(davToken));
    assert.equal(davElsewhere.status, 403);
    assert.match(davElsewhere.text, /valid-sync-token/);
  });

  it('moves every calendar’s revision with a change of people (which any calendar may show)', async () => {
    const before = (await northList()).headers.get('etag');
    await t.user('editor', 'revision-editor');
    assert.notEqual((await northList()).headers.get('etag'), before);
  });

  it('moves only its calendar’s revision with a change of a role in it (as its log row says), not every calendar’s', async () => {
    const N = `${t.origin}${t.config.restRoot}/calendar/network/v1`;
    const south = () => fetch(api('south', '/events'));
    const home = () => fetch(`${t.base}/events`);
    await t.user('subscriber', 'revision-member');
    const afterAccount = await Promise.all([northList(), south(), home()]);
    const listed = await t.api.get(`${N}/calendars`, { as: 'admin' });
    const northId = (listed.body as Array<{ id: number; slug: string }>).find((c) => c.slug === 'north')!.id;
    const member = await t.api.post(`${N}/calendars/${northId}/members`, { as: 'admin', json: { login: 'revision-member', role: 'editor' } });
    assert.equal(member.status, 200, member.text);
    assert.notEqual((await northList()).headers.get('etag'), afterAccount[0].headers.get('etag'), 'north moved with a role in it');
    assert.equal((await south()).headers.get('etag'), afterAccount[1].headers.get('etag'), 'south kept its ETag');
    assert.equal((await home()).headers.get('etag'), afterAccount[2].headers.get('etag'), 'the default calendar kept its ETag');
    assert.equal((await fetch(`${t.base}/events`, { headers: { 'if-none-match': afterAccount[2].headers.get('etag')! } })).status, 304);
    // The role is in force at once, and its removal too.
    const asMember = (path: string) =>
      fetch(`${t.origin}/c/north${t.config.restRoot}/tribe/events/v1${path}`, {
        headers: { authorization: `Basic ${Buffer.from('revision-member:revision-member-pw').toString('base64')}`, 'content-type': 'application/json' },
        method: 'POST',
        body: JSON.stringify(event('Member fair')),
      });
    assert.equal((await asMember('/events')).status, 201);
    const removed = await t.api.post(`${N}/calendars/${northId}/members`, { as: 'admin', json: { login: 'revision-member', role: '' } });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await asMember('/events')).status, 403);
    // The log names the calendar and the user.
    const A = `${t.origin}/c/north${t.config.restRoot}/calendar/admin/v1`;
    const seq = await tokenSeq(t, afterAccount[0].headers.get('x-sync-token'));
    const log = await t.api.get(`${A}/changes`, { as: 'admin', query: { after: seq } });
    assert.ok(
      log.body.events.some((e: { changes: Array<{ type: string; id: number }> }) => e.changes.some((c) => c.type === 'user')),
      JSON.stringify(log.body),
    );
  });

  it('keeps every calendar’s revision through a change of credentials (an application password made and revoked, a new password): no answer shows them', async () => {
    const A = `${t.origin}${t.config.restRoot}/calendar/admin/v1`;
    const list = await northList();
    const etag = list.headers.get('etag');
    const seq = await tokenSeq(t, list.headers.get('x-sync-token'));
    const made = await t.api.post(`${A}/users/1/application-passwords`, { as: 'admin', json: { name: 'revision' } });
    assert.equal(made.status, 201, made.text);
    const revoked = await t.api.delete(`${A}/users/1/application-passwords/${made.body.uuid}`, { as: 'admin' });
    assert.equal(revoked.status, 200, revoked.text);
    const again = await northList();
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(await tokenSeq(t, again.headers.get('x-sync-token')), seq);
    assert.equal((await fetch(api('north', '/events'), { headers: { 'if-none-match': etag! } })).status, 304);
    // The log has them (what servers keep authenticated is dropped): the whole log moved.
    const log = await t.api.get(`${A}/changes`, { as: 'admin', query: { after: seq } });
    assert.ok(log.body.events.some((e: { changes: Array<{ type: string; id: number }> }) => e.changes.some((c) => c.type === 'user' && c.id === 1)));

    // A new password, alone, is a change of credentials too.
    const member = await t.user('subscriber', 'revision-password');
    const asMember = () => fetch(`${A}/me`, { headers: { authorization: `Basic ${Buffer.from(member.credentials).toString('base64')}` } });
    assert.equal((await asMember()).status, 200, 'the first password opens the account (and is kept authenticated)');
    const afterMember = await northList();
    const changed = await t.api.patch(`${A}/users/${member.id}`, { as: 'admin', json: { password: 'a new password for revisions' } });
    assert.equal(changed.status, 200, changed.text);
    const afterPassword = await northList();
    assert.equal(afterPassword.headers.get('etag'), afterMember.headers.get('etag'), 'a new password moves no calendar');
    assert.equal(await tokenSeq(t, afterPassword.headers.get('x-sync-token')), await tokenSeq(t, afterMember.headers.get('x-sync-token')));
    // What was kept authenticated is dropped: the old password no longer opens the account.
    assert.equal((await asMember()).status, 401);
  });

  it('goes on replaying a calendar’s answer while another calendar is written, and stops at its own write', async () => {
    const path = api('north', '/events/?per_page=5');
    const first = await fetch(path);
    const body = await first.text();
    await fetch(path);
    const before = await replays(t);
    assert.equal(await (await fetch(path)).text(), body);
    assert.equal(await replays(t), before + 1, 'the third read is replayed');

    assert.equal((await t.api.post(api('south', '/events'), { as: 'admin', json: event('South market') })).status, 201);
    assert.equal((await t.api.post('/events', { as: 'admin', json: event('Another draft', 'draft') })).status, 201);
    assert.equal(await (await fetch(path)).text(), body);
    assert.equal(await replays(t), before + 2, 'replayed after the other calendars’ writes');

    assert.equal((await t.api.post(api('north', '/events'), { as: 'admin', json: event('North concert') })).status, 201);
    const fresh = await (await fetch(path)).text();
    assert.notEqual(fresh, body);
    assert.ok(fresh.includes('North concert'));
    assert.equal(await replays(t), before + 2, 'not replayed after its own write');
  });
});

for (const kind of STORES) {
  describe(`two instances give a calendar the same validators [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let dir: string | undefined;
    before(async () => {
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'revision-'));
        const file = { name: 'sqlite' as const, url: `sqlite:${join(dir, 'calendar.db')}` };
        a = await startServer(file);
        b = await startServer(file);
      } else {
        a = await startServer(kind);
        b = await startServer(kind, {}, { peerOf: a });
      }
    });
    after(async () => {
      await b?.close();
      await a?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers a calendar’s list with the same ETag and sync token on both, before and after a write in another calendar', async () => {
      await a.built.services.calendars.create({ slug: 'east', name: 'East' });
      await a.built.services.calendars.create({ slug: 'west', name: 'West' });
      const east = (t: TestServer) => `${t.origin}/c/east${t.config.restRoot}/tribe/events/v1/events`;
      assert.equal((await a.api.post(east(a), { as: 'admin', json: event('East fair') })).status, 201);
      // The second instance starts its look-ups after the write: its position is the log's, not its start's.
      const onA = await fetch(east(a));
      const onB = await fetch(east(b));
      assert.equal(onB.headers.get('etag'), onA.headers.get('etag'));
      assert.equal(await tokenSeq(a, onB.headers.get('x-sync-token')), await tokenSeq(a, onA.headers.get('x-sync-token')));
      const west = `${b.origin}/c/west${b.config.restRoot}/tribe/events/v1/events`;
      assert.equal((await b.api.post(west, { as: 'admin', json: event('West fair') })).status, 201);
      assert.equal((await fetch(east(a))).headers.get('etag'), onA.headers.get('etag'));
      assert.equal((await fetch(east(b))).headers.get('etag'), onA.headers.get('etag'));
    });

    it('agree through the other instance’s writes outside the log (a failed sign-in, a post lock): each keeps the calendar’s ETag and sync token', async () => {
      await a.built.services.calendars.create({ slug: 'dusk', name: 'Dusk' });
      const dusk = (t: TestServer, path = '/tribe/events/v1/events') => `${t.origin}/c/dusk${t.config.restRoot}${path}`;
      const made = await a.api.post(dusk(a), { as: 'admin', json: event('Dusk fair') });
      assert.equal(made.status, 201, made.text);
      const id = (made.body as { id: number }).id;
      const onA = await fetch(dusk(a));
      const onB = await fetch(dusk(b));
      assert.equal(onB.headers.get('etag'), onA.headers.get('etag'));
      // Rows of the login throttle and of post locks: state no answer of the calendar shows.
      const wrong = await fetch(dusk(b, '/wp/v2/users/me'), { headers: { authorization: `Basic ${Buffer.from('admin:not-the-password').toString('base64')}` } });
      assert.equal(wrong.status, 401);
      const locked = await b.api.post(dusk(b, `/calendar/admin/v1/events/${id}/editors`), { as: 'admin', json: {} });
      assert.ok(locked.status < 300, locked.text);
      for (const t of [a, b, a]) {
        const again = await fetch(dusk(t));
        assert.equal(again.headers.get('etag'), onA.headers.get('etag'), `the ETag on ${t === a ? 'a' : 'b'}`);
        assert.equal(again.headers.get('x-sync-token') && (await tokenSeq(t, again.headers.get('x-sync-token'))), await tokenSeq(t, onA.headers.get('x-sync-token')));
      }
      if (kind.name === 'sqlite') {
        // What the first instance's feed found: the other's commits without log rows, all marked.
        const metrics = await (await fetch(`${a.origin}/metrics`)).text();
        assert.match(metrics, /^calendar_feed_unlogged_commits_total\{kind="marked"\} [1-9]\d*$/m);
        assert.match(metrics, /^calendar_feed_unlogged_commits_total\{kind="unknown"\} 0$/m);
      }
    });

    it('agree through a change of a role in a calendar made on the other: that calendar moves alike on both, no other does, nothing is reset', async () => {
      const noon = await a.built.services.calendars.create({ slug: 'noon', name: 'Noon' });
      const lists = (t: TestServer) => Promise.all([fetch(`${t.origin}/c/noon${t.config.restRoot}/tribe/events/v1/events`), fetch(`${t.base}/events`)]);
      await a.user('subscriber', 'noon-member');
      const [noonA, homeA] = await lists(a);
      const [noonB, homeB] = await lists(b);
      assert.equal(noonB.headers.get('etag'), noonA.headers.get('etag'));
      assert.equal(homeB.headers.get('etag'), homeA.headers.get('etag'));
      const N = `${b.origin}${b.config.restRoot}/calendar/network/v1`;
      const member = await b.api.post(`${N}/calendars/${noon.id}/members`, { as: 'admin', json: { login: 'noon-member', role: 'author' } });
      assert.equal(member.status, 200, member.text);
      // Past the half second a commit without log rows would wait before a reset (SQLite).
      await new Promise((r) => setTimeout(r, 700));
      const [noonA2, homeA2] = await lists(a);
      const [noonB2, homeB2] = await lists(b);
      assert.notEqual(noonA2.headers.get('etag'), noonA.headers.get('etag'), 'noon moved on a');
      assert.equal(noonB2.headers.get('etag'), noonA2.headers.get('etag'), 'noon alike on both');
      assert.equal(homeA2.headers.get('etag'), homeA.headers.get('etag'), 'the default calendar kept its ETag on a');
      assert.equal(homeB2.headers.get('etag'), homeA.headers.get('etag'), 'the default calendar kept its ETag on b');
      if (kind.name === 'sqlite') assert.match(await (await fetch(`${a.origin}/metrics`)).text(), /^calendar_feed_unlogged_commits_total\{kind="unknown"\} 0$/m);
    });

    it('agree through a follow made on the other (its row is marked, what it copies is logged): no other calendar moves, nothing is reset', async () => {
      await a.built.services.calendars.create({ slug: 'eve', name: 'Eve' });
      await a.built.services.calendars.create({ slug: 'morn', name: 'Morn' });
      await a.built.services.calendars.create({ slug: 'night', name: 'Night' });
      const follow = (calendar: string) => b.api.post(`${b.origin}/c/eve${b.config.restRoot}/calendar/network/v1/follows`, { as: 'admin', json: { calendar } });
      // The first follow makes the account its copies are written by (a change of people: every calendar moves).
      assert.equal((await follow('morn')).status, 201);
      await new Promise((r) => setTimeout(r, 700));
      const [homeA, homeB] = await Promise.all([fetch(`${a.base}/events`), fetch(`${b.base}/events`)]);
      assert.equal(homeB.headers.get('etag'), homeA.headers.get('etag'));
      const followed = await follow('night');
      assert.equal(followed.status, 201, followed.text);
      // Past the half second a commit without log rows would wait before a reset (SQLite).
      await new Promise((r) => setTimeout(r, 700));
      assert.equal((await fetch(`${a.base}/events`)).headers.get('etag'), homeA.headers.get('etag'), 'the default calendar kept its ETag on a');
      assert.equal((await fetch(`${b.base}/events`)).headers.get('etag'), homeA.headers.get('etag'), 'the default calendar kept its ETag on b');
      if (kind.name === 'sqlite') assert.match(await (await fetch(`${a.origin}/metrics`)).text(), /^calendar_feed_unlogged_commits_total\{kind="unknown"\} 0$/m);
    });

    it('agree through a change of credentials made in the calendar: the instances that follow it and one started after it, which looks the calendar up', async () => {
      await a.built.services.calendars.create({ slug: 'dawn', name: 'Dawn' });
      const dawn = (t: TestServer, path = '/tribe/events/v1/events') => `${t.origin}/c/dawn${t.config.restRoot}${path}`;
      assert.equal((await a.api.post(dawn(a), { as: 'admin', json: event('Dawn fair') })).status, 201);
      const onA = await fetch(dawn(a));
      assert.equal((await fetch(dawn(b))).headers.get('etag'), onA.headers.get('etag'));
      // Made in the calendar's tree: its log row names the calendar.
      const made = await b.api.post(dawn(b, '/calendar/admin/v1/users/1/application-passwords'), { as: 'admin', json: { name: 'dawn' } });
      assert.equal(made.status, 201, made.text);
      assert.equal((await fetch(dawn(a))).headers.get('etag'), onA.headers.get('etag'));
      assert.equal((await fetch(dawn(b))).headers.get('etag'), onA.headers.get('etag'));
      const c = kind.name === 'sqlite' ? await startServer({ name: 'sqlite', url: `sqlite:${join(dir!, 'calendar.db')}` }) : await startServer(kind, {}, { peerOf: a });
      try {
        const onC = await fetch(dawn(c));
        assert.equal(onC.headers.get('etag'), onA.headers.get('etag'));
        assert.equal(await tokenSeq(a, onC.headers.get('x-sync-token')), await tokenSeq(a, onA.headers.get('x-sync-token')));
      } finally {
        await c.close();
      }
    });
  });
}
