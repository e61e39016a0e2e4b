/**
 * People: invitations (single-use, expiring, resent, revoked), "Lost your password?" (the same
 * answer whatever is asked, rate-limited, the user's other sessions ended), the password policy
 * wherever a password is set (set-password page, admin API, the account's own change, CLI), and
 * "Remember me" (a persistent cookie, or a browser-session one). E-mails as an SMTP server the
 * test starts receives them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { ADMIN, STORES, type TestServer, startServer } from '../support/harness.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { startProxy } from '../support/tcp-proxy.js';
import { SUBMISSIONS_USER } from '../../src/domain/submissions/types.js';
import { viewerOf } from '../../src/domain/permissions.js';

const A = '/api/calendar/admin/v1';
const POLICY = { PASSWORD_MIN_LENGTH: '12', PASSWORD_MIN_STRENGTH: '3' };
const GOOD = 'violet anchor mosaic 41';
const WEAK = 'password1234';

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;
const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';
const linkIn = (text: string, path: string) => new RegExp(`(https?://\\S+${path}\\?token=[A-Za-z0-9_-]+)`).exec(text)?.[1] ?? '';

async function post(t: TestServer, path: string, form: Record<string, string>, cookie = ''): Promise<Response> {
  return fetch(t.origin + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(form).toString(),
  });
}

/** GET a signed-out form, then POST it as a browser does (its pre-session cookie and nonce). */
async function submitForm(t: TestServer, url: string, form: Record<string, string>, action = url): Promise<{ status: number; text: string; res: Response }> {
  const first = await fetch(url.startsWith('http') ? url : t.origin + url, { redirect: 'manual' });
  const html = await first.text();
  const path = action.startsWith('http') ? new URL(action).pathname : action.split('?')[0]!;
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  const res = await post(t, path, { ...form, _wpnonce: formNonce(html), ...(token ? { token } : {}) }, cookieOf(first));
  return { status: res.status, text: await res.text(), res };
}

async function signIn(t: TestServer, login: string, password: string, remember = false): Promise<Response> {
  const form = await fetch(t.origin + '/admin/login', { redirect: 'manual' });
  return post(t, '/admin/login', { log: login, pwd: password, _wpnonce: formNonce(await form.text()), ...(remember ? { rememberme: 'forever' } : {}) }, cookieOf(form));
}

async function sessionWorks(t: TestServer, cookie: string): Promise<boolean> {
  const res = await fetch(t.origin + '/admin/account', { redirect: 'manual', headers: { cookie } });
  await res.text();
  return res.status === 200;
}

for (const kind of STORES) {
  describe(`people: invitations, lost passwords, password policy, remember me [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    before(async () => {
      smtp = await startSmtp();
      t = await startServer(kind, {
        ...POLICY,
        SMTP_URL: smtp.url,
        SMTP_FROM: 'calendar@example.org',
        SITE_NAME: 'Town Calendar',
        PASSWORD_RESET_LIMIT: '3',
        CALENDAR_ADMIN_EMAIL: 'boss@example.org',
        CALENDAR_TIMEZONE: 'Europe/Paris',
      });
    });
    after(async () => {
      await t.close();
      await smtp.close();
    });

    it('invites by e-mail: a single-use set-password link; the policy applies; the user then signs in; the link never works twice', async () => {
      const made = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'ivy@example.org', roles: ['editor'], name: 'Ivy Green' } });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.user.username, 'ivy');
      assert.equal(made.body.user.has_password, false);
      assert.equal(made.body.link, undefined, 'with SMTP the link is only e-mailed');
      const [mail] = await smtp.waitFor((m) => m.to.includes('ivy@example.org'));
      assert.equal(mail!.subject, '[Town Calendar] You are invited to the calendar');
      const link = linkIn(mail!.text, '/admin/invitation');
      assert.ok(link, mail!.text);
      assert.ok(mail!.html.includes(`href="${link}"`));
      const pending = await t.api.get(`${A}/invitations`, { as: 'admin' });
      assert.deepEqual(
        pending.body.map((i: { username: string }) => i.username),
        ['ivy'],
      );
      // Nobody signs in as an invited user before the link is used.
      assert.equal((await signIn(t, 'ivy', '')).status, 401);

      const page = await fetch(link);
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(html, /<label for="pass1">New password<\/label>/);
      assert.match(html, /Account: ivy/);
      const weak = await submitForm(t, link, { pass1: WEAK, pass2: WEAK });
      assert.equal(weak.status, 400);
      assert.match(weak.text, /role="alert" id="form-error">The password is too easy to guess \(strength 1 of 4, at least 3 needed\)/);
      const short = await submitForm(t, link, { pass1: 'short', pass2: 'short' });
      assert.equal(short.status, 400);
      assert.match(short.text, /at least 12 characters/);
      const differ = await submitForm(t, link, { pass1: GOOD, pass2: GOOD + 'x' });
      assert.equal(differ.status, 400);
      assert.match(differ.text, /The two passwords are not the same/);

      const done = await submitForm(t, link, { pass1: GOOD, pass2: GOOD });
      assert.equal(done.status, 200);
      assert.match(done.text, /Your password is saved/);
      const signedIn = await signIn(t, 'ivy', GOOD);
      assert.equal(signedIn.status, 303);
      assert.equal((await t.api.get(`${A}/invitations`, { as: 'admin' })).body.length, 0);

      const again = await fetch(link);
      assert.equal(again.status, 410);
      assert.match(await again.text(), /This link was used already/);
      const replay = await submitForm(
        t,
        '/admin/login',
        { pass1: 'another long passphrase 9', pass2: 'another long passphrase 9', token: new URL(link).searchParams.get('token')! },
        '/admin/invitation',
      );
      assert.equal(replay.status, 410);
      const unknown = await fetch(`${t.origin}/admin/invitation?token=${'x'.repeat(43)}`);
      assert.equal(unknown.status, 404);
      assert.match(await unknown.text(), /This link is not valid/);
    });

    it('an expired invitation is refused with a clear page; resending makes a new link and ends the old one; revoking ends it and removes the user', async () => {
      const made = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'otto@example.org', roles: ['author'] } });
      assert.equal(made.status, 201, made.text);
      const id = made.body.user.id as number;
      const [first] = await smtp.waitFor((m) => m.to.includes('otto@example.org'));
      const firstLink = linkIn(first!.text, '/admin/invitation');
      const resent = await t.api.post(`${A}/invitations/${id}`, { as: 'admin' });
      assert.equal(resent.status, 200, resent.text);
      const mails = await smtp.waitFor((m) => m.to.includes('otto@example.org'), 2);
      const secondLink = linkIn(mails[1]!.text, '/admin/invitation');
      assert.notEqual(secondLink, firstLink);
      assert.equal((await fetch(firstLink)).status, 410);
      assert.equal((await fetch(secondLink)).status, 200);

      // Its time passes (written as the clock would have it).
      await sql`update user_tokens set expires_gmt = '2000-01-01 00:00:00' where user_id = ${id}`.execute(t.built.store.db);
      const expired = await fetch(secondLink);
      assert.equal(expired.status, 410);
      assert.match(await expired.text(), /This link has expired/);
      const listed = await t.api.get(`${A}/invitations`, { as: 'admin' });
      assert.equal(listed.body.find((i: { user_id: number }) => i.user_id === id).expired, true);

      const again = await t.api.post(`${A}/invitations/${id}`, { as: 'admin' });
      assert.equal(again.status, 200);
      const third = await smtp.waitFor((m) => m.to.includes('otto@example.org'), 3);
      const thirdLink = linkIn(third[2]!.text, '/admin/invitation');
      const revoked = await t.api.delete(`${A}/invitations/${id}`, { as: 'admin' });
      assert.equal(revoked.status, 200, revoked.text);
      assert.deepEqual(revoked.body, { revoked: true, removed: true });
      assert.equal((await fetch(thirdLink)).status, 410);
      assert.equal((await t.api.get(`${A}/users/${id}`, { as: 'admin' })).status, 404);
      const none = await t.api.delete(`${A}/invitations/${id}`, { as: 'admin' });
      assert.equal(none.status, 404);
      assert.equal(none.body.code, 'rest_invitation_not_found');
    });

    it('the strength meter: the set-password page loads its script (CSP: scripts from here only) and asks the server’s own check with its link and nonce', async () => {
      await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'mia@example.org', roles: ['author'] } });
      const [mail] = await smtp.waitFor((m) => m.to.includes('mia@example.org'));
      const link = linkIn(mail!.text, '/admin/invitation');
      const page = await fetch(link);
      const html = await page.text();
      assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
      assert.match(html, /<script src="\/admin\/password-meter.js" defer><\/script>/);
      assert.match(html, /data-action="\/admin\/password-strength\?kind=invite"/);
      const script = await fetch(`${t.origin}/admin/password-meter.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type')!, /^text\/javascript/);
      const token = new URL(link).searchParams.get('token')!;
      const ask = (password: string, nonce: string, cookie: string, tok = token) => post(t, '/admin/password-strength?kind=invite', { _wpnonce: nonce, token: tok, password }, cookie);
      const nonce = formNonce(html);
      const cookie = cookieOf(page);
      const weak = await ask(WEAK, nonce, cookie);
      assert.equal(weak.status, 200);
      assert.deepEqual(await weak.json(), {
        score: 1,
        ok: false,
        min_score: 3,
        min_length: 12,
        reason: 'too_weak',
        message: 'The password is too easy to guess (strength 1 of 4, at least 3 needed). This is similar to a commonly used password. Add more words that are less common.',
      });
      const good = await ask(GOOD, nonce, cookie);
      assert.equal(((await good.json()) as { ok: boolean }).ok, true);
      assert.equal((await ask(GOOD, 'wrong', cookie)).status, 403);
      assert.equal((await ask(GOOD, nonce, cookie, 'x'.repeat(43))).status, 403);
      // Signed in, the app's meter asks the REST API.
      const api = await t.api.post(`${A}/password-strength`, { as: 'admin', json: { password: WEAK } });
      assert.equal(api.status, 200);
      assert.equal(api.body.ok, false);
      assert.equal((await t.api.post(`${A}/password-strength`, { json: { password: 'x' } })).status, 401);
    });

    it('invitations: administrators only, an address required, the login and address free', async () => {
      const ed = await t.user('editor', 'ed');
      assert.equal((await t.api.post(`${A}/invitations`, { as: ed.credentials, json: { email: 'x@example.org' } })).status, 403);
      assert.equal((await t.api.post(`${A}/invitations`, { json: { email: 'x@example.org' } })).status, 401);
      const empty = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: ' ' } });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.code, 'rest_invitation_email');
      const bad = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'not-an-address' } });
      assert.equal(bad.status, 400);
      const taken = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'ivy@example.org' } });
      assert.equal(taken.status, 400);
      assert.equal(taken.body.code, 'existing_user_email');
    });

    it('lost password: the same answer for any login; a link only to a real account; its use ends every session of the user', async () => {
      await t.built.services.users.add({ login: 'lou', role: 'author', password: GOOD, email: 'lou@example.org' });
      const phone = cookieOf(await signIn(t, 'lou', GOOD));
      assert.ok(await sessionWorks(t, phone));
      const login = await fetch(t.origin + '/admin/login');
      assert.match(await login.text(), /<a href="\/admin\/lost-password">Lost your password\?<\/a>/);

      const unknown = await submitForm(t, '/admin/lost-password', { user_login: 'nobody-here' });
      const known = await submitForm(t, '/admin/lost-password', { user_login: 'lou@example.org' });
      assert.equal(unknown.status, 200);
      assert.equal(known.status, 200);
      const answer = (s: string) => /<div class="notice" role="status">([^<]+)<\/div>/.exec(s)?.[1];
      assert.ok(answer(known.text));
      assert.equal(answer(unknown.text), answer(known.text));
      const [mail] = await smtp.waitFor((m) => m.to.includes('lou@example.org'));
      assert.equal(mail!.subject, '[Town Calendar] Reset your password');
      const link = linkIn(mail!.text, '/admin/reset-password');
      assert.ok(link);
      const weak = await submitForm(t, link, { pass1: WEAK, pass2: WEAK });
      assert.equal(weak.status, 400);
      const NEW = 'granite lantern orbit 77';
      const done = await submitForm(t, link, { pass1: NEW, pass2: NEW });
      assert.equal(done.status, 200, done.text);
      assert.equal(await sessionWorks(t, phone), false, 'the other sessions ended');
      assert.equal((await signIn(t, 'lou', GOOD)).status, 401);
      assert.equal((await signIn(t, 'lou', NEW)).status, 303);
      assert.equal((await fetch(link)).status, 410);
      assert.ok(!smtp.messages.some((m) => m.text.includes('nobody-here')));
    });

    it('lost password is rate-limited (PASSWORD_RESET_LIMIT from one address and for one account): the answer stays the same, no more mail', async () => {
      const own = await startServer(kind, { ...POLICY, SMTP_URL: smtp.url, PASSWORD_RESET_LIMIT: '3' });
      try {
        await own.built.services.users.add({ login: 'rita', role: 'author', password: GOOD, email: 'rita@example.org' });
        const answers = new Set<string>();
        for (let i = 0; i < 5; i++) {
          const r = await submitForm(own, '/admin/lost-password', { user_login: 'rita' });
          assert.equal(r.status, 200);
          answers.add(/<div class="notice" role="status">([^<]+)<\/div>/.exec(r.text)![1]!);
        }
        assert.equal(answers.size, 1);
        await smtp.waitFor((m) => m.to.includes('rita@example.org'), 3);
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(smtp.messages.filter((m) => m.to.includes('rita@example.org')).length, 3);
      } finally {
        await own.close();
      }
    });

    it('lost password counts a client by its IPv6 /64, as every limit does: addresses of one /64 share PASSWORD_RESET_LIMIT', async () => {
      const own = await startServer(kind, { ...POLICY, SMTP_URL: smtp.url, PASSWORD_RESET_LIMIT: '3' });
      try {
        const logins = ['rhea', 'rory', 'ruth', 'rene', 'rolf'];
        for (const login of logins) await own.built.services.users.add({ login, role: 'author', password: GOOD, email: `${login}@example.org` });
        // Five accounts (none reaches its own limit) asked from five addresses of one /64: three mails.
        for (const [i, login] of logins.entries()) await own.built.services.people.requestReset(login, `2001:db8:77:1::${i + 1}`, 'en');
        // The next /64 is another client.
        await own.built.services.people.requestReset('rolf', '2001:db8:77:2::1', 'en');
        const to = (login: string) => smtp.messages.filter((m) => m.to.includes(`${login}@example.org`)).length;
        await smtp.waitFor((m) => m.to.includes('rolf@example.org'), 1);
        await new Promise((r) => setTimeout(r, 1500));
        assert.deepEqual(logins.map(to), [1, 1, 1, 0, 1]);
      } finally {
        await own.close();
      }
    });

    it('the password policy applies to the admin API and to the account’s own change (which needs the current password)', async () => {
      const weak = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'wes', password: WEAK, roles: ['author'] } });
      assert.equal(weak.status, 400);
      assert.equal(weak.body.code, 'weak_password');
      assert.equal(weak.body.data.status, 400);
      assert.equal(weak.body.data.reason, 'too_weak');
      assert.equal(weak.body.data.min_score, 3);
      assert.equal((await t.api.get(`${A}/users`, { as: 'admin', query: { search: 'wes' } })).body.length, 0, 'nothing half-written');
      const ownName = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'wesley.walker', password: 'wesley.walker1', roles: ['author'] } });
      assert.equal(ownName.status, 400);
      assert.equal(ownName.body.code, 'weak_password');
      const made = await t.api.post(`${A}/users`, { as: 'admin', json: { username: 'wes', password: GOOD, roles: ['author'] } });
      assert.equal(made.status, 201, made.text);
      const patch = await t.api.patch(`${A}/users/${made.body.id}`, { as: 'admin', json: { password: 'short' } });
      assert.equal(patch.status, 400);
      assert.equal(patch.body.code, 'weak_password');
      assert.equal(patch.body.data.reason, 'too_short');

      const me = await t.api.get(`${A}/me`, { as: `wes:${GOOD}` });
      assert.equal(me.body.username, 'wes');
      const wrong = await t.api.patch(`${A}/me`, { as: `wes:${GOOD}`, json: { password: 'quartz meadow violin 5', current_password: 'nope' } });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.code, 'incorrect_password');
      const weakOwn = await t.api.patch(`${A}/me`, { as: `wes:${GOOD}`, json: { password: WEAK, current_password: GOOD } });
      assert.equal(weakOwn.body.code, 'weak_password');
      const ok = await t.api.patch(`${A}/me`, { as: `wes:${GOOD}`, json: { password: 'quartz meadow violin 5', current_password: GOOD, name: 'Wes W.' } });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.name, 'Wes W.');
      assert.equal((await t.api.get(`${A}/me`, { as: 'wes:quartz meadow violin 5' })).status, 200);
    });

    it('the first administrator of CALENDAR_ADMIN_USER gets the address of CALENDAR_ADMIN_EMAIL, so a lost password can reach them', async () => {
      const me = await t.api.get(`${A}/me`, { as: 'admin' });
      assert.equal(me.body.email, 'boss@example.org');
    });

    it('Remember me: a persistent cookie for SESSION_MAX_AGE; without it a browser-session cookie; both HttpOnly, SameSite=Lax', async () => {
      const session = await signIn(t, ADMIN.login, ADMIN.password);
      const plain = session.headers.get('set-cookie')!;
      assert.match(plain, /^calendar_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
      const remembered = await signIn(t, ADMIN.login, ADMIN.password, true);
      const kept = remembered.headers.get('set-cookie')!;
      assert.match(kept, /^calendar_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600; Expires=[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      const expires = Date.parse(/Expires=([^;]+)/.exec(kept)![1]!);
      assert.ok(Math.abs(expires - (Date.now() + 14 * 86_400_000)) < 60_000);
      const page = await fetch(t.origin + '/admin/login');
      assert.match(await page.text(), /<input type="checkbox" id="rememberme" name="rememberme" value="forever"[^>]*><label for="rememberme">Remember me<\/label>/);
    });

    it('the sessions list says which session is this one and the device in words; sign out everywhere else keeps this one', async () => {
      await t.built.services.users.add({ login: 'sam', role: 'editor', password: GOOD });
      const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
      const form = await fetch(t.origin + '/admin/login', { headers: { 'user-agent': firefox } });
      const other = await fetch(t.origin + '/admin/login', {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form), 'user-agent': firefox },
        body: new URLSearchParams({ log: 'sam', pwd: GOOD, _wpnonce: formNonce(await form.text()) }).toString(),
      });
      const otherCookie = cookieOf(other);
      const mine = cookieOf(await signIn(t, 'sam', GOOD));
      const account = await (await fetch(t.origin + '/admin/account', { headers: { cookie: mine } })).text();
      const nonce = /name="calendar-rest-nonce" content="([^"]*)"/.exec(account)![1]!;
      // The server-rendered account page says the same, its times in the site's zone.
      assert.match(account, /<td class="optional">Firefox on Windows<\/td>/);
      assert.match(account, /\(Europe\/Paris\)<\/td>/);
      const list = await fetch(`${t.origin}${A}/sessions`, { headers: { cookie: mine, 'x-wp-nonce': nonce } });
      const rows = (await list.json()) as Array<{ current: boolean; device: { browser: string; os: string } }>;
      assert.equal(rows.length, 2);
      assert.deepEqual(rows.find((r) => !r.current)!.device, { browser: 'Firefox', os: 'Windows' });
      assert.equal(rows.filter((r) => r.current).length, 1);
      const out = await fetch(`${t.origin}${A}/sessions?keep_current=true`, { method: 'DELETE', headers: { cookie: mine, 'x-wp-nonce': nonce } });
      assert.deepEqual(await out.json(), { deleted: true, count: 1 });
      assert.equal(await sessionWorks(t, otherCookie), false);
      assert.equal(await sessionWorks(t, mine), true);
    });
  });
}

describe('people on the command line [sqlite]', () => {
  let dir: string;
  let server: TestServer;
  let url: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'people-cli-'));
    ({ server, url } = await cliTarget(STORES[0]!, dir, 'people'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first administrator made with the CLI needs an e-mail address', async () => {
    const fresh = `sqlite:${join(dir, 'fresh.db')}`;
    assert.equal((await cli(['migrate'], { DATABASE_URL: fresh, LOG_LEVEL: 'silent' })).code, 0);
    const env = { DATABASE_URL: fresh, LOG_LEVEL: 'silent', ...POLICY };
    const none = await cli(['users', 'add', 'root', '--role', 'administrator', '--password-stdin'], env, GOOD + '\n');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /the first administrator needs an e-mail address: give --email/);
    const made = await cli(['users', 'add', 'root', '--role', 'administrator', '--email', 'root@example.org', '--password-stdin'], env, GOOD + '\n');
    assert.equal(made.code, 0, made.stderr);
    // The next one may go without.
    assert.equal((await cli(['users', 'add', 'root2', '--role', 'administrator', '--password-stdin'], env, GOOD + '\n')).code, 0);
  });

  it('users add and set-password refuse a weak password; users invite prints the link without SMTP_URL', async () => {
    const env = cliEnv(url, { LOG_LEVEL: 'silent', ...POLICY });
    const weak = await cli(['users', 'add', 'cleo', '--role', 'author', '--password-stdin'], env, WEAK + '\n');
    assert.equal(weak.code, 2, weak.stderr);
    assert.match(weak.stderr, /weak password: The password is too easy to guess/);
    const ok = await cli(['users', 'add', 'cleo', '--role', 'author', '--password-stdin'], env, GOOD + '\n');
    assert.equal(ok.code, 0, ok.stderr);
    const reset = await cli(['users', 'set-password', 'cleo', '--password-stdin'], env, 'short\n');
    assert.equal(reset.code, 2);
    assert.match(reset.stderr, /at least 12 characters/);
    const invited = await cli(['users', 'invite', 'dora@example.org', '--role', 'editor', '--name', 'Dora'], { ...env, SITE_URL: server.origin });
    assert.equal(invited.code, 0, invited.stderr);
    const link = /(http\S+\/admin\/invitation\?token=\S+)/.exec(invited.stdout)?.[1];
    assert.ok(link, invited.stdout);
    assert.equal((await fetch(link!)).status, 200);
  });
});

for (const kind of STORES) {
  describe(`review notifications [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    before(async () => {
      smtp = await startSmtp();
      t = await startServer(kind, { SMTP_URL: smtp.url, SITE_NAME: 'Town Calendar' });
      await t.built.services.users.add({ login: 'cara', role: 'contributor', password: 'cara-pw', email: 'cara@example.org', name: 'Cara' });
      await t.built.services.users.add({ login: 'eve', role: 'editor', password: 'eve-pw', email: 'eve@example.org' });
    });
    after(async () => {
      await t.close();
      await smtp.close();
    });
    const EVENT = { start_date: '2031-06-21 18:00:00', end_date: '2031-06-21 20:00:00' };

    it('editors hear when a contributor submits an event for review; the contributor when it is published, with its address', async () => {
      const made = await t.api.post('/events', { as: 'cara:cara-pw', json: { ...EVENT, title: 'Choir night', status: 'pending' } });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.status, 'pending');
      const [toEditor] = await smtp.waitFor((m) => m.to.includes('eve@example.org') && m.subject.includes('Choir night'));
      assert.equal(toEditor!.subject, '[Town Calendar] An event waits for review: Choir night');
      assert.match(toEditor!.text, /Cara submitted an event for review/);
      assert.ok(toEditor!.text.includes(`/admin/events/${made.body.id}`));
      const published = await t.api.post(`/events/${made.body.id}`, { as: 'eve:eve-pw', json: { status: 'publish' } });
      assert.equal(published.status, 200, published.text);
      const [toCara] = await smtp.waitFor((m) => m.to.includes('cara@example.org') && m.subject.includes('published'));
      assert.equal(toCara!.subject, '[Town Calendar] Your event is published: Choir night');
      assert.ok(toCara!.text.includes(published.body.url), toCara!.text);
      // An editor's own drafts and publications tell nobody.
      const own = await t.api.post('/events', { as: 'eve:eve-pw', json: { ...EVENT, title: 'Editor own', status: 'pending' } });
      assert.equal(own.status, 201);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(!smtp.messages.some((m) => m.subject.includes('Editor own')));
    });

    it("an anonymous community submission's event, seen before its submission row is written, tells no editor (its own e-mails do)", async () => {
      const services = t.built.services;
      const account =
        (await services.users.list()).find((u) => u.login === SUBMISSIONS_USER) ??
        (await services.users.add({ login: SUBMISSIONS_USER, role: 'contributor', password: '', noPassword: true, name: 'Community submissions', system: true }));
      // The submissions service writes the event first and its row just after: the review reader may run between.
      await services.events.create(viewerOf({ id: Number(account.id), login: SUBMISSIONS_USER, role: 'contributor' }), { ...EVENT, title: 'Proposed by the public', status: 'pending' });
      const marker = await t.api.post('/events', { as: 'cara:cara-pw', json: { ...EVENT, title: 'After the proposal', status: 'pending' } });
      assert.equal(marker.status, 201);
      await smtp.waitFor((m) => m.subject.includes('After the proposal'));
      assert.ok(!smtp.messages.some((m) => m.subject.includes('Proposed by the public')));
    });

    it('send back with a note: back to draft, the contributor gets the note; editors only, a note required, pending only', async () => {
      const made = await t.api.post('/events', { as: 'cara:cara-pw', json: { ...EVENT, title: 'Bake sale', status: 'pending' } });
      assert.equal(made.status, 201);
      const path = `${A}/events/${made.body.id}/send-back`;
      assert.equal((await t.api.post(path, { as: 'cara:cara-pw', json: { note: 'x' } })).status, 403);
      const noNote = await t.api.post(path, { as: 'eve:eve-pw', json: { note: '  ' } });
      assert.equal(noNote.status, 400);
      assert.equal(noNote.body.code, 'rest_review_note_required');
      const long = await t.api.post(path, { as: 'eve:eve-pw', json: { note: 'x'.repeat(5001) } });
      assert.equal(long.status, 400);
      assert.equal(long.body.code, 'rest_invalid_param');
      assert.equal((await t.api.get(`/events/${made.body.id}`, { as: 'eve:eve-pw' })).body.status, 'pending', 'nothing half-written');
      const back = await t.api.post(path, { as: 'eve:eve-pw', json: { note: 'Please add the venue.\nThanks!' } });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.status, 'draft');
      const [mail] = await smtp.waitFor((m) => m.to.includes('cara@example.org') && m.subject.includes('Bake sale'));
      assert.equal(mail!.subject, '[Town Calendar] Your event was sent back: Bake sale');
      assert.match(mail!.text, /Please add the venue\.\r?\nThanks!/);
      assert.match(mail!.html, /<blockquote>Please add the venue\.<br>Thanks!<\/blockquote>/);
      const again = await t.api.post(path, { as: 'eve:eve-pw', json: { note: 'again' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'rest_review_not_pending');
      assert.equal((await t.api.post(`${A}/events/999999/send-back`, { as: 'eve:eve-pw', json: { note: 'x' } })).status, 404);
    });
  });
}

for (const kind of STORES) {
  describe(`people's e-mails survive an SMTP outage [${kind.name}]`, () => {
    it('a mail the SMTP server could not take stays queued and is sent on a later try', async () => {
      const smtp = await startSmtp();
      const port = Number(new URL(smtp.url).port);
      const proxy = await startProxy('127.0.0.1', port);
      const t = await startServer(kind, { SMTP_URL: `smtp://127.0.0.1:${proxy.port}` });
      try {
        await proxy.down('refuse');
        const made = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'una@example.org', roles: ['author'] } });
        assert.equal(made.status, 201, made.text);
        const tried = await t.built.mailOutbox!.runOnce();
        assert.equal(tried.value, 0);
        const row = await sql<{ attempts: number; sent_gmt: string | null; last_error: string }>`select attempts, sent_gmt, last_error from mail_outbox where recipient = 'una@example.org'`.execute(
          t.built.store.db,
        );
        assert.equal(Number(row.rows[0]!.attempts) >= 1, true);
        assert.equal(row.rows[0]!.sent_gmt, null);
        assert.notEqual(row.rows[0]!.last_error, '');
        await proxy.up();
        // Its retry time comes (written as the clock would have it).
        await sql`update mail_outbox set next_ms = 0 where recipient = 'una@example.org'`.execute(t.built.store.db);
        await t.built.mailOutbox!.runOnce();
        const [mail] = await smtp.waitFor((m) => m.to.includes('una@example.org'));
        assert.match(mail!.text, /\/admin\/invitation\?token=/);
      } finally {
        await t.close();
        await proxy.close();
        await smtp.close();
      }
    });
  });
}
