/**
 * Issue 27, item 3: the calendar pages' upcoming, past, month and day lists, the embeds and the
 * FullCalendar source count no total. The lists' windows end at the current minute (or change with
 * each range), so a counted total was counted again each minute: at 1,000,000 events the pages'
 * first list took seconds, every minute; the month and day pages only need to know whether they
 * show everything. They ask one row more than they show instead; a search's page still counts (it
 * says how many it found). Checked through the kept totals' counters: a count is a miss of the
 * kept totals, and these reads must make none, while paging links stay right.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { keptCountersOf } from '../../src/metrics.js';
import { count, hrefs } from '../support/html.js';

const articles = (text: string) => count(text, '<article class="event');

forEachStore(
  'lists that count no total',
  (t: TestServer) => {
    const get = (path: string): Promise<ApiResponse> => t.api.get(t.origin + path);
    const counts = () => keptCountersOf(t.built.store.db).eventTotals.misses;

    before(async () => {
      const create = async (json: Record<string, unknown>) => assert.equal((await t.api.post('/events', { as: 'admin', json })).status, 201);
      for (let i = 1; i <= 20; i++) {
        const day = String(i).padStart(2, '0');
        await create({ title: `Upcoming ${i}`, start_date: `2032-02-${day} 18:00`, end_date: `2032-02-${day} 19:00`, tags: ['evening'] });
        await create({ title: `Bygone ${i}`, start_date: `2020-02-${day} 18:00`, end_date: `2020-02-${day} 19:00` });
      }
    });

    it('pages the upcoming list without counting it: a next link while more follow, none on the last page, 404 past it', async () => {
      const before = counts();
      const first = await get('/events/list/');
      assert.equal(first.status, 200);
      assert.equal(articles(first.text), 10);
      assert.ok(hrefs(first.text).includes(`${t.origin}/events/list/page/2/`), 'a link to page 2');
      // Exactly ten on the last page: no link to a page that would be empty.
      const last = await get('/events/list/page/2/');
      assert.equal(last.status, 200);
      assert.equal(articles(last.text), 10);
      assert.match(last.text, /Upcoming 20/);
      assert.ok(!hrefs(last.text).some((h) => h.includes('/page/3/')), 'no link past the last page');
      assert.ok(hrefs(last.text).includes(`${t.origin}/events/list/`), 'a link back to page 1');
      assert.equal((await get('/events/list/page/3/')).status, 404);
      assert.equal(counts(), before, 'no total counted');
    });

    it('pages the past list without counting it', async () => {
      const before = counts();
      const first = await get('/events/list/?eventDisplay=past');
      assert.equal(first.status, 200);
      assert.equal(articles(first.text), 10);
      assert.ok(first.text.indexOf('Bygone 20') < first.text.indexOf('Bygone 19'), 'latest first');
      const next = hrefs(first.text).find((h) => /page(\/|=)2/.test(h));
      assert.ok(next, 'a link to the second page of past events');
      const second = await get(next.replace(t.origin, ''));
      assert.equal(second.status, 200);
      assert.equal(articles(second.text), 10);
      assert.match(second.text, /Bygone 1\b/);
      assert.ok(!hrefs(second.text).some((h) => /page(\/|=)3/.test(h)), 'no link past the last page');
      assert.equal(counts(), before, 'no total counted');
    });

    it("counts a search's total, which its page shows", async () => {
      const before = counts();
      const found = await get('/events/list/?search=upcoming');
      assert.equal(found.status, 200);
      assert.match(found.text, /20 events found for “upcoming”/);
      assert.equal(counts(), before + 1, 'the search counted its total');
    });

    // Each read below uses a filter or range no earlier test read: a total kept from an earlier
    // count would hide a count here.
    it('reads the embeds without counting', async () => {
      const before = counts();
      const upcoming = await get('/embed/?view=upcoming&limit=3&tag=evening');
      assert.equal(upcoming.status, 200);
      assert.match(upcoming.text, /Upcoming 1\b/);
      assert.doesNotMatch(upcoming.text, /Upcoming 4\b/);
      const list = await get('/embed/?tag=evening');
      assert.equal(list.status, 200);
      assert.match(list.text, /Upcoming 10\b/);
      assert.equal(counts(), before, 'no total counted');
    });

    it('reads the FullCalendar source without counting', async () => {
      // More events in the range than the source reads at once for a limit of 1 (51): a counted read
      // would count them.
      for (let i = 1; i <= 60; i++) {
        const json = { title: `Far ${i}`, start_date: `2033-01-${String((i % 28) + 1).padStart(2, '0')} 0${i % 10}:00`, end_date: `2033-01-${String((i % 28) + 1).padStart(2, '0')} 0${i % 10}:30` };
        assert.equal((await t.api.post('/events', { as: 'admin', json })).status, 201);
      }
      const before = counts();
      const one = await t.api.get('/api/calendar/embed/v1/fullcalendar', { query: { start: '2033-01-01', end: '2033-02-01', limit: '1' } });
      assert.equal(one.status, 200);
      assert.equal(one.body.length, 1);
      const all = await t.api.get('/api/calendar/embed/v1/fullcalendar', { query: { start: '2033-01-01', end: '2033-02-01' } });
      assert.equal(all.status, 200);
      assert.equal(all.body.length, 60);
      assert.equal(counts(), before, 'no total counted');
    });

    it("reads a month's page without counting, and says when it shows only part of the month", async () => {
      const before = counts();
      // January 2033: the 60 events above, more than ICAL_MAX_EVENTS (25) of this server.
      const full = await get('/events/month/2033-01/');
      assert.equal(full.status, 200);
      assert.match(full.text, /class="more"/, 'days link to their page when the month is cut');
      const part = await get('/events/month/2032-02/');
      assert.equal(part.status, 200);
      assert.match(part.text, /Upcoming 20\b/);
      assert.doesNotMatch(part.text, /class="more"/, 'every event of the month shown');
      assert.equal(counts(), before, 'no total counted');
    });
  },
  { ICAL_MAX_EVENTS: '25' },
);
