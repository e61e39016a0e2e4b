/**
 * Imports that tell the truth, webhooks and embeds in a real browser (Chromium through
 * playwright-core, SQLite): a dry-run import is marked and says "would be created"; a real one
 * updates the history live, links to the events it wrote and lists its unknown locations for
 * review (one created in a click); a webhook endpoint's "Send a test delivery" reaches the test
 * receiver and says so, and the event types offered include submission.*; the Embed screen's
 * pickers and copy button, and the FullCalendar code it gives, pasted into a page of another
 * origin, renders the calendar's events with the chosen first day of the week. axe-core (WCAG 2.2
 * AA rules) on each screen at 390 px and on a desktop, in English and in French.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DateTime } from 'luxon';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const A = '/api/calendar/admin/v1';

const ics = (prefix: string, location: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...[1, 2, 3].flatMap((n) => [
      'BEGIN:VEVENT',
      `UID:${prefix}-${n}@test`,
      `SUMMARY:${prefix} ${n}`,
      `DTSTART:2031050${n}T100000Z`,
      `DTEND:2031050${n}T110000Z`,
      `LOCATION:${location}`,
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

async function signIn(browser: Browser, origin: string, options: { width?: number; french?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  await page.goto(`${origin}/admin/login`);
  await page.locator('#user_login').fill(ADMIN.login);
  await page.locator('#user_pass').fill(ADMIN.password);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
  await page.locator('h1').waitFor();
  if (options.french) {
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor();
  }
  return { context, page };
}

async function open(page: Page, origin: string, path: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${origin}/admin${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

describe('imports, webhooks and embeds in the admin app', () => {
  let t: TestServer;
  let browser: Browser;
  let receiver: Receiver;
  let other: Server;
  let otherOrigin = '';
  let pasted = '';
  let endpointId = 0;
  let importId = 0;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '200ms', CALENDAR_WEEK_START: 'monday' });
    browser = await launchBrowser();
    receiver = await startReceiver();
    // Another site (another origin) where the copied FullCalendar code is pasted.
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another site</title></head><body><main><h1>Our events</h1>${pasted}</main></body></html>`);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
    const music = await t.api.post('/categories', { as: 'admin', json: { name: 'Music' } });
    const month = DateTime.utc().startOf('month');
    for (const [title, day, categories] of [
      ['Harbour Concert', 10, [music.body.id]],
      ['Jazz Night', 12, [music.body.id]],
      ['Flower Market', 14, []],
    ] as const) {
      const date = month.plus({ days: day - 1 }).toISODate();
      const res = await t.api.post('/events', { as: 'admin', json: { title, start_date: `${date} 10:00:00`, end_date: `${date} 11:00:00`, status: 'publish', categories } });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await new Promise((r) => other?.close(r));
    await t?.close();
  });

  it('a dry run is marked and says "would"; a real import updates the history live, links to its events and lists new venues for review', async () => {
    const { context, page } = await signIn(browser, t.origin);
    await open(page, t.origin, '/import-export', 'Import and export');
    await page.locator('#f-file').setInputFiles({ name: 'dry.ics', mimeType: 'text/calendar', buffer: Buffer.from(ics('Dry', 'Moonbase Alpha')) });
    await page.getByLabel('Dry run (write nothing, report what would happen)').check();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: /^Import \d+: dry\.ics Dry run$/ }).waitFor();
    await page.locator('#import-status').filter({ hasText: 'Done' }).waitFor({ timeout: 30_000 });
    await page.locator('#import-counts').filter({ hasText: '3 would be created' }).waitFor();
    await page.getByText('1 new venue for review').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create the venue Moonbase Alpha' }).count(), 0, 'nothing to create on a dry run');
    const history = page.getByRole('table', { name: 'Recent imports' });
    await history.getByRole('row').filter({ hasText: 'dry.ics' }).filter({ hasText: 'Dry run' }).waitFor();

    // A real one: the history row follows it to Done without a reload.
    await page.getByLabel('Dry run (write nothing, report what would happen)').uncheck();
    await page.locator('#f-file').setInputFiles({ name: 'club.ics', mimeType: 'text/calendar', buffer: Buffer.from(ics('Club', 'Room 12B')) });
    await page.getByRole('button', { name: 'Start the import' }).click();
    const heading = page.getByRole('heading', { name: /^Import \d+: club\.ics$/ });
    await heading.waitFor();
    importId = Number(/Import (\d+)/.exec((await heading.textContent()) ?? '')![1]);
    await history.getByRole('row').filter({ hasText: 'club.ics' }).filter({ hasText: 'Done' }).waitFor({ timeout: 30_000 });
    await page.locator('#import-counts').filter({ hasText: '3 created' }).waitFor();
    await page.getByRole('heading', { name: '3 events written' }).waitFor();
    const links = page.locator('.written-events a');
    assert.equal(await links.count(), 3);
    const ids = (await t.api.get(`${A}/imports/${importId}`, { as: 'admin' })).body.counts.events.created as number[];
    assert.equal(await links.first().getAttribute('href'), `/admin/events/${ids[0]}`);
    await page.getByRole('link', { name: 'Club 1 (created)' }).waitFor();

    // The location waits for review; one click makes the venue and gives it to the events.
    await page.getByRole('button', { name: 'Create the venue Room 12B' }).click();
    await page.getByRole('link', { name: 'Open the venue Room 12B' }).waitFor();
    const event = await t.api.get(`/events/${ids[0]}`, { as: 'admin' });
    assert.equal(event.body.venue.venue, 'Room 12B');

    // The export narrowed to a category, named after the site.
    await page.getByRole('combobox', { name: 'Category' }).fill('Mus');
    await page.getByRole('option', { name: /Music/ }).click();
    const href = (await page.locator('#export-ics').getAttribute('href')) ?? '';
    assert.match(href, /format=ics/);
    assert.match(href, /category=\d+/);

    await links.first().click();
    await page.waitForURL(new RegExp(`/admin/events/${ids[0]}$`));
    await context.close();
  });

  it('webhooks: "Send a test delivery" reaches the endpoint and says so; the event types include submission.*', async () => {
    const made = await t.api.post(`${A}/webhooks`, { as: 'admin', json: { url: `${receiver.url}/browser`, events: ['event.created'] } });
    endpointId = made.body.id;
    receiver.secret = made.body.secret;
    const { context, page } = await signIn(browser, t.origin);
    await open(page, t.origin, `/webhooks/${endpointId}`, /^Endpoint/);
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    await page.locator('#test-result').filter({ hasText: 'Delivered: the endpoint answered 200' }).waitFor();
    const [got] = await receiver.waitFor((m) => m.path.endsWith('/browser') && m.body.type === 'webhook.test');
    assert.equal(got!.verified, true);
    await page.getByRole('checkbox', { name: 'submission.received' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'submission.changes_requested' }).count(), 1);

    receiver.respond = () => 500;
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    await page.locator('#test-result').filter({ hasText: 'Not delivered' }).waitFor();
    receiver.respond = () => 200;
    await context.close();
  });

  it('the Embed screen: pickers, copy, and the FullCalendar code renders the events on another site', async () => {
    const { context, page } = await signIn(browser, t.origin);
    await open(page, t.origin, '/embed', 'Embed the calendar on another site');
    await page.getByRole('combobox', { name: 'Category' }).fill('Mus');
    await page.getByRole('option', { name: /Music/ }).click();
    await page.getByLabel('Language').last().selectOption('fr');
    await page.getByLabel('Weeks start on').selectOption('0');
    const code = page.locator('#snippet-fullcalendar');
    await page.waitForFunction(() => {
      const v = (document.querySelector('#snippet-fullcalendar') as HTMLTextAreaElement | null)?.value ?? '';
      return v.includes('firstDay: 0') && v.includes("locale: 'fr'") && v.includes('"categories":"music"');
    });
    await page.getByRole('button', { name: 'Copy the FullCalendar code' }).click();
    await page.locator('#embed-copied').filter({ hasText: 'Copied' }).waitFor();
    const clipboard = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(clipboard, await code.inputValue(), 'the clipboard holds the code shown');
    await context.close();

    // Pasted as it is into a page of another origin: FullCalendar's global build loads (its SRI
    // checked by the browser), reads the event source, and shows the category's events.
    pasted = clipboard;
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const site = await visitor.newPage();
    const failed: string[] = [];
    site.on('requestfailed', (r) => failed.push(r.url()));
    site.on('console', (m) => m.type() === 'error' && failed.push(m.text()));
    await site.goto(otherOrigin + '/');
    await site.waitForFunction(() => document.querySelectorAll('#events-calendar .fc-daygrid-event').length >= 2, undefined, { timeout: 20_000 });
    const titles = await site.locator('#events-calendar .fc-event-title').allTextContents();
    assert.deepEqual(titles.sort(), ['Harbour Concert', 'Jazz Night'], 'the category only');
    const firstColumn = await site.locator('#events-calendar .fc-col-header-cell').first().textContent();
    assert.match(firstColumn ?? '', /^dim/i, 'weeks start on Sunday, in French');
    assert.deepEqual(failed, []);
    await visitor.close();
  });

  it('has no serious or critical accessibility violations, at 390 px and on a desktop, in English and in French', async () => {
    for (const french of [false, true]) {
      for (const width of [390, 1280]) {
        const { context, page } = await signIn(browser, t.origin, { width, french });
        for (const [path, heading] of [
          [`/import-export?import=${importId}`, french ? 'Import et export' : 'Import and export'],
          [`/webhooks/${endpointId}`, french ? /^Point d/ : /^Endpoint/],
          ['/embed', french ? 'Intégrer le calendrier à un autre site' : 'Embed the calendar on another site'],
        ] as const) {
          await page.goto(`${t.origin}/admin${path}`);
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          if (path.startsWith('/import-export')) await page.locator('#import-counts').waitFor();
          if (path === '/embed') await page.locator('#snippet-fullcalendar').waitFor();
          if (path.startsWith('/webhooks')) {
            await page.locator('#send-test').click();
            await page.locator('#test-result.notice').waitFor();
          }
          const heads = await page.getByRole('heading', { level: 1 }).allTextContents();
          assert.ok(
            heads.some((h) => (typeof heading === 'string' ? h === heading : heading.test(h))),
            `${path}: ${heads.join(' | ')}`,
          );
          const violations = await seriousViolations(page, AXE_TAGS);
          assert.deepEqual(
            violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
            [],
            `${path} at ${width} px${french ? ' (fr)' : ''}`,
          );
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 1, `${path} at ${width} px: no sideways scrolling (${overflow} px)`);
        }
        await context.close();
      }
    }
  });
});
