/**
 * The anonymous reads that answer many events at once, a month page (`/events/month/YYYY-MM/`,
 * up to ICAL_MAX_EVENTS), the embed's month view (`/embed/?view=month`, up to 1,000) and the
 * FullCalendar source (`calendar/embed/v1/fullcalendar`, up to 1,000), do not hold the server's
 * event loop 100 ms (CPU time) while they answer events none of which is kept from an earlier
 * read: the events' representations are read and built in steps, and the faces' work per event is
 * plain arithmetic. Before, the FullCalendar source held the loop 120-170 ms for 1,000 events
 * here, a month page about 75 ms for 1,000 and over 200 ms for 3,000 (a site with a larger
 * ICAL_MAX_EVENTS); the embed's month view (50 ms for 1,000 here) is checked all the same.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { assertNoStall, receive, textOf } from '../support/stall.js';

/** Daily series of a month: more events in March 2031 (3,100) than one answer holds. */
const SERIES = 100;
/** The month page's cap, raised (a site may): a month page of 3,000 events. */
const MONTH_PAGE_MAX = 3000;
const PARAGRAPHS = Array.from(
  { length: 6 },
  (_, k) =>
    `Part ${k + 1}: bring a friend & a coat; the <a href="https://example.org/${k}">programme</a> "as announced", with <strong>guests</strong> — doors at 18:30.\nSeats are free, donations welcome. Accessible by tram and bus; ask us about step-free access & quiet rooms.`,
).join('\n\n');
const ZONES = ['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Australia/Sydney', 'America/Sao_Paulo'];

forEachStore(
  'Range reads of thousands of events, without a hold of the loop',
  (t: TestServer) => {
    let categoryId = 0;
    let turn = 0;

    before(async () => {
      for (let i = 0; i < SERIES; i++) {
        const hour = String(6 + (i % 14)).padStart(2, '0');
        const res = await t.api.post('/events', {
          as: 'admin',
          json: {
            title: `Daily <b>${i}</b> & more`,
            start_date: `2031-03-01 ${hour}:${i % 2 ? '30' : '00'}:00`,
            end_date: `2031-03-01 ${hour}:45:00`,
            timezone: ZONES[i % ZONES.length],
            all_day: i % 9 === 8,
            // A description of a real event's length (about 2 KB: paragraphs, a list, links).
            description: `<p>Day ${i} of the series, in <em>${ZONES[i % ZONES.length]}</em>.</p>\n\n${PARAGRAPHS}\n\n<ul><li>Open doors</li><li>Talk</li></ul>`,
            excerpt: `Day ${i}`,
            cost: i % 3 ? `${5 + i} – ${20 + i}` : 'Free',
            categories: ['Daily', `Kind ${i % 5}`],
            tags: [`tag-${i % 7}`, 'daily'],
            venue: { venue: `Hall ${i % 12}`, address: `${i} Main Street`, city: 'Springfield', country: 'France', zip: '75001' },
            organizer: [{ organizer: `Host ${i % 8}`, email: `host${i % 8}@example.org` }],
            recurrence: ['RRULE:FREQ=DAILY;COUNT=31'],
          },
        });
        assert.equal(res.status, 201, res.text);
        categoryId ||= res.body.categories[0].id;
      }
    });

    /**
     * Before each try: the category every event shows changes, so that no representation is kept
     * (the read builds a thousand, as a first read of a month does).
     */
    const uncached = async () => {
      const res = await t.api.post(`/categories/${categoryId}`, { as: 'admin', json: { description: `Every day (${++turn})` } });
      assert.equal(res.status, 200, res.text);
    };
    // Not compressed: the face's own work is measured.
    const identity = { headers: { 'accept-encoding': 'identity' } };

    it('answers the FullCalendar source of a thousand events without a hold', async () => {
      const url = `${t.origin}/api/calendar/embed/v1/fullcalendar?start=2031-03-01&end=2031-04-01&timeZone=Europe/Paris`;
      const check = (r: Awaited<ReturnType<typeof receive>>) => {
        assert.equal(r.status, 200);
        const events = JSON.parse(textOf(r)) as Array<{ title: string; start: string }>;
        assert.equal(events.length, 1000);
        assert.match(events[0]!.title, /^Daily <b>\d+<\/b> & more$/);
      };
      // A first read compiles the code paths (a first compilation is not the request's own work).
      check(await receive(url, identity));
      await assertNoStall(t, 'FullCalendar source', () => receive(url, identity), check, uncached);
    });

    it('answers a month page of 3,000 events without a hold', async () => {
      const page = `${t.origin}/events/month/2031-03/`;
      const checkPage = (r: Awaited<ReturnType<typeof receive>>) => {
        assert.equal(r.status, 200);
        const text = textOf(r);
        // The first 3,000 events in start order (100 a day): the days up to the 30th, each showing
        // three events and a link to the others.
        assert.equal(text.match(/<a class="more"/g)?.length, MONTH_PAGE_MAX / SERIES, text.slice(0, 500));
        // Titles as text (their markup left out), escaped; each marked as repeating (daily series).
        assert.ok(/>Daily \d+ &amp; more <span class="repeats-mark"[^>]*>.*?<\/span><\/span><\/a>/.test(text), text.slice(0, 500));
      };
      checkPage(await receive(page, identity));
      await assertNoStall(t, 'month page', () => receive(page, identity), checkPage, uncached);
    });

    it('answers the iCalendar feed of a month of 3,000 events without a hold', async () => {
      const feed = `${t.origin}/events/month/2031-03/?ical=1`;
      const checkFeed = (r: Awaited<ReturnType<typeof receive>>) => {
        assert.equal(r.status, 200);
        const text = textOf(r);
        // Each series once, with its rule (the occurrences are its instances).
        assert.equal(text.match(/\r\nBEGIN:VEVENT\r\n/g)?.length, SERIES, text.slice(0, 500));
        assert.equal(text.match(/\r\nRRULE:FREQ=DAILY;COUNT=31\r\n/g)?.length, SERIES);
        assert.ok(text.endsWith('END:VCALENDAR\r\n'));
      };
      checkFeed(await receive(feed, identity));
      await assertNoStall(t, 'iCalendar feed of a month', () => receive(feed, identity), checkFeed, uncached);
    });

    it("answers the embed's month view of a thousand events without a hold", async () => {
      const embed = `${t.origin}/embed/?view=month&month=2031-03`;
      const checkEmbed = (r: Awaited<ReturnType<typeof receive>>) => {
        assert.equal(r.status, 200);
        const text = textOf(r);
        // The first 1,000 events: the first ten days.
        assert.equal(text.match(/<span class="more">/g)?.length, 1000 / SERIES, text.slice(0, 500));
      };
      checkEmbed(await receive(embed, identity));
      await assertNoStall(t, "embed's month view", () => receive(embed, identity), checkEmbed, uncached);
    });
  },
  { ICAL_MAX_EVENTS: String(MONTH_PAGE_MAX) },
);
