/**
 * The calendar's own settings changed in the app (PUT/PATCH calendar/admin/v1/settings): stored in
 * the database, checked by their declaration (400 rest_invalid_param per setting), in force at once
 * on the pages and the REST API of this instance and of another on the same database; settings the
 * environment pins, and process settings, are refused; administrators only.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STORES, forEachStore, startTwoInstances } from '../support/harness.js';

const A = '/api/calendar/admin/v1/settings';

function byName(body: Array<{ name: string }>): Record<string, any> {
  return Object.fromEntries(body.map((r) => [r.name, r]));
}

forEachStore('calendar settings in the app', (t) => {
  it('administrators only: anonymous 401, an editor 403, nothing changed', async () => {
    assert.equal((await t.api.patch(A, { json: { SITE_NAME: 'Anon' } })).status, 401);
    await t.user('editor', 'ed');
    const res = await t.api.put(A, { as: 'ed', json: { SITE_NAME: 'Editor' } });
    assert.equal(res.status, 403);
    assert.equal(t.config.siteName, 'Events Calendar');
  });

  it('a new site name is on the pages, the REST index and the settings list at once, from the database', async () => {
    // The pages were answered (and their pieces made) before the change.
    assert.match((await t.api.get(`${t.origin}/events/`)).text, /<title>[^<]*Events Calendar<\/title>/);
    const res = await t.api.patch(A, { as: 'admin', json: { SITE_NAME: '  Town Hall Events ' } });
    assert.equal(res.status, 200, res.text);
    const row = byName(res.body).SITE_NAME;
    assert.equal(row.value, 'Town Hall Events');
    assert.equal(row.source, 'database');
    assert.equal(row.editable, true);
    const page = await t.api.get(`${t.origin}/events/`);
    assert.match(page.text, /<title>[^<]*Town Hall Events<\/title>/);
    // Everywhere on the page: the header, og:site_name, the feed's title.
    assert.ok(!page.text.includes('Events Calendar'), page.text);
    assert.equal((await t.api.get('/api/')).body.name, 'Town Hall Events');
    // null: back to the default
    const back = await t.api.put(A, { as: 'admin', json: { SITE_NAME: null } });
    assert.equal(byName(back.body).SITE_NAME.value, 'Events Calendar');
    assert.equal(byName(back.body).SITE_NAME.source, 'default');
    assert.match((await t.api.get(`${t.origin}/events/`)).text, /<title>[^<]*Events Calendar<\/title>/);
  });

  it('a new time zone is the default of a new event', async () => {
    assert.equal((await t.api.patch(A, { as: 'admin', json: { CALENDAR_TIMEZONE: 'Europe/Rome' } })).status, 200);
    const ev = await t.api.post('/events', { as: 'admin', json: { title: 'Concert', start_date: '2030-05-01 20:00:00', end_date: '2030-05-01 22:00:00', status: 'publish' } });
    assert.equal(ev.status, 201, ev.text);
    assert.equal(ev.body.timezone, 'Europe/Rome');
    assert.equal(ev.body.utc_start_date, '2030-05-01 18:00:00');
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_TIMEZONE: null } });
  });

  it('a new first day of the week starts the month grids of the pages, the embedded month view and the FullCalendar snippet', async () => {
    // May 2030 begins on a Wednesday: Monday first, the grid opens on 29 April; Sunday first, on 28 April.
    const firstCell = (text: string) => /<tbody>\s*<tr><td[^>]*>\s*<a class="day-number"[^>]*>(\d+)<\/a>/.exec(text)?.[1];
    const firstHead = (text: string) => /<thead><tr><th scope="col"><abbr title="(\w+)"/.exec(text)?.[1];
    const embedFirst = (text: string) => /<tbody><tr><td[^>]*><span class="num" aria-hidden="true">(\d+)<\/span>/.exec(text)?.[1];
    const before = await t.api.get(`${t.origin}/events/month/2030-05/`);
    assert.equal(firstCell(before.text), '29');
    assert.equal(firstHead(before.text), 'Monday');
    const embedBefore = await t.api.get(`${t.origin}/embed/?view=month&month=2030-05`);
    assert.equal(embedFirst(embedBefore.text), '29');
    const snippetBefore = (await t.api.get(`${t.origin}/embed/snippet?view=month`)).text;
    assert.match(snippetBefore, /firstDay: 1,/);
    assert.doesNotMatch(snippetBefore, /week-start/);

    const res = await t.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: 0 } });
    assert.equal(res.status, 200, res.text);
    assert.equal(byName(res.body).CALENDAR_WEEK_START.value, 'sunday');
    const page = await t.api.get(`${t.origin}/events/month/2030-05/`);
    assert.equal(firstCell(page.text), '28');
    assert.equal(firstHead(page.text), 'Sunday');
    // The grid still ends on the last week's Saturday (1 June 2030).
    assert.match(page.text, /<a class="day-number" href="[^"]*\/events\/2030-06-01\/"[^>]*>1<\/a>\s*<\/td><\/tr>\s*<\/tbody>/);
    // A browser holding the old embedded grid gets the new one, not a 304.
    const etag = embedBefore.headers.get('etag') ?? '';
    assert.notEqual(etag, '');
    const embed = await t.api.get(`${t.origin}/embed/?view=month&month=2030-05`, { headers: { 'if-none-match': etag } });
    assert.equal(embed.status, 200);
    assert.equal(embedFirst(embed.text), '28');
    const snippet = (await t.api.get(`${t.origin}/embed/snippet?view=month`)).text;
    assert.match(snippet, /firstDay: 0,/);
    assert.match(snippet, /<events-calendar [^>]*week-start="0"/);
    assert.match(snippet, /&#60;events-calendar [^\n]*week-start=&#34;0&#34;/);

    assert.equal((await t.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: 'Saturday' } })).status, 200);
    assert.equal(firstCell((await t.api.get(`${t.origin}/events/month/2030-05/`)).text), '27');
    const bad = await t.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: 7 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.match(bad.body.data.params.CALENDAR_WEEK_START, /must be sunday, monday, .* or saturday/);
    assert.equal((await t.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: 'someday' } })).status, 400);
    assert.equal(t.config.weekStart, 'saturday');
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: null } });
    assert.equal(firstCell((await t.api.get(`${t.origin}/events/month/2030-05/`)).text), '29');
  });

  it("new date and time formats write the pages' event dates at once; the REST API's dates do not change", async () => {
    const ev = await t.api.post('/events', { as: 'admin', json: { title: 'Formats', start_date: '2030-03-27 09:05:00', end_date: '2030-03-27 14:30:00', timezone: 'UTC', status: 'publish' } });
    assert.equal(ev.status, 201, ev.text);
    const rest = async () => {
      const r = await t.api.get(`/api/calendar/events/v1/events/${ev.body.id}`);
      assert.equal(r.status, 200);
      return r.body;
    };
    const restBefore = await rest();
    const pageOf = async () => (await t.api.get(ev.body.url)).text;
    const list = async () => (await t.api.get(`${t.origin}/events/`)).text;
    assert.ok((await pageOf()).includes('Wednesday 27 March 2030, 9:05 AM – 2:30 PM UTC'));
    assert.ok((await list()).includes('Wednesday 27 March 2030, 9:05 AM – 2:30 PM UTC'));

    const res = await t.api.patch(A, { as: 'admin', json: { CALENDAR_DATE_FORMAT: 'F jS, Y', CALENDAR_TIME_FORMAT: 'H\\hi' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(byName(res.body).CALENDAR_DATE_FORMAT.value, 'F jS, Y');
    const page = await pageOf();
    assert.ok(page.includes('March 27th, 2030, 09h05 – 14h30 UTC'), page);
    // The details list too, and the list page's card (kept from before the change).
    assert.ok(page.includes('March 27th, 2030, 09h05</time>'), page);
    assert.ok((await list()).includes('March 27th, 2030, 09h05 – 14h30 UTC'));
    assert.deepEqual(await rest(), restBefore);

    const bad = await t.api.patch(A, { as: 'admin', json: { CALENDAR_DATE_FORMAT: 'j M Y T', CALENDAR_TIME_FORMAT: '--' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.match(bad.body.data.params.CALENDAR_DATE_FORMAT, /uses "T", which needs a time zone/);
    assert.match(bad.body.data.params.CALENDAR_TIME_FORMAT, /has no date or time letter/);
    assert.equal(t.config.dateFormat, 'F jS, Y');
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_DATE_FORMAT: null, CALENDAR_TIME_FORMAT: null } });
    assert.ok((await pageOf()).includes('Wednesday 27 March 2030, 9:05 AM – 2:30 PM UTC'));
  });

  it("a new number of events per page is the pages' lists at once (the REST API's per_page default unchanged)", async () => {
    for (let i = 1; i <= 12; i++) {
      const day = String(i).padStart(2, '0');
      const ev = await t.api.post('/events', {
        as: 'admin',
        json: { title: `Paged ${i}`, start_date: `2031-01-${day} 10:00:00`, end_date: `2031-01-${day} 11:00:00`, categories: ['Pagesize'], status: 'publish' },
      });
      assert.equal(ev.status, 201, ev.text);
    }
    const cards = async (path: string) => ((await t.api.get(`${t.origin}${path}`)).text.match(/<article class="event[ "]/g) ?? []).length;
    assert.equal(await cards('/events/category/pagesize/'), 10);
    const res = await t.api.patch(A, { as: 'admin', json: { CALENDAR_EVENTS_PER_PAGE: '5' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(byName(res.body).CALENDAR_EVENTS_PER_PAGE.value, 5);
    assert.equal(await cards('/events/category/pagesize/'), 5);
    assert.equal(await cards('/events/category/pagesize/page/3/'), 2);
    assert.equal(await cards('/events/category/pagesize/page/2/'), 5);
    const rest = await t.api.get('/api/calendar/events/v1/events?categories=pagesize&end_date=2032-01-01');
    assert.equal(rest.body.events.length, 10, 'the REST default per_page stays 10');
    assert.equal(rest.body.total, 12);
    for (const bad of [0, 101, 'ten']) {
      const r = await t.api.patch(A, { as: 'admin', json: { CALENDAR_EVENTS_PER_PAGE: bad } });
      assert.equal(r.status, 400, String(bad));
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.ok(r.body.data.params.CALENDAR_EVENTS_PER_PAGE, String(bad));
    }
    assert.equal(t.config.eventsPerPage, 5);
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_EVENTS_PER_PAGE: null } });
    assert.equal(await cards('/events/category/pagesize/'), 10);
  });

  it("a new currency symbol and side are every bare-number cost's at once: REST cost, a new entity tag, the pages; an event's own symbol stays", async () => {
    const bare = await t.api.post('/events', { as: 'admin', json: { title: 'Bare cost', start_date: '2031-03-02 10:00:00', end_date: '2031-03-02 11:00:00', cost: '15', status: 'publish' } });
    const own = await t.api.post('/events', { as: 'admin', json: { title: 'Own symbol', start_date: '2031-03-03 10:00:00', end_date: '2031-03-03 11:00:00', cost: '£20', status: 'publish' } });
    assert.equal(bare.status, 201, bare.text);
    assert.equal(bare.body.cost, '$15');
    const path = `/api/calendar/events/v1/events/${bare.body.id}`;
    const first = await t.api.get(path);
    const etag = first.headers.get('etag') ?? '';
    assert.equal(first.body.cost, '$15');
    assert.equal((await t.api.get(path, { headers: { 'if-none-match': etag } })).status, 304);

    const res = await t.api.patch(A, { as: 'admin', json: { CALENDAR_CURRENCY_SYMBOL: '€', CALENDAR_CURRENCY_POSITION: 'suffix' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(byName(res.body).CALENDAR_CURRENCY_SYMBOL.value, '€');
    // The record did not change, its answer did: the old tag no longer matches.
    const after = await t.api.get(path, { headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200);
    assert.equal(after.body.cost, '15€');
    // The wire's cost_details keep what the event stored (nothing), as the original's.
    assert.equal(after.body.cost_details.currency_symbol, '');
    assert.equal((await t.api.get(`/api/calendar/events/v1/events/${own.body.id}`)).body.cost, '£20');
    const list = await t.api.get('/api/calendar/events/v1/events?start_date=2031-03-01&end_date=2031-03-31');
    assert.deepEqual(
      list.body.events.map((e: { cost: string }) => e.cost),
      ['15€', '£20'],
    );
    assert.match((await t.api.get(after.body.url)).text, /15€/);

    for (const bad of ['left', '']) {
      const r = await t.api.patch(A, { as: 'admin', json: { CALENDAR_CURRENCY_POSITION: bad } });
      if (bad === '') continue; // empty: back to the default, as any calendar setting
      assert.equal(r.status, 400, bad);
      assert.ok(r.body.data.params.CALENDAR_CURRENCY_POSITION, bad);
    }
    const long = await t.api.patch(A, { as: 'admin', json: { CALENDAR_CURRENCY_SYMBOL: 'x'.repeat(11) } });
    assert.equal(long.status, 400);
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_CURRENCY_SYMBOL: null, CALENDAR_CURRENCY_POSITION: null } });
    assert.equal((await t.api.get(path)).body.cost, '$15');
  });

  it("a new default view: /events/ shows this month's grid at once; the list stays at /events/list/, for past events and in the feed", async () => {
    const isMonth = (text: string) => /<table class="month">/.test(text);
    assert.ok(!isMonth((await t.api.get(`${t.origin}/events/`)).text));
    const res = await t.api.patch(A, { as: 'admin', json: { CALENDAR_DEFAULT_VIEW: 'Month' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(byName(res.body).CALENDAR_DEFAULT_VIEW.value, 'month');
    const page = await t.api.get(`${t.origin}/events/`);
    assert.equal(page.status, 200);
    assert.ok(isMonth(page.text), page.text.slice(0, 500));
    assert.ok(!isMonth((await t.api.get(`${t.origin}/events/list/`)).text));
    assert.ok(!isMonth((await t.api.get(`${t.origin}/events/?eventDisplay=past`)).text));
    assert.ok(!isMonth((await t.api.get(`${t.origin}/events/?search=concert`)).text));
    const bad = await t.api.patch(A, { as: 'admin', json: { CALENDAR_DEFAULT_VIEW: 'day' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.data.params.CALENDAR_DEFAULT_VIEW, /must be list or month/);
    await t.api.patch(A, { as: 'admin', json: { CALENDAR_DEFAULT_VIEW: null } });
    assert.ok(!isMonth((await t.api.get(`${t.origin}/events/`)).text));
  });

  it('durations and numbers are checked and shown in their declared unit', async () => {
    const res = await t.api.patch(A, { as: 'admin', json: { SUBMISSIONS_RATE_WINDOW: '90m', SUBMISSIONS_MAX_LINKS: 2, SUBMISSIONS_NOTIFY: 'Daily' } });
    assert.equal(res.status, 200, res.text);
    const by = byName(res.body);
    assert.equal(by.SUBMISSIONS_RATE_WINDOW.value, '90m');
    assert.equal(by.SUBMISSIONS_MAX_LINKS.value, 2);
    assert.equal(by.SUBMISSIONS_NOTIFY.value, 'daily');
    assert.equal(t.config.submissionsRateWindowMs, 90 * 60_000);
    // Units as declared: the memory budget in MB, durations as written.
    assert.equal(by.RESPONSE_MEMORY_MB.value, 256);
    assert.equal(by.RESPONSE_MEMORY_MB.unit, 'MB');
    assert.equal(by.WEBHOOKS_DISABLE_AFTER.value, '24h');
    assert.equal(by.SESSION_MAX_AGE.value, '336h');
  });

  it('a value that cannot be used: 400 rest_invalid_param naming each setting, nothing written', async () => {
    const res = await t.api.patch(A, {
      as: 'admin',
      json: { SITE_NAME: 'Never', CALENDAR_TIMEZONE: 'Mars/Olympus', SUBMISSIONS_MAX_LINKS: -1, SUBMISSIONS_NOTIFY: 'hourly', SUBMISSIONS_RATE_WINDOW: 'soon', PORT: 9999 },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.equal(res.body.data.status, 400);
    assert.deepEqual(Object.keys(res.body.data.params).sort(), ['CALENDAR_TIMEZONE', 'PORT', 'SUBMISSIONS_MAX_LINKS', 'SUBMISSIONS_NOTIFY', 'SUBMISSIONS_RATE_WINDOW']);
    assert.match(res.body.data.params.CALENDAR_TIMEZONE, /not a known time zone/);
    assert.match(res.body.data.params.PORT, /not a setting that can be changed in the app/);
    assert.notEqual(t.config.siteName, 'Never');
    assert.notEqual(byName((await t.api.get(A, { as: 'admin' })).body).SITE_NAME.value, 'Never');
    const empty = await t.api.patch(A, { as: 'admin', json: { SITE_NAME: '   ' } });
    assert.equal(empty.status, 400);
    assert.match(empty.body.data.params.SITE_NAME, /must not be empty/);
  });
});

forEachStore(
  'calendar settings pinned by the environment',
  (t) => {
    it('a setting the environment sets is read-only: 400 naming where it is set, value kept', async () => {
      const res = await t.api.patch(A, { as: 'admin', json: { SITE_NAME: 'Other' } });
      assert.equal(res.status, 400);
      assert.match(res.body.data.params.SITE_NAME, /set in the environment/);
      const row = byName((await t.api.get(A, { as: 'admin' })).body).SITE_NAME;
      assert.equal(row.value, 'Pinned');
      assert.equal(row.source, 'environment');
      assert.equal(row.editable, false);
    });
  },
  { SITE_NAME: 'Pinned' },
);

for (const kind of STORES) {
  describe(`calendar settings on two instances [${kind.name}]`, () => {
    let pair: Awaited<ReturnType<typeof startTwoInstances>>;
    before(async () => {
      pair = await startTwoInstances(kind, 'calendar-settings');
    });
    after(async () => {
      await pair.close();
    });

    it('a change on one instance is in force on the other at once', async () => {
      // b has answered (and kept) its page and REST index before the change.
      assert.equal((await pair.b.api.get('/api/')).body.name, 'Events Calendar');
      assert.match((await pair.b.api.get(`${pair.b.origin}/events/`)).text, /<title>[^<]*Events Calendar<\/title>/);
      const res = await pair.a.api.patch(A, { as: 'admin', json: { SITE_NAME: 'Shared Name', CALENDAR_TIMEZONE: 'America/New_York' } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await pair.b.api.get('/api/')).body.name, 'Shared Name');
      assert.match((await pair.b.api.get(`${pair.b.origin}/events/`)).text, /<title>[^<]*Shared Name<\/title>/);
      const ev = await pair.b.api.post('/events', { as: 'admin', json: { title: 'On b', start_date: '2030-01-10 09:00:00', end_date: '2030-01-10 10:00:00', status: 'publish' } });
      assert.equal(ev.status, 201, ev.text);
      assert.equal(ev.body.timezone, 'America/New_York');
      assert.equal(byName((await pair.b.api.get(A, { as: 'admin' })).body).SITE_NAME.value, 'Shared Name');
    });

    it("a new first day of the week is the other instance's month grid at once", async () => {
      const firstCell = async () => /<tbody>\s*<tr><td[^>]*>\s*<a class="day-number"[^>]*>(\d+)<\/a>/.exec((await pair.b.api.get(`${pair.b.origin}/events/month/2030-05/`)).text)?.[1];
      assert.equal(await firstCell(), '29');
      assert.equal((await pair.a.api.patch(A, { as: 'admin', json: { CALENDAR_WEEK_START: 'sunday' } })).status, 200);
      assert.equal(await firstCell(), '28');
    });

    it("new date and time formats are the other instance's event pages at once", async () => {
      const ev = await pair.a.api.post('/events', { as: 'admin', json: { title: 'Shared', start_date: '2030-03-27 09:05:00', end_date: '2030-03-27 10:00:00', timezone: 'UTC', status: 'publish' } });
      assert.equal(ev.status, 201, ev.text);
      const path = new URL(ev.body.url).pathname;
      assert.ok((await pair.b.api.get(`${pair.b.origin}${path}`)).text.includes('Wednesday 27 March 2030, 9:05 AM'));
      assert.equal((await pair.a.api.patch(A, { as: 'admin', json: { CALENDAR_DATE_FORMAT: 'd/m/Y', CALENDAR_TIME_FORMAT: 'G:i' } })).status, 200);
      assert.ok((await pair.b.api.get(`${pair.b.origin}${path}`)).text.includes('27/03/2030, 9:05 – 10:00 UTC'));
    });

    it("a new number of events per page is the other instance's lists at once", async () => {
      for (let i = 1; i <= 3; i++) {
        const ev = await pair.a.api.post('/events', {
          as: 'admin',
          json: { title: `Paged ${i}`, start_date: `2031-02-0${i} 10:00:00`, end_date: `2031-02-0${i} 11:00:00`, categories: ['Shared pages'], status: 'publish' },
        });
        assert.equal(ev.status, 201, ev.text);
      }
      const cards = async () => ((await pair.b.api.get(`${pair.b.origin}/events/category/shared-pages/`)).text.match(/<article class="event[ "]/g) ?? []).length;
      assert.equal(await cards(), 3);
      assert.equal((await pair.a.api.patch(A, { as: 'admin', json: { CALENDAR_EVENTS_PER_PAGE: 2 } })).status, 200);
      assert.equal(await cards(), 2);
    });

    it("a new default view is the other instance's /events/ at once", async () => {
      assert.doesNotMatch((await pair.b.api.get(`${pair.b.origin}/events/`)).text, /<table class="month">/);
      assert.equal((await pair.a.api.patch(A, { as: 'admin', json: { CALENDAR_DEFAULT_VIEW: 'month' } })).status, 200);
      assert.match((await pair.b.api.get(`${pair.b.origin}/events/`)).text, /<table class="month">/);
    });
  });
}
