/**
 * Editing in the admin app (Chromium, SQLite): fast typing (no delay, 5 ms: text expanders,
 * dictation) gives exactly the typed text in the description and the title.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser } from '../support/browser.js';

async function signIn(browser: Browser, t: TestServer, login: string, options: { width?: number; french?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${t.origin}/admin/`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(`${login}-pw`);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
  await page.locator('h1').waitFor();
  if (options.french) {
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor();
  }
  return page;
}

async function openEditor(page: Page, t: TestServer, id: number): Promise<void> {
  await page.goto(`${t.origin}/admin/events/${id}`);
  await page.locator('.ql-editor').waitFor();
  await page.locator('#f-title').waitFor();
}

const save = (page: Page) => page.getByRole('button', { name: /^(Save|Enregistrer)$/ }).click();
const saved = (page: Page) =>
  page
    .getByText(/^(Saved\.|Enregistré\.)$/)
    .first()
    .waitFor();

describe('editing together in the admin app', () => {
  let t: TestServer;
  let browser: Browser;
  const event = async (title: string) =>
    (
      await t.api.post('/events', {
        as: 'admin',
        json: { title, excerpt: 'Base excerpt', website: 'https://example.org/base', start_date: '2027-06-01 19:00', end_date: '2027-06-01 21:00', status: 'publish' },
      })
    ).body.id as number;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    await t.user('editor', 'edna');
    await t.user('editor', 'eve');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const TEXT =
    'Fast typing, as text expanders and dictation produce it: "quotes", (parentheses), 50% off & more!\n' +
    'Second line; with semicolons: colons, and a question? Yes. Numbers 1234567890 and symbols #@*+=.\n' +
    'Third line: the quick brown fox jumps over the lazy dog, then again - the end. Fourth: all done, truly!!!';

  for (const delay of [0, 5]) {
    it(`keeps every character in order when typing fast (delay ${delay} ms)`, async () => {
      assert.equal(TEXT.length, 300);
      const id = await event(`Typing ${delay}`);
      const page = await signIn(browser, t, 'edna');
      await openEditor(page, t, id);
      await page.locator('.ql-editor').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type(TEXT, { delay });
      await page.locator('#f-title').click();
      await page.keyboard.press('End');
      await page.keyboard.type(' – typed fast, with punctuation: (a), b; c!', { delay });
      await save(page);
      await saved(page);
      const stored = (await t.api.get(`/events/${id}`, { as: 'admin' })).body;
      const text = await page.evaluate((html) => {
        const div = document.createElement('div');
        div.innerHTML = html;
        return Array.from(div.children, (p) => p.textContent).join('\n');
      }, stored.description as string);
      assert.equal(text, TEXT);
      assert.equal(stored.title, `Typing ${delay} – typed fast, with punctuation: (a), b; c!`);
      await page.context().close();
    });
  }
});
