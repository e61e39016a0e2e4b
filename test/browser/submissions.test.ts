/**
 * Issue 29 in a real browser (Chromium through playwright-core, on SQLite): the submission form
 * with JavaScript and the proof of work on (the page's script solves the ALTCHA challenge before
 * the form is sent), filled with the keyboard only at 390 px; the status page it leads to; axe-core
 * on the form (empty and with errors) and the status page, with no serious or critical violation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';
import { MOD } from '../support/submissions.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Tab until the element with this id has the focus (at most `max` presses); returns the presses. */
async function tabTo(page: Page, id: string, max = 60): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return i;
  }
  throw new Error(`never reached #${id}`);
}

describe('the submission form in a browser', () => {
  let t: TestServer;
  let browser: Browser;
  let category: number;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { SUBMISSIONS: 'anyone', SUBMISSIONS_POW: 'on', SUBMISSIONS_POW_MAX_NUMBER: '20000', SUBMISSIONS_MIN_FILL: '1s' });
    category = (await t.api.post('/categories', { as: 'admin', json: { name: 'Music' } })).body.id;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is filled and sent with the keyboard at 390 px, with JavaScript solving the proof of work; focus is visible', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${t.origin}/events/submit/`);
    await tabTo(page, 'f-title');
    assert.equal(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'solid', 'the focus is visible');
    await page.keyboard.type('Keyboard concert');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Played with <em>keys</em> only.');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-start-date');
    await page.keyboard.type('08152031');
    await tabTo(page, 'f-start-time', 5);
    await page.keyboard.type('0730PM');
    await tabTo(page, 'f-end-date', 5);
    await page.keyboard.type('08152031');
    await tabTo(page, 'f-end-time', 5);
    await page.keyboard.type('0930PM');
    await tabTo(page, 'f-venue-venue-');
    await page.keyboard.type('Keyboard Hall');
    await tabTo(page, `f-cat-${category}`, 20);
    await page.keyboard.press('Space');
    await tabTo(page, 'f-name');
    await page.keyboard.type('Kim Keys');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kim@example.org');
    // The honeypot is not reachable with Tab: the next stop is the button.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'BUTTON');
    await page.locator('#pow-status').filter({ hasText: 'Check done.' }).waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1000); // SUBMISSIONS_MIN_FILL
    const navigated = page.waitForNavigation();
    await page.keyboard.press('Enter');
    await navigated;
    if (page.url().endsWith('/events/submit/')) assert.fail(`refused: ${await page.locator('#errors').textContent()} ${await page.locator('#f-start-date').inputValue()}`);
    await page.waitForURL(/\/events\/submit\/status\/[A-Za-z0-9_-]{43}\?sent=1$/);
    assert.match((await page.locator('[role=status]').first().textContent()) ?? '', /Thank you/);
    assert.match((await page.locator('#submission-status').textContent()) ?? '', /Waiting for a moderator/);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the status page fits 390 px (${width})`);
    const violations = await seriousViolations(page, AXE_TAGS);
    assert.deepEqual(
      violations.map((v) => `status page: ${v.id} ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
    );
    const queue = await t.api.get(`${MOD}/submissions`, { as: 'admin' });
    const item = queue.body.find((s: any) => s.event.title === 'Keyboard concert');
    assert.ok(item, JSON.stringify(queue.body));
    assert.equal(item.event.start_date, '2031-08-15 19:30:00');
    assert.equal(item.event.venue.venue, 'Keyboard Hall');
    assert.equal(item.submitter.name, 'Kim Keys');
    assert.deepEqual(
      item.event.categories.map((c: { id: number }) => c.id),
      [category],
    );
    await context.close();
  });

  it('has no serious or critical accessibility violations (axe-core) and fits 390 px: the form, with errors, the status page', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const failures: string[] = [];
    const run = async (name: string) => {
      for (const v of await seriousViolations(page, AXE_TAGS)) failures.push(`${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${name} fits 390 px (${width})`);
    };
    await page.goto(`${t.origin}/events/submit/`);
    await run('form');
    await page.locator('#pow-status').filter({ hasText: 'Check done.' }).waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1000);
    await page.locator('button[type=submit]').click();
    await page.locator('#errors[role=alert]').waitFor();
    await run('form with errors');
    const fr = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    const frPage = await fr.newPage();
    await frPage.goto(`${t.origin}/events/submit/`);
    assert.equal(await frPage.getAttribute('html', 'lang'), 'fr');
    for (const v of await seriousViolations(frPage, AXE_TAGS)) failures.push(`form (fr): ${v.id} ${v.help}`);
    await fr.close();
    await context.close();
    assert.deepEqual(failures, []);
  });
});
