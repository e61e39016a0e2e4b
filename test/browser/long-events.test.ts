/**
 * Long events in a real browser (Chromium through playwright-core, on SQLite): FullCalendar itself
 * (`dayGridMonth`, reading the service's event source from a page of another origin) and the
 * `<events-calendar>` component beside it show a festival of 60 days in a later month: April's grid
 * starts 45 days after the festival began, so the source must find an event that began long before
 * the range it is asked (it found only those begun at most 31 days before). A festival of 700 days
 * is shown there too, on every day of the grid it covers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { fullCalendarBundle, launchBrowser } from '../support/browser.js';
import { freePort } from '../../bench/src/processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('a long event in a later month, in FullCalendar and the component', () => {
  let t: TestServer;
  let browser: Browser;
  let other: Server;
  let otherOrigin = '';

  before(async () => {
    const built = spawnSync(process.execPath, [`${root}embed/build.mjs`, '--if-stale'], { stdio: 'inherit' });
    assert.equal(built.status, 0);
    const manifest = JSON.parse(readFileSync(`${root}dist/embed/manifest.json`, 'utf8')) as { file: string; integrity: string };
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { SITE_NAME: 'Springfield Events', CALENDAR_TIMEZONE: 'Europe/Paris' });
    const post = async (json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json: { timezone: 'Europe/Paris', ...json } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    };
    // April 2031's grid (Monday first) runs from Monday 31 March to Sunday 4 May.
    await post({ title: 'Spring Festival', start_date: '2031-02-14 10:00', end_date: '2031-04-15 18:00' });
    await post({ title: 'Biennale', start_date: '2029-06-01 10:00', end_date: '2031-05-01 18:00' });
    await post({ title: 'April Concert', start_date: '2031-04-23 20:00', end_date: '2031-04-23 22:00' });
    const bundle = await fullCalendarBundle();

    const port = await freePort();
    otherOrigin = `http://localhost:${port}`;
    const service = t.origin;
    other = createServer((req, res) => {
      if (req.url === '/fc.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another site</title></head><body>
<script type="module" src="${service}/embed/${manifest.file}" integrity="${manifest.integrity}" crossorigin="anonymous"></script>
<events-calendar service="${service}" view="month" month="2031-04"></events-calendar>
<div id="fc"></div>
<script src="/fc.js"></script><script>
const { Calendar, dayGridPlugin } = window.FullCalendar;
window.fc = new Calendar(document.getElementById('fc'), {
  plugins: [dayGridPlugin], initialView: 'dayGridMonth', initialDate: '2031-04-01', firstDay: 1, dayMaxEvents: false,
  events: { url: '${service}/wp-json/calendar/embed/v1/fullcalendar' },
  loading: (on) => { window.fcLoading = on; },
});
window.fc.render();
</script></body></html>`);
    });
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  it('FullCalendar shows the 60-day festival in April, begun 45 days before the grid; the component too', async () => {
    const context = await browser.newContext({ timezoneId: 'Europe/Paris', locale: 'en-GB', viewport: { width: 1300, height: 1400 } });
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/calendar/embed/v1/fullcalendar')) asked.push(req.url());
    });
    await page.goto(otherOrigin + '/');
    await page.waitForFunction(() => (window as any).fcLoading === false && document.querySelectorAll('#fc .fc-daygrid-event').length > 0);
    // What FullCalendar asked: April's grid, from Monday 31 March.
    assert.ok(
      asked.some((u) => new URL(u).searchParams.get('start')?.startsWith('2031-03-31')),
      asked.join('\n'),
    );
    const fcEvents = await page.evaluate(() => (window as any).fc.getEvents().map((e: any) => [e.title, e.startStr.slice(0, 10), e.endStr.slice(0, 10)]));
    assert.deepEqual(fcEvents, [
      ['Biennale', '2029-06-01', '2031-05-01'],
      ['Spring Festival', '2031-02-14', '2031-04-15'],
      ['April Concert', '2031-04-23', '2031-04-23'],
    ]);
    // Drawn in the grid: one bar per week it runs in, from the grid's first day to 15 April.
    const bars = (title: string) =>
      page.evaluate(
        (t) =>
          Array.from(document.querySelectorAll('#fc a.fc-daygrid-event'))
            .filter((a) => a.textContent!.includes(t))
            .map((a) => (a.closest('td[data-date]') as HTMLElement).dataset.date),
        title,
      );
    assert.deepEqual(await bars('Spring Festival'), ['2031-03-31', '2031-04-07', '2031-04-14']);
    assert.deepEqual(await bars('Biennale'), ['2031-03-31', '2031-04-07', '2031-04-14', '2031-04-21', '2031-04-28']);

    // The component reads the same source: the festival on each day it covers in the grid.
    await page.waitForFunction(() => document.querySelector('events-calendar')?.shadowRoot?.querySelector('.root:not([aria-busy])') !== null);
    const days = await page.evaluate(() =>
      Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('a.chip'))
        .filter((a) => a.textContent!.includes('Spring Festival'))
        .map((a) => (a.closest('td') as HTMLElement).dataset.day),
    );
    const expected: string[] = ['2031-03-31'];
    for (let d = 1; d <= 15; d++) expected.push(`2031-04-${String(d).padStart(2, '0')}`);
    assert.deepEqual(days, expected);
    const biennaleDays = await page.evaluate(
      () => Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('a.chip')).filter((a) => a.textContent!.includes('Biennale')).length,
    );
    assert.equal(biennaleDays, 32, 'the 700-day Biennale on every grid day to 1 May');
    await context.close();
  });
});
