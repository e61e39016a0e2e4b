/**
 * Each calendar keeps the sync history its own SYNC_HISTORY_DAYS says (a calendar setting): its
 * sync tokens expire at its age, and the change log's pruning cuts its rows at its horizon, not the
 * installation's, when it keeps a longer one; how far a calendar's rows were pruned is its own
 * (`changes_pruned`), so pruning another calendar expires none of its tokens. The calendar's
 * `sync_history_days` quota bounds it: a longer value is refused, and one stored before the quota
 * counts as the quota, for its tokens and its rows. On both stores.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { tokenSeq } from '../support/sync-token.js';
import { acrossCalendars, inCalendar } from '../../src/store/calendar-scope.js';
import { pruneChangeLog } from '../../src/jobs/change-log-pruning.js';
import { prunedThrough } from '../../src/store/change-pruning.js';
import { dav, syncCollection } from '../support/caldav.js';

const event = (title: string) => ({ title, status: 'publish', start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 11:00:00' });
const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');

forEachStore('calendars: each keeps its own sync history', (t) => {
  const ids: Record<string, number> = {};
  const events = (slug: string | undefined, path = '/events') => (slug ? `${t.origin}/c/${slug}${t.config.restRoot}/tribe/events/v1${path}` : `${t.base}${path}`);
  const admin = (slug: string | undefined) => `${t.origin}${slug ? `/c/${slug}` : ''}${t.config.restRoot}/calendar/admin/v1`;
  const token = async (slug?: string) => (await t.api.get(events(slug))).headers.get('x-sync-token')!;
  const rowsOf = (calendar: number, id: number) =>
    inCalendar(calendar, async () => (await t.built.store.db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', id).execute()).length);
  /** Every row of the log committed `days` ago (the pruning goes through the log in its order, whatever the calendar). */
  const age = (days: number) =>
    acrossCalendars(() =>
      t.built.store.db
        .updateTable('changes')
        .set({ created_gmt: ago(days) })
        .execute(),
    );
  /** An event written three times in a calendar: two of its log rows are superseded. */
  const written = async (slug: string | undefined, title: string) => {
    const made = await t.api.post(events(slug), { as: 'admin', json: event(title) });
    assert.equal(made.status, 201, made.text);
    for (const n of [2, 3]) assert.equal((await t.api.post(events(slug, `/events/${made.body.id}`), { as: 'admin', json: { title: `${title} ${n}` } })).status, 200);
    return made.body.id as number;
  };

  before(async () => {
    for (const slug of ['long', 'short', 'capped']) ids[slug] = (await t.built.services.calendars.create({ slug, name: slug })).id;
    for (const [slug, days] of [
      ['long', 90],
      ['short', 1],
      ['capped', 90],
    ] as const) {
      const changed = await t.api.put(`${admin(slug)}/settings`, { as: 'admin', json: { SYNC_HISTORY_DAYS: days } });
      assert.equal(changed.status, 200, changed.text);
    }
  });

  it('lists SYNC_HISTORY_DAYS among the calendar’s own settings, each calendar with its value, and refuses more than a hundred years', async () => {
    const of = async (slug?: string) =>
      ((await t.api.get(`${admin(slug)}/settings`, { as: 'admin' })).body as Array<{ name: string; value: unknown; scope: string; editable: boolean }>).find((s) => s.name === 'SYNC_HISTORY_DAYS')!;
    const [home, long] = [await of(), await of('long')];
    assert.equal(home.scope, 'calendar');
    assert.equal(home.editable, true);
    assert.equal(Number(home.value), 30);
    assert.equal(Number(long.value), 90);
    const refused = await t.api.put(`${admin('long')}/settings`, { as: 'admin', json: { SYNC_HISTORY_DAYS: 40000 } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'rest_invalid_param');
    assert.equal(Number((await of('long')).value), 90);
  });

  it('prunes a calendar that keeps 90 days at its own horizon: the installation’s 30 days leave its rows, its tokens and its change log as they were', async () => {
    const [homeToken, longToken] = [await token(), await token('long')];
    const home = await written(undefined, 'Home fair');
    const long = await written('long', 'Long fair');
    await age(40);

    const first = await pruneChangeLog(t.built.services);
    assert.ok(first.deleted >= 2, `${first.deleted} rows pruned`);
    assert.equal(await rowsOf(1, home), 1, 'the default calendar keeps 30 days: its event keeps its newest row');
    assert.equal(await rowsOf(ids.long!, long), 3, 'the calendar that keeps 90 days keeps every row of 40 days');
    assert.ok((await prunedThrough(t.built.store.db)) > (await tokenSeq(t, homeToken)));
    assert.equal(await inCalendar(ids.long!, () => prunedThrough(t.built.store.db)), 0, 'nothing of it was pruned');

    const expired = await t.api.get(events(undefined), { query: { sync_token: homeToken } });
    assert.equal(expired.status, 410);
    assert.equal(expired.body.code, 'rest_sync_token_expired');
    const kept = await t.api.get(events('long'), { query: { sync_token: longToken } });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(
      kept.body.events.map((e: { id: number }) => e.id),
      [long],
    );
    // The admin change log: the default calendar's history is gone, the long one's is whole.
    assert.equal((await t.api.get(`${admin(undefined)}/changes`, { as: 'admin', query: { after: await tokenSeq(t, homeToken) } })).status, 410);
    const log = await t.api.get(`${admin('long')}/changes`, { as: 'admin', query: { after: await tokenSeq(t, longToken) } });
    assert.equal(log.status, 200, log.text);
    assert.equal(log.body.events.filter((e: { changes: Array<{ type: string; id: number }> }) => e.changes.some((c) => c.type === 'event' && c.id === long)).length, 3);

    // 100 days old, its rows go too (a pass from the start), and its older tokens expire.
    await age(100);
    const second = await pruneChangeLog(t.built.services);
    assert.ok(second.deleted >= 2, `${second.deleted} rows pruned`);
    assert.equal(await rowsOf(ids.long!, long), 1);
    const gone = await t.api.get(events('long'), { query: { sync_token: longToken } });
    assert.equal(gone.status, 410);
  });

  it('refuses in a calendar that keeps 1 day a token whose next change is 2 days old, which the default calendar answers', async () => {
    const [homeToken, shortToken] = [await token(), await token('short')];
    const home = await written(undefined, 'Home market');
    const short = await written('short', 'Short market');
    await age(2);
    const answered = await t.api.get(events(undefined), { query: { sync_token: homeToken } });
    assert.equal(answered.status, 200, answered.text);
    assert.ok(answered.body.events.some((e: { id: number }) => e.id === home));
    const refused = await t.api.get(events('short'), { query: { sync_token: shortToken } });
    assert.equal(refused.status, 410);
    assert.equal(refused.body.code, 'rest_sync_token_expired');
    // Its rows are kept as long as the installation's (the pruning cuts it at 30 days).
    await pruneChangeLog(t.built.services);
    assert.equal(await rowsOf(ids.short!, short), 3);
  });

  it('bounds a calendar’s history by its sync_history_days quota: a longer value refused, one stored before counted as the quota for its tokens and its rows', async () => {
    const network = `${t.origin}${t.config.restRoot}/calendar/network/v1/calendars/${ids.capped}`;
    // The quota, through the network API: at most 36500, as the setting.
    const tooLong = await t.api.patch(network, { as: 'admin', json: { quotas: { sync_history_days: 36501 } } });
    assert.equal(tooLong.status, 400, tooLong.text);
    assert.equal(tooLong.body.code, 'rest_invalid_param');
    const set = await t.api.patch(network, { as: 'admin', json: { quotas: { sync_history_days: 10 } } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.quotas, { sync_history_days: 10 });

    // The calendar's administrators can no longer ask for more; the 90 days stored before stay stored.
    const refused = await t.api.put(`${admin('capped')}/settings`, { as: 'admin', json: { SYNC_HISTORY_DAYS: 11 } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.data.params.SYNC_HISTORY_DAYS, 'SYNC_HISTORY_DAYS is at most 10 days in this calendar (its sync_history_days quota).');
    const usage = await t.api.get(`${network}/usage`, { as: 'admin' });
    assert.deepEqual(usage.body.sync_history_days, { limit: 10, used: 90 });

    // Its tokens expire at 10 days, not 90: the REST API's and CalDAV's.
    const capToken = await token('capped');
    const CAL = '/c/capped/dav/public/calendars/events/';
    const davToken = (await dav(t, 'REPORT', CAL, syncCollection(''))).doc.multistatus['sync-token'] as string;
    const capped = await written('capped', 'Capped fair');
    await age(15);
    const expired = await t.api.get(events('capped'), { query: { sync_token: capToken } });
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.code, 'rest_sync_token_expired');
    const davExpired = await dav(t, 'REPORT', CAL, syncCollection(davToken));
    assert.equal(davExpired.status, 403, davExpired.text);
    assert.ok('valid-sync-token' in davExpired.doc.error);

    // Its rows are cut with the installation's 30 days: the 90 days stored do not exempt it.
    await age(40);
    await pruneChangeLog(t.built.services);
    assert.equal(await rowsOf(ids.capped!, capped), 1);
  });
});
