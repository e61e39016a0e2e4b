/**
 * Issue 15, recurring events over the legacy API: a series created once is listed as dated events
 * (own ids, urls, post_parent), stays at its local hour across daylight-saving changes, keeps its
 * occurrences' ids when regenerated, edits one occurrence / the following ones / all, trashes all
 * with the series, becomes single again; invalid rules are 400 naming the line; visibility,
 * permissions and term counts on occurrences; the horizon job extends series on a second instance.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES, forEachStore, startServer, startTwoInstances, type TestServer } from '../support/harness.js';

const WINDOW = { start_date: '2027-01-01', end_date: '2027-12-31', per_page: 50 };

async function createSeries(t: TestServer, json: Record<string, unknown>) {
  const res = await t.api.post('/events', {
    as: 'admin',
    json: { status: 'publish', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:30:00', timezone: 'America/New_York', ...json },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Record<string, any>;
}

async function occurrences(t: TestServer, seriesId: number, as: string | null = 'admin') {
  const res = await t.api.get('/events', { as, query: { ...WINDOW, post_parent: seriesId } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.events as Array<Record<string, any>>;
}

forEachStore('recurring events: series and occurrences', (t) => {
  it('a weekly series is listed as dated events at 19:00 local across the DST change, with their own ids and urls', async () => {
    const series = await createSeries(t, { title: 'Weekly Class', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] });
    assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5']);
    assert.equal(series.url, `${t.origin}/event/weekly-class/all/`);
    assert.equal(series.start_date, '2027-03-02 19:00:00');
    assert.equal(series.hide_from_listings, false);
    assert.equal('recurring_event_id' in series, false);

    const list = await t.api.get('/events', { query: { ...WINDOW, search: 'Weekly Class' } });
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 5);
    const events = list.body.events as Array<Record<string, any>>;
    assert.deepEqual(
      events.map((e) => [e.start_date, e.utc_start_date, e.end_date]),
      [
        ['2027-03-02 19:00:00', '2027-03-03 00:00:00', '2027-03-02 20:30:00'],
        ['2027-03-09 19:00:00', '2027-03-10 00:00:00', '2027-03-09 20:30:00'],
        ['2027-03-16 19:00:00', '2027-03-16 23:00:00', '2027-03-16 20:30:00'],
        ['2027-03-23 19:00:00', '2027-03-23 23:00:00', '2027-03-23 20:30:00'],
        ['2027-03-30 19:00:00', '2027-03-30 23:00:00', '2027-03-30 20:30:00'],
      ],
    );
    assert.ok(events.every((e) => e.id !== series.id && e.title === 'Weekly Class'));
    assert.equal(new Set(events.map((e) => e.id)).size, 5);
    assert.deepEqual(events[1]!.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5']);
    assert.equal(events[1]!.recurring_event_id, series.id);
    assert.equal(events[1]!.original_start_date, '2027-03-09 19:00:00');
    assert.equal(events[1]!.url, `${t.origin}/event/weekly-class/2027-03-09/`);
    // The new fields come last, after the original's keys.
    const keys = Object.keys(events[1]!);
    assert.deepEqual(keys.slice(-3), ['recurrence', 'recurring_event_id', 'original_start_date']);

    // ?post_parent lists the series; the series and every occurrence answer by id; by-slug is the series.
    assert.deepEqual(
      (await occurrences(t, series.id, null)).map((e) => e.id),
      events.map((e) => e.id),
    );
    const one = await t.api.get(`/events/${events[2]!.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.original_start_date, '2027-03-16 19:00:00');
    assert.equal(one.body.json_ld.url, `${t.origin}/event/weekly-class/2027-03-16/`);
    const bySeriesId = await t.api.get(`/events/${series.id}`);
    assert.equal(bySeriesId.status, 200);
    assert.deepEqual(bySeriesId.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=5']);
    const bySlug = await t.api.get('/events/by-slug/weekly-class');
    assert.equal(bySlug.status, 200);
    assert.equal(bySlug.body.id, series.id);
  });

  it('single events keep exactly their object; the series itself is never listed', async () => {
    const single = await t.api.post('/events', { as: 'admin', json: { title: 'Plain One', status: 'publish', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00' } });
    assert.equal(single.status, 201);
    for (const k of ['recurrence', 'recurring_event_id', 'original_start_date']) assert.equal(k in single.body, false);
    const got = await t.api.get(`/events/${single.body.id}`);
    for (const k of ['recurrence', 'recurring_event_id', 'original_start_date']) assert.equal(k in got.body, false);
    const series = await createSeries(t, { title: 'Never Listed Itself', recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] });
    const list = await t.api.get('/events', { query: { ...WINDOW, search: 'Never Listed Itself' } });
    assert.equal(list.body.total, 2);
    assert.ok(!list.body.events.some((e: any) => e.id === series.id));
    const included = await t.api.get('/events', { query: { include: series.id } });
    assert.equal(included.body.total, 0);
  });

  it('invalid rules answer 400 rest_invalid_param naming the line and the problem, and write nothing', async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Bad Rules', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:00:00', recurrence: ['RRULE:FREQ=WEEKLY', 'EXDATE:2027-03-09'] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.match(res.body.data.params.recurrence, /^Line 2 \("EXDATE:2027-03-09"\): date value "2027-03-09" is not a date/);
    assert.equal(res.body.data.details.recurrence.data.line, 2);
    const hourly = await t.api.post('/events', { as: 'admin', json: { title: 'Bad Rules', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:00:00', recurrence: 'RRULE:FREQ=HOURLY' } });
    assert.equal(hourly.status, 400);
    assert.match(hourly.body.data.params.recurrence, /FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY/);
    const list = await t.api.get('/events', { as: 'admin', query: { ...WINDOW, search: 'Bad Rules' } });
    assert.equal(list.body.total, 0);
    // Form-encoded lists work too.
    const form = await t.api.post('/events', {
      as: 'admin',
      form: { title: 'Form Series', status: 'publish', start_date: '2027-05-03 09:00:00', end_date: '2027-05-03 10:00:00', recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=2'] },
    });
    assert.equal(form.status, 201, JSON.stringify(form.body));
    assert.deepEqual(
      (await occurrences(t, form.body.id)).map((e) => e.start_date),
      ['2027-05-03 09:00:00', '2027-05-28 09:00:00'],
    );
  });

  it('one occurrence edited or deleted stays so when the rules change; the others keep their ids', async () => {
    const series = await createSeries(t, { title: 'Exceptions', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const [a, b, c, d] = await occurrences(t, series.id);
    const edited = await t.api.post(`/events/${b!.id}`, { as: 'admin', json: { title: 'Exceptions (moved)', start_date: '2027-03-10 18:00:00', end_date: '2027-03-10 19:00:00' } });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.original_start_date, '2027-03-09 19:00:00');
    assert.equal(edited.body.start_date, '2027-03-10 18:00:00');
    const deleted = await t.api.delete(`/events/${c!.id}`, { as: 'admin' });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, 'trash');
    // Others untouched.
    assert.equal((await t.api.get(`/events/${d!.id}`)).body.title, 'Exceptions');

    const changed = await t.api.post(`/events/${series.id}`, { as: 'admin', json: { title: 'Exceptions v2', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6']);
    const after = await occurrences(t, series.id);
    assert.deepEqual(
      after.map((e) => [e.original_start_date, e.title]),
      [
        ['2027-03-02 19:00:00', 'Exceptions v2'],
        ['2027-03-09 19:00:00', 'Exceptions (moved)'],
        ['2027-03-23 19:00:00', 'Exceptions v2'],
        ['2027-03-30 19:00:00', 'Exceptions v2'],
        ['2027-04-06 19:00:00', 'Exceptions v2'],
      ],
    );
    assert.equal(after[0]!.id, a!.id);
    assert.equal(after[1]!.id, b!.id);
    assert.equal(after[2]!.id, d!.id);
    assert.equal(after[1]!.start_date, '2027-03-10 18:00:00');
    // The deleted one is not resurrected.
    assert.equal((await t.api.get(`/events/${c!.id}`, { as: 'admin' })).body.code, 'event-no-longer-available');
    assert.equal(after[3]!.recurrence[0], 'RRULE:FREQ=WEEKLY;COUNT=6');

    // Fewer occurrences: the ones no longer generated go (the edited one stays).
    const fewer = await t.api.post(`/events/${series.id}`, { as: 'admin', json: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] } });
    assert.equal(fewer.status, 200);
    assert.deepEqual(
      (await occurrences(t, series.id)).map((e) => e.id),
      [a!.id, b!.id],
    );
    assert.equal((await t.api.get(`/events/${d!.id}`, { as: 'admin' })).status, 404);
    // Rules on one occurrence need a scope.
    const noScope = await t.api.post(`/events/${a!.id}`, { as: 'admin', json: { recurrence: ['RRULE:FREQ=DAILY'] } });
    assert.equal(noScope.status, 400);
    assert.match(noScope.body.data.params.recurrence, /recurrence_scope/);
  });

  it('recurrence_scope=following splits the series; all changes every occurrence not edited alone', async () => {
    const series = await createSeries(t, { title: 'Splitting', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] });
    const before = await occurrences(t, series.id);
    const third = before[2]!;
    const split = await t.api.post(`/events/${third.id}`, { as: 'admin', json: { title: 'Splitting (new room)', recurrence_scope: 'following' } });
    assert.equal(split.status, 200, JSON.stringify(split.body));
    assert.equal(split.body.id, third.id);
    assert.notEqual(split.body.recurring_event_id, series.id);
    assert.deepEqual(split.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    const oldSeries = await t.api.get(`/events/${series.id}`);
    assert.deepEqual(oldSeries.body.recurrence, ['RRULE:FREQ=WEEKLY;UNTIL=20270316T225959Z']);
    assert.deepEqual(
      (await occurrences(t, series.id)).map((e) => e.id),
      [before[0]!.id, before[1]!.id],
    );
    const newer = await occurrences(t, split.body.recurring_event_id);
    assert.deepEqual(
      newer.map((e) => e.id),
      [before[2]!.id, before[3]!.id, before[4]!.id],
    );
    assert.ok(newer.every((e) => e.title === 'Splitting (new room)'));
    assert.ok((await occurrences(t, series.id)).every((e) => e.title === 'Splitting'));

    // all, from an occurrence: the series' other occurrences change too (not its time: 400).
    const first = before[0]!;
    const all = await t.api.post(`/events/${first.id}`, { as: 'admin', json: { description: 'Bring a mat', recurrence_scope: 'all' } });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.ok((await occurrences(t, series.id)).every((e) => e.description === '<p>Bring a mat</p>'));
    const move = await t.api.post(`/events/${first.id}`, { as: 'admin', json: { start_date: '2027-03-02 20:00:00', recurrence_scope: 'all' } });
    assert.equal(move.status, 400);
    assert.equal(move.body.code, 'rest_invalid_param');
    // A scope on a single event is refused.
    const single = await t.api.post('/events', { as: 'admin', json: { title: 'Not Recurring', start_date: '2027-03-02 19:00:00', end_date: '2027-03-02 20:00:00' } });
    const bad = await t.api.post(`/events/${single.body.id}`, { as: 'admin', json: { title: 'x', recurrence_scope: 'following' } });
    assert.equal(bad.status, 400);
    const badValue = await t.api.post(`/events/${first.id}`, { as: 'admin', json: { recurrence_scope: 'some' } });
    assert.equal(badValue.status, 400);
  });

  it('following splits a series with organizers, a venue, categories, tags, an exclusion and an edited occurrence, sent as the editor sends them, in one transaction', async () => {
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Split Category' } });
    const tag = await t.api.post('/tags', { as: 'admin', json: { name: 'split-tag' } });
    const series = await createSeries(t, {
      title: 'Linked Split',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=America/New_York:20270316T190000'],
      organizer: [{ organizer: 'Split Org One' }, { organizer: 'Split Org Two' }],
      venue: { venue: 'Split Hall' },
      categories: [cat.body.id],
      tags: [tag.body.id],
    });
    const before = await occurrences(t, series.id);
    assert.deepEqual(
      before.map((e) => e.start_date.slice(0, 10)),
      ['2027-03-02', '2027-03-09', '2027-03-23', '2027-03-30', '2027-04-06'],
    );
    const edited = await t.api.post(`/events/${before[4]!.id}`, { as: 'admin', json: { title: 'Linked Split (edited alone)' } });
    assert.equal(edited.status, 200, edited.text);
    const at = (await t.api.get(`/events/${before[2]!.id}`, { as: 'admin' })).body;
    // The editor sends every field back: linked records by id, as it loaded them.
    const body = {
      title: 'Linked Split (new room)',
      recurrence_scope: 'following',
      organizer: at.organizer.map((o: any) => o.id),
      venue: at.venue.id,
      categories: at.categories.map((c: any) => c.id),
      tags: at.tags.map((c: any) => c.id),
    };
    // A split whose changes are refused writes nothing (one transaction).
    const refused = await t.api.post(`/events/${at.id}`, { as: 'admin', json: { ...body, organizer: [...body.organizer, 999999] } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(
      (await occurrences(t, series.id)).map((e) => e.id),
      before.map((e) => e.id),
    );
    const split = await t.api.post(`/events/${at.id}`, { as: 'admin', json: body });
    assert.equal(split.status, 200, split.text);
    const newSeries = split.body.recurring_event_id;
    assert.notEqual(newSeries, series.id);
    const moved = await occurrences(t, newSeries);
    assert.deepEqual(
      moved.map((e) => e.id),
      [before[2]!.id, before[3]!.id, before[4]!.id],
    );
    assert.deepEqual(
      moved.map((e) => e.title),
      ['Linked Split (new room)', 'Linked Split (new room)', 'Linked Split (edited alone)'],
    );
    for (const e of [...moved, (await t.api.get(`/events/${newSeries}`, { as: 'admin' })).body]) {
      assert.deepEqual(
        e.organizer.map((o: any) => o.organizer),
        ['Split Org One', 'Split Org Two'],
        String(e.id),
      );
      assert.equal(e.venue.venue, 'Split Hall');
      assert.deepEqual(
        e.categories.map((c: any) => c.id),
        [cat.body.id],
      );
      assert.deepEqual(
        e.tags.map((c: any) => c.id),
        [tag.body.id],
      );
    }
    const kept = await occurrences(t, series.id);
    assert.deepEqual(
      kept.map((e) => e.id),
      [before[0]!.id, before[1]!.id],
    );
    assert.ok(kept.every((e) => e.organizer.length === 2 && e.tags.length === 1 && e.title === 'Linked Split'));
    // The counts are the published events linked: the two kept, the three moved.
    assert.equal((await t.api.get(`/categories/${cat.body.id}`)).body.count, 5);
    assert.equal((await t.api.get(`/tags/${tag.body.id}`)).body.count, 5);
  });

  it('deleting a series trashes all its occurrences; deleting following ends it', async () => {
    const series = await createSeries(t, { title: 'Trash All', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(t, series.id);
    const del = await t.api.delete(`/events/${series.id}`, { as: 'admin' });
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'trash');
    assert.deepEqual(await occurrences(t, series.id), []);
    for (const o of occ) assert.equal((await t.api.get(`/events/${o.id}`, { as: 'admin' })).body.code, 'event-no-longer-available');

    const other = await createSeries(t, { title: 'Cut Short', recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    const four = await occurrences(t, other.id);
    const cut = await t.api.delete(`/events/${four[2]!.id}`, { as: 'admin', query: { recurrence_scope: 'following' } });
    assert.equal(cut.status, 200, JSON.stringify(cut.body));
    assert.deepEqual(
      (await occurrences(t, other.id)).map((e) => e.id),
      [four[0]!.id, four[1]!.id],
    );
    assert.deepEqual((await t.api.get(`/events/${other.id}`)).body.recurrence, ['RRULE:FREQ=DAILY;UNTIL=20270304T235959Z']);
  });

  it('recurrence [] makes a series single again; rules on a single event make it a series', async () => {
    const series = await createSeries(t, { title: 'Back To One', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(t, series.id);
    await t.api.post(`/events/${occ[1]!.id}`, { as: 'admin', json: { title: 'Back To One (kept)' } });
    const single = await t.api.post(`/events/${series.id}`, { as: 'admin', json: { recurrence: [] } });
    assert.equal(single.status, 200, JSON.stringify(single.body));
    assert.equal('recurrence' in single.body, false);
    const list = await t.api.get('/events', { query: { ...WINDOW, search: 'Back To One' } });
    assert.deepEqual(
      list.body.events.map((e: any) => [e.id, e.title]),
      [
        [series.id, 'Back To One'],
        [occ[1]!.id, 'Back To One (kept)'],
      ],
    );
    assert.equal('recurring_event_id' in list.body.events[1], false);

    const plain = await t.api.post('/events', { as: 'admin', json: { title: 'Becomes Weekly', status: 'publish', start_date: '2027-06-01 08:00:00', end_date: '2027-06-01 09:00:00' } });
    const made = await t.api.post(`/events/${plain.body.id}`, { as: 'admin', json: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] } });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.id, plain.body.id);
    assert.deepEqual(
      (await occurrences(t, plain.body.id)).map((e) => e.start_date),
      ['2027-06-01 08:00:00', '2027-06-08 08:00:00'],
    );
  });

  it('visibility, permissions and term counts apply to occurrences', async () => {
    const cat = await t.api.post('/categories', { as: 'admin', json: { name: 'Yoga Classes' } });
    assert.equal(cat.status, 201);
    const series = await createSeries(t, { title: 'Counted', categories: [cat.body.id], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    assert.equal((await t.api.get(`/categories/${cat.body.id}`)).body.count, 3);
    const byCat = await t.api.get('/events', { query: { ...WINDOW, categories: cat.body.id } });
    assert.equal(byCat.body.total, 3);
    const occ = await occurrences(t, series.id);
    await t.api.delete(`/events/${occ[0]!.id}`, { as: 'admin' });
    assert.equal((await t.api.get(`/categories/${cat.body.id}`)).body.count, 2);

    const draft = await createSeries(t, { title: 'Draft Series', status: 'draft', recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] });
    assert.equal((await t.api.get('/events', { query: { ...WINDOW, search: 'Draft Series' } })).body.total, 0);
    assert.equal((await t.api.get(`/events/${draft.id}`)).body.code, 'event-not-accessible');
    // Issue 24: post_parent naming a series the caller may not read answers as an unknown id.
    assert.equal((await t.api.get('/events', { query: { ...WINDOW, post_parent: draft.id } })).status, 400);
    const drafts = await t.api.get('/events', { as: 'admin', query: { ...WINDOW, post_parent: draft.id, status: 'draft' } });
    assert.equal(drafts.body.total, 2);
    assert.ok(drafts.body.events.every((e: any) => e.status === 'draft'));

    const contributor = await t.user('contributor');
    const forbidden = await t.api.post(`/events/${occ[1]!.id}`, { as: contributor.credentials, json: { title: 'Hijacked' } });
    assert.equal(forbidden.status, 403);
    const forbiddenSeries = await t.api.delete(`/events/${series.id}`, { as: contributor.credentials });
    assert.equal(forbiddenSeries.status, 403);
    // An author given one occurrence may delete it, but not the series through it.
    const author = await t.user('author');
    const given = await t.api.post(`/events/${occ[2]!.id}`, { as: 'admin', json: { author: author.id } });
    assert.equal(given.status, 200, given.text);
    const all = await t.api.delete(`/events/${occ[2]!.id}`, { as: author.credentials, query: { recurrence_scope: 'all' } });
    assert.equal(all.status, 403);
    assert.equal((await occurrences(t, series.id)).length, 2);
    const own = await t.api.delete(`/events/${occ[2]!.id}`, { as: author.credentials });
    assert.equal(own.status, 200, own.text);
    assert.equal((await occurrences(t, series.id)).length, 1);
  });

  it('the namespace index declares recurrence and recurrence_scope', async () => {
    const index = await t.api.get('');
    const routes = index.body.routes as Record<string, { endpoints: Array<{ methods: string[]; args: Record<string, unknown> }> }>;
    const events = routes['/calendar/events/v1/events']!.endpoints.find((e) => e.methods.includes('POST'))!;
    assert.ok('recurrence' in events.args);
    const item = routes['/calendar/events/v1/events/(?P<id>\\d+)']!.endpoints;
    assert.ok(item.find((e) => e.methods.includes('DELETE'))!.args.recurrence_scope);
    assert.ok(item.find((e) => e.methods.includes('POST'))!.args.recurrence_scope);
  });
});

for (const kind of STORES) {
  describe(`recurring events: the horizon job extends series [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'recur-horizon', { RECURRENCE_HORIZON_MONTHS: '2' }, { RECURRENCE_HORIZON_MONTHS: '4' }));
    });
    after(async () => {
      await closeBoth?.();
    });

    it('rules without an end stop at the horizon; the job extends them, keeping the ids', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const res = await a.api.post('/events', {
        as: 'admin',
        json: { title: 'Endless', status: 'publish', start_date: `${today} 23:00:00`, end_date: `${today} 23:30:00`, timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY'] },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const query = { post_parent: res.body.id, start_date: today, end_date: '+1 year', per_page: 50 };
      const first = (await a.api.get('/events', { query })).body.events as Array<Record<string, any>>;
      assert.ok(first.length >= 8 && first.length <= 10, `about 2 months of weeks: ${first.length}`);
      assert.ok((await b.built.horizonJob.runOnce()) >= 1);
      const later = (await b.api.get('/events', { query })).body.events as Array<Record<string, any>>;
      assert.ok(later.length >= 17 && later.length <= 19, `about 4 months of weeks: ${later.length}`);
      assert.deepEqual(
        later.slice(0, first.length).map((e) => e.id),
        first.map((e) => e.id),
      );
      // Nothing more is due: a second run extends nothing.
      assert.equal(await b.built.horizonJob.runOnce(), 0);
    });
  });
}

forEachStore(
  'recurring events: webhooks see a series change once',
  (t) => {
    it('creating and changing a series makes one delivery each; an occurrence edited alone makes its own', async () => {
      const ADMIN_BASE = '/api/calendar/admin/v1';
      // The log is turned into deliveries once, after every write below (the worker would do it
      // between them, or not, as the machine's load decides): the occurrence that the rule change
      // deletes is then gone when its creation is read.
      await t.built.webhookWorker?.stop();
      // Nothing listens there: deliveries are made (and fail), which is all this test reads.
      const hook = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url: 'http://127.0.0.1:9/hook', events: ['event.created', 'event.updated', 'event.trashed', 'event.deleted'] } });
      assert.equal(hook.status, 201, hook.text);
      const series = await createSeries(t, { title: 'Hooked Series', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
      const occ = await occurrences(t, series.id);
      assert.equal(occ.length, 4);
      await t.api.post(`/events/${series.id}`, { as: 'admin', json: { title: 'Hooked Series v2', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] } });
      await t.api.post(`/events/${occ[0]!.id}`, { as: 'admin', json: { title: 'Hooked alone' } });
      await t.built.webhooks.materialize();
      const log = await t.api.get(`${ADMIN_BASE}/webhooks/${hook.body.id}/deliveries`, { as: 'admin', query: { per_page: 100 } });
      assert.equal(log.status, 200, log.text);
      const seen = (log.body as Array<{ type: string; payload: { data: { id: number } } }>).map((d) => `${d.type}:${d.payload.data.id}`).sort();
      assert.deepEqual(seen, [`event.created:${series.id}`, `event.updated:${occ[0]!.id}`, `event.updated:${series.id}`].sort());
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '1h' },
);

forEachStore('recurring events: seed --series', (t) => {
  it('adds weekly series bounded by the horizon and monthly series of 24, as the API writes them', async () => {
    const { seedSeries } = await import('../../src/seed/series.js');
    const admin = (await t.built.services.users.list()).find((u) => u.login === 'admin')!;
    const made = await seedSeries(t.built.store, { series: 4, authorId: Number(admin.id), seed: 3, timezone: t.config.timezone, horizonMonths: t.config.recurrenceHorizonMonths });
    assert.equal(made.series, 4);
    const list = await t.api.get('/events', { query: { start_date: 'now', end_date: '+6 years', per_page: 1 } });
    assert.equal(list.body.total, made.occurrences);
    const seriesIds = [...new Set((await t.api.get('/events', { query: { start_date: 'now', end_date: '+6 years', per_page: 50 } })).body.events.map((e: any) => e.recurring_event_id))];
    const counts: number[] = [];
    for (const id of seriesIds) {
      const s = await t.api.get(`/events/${id}`);
      const n = (await t.api.get('/events', { query: { post_parent: id as number, start_date: 'now', end_date: '+6 years', per_page: 1 } })).body.total as number;
      if (String(s.body.recurrence[0]).includes('MONTHLY')) assert.equal(n, 24);
      else assert.ok(n >= 250 && n <= 262, `weekly over 60 months: ${n}`);
      counts.push(n);
    }
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      made.occurrences,
    );
  });
});

for (const kind of STORES) {
  describe(`recurring events: JSON export and restore keep series [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    const dir = mkdtempSync(join(tmpdir(), 'recur-export-'));
    before(async () => {
      a = await startServer(kind);
      b = await startServer(kind);
    });
    after(async () => {
      await b?.close();
      await a?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('series rows and occurrence keys travel with the export; exports without them still restore', async () => {
      const { exportCalendar, restoreCalendar } = await import('../../src/import/backup-json.js');
      const { writeFileSync } = await import('node:fs');
      const series = await createSeries(a, { title: 'Exported Series', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
      const occ = await occurrences(a, series.id);
      await a.api.post(`/events/${occ[1]!.id}`, { as: 'admin', json: { title: 'Exported (edited)' } });
      const doc = await exportCalendar(a.built.services);
      assert.equal(doc.tables.event_series!.length, 1);
      assert.equal(doc.tables.event_occurrences!.length, 3);
      const file = join(dir, 'export.json');
      writeFileSync(file, JSON.stringify(doc));
      const counts = await restoreCalendar(b.built.services, file);
      assert.equal(counts.event_occurrences, 3);
      const restored = await occurrences(b, series.id);
      assert.deepEqual(
        restored.map((e) => [e.id, e.title, e.original_start_date]),
        (await occurrences(a, series.id)).map((e) => [e.id, e.title, e.original_start_date]),
      );
      // A rule change on the restored copy keeps the ids and the edited occurrence.
      const grown = await b.api.post(`/events/${series.id}`, { as: 'admin', json: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] } });
      assert.equal(grown.status, 200, grown.text);
      const after4 = await occurrences(b, series.id);
      assert.deepEqual(
        after4.slice(0, 3).map((e) => e.id),
        restored.map((e) => e.id),
      );
      assert.equal(after4[1]!.title, 'Exported (edited)');
      // An export of an older version (no recurrence tables) is still read.
      const older = { ...doc, tables: Object.fromEntries(Object.entries(doc.tables).filter(([k]) => !k.startsWith('event_series') && k !== 'event_occurrences')) };
      const { readExport } = await import('../../src/import/backup-json.js');
      writeFileSync(join(dir, 'older.json'), JSON.stringify(older));
      assert.ok(readExport(join(dir, 'older.json')));
    });
  });
}
