/**
 * Password-protected events in a real browser (Chromium, SQLite): an editor ticks "Password
 * protected" in the event editor's publication area, types the password and saves; the event's
 * public page then asks for it (WordPress' password form), shows nothing of the content, and shows
 * the event once the right password is typed (a wrong one asks again). The venue editor's choice is
 * saved the same way. axe-core on the editor and on the public page, at 390 px and on desktop, in
 * English and French (the admin app's catalogues; the public pages are English).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations, signInAdmin } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

async function axe(page: Page, where: string): Promise<string[]> {
  return (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('password-protected events in the browser', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    await t.user('editor', 'edna');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the editor sets a password; the public page asks for it, then shows the event', async () => {
    const failures: string[] = [];
    for (const [width, french] of [
      [1280, false],
      [390, false],
      [390, true],
      [1280, true],
    ] as const) {
      const where = `${width} px${french ? ' fr' : ''}`;
      const created = await t.api.post('/events', {
        as: 'admin',
        json: { title: `Members night ${where}`, description: 'The hidden programme', start_date: '2031-06-01 19:00', end_date: '2031-06-01 21:00', status: 'publish' },
      });
      assert.equal(created.status, 201, created.text);
      const { id, url } = created.body as { id: number; url: string };

      const editor = await signInAdmin(browser, t.origin, 'edna', { width, french });
      await editor.goto(`${t.origin}/admin/events/${id}`);
      await editor.locator('#f-title').waitFor();
      const protect = editor.getByLabel(french ? 'Protégé par mot de passe' : 'Password protected', { exact: true });
      await protect.check();
      const password = editor.locator('#f-password');
      await password.waitFor();
      await password.fill('open sesame');
      failures.push(...(await axe(editor, `editor ${where}`)));
      const wide = await editor.evaluate(() => document.documentElement.scrollWidth);
      if (wide > width) failures.push(`the editor is ${wide} px wide at ${width}`);
      await editor.getByRole('button', { name: /^(Save|Enregistrer)$/ }).click();
      await editor
        .getByText(/^(Saved\.|Enregistré\.)$/)
        .first()
        .waitFor();
      assert.equal((await t.api.get(`/api/calendar/admin/v1/events/${id}`, { as: 'admin' })).body.password, 'open sesame', `${where}: saved`);
      // Loaded again, the editor shows the choice and the password.
      await editor.reload();
      await editor.locator('#f-password').waitFor();
      assert.equal(await editor.locator('#f-password').inputValue(), 'open sesame');
      assert.ok(await protect.isChecked());
      await editor.context().close();

      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const reader = await context.newPage();
      await reader.goto(url);
      await reader.getByRole('heading', { level: 1, name: `Protected: Members night ${where}` }).waitFor();
      assert.ok(!(await reader.content()).includes('hidden programme'), `${where}: nothing of the content before the password`);
      failures.push(...(await axe(reader, `public page ${where}`)));
      const readerWide = await reader.evaluate(() => document.documentElement.scrollWidth);
      if (readerWide > width) failures.push(`the public page is ${readerWide} px wide at ${width}`);
      await reader.getByLabel('Password:').fill('wrong');
      await reader.getByRole('button', { name: 'Enter' }).click();
      await reader.getByRole('alert').waitFor();
      assert.ok(!(await reader.content()).includes('hidden programme'));
      failures.push(...(await axe(reader, `public page, wrong password ${where}`)));
      await reader.getByLabel('Password:').fill('open sesame');
      await reader.getByRole('button', { name: 'Enter' }).click();
      await reader.getByText('The hidden programme').waitFor();
      assert.equal(await reader.locator('form.post-password-form').count(), 0);
      await context.close();
    }
    assert.deepEqual(failures, []);
  });

  it("the venue editor's choice protects the venue", async () => {
    const venue = await t.api.post('/venues', { as: 'admin', json: { venue: 'Back room', address: '9 Quiet lane' } });
    const editor = await signInAdmin(browser, t.origin, 'edna', { width: 390, french: true });
    await editor.goto(`${t.origin}/admin/venues/${venue.body.id}`);
    const protect = editor.getByLabel('Protégé par mot de passe', { exact: true });
    await protect.waitFor();
    await protect.check();
    await editor.getByLabel('Mot de passe', { exact: true }).fill('lane');
    const failures = await axe(editor, 'venue editor 390 px fr');
    await editor.getByRole('button', { name: /^Enregistrer$/ }).click();
    await editor
      .getByText(/^Enregistré\.$/)
      .first()
      .waitFor();
    assert.equal((await t.api.get(`/api/calendar/admin/v1/venues/${venue.body.id}`, { as: 'admin' })).body.password, 'lane');
    // The editor reloads the venue whole (the edit context), its address kept.
    assert.equal((await t.api.get(`/venues/${venue.body.id}`, { as: 'admin', query: { context: 'edit' } })).body.address, '9 Quiet lane');
    assert.equal((await t.api.get(`/venues/${venue.body.id}`)).body.address, '');
    await editor.context().close();
    assert.deepEqual(failures, []);
  });
});
