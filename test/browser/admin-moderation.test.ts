/**
 * Issue 29's moderation screen (the admin app's `moderation` plug-in) in a real browser (Chromium,
 * SQLite): a visitor proposes an event through the form (no JavaScript), an editor signs in, finds
 * it in the queue (with its duplicate flag), opens it, asks for changes (the reason reaches the
 * submitter's status page), the visitor edits it, and the editor approves it: the event is public.
 * Rejection and bulk actions from the queue; axe-core on the queue, the detail and the log, at 390 px.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';
import { EVENT, OPEN, submit } from '../support/submissions.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainImage } from '../support/media.js';

// The picture sent with a proposal is kept in a media folder of the test's own.
const mediaDir = mkdtempSync(join(tmpdir(), 'moderation-media-'));
after(() => rmSync(mediaDir, { recursive: true, force: true }));

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

async function signIn(page: Page, t: TestServer, login: string, password: string): Promise<void> {
  await page.goto(`${t.origin}/admin/login`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(password);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
}

describe('the moderation screen in a browser', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { ...OPEN, MEDIA_DIR: mediaDir });
    await t.built.services.users.add({ login: 'ed', role: 'editor', password: 'ed-password-1', email: 'ed@example.org' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an editor approves a submission made through the form, after asking for changes', async () => {
    // The visitor, without JavaScript.
    const visitor = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const form = await visitor.newPage();
    await form.goto(`${t.origin}/events/submit/`);
    await form.locator('#f-title').fill('Harbour lights');
    await form.locator('#f-start-date').fill('2031-10-02');
    await form.locator('#f-start-time').fill('19:00');
    await form.locator('#f-end-date').fill('2031-10-02');
    await form.locator('#f-end-time').fill('21:00');
    await form.locator('#f-venue-venue-').fill('Harbour quay');
    await form.locator('#f-name').fill('Vera Visitor');
    await form.locator('#f-email').fill('vera@example.org');
    // A picture from the device, with its description (the form is multipart).
    await form.locator('#f-picture').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: await plainImage(800, 500, 'png') });
    await form.locator('#f-picture-alt').fill('Lights on the harbour');
    await form.locator('button[type=submit]').click();
    await form.waitForURL(/\/events\/submit\/status\//);
    const statusUrl = form.url().split('?')[0]!;

    const editor = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await editor.newPage();
    await signIn(page, t, 'ed', 'ed-password-1');
    await page.goto(`${t.origin}/admin/moderation`);
    const link = page.getByRole('link', { name: 'Harbour lights' });
    await link.waitFor();
    assert.match((await page.locator('table').textContent()) ?? '', /Vera Visitor <vera@example.org>/);
    await link.click();
    await page.waitForURL(/\/admin\/moderation\/\d+$/);
    await page.getByRole('heading', { name: 'Submission: Harbour lights' }).waitFor();
    assert.match((await page.locator('#submission-status').textContent()) ?? '', /Pending/);
    // The moderator sees the picture sent with it.
    const picture = page.getByRole('img', { name: 'The picture sent with the proposal (opens the full size)' });
    await picture.waitFor();
    await picture.evaluate((el: HTMLImageElement) => (el.complete ? undefined : new Promise((resolve) => el.addEventListener('load', resolve, { once: true }))));
    assert.ok(await picture.evaluate((el: HTMLImageElement) => el.naturalWidth > 0), 'the picture loads');

    // Ask for changes (the reason is required).
    await page.locator('#changes-reason').fill('Please add the organizer.');
    await page.locator('section[aria-labelledby=sub-changes] button[type=submit]').click();
    await page.locator('#submission-status').filter({ hasText: 'Changes requested' }).waitFor();
    await form.goto(statusUrl);
    assert.match((await form.locator('#submission-reason').textContent()) ?? '', /Please add the organizer\./);
    await form.locator('#f-organizer-organizer-').fill('Harbour Friends');
    await form.locator('#edit-form button[type=submit]').click();
    await form.waitForLoadState();
    assert.match((await form.locator('#submission-status').textContent()) ?? '', /Waiting for a moderator/);

    // Approve.
    await page.reload();
    await page.locator('#submission-status').filter({ hasText: 'Pending' }).waitFor();
    await page.getByRole('button', { name: 'Approve and publish' }).click();
    await page.locator('#submission-status').filter({ hasText: 'Approved' }).waitFor();
    const log = (await page.locator('ol.log').textContent()) ?? '';
    assert.match(log, /Approved · ed/);
    assert.match(log, /Changes requested · ed/);
    assert.match(log, /Sent again · the submitter/);
    const list = await t.api.get('/events', { query: { start_date: '2031-10-01', end_date: '2031-10-31' } });
    assert.deepEqual(
      list.body.events.map((e: { title: string }) => e.title),
      ['Harbour lights'],
    );
    assert.equal(list.body.events[0].organizer[0].organizer, 'Harbour Friends');
    assert.deepEqual(Object.keys(list.body.events[0].image.sizes), ['medium', 'thumbnail', 'medium_large']);
    assert.match((await t.api.get(list.body.events[0].url)).text, /<img [^>]*alt="Lights on the harbour"/);
    await form.goto(statusUrl);
    assert.match((await form.locator('#submission-status').textContent()) ?? '', /Approved/);
    await visitor.close();
    await editor.close();
  });

  it('rejects with a reason and acts on a selection from the queue; axe-core finds no serious violation', async () => {
    const a = await submit(t, { ...EVENT, title: 'Bulk A' });
    const b = await submit(t, { ...EVENT, title: 'Bulk A', email: 'other@example.org' });
    const c = await submit(t, { ...EVENT, title: 'Reject me' });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const failures: string[] = [];
    const run = async (name: string) => {
      for (const v of await seriousViolations(page, AXE_TAGS)) failures.push(`${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${name} fits 390 px (${width})`);
    };
    await signIn(page, t, 'ed', 'ed-password-1');
    await page.goto(`${t.origin}/admin/moderation`);
    await page.getByRole('link', { name: 'Reject me' }).waitFor();
    assert.equal(await page.getByText('Possible duplicate', { exact: true }).count(), 1, 'the second "Bulk A" is flagged');
    await run('queue');

    await page.getByRole('link', { name: 'Reject me' }).click();
    await page.getByRole('heading', { name: 'Submission: Reject me' }).waitFor();
    await run('detail');
    await page.locator('section[aria-labelledby=sub-reject] button[type=submit]').click();
    await page.getByText('Give a reason.').first().waitFor();
    await page.locator('#reject-reason').fill('Duplicate of an existing listing');
    await page.locator('section[aria-labelledby=sub-reject] button[type=submit]').click();
    await page.locator('#submission-status').filter({ hasText: 'Rejected' }).waitFor();
    assert.equal((await t.api.get(`/api/calendar/submissions/v1/submissions/${c.body.token}`)).body.reason, 'Duplicate of an existing listing');

    await page.getByRole('link', { name: 'Back to the list' }).click();
    await page.getByRole('link', { name: 'Bulk A' }).first().waitFor();
    for (const box of await page.locator('tbody input[type=checkbox]').all()) await box.check();
    await page.locator('#f-bulk-action').selectOption('approve');
    await run('queue with a selection');
    await page.getByRole('button', { name: 'Apply to the selection' }).click();
    await page.getByText(/done, 0 failed/).waitFor();
    for (const s of [a, b]) assert.equal((await t.api.get(`/api/calendar/submissions/v1/submissions/${s.body.token}`)).body.status, 'approved');

    await page.goto(`${t.origin}/admin/moderation/log`);
    await page.getByRole('heading', { name: 'Moderation log' }).waitFor();
    assert.match((await page.locator('ol.log').textContent()) ?? '', /Rejected · ed/);
    await run('log');
    await context.close();
    assert.deepEqual(failures, []);
  });
});
