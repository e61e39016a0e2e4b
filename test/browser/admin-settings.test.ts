/**
 * The settings screen in a real browser (Chromium, SQLite): an administrator changes the site's
 * name and the first day of the week (in force on the REST index and the pages at once), sees the error of a time zone that does
 * not exist next to its field and in the summary, and reads the process settings as set in the
 * environment; in English and French, at 390 px and on a desktop, with axe-core (WCAG 2.2 AA).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const TEXT = {
  en: {
    heading: 'Settings',
    name: 'Site name',
    zone: 'Time zone',
    week: 'Week starts on',
    sunday: 'Sunday',
    save: 'Save settings',
    saved: 'Settings saved.',
    errors: 'Some settings could not be saved',
    env: 'set in the environment (DATABASE_URL)',
  },
  fr: {
    heading: 'Réglages',
    name: 'Nom du site',
    zone: 'Fuseau horaire',
    week: 'Premier jour de la semaine',
    sunday: 'dimanche',
    save: 'Enregistrer les réglages',
    saved: 'Réglages enregistrés.',
    errors: 'Certains réglages n’ont pas pu être enregistrés',
    env: 'défini dans l’environnement (DATABASE_URL)',
  },
} as const;

describe('the settings screen in a browser', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [lang, width] of [
    ['en', 390],
    ['fr', 390],
    ['en', 1280],
    ['fr', 1280],
  ] as const) {
    it(`changes the site name and shows the error of a bad time zone (${lang}, ${width} px)`, async () => {
      const text = TEXT[lang];
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      await context.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
      const page = await context.newPage();
      try {
        await page.goto(`${t.origin}/admin/login`);
        await page.locator('#user_login').fill(ADMIN.login);
        await page.locator('#user_pass').fill(ADMIN.password);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/admin\/$/);
        await page.goto(`${t.origin}/admin/settings`);
        await page.getByRole('heading', { level: 1, name: text.heading }).waitFor();

        const name = `Town ${lang} ${width}`;
        await page.getByLabel(text.name, { exact: true }).fill(name);
        // The first day of the week: a select naming the days in the reader's language.
        await page.getByLabel(text.week, { exact: true }).selectOption({ label: text.sunday });
        await page.getByRole('button', { name: text.save }).click();
        await page.getByText(text.saved).first().waitFor();
        assert.equal((await t.api.get('/api/')).body.name, name);
        assert.match((await t.api.get(`${t.origin}/events/`)).text, new RegExp(`<title>[^<]*${name}</title>`));
        assert.equal(t.config.weekStart, 'sunday');
        assert.match((await t.api.get(`${t.origin}/events/month/2030-05/`)).text, /<thead><tr><th scope="col"><abbr title="Sunday"/);
        await t.api.patch('/api/calendar/admin/v1/settings', { as: 'admin', json: { CALENDAR_WEEK_START: null } });

        const zone = page.getByLabel(text.zone, { exact: true });
        await zone.fill('Nowhere/Atlantis');
        await page.getByRole('button', { name: text.save }).click();
        await page.getByRole('heading', { name: text.errors }).waitFor();
        assert.equal(await zone.getAttribute('aria-invalid'), 'true');
        const described = (await zone.getAttribute('aria-describedby')) ?? '';
        const errorId = described.split(' ').find((id) => id.endsWith('-error'));
        assert.ok(errorId, described);
        assert.match((await page.locator(`#${errorId}`).textContent()) ?? '', /not a known time zone/);
        assert.equal(t.config.timezone, 'UTC');
        // The summary's link leads to the field.
        assert.equal(await page.locator('.error-summary a[href="#setting-CALENDAR_TIMEZONE"]').count(), 1);
        // Process settings: read-only, saying where they are set.
        await page.getByText(text.env).first().waitFor();
        assert.equal(await page.getByLabel('DATABASE_URL').count(), 0);

        const failures = (await seriousViolations(page, AXE_TAGS)).map((v) => `${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
        if (scroll > width) failures.push(`${scroll} px wide at ${width}`);
        assert.deepEqual(failures, []);
      } finally {
        await context.close();
      }
    });
  }
});
