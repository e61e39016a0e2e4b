/**
 * Issue 28, item 1: sign-in as WordPress does it. The login page signs in through the Basic
 * throttle, sets the session cookie, and a request with the cookie counts as the user only with
 * the session's nonce (`X-WP-Nonce` or `_wpnonce`): without one it is anonymous, with a wrong one
 * 403 `rest_cookie_invalid_nonce`. Sessions expire (idle, absolute), are revoked at once on every
 * instance, and can need a TOTP code.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';

const EVENT = { title: 'Cookie event', start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00' };

interface Browser {
  cookie: string;
  nonce: string;
}

async function post(t: TestServer, path: string, form: Record<string, string>, cookie = '', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.origin + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

async function page(t: TestServer, path: string, cookie: string): Promise<{ status: number; text: string; res: Response }> {
  const res = await fetch(t.origin + path, { redirect: 'manual', headers: { cookie } });
  return { status: res.status, text: await res.text(), res };
}

const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';
const restNonce = (html: string) => /name="calendar-rest-nonce" content="([^"]*)"/.exec(html)?.[1] ?? '';

/** POST the login form as a browser does: GET it first (its pre-session cookie and login nonce). */
async function loginPost(t: TestServer, form: Record<string, string>, _cookie = '', headers: Record<string, string> = {}): Promise<Response> {
  const form0 = await fetch(t.origin + '/admin/login', { redirect: 'manual', headers });
  return post(t, '/admin/login', { ...form, _wpnonce: formNonce(await form0.text()) }, cookieOf(form0), headers);
}

async function signIn(t: TestServer, login = ADMIN.login, password = ADMIN.password): Promise<Browser> {
  const res = await loginPost(t, { log: login, pwd: password });
  assert.equal(res.status, 303, await res.text());
  assert.equal(res.headers.get('location'), '/admin/');
  const cookie = cookieOf(res);
  const account = await page(t, '/admin/account', cookie);
  assert.equal(account.status, 200);
  return { cookie, nonce: restNonce(account.text) };
}

const create = (t: TestServer, b: Browser, headers: Record<string, string> = {}) =>
  fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: b.cookie, ...headers }, body: JSON.stringify(EVENT) });

for (const kind of STORES) {
  describe(`admin sign-in and cookie authentication [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { LOGIN_MAX_FAILURES: '3' });
    });
    after(async () => {
      await t.close();
    });

    it('serves an accessible login page, in the language asked for', async () => {
      const en = await page(t, '/admin/login', '');
      assert.equal(en.status, 200);
      assert.match(en.text, /<html lang="en">/);
      assert.match(en.text, /<label for="user_login">/);
      assert.equal(en.res.headers.get('x-frame-options'), 'DENY');
      const fr = await fetch(t.origin + '/admin/login', { headers: { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' } });
      assert.match(await fr.text(), /<html lang="fr">.*Se connecter/s);
      const account = await page(t, '/admin/account', '');
      assert.equal(account.status, 303);
      assert.equal(account.res.headers.get('location'), '/admin/login?redirect_to=%2Fadmin%2Faccount');
    });

    it('refuses a login POST without the login nonce of its pre-session cookie (login CSRF), and sets no session', async () => {
      // A cross-site form: no pre-session cookie, no nonce.
      const forged = await post(t, '/admin/login', { log: ADMIN.login, pwd: ADMIN.password }, '', { origin: 'https://evil.example' });
      assert.equal(forged.status, 403);
      assert.doesNotMatch(forged.headers.get('set-cookie') ?? '', /calendar_session=[^;]/);
      assert.match(await forged.text(), /role="alert" id="form-error">This sign-in form has expired/);
      // A nonce of another browser's cookie does not go with this one.
      const a = await fetch(t.origin + '/admin/login');
      const b = await fetch(t.origin + '/admin/login');
      assert.match(a.headers.get('set-cookie')!, /^calendar_login=[A-Za-z0-9_-]{43}; Path=\/admin\/; HttpOnly; SameSite=Lax$/);
      await b.text();
      const mixed = await post(t, '/admin/login', { log: ADMIN.login, pwd: ADMIN.password, _wpnonce: formNonce(await a.text()) }, cookieOf(b));
      assert.equal(mixed.status, 403);
      await mixed.text();
      // The browser's own form works.
      assert.equal((await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password })).status, 303);
    });

    it('serves the admin app in a calendar under /c/{slug}/admin/ with that calendar’s REST root, app path and assets; sign-in brings the user back', async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      const anonymous = await page(t, '/c/north/admin/events/5', '');
      assert.equal(anonymous.status, 303);
      assert.equal(anonymous.res.headers.get('location'), '/admin/login?redirect_to=%2Fc%2Fnorth%2Fadmin%2Fevents%2F5');
      const res = await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password, redirect_to: '/c/north/admin/events/5' });
      assert.equal(res.headers.get('location'), '/c/north/admin/events/5');
      const app = await page(t, '/c/north/admin/events/5', cookieOf(res));
      assert.equal(app.status, 200);
      const boot = JSON.parse(/<script type="application\/json" id="admin-boot">(.*?)<\/script>/s.exec(app.text)![1]!);
      assert.equal(boot.restRoot, '/c/north/api');
      assert.equal(boot.adminPath, '/c/north/admin');
      assert.equal(boot.siteUrl, `${t.config.siteUrl}/c/north`);
      assert.equal(boot.siteName, 'North side');
      const script = /<script type="module" crossorigin src="([^"]+\.js)"/.exec(app.text)![1]!;
      assert.match(script, /^\/c\/north\/admin\/assets\//);
      assert.equal((await fetch(t.origin + script)).status, 200);
      // A calendar's own administrator does not administer the network.
      await t.user('subscriber', 'nadia');
      await t.built.services.calendars.setRole('nadia', 'north', 'administrator');
      const hers = await page(t, '/c/north/admin/', cookieOf(await loginPost(t, { log: 'nadia', pwd: 'nadia-pw' })));
      const herBoot = JSON.parse(/<script type="application\/json" id="admin-boot">(.*?)<\/script>/s.exec(hers.text)![1]!);
      assert.deepEqual(herBoot.user.roles, ['administrator']);
      assert.deepEqual(herBoot.features, []);
    });

    it('serves the admin app to signed-in users at ADMIN_PATH/ and every app path, with its boot data; assets are immutable', async () => {
      const anonymous = await page(t, '/admin/events/5', '');
      assert.equal(anonymous.status, 303);
      assert.equal(anonymous.res.headers.get('location'), '/admin/login?redirect_to=%2Fadmin%2Fevents%2F5');
      const form = await page(t, '/admin/login?redirect_to=%2Fadmin%2Fevents%2F5', '');
      assert.match(form.text, /name="redirect_to" value="\/admin\/events\/5"/);
      const res = await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password, redirect_to: '/admin/events/5' });
      assert.equal(res.headers.get('location'), '/admin/events/5');
      for (const evil of ['//evil.example/admin/', 'https://evil.example/', '/elsewhere']) {
        const r = await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password, redirect_to: evil });
        assert.equal(r.headers.get('location'), '/admin/', evil);
      }
      const cookie = cookieOf(res);
      for (const path of ['/admin/', '/admin/events/5', '/admin/venues']) {
        const app = await page(t, path, cookie);
        assert.equal(app.status, 200, path);
        assert.equal(app.res.headers.get('cache-control'), 'no-store');
        const csp = app.res.headers.get('content-security-policy')!;
        assert.match(csp, /script-src 'self';/);
        assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
        const boot = JSON.parse(/<script type="application\/json" id="admin-boot">(.*?)<\/script>/s.exec(app.text)![1]!);
        assert.equal(boot.restRoot, '/api');
        assert.equal(boot.adminPath, '/admin');
        assert.equal(boot.locale, 'en');
        assert.deepEqual(boot.user.roles, ['administrator']);
        assert.equal(boot.user.name, 'admin');
        assert.equal(boot.user.capabilities.publish_tribe_events, true);
        // Optional features (their screens, e.g. moderation, exist only when on): off by default;
        // `network`: the administrator of the default calendar administers the network (Calendars).
        assert.deepEqual(boot.features, ['network']);
        // The embedded nonce is the session's REST nonce.
        assert.equal((await create(t, { cookie, nonce: boot.nonce }, { 'x-wp-nonce': boot.nonce })).status, 201);
        const script = /<script type="module" crossorigin src="(\/admin\/assets\/[^"]+\.js)"/.exec(app.text)![1]!;
        const asset = await fetch(t.origin + script);
        assert.equal(asset.status, 200);
        assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.match(asset.headers.get('content-type')!, /^text\/javascript/);
      }
      assert.equal((await fetch(t.origin + '/admin/assets/nothing-here.js')).status, 404);
      assert.equal((await fetch(t.origin + '/admin/assets/..%2F..%2Fpackage.json')).status, 404);
      // The account page moved under the app, and links back to it.
      const account = await page(t, '/admin/account', cookie);
      assert.match(account.text, /<a href="\/admin\/">Open the admin<\/a>/);
    });

    it('honours the language the user chose (cookie) on the login and account pages, over Accept-Language', async () => {
      const choose = await fetch(t.origin + '/admin/language?lang=fr&redirect_to=%2Fadmin%2Flogin', { redirect: 'manual' });
      assert.equal(choose.status, 303);
      assert.equal(choose.headers.get('location'), '/admin/login');
      assert.match(choose.headers.get('set-cookie')!, /^calendar_lang=fr; Path=\/; Max-Age=31536000; SameSite=Lax$/);
      const fr = await fetch(t.origin + '/admin/login', { headers: { cookie: 'calendar_lang=fr', 'accept-language': 'en' } });
      const text = await fr.text();
      assert.match(text, /<html lang="fr">.*Se connecter/s);
      assert.match(text, /<a lang="en" hreflang="en" href="\/admin\/language\?lang=en&amp;redirect_to=%2Fadmin%2Flogin">English<\/a>/);
      const b = await signIn(t);
      const account = await page(t, '/admin/account', `${b.cookie}; calendar_lang=fr`);
      assert.match(account.text, /<html lang="fr">.*Vos sessions/s);
      const app = await page(t, '/admin/', `${b.cookie}; calendar_lang=fr`);
      assert.equal(JSON.parse(/id="admin-boot">(.*?)<\/script>/s.exec(app.text)![1]!).locale, 'fr');
    });

    it('signs in: the cookie is HttpOnly, SameSite=Lax, not Secure over HTTP, Secure behind a trusted HTTPS proxy', async () => {
      const res = await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password });
      assert.equal(res.status, 303);
      const set = res.headers.get('set-cookie')!;
      assert.match(set, /^calendar_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
      // TRUST_PROXY off: X-Forwarded-Proto is not believed.
      const spoofed = await loginPost(t, { log: ADMIN.login, pwd: ADMIN.password }, '', { 'x-forwarded-proto': 'https' });
      assert.doesNotMatch(spoofed.headers.get('set-cookie')!, /Secure/);
      const proxied = await startServer(kind, { TRUST_PROXY: 'true' });
      try {
        const https = await loginPost(proxied, { log: ADMIN.login, pwd: ADMIN.password }, '', { 'x-forwarded-proto': 'https' });
        assert.match(https.headers.get('set-cookie')!, /; Secure/);
      } finally {
        await proxied.close();
      }
    });

    it('a cookie without a nonce is anonymous; with the nonce it is the user; a wrong nonce is 403 rest_cookie_invalid_nonce', async () => {
      const b = await signIn(t);
      assert.notEqual(b.nonce, '');
      assert.equal((await create(t, b)).status, 401, 'anonymous without a nonce');
      const ok = await create(t, b, { 'x-wp-nonce': b.nonce });
      assert.equal(ok.status, 201);
      assert.ok(ok.headers.get('x-wp-nonce'), 'a fresh nonce comes back');
      const viaQuery = await fetch(`${t.base}/events?_wpnonce=${b.nonce}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: b.cookie }, body: JSON.stringify(EVENT) });
      assert.equal(viaQuery.status, 201);
      const wrong = await create(t, b, { 'x-wp-nonce': 'abc123' });
      assert.equal(wrong.status, 403);
      assert.deepEqual(await wrong.json(), { code: 'rest_cookie_invalid_nonce', message: 'Cookie check failed', data: { status: 403 } });
      // The nonce endpoint, as admin-ajax.php?action=rest-nonce.
      const n = await page(t, '/admin/rest-nonce', b.cookie);
      assert.equal(n.status, 200);
      assert.equal(n.text, b.nonce);
      assert.equal((await page(t, '/admin/rest-nonce', '')).status, 400);
    });

    it('a nonce of another session or another user is refused', async () => {
      await t.user('editor', 'eve');
      const a = await signIn(t);
      const a2 = await signIn(t);
      const e = await signIn(t, 'eve', 'eve-pw');
      assert.equal((await create(t, a, { 'x-wp-nonce': a2.nonce })).status, 403);
      assert.equal((await create(t, a, { 'x-wp-nonce': e.nonce })).status, 403);
      assert.equal((await create(t, e, { 'x-wp-nonce': e.nonce })).status, 201);
    });

    it('an expired or signed-out cookie is anonymous, nonce or not (WordPress: no error)', async () => {
      const b = await signIn(t);
      const out = await post(t, '/admin/sign-out', { _wpnonce: formNonce((await page(t, '/admin/account', b.cookie)).text) }, b.cookie);
      assert.equal(out.status, 200);
      assert.match(out.headers.get('set-cookie')!, /calendar_session=; .*Max-Age=0/);
      assert.equal((await create(t, b, { 'x-wp-nonce': b.nonce })).status, 401);
      assert.equal((await page(t, '/admin/account', b.cookie)).status, 303);
    });

    it('a form without its nonce is refused (CSRF)', async () => {
      const b = await signIn(t);
      const res = await post(t, '/admin/sign-out-everywhere', {}, b.cookie);
      assert.equal(res.status, 403);
      const res2 = await post(t, '/admin/sign-out-everywhere', { _wpnonce: b.nonce }, b.cookie);
      assert.equal(res2.status, 403, 'the REST nonce is not the form nonce');
      assert.equal((await create(t, b, { 'x-wp-nonce': b.nonce })).status, 201);
    });

    it('a refused sign-in goes through the Basic throttle: the same limits and 429', async () => {
      await t.user('author', 'tom');
      for (let i = 0; i < 3; i++) {
        const res = await loginPost(t, { log: 'tom', pwd: 'wrong' });
        assert.equal(res.status, 401);
        assert.match(await res.text(), /role="alert" id="form-error">The username or password is incorrect/);
      }
      const blocked = await loginPost(t, { log: 'tom', pwd: 'tom-pw' });
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
      // Basic auth from the same client is refused likewise (one throttle per client and user).
      const basic = await t.api.get('/events', { as: 'tom:tom-pw' });
      assert.equal(basic.status, 429);
      // An application password does not sign in.
      const { password } = await t.built.services.users.addAppPassword(ADMIN.login, 'app');
      assert.equal((await loginPost(t, { log: ADMIN.login, pwd: password })).status, 401);
    });

    it('sessions end after SESSION_IDLE and SESSION_MAX_AGE (the services clock)', async () => {
      const s = await startServer(kind, { SESSION_IDLE: '1h', SESSION_MAX_AGE: '3h' });
      const clock = s.built.services.clock;
      const real = clock.nowGmt;
      let offset = 0;
      clock.nowGmt = () => new Date(Date.now() + offset).toISOString().slice(0, 19).replace('T', ' ');
      try {
        const b = await signIn(s);
        offset = 50 * 60_000;
        assert.equal((await create(s, b, { 'x-wp-nonce': b.nonce })).status, 201, 'used within the hour');
        offset = 100 * 60_000;
        assert.equal((await create(s, b, { 'x-wp-nonce': b.nonce })).status, 201, 'an hour since its last use is not over');
        offset = 161 * 60_000;
        assert.equal((await create(s, b, { 'x-wp-nonce': b.nonce })).status, 401, 'idle for an hour');
        const c = await signIn(s);
        for (const minutes of [210, 260, 310, 340]) {
          offset = minutes * 60_000;
          assert.equal((await create(s, c, { 'x-wp-nonce': c.nonce })).status, 201, `${minutes}`);
        }
        offset = (161 + 181) * 60_000;
        assert.equal((await create(s, c, { 'x-wp-nonce': c.nonce })).status, 401, 'three hours after sign-in');
      } finally {
        clock.nowGmt = real;
        await s.close();
      }
    });

    it("GET/DELETE calendar/admin/v1/sessions: own sessions, administrators any user's; declared in the index", async () => {
      const admin = (path: string) => `${t.origin}/api/calendar/admin/v1${path}`;
      const sam = await t.user('author', 'sam');
      const b1 = await signIn(t, 'sam', 'sam-pw');
      const b2 = await signIn(t, 'sam', 'sam-pw');
      const mine = await t.api.get(admin('/sessions'), { as: 'sam' });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.length, 2);
      assert.deepEqual(Object.keys(mine.body[0]), ['id', 'user', 'created_gmt', 'last_used_gmt', 'user_agent', 'ip', 'device', 'remember', 'current']);
      assert.equal((await t.api.get(admin('/sessions'))).status, 401);
      assert.equal((await t.api.get(admin('/sessions'), { as: 'sam', query: { user: 1 } })).status, 403);
      // The cookie and its nonce work here too.
      assert.equal((await fetch(admin('/sessions'), { headers: { cookie: b1.cookie, 'x-wp-nonce': b1.nonce } })).status, 200);
      // One session ended by its owner, the other by an administrator.
      assert.equal((await t.api.delete(admin(`/sessions/${mine.body[0].id}`), { as: 'sam' })).status, 200);
      assert.equal((await create(t, b1, { 'x-wp-nonce': b1.nonce })).status, 401);
      assert.equal((await t.api.delete(admin(`/sessions/${mine.body[1].id}`), { as: 'eve:eve-pw' })).status, 404, "another user's session is not found");
      const all = await t.api.delete(admin('/sessions'), { as: 'admin', query: { user: sam.id } });
      assert.deepEqual(all.body, { deleted: true, count: 1 });
      assert.equal((await create(t, b2, { 'x-wp-nonce': b2.nonce })).status, 401);
      assert.equal((await t.api.get(admin('/sessions'), { as: 'admin', query: { user: 999999 } })).status, 404);
      const index = await t.api.get(`${t.origin}/api/calendar/admin/v1`);
      assert.ok(index.body.routes['/calendar/admin/v1/sessions'], 'declared in the namespace index');
      assert.ok(index.body.routes['/calendar/admin/v1/sessions/(?P<id>\\d+)'] ?? Object.keys(index.body.routes).find((r) => r.startsWith('/calendar/admin/v1/sessions/')));
    });

    it('TOTP: enrolment with a QR code, sign-in with the code, a recovery code once', async () => {
      await t.user('editor', 'tina');
      const b = await signIn(t, 'tina', 'tina-pw');
      let account = (await page(t, '/admin/account', b.cookie)).text;
      assert.equal((await post(t, '/admin/two-factor/start', { _wpnonce: formNonce(account) }, b.cookie)).status, 303);
      account = (await page(t, '/admin/account', b.cookie)).text;
      assert.match(account, /<svg role="img" aria-label="QR code of the secret key"/);
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(account)![1]!;
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      assert.equal((await post(t, '/admin/two-factor/confirm', { _wpnonce: formNonce(account), code: '000000' === totp.generate() ? '111111' : '000000' }, b.cookie)).status, 400);
      const confirmed = await post(t, '/admin/two-factor/confirm', { _wpnonce: formNonce(account), code: totp.generate() }, b.cookie);
      assert.equal(confirmed.status, 200);
      const codes = [...(await confirmed.text()).matchAll(/<li><code>([0-9a-f]+)<\/code><\/li>/g)].map((m) => m[1]!);
      assert.equal(codes.length, 10);
      account = (await page(t, '/admin/account', b.cookie)).text;
      assert.doesNotMatch(account, new RegExp(secret), 'the secret is never shown again');
      assert.match(account, /Recovery codes left: 10/);

      // Sign in again: the password alone leaves the session waiting for the code.
      const res = await loginPost(t, { log: 'tina', pwd: 'tina-pw' });
      assert.equal(res.headers.get('location'), '/admin/login');
      const half = cookieOf(res);
      const step = await page(t, '/admin/login', half);
      assert.match(step.text, /autocomplete="one-time-code"/);
      assert.equal((await page(t, '/admin/account', half)).status, 303);
      assert.equal((await page(t, '/admin/rest-nonce', half)).status, 400);
      assert.equal((await post(t, '/admin/login/code', { _wpnonce: formNonce(step.text), code: '12345' }, half)).status, 401);
      assert.equal((await post(t, '/admin/login/code', { _wpnonce: formNonce(step.text), code: codes[0]! }, half)).headers.get('location'), '/admin/');
      assert.equal((await page(t, '/admin/account', half)).status, 200);

      // The recovery code works once.
      const again = cookieOf(await loginPost(t, { log: 'tina', pwd: 'tina-pw' }));
      const step2 = await page(t, '/admin/login', again);
      assert.equal((await post(t, '/admin/login/code', { _wpnonce: formNonce(step2.text), code: codes[0]! }, again)).status, 401);
      // A code of the next step (the current one signed in at enrolment, and a code works once).
      assert.equal((await post(t, '/admin/login/code', { _wpnonce: formNonce(step2.text), code: totp.generate({ timestamp: Date.now() + 30_000 }) }, again)).status, 303);
      assert.match((await page(t, '/admin/account', again)).text, /Recovery codes left: 9/);

      // Wrong codes count as failed logins: the same throttle (LOGIN_MAX_FAILURES=3 here).
      const third = cookieOf(await loginPost(t, { log: 'tina', pwd: 'tina-pw' }));
      const step3 = await page(t, '/admin/login', third);
      const wrong = totp.generate() === '000001' ? '000002' : '000001';
      for (let i = 0; i < 3; i++) assert.equal((await post(t, '/admin/login/code', { _wpnonce: formNonce(step3.text), code: wrong }, third)).status, 401);
      const blocked = await post(t, '/admin/login/code', { _wpnonce: formNonce(step3.text), code: totp.generate() }, third);
      assert.equal(blocked.status, 429);
      assert.match(await blocked.text(), /Too many failed sign-in attempts/);
    });
  });

  describe(`admin sessions on two instances [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'admin-sessions', { ADMIN_REQUIRE_2FA: 'administrators' }));
    });
    after(async () => {
      await closeBoth?.();
    });

    it('a session from one instance works on the other; sign out everywhere stops it on both at once', async () => {
      await a.user('editor', 'ed');
      const one = await signIn(a, 'ed', 'ed-pw');
      const two = await signIn(a, 'ed', 'ed-pw');
      assert.equal((await create(b, one, { 'x-wp-nonce': one.nonce })).status, 201);
      assert.equal((await create(b, two, { 'x-wp-nonce': two.nonce })).status, 201);
      const account = (await page(b, '/admin/account', one.cookie)).text;
      assert.equal([...account.matchAll(/<tr><td>/g)].length, 2, 'both sessions listed');
      const res = await post(b, '/admin/sign-out-everywhere', { _wpnonce: formNonce(account) }, one.cookie);
      assert.equal(res.status, 200);
      assert.equal((await create(a, one, { 'x-wp-nonce': one.nonce })).status, 401);
      assert.equal((await create(a, two, { 'x-wp-nonce': two.nonce })).status, 401);
    });

    it('one revoked session stops at once on the other instance', async () => {
      const one = await signIn(a, 'ed', 'ed-pw');
      assert.equal((await create(a, one, { 'x-wp-nonce': one.nonce })).status, 201);
      // Ended from another session's account page (its "End" button), on instance b.
      const other = await signIn(b, 'ed', 'ed-pw');
      const page1 = (await page(b, '/admin/account', other.cookie)).text;
      const ids = [...page1.matchAll(/name="id" value="(\d+)"/g)].map((m) => m[1]!);
      assert.equal(ids.length, 1, 'an End button for the other session only');
      assert.equal((await post(b, '/admin/sessions/revoke', { _wpnonce: formNonce(page1), id: ids[0]! }, other.cookie)).status, 303);
      assert.equal((await create(a, one, { 'x-wp-nonce': one.nonce })).status, 401);
      assert.equal((await create(a, other, { 'x-wp-nonce': other.nonce })).status, 201);
      // And one signed out on b stops on a.
      const again = await signIn(a, 'ed', 'ed-pw');
      assert.equal((await create(a, again, { 'x-wp-nonce': again.nonce })).status, 201);
      const account = (await page(b, '/admin/account', again.cookie)).text;
      assert.equal((await post(b, '/admin/sign-out', { _wpnonce: formNonce(account) }, again.cookie)).status, 200);
      assert.equal((await create(a, again, { 'x-wp-nonce': again.nonce })).status, 401);
    });

    it('ADMIN_REQUIRE_2FA=administrators: an administrator must enrol before the session does anything', async () => {
      const admin = await signIn(a);
      assert.equal(admin.nonce, '', 'no REST nonce before enrolment');
      const account = (await page(a, '/admin/account', admin.cookie)).text;
      assert.match(account, /Administrators must turn two-factor sign-in on/);
      assert.equal((await page(a, '/admin/rest-nonce', admin.cookie)).status, 400);
      assert.equal((await post(a, '/admin/two-factor/start', { _wpnonce: formNonce(account) }, admin.cookie)).status, 303);
      const pending = (await page(a, '/admin/account', admin.cookie)).text;
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(pending)![1]!;
      const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
      assert.equal((await post(b, '/admin/two-factor/confirm', { _wpnonce: formNonce(pending), code }, admin.cookie)).status, 200);
      const nonce = (await page(a, '/admin/rest-nonce', admin.cookie)).text;
      assert.equal((await create(a, { cookie: admin.cookie, nonce }, { 'x-wp-nonce': nonce })).status, 201);
    });
  });
}
