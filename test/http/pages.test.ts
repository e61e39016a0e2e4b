/**
 * Issue 10: the calendar's pages at the permalinks the API's `url` fields name (list, month, day,
 * event, venue, organizer, category, tag), their iCalendar exports, visibility (drafts and
 * trashed events never appear) and the HTML 404 page; the REST API keeps answering as before.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { count, hrefs } from '../support/html.js';

const vevents = (text: string) => count(text, 'BEGIN:VEVENT');

forEachStore(
  'calendar pages and feeds',
  (t: TestServer) => {
    const ids: Record<string, number> = {};
    let concert: any;
    const get = (path: string, headers: Record<string, string> = {}): Promise<ApiResponse> => t.api.get(t.origin + path, { headers });

    before(async () => {
      const create = async (key: string, json: Record<string, unknown>) => {
        const res = await t.api.post('/events', { as: 'admin', json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids[key] = res.body.id;
        return res.body;
      };
      concert = await create('concert', {
        title: 'Spring Concert',
        description: '<p>An evening of <strong>music</strong>.</p>',
        start_date: '2031-03-10 19:00',
        end_date: '2031-03-10 21:00',
        timezone: 'Europe/Rome',
        cost: '25',
        website: 'https://example.org/concert',
        categories: ['Concerts'],
        tags: ['jazz'],
        venue: { venue: 'Town Hall', address: '1 Main Street', city: 'Springfield', country: 'Italy' },
        organizer: [{ organizer: 'Music Society', email: 'music@example.org', phone: '+39 555 0100' }],
      });
      await create('festival', { title: 'Harbour Festival', all_day: true, start_date: '2031-03-30', end_date: '2031-04-02', categories: ['Festivals'] });
      await create('draft', { title: 'Secret Draft', status: 'draft', start_date: '2031-03-10 10:00', end_date: '2031-03-10 11:00', categories: ['Concerts'] });
      await create('trashed', { title: 'Trashed Gig', start_date: '2031-03-11 10:00', end_date: '2031-03-11 11:00' });
      assert.equal((await t.api.delete(`/events/${ids.trashed}`, { as: 'admin' })).status, 200);
      for (let i = 1; i <= 12; i++) {
        const day = String(i).padStart(2, '0');
        await create(`talk${i}`, { title: `Evening Talk ${i}`, start_date: `2031-05-${day} 18:00`, end_date: `2031-05-${day} 19:00` });
      }
    });

    it('serves every url the API returns as a page', async () => {
      const single = (await t.api.get(`/events/${ids.concert}`)).body;
      for (const u of [single.url, single.venue.url, single.organizer[0].url, single.categories[0].url ?? `${t.origin}/events/category/concerts/`, `${t.origin}/events/tag/jazz/`]) {
        const res = await t.api.get(u);
        assert.equal(res.status, 200, u);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/, u);
        assert.match(res.text, /^<!DOCTYPE html>/, u);
        assert.equal(res.headers.get('x-robots-tag'), null, 'pages are for search engines');
      }
    });

    it('lists upcoming events, paginated, without drafts or trashed events', async () => {
      const page1 = await get('/events/');
      assert.equal(page1.status, 200);
      assert.match(page1.text, /Spring Concert/);
      assert.match(page1.text, /Harbour Festival/);
      assert.doesNotMatch(page1.text, /Secret Draft|Trashed Gig/);
      assert.equal(count(page1.text, '<article class="event'), 10);
      assert.ok(hrefs(page1.text).includes(`${t.origin}/events/list/page/2/`), 'a link to page 2');
      assert.ok(hrefs(page1.text).includes(`${t.origin}/events/list/?eventDisplay=past`), 'a past events link');
      assert.ok(hrefs(page1.text).includes(concert.url), 'links to the event page');
      assert.match(page1.text, /Tuesday 11 March 2031|Monday 10 March 2031, 7:00 PM – 9:00 PM CET/);
      assert.match(page1.text, /Town Hall<\/a>, Springfield/);
      for (const path of ['/events/list/page/2/', '/events/list/?page=2', '/events/page/2/']) {
        const page2 = await get(path);
        assert.equal(page2.status, 200, path);
        assert.equal(count(page2.text, '<article class="event'), 4, path);
        assert.match(page2.text, /Evening Talk 12/);
        assert.ok(hrefs(page2.text).includes(`${t.origin}/events/list/`), 'a link back to page 1');
      }
      const beyond = await get('/events/list/page/3/');
      assert.equal(beyond.status, 404);
      assert.match(beyond.headers.get('content-type') ?? '', /text\/html/);
      assert.equal((await get('/events/list/?page=zero')).status, 404);
    });

    it('filters the list by category, tag and search, with a search box', async () => {
      const byCategory = await get('/events/list/?category=concerts');
      assert.match(byCategory.text, /Spring Concert/);
      assert.doesNotMatch(byCategory.text, /Harbour Festival|Evening Talk|Secret Draft/);
      const byTag = await get('/events/?tag=jazz');
      assert.match(byTag.text, /Spring Concert/);
      assert.doesNotMatch(byTag.text, /Evening Talk/);
      const search = await get('/events/list/?search=festival');
      assert.match(search.text, /Harbour Festival/);
      assert.doesNotMatch(search.text, /Spring Concert|Evening Talk/);
      assert.match(search.text, /1 event found for “festival”/);
      assert.match(search.text, /<form class="search" role="search" method="get" action="[^"]*\/events\/list\/">/);
      assert.match(search.text, /<input id="event-search" type="search" name="search" value="festival">/);
      assert.match(search.text, /<meta name="robots" content="noindex">/);
    });

    it('category and tag pages list their events', async () => {
      const category = await get('/events/category/concerts/');
      assert.equal(category.status, 200);
      assert.match(category.text, /<h1>Concerts<\/h1>/);
      assert.match(category.text, /Spring Concert/);
      assert.doesNotMatch(category.text, /Harbour Festival|Secret Draft/);
      assert.match(category.text, new RegExp(`<link rel="canonical" href="${t.origin}/events/category/concerts/">`));
      const tag = await get('/events/tag/jazz/');
      assert.match(tag.text, /Events tagged “jazz”/);
      assert.match(tag.text, /Spring Concert/);
      assert.equal((await get('/events/category/no-such-category/')).status, 404);
      assert.equal((await get('/events/tag/no-such-tag/')).status, 404);
    });

    it('shows past events, latest first', async () => {
      const res = await get('/events/list/?eventDisplay=past');
      assert.equal(res.status, 200);
      assert.match(res.text, /<h1>Past events<\/h1>/);
      assert.doesNotMatch(res.text, /Spring Concert/);
      assert.ok(hrefs(res.text).includes(`${t.origin}/events/list/`), 'a link to upcoming events');
      // Latest first, and a kept page follows a new event that falls into it.
      const made: number[] = [];
      for (const [title, day] of [
        ['Old Fair', '2020-01-10'],
        ['Older Fair', '2019-05-01'],
      ] as const) {
        const r = await t.api.post('/events', { as: 'admin', json: { title, start_date: `${day} 10:00`, end_date: `${day} 12:00` } });
        assert.equal(r.status, 201);
        made.push(r.body.id);
      }
      const before = (await get('/events/list/?eventDisplay=past')).text;
      assert.ok(before.indexOf('Old Fair') < before.indexOf('Older Fair'), 'latest first');
      const r = await t.api.post('/events', { as: 'admin', json: { title: 'Recent Fair', start_date: '2024-02-01 10:00', end_date: '2024-02-01 12:00' } });
      made.push(r.body.id);
      const after = (await get('/events/list/?eventDisplay=past')).text;
      assert.ok(after.includes('Recent Fair') && after.indexOf('Recent Fair') < after.indexOf('Old Fair'), 'the new past event first');
      for (const id of made) assert.equal((await t.api.delete(`/events/${id}?force=true`, { as: 'admin' })).status, 200);
      assert.doesNotMatch((await get('/events/list/?eventDisplay=past')).text, /Recent Fair|Old Fair/);
    });

    it('draws a month grid with multi-day events on every day they cover, and month links', async () => {
      const res = await get('/events/month/2031-03/');
      assert.equal(res.status, 200);
      assert.match(res.text, /<h1>Events in March 2031<\/h1>/);
      assert.match(res.text, /<table class="month">/);
      assert.equal(count(res.text, 'Spring Concert</a>'), 1);
      // 30 and 31 March, 1 and 2 April (the grid runs to Sunday 6 April).
      assert.equal(count(res.text, 'Harbour Festival</a>'), 4);
      assert.doesNotMatch(res.text, /Secret Draft|Trashed Gig/);
      assert.ok(hrefs(res.text).includes(`${t.origin}/events/month/2031-04/`), 'next month');
      assert.ok(hrefs(res.text).includes(`${t.origin}/events/month/2031-02/`), 'previous month');
      assert.ok(hrefs(res.text).includes(`${t.origin}/events/2031-03-10/`), 'day links');
      const april = await get('/events/month/2031-04/');
      assert.equal(count(april.text, 'Harbour Festival</a>'), 3, '31 March (in the grid), 1 and 2 April');
      assert.equal((await get('/events/month/')).status, 200);
      assert.equal((await get('/events/month/2031-13/')).status, 404);
    });

    it('day view and today', async () => {
      const day = await get('/events/2031-03-31/');
      assert.equal(day.status, 200);
      assert.match(day.text, /Events on Monday 31 March 2031/);
      assert.match(day.text, /Harbour Festival/);
      assert.doesNotMatch(day.text, /Spring Concert/);
      const concertDay = await get('/events/2031-03-10/');
      assert.match(concertDay.text, /Spring Concert/);
      assert.doesNotMatch(concertDay.text, /Secret Draft/);
      assert.ok(hrefs(concertDay.text).includes(`${t.origin}/events/2031-03-11/`), 'next day');
      assert.equal((await get('/events/today/')).status, 200);
      assert.equal((await get('/events/2031-02-30/')).status, 404);
    });

    it('event page: details, venue with a map link, organizer, terms, add-to-calendar links, JSON-LD, meta', async () => {
      const res = await get('/event/spring-concert/');
      assert.equal(res.status, 200);
      const page = res.text;
      assert.match(page, /<h1>Spring Concert<\/h1>/);
      assert.match(page, /<title>Spring Concert – Events Calendar<\/title>/);
      assert.match(page, /Monday 10 March 2031, 7:00 PM – 9:00 PM CET/);
      assert.match(page, /Europe\/Rome/);
      assert.match(page, /<p>An evening of <strong>music<\/strong>.<\/p>/);
      assert.match(page, /<dt>Cost<\/dt><dd>\$25<\/dd>/);
      assert.ok(hrefs(page).includes('https://example.org/concert'));
      assert.match(page, /<address>1 Main Street, Springfield, Italy<\/address>/);
      assert.ok(hrefs(page).includes('https://www.openstreetmap.org/search?query=1%20Main%20Street%2C%20Springfield%2C%20Italy'));
      assert.ok(hrefs(page).includes('mailto:music@example.org'));
      assert.ok(hrefs(page).includes(`${t.origin}/events/category/concerts/`));
      assert.ok(hrefs(page).includes(`${t.origin}/events/tag/jazz/`));
      const google = hrefs(page).find((h) => h.startsWith('https://www.google.com/calendar/event?'))!;
      const g = new URL(google).searchParams;
      assert.equal(g.get('action'), 'TEMPLATE');
      assert.equal(g.get('text'), 'Spring Concert');
      assert.equal(g.get('dates'), '20310310T180000Z/20310310T200000Z');
      assert.equal(g.get('ctz'), 'Europe/Rome');
      const outlook = new URL(hrefs(page).find((h) => h.startsWith('https://outlook.live.com/calendar/'))!).searchParams;
      assert.equal(outlook.get('rru'), 'addevent');
      assert.equal(outlook.get('startdt'), '2031-03-10T18:00:00Z');
      assert.ok(hrefs(page).includes(`${concert.url}?ical=1`));
      // Head: canonical, description, Open Graph.
      assert.match(page, new RegExp(`<link rel="canonical" href="${concert.url}">`));
      assert.match(page, /<meta name="description" content="An evening of music.">/);
      assert.match(page, /<meta property="og:title" content="Spring Concert">/);
      assert.match(page, /<meta property="og:type" content="article">/);
      assert.match(page, new RegExp(`<meta property="og:url" content="${concert.url}">`));
      // JSON-LD: the API's json_ld object, with eventStatus.
      const ld = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)![1]!);
      const api = (await t.api.get(`/events/${ids.concert}`)).body;
      assert.deepEqual(ld, { ...api.json_ld, eventStatus: 'https://schema.org/EventScheduled' }, "the API's json_ld, with eventStatus");
      assert.equal(ld['@type'], 'Event');
      assert.equal(ld.startDate, '2031-03-10T19:00:00+01:00');
      assert.equal(ld.location.address.addressLocality, 'Springfield');
      assert.equal(ld.offers.price, '25');
    });

    it('answers unknown, draft and trashed records with the HTML 404 page', async () => {
      for (const path of [
        '/event/secret-draft/',
        '/event/trashed-gig/',
        '/event/trashed-gig__trashed/',
        '/event/nothing-here/',
        '/venue/nowhere/',
        '/organizer/nobody/',
        '/events/not/a/page/',
        '/event/',
      ]) {
        const res = await get(path);
        assert.equal(res.status, 404, path);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
        assert.match(res.text, /<h1>Page not found<\/h1>/, path);
        assert.match(res.text, /<meta name="robots" content="noindex">/, path);
      }
      // The draft is there for its author through the API, not on a page.
      assert.equal((await t.api.get(`/events/${ids.draft}`, { as: 'admin' })).status, 200);
    });

    it('venue and organizer pages list their upcoming events', async () => {
      const venue = await get('/venue/town-hall/');
      assert.equal(venue.status, 200);
      assert.match(venue.text, /<h1>Town Hall<\/h1>/);
      assert.match(venue.text, /Spring Concert/);
      assert.doesNotMatch(venue.text, /Evening Talk/);
      assert.match(venue.text, /Map \(OpenStreetMap\)/);
      const organizer = await get('/organizer/music-society/');
      assert.equal(organizer.status, 200);
      assert.match(organizer.text, /<h1>Music Society<\/h1>/);
      assert.match(organizer.text, /\+39 555 0100/);
      assert.match(organizer.text, /Spring Concert/);
    });

    it('every page offers its .ics and the subscribe links', async () => {
      for (const path of [
        '/events/',
        '/events/month/2031-03/',
        '/events/2031-03-10/',
        '/event/spring-concert/',
        '/venue/town-hall/',
        '/organizer/music-society/',
        '/events/category/concerts/',
        '/events/tag/jazz/',
      ]) {
        const res = await get(path);
        const ics = /<link rel="alternate" type="text\/calendar" [^>]*href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&');
        assert.ok(ics, path);
        const feed = await t.api.get(ics!);
        assert.equal(feed.status, 200, ics);
        assert.equal(feed.headers.get('content-type'), 'text/calendar; charset=utf-8', ics);
        assert.match(feed.text, /^BEGIN:VCALENDAR\r\n/, ics);
      }
      const list = await get('/events/list/?category=concerts');
      const links = hrefs(list.text);
      assert.ok(links.includes(`webcal://127.0.0.1:${new URL(t.origin).port}/events.ics?categories=concerts`));
      assert.ok(links.includes(`https://www.google.com/calendar/render?cid=${encodeURIComponent(`webcal://127.0.0.1:${new URL(t.origin).port}/events.ics?categories=concerts`)}`));
      const outlook = links.find((h) => h.startsWith('https://outlook.office.com/owa?'))!;
      assert.equal(new URL(outlook).searchParams.get('rru'), 'addsubscription');
      assert.equal(new URL(outlook).searchParams.get('url'), `webcal://127.0.0.1:${new URL(t.origin).port}/events.ics?categories=concerts`);
    });

    it('exports what each page covers: ?ical=1, /ical/, ?outlook-ical=1, event_ids', async () => {
      const list = await get('/events/?ical=1');
      assert.equal(list.status, 200);
      assert.equal(vevents(list.text), 14, 'every upcoming published event, not only the first page');
      assert.doesNotMatch(list.text, /Secret Draft|Trashed Gig/);
      assert.match(list.headers.get('content-disposition') ?? '', /^attachment; filename="[a-z0-9-]+\.ics"$/);
      const single = await get('/event/spring-concert/ical/');
      assert.equal(vevents(single.text), 1);
      assert.match(single.text, /SUMMARY:Spring Concert/);
      assert.match(single.headers.get('content-disposition') ?? '', /filename="spring-concert\.ics"/);
      const outlook = await get('/event/spring-concert/?outlook-ical=1');
      assert.equal(outlook.headers.get('content-type'), 'text/calendar; charset=utf-8');
      assert.equal(vevents(outlook.text), 1);
      assert.equal(vevents((await get('/events/category/concerts/ical/')).text), 1);
      const day = await get('/events/2031-03-31/ical/');
      assert.equal(vevents(day.text), 1);
      assert.match(day.text, /SUMMARY:Harbour Festival/);
      assert.equal(vevents((await get('/events/month/2031-05/?ical=1')).text), 12);
      assert.equal(vevents((await get('/venue/town-hall/?ical=1')).text), 1);
      assert.equal(vevents((await get('/organizer/music-society/ical/')).text), 1);
      const picked = await get(`/events/?ical=1&event_ids=${ids.concert},${ids.draft},${ids.talk3}`);
      assert.equal(vevents(picked.text), 2, 'the draft is left out');
      assert.doesNotMatch(picked.text, /Secret Draft/);
      assert.equal((await get('/event/secret-draft/?ical=1')).status, 404);
      // No content negotiation: any Accept gets the calendar.
      const accept = await get('/events/?ical=1', { accept: 'application/json' });
      assert.equal(accept.status, 200);
      assert.equal(accept.headers.get('content-type'), 'text/calendar; charset=utf-8');
    });

    it('/events.ics takes the REST list filters', async () => {
      assert.equal(vevents((await get('/events.ics')).text), 14);
      assert.equal(vevents((await get('/events.ics?categories=concerts')).text), 1);
      assert.equal(vevents((await get('/events.ics?tags=jazz')).text), 1);
      assert.equal(vevents((await get('/events.ics?search=talk')).text), 12);
      assert.equal(vevents((await get(`/events.ics?venue=${concert.venue.id}`)).text), 1);
      assert.equal(vevents((await get(`/events.ics?organizer=${concert.organizer[0].id}`)).text), 1);
      assert.equal(vevents((await get('/events.ics?start_date=2031-05-01&end_date=2031-05-05')).text), 5);
      assert.equal(vevents((await get('/events.ics?featured=1')).text), 0);
      const bad = await get('/events.ics?start_date=not-a-date');
      assert.equal(bad.status, 400);
    });

    it('keeps the site page, the REST API and the other routes as they were', async () => {
      const root = await get('/');
      assert.equal(root.status, 200);
      assert.match(root.headers.get('link') ?? '', /rel="https:\/\/api\.w\.org\/"/);
      assert.ok(hrefs(root.text).includes(`${t.origin}/events/`));
      const api = await t.api.get('/events?start_date=2031-01-01&end_date=2031-12-31');
      assert.equal(api.status, 200);
      assert.match(api.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(api.body.total, 14);
      const unknown = await get('/no-such-thing');
      assert.equal(unknown.status, 404);
      assert.equal(JSON.parse(unknown.text).code, 'rest_no_route');
      assert.equal((await get('/wp-json/tribe/events/v1/events')).status, 200);
      assert.equal((await get('/?rest_route=/tribe/events/v1/events&start_date=2031-01-01&end_date=2031-12-31')).body.total, 14);
      assert.equal((await get('/livez')).status, 200);
      const head = await t.api.request('HEAD', `${t.origin}/events/`);
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.match(head.headers.get('content-type') ?? '', /^text\/html/);
      const css = await get('/events-calendar.css');
      assert.equal(css.status, 200);
      assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
      assert.match(css.text, /@media/);
    });

    it('follows changes: a new title shows at once, a renamed slug moves the page, a trashed event leaves', async () => {
      const res = await t.api.post('/events', { as: 'admin', json: { title: 'Changing Show', start_date: '2031-06-02 10:00', end_date: '2031-06-02 11:00' } });
      assert.equal(res.status, 201);
      const id = res.body.id;
      assert.match((await get('/event/changing-show/')).text, /<h1>Changing Show<\/h1>/);
      assert.match((await get('/events/2031-06-02/')).text, /Changing Show/);
      assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Changed Show' } })).status, 200);
      assert.match((await get('/event/changing-show/')).text, /<h1>Changed Show<\/h1>/);
      assert.match((await get('/events/2031-06-02/')).text, /Changed Show/);
      assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { slug: 'renamed-show' } })).status, 200);
      assert.equal((await get('/event/changing-show/')).status, 404);
      assert.equal((await get('/event/renamed-show/')).status, 200);
      assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      assert.equal((await get('/event/renamed-show/')).status, 404, 'unpublished');
      assert.doesNotMatch((await get('/events/2031-06-02/')).text, /Changed Show/);
      assert.equal((await t.api.post(`/events/${id}`, { as: 'admin', json: { status: 'publish' } })).status, 200);
      assert.equal((await get('/event/renamed-show/')).status, 200);
      assert.equal((await t.api.delete(`/events/${id}`, { as: 'admin' })).status, 200);
      assert.equal((await get('/event/renamed-show/')).status, 404, 'trashed');
    });

    it('escapes what it shows', async () => {
      const res = await t.api.post('/events', {
        as: 'admin',
        json: { title: 'Tags <b>&</b> "quotes"', description: '<p>ok</p><script>alert(1)</script><img src=x onerror="alert(2)">', start_date: '2031-06-01 10:00', end_date: '2031-06-01 11:00' },
      });
      assert.equal(res.status, 201);
      const page = (await t.api.get(res.body.url)).text;
      assert.doesNotMatch(page, /<script>alert|onerror=/);
      assert.doesNotMatch(page, /<b>&<\/b>/);
      assert.match(page, /<h1>Tags &amp; &quot;quotes&quot;<\/h1>|<h1>Tags &amp; "quotes"<\/h1>/);
      assert.equal((await t.api.delete(`/events/${res.body.id}?force=true`, { as: 'admin' })).status, 200);
    });
  },
  { SITE_NAME: 'Events Calendar' },
);
