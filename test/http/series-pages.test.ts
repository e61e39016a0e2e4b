/**
 * Recurring events on the calendar pages: an occurrence's page says that it repeats in words and
 * links to its next dates and to all of them; list cards and the month grid mark repeating events;
 * LIST_SERIES_ONCE (a calendar setting changed in the app) and the page's
 * `hide_subsequent_recurrences` list a series once, at its next occurrence, while the REST list
 * keeps answering every occurrence.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { count, hrefs } from '../support/html.js';

const SETTINGS = '/api/calendar/admin/v1/settings';

forEachStore('recurring events on the pages', (t: TestServer) => {
  const get = (path: string): Promise<ApiResponse> => t.api.get(t.origin + path);
  /** A GET that does not follow redirects. */
  const raw = (url: string) => fetch(url, { redirect: 'manual' });
  let series: Record<string, any>;
  let occ: Array<Record<string, any>>;

  before(async () => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: {
        title: 'Tuesday Choir',
        status: 'publish',
        start_date: '2031-03-04 19:00',
        end_date: '2031-03-04 21:00',
        timezone: 'Europe/Paris',
        recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20310415T235959'],
        categories: ['Choirs'],
      },
    });
    assert.equal(res.status, 201, res.text);
    series = res.body;
    const single = await t.api.post('/events', {
      as: 'admin',
      json: { title: 'Lone Lecture', status: 'publish', start_date: '2031-03-05 10:00', end_date: '2031-03-05 11:00', categories: ['Choirs'] },
    });
    assert.equal(single.status, 201);
    occ = (await t.api.get('/events', { query: { start_date: '2031-01-01', end_date: '2031-12-31', post_parent: series.id, per_page: 50 } })).body.events;
    assert.equal(occ.length, 7);
  });

  it('an occurrence’s page says it repeats in words and links to its next dates and to all of them', async () => {
    const page = await get(new URL(occ[1]!.url).pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /This event repeats: every Tuesday until April 15, 2031/);
    const section = /<section class="series"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? '';
    const links = hrefs(section);
    // The next five other dates (the first, still upcoming, among them), not this one, not the seventh.
    for (const o of [occ[0]!, ...occ.slice(2, 6)]) assert.ok(links.includes(o.url), `links to ${o.url}`);
    assert.ok(!links.includes(occ[1]!.url), 'not to itself');
    assert.ok(!links.includes(occ[6]!.url), 'five dates only');
    assert.ok(links.includes(`${t.origin}/event/tuesday-choir/all/`), 'to all dates');
    // The series' page of all its dates says it too.
    assert.match((await get('/event/tuesday-choir/all/')).text, /<p class="intro">This event repeats: every Tuesday until April 15, 2031\./);
    // A single event's page says nothing of the kind.
    const lone = await get('/event/lone-lecture/');
    assert.doesNotMatch(lone.text, /This event repeats/);
  });

  it('list cards and the month grid mark repeating events', async () => {
    const list = await get('/events/category/choirs/');
    assert.equal(list.status, 200);
    assert.equal(count(list.text, 'class="repeats"'), 7, 'each occurrence card is marked, the single event is not');
    const month = await get('/events/month/2031-03/');
    assert.equal(month.status, 200);
    assert.equal(count(month.text, 'class="repeats-mark"'), 5, 'four Tuesdays in March 2031 and April 1st in the grid’s last week');
  });

  it('hide_subsequent_recurrences=1 and LIST_SERIES_ONCE list the series once, at its next occurrence; REST unchanged', async () => {
    const once = await get('/events/category/choirs/?hide_subsequent_recurrences=1');
    assert.equal(once.status, 200);
    assert.equal(count(once.text, 'Tuesday Choir</a>'), 1);
    assert.ok(hrefs(once.text).includes(occ[0]!.url), 'the next occurrence');
    assert.match(once.text, /Lone Lecture/);

    const set = await t.api.patch(SETTINGS, { as: 'admin', json: { LIST_SERIES_ONCE: 'true' } });
    assert.equal(set.status, 200, set.text);
    const list = await get('/events/list/');
    assert.equal(count(list.text, 'Tuesday Choir</a>'), 1);
    const category = await get('/events/category/choirs/');
    assert.equal(count(category.text, 'Tuesday Choir</a>'), 1);
    // A page may still ask for every date.
    assert.equal(count((await get('/events/category/choirs/?hide_subsequent_recurrences=0')).text, 'Tuesday Choir</a>'), 7);
    // The series' own page lists every date; the REST list answers as before.
    assert.equal(count((await get('/event/tuesday-choir/all/')).text, 'Tuesday Choir</a>'), 7);
    const rest = await t.api.get('/events', { query: { start_date: '2031-01-01', end_date: '2031-12-31', categories: 'choirs' } });
    assert.equal(rest.body.total, 8);

    // Trashing the next occurrence: the list shows the one after.
    assert.equal((await t.api.delete(`/events/${occ[0]!.id}`, { as: 'admin' })).status, 200);
    const after = await get('/events/category/choirs/');
    assert.equal(count(after.text, 'Tuesday Choir</a>'), 1);
    assert.ok(hrefs(after.text).includes(occ[1]!.url));
    await t.api.patch(SETTINGS, { as: 'admin', json: { LIST_SERIES_ONCE: null } });
    assert.equal(count((await get('/events/category/choirs/')).text, 'Tuesday Choir</a>'), 6);
  });

  it('a moved occurrence’s address follows its new date; each old one answers 301 to it', async () => {
    const o = occ[3]!;
    assert.equal(o.url, `${t.origin}/event/tuesday-choir/2031-03-25/`);
    const moved = await t.api.post(`/events/${o.id}`, { as: 'admin', json: { start_date: '2031-03-27 19:00', end_date: '2031-03-27 21:00' } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.url, `${t.origin}/event/tuesday-choir/2031-03-27/`, 'the REST url follows the date');
    assert.equal(moved.body.original_start_date, '2031-03-25 19:00:00');
    const page = await get('/event/tuesday-choir/2031-03-27/');
    assert.equal(page.status, 200);
    assert.match(page.text, /Tuesday Choir/);
    const old = await raw(`${t.origin}/event/tuesday-choir/2031-03-25/`);
    assert.equal(old.status, 301);
    assert.equal(old.headers.get('location'), `${t.origin}/event/tuesday-choir/2031-03-27/`);
    const ics = await raw(`${t.origin}/event/tuesday-choir/2031-03-25/?ical=1`);
    assert.equal(ics.status, 301);
    assert.equal(ics.headers.get('location'), `${t.origin}/event/tuesday-choir/2031-03-27/?ical=1`);

    // Moved again: both earlier days lead to the latest.
    assert.equal((await t.api.post(`/events/${o.id}`, { as: 'admin', json: { start_date: '2031-03-28 18:00', end_date: '2031-03-28 20:00' } })).status, 200);
    for (const day of ['2031-03-25', '2031-03-27']) {
      const r = await raw(`${t.origin}/event/tuesday-choir/${day}/`);
      assert.equal(r.status, 301, day);
      assert.equal(r.headers.get('location'), `${t.origin}/event/tuesday-choir/2031-03-28/`);
    }
    // Days that never had it stay 404; the unmoved occurrences answer as before.
    assert.equal((await get('/event/tuesday-choir/2031-03-26/')).status, 404);
    assert.equal((await get(new URL(occ[4]!.url).pathname)).status, 200);
    // Trashed, its old addresses no longer lead anywhere.
    assert.equal((await t.api.delete(`/events/${o.id}`, { as: 'admin' })).status, 200);
    assert.equal((await get('/event/tuesday-choir/2031-03-25/')).status, 404);
  });
});
