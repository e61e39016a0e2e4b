/**
 * Issue 24: the change log is pruned past SYNC_HISTORY_DAYS (the job of
 * `src/domain/change-log-pruning.ts`), keeping every record's newest row (ETags and
 * `Last-Modified` do not move), every row a webhook endpoint has not turned into deliveries yet
 * (disabled endpoints too), and refusing sync tokens whose history was pruned.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { tokenSeq } from '../support/sync-token.js';
import { recordVersion } from '../../src/store/versions.js';
import { prunedThrough } from '../../src/store/change-pruning.js';
import { pruneChangeLog } from '../../src/jobs/change-log-pruning.js';

const ev = (title: string) => ({ title, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish' });

forEachStore('change log pruning', (t) => {
  it('deletes old rows but keeps each record newest row, rows after a pending webhook cursor; ETags stay; pruned history answers 410', async () => {
    const db = t.built.store.db;
    const rowsOf = async (id: number) =>
      (await db.selectFrom('changes').select(['seq', 'action']).where('record_type', '=', 'event').where('record_id', '=', id).orderBy('seq').execute()).map((r) => Number(r.seq));
    const tokenOf = async () => (await t.api.get('/events')).headers.get('x-sync-token')!;

    const t0 = await tokenOf();
    // Before the endpoint: A written three times, B twice.
    const a = (await t.api.post('/events', { as: 'admin', json: ev('A') })).body;
    await t.api.post(`/events/${a.id}`, { as: 'admin', json: { title: 'A2' } });
    await t.api.post(`/events/${a.id}`, { as: 'admin', json: { title: 'A3' } });
    const b = (await t.api.post('/events', { as: 'admin', json: ev('B') })).body;
    await t.api.post(`/events/${b.id}`, { as: 'admin', json: { title: 'B2' } });
    // An endpoint, disabled at once: what follows is not delivered yet and must stay.
    const endpoint = await t.built.webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    await t.built.webhooks.update(endpoint.id, { enabled: false });
    const cursor = Number((await db.selectFrom('webhook_endpoints').select('cursor_seq').where('id', '=', endpoint.id).executeTakeFirstOrThrow()).cursor_seq);
    const tE = await tokenOf();
    await t.api.post(`/events/${b.id}`, { as: 'admin', json: { title: 'B3' } });
    const c = (await t.api.post('/events', { as: 'admin', json: ev('C') })).body;
    await t.api.post(`/events/${c.id}`, { as: 'admin', json: { title: 'C2' } });
    assert.equal((await rowsOf(a.id)).length, 3);

    const etagA = (await t.api.get(`/events/${a.id}`)).headers;
    const versionA = await recordVersion(db, 'event', a.id);
    const versionB = await recordVersion(db, 'event', b.id);
    const total = async () =>
      Number(
        (
          await db
            .selectFrom('changes')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await total();

    // Nothing is old yet: nothing goes.
    assert.equal(await t.built.pruneJob.runOnce(), 0);
    assert.equal(await total(), before);

    // Everything 40 days old by the log (SYNC_HISTORY_DAYS is 30).
    const saved = await db.selectFrom('changes').select(['seq', 'idx', 'created_gmt']).execute();
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const deleted = await t.built.pruneJob.runOnce();
    assert.ok(deleted >= 3, `${deleted} rows pruned`);
    assert.equal(await total(), before - deleted);

    // A keeps its newest row alone; B its rows after the cursor (and its newest); C all.
    assert.deepEqual(await rowsOf(a.id), [versionA.seq]);
    const bRows = await rowsOf(b.id);
    assert.ok(
      bRows.every((s) => s > cursor),
      `B rows ${bRows} after the cursor ${cursor}`,
    );
    assert.equal(bRows.length, 1);
    assert.equal((await rowsOf(c.id)).length, 2, 'C keeps its older row too: the endpoint has not delivered it');
    const afterCursor = await db.selectFrom('changes').select('seq').where('seq', '>', cursor).execute();
    assert.ok(afterCursor.length >= 2, 'the rows the endpoint still has to deliver are all there');
    assert.ok((await prunedThrough(db)) > 0);
    assert.ok((await prunedThrough(db)) <= cursor);

    // Versions, ETags and Last-Modified as before (the kept rows' timestamps put back).
    for (const r of saved) await db.updateTable('changes').set({ created_gmt: r.created_gmt }).where('seq', '=', r.seq).where('idx', '=', r.idx).execute();
    assert.deepEqual(await recordVersion(db, 'event', a.id), versionA);
    assert.deepEqual(await recordVersion(db, 'event', b.id), versionB);
    const again = (await t.api.get(`/events/${a.id}`)).headers;
    assert.equal(again.get('etag'), etagA.get('etag'));
    assert.equal(again.get('last-modified'), etagA.get('last-modified'));

    // Back to today's timestamps: a token from before the pruned rows is refused all the same
    // (its history is gone), one from after them is answered.
    assert.ok((await tokenSeq(t, t0)) < (await prunedThrough(db)));
    const refused = await t.api.get('/events', { query: { sync_token: t0 } });
    assert.equal(refused.status, 410);
    assert.equal(refused.body.code, 'rest_sync_token_expired');
    const answered = await t.api.get('/events', { query: { sync_token: tE } });
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(
      answered.body.events.map((e: any) => e.id),
      [b.id, c.id],
    );

    // Enabled again, the endpoint gets the changes made while it was disabled.
    await t.built.webhooks.update(endpoint.id, { enabled: true });
    await t.built.webhooks.materialize();
    const deliveries = await t.built.webhooks.deliveries(endpoint.id);
    const types = deliveries.items.map((d) => `${d.type}:${(d.payload as any).data.id}`).sort();
    assert.deepEqual(types, [`event.created:${c.id}`, `event.updated:${b.id}`, `event.updated:${c.id}`].sort());
    await t.built.webhooks.remove(endpoint.id);
  });

  it("keeps the rows after the fediverse outbox's cursor while FEDERATION is on, and not when it is off", async () => {
    const db = t.built.store.db;
    const e = (await t.api.post('/events', { as: 'admin', json: ev('Followed') })).body;
    const before = (await recordVersion(db, 'event', e.id)).seq;
    for (let i = 0; i < 3; i++) await t.api.post(`/events/${e.id}`, { as: 'admin', json: { title: `Followed ${i}` } });
    // The outbox has sent everything up to the create, not the edits after it.
    await db.withTables<{ federation_state: { id: number; cursor_seq: number } }>().insertInto('federation_state').values({ id: 1, cursor_seq: before }).execute();
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const rows = async () => (await db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', e.id).execute()).length;
    assert.equal(await rows(), 4);
    await pruneChangeLog({ ...t.built.services, config: { ...t.built.services.config, federation: true } });
    assert.equal(await rows(), 3, 'the edits after the outbox cursor are kept, the create before it is pruned');
    await pruneChangeLog({ ...t.built.services, config: { ...t.built.services.config, federation: false } });
    assert.equal(await rows(), 1, 'with federation off, only the newest row is kept');
    await db.withTables<{ federation_state: { id: number } }>().deleteFrom('federation_state').execute();
  });

  it('keeps the rows after the review e-mails cursor while review e-mails are sent (a durable reader declared to the pruning job)', async () => {
    const db = t.built.store.db;
    const e = (await t.api.post('/events', { as: 'admin', json: ev('Reviewed') })).body;
    const before = (await recordVersion(db, 'event', e.id)).seq;
    for (let i = 0; i < 3; i++) await t.api.post(`/events/${e.id}`, { as: 'admin', json: { title: `Reviewed ${i}` } });
    // The review e-mails have read up to the create, not the edits after it.
    const cursors = db.withTables<{ mail_cursors: { name: string; seq: number } }>();
    const was = await cursors.selectFrom('mail_cursors').select('seq').where('name', '=', 'review').executeTakeFirst();
    await cursors.deleteFrom('mail_cursors').where('name', '=', 'review').execute();
    await cursors.insertInto('mail_cursors').values({ name: 'review', seq: before }).execute();
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const rows = async () => (await db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', e.id).execute()).length;
    assert.equal(await rows(), 4);
    await pruneChangeLog({ ...t.built.services, config: { ...t.built.services.config, reviewNotify: true, smtpUrl: 'smtp://127.0.0.1:1' } });
    assert.equal(await rows(), 3, 'the edits after the review cursor are kept, the create before it is pruned');
    await pruneChangeLog({ ...t.built.services, config: { ...t.built.services.config, reviewNotify: false, smtpUrl: 'smtp://127.0.0.1:1' } });
    assert.equal(await rows(), 1, 'with the review e-mails off, only the newest row is kept');
    await cursors.deleteFrom('mail_cursors').where('name', '=', 'review').execute();
    if (was)
      await cursors
        .insertInto('mail_cursors')
        .values({ name: 'review', seq: Number(was.seq) })
        .execute();
  });

  it('prunes in bounded batches, to the same end', async () => {
    const db = t.built.store.db;
    const e = (await t.api.post('/events', { as: 'admin', json: ev('Batched') })).body;
    for (let i = 0; i < 7; i++) await t.api.post(`/events/${e.id}`, { as: 'admin', json: { title: `Batched ${i}` } });
    const newest = (await recordVersion(db, 'event', e.id)).seq;
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const run = await pruneChangeLog(t.built.services, { batch: 2 });
    assert.ok(run.deleted >= 7, `${run.deleted}`);
    const left = await db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', e.id).execute();
    assert.deepEqual(
      left.map((r) => Number(r.seq)),
      [newest],
    );
    // Every record keeps one row at least: nothing older is left to prune.
    assert.equal((await pruneChangeLog(t.built.services, { batch: 2 })).deleted, 0);
    const perRecord = await db
      .selectFrom('changes')
      .select(['record_type', 'record_id'])
      .select((eb) => eb.fn.countAll().as('n'))
      .groupBy(['record_type', 'record_id'])
      .execute();
    assert.ok(perRecord.every((r) => Number(r.n) === 1));
  });

  it('a later run goes on from the last one: it still deletes the kept rows of records logged again since', async () => {
    const db = t.built.store.db;
    const rowsOf = async (id: number) =>
      (await db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', id).orderBy('seq').execute()).map((r) => Number(r.seq));
    const x = (await t.api.post('/events', { as: 'admin', json: ev('X') })).body;
    const y = (await t.api.post('/events', { as: 'admin', json: ev('Y') })).body;
    await t.api.post(`/events/${y.id}`, { as: 'admin', json: { title: 'Y2' } });
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const first = await pruneChangeLog(t.built.services, { batch: 2 });
    assert.equal((await rowsOf(x.id)).length, 1);
    assert.equal((await rowsOf(y.id)).length, 1);
    assert.ok(first.state.scanned >= (await rowsOf(y.id))[0]!);
    // X is written again; then its rows are old too. The next run starts after the first one's end,
    // yet X's older row goes; Y's stays (its newest).
    await t.api.post(`/events/${x.id}`, { as: 'admin', json: { title: 'X2' } });
    const z = (await t.api.post('/events', { as: 'admin', json: ev('Z') })).body;
    await t.api.post(`/events/${z.id}`, { as: 'admin', json: { title: 'Z2' } });
    const newestX = (await recordVersion(db, 'event', x.id)).seq;
    await db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute();
    const second = await pruneChangeLog(t.built.services, { batch: 2, since: first.state });
    assert.ok(second.deleted >= 2, `${second.deleted}`);
    assert.deepEqual(await rowsOf(x.id), [newestX]);
    assert.equal((await rowsOf(y.id)).length, 1);
    assert.equal((await rowsOf(z.id)).length, 1);
    // As a run from the start finds: nothing left.
    assert.equal((await pruneChangeLog(t.built.services, { batch: 2 })).deleted, 0);
  });
});
