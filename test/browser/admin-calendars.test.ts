/**
 * Many calendars in the admin app, in a real browser (Chromium, SQLite): the network administrator
 * creates a second calendar in the Calendars screen and gives an existing user (a subscriber of the
 * default calendar) the editor role in it only; that user signs in, moves to the second calendar
 * with the calendar switcher, creates and edits an event there, and sees none of the default
 * calendar's events (the second calendar's list is empty of them; the default calendar's admin
 * refuses them). English and French, 390 px and desktop, axe-core (WCAG 2.2 AA) on each screen.
 * Then a calendar's quotas: set in its page, they hold over REST, they are shown after a reload, and
 * a bad value is shown at its field.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const HOME_EVENT = 'Home gala';

const TEXT = {
  en: {
    calendars: 'Calendars',
    add: 'Add a calendar',
    name: 'Name',
    slug: 'Slug',
    create: 'Create the calendar',
    login: 'Login',
    role: 'Role',
    give: 'Give the role',
    members: 'Members',
    editor: 'Editor',
    switcher: /Calendar/,
    forbidden: 'Not allowed',
    dashboard: 'Dashboard',
    newEvent: 'New event',
    title: 'Title',
    publish: 'Publish',
    save: 'Save',
    saved: 'Saved.',
    events: 'Events',
  },
  fr: {
    calendars: 'Calendriers',
    add: 'Ajouter un calendrier',
    name: 'Nom',
    slug: 'Identifiant',
    create: 'Créer le calendrier',
    login: 'Identifiant de connexion',
    role: 'Rôle',
    give: 'Donner le rôle',
    members: 'Membres',
    editor: 'Éditeur',
    switcher: /Calendrier/,
    forbidden: 'Accès refusé',
    dashboard: 'Tableau de bord',
    newEvent: 'Nouvel évènement',
    title: 'Titre',
    publish: 'Publier',
    save: 'Enregistrer',
    saved: 'Enregistré.',
    events: 'Évènements',
  },
} as const;

const QUOTAS = {
  en: {
    heading: 'Quotas',
    events: 'Events',
    images: 'Images (MB)',
    save: 'Save the quotas',
    saved: 'Quotas saved.',
    invalid: 'Enter a whole number, 0 or more, or leave it empty.',
    unlimited: 'In use: 1, no limit.',
    used: 'In use: 1 of 1.',
  },
  fr: {
    heading: 'Quotas',
    events: 'Événements',
    images: 'Images (Mo)',
    save: 'Enregistrer les quotas',
    saved: 'Quotas enregistrés.',
    invalid: 'Saisissez un nombre entier, 0 ou plus, ou laissez le champ vide.',
    unlimited: 'Utilisé : 1, sans limite.',
    used: 'Utilisé : 1 sur 1.',
  },
} as const;

async function checkPage(page: Page, width: number, where: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  const failures = (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  if (scroll > width) failures.push(`${where}: ${scroll} px wide at ${width}`);
  assert.deepEqual(failures, []);
}

async function signIn(browser: Browser, t: TestServer, lang: string, width: number, login: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
  const page = await context.newPage();
  await page.goto(`${t.origin}/admin/login`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(password);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
  return page;
}

describe('many calendars in the admin app: the Calendars screen, roles per calendar, the switcher', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    const home = await t.api.post('/events', { as: 'admin', json: { title: HOME_EVENT, start_date: '2027-03-01 18:00', end_date: '2027-03-01 20:00', status: 'publish' } });
    assert.equal(home.status, 201, home.text);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [lang, width, slug] of [
    ['en', 1280, 'north'],
    ['fr', 390, 'sud'],
  ] as const) {
    it(`a network administrator makes a calendar and an editor of it; the editor works there only (${lang}, ${width} px)`, async () => {
      const text = TEXT[lang];
      const name = `Calendar ${slug}`;
      const login = `sara-${slug}`;
      await t.user('subscriber', login);

      // The network administrator: the Calendars screen, a new calendar, a member.
      const admin = await signIn(browser, t, lang, width, ADMIN.login, ADMIN.password);
      await admin.goto(`${t.origin}/admin/calendars`);
      await admin.getByRole('heading', { level: 1, name: text.calendars }).waitFor();
      await admin.locator('a[href$="/admin/calendars/1"]').waitFor();
      await checkPage(admin, width, 'calendars');
      await admin.getByRole('button', { name: text.add }).click();
      await admin.getByRole('heading', { level: 1, name: text.add }).waitFor();
      await admin.getByRole('textbox', { name: text.name, exact: true }).fill(name);
      await admin.getByRole('textbox', { name: text.slug, exact: true }).fill(slug);
      await checkPage(admin, width, 'new calendar');
      await admin.getByRole('button', { name: text.create }).click();
      await admin.getByRole('heading', { level: 1, name }).waitFor();
      await admin.getByRole('textbox', { name: text.login, exact: true }).fill(login);
      await admin.getByRole('combobox', { name: text.role, exact: true }).selectOption('editor');
      await admin.getByRole('button', { name: text.give, exact: true }).click();
      await admin.locator('section[aria-labelledby="members"] td', { hasText: login }).waitFor();
      await admin.locator('section[aria-labelledby="members"] td', { hasText: text.editor }).waitFor();
      await checkPage(admin, width, 'calendar page');
      await admin.context().close();
      const made = (await t.api.get('/api/calendar/network/v1/calendars', { as: 'admin', query: { search: slug } })).body[0];
      assert.equal(made.slug, slug);
      assert.deepEqual(
        (await t.api.get(`/api/calendar/network/v1/calendars/${made.id}/members`, { as: 'admin' })).body.map((m: { login: string; role: string }) => [m.login, m.role]),
        [[login, 'editor']],
      );

      // The member: nobody in the default calendar's admin, an editor in the new one, reached
      // with the switcher.
      const page = await signIn(browser, t, lang, width, login, `${login}-pw`);
      await page.getByRole('heading', { level: 1, name: text.forbidden }).waitFor();
      const switcher = page.locator('details.calendar-switch');
      await switcher.locator('summary').click();
      await checkPage(page, width, 'switcher open');
      await switcher.getByRole('link', { name: new RegExp(name) }).click();
      await page.waitForURL(new RegExp(`/c/${slug}/admin/$`));
      await page.getByRole('heading', { level: 1, name: text.dashboard }).waitFor();
      // The calendar is named in the top bar; the switcher is gone, there being no other calendar
      // this user may work in.
      assert.equal(await page.locator('header.top .brand').textContent(), name);
      assert.equal(await page.locator('details.calendar-switch').count(), 0);
      await checkPage(page, width, 'second calendar dashboard');

      // An event made and edited there.
      await page.goto(`${t.origin}/c/${slug}/admin/events/new`);
      await page.getByRole('heading', { level: 1, name: text.newEvent }).waitFor();
      await page.getByLabel(text.title).first().fill(`Fair ${slug}`);
      await page.locator('#f-start_date').fill('2027-04-01');
      await page.locator('#f-end_date').fill('2027-04-01');
      await page.getByRole('button', { name: text.publish, exact: true }).click();
      await page.waitForURL(new RegExp(`/c/${slug}/admin/events/\\d+$`), { timeout: 90_000 });
      const id = Number(/events\/(\d+)$/.exec(page.url())![1]);
      await page.goto(`${t.origin}/c/${slug}/admin/events/${id}`);
      await page.getByRole('heading', { level: 1, name: new RegExp(`Fair ${slug}`) }).waitFor();
      await page.getByLabel(text.title).first().fill(`Fair ${slug} (edited)`);
      await page.getByRole('button', { name: text.save, exact: true }).click();
      await page.getByText(text.saved, { exact: true }).waitFor();
      const there = await t.api.get(`${t.origin}/c/${slug}/api/calendar/events/v1/events/${id}`, { as: 'admin' });
      assert.equal(there.status, 200, there.text);
      assert.equal(there.body.title, `Fair ${slug} (edited)`);
      assert.equal((await t.api.get(`/events/${id}`, { as: 'admin' })).status, 404, 'not in the default calendar');

      // Its events list holds its own event and none of the default calendar's.
      await page.goto(`${t.origin}/c/${slug}/admin/events`);
      await page.getByRole('heading', { level: 1, name: text.events }).waitFor();
      await page.getByText(`Fair ${slug} (edited)`).first().waitFor();
      assert.equal(await page.getByText(HOME_EVENT).count(), 0, 'the default calendar’s events are not listed');
      await checkPage(page, width, 'second calendar events');

      // The default calendar's admin refuses them.
      await page.goto(`${t.origin}/admin/events`);
      await page.getByRole('heading', { level: 1, name: text.forbidden }).waitFor();
      assert.equal(await page.getByText(HOME_EVENT).count(), 0);
      assert.equal((await t.api.get('/api/calendar/admin/v1/events', { as: login })).status, 403);
      await page.context().close();
    });
  }

  for (const [lang, width, slug] of [
    ['en', 390, 'capped'],
    ['fr', 1280, 'plafond'],
  ] as const) {
    it(`a network administrator sets a calendar's quotas in its page; they hold (${lang}, ${width} px)`, async () => {
      const text = QUOTAS[lang];
      const made = await t.api.post('/api/calendar/network/v1/calendars', { as: 'admin', json: { slug, name: `Calendar ${slug}`, quotas: { media_bytes: 3 * 1024 * 1024 } } });
      assert.equal(made.status, 201, made.text);
      const events = `${t.origin}/c/${slug}/api/calendar/events/v1/events`;
      const event = (title: string) => ({ title, start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00', status: 'publish' });
      const first = await t.api.post(events, { as: 'admin', json: event(`First ${slug}`) });
      assert.equal(first.status, 201, first.text);
      const quotasNow = async () => (await t.api.get(`/api/calendar/network/v1/calendars/${made.body.id}`, { as: 'admin' })).body.quotas;

      const admin = await signIn(browser, t, lang, width, ADMIN.login, ADMIN.password);
      await admin.goto(`${t.origin}/admin/calendars/${made.body.id}`);
      await admin.getByRole('heading', { level: 2, name: text.heading }).waitFor();
      const field = admin.getByRole('textbox', { name: text.events, exact: true });
      assert.equal(await field.inputValue(), '', 'no events quota: the installation default');
      assert.equal(await admin.getByRole('textbox', { name: text.images, exact: true }).inputValue(), '3', 'bytes shown as MB');
      // What the calendar uses, in the field's description: one event, no limit of its own.
      const described = async () => (await admin.locator('#f-quota-events-help').textContent()) ?? '';
      assert.ok((await field.getAttribute('aria-describedby'))?.split(' ').includes('f-quota-events-help'));
      await admin.waitForFunction((used) => document.body.textContent!.includes(used), text.unlimited);
      assert.ok((await described()).endsWith(text.unlimited), await described());

      // An events quota of 1, saved from the keyboard: the calendar, which holds one event, takes no second.
      await field.fill('1');
      await admin.getByRole('button', { name: text.save, exact: true }).focus();
      await admin.keyboard.press('Enter');
      await admin.getByText(text.saved, { exact: true }).waitFor();
      assert.deepEqual(await quotasNow(), { events: 1, media_bytes: 3 * 1024 * 1024 }, 'the MB left as shown keep their bytes');
      // The use read again after the save, against the new limit.
      await admin.waitForFunction((used) => document.body.textContent!.includes(used), text.used);
      assert.ok((await described()).endsWith(text.used), await described());
      const second = await t.api.post(events, { as: 'admin', json: event(`Second ${slug}`) });
      assert.equal(second.status, 403, second.text);
      assert.equal(second.body.code, 'calendar_quota_exceeded');
      assert.equal(second.body.data.quota, 'events');

      // After a reload the field shows the saved value.
      await admin.reload();
      await admin.getByRole('heading', { level: 2, name: text.heading }).waitFor();
      assert.equal(await field.inputValue(), '1');
      await checkPage(admin, width, 'quotas');

      // A bad value: the API's refusal at its field, the focus there, nothing saved.
      await field.fill('-1');
      await admin.getByRole('button', { name: text.save, exact: true }).click();
      const error = admin.locator('#f-quota-events-error');
      await error.waitFor();
      assert.equal(await error.textContent(), text.invalid);
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      assert.ok((await field.getAttribute('aria-describedby'))?.split(' ').includes('f-quota-events-error'));
      await admin.waitForFunction(() => document.activeElement?.id === 'f-quota-events');
      assert.deepEqual(await quotasNow(), { events: 1, media_bytes: 3 * 1024 * 1024 });
      await checkPage(admin, width, 'quotas with an error');
      await admin.context().close();
    });
  }

  it('keeps what the browser holds of one calendar (an unsaved new event, the dashboard’s place in the log) out of another’s admin', async () => {
    // One host: every calendar's admin is one origin, one localStorage.
    await t.built.services.calendars.create({ slug: 'kept-one', name: 'Kept one' });
    await t.built.services.calendars.create({ slug: 'kept-two', name: 'Kept two' });
    const page = await signIn(browser, t, 'en', 1280, ADMIN.login, ADMIN.password);
    await page.goto(`${t.origin}/c/kept-one/admin/events/new`);
    await page.getByRole('heading', { level: 1, name: TEXT.en.newEvent }).waitFor();
    await page.getByLabel(TEXT.en.title).first().fill('Kept one’s unannounced gala');
    await page.waitForFunction(() => Object.keys(localStorage).some((k) => (localStorage.getItem(k) ?? '').includes('unannounced gala')));
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${t.origin}/c/kept-two/admin/events/new`);
    await page.getByRole('heading', { level: 1, name: TEXT.en.newEvent }).waitFor();
    await page.waitForLoadState('networkidle');
    // Another calendar's new event starts empty: kept one's draft is neither restored nor offered.
    assert.equal(await page.getByLabel(TEXT.en.title).first().inputValue(), '', 'kept two’s editor is filled with kept one’s unsaved event');
    assert.equal(await page.getByText('Unsaved changes from your last visit were restored.').count(), 0);
    // Back in kept one, its draft is there still.
    await page.goto(`${t.origin}/c/kept-one/admin/events/new`);
    const title = page.getByLabel(TEXT.en.title).first();
    await page.waitForFunction((el) => (el as HTMLInputElement).value === 'Kept one’s unannounced gala', await title.elementHandle(), { timeout: 10_000 });
    // The dashboards keep their places in their own calendars' logs (a sync token of one is refused in another).
    for (const slug of ['kept-one', 'kept-two']) {
      await page.goto(`${t.origin}/c/${slug}/admin/`);
      await page.getByRole('heading', { level: 1, name: TEXT.en.dashboard }).waitFor();
      await page.waitForFunction((s) => Object.keys(localStorage).some((k) => k.startsWith('calendar-admin-sync-') && k.includes(s)), slug, { timeout: 10_000 });
    }
    await page.context().close();
  });
});
