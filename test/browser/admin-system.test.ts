/**
 * Issue 28, the admin app's system screens (plug-ins of admin-api) in a real browser (Chromium
 * through playwright-core, SQLite): an administrator manages a user and an application password,
 * manages a webhook endpoint and sends a delivery again (to the test receiver), imports an `.ics`
 * upload and follows its progress to done, downloads the export; an editor does not see these
 * screens; axe-core (WCAG 2.2 AA rules) on each screen at 390 px and on a desktop.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const A = '/api/calendar/admin/v1';

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//EN',
  ...[1, 2, 3].flatMap((n) => ['BEGIN:VEVENT', `UID:browser-${n}@test`, `SUMMARY:Browser import ${n}`, `DTSTART:2031040${n}T100000Z`, `DTEND:2031040${n}T110000Z`, 'END:VEVENT']),
  'END:VCALENDAR',
  '',
].join('\r\n');

async function signIn(browser: Browser, origin: string, login: string, password: string, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(`${origin}/admin/login`);
  await page.locator('#user_login').fill(login);
  await page.locator('#user_pass').fill(password);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/admin\/$/);
  return { context, page };
}

/** Open an app screen and wait for its heading. */
async function open(page: Page, origin: string, path: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${origin}/admin${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

describe('admin system screens in a browser', () => {
  let t: TestServer;
  let browser: Browser;
  let receiver: Receiver;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '200ms' });
    browser = await launchBrowser();
    receiver = await startReceiver();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('an administrator adds a user, edits them, and makes and revokes an application password', async () => {
    const { context, page } = await signIn(browser, t.origin, ADMIN.login, ADMIN.password);
    await open(page, t.origin, '/users', 'Users');
    await page.getByRole('button', { name: 'Add a user' }).click();
    await page.getByRole('heading', { level: 1, name: 'Add a user' }).waitFor();
    await page.getByLabel('Username').fill('bea');
    await page.getByLabel('Name', { exact: true }).fill('Bea Browser');
    await page.getByLabel('E-mail').fill('bea@example.org');
    await page.getByLabel('Role').selectOption('editor');
    await page.getByLabel('New password').fill('bea-password');
    await page.getByRole('button', { name: 'Create the user' }).click();
    await page.getByRole('heading', { level: 1, name: 'User bea' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Bea B.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    const bea = (await t.api.get(`${A}/users`, { as: 'admin', query: { search: 'bea' } })).body[0];
    assert.equal(bea.name, 'Bea B.');
    assert.deepEqual(bea.roles, ['editor']);

    await page.getByLabel('New application password name').fill('phone');
    await page.getByRole('button', { name: 'Add an application password' }).click();
    const secret = (await page.locator('#new-app-password').textContent())!.trim();
    assert.match(secret, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    assert.equal((await t.api.get(`${A}/changes`, { as: `bea:${secret}` })).status, 200, 'the password shown works');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Revoke phone' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No application password.').waitFor();
    assert.equal((await t.api.get(`${A}/changes`, { as: `bea:${secret}` })).status, 401, 'revoked');
    await context.close();
  });

  it('an administrator adds a webhook endpoint, sees a delivery with its response, sends it again, disables and re-enables it', async () => {
    const { context, page } = await signIn(browser, t.origin, ADMIN.login, ADMIN.password);
    await open(page, t.origin, '/webhooks', 'Webhooks');
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Browser test');
    await page.getByRole('button', { name: 'Create the endpoint' }).click();
    receiver.secret = (await page.locator('code.secret').textContent())!.trim();
    assert.match(receiver.secret, /^whsec_/);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: /^Endpoint \d+$/ }).waitFor();
    const made = await t.api.post('/events', { as: 'admin', json: { title: 'Hooked', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'publish' } });
    assert.equal(made.status, 201);
    await receiver.waitFor((m) => m.body?.data?.id === made.body.id);
    // The delivery appears with its response code once the server has recorded the answer (Refresh
    // until then: on a loaded host that took longer than a fixed number of tries).
    const deadline = Date.now() + 60_000;
    while ((await page.getByRole('cell', { name: 'Succeeded' }).count()) === 0) {
      assert.ok(Date.now() < deadline, 'the delivery did not show as succeeded within 60 s');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(250);
    }
    await page.getByRole('cell', { name: '200' }).first().waitFor();
    await page
      .getByRole('button', { name: /^Send again: delivery / })
      .first()
      .click();
    await page.getByText('Sent again.').waitFor();
    await receiver.waitFor((m) => m.body?.data?.id === made.body.id, 2);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Disabled/ })
      .waitFor();
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Enabled/ })
      .waitFor();
    await context.close();
  });

  it('an administrator imports an .ics upload, follows its progress to done, and downloads the export', async () => {
    const { context, page } = await signIn(browser, t.origin, ADMIN.login, ADMIN.password);
    await open(page, t.origin, '/import-export', 'Import and export');
    await page.getByLabel('iCalendar file').setInputFiles({ name: 'club.ics', mimeType: 'text/calendar', buffer: Buffer.from(ICS) });
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: /^Import \d+: club\.ics$/ }).waitFor();
    await page.locator('#import-status').filter({ hasText: 'Done' }).waitFor({ timeout: 30_000 });
    await page.getByText('3 created, 0 updated, 0 unchanged, 0 skipped, 0 failed').first().waitFor();
    await page.getByRole('cell', { name: /club\.ics/ }).waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the JSON export' }).click()]);
    assert.match(download.suggestedFilename(), /^calendar-\d{4}-\d\d-\d\d\.json$/);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    const doc = JSON.parse(await readFile(path!, 'utf8')) as { tables: Record<string, Array<{ title?: string }>> };
    assert.ok(doc.tables.posts!.some((p) => p.title === 'Browser import 2'));
    await context.close();
  });

  it('an editor sees none of these screens', async () => {
    await t.user('editor', 'eddie');
    const { context, page } = await signIn(browser, t.origin, 'eddie', 'eddie-pw');
    for (const path of ['/users', '/webhooks', '/import-export', '/settings']) {
      await open(page, t.origin, path, 'Not allowed');
    }
    for (const name of ['Users', 'Webhooks', 'Import and export', 'Settings']) assert.equal(await page.getByRole('navigation').getByRole('link', { name, exact: true }).count(), 0, name);
    await context.close();
  });

  it('a calendar’s own administrator runs its screens but not the accounts: Users and Invitations are not allowed', async () => {
    await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    await t.user('subscriber', 'nadia');
    await t.built.services.calendars.setRole('nadia', 'north', 'administrator');
    const north = `${t.origin}/c/north`;
    const { context, page } = await signIn(browser, north, 'nadia', 'nadia-pw');
    await open(page, north, '/webhooks', 'Webhooks');
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Settings', exact: true }).waitFor();
    for (const name of ['Users', 'Invitations']) assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 0, name);
    for (const path of ['/users', '/users/1', '/invitations']) await open(page, north, path, 'Not allowed');
    await context.close();
  });

  it('has no serious or critical accessibility violations on each screen, at 390 px and on a desktop', async () => {
    const failures: string[] = [];
    const users = (await t.api.get(`${A}/users`, { as: 'admin', query: { search: 'bea' } })).body;
    const hooks = (await t.api.get(`${A}/webhooks`, { as: 'admin' })).body;
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 900 },
    ]) {
      const { context, page } = await signIn(browser, t.origin, ADMIN.login, ADMIN.password, viewport);
      for (const [path, heading] of [
        ['/users', 'Users'],
        [`/users/${users[0].id}`, 'User bea'],
        ['/users/new', 'Add a user'],
        ['/webhooks', 'Webhooks'],
        [`/webhooks/${hooks[0].id}`, /^Endpoint/],
        ['/import-export', 'Import and export'],
        ['/settings', 'Settings'],
      ] as const) {
        await open(page, t.origin, path, heading);
        await page.waitForLoadState('networkidle');
        for (const v of await seriousViolations(page, AXE_TAGS)) failures.push(`${path} at ${viewport.width}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width > viewport.width) failures.push(`${path} is ${width} px wide at ${viewport.width}`);
      }
      await context.close();
    }
    assert.deepEqual(failures, []);
  });
});
