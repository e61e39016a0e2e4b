/**
 * Issue 30 in a real browser (Chromium through playwright-core, on SQLite): a page on a second
 * origin (another host name and port) embeds the `<events-calendar>` component (with its SRI
 * hash) and FullCalendar itself (`@fullcalendar/core` + `daygrid` + `list`, bundled by the support with the
 * installed esbuild, reading the service's event source) side by side; both show the same events,
 * on the same days, as the API. Also: time zones (the viewer's and the event's), keyboard
 * navigation of the month grid, the conditional refresh (304) without credentials, the list
 * views and their states, French, and axe-core on the component page, the iframe view and the
 * snippet page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { fullCalendarBundle, launchBrowser, seriousViolations } from '../support/browser.js';
import { freePort } from '../../bench/src/processes.js';
import { plainImage, uploadForm } from '../support/media.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the calendar on another site', () => {
  let t: TestServer;
  let browser: Browser;
  let other: Server;
  let otherOrigin = '';
  let fcBundle = '';
  // Next month where the viewer is (Europe/Paris, as the site): never the month of its today, which
  // the grid marks "Today". Next month in UTC was that month in the last hours of a month's last day.
  const month = DateTime.now().setZone('Europe/Paris').startOf('month').plus({ months: 1 });
  const ym = month.toFormat('yyyy-MM');
  const day = (n: number) => month.plus({ days: n - 1 }).toISODate()!;
  let manifest: { file: string; integrity: string };

  const mediaDir = mkdtempSync(join(tmpdir(), 'embed-media-'));
  let picture: { id: number; url: string };
  after(() => rmSync(mediaDir, { recursive: true, force: true }));

  before(async () => {
    const built = spawnSync(process.execPath, [`${root}embed/build.mjs`, '--if-stale'], { stdio: 'inherit' });
    assert.equal(built.status, 0);
    manifest = JSON.parse(readFileSync(`${root}dist/embed/manifest.json`, 'utf8'));
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { SITE_NAME: 'Springfield Events', CALENDAR_TIMEZONE: 'Europe/Paris', MEDIA_DIR: mediaDir });
    // The concert's picture, from the media library (the list view shows it).
    picture = (await uploadForm(t, await plainImage(800, 600, 'jpeg'), 'image/jpeg', 'quay.jpg', 'The quay at night')).body;
    const post = async (json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    };
    await post({
      title: 'Harbour Concert',
      start_date: `${day(10)} 20:00`,
      end_date: `${day(10)} 22:00`,
      timezone: 'Europe/Paris',
      categories: ['Concerts'],
      venue: { venue: 'Quay', city: 'Springfield' },
      image: String(picture.id),
    });
    await post({ title: 'New York Jazz', start_date: `${day(14)} 19:00`, end_date: `${day(14)} 21:00`, timezone: 'America/New_York', categories: ['Concerts'] });
    await post({ title: 'Flower Market', all_day: true, start_date: day(17), end_date: day(17), timezone: 'Europe/Paris', categories: ['Markets'] });
    await post({ title: 'Morning Yoga', start_date: `${day(3)} 08:00`, end_date: `${day(3)} 09:00`, timezone: 'Europe/Paris', tags: ['outdoor'] });
    await post({ title: 'Hidden Draft', status: 'draft', start_date: `${day(11)} 10:00`, end_date: `${day(11)} 11:00` });
    fcBundle = await fullCalendarBundle();

    // The second origin: another host name (localhost, not 127.0.0.1) and port.
    const port = await freePort();
    otherOrigin = `http://localhost:${port}`;
    const service = t.origin;
    const componentTag = (attrs: string) =>
      `<script type="module" src="${service}/embed/${manifest.file}" integrity="${manifest.integrity}" crossorigin="anonymous"></script>\n<events-calendar service="${service}" ${attrs}></events-calendar>`;
    other = createServer((req, res) => {
      const url = new URL(req.url ?? '/', otherOrigin);
      if (url.pathname === '/fc.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(fcBundle);
      const attrs = url.searchParams.get('attrs') ?? `view="month" month="${ym}"`;
      const withFc = url.pathname === '/';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="${url.searchParams.get('lang') ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A site of another origin</title>
<style>main{display:grid;grid-template-columns:1fr 1fr;gap:1rem}</style></head>
<body><main>
<section aria-labelledby="c-h"><h1 id="c-h">The component</h1>${componentTag(attrs)}</section>
${withFc ? `<section aria-labelledby="f-h"><h2 id="f-h">FullCalendar</h2><div id="fc"></div></section>` : ''}
</main>
${
  withFc
    ? `<script src="/fc.js"></script><script>
const { Calendar, dayGridPlugin, listPlugin } = window.FullCalendar;
window.fc = new Calendar(document.getElementById('fc'), {
  plugins: [dayGridPlugin, listPlugin], initialView: 'dayGridMonth', initialDate: '${day(1)}', firstDay: 1,
  events: { url: '${service}/wp-json/calendar/embed/v1/fullcalendar' },
  eventDidMount: () => { window.fcMounted = (window.fcMounted || 0) + 1; },
  loading: (on) => { window.fcLoading = on; },
});
window.fc.render();
</script>`
    : ''
}
</body></html>`);
    });
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  async function open(path: string, timezoneId = 'Europe/Paris'): Promise<{ context: BrowserContext; page: Page; requests: Array<{ url: string; headers: Record<string, string>; status?: number }> }> {
    const context = await browser.newContext({ timezoneId, locale: 'en-GB', viewport: { width: 1300, height: 1000 } });
    // A cookie of the service's host: the component's and FullCalendar's reads must not send it.
    await context.addCookies([{ name: 'calendar_session', value: 'secret', domain: '127.0.0.1', path: '/' }]);
    const page = await context.newPage();
    const requests: Array<{ url: string; headers: Record<string, string>; status?: number }> = [];
    page.on('response', async (res) => {
      const req = res.request();
      if (!req.url().includes('/calendar/embed/v1/') || req.method() !== 'GET') return;
      requests.push({ url: req.url(), headers: await req.allHeaders(), status: res.status() });
    });
    await page.goto(otherOrigin + path);
    return { context, page, requests };
  }

  /** The request log is written as responses finish: wait for it (a bounded poll, not a timed assertion). */
  async function waitFor(done: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(done(), 'the request was logged');
  }

  const componentLoaded = (page: Page) => page.waitForFunction(() => document.querySelector('events-calendar')?.shadowRoot?.querySelector('.root:not([aria-busy])') !== null);

  it('shows the same events on the same days in the component, in FullCalendar and in the API', async () => {
    const { context, page, requests } = await open('/');
    await componentLoaded(page);
    await page.waitForFunction(() => (window as any).fcLoading === false && document.querySelectorAll('#fc .fc-daygrid-event').length > 0);
    const component = await page.evaluate(() =>
      Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('a.chip'))
        .map((a) => `${(a as HTMLAnchorElement).href} ${(a.closest('td') as HTMLElement).dataset.day}`)
        .sort(),
    );
    const fullcalendar = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#fc a.fc-daygrid-event'))
        .map((a) => `${(a as HTMLAnchorElement).href} ${(a.closest('td[data-date]') as HTMLElement).dataset.date}`)
        .sort(),
    );
    const api = await t.api.get('/events', { query: { start_date: day(1), end_date: month.endOf('month').toISODate()!, per_page: 50 } });
    const byTitle = Object.fromEntries((api.body.events as any[]).map((e) => [e.title, e.url]));
    assert.deepEqual(Object.keys(byTitle).sort(), ['Flower Market', 'Harbour Concert', 'Morning Yoga', 'New York Jazz'], 'published events only');
    const expected = [
      `${byTitle['Morning Yoga']} ${day(3)}`,
      `${byTitle['Harbour Concert']} ${day(10)}`,
      // 19:00 in New York is 01:00 the next day for a viewer in Paris.
      `${byTitle['New York Jazz']} ${day(15)}`,
      `${byTitle['Flower Market']} ${day(17)}`,
    ].sort();
    assert.deepEqual(component, expected, 'the component');
    assert.deepEqual(fullcalendar, expected, 'FullCalendar');
    // Both read across origins, without the service's cookie.
    assert.ok(requests.length >= 2, `${requests.length} reads`);
    for (const r of requests) {
      assert.equal(r.headers.origin, otherOrigin, r.url);
      assert.equal(r.headers.cookie, undefined, `${r.url} carries no cookie`);
      assert.equal(r.status, 200, r.url);
    }
    assert.ok(
      requests.some((r) => r.url.includes('timeZone=Europe%2FParis')),
      'the component asks in the viewer zone',
    );
    assert.deepEqual(await page.evaluate(() => (window as any).fc.getEvents().length), 4);
    await context.close();
  });

  it("shows times in the viewer's zone by default and in the event's own with time-zone=event", async () => {
    const viewer = await open(`/only?attrs=${encodeURIComponent('view="list" limit="10"')}`, 'Asia/Tokyo');
    await componentLoaded(viewer.page);
    const line = async (page: Page) =>
      page.evaluate(() =>
        Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('li.event'))
          .map((li) => li.textContent)
          .find((s) => s!.includes('New York Jazz')),
      );
    // 19:00 in New York is the next morning in Tokyo (the page's language is en: en-US times).
    const nyStart = DateTime.fromISO(`${day(14)}T19:00:00`, { zone: 'America/New_York' });
    const tokyo = (dt: DateTime) => dt.setZone('Asia/Tokyo').setLocale('en-US').toFormat('h:mm a');
    assert.ok((await line(viewer.page))!.startsWith(`New York Jazz${tokyo(nyStart)} – ${tokyo(nyStart.plus({ hours: 2 }))}`), await line(viewer.page));
    await viewer.context.close();
    const own = await open(`/only?attrs=${encodeURIComponent('view="list" limit="10" time-zone="event"')}`, 'Asia/Tokyo');
    await componentLoaded(own.page);
    assert.ok((await line(own.page))!.startsWith(`New York Jazz7:00 PM – 9:00 PM ${nyStart.toFormat('ZZZZ')}`), await line(own.page));
    await own.context.close();
  });

  it('shows an event`s picture in the list view: srcset, dimensions, alt text, lazy, and it loads', async () => {
    const { context, page } = await open(`/only?attrs=${encodeURIComponent('view="list" limit="10"')}`);
    await componentLoaded(page);
    const img = await page.waitForFunction(() => {
      const li = Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('li.event')).find((l) => l.textContent!.includes('Harbour Concert'));
      const found = li?.querySelector<HTMLImageElement>('img[part=image]');
      return found && found.complete && found.naturalWidth > 0
        ? { src: found.src, srcset: found.srcset, alt: found.alt, width: found.width, loading: found.loading, w: found.getAttribute('width') }
        : null;
    });
    const shown = (await img.jsonValue())!;
    assert.equal(shown.src, picture.url);
    assert.equal(shown.alt, 'The quay at night');
    assert.equal(shown.w, '800');
    assert.equal(shown.loading, 'lazy');
    assert.match(shown.srcset, /medium\.jpg 300w/);
    await context.close();
  });

  it('moves through the month grid with the keyboard (roving tabindex)', async () => {
    const { context, page } = await open(`/only?attrs=${encodeURIComponent(`view="month" month="${ym}"`)}`);
    await componentLoaded(page);
    const focused = () => page.evaluate(() => (document.querySelector('events-calendar')!.shadowRoot!.activeElement as HTMLElement | null)?.dataset.day ?? null);
    const tabbable = () =>
      page.evaluate(() => Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('[role=gridcell][tabindex="0"]')).map((c) => (c as HTMLElement).dataset.day));
    assert.deepEqual(await tabbable(), [day(1)], 'one day in the tab order: the first of the month');
    // Tab into the component: previous, next, then the day.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), day(1));
    const label = await page.evaluate(() => document.querySelector('events-calendar')!.shadowRoot!.activeElement!.querySelector('.sr')!.textContent);
    assert.equal(label, `${DateTime.fromISO(day(1)).setLocale('en-US').toFormat('cccc, LLLL d, yyyy')}, no events`);
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), day(2));
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), day(9));
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), day(10));
    assert.deepEqual(await tabbable(), [day(10)], 'the tabindex moved with the focus');
    const tenth = await page.evaluate(() => document.querySelector('events-calendar')!.shadowRoot!.activeElement!.querySelector('.sr')!.textContent);
    assert.match(tenth!, /, 1 event$/);
    // Tab reaches the day's event, Shift+Tab comes back.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.querySelector('events-calendar')!.shadowRoot!.activeElement!.textContent), '8:00 PM Harbour Concert');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), day(10));
    const weekStart = month.plus({ days: 9 }).startOf('week').toISODate()!;
    await page.keyboard.press('Home');
    assert.equal(await focused(), weekStart, 'Home: Monday');
    await page.keyboard.press('End');
    assert.equal(await focused(), month.plus({ days: 9 }).endOf('week').toISODate(), 'End: Sunday');
    await page.keyboard.press('PageDown');
    const next = month.plus({ months: 1 });
    await page.waitForFunction((title) => document.querySelector('events-calendar')!.shadowRoot!.querySelector('h2')!.textContent === title, next.setLocale('en-GB').toFormat('LLLL yyyy'));
    assert.equal((await focused())?.slice(0, 7), next.toFormat('yyyy-MM'), 'PageDown: the next month, focus kept in the grid');
    await page.waitForFunction((title) => document.querySelector('events-calendar')!.shadowRoot!.querySelector('[role=status]')!.textContent === title, next.setLocale('en-US').toFormat('LLLL yyyy'));
    await page.keyboard.press('PageUp');
    await page.waitForFunction((title) => document.querySelector('events-calendar')!.shadowRoot!.querySelector('h2')!.textContent === title, month.setLocale('en-GB').toFormat('LLLL yyyy'));
    await page.getByRole('button', { name: 'Next month' }).click();
    await page.waitForFunction((title) => document.querySelector('events-calendar')!.shadowRoot!.querySelector('h2')!.textContent === title, next.setLocale('en-GB').toFormat('LLLL yyyy'));
    await context.close();
  });

  it("starts the month grid on the week-start attribute (the site's first day of the week), Home and End following it", async () => {
    const { context, page } = await open(`/only?attrs=${encodeURIComponent(`view="month" month="${ym}" week-start="0"`)}`);
    await componentLoaded(page);
    const cells = () => page.evaluate(() => Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('[role=gridcell]')).map((c) => (c as HTMLElement).dataset.day!));
    const heads = () => page.evaluate(() => Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('th')).map((c) => c.getAttribute('abbr')));
    const sundayBefore = month.minus({ days: month.weekday % 7 }).toISODate()!;
    const all = await cells();
    assert.equal(all[0], sundayBefore, 'the grid opens on the Sunday on or before the first');
    assert.equal(DateTime.fromISO(all[all.length - 1]!).weekday, 6, 'and ends on a Saturday');
    assert.deepEqual((await heads()).slice(0, 2), ['Sunday', 'Monday']);
    const focused = () => page.evaluate(() => (document.querySelector('events-calendar')!.shadowRoot!.activeElement as HTMLElement | null)?.dataset.day ?? null);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    const eighth = month.plus({ days: 7 });
    assert.equal(await focused(), eighth.toISODate());
    await page.keyboard.press('Home');
    assert.equal(await focused(), eighth.minus({ days: eighth.weekday % 7 }).toISODate(), 'Home: the Sunday');
    await page.keyboard.press('End');
    assert.equal(
      await focused(),
      eighth
        .minus({ days: eighth.weekday % 7 })
        .plus({ days: 6 })
        .toISODate(),
      'End: the Saturday',
    );
    await context.close();
  });

  it('refreshes with If-None-Match: 304 while nothing changed, the new event after a change', async () => {
    const { context, page, requests } = await open(`/only?attrs=${encodeURIComponent('view="upcoming" limit="20" refresh="0"')}`);
    await componentLoaded(page);
    const titles = () => page.evaluate(() => Array.from(document.querySelector('events-calendar')!.shadowRoot!.querySelectorAll('a.name')).map((a) => a.textContent));
    assert.deepEqual(await titles(), ['Morning Yoga', 'Harbour Concert', 'New York Jazz', 'Flower Market']);
    const reload = () =>
      page.evaluate(
        () =>
          new Promise<string>((resolve) => {
            const el = document.querySelector('events-calendar') as any;
            el.addEventListener('events-calendar:not-modified', () => resolve('not-modified'), { once: true });
            el.addEventListener('events-calendar:loaded', () => resolve('loaded'), { once: true });
            el.load(false);
          }),
      );
    const seen = requests.length;
    assert.equal(await reload(), 'not-modified');
    await waitFor(() => requests.length > seen);
    const last = requests.at(-1)!;
    assert.equal(last.status, 304);
    assert.ok(last.headers['if-none-match'], 'sent the tag it got');
    assert.equal(last.headers.cookie, undefined);
    await t.api.post('/events', { as: 'admin', json: { title: 'Surprise Show', start_date: `${day(20)} 21:00`, end_date: `${day(20)} 22:00` } });
    const before = requests.length;
    assert.equal(await reload(), 'loaded');
    await waitFor(() => requests.length > before);
    assert.equal(requests.at(-1)!.status, 200);
    assert.ok((await titles()).includes('Surprise Show'));
    await context.close();
  });

  it('shows its states and speaks French from the page language', async () => {
    const { context, page } = await open(`/only?lang=fr&attrs=${encodeURIComponent('view="list" category="no-such-category"')}`);
    await page.waitForFunction(() => document.querySelector('events-calendar')?.shadowRoot?.querySelector('[role=alert]') !== null);
    assert.equal(await page.evaluate(() => document.querySelector('events-calendar')!.shadowRoot!.querySelector('[role=alert]')!.textContent), 'Les événements n’ont pas pu être chargés. Réessayer');
    await context.close();
    const empty = await open(`/only?attrs=${encodeURIComponent('view="upcoming" search="nothing-matches-this"')}`);
    await componentLoaded(empty.page);
    assert.equal(await empty.page.evaluate(() => document.querySelector('events-calendar')!.shadowRoot!.querySelector('[part~=empty]')!.textContent), 'No upcoming events.');
    await empty.context.close();
  });

  it('has no serious accessibility violation: the component page, the iframe view, the snippet page', async () => {
    const failures: string[] = [];
    const check = async (name: string, page: Page) => {
      for (const v of await seriousViolations(page)) failures.push(`${name}: ${v.id} [${v.impact}] ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    };
    for (const attrs of [`view="month" month="${ym}"`, 'view="list"', 'view="upcoming"']) {
      const { context, page } = await open(`/only?attrs=${encodeURIComponent(attrs)}`);
      await componentLoaded(page);
      await check(`component ${attrs}`, page);
      await context.close();
    }
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    for (const path of ['/embed/', `/embed/?view=month&month=${ym}`, '/embed/?view=upcoming&locale=fr', '/embed/snippet?view=month']) {
      await page.goto(t.origin + path);
      if (path.startsWith('/embed/snippet')) await page.waitForFunction(() => document.querySelector('events-calendar')?.shadowRoot?.querySelector('.root:not([aria-busy])') !== null);
      await check(path, page);
    }
    // The snippet page works without script: the form is a GET to itself.
    await page.goto(`${t.origin}/embed/snippet`);
    await page.getByLabel('View', { exact: true }).selectOption('upcoming');
    await page.getByLabel('Featured events only').check();
    await page.getByRole('button', { name: 'Make the snippet' }).click();
    await page.waitForURL(/view=upcoming/);
    assert.match((await page.locator('#snippet-component').inputValue()) ?? '', /<events-calendar service="[^"]+" view="upcoming" featured/);
    await context.close();
    assert.deepEqual(failures, []);
  });
});
