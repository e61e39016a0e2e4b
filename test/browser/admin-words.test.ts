/**
 * Words on editors' screens (Chromium, SQLite): counts go through the message catalogue's plurals
 * ("Move 1 event", French "1 évènement" and "0 sélectionné": French treats 0 and 1 as singular),
 * raw RFC 5545 lines only inside the recurrence editor's "Advanced" disclosure (the human rule
 * and the preview otherwise); the time zone and the venue are searchable comboboxes (ARIA 1.2, keyboard:
 * arrows, Enter, Escape; the site zone and recent zones first; venues and organizers from the API's search); the events list's filters folded behind "Filters" at 390 px (open on
 * desktop) and no sideways scroll of the page; in English and French, axe-core clean at 390 px and on desktop.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations, signInAdmin } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const signIn = (browser: Browser, t: TestServer, login: string, options: { width?: number; french?: boolean } = {}): Promise<Page> => signInAdmin(browser, t.origin, login, options);

async function axe(page: Page, where: string): Promise<string[]> {
  return (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const SIZES = [
  [1280, false],
  [390, false],
  [390, true],
  [1280, true],
] as const;

describe('words in the admin app', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    await t.user('editor', 'edna');
    for (const title of ['Alpha', 'Beta']) await t.api.post('/events', { as: 'admin', json: { title, start_date: '2027-06-01 19:00', end_date: '2027-06-01 21:00', status: 'publish' } });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says counts with the language’s plural forms', async () => {
    const failures: string[] = [];
    for (const [width, french] of SIZES) {
      const page = await signIn(browser, t, 'edna', { width, french });
      await page.goto(`${t.origin}/admin/events`);
      await page.getByRole('checkbox', { name: french ? 'Sélectionner Alpha' : 'Select Alpha' }).waitFor();
      const apply = page.locator('.bulk button');
      assert.equal((await apply.innerText()).trim(), french ? 'Appliquer à 0 sélectionné' : 'Apply to 0 selected', 'French 0 is singular');
      await page.getByLabel(french ? 'Action groupée' : 'Bulk action').selectOption({ label: french ? 'Mettre à la corbeille' : 'Move to trash' });
      await page.getByRole('checkbox', { name: french ? 'Sélectionner Alpha' : 'Select Alpha' }).check();
      assert.equal((await apply.innerText()).trim(), french ? 'Appliquer à 1 sélectionné' : 'Apply to 1 selected');
      await apply.click();
      const message = page.locator('#dialog-message');
      await message.waitFor();
      assert.equal(await message.innerText(), french ? 'Mettre 1 évènement à la corbeille ?' : 'Move 1 event to the trash?');
      failures.push(...(await axe(page, `the question ${width} px${french ? ' fr' : ''}`)));
      await page.getByRole('button', { name: french ? 'Annuler' : 'Cancel' }).click();
      await page.getByRole('checkbox', { name: french ? 'Sélectionner Beta' : 'Select Beta' }).check();
      assert.equal((await apply.innerText()).trim(), french ? 'Appliquer aux 2 sélectionnés' : 'Apply to 2 selected');
      await apply.click();
      await message.waitFor();
      assert.equal(await message.innerText(), french ? 'Mettre 2 évènements à la corbeille ?' : 'Move 2 events to the trash?');
      await page.getByRole('button', { name: french ? 'Annuler' : 'Cancel' }).click();
      failures.push(...(await axe(page, `the events list ${width} px${french ? ' fr' : ''}`)));
      await page.context().close();
    }
    assert.deepEqual(failures, []);
  });

  it('keeps raw RFC 5545 lines behind "Advanced" in the recurrence editor', async () => {
    const failures: string[] = [];
    for (const [width, french] of SIZES) {
      const page = await signIn(browser, t, 'edna', { width, french });
      await page.goto(`${t.origin}/admin/events/new`);
      await page.locator('#f-start_date').fill('2027-04-05');
      await page.locator('#f-end_date').fill('2027-04-05');
      await page.getByLabel(french ? 'Se répète' : 'Repeats').selectOption('WEEKLY');
      await page.locator('ol.occurrences li').first().waitFor();
      const main = page.locator('main');
      assert.doesNotMatch(await main.innerText(), /RRULE|RFC 5545/, `no developer words at ${width} px${french ? ' fr' : ''}`);
      const advanced = page.locator('details.advanced');
      assert.equal(await advanced.locator('summary').innerText(), french ? 'Avancé' : 'Advanced');
      failures.push(...(await axe(page, `recurrence folded ${width} px${french ? ' fr' : ''}`)));
      await advanced.locator('summary').click();
      assert.match(await advanced.innerText(), /RRULE:FREQ=WEEKLY/, 'the lines sent, for who asks');
      failures.push(...(await axe(page, `recurrence advanced ${width} px${french ? ' fr' : ''}`)));
      await page.context().close();
    }
    assert.deepEqual(failures, []);
  });

  it('folds the events list’s filters at 390 px, with no sideways scroll', async () => {
    const failures: string[] = [];
    for (const [width, french] of SIZES) {
      const where = `${width} px${french ? ' fr' : ''}`;
      const page = await signIn(browser, t, 'edna', { width, french });
      await page.goto(`${t.origin}/admin/events?status=publish`);
      await page.getByRole('checkbox', { name: french ? 'Sélectionner Alpha' : 'Select Alpha' }).waitFor();
      const status = page.locator('select[name="status"]');
      const toggle = page.locator('details.filters-fold > summary');
      const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (width === 390) {
        assert.equal(await status.isVisible(), false, `filters folded at ${where}`);
        assert.equal((await toggle.innerText()).trim(), french ? 'Filtres (1 utilisé)' : 'Filters (1 in use)');
        failures.push(...(await axe(page, `list folded ${where}`)));
        if ((await sideways()) > 0) failures.push(`the folded list scrolls sideways by ${await sideways()} px at ${where}`);
        await toggle.click();
      } else assert.equal(await toggle.isVisible(), false, 'no disclosure on desktop');
      assert.equal(await status.isVisible(), true, `filters shown at ${where}`);
      failures.push(...(await axe(page, `list with filters ${where}`)));
      if ((await sideways()) > 0) failures.push(`the list scrolls sideways by ${await sideways()} px at ${where}`);
      await page.context().close();
    }
    assert.deepEqual(failures, []);
  });

  it('picks the time zone, the venue and organizers with searchable comboboxes, from the keyboard', async () => {
    const failures: string[] = [];
    const venues: Record<string, number> = {};
    for (const name of ['Blue Hall', 'Red Hall', 'Harbour quay']) venues[name] = (await t.api.post('/venues', { as: 'admin', json: { venue: name, status: 'publish' } })).body.id as number;
    const organizers: Record<string, number> = {};
    for (const name of ['Jazz Club', 'Folk Club', 'Choir']) organizers[name] = (await t.api.post('/organizers', { as: 'admin', json: { organizer: name, status: 'publish' } })).body.id as number;
    for (const [width, french] of SIZES) {
      const where = `${width} px${french ? ' fr' : ''}`;
      const page = await signIn(browser, t, 'edna', { width, french });
      await page.goto(`${t.origin}/admin/events/new`);
      await page.locator('#f-title').fill(`Zone ${where}`);
      await page.locator('#f-start_date').fill('2027-04-05');
      await page.locator('#f-end_date').fill('2027-04-05');
      const zone = page.getByRole('combobox', { name: french ? 'Fuseau horaire' : 'Time zone' });
      await zone.click();
      const zoneList = page.locator('#f-timezone-list');
      await zoneList.getByRole('option').first().waitFor();
      assert.equal((await zoneList.getByRole('option').first().innerText()).split(' · ')[0], 'UTC', 'the site zone first');
      await zone.fill('paris');
      await zoneList.getByRole('option', { name: /^Europe\/Paris/ }).waitFor();
      failures.push(...(await axe(page, `zone list ${where}`)));
      await zone.press('ArrowDown');
      await zone.press('ArrowUp');
      await zone.press('Enter');
      assert.equal(await zone.inputValue(), 'Europe/Paris');
      assert.equal(await zone.getAttribute('aria-expanded'), 'false');
      // Escape closes the list and puts the choice back.
      await zone.fill('tok');
      await zoneList.getByRole('option', { name: /Tokyo/ }).waitFor();
      await zone.press('Escape');
      assert.equal(await zone.getAttribute('aria-expanded'), 'false');
      await zone.press('Escape');
      assert.equal(await zone.inputValue(), 'Europe/Paris');
      const venue = page.getByRole('combobox', { name: french ? 'Lieu' : 'Venue' });
      await venue.fill('hall');
      const venueList = page.locator('#f-venue-list');
      await venueList.getByRole('option', { name: 'Red Hall' }).waitFor();
      assert.deepEqual((await venueList.getByRole('option').allInnerTexts()).sort(), ['Blue Hall', 'Red Hall'], 'only the matches of the search');
      failures.push(...(await axe(page, `venue list ${where}`)));
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (wide > 0) failures.push(`the editor scrolls sideways by ${wide} px at ${where}`);
      while ((await venueList.locator('[aria-selected="true"]').innerText()) !== 'Red Hall') await venue.press('ArrowDown');
      await venue.press('Enter');
      assert.equal(await venue.inputValue(), 'Red Hall');
      const organizer = page.getByRole('combobox', { name: french ? 'Ajouter un organisateur' : 'Add an organizer' });
      const organizerList = page.locator('#f-organizer-search-list');
      for (const name of ['Folk Club', 'Jazz Club']) {
        await organizer.fill('club');
        await organizerList.getByRole('option', { name }).waitFor();
        assert.equal(await organizerList.getByRole('option', { name: 'Choir' }).count(), 0, 'only the matches');
        while ((await organizerList.locator('[aria-selected="true"]').innerText()) !== name) await organizer.press('ArrowDown');
        await organizer.press('Enter');
      }
      failures.push(...(await axe(page, `organizers chosen ${where}`)));
      await page.getByRole('button', { name: french ? 'Retirer Jazz Club' : 'Remove Jazz Club' }).click();
      await page.getByRole('button', { name: french ? 'Enregistrer' : 'Save', exact: true }).click();
      await page.waitForURL(/\/events\/\d+$/);
      const id = Number(/events\/(\d+)$/.exec(page.url())![1]);
      const stored = (await t.api.get(`/events/${id}`, { as: 'admin' })).body;
      assert.equal(stored.timezone, 'Europe/Paris');
      assert.equal(stored.venue.id, venues['Red Hall']);
      assert.deepEqual(
        stored.organizer.map((o: { id: number }) => o.id),
        [organizers['Folk Club']],
      );
      // A recent zone comes next after the site's zone.
      await page.goto(`${t.origin}/admin/events/new`);
      await zone.click();
      await zoneList.getByRole('option').nth(1).waitFor();
      assert.match(await zoneList.getByRole('option').nth(1).innerText(), /^Europe\/Paris/);
      await page.context().close();
    }
    assert.deepEqual(failures, []);
  });
});
