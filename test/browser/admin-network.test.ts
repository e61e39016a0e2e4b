/**
 * The admin app's Network screen (`admin-app/src/screens/plugins/network.tsx`) in a real browser
 * (Chromium, SQLite), in a calendar's own admin (`/c/second/admin/`): its administrator follows a
 * third calendar from the screen (a slug no calendar has refused at its field), sees the follow in
 * the table with how many of its events are here (a link to them in the events list), changes the
 * categories followed (200: said so), and unfollows it after a confirmation (the copies trashed); a
 * calendar whose events quota is full hears how many events were not copied. An author proposes
 * one of their events to the third calendar from the keyboard and sees the pending submission;
 * proposed again, the 409 is shown as a message; an unknown calendar at its field; the author has
 * no follows section. axe-core (WCAG 2.2 rules: no violation at all) and no sideways scroll at
 * 390 px and on a desktop, in English and French.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const THIRD_EVENTS = ['Harbour concert', 'Lantern walk', 'Jazz night'];
const AUTHOR_EVENT = 'Author’s book fair';
const OTHERS_EVENT = 'Editor’s garden party';

/** A date `days` from now (the API's default window, which the events list and the counts use, starts yesterday). */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function signIn(browser: Browser, t: TestServer, login: string, width: number, lang = 'en'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
  const page = await context.newPage();
  await page.goto(`${t.origin}/c/second/admin/`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(`${login}-pw`);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/c\/second\/admin\/$/);
  await page.locator('h1').waitFor();
  return page;
}

/** Every axe-core violation of the rules (any impact), and a page wider than the viewport. */
async function problems(page: Page, width: number, where: string): Promise<string[]> {
  await page.waitForLoadState('networkidle');
  const failures = (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact})`);
  // seriousViolations put axe in the page: run again for the violations of every impact.
  const all = (await page.evaluate(async (values) => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values } })).violations;
  }, AXE_TAGS)) as Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
  for (const v of all) failures.push(`${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  if (scroll > width) failures.push(`${where}: ${scroll} px wide at ${width}`);
  return [...new Set(failures)];
}

describe('the Network screen of the admin app', () => {
  let t: TestServer;
  let browser: Browser;
  const second = () => `${t.origin}/c/second/api`;
  const third = () => `${t.origin}/c/third/api`;
  let authorEventId = 0;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { SUBMISSIONS: 'anyone' });
    browser = await launchBrowser();
    const calendars = t.built.services.calendars;
    await calendars.create({ slug: 'second', name: 'Second calendar' });
    await calendars.create({ slug: 'third', name: 'Third calendar' });
    await calendars.create({ slug: 'small', name: 'Small calendar', quotas: { events: 1 } });
    await t.user('subscriber', 'ada');
    await calendars.setRole('ada', 'second', 'administrator');
    await calendars.setRole('ada', 'small', 'administrator');
    await t.user('subscriber', 'aut');
    await calendars.setRole('aut', 'second', 'author');
    await t.user('subscriber', 'eda');
    await calendars.setRole('eda', 'second', 'editor');

    const music = await t.api.post(`${third()}/calendar/events/v1/categories`, { as: 'admin', json: { name: 'Music', slug: 'music' } });
    assert.equal(music.status, 201, music.text);
    for (const [i, title] of THIRD_EVENTS.entries()) {
      const made = await t.api.post(`${third()}/calendar/events/v1/events`, {
        as: 'admin',
        json: { title, start_date: `${day(20 + i)} 18:00`, end_date: `${day(20 + i)} 20:00`, status: 'publish', ...(title === 'Jazz night' ? { categories: [music.body.id] } : {}) },
      });
      assert.equal(made.status, 201, made.text);
    }
    const mine = await t.api.post(`${second()}/calendar/events/v1/events`, {
      as: 'aut',
      json: { title: AUTHOR_EVENT, start_date: `${day(30)} 10:00`, end_date: `${day(30)} 16:00`, status: 'publish' },
    });
    assert.equal(mine.status, 201, mine.text);
    authorEventId = mine.body.id;
    const others = await t.api.post(`${second()}/calendar/events/v1/events`, {
      as: 'eda',
      json: { title: OTHERS_EVENT, start_date: `${day(31)} 10:00`, end_date: `${day(31)} 16:00`, status: 'publish' },
    });
    assert.equal(others.status, 201, others.text);
    // Twenty-five of the editor's events before the author's: the author's own event is not on the
    // events list's first page, which the picker must look past.
    for (let i = 0; i < 25; i++) {
      const made = await t.api.post(`${second()}/calendar/events/v1/events`, {
        as: 'eda',
        json: {
          title: `Editor talk ${i + 1}`,
          start_date: `${day(2)} ${String(8 + (i % 12)).padStart(2, '0')}:00`,
          end_date: `${day(2)} ${String(9 + (i % 12)).padStart(2, '0')}:00`,
          status: 'publish',
        },
      });
      assert.equal(made.status, 201, made.text);
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an administrator follows a calendar, sees it with its events here, changes its categories and unfollows it', async () => {
    const page = await signIn(browser, t, 'ada', 1280);
    await page.getByRole('navigation').getByRole('link', { name: 'Network', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Network' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Calendars this calendar follows' }).waitFor();
    await page.getByText('This calendar follows no other calendar.', { exact: true }).waitFor();

    // A slug no calendar has: the server's message at the field, the focus there.
    const slug = page.getByRole('textbox', { name: 'Calendar to follow (slug)' });
    await slug.fill('nowhere');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    const slugError = page.locator('#f-calendar-error');
    await slugError.waitFor();
    assert.equal(await slugError.textContent(), 'No calendar has that ID or slug.');
    assert.equal(await slug.getAttribute('aria-invalid'), 'true');
    await page.waitForFunction(() => document.activeElement?.id === 'f-calendar');

    // Followed: said so, no quota warning, the follow in the table with its three events here.
    await slug.fill('third');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    const result = page.locator('#network-follow-result');
    await result.getByText('Following Third calendar.', { exact: true }).waitFor();
    await result.getByText('Categories followed: all events.', { exact: true }).waitFor();
    assert.equal(await result.locator('.notice.warning').count(), 0);
    assert.equal(await slugError.count(), 0, 'the error is gone');
    const row = page.locator('table.data tbody tr', { hasText: 'Third calendar' });
    await row.waitFor();
    assert.equal(await row.getByRole('link', { name: 'Third calendar', exact: true }).getAttribute('href'), `${t.origin}/c/third`);
    await row.getByRole('cell', { name: 'third', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'All events', exact: true }).waitFor();
    const count = row.getByRole('link', { name: '3 events published here', exact: true });
    await count.waitFor();
    const copies = await t.api.get(`${second()}/calendar/events/v1/events`, { as: 'ada', query: { status: 'publish', per_page: '100' } });
    assert.deepEqual(
      copies.body.events.map((e: { title: string }) => e.title).filter((x: string) => THIRD_EVENTS.includes(x)),
      THIRD_EVENTS,
    );
    assert.deepEqual(await problems(page, 1280, 'administrator, a follow'), []);

    // The count leads to the copies in the events list.
    await count.click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    for (const title of THIRD_EVENTS) await page.getByRole('link', { name: title }).first().waitFor();
    assert.equal(await page.getByText(AUTHOR_EVENT).count(), 0, 'only the followed calendar’s events');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Network' }).waitFor();

    // An unknown category of it: the server's message at the categories field.
    await slug.fill('third');
    const categories = page.getByRole('textbox', { name: 'Only these categories (optional)' });
    await categories.fill('music, opera');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await page.locator('#f-categories-error').filter({ hasText: 'Third calendar has no category “opera”.' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'f-categories');

    // Followed again with a category of it: 200, the categories changed, one event here.
    await categories.fill('music');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await result.getByText('Third calendar was followed already: the categories followed were changed.', { exact: true }).waitFor();
    await result.getByText('Categories followed: music.', { exact: true }).waitFor();
    await row.getByRole('cell', { name: 'music', exact: true }).waitFor();
    await row.getByRole('link', { name: '1 event published here', exact: true }).waitFor();

    // Unfollowed after a confirmation that says where the copies go.
    await row.getByRole('button', { name: 'Unfollow Third calendar', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Unfollow Third calendar?' });
    await dialog.waitFor();
    assert.equal(await dialog.locator('#dialog-message').textContent(), 'Its events copied here go to the trash. Following Third calendar again later restores them.');
    await dialog.getByRole('button', { name: 'Unfollow', exact: true }).click();
    await page.getByText('Third calendar is no longer followed; its copies are in the trash.').waitFor();
    await page.getByText('This calendar follows no other calendar.', { exact: true }).waitFor();
    assert.deepEqual((await t.api.get(`${second()}/calendar/network/v1/follows`, { as: 'ada' })).body, []);
    const left = await t.api.get(`${second()}/calendar/events/v1/events`, { as: 'ada', query: { status: 'publish', per_page: '100' } });
    assert.deepEqual(
      left.body.events.map((e: { title: string }) => e.title).filter((x: string) => !x.startsWith('Editor talk')),
      [AUTHOR_EVENT, OTHERS_EVENT],
    );
    await page.context().close();
  });

  it('a calendar whose events quota is full: the follow says how many events were not copied', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${t.origin}/c/small/admin/`);
    await page.locator('#user_login').fill('ada');
    await page.locator('#user_pass').fill('ada-pw');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/c\/small\/admin\/$/);
    await page.goto(`${t.origin}/c/small/admin/network`);
    await page.getByRole('heading', { level: 1, name: 'Network' }).waitFor();
    await page.getByRole('textbox', { name: 'Calendar to follow (slug)' }).fill('third');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    const result = page.locator('#network-follow-result');
    await result.getByText('Following Third calendar.', { exact: true }).waitFor();
    await result.locator('.notice.warning').getByText('2 events were not copied: this calendar’s events quota is full. They will be copied once there is room.', { exact: true }).waitFor();
    const row = page.locator('table.data tbody tr', { hasText: 'Third calendar' });
    await row.getByRole('link', { name: '1 event published here', exact: true }).waitFor();
    // The table says it too, on a later visit: the follow keeps its count.
    await page.reload();
    await row.getByText('2 not copied: the events quota is full', { exact: true }).waitFor();
    assert.deepEqual(await problems(page, 390, 'quota warning at 390 px'), []);
    await context.close();
  });

  it('an author proposes an event from the keyboard, sees it pending, and the refusals as messages; no follows section', async () => {
    const page = await signIn(browser, t, 'aut', 390);
    await page.goto(`${t.origin}/c/second/admin/network`);
    await page.getByRole('heading', { level: 1, name: 'Network' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Propose an event to another calendar' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Calendars this calendar follows' }).count(), 0);
    assert.equal(await page.getByRole('textbox', { name: 'Calendar to follow (slug)' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Follow', exact: true }).count(), 0);

    // The picker offers the author's own published events, not an editor's (one answer holds both).
    const picker = page.getByRole('combobox', { name: 'Event' });
    await picker.focus();
    await page.keyboard.press('ArrowDown');
    const option = page.getByRole('option', { name: new RegExp(`^${AUTHOR_EVENT}`) });
    await option.waitFor();
    assert.equal(await page.getByRole('option', { name: new RegExp(OTHERS_EVENT) }).count(), 0, 'an editor’s event is not offered to an author');
    await page.keyboard.type('book');
    await option.waitFor();
    await page.keyboard.press('Enter');
    assert.equal(await picker.inputValue(), AUTHOR_EVENT);
    await page.keyboard.press('Tab');
    await page.keyboard.type('third');
    await page.keyboard.press('Enter');
    const result = page.locator('#network-proposal-result');
    await result.getByText(`“${AUTHOR_EVENT}” was proposed to Third calendar.`, { exact: true }).waitFor();
    await result.getByText(/^Submission \d+: Pending review\. Its moderators will publish or decline it\.$/).waitFor();
    const queue = await t.api.get(`${third()}/calendar/admin/v1/submissions`, { as: 'admin' });
    assert.equal(queue.status, 200, queue.text);
    const waiting = queue.body.find((s: { source?: { event_id?: number } }) => s.source?.event_id === authorEventId);
    assert.ok(waiting, queue.text);
    assert.match((await result.textContent()) ?? '', new RegExp(`Submission ${waiting.id}:`));
    assert.deepEqual(await problems(page, 390, 'author, a proposal'), []);

    // The same again: the 409's message for the form, nothing shown as done.
    await page.getByRole('button', { name: 'Propose', exact: true }).click();
    const alert = page.locator('form .notice.error[role="alert"]');
    await alert.getByText('This event is already proposed to that calendar and waits for its moderators.', { exact: true }).waitFor();
    assert.equal(await result.textContent(), '');

    // A calendar no one has: the message at the slug's field.
    await page.getByRole('textbox', { name: 'Calendar to propose it to (slug)' }).fill('nowhere');
    await page.getByRole('button', { name: 'Propose', exact: true }).click();
    await page.locator('#f-to-error').filter({ hasText: 'No calendar has that ID or slug.' }).waitFor();
    assert.equal(await alert.count(), 0, 'the earlier refusal is gone');
    assert.equal(await page.getByRole('textbox', { name: 'Calendar to propose it to (slug)' }).getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await problems(page, 390, 'author, an error'), []);
    await page.context().close();
  });

  it('has no accessibility violation and no sideways scroll, at 390 px and on a desktop, in English and French', async () => {
    const made = await t.api.post(`${second()}/calendar/network/v1/follows`, { as: 'ada', json: { calendar: 'third' } });
    assert.equal(made.status, 201, made.text);
    const failures: string[] = [];
    for (const [login, width, lang, heading] of [
      ['ada', 390, 'en', 'Network'],
      ['ada', 1280, 'fr', 'Réseau'],
      ['aut', 1280, 'en', 'Network'],
      ['aut', 390, 'fr', 'Réseau'],
    ] as const) {
      const page = await signIn(browser, t, login, width, lang);
      await page.goto(`${t.origin}/c/second/admin/network`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      if (login === 'ada') await page.locator('table.data tbody tr', { hasText: 'Third calendar' }).getByRole('link', { name: /3/ }).waitFor();
      failures.push(...(await problems(page, width, `${login} ${lang} ${width} px`)));
      await page.context().close();
    }
    assert.deepEqual(failures, []);
  });
});
