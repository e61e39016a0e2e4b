/**
 * Every face of a calendar reached under its path links to that calendar's URLs, never the
 * default calendar's: the embed's iframe view (its events' links), the snippet generator (the
 * iframe, component and FullCalendar snippets it writes) and the submissions' pages (the status
 * page's way home). Each of these took the default calendar's URLs once, when the face was
 * registered.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { EVENT, OPEN, SUB } from '../support/submissions.js';

forEachStore(
  'calendars: each face links to the calendar’s own URLs',
  (t) => {
    const api = (path: string) => `${t.origin}/c/north${t.config.restRoot}/tribe/events/v1${path}`;
    let eventUrl = '';
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North' });
      const made = await t.api.post(api('/events'), { as: 'admin', json: { title: 'North Fair', status: 'publish', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00' } });
      assert.equal(made.status, 201, made.text);
      eventUrl = made.body.url;
      assert.equal(eventUrl, `${t.origin}/c/north/event/north-fair/`);
    });

    it('links the embed’s events to the calendar’s event pages', async () => {
      // The root's embed first: whatever it keeps must not answer for north.
      assert.equal((await fetch(`${t.origin}/embed/?view=list`)).status, 200);
      const res = await fetch(`${t.origin}/c/north/embed/?view=list`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(text.includes(`href="${eventUrl}"`), text.slice(0, 2000));
      assert.ok(!text.includes(`href="${t.origin}/event/`), 'no link to the root’s event pages');
    });

    it('writes snippets of the calendar’s own embed', async () => {
      assert.equal((await fetch(`${t.origin}/embed/snippet.json`)).status, 200);
      const res = await fetch(`${t.origin}/c/north/embed/snippet.json?view=list`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { iframe: string; preview: string; component: string };
      assert.ok(body.preview.startsWith(`${t.origin}/c/north/embed/`), body.preview);
      assert.ok(body.iframe.includes(`src="${t.origin}/c/north/embed/`), body.iframe);
      const page = await (await fetch(`${t.origin}/c/north/embed/snippet`)).text();
      assert.ok(page.includes(`${t.origin}/c/north/embed/`), 'the snippet page too');
    });

    it('sends a submitter of the calendar back to its own events', async () => {
      const made = await t.api.post(`${t.origin}/c/north${SUB}/submissions`, { json: { ...EVENT, title: 'Lake swim' } });
      assert.equal(made.status, 201, made.text);
      assert.ok(String(made.body.link).startsWith(`${t.origin}/c/north/events/submit/status/`), made.body.link);
      const back = (html: string) => /<a href="([^"]*)">Back to the calendar<\/a>/.exec(html)?.[1];
      const status = await (await fetch(made.body.link)).text();
      assert.equal(back(status), `${t.origin}/c/north/events/`);
      // And a status page that is not there.
      const missing = await fetch(`${t.origin}/c/north/events/submit/status/${'x'.repeat(40)}`);
      assert.equal(missing.status, 404);
      assert.equal(back(await missing.text()), `${t.origin}/c/north/events/`);
    });
  },
  OPEN,
);
