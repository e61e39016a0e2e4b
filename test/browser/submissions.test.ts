/**
 * Issue 29 in a real browser (Chromium through playwright-core, on SQLite): the submission form
 * with JavaScript and the proof of work on (the page's script solves the ALTCHA challenge before
 * the form is sent), filled with the keyboard only at 390 px; the status page it leads to; axe-core
 * on the form (empty and with errors) and the status page, with no serious or critical violation;
 * and the public side: the site's header, a keyboard-only submission that first fails (every error
 * listed at once, each summary link leading to its field) then succeeds, axe-core clean at 390 px
 * and on a desktop, in English and in French.
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

  for (const lang of ['en', 'fr'] as const) {
    it(`keyboard only (${lang}): every error at once, a summary link leads to its field, then the proposal is sent; axe-core clean at 390 px and on a desktop`, async () => {
      const words =
        lang === 'fr'
          ? { propose: 'Proposer un événement', done: 'Vérification terminée.', sent: /Merci/, waiting: /En attente/ }
          : { propose: 'Propose an event', done: 'Check done.', sent: /Thank you/, waiting: /Waiting for a moderator/ };
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        ...(lang === 'fr' ? { locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9' } } : {}),
      });
      const page = await context.newPage();
      const failures: string[] = [];
      const check = async (name: string) => {
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          for (const v of await seriousViolations(page, AXE_TAGS)) failures.push(`${name} at ${width} px: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scroll <= width, `${name} fits ${width} px (${scroll})`);
        }
        await page.setViewportSize({ width: 390, height: 844 });
      };
      await page.goto(`${t.origin}/events/submit/`);
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      assert.equal(await page.locator('header.site-header a.propose[aria-current=page]').textContent(), words.propose);
      assert.equal(await page.locator('#f-timezone').inputValue(), 'UTC', 'the site zone is chosen');
      await check('form');
      // The header comes first: the skip link, the site's name, its views, the form's own link.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
      await tabTo(page, 'f-title');
      await page.keyboard.type(`Keys ${lang}`);
      await page.locator('#pow-status').filter({ hasText: words.done }).waitFor({ timeout: 60_000 });
      await page.waitForTimeout(1000); // SUBMISSIONS_MIN_FILL
      let navigated = page.waitForNavigation();
      await page.keyboard.press('Enter');
      await navigated;
      const links = await page.locator('#errors a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.deepEqual([...links].sort(), ['#f-email', '#f-end-date', '#f-name', '#f-start-date'], 'every error at once');
      for (const href of links) assert.equal(await page.locator(`${href}[aria-invalid=true]`).count(), 1, `${href} is marked invalid`);
      assert.equal(await page.locator('#f-title').inputValue(), `Keys ${lang}`, 'what was typed stays');
      await check('form with errors');
      // From the top: the summary's first link, followed with Enter, leads to its field.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('Tab');
      for (let i = 0; i < 20 && !(await page.evaluate(() => !!document.activeElement?.closest('#errors'))); i++) await page.keyboard.press('Tab');
      const first = await page.evaluate(() => document.activeElement?.getAttribute('href'));
      assert.ok(first && links.includes(first), `the summary's links are reached with Tab (${first})`);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
      assert.equal(await page.evaluate(() => `#${document.activeElement?.id}`), first, 'the link leads to its field');
      await tabTo(page, 'f-start-date');
      await page.keyboard.type('09202031');
      await tabTo(page, 'f-end-date', 10);
      await page.keyboard.type('09202031');
      await tabTo(page, 'f-name');
      await page.keyboard.type('Kim Keys');
      await page.keyboard.press('Tab');
      await page.keyboard.type(`kim-${lang}@example.org`);
      await page.locator('#pow-status').filter({ hasText: words.done }).waitFor({ timeout: 60_000 });
      await page.waitForTimeout(1000);
      navigated = page.waitForNavigation();
      await page.keyboard.press('Enter');
      await navigated;
      await page.waitForURL(/\/events\/submit\/status\/[A-Za-z0-9_-]{43}\?sent=1$/);
      assert.match((await page.locator('[role=status]').first().textContent()) ?? '', words.sent);
      assert.match((await page.locator('#submission-status').textContent()) ?? '', words.waiting);
      assert.match((await page.locator('#submission-when').textContent()) ?? '', lang === 'fr' ? /^samedi 20 septembre 2031/ : /^Saturday 20 September 2031/);
      await check('status page');
      await context.close();
      assert.deepEqual(failures, []);
    });
  }
});
