/**
 * Series as people think of them, in the admin app and on the pages (Chromium, SQLite), at 390 px
 * and on desktop, in English and French: a series' dates are one row of the events list that opens
 * into them (loaded on open); a bulk "Move to trash" on that row trashes the whole series; the
 * editor's "Move to trash" offers Undo in a toast that takes the focus and covers neither Save nor
 * the trash/restore button (checked with elementFromPoint at each button's centre), and Undo brings
 * the event (or the whole series) back; axe-core finds nothing serious on the list, the editor with
 * its toast, an occurrence's public page, a list page and a draft's preview page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations, signInAdmin } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const VARIANTS = [
  { name: 'desktop, English', width: 1280, french: false },
  { name: '390 px, English', width: 390, french: false },
  { name: 'desktop, French', width: 1280, french: true },
  { name: '390 px, French', width: 390, french: true },
];

async function axe(page: Page, where: string): Promise<string[]> {
  return (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Whether the button is what a click at its centre reaches (nothing drawn over it): where it is
 * now, and with the page scrolled so that its centre sits at a quarter, half, three quarters and
 * 95 % of the viewport's height (a toast fixed in a corner covered whatever scrolled under it).
 */
async function reachable(page: Page, button: Locator): Promise<boolean> {
  // No named functions inside: the page would not know the helper the test's compiler adds to them.
  return button.evaluate((el) => {
    for (const at of [-1, 0.25, 0.5, 0.75, 0.95]) {
      if (at >= 0) {
        const r = el.getBoundingClientRect();
        window.scrollBy(0, r.y + r.height / 2 - innerHeight * at);
        const now = el.getBoundingClientRect();
        // Positions the page cannot scroll to (the button near its top or bottom) are skipped.
        if (Math.abs(now.y + now.height / 2 - innerHeight * at) > 4) continue;
      }
      const r = el.getBoundingClientRect();
      // Where it is now: only when it is in view (the focus went to Undo, at the top).
      if (r.y + r.height / 2 < 0 || r.y + r.height / 2 > innerHeight) continue;
      const found = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      if (found === null || (el !== found && !el.contains(found))) return false;
    }
    return true;
  });
}

describe('series in the admin app and on the pages', () => {
  let t: TestServer;
  let browser: Browser;

  const createSeries = async (title: string) => {
    const res = await t.api.post('/events', {
      as: 'admin',
      json: { title, status: 'publish', start_date: '2027-03-02 19:00', end_date: '2027-03-02 21:00', timezone: 'Europe/Paris', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] },
    });
    assert.equal(res.status, 201, res.text);
    const occ = await t.api.get('/events', { as: 'admin', query: { start_date: '2027-01-01', end_date: '2027-12-31', post_parent: res.body.id, status: 'any', per_page: 50 } });
    return { id: res.body.id as number, occurrences: occ.body.events as Array<{ id: number; url: string }> };
  };
  const statusesOf = async (seriesId: number) =>
    (
      (await t.api.get('/events', { as: 'admin', query: { start_date: '2027-01-01', end_date: '2027-12-31', post_parent: seriesId, status: 'publish,draft,trash', per_page: 50 } })).body
        .events as Array<{
        status: string;
      }>
    ).map((e) => e.status);

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    await t.user('editor', 'sera');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const v of VARIANTS) {
    it(`the list's series row opens into its dates; a bulk trash takes the whole series (${v.name})`, async () => {
      const title = `Choir ${v.width} ${v.french ? 'fr' : 'en'}`;
      const series = await createSeries(title);
      const page = await signInAdmin(browser, t.origin, 'sera', { width: v.width, french: v.french });
      const problems: string[] = [];
      await page.goto(`${t.origin}/admin/events?search=${encodeURIComponent(title)}`);
      const row = page.locator('.series-row');
      await row.first().waitFor();
      assert.equal(await row.count(), 1, 'six dates, one row');
      await page.locator('.series-summary').filter({ hasText: /6/ }).waitFor();
      const toggle = page.locator('.series-toggle');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.locator('.series-dates li').count(), 0, 'dates are loaded on open');
      await toggle.focus();
      await page.keyboard.press('Enter');
      await page.locator('.series-dates li').nth(5).waitFor();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await page.locator('.series-dates li').count(), 6);
      problems.push(...(await axe(page, `list with a series open (${v.name})`)));

      // Bulk: select the series row, move it to the trash: every date goes.
      await page.locator('table input[type="checkbox"]').nth(1).check();
      await page.locator('select[name="bulk"]').selectOption('trash');
      await page.locator('.bulk button').click();
      await page.locator('dialog.dialog button.danger').click();
      await page.locator('.toast').first().waitFor();
      for (let i = 0; i < 50 && (await statusesOf(series.id)).some((s) => s !== 'trash'); i++) await page.waitForTimeout(100);
      assert.deepEqual(await statusesOf(series.id), Array(6).fill('trash'));
      assert.deepEqual(problems, []);
      await page.context().close();
    });

    it(`the editor's Move to trash offers Undo that covers no control, for an event and a whole series (${v.name})`, async () => {
      const single = await t.api.post('/events', { as: 'admin', json: { title: `Talk ${v.name}`, status: 'draft', start_date: '2027-05-04 10:00', end_date: '2027-05-04 11:00' } });
      const series = await createSeries(`Yoga ${v.width} ${v.french ? 'fr' : 'en'}`);
      const page = await signInAdmin(browser, t.origin, 'sera', { width: v.width, french: v.french });
      const problems: string[] = [];

      await page.goto(`${t.origin}/admin/events/${single.body.id}`);
      await page.locator('#f-title').waitFor();
      const trash = page.locator('.event-actions button.danger');
      await trash.click();
      const undo = page.locator('.toast .toast-action');
      await undo.waitFor();
      assert.ok(await undo.evaluate((el) => el === document.activeElement), 'Undo has the focus');
      assert.equal((await t.api.get(`/events/${single.body.id}`, { as: 'admin' })).status, 403, 'trashed');
      const save = page.locator('form button[type="submit"]').first();
      const restore = page.locator('.event-actions button').first();
      assert.ok(await reachable(page, save), 'the toast does not cover Save');
      assert.ok(await reachable(page, restore), 'the toast does not cover the trash/restore button');
      // Nor any other button beside them (Publish, Copy preview link).
      for (const button of await page.locator('form .actions button, .event-actions button').all()) {
        assert.ok(await reachable(page, button), `the toast does not cover "${await button.innerText()}"`);
      }
      await undo.scrollIntoViewIfNeeded();
      problems.push(...(await axe(page, `editor with the Undo toast (${v.name})`)));
      await undo.focus();
      await page.keyboard.press('Enter');
      for (let i = 0; i < 50 && (await t.api.get(`/events/${single.body.id}`, { as: 'admin' })).status !== 200; i++) await page.waitForTimeout(100);
      const back = await t.api.get(`/events/${single.body.id}`, { as: 'admin' });
      assert.equal(back.status, 200);
      assert.equal(back.body.status, 'draft', 'back with the status it had');
      await page.locator('.event-actions button.danger').waitFor();

      // An occurrence: "The whole series", then Undo brings every date back.
      await page.goto(`${t.origin}/admin/events/${series.occurrences[2]!.id}`);
      await page.locator('#f-title').waitFor();
      await page.locator('.event-actions button.danger').click();
      await page.locator('dialog.dialog').waitFor();
      problems.push(...(await axe(page, `trash scope question (${v.name})`)));
      await page.locator('dialog.dialog button', { hasText: v.french ? 'Toute la série' : 'The whole series' }).click();
      await page.locator('.toast .toast-action').waitFor();
      assert.deepEqual(await statusesOf(series.id), Array(6).fill('trash'));
      assert.ok(await reachable(page, page.locator('form button[type="submit"]').first()), 'Save not covered');
      await page.locator('.toast .toast-action').click();
      for (let i = 0; i < 50 && (await statusesOf(series.id)).some((s) => s !== 'publish'); i++) await page.waitForTimeout(100);
      assert.deepEqual(await statusesOf(series.id), Array(6).fill('publish'));
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }

  it('the pages of a series and a draft’s preview pass axe at 390 px and on desktop', async () => {
    const series = await createSeries('Public Series Page');
    const draft = await t.api.post('/events', { as: 'admin', json: { title: 'Preview Me', status: 'draft', start_date: '2027-07-01 10:00', end_date: '2027-07-01 11:00' } });
    const link = await t.api.post('/api/calendar/admin/v1/events/' + draft.body.id + '/preview', { as: 'admin' });
    assert.equal(link.status, 200);
    const problems: string[] = [];
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      for (const [name, url] of [
        ['occurrence page', series.occurrences[1]!.url],
        ['list page', `${t.origin}/events/list/`],
        ['month page', `${t.origin}/events/month/2027-03/`],
        ['preview page', link.body.url as string],
      ] as const) {
        const res = await page.goto(url);
        assert.equal(res?.status(), 200, `${name} ${url}`);
        problems.push(...(await axe(page, `${name} at ${width}`)));
      }
      assert.match(await page.locator('.preview-banner').innerText(), /Preview/);
      await context.close();
    }
    assert.deepEqual(problems, []);
  });
});
