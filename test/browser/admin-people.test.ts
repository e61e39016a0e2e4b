/**
 * People in a real browser (Chromium, SQLite; the password policy on): an administrator invites
 * someone from the Invitations screen (no SMTP: the link is shown to hand over), the person opens
 * the link, sees the strength meter judge a weak password and then a strong one, sets it and signs
 * in with "Remember me"; the "Lost your password?" page answers; the account page inside the app
 * lists the sessions in words ("Chrome on Linux") with their times; an administrator sends a
 * contributor's pending event back with a note from "Waiting for review". English and French, 390 px
 * and desktop, axe-core (WCAG 2.2 AA) on every page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../support/harness.js';
import { launchBrowser, seriousViolations } from '../support/browser.js';

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const STRONG = 'violet anchor mosaic 41';

const TEXT = {
  en: {
    invitations: 'Invitations',
    email: 'E-mail',
    invite: 'Send the invitation',
    choose: 'Choose your password',
    newPassword: 'New password',
    repeat: 'Repeat the password',
    weak: /Strength: weak/,
    strong: /Strength: (strong|very strong)/,
    save: 'Save the password',
    saved: /Your password is saved/,
    remember: 'Remember me',
    lost: 'Lost your password?',
    lostTitle: 'Lost password',
    send: 'Send the link',
    sent: /If an account matches/,
    account: 'Your account',
    sessions: 'Where you are signed in',
    device: 'Chrome on Linux',
    others: 'Sign out everywhere else',
    reviews: 'Waiting for review',
    sendBack: (title: string) => `Send ${title} back with a note`,
    note: 'Note to the contributor',
    sendBackButton: 'Send back with a note',
    sentBack: /was sent back to its contributor/,
  },
  fr: {
    invitations: 'Invitations',
    email: 'E-mail',
    invite: 'Envoyer l’invitation',
    choose: 'Choisissez votre mot de passe',
    newPassword: 'Nouveau mot de passe',
    repeat: 'Répétez le mot de passe',
    weak: /Robustesse : faible/,
    strong: /Robustesse : (forte|très forte)/,
    save: 'Enregistrer le mot de passe',
    saved: /Votre mot de passe est enregistré/,
    remember: 'Se souvenir de moi',
    lost: 'Mot de passe oublié ?',
    lostTitle: 'Mot de passe oublié',
    send: 'Envoyer le lien',
    sent: /Si un compte correspond/,
    account: 'Votre compte',
    sessions: 'Où vous êtes connecté·e',
    device: 'Chrome sur Linux',
    others: 'Se déconnecter partout ailleurs',
    reviews: 'À relire',
    sendBack: (title: string) => `Renvoyer ${title} avec une note`,
    note: 'Note pour le contributeur',
    sendBackButton: 'Renvoyer avec une note',
    sentBack: /a été renvoyé à son contributeur/,
  },
} as const;

async function checkPage(page: Page, width: number, where: string): Promise<void> {
  const failures = (await seriousViolations(page, AXE_TAGS)).map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  if (scroll > width) failures.push(`${where}: ${scroll} px wide at ${width}`);
  assert.deepEqual(failures, []);
}

describe('people in a browser: invitations, set password with its meter, lost password, the account page', () => {
  let t: TestServer;
  let browser: Browser;

  before(async () => {
    t = await startServer({ name: 'sqlite', url: 'sqlite::memory:' }, { PASSWORD_MIN_LENGTH: '12', PASSWORD_MIN_STRENGTH: '3', CALENDAR_TIMEZONE: 'Europe/Paris' });
    browser = await launchBrowser();
    await t.user('contributor', 'cora');
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
    it(`invite, set the password with the meter, sign in remembered, lost password, account page (${lang}, ${width} px)`, async () => {
      const text = TEXT[lang];
      const email = `p-${lang}-${width}@example.org`;
      const admin = await browser.newContext({ viewport: { width, height: 900 } });
      await admin.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
      const invitee = await browser.newContext({ viewport: { width, height: 900 } });
      await invitee.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
      try {
        const page = await admin.newPage();
        await page.goto(`${t.origin}/admin/login`);
        await page.locator('#user_login').fill(ADMIN.login);
        await page.locator('#user_pass').fill(ADMIN.password);
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/admin\/$/);
        await page.goto(`${t.origin}/admin/invitations`);
        await page.getByRole('heading', { level: 1, name: text.invitations }).waitFor();
        await page.getByLabel(text.email, { exact: false }).first().fill(email);
        await page.getByRole('button', { name: text.invite, exact: true }).click();
        const link = (await page.locator('#invitation-link').textContent({ timeout: 10_000 }))!.trim();
        assert.match(link, /\/admin\/invitation\?token=/);
        await page.locator('td', { hasText: email }).first().waitFor();
        await checkPage(page, width, 'invitations');

        // A contributor's event waits for review: sent back with a note.
        const title = `Fair ${lang} ${width}`;
        const made = await t.api.post('/events', { as: 'cora', json: { title, start_date: '2031-06-21 18:00:00', end_date: '2031-06-21 20:00:00', status: 'pending' } });
        assert.equal(made.body.status, 'pending');
        await page.goto(`${t.origin}/admin/reviews`);
        await page.getByRole('heading', { level: 1, name: text.reviews }).waitFor();
        await page.getByRole('button', { name: text.sendBack(title) }).click();
        await page.getByLabel(text.note).fill('Please add the venue.');
        await checkPage(page, width, 'reviews');
        await page.getByRole('button', { name: text.sendBackButton, exact: true }).click();
        await page.getByText(text.sentBack).first().waitFor();
        assert.equal((await t.api.get(`/events/${made.body.id}`, { as: 'admin' })).body.status, 'draft');

        const p = await invitee.newPage();
        await p.goto(link);
        await p.getByRole('heading', { level: 1, name: text.choose }).waitFor();
        await p.getByLabel(text.newPassword).fill('password1234');
        await p.locator('#password-meter-label').filter({ hasText: text.weak }).waitFor();
        await p.getByLabel(text.newPassword).fill(STRONG);
        await p.locator('#password-meter-label').filter({ hasText: text.strong }).waitFor();
        assert.equal(Number(await p.locator('#password-meter-bar').getAttribute('value')) >= 3, true);
        await checkPage(p, width, 'set password');
        await p.getByLabel(text.repeat).fill(STRONG);
        await p.getByRole('button', { name: text.save }).click();
        await p.getByText(text.saved).waitFor();
        await checkPage(p, width, 'sign-in after set password');

        // Sign in, remembered: a persistent cookie.
        await p.locator('#user_pass').fill(STRONG);
        await p.getByLabel(text.remember).check();
        await p.locator('#user_pass').press('Enter');
        await p.waitForURL(/\/admin\/$/);
        const cookie = (await invitee.cookies(t.origin)).find((c) => c.name === 'calendar_session')!;
        assert.ok(cookie.expires > Date.now() / 1000 + 13 * 86400, String(cookie.expires));

        // The account page inside the app: the sessions in words.
        await p.goto(`${t.origin}/admin/my-account`);
        await p.getByRole('heading', { level: 1, name: text.account }).waitFor();
        await p.getByRole('heading', { name: text.sessions }).waitFor();
        await p.locator('td', { hasText: text.device }).first().waitFor();
        await p.getByText('Europe/Paris').first().waitFor();
        await p.getByRole('button', { name: text.others }).waitFor();
        await p.getByLabel(text.newPassword, { exact: true }).fill('password1234');
        await p.locator('#new-password-strength').filter({ hasText: text.weak }).waitFor();
        await checkPage(p, width, 'account');

        // Lost password, signed out (a context of its own).
        const lostContext = await browser.newContext({ viewport: { width, height: 900 } });
        await lostContext.addCookies([{ name: 'calendar_lang', value: lang, url: t.origin }]);
        try {
          const l = await lostContext.newPage();
          await l.goto(`${t.origin}/admin/login`);
          await l.getByRole('link', { name: text.lost }).click();
          await l.getByRole('heading', { level: 1, name: text.lostTitle }).waitFor();
          await checkPage(l, width, 'lost password');
          await l.locator('#user_login').fill(email);
          await l.getByRole('button', { name: text.send }).click();
          await l.getByText(text.sent).waitFor();
          await checkPage(l, width, 'lost password sent');
        } finally {
          await lostContext.close();
        }
      } finally {
        await admin.close();
        await invitee.close();
      }
    });
  }
});
