/**
 * Issue 28, item 1 in a real browser (Chromium through playwright-core, on SQLite): sign in with
 * the keyboard on the login page at 390 px, reach the account page; axe-core on the login page
 * (with and without an error), the account page and its two-factor enrolment; and a page on
 * another origin, with the session cookie in the browser, cannot act with it: its credentialed
 * requests are anonymous (no nonce), a guessed nonce is refused, and it cannot read the nonce.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';

/** The admin pages are also checked against WCAG 2.2 AA's rules. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

describe('admin sign-in in a browser', () => {
  let t: TestServer;
  let browser: Browser;
  let other: Server;
  let otherOrigin: string;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' });
    browser = await launchBrowser();
    // Another origin (another port on the same host: the same site, so the Lax cookie is sent).
    other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>elsewhere</title>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => other?.close(resolve));
  });

  it('signs in with the keyboard at 390 px (no JavaScript), with a visible focus and the error announced', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${t.origin}/admin/`);
    assert.match(page.url(), /\/admin\/login\?redirect_to=%2Fadmin%2F$/);
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'user_login');
    assert.equal(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'solid', 'the focus is visible');
    await page.keyboard.type(ADMIN.login);
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    assert.match((await page.locator('[role=alert]').textContent()) ?? '', /incorrect/);
    assert.equal(await page.locator('#user_pass').getAttribute('aria-describedby'), 'form-error');
    await page.locator('#user_pass').fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/$/);
    // Without JavaScript the app says so and links to the account page, which works without it.
    await page.getByRole('link', { name: 'account' }).click();
    await page.waitForURL(/\/admin\/account$/);
    assert.match((await page.locator('h2#who-title').textContent()) ?? '', /Signed in as admin/);
    await context.close();
  });

  it('has no serious or critical accessibility violations on the login and account pages (axe-core), and fits 390 px', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const failures: string[] = [];
    const run = async (name: string) => {
      for (const v of await seriousViolations(page, AXE_TAGS)) failures.push(`${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${name} fits 390 px (${width})`);
    };
    await page.goto(`${t.origin}/admin/login`);
    await run('login');
    await page.locator('#user_login').fill(ADMIN.login);
    await page.locator('#user_pass').fill('wrong');
    await page.keyboard.press('Enter');
    // The answer is a new page: wait for its error (the page before has an empty alert region).
    await page.locator('div.error[role=alert]').waitFor();
    await page.waitForLoadState();
    await run('login with an error');
    await page.locator('#user_pass').fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/$/);
    await page.goto(`${t.origin}/admin/account`);
    await run('account');
    await page.getByRole('button', { name: 'Turn two-factor sign-in on' }).click();
    await page.waitForURL(/\/admin\/account$/);
    assert.equal(await page.getByRole('img', { name: 'QR code of the secret key' }).count(), 1);
    await run('two-factor enrolment');
    await context.close();
    assert.deepEqual(failures, []);
  });

  it('a page on another origin cannot use the session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.origin}/admin/login`);
    await page.locator('#user_login').fill(ADMIN.login);
    await page.locator('#user_pass').fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/$/);
    await page.goto(`${t.origin}/admin/account`);
    // The signed-in page itself can act: its nonce is in the page.
    const own = await page.evaluate(async (base) => {
      const nonce = document.querySelector<HTMLMetaElement>('meta[name="calendar-rest-nonce"]')!.content;
      const res = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wp-nonce': nonce },
        body: JSON.stringify({ title: 'Mine', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00' }),
      });
      return res.status;
    }, t.base);
    assert.equal(own, 201);

    const evil = await context.newPage();
    await evil.goto(otherOrigin);
    const seen = await evil.evaluate(
      async ({ base, origin }) => {
        const out: Record<string, unknown> = {};
        const body = JSON.stringify({ title: 'Forged', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00' });
        const create = await fetch(`${base}/events`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body });
        out.create = create.status;
        const drafts = await fetch(`${base}/events?status=draft`, { credentials: 'include' });
        out.drafts = drafts.status;
        const guessed = await fetch(`${base}/events`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-wp-nonce': '0123456789abcdef0123' }, body });
        out.guessed = guessed.status;
        for (const [key, path] of [
          ['nonce', '/admin/rest-nonce'],
          ['app', '/admin/'],
          ['account', '/admin/account'],
        ]) {
          try {
            const res = await fetch(origin + path!, { credentials: 'include' });
            out[key!] = await res.text();
          } catch (e) {
            out[key!] = `blocked: ${(e as Error).name}`;
          }
        }
        return out;
      },
      { base: t.base, origin: t.origin },
    );
    assert.equal(seen.create, 401, 'anonymous: no nonce');
    assert.equal(seen.drafts, 400, 'anonymous: drafts are not listed (status refused)');
    assert.equal(seen.guessed, 403, 'a guessed nonce: rest_cookie_invalid_nonce');
    assert.equal(seen.nonce, 'blocked: TypeError', 'the nonce cannot be read from another origin');
    assert.equal(seen.app, 'blocked: TypeError', 'nor the app (its boot data holds the nonce)');
    assert.equal(seen.account, 'blocked: TypeError', 'nor the account page');
    await context.close();
  });
});
