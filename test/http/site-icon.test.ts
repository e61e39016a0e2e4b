/**
 * The site's icon (SITE_ICON): the shipped /favicon.svg by default, linked by the calendar pages,
 * the submission form and the admin app; /favicon.ico sends a browser to the icon in force; an
 * administrator changes it in the app (a URL or a path; anything else is refused) and every page
 * follows at once.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, forEachStore, type TestServer } from '../support/harness.js';

const A = '/api/calendar/admin/v1';

async function adminCookie(t: TestServer): Promise<string> {
  const form0 = await fetch(`${t.origin}/admin/login`, { redirect: 'manual' });
  const loginNonce = /name="_wpnonce" value="([^"]+)"/.exec(await form0.text())?.[1] ?? '';
  const res = await fetch(`${t.origin}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: (form0.headers.get('set-cookie') ?? '').split(';')[0]! },
    body: new URLSearchParams({ log: ADMIN.login, pwd: ADMIN.password, _wpnonce: loginNonce }).toString(),
  });
  assert.equal(res.status, 303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const iconOf = (html: string) => /<link rel="icon" href="([^"]*)"/.exec(html)?.[1];

forEachStore(
  'the site icon',
  (t) => {
    it('ships /favicon.svg and links it from the pages, the submission form and the admin app', async () => {
      const svg = await fetch(`${t.origin}/favicon.svg`);
      assert.equal(svg.status, 200);
      assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
      assert.match(await svg.text(), /^<svg /);
      const ico = await fetch(`${t.origin}/favicon.ico`, { redirect: 'manual' });
      assert.equal(ico.status, 302);
      assert.equal(ico.headers.get('location'), '/favicon.svg');

      const page = await (await fetch(`${t.origin}/events/`)).text();
      assert.equal(iconOf(page), `${t.config.siteUrl}/favicon.svg`);
      assert.match(page, /<link rel="icon" href="[^"]*" type="image\/svg\+xml">/);
      const form = await (await fetch(`${t.origin}/events/submit/`)).text();
      assert.equal(iconOf(form), `${t.config.siteUrl}/favicon.svg`);
      const cookie = await adminCookie(t);
      const app = await fetch(`${t.origin}/admin/`, { headers: { cookie } });
      if (app.status === 200) assert.equal(iconOf(await app.text()), '/favicon.svg');
      else assert.equal(app.status, 503, 'the admin app is not built here');
    });

    it('an administrator changes it (a URL or a path); every page follows; anything else is refused', async () => {
      const bad = ['javascript:alert(1)', '//evil.example/x.png', 'data:image/png;base64,AAAA', 'icon.png', 'https://exa mple.org/x.png'];
      for (const value of bad) {
        const res = await t.api.patch(`${A}/settings`, { as: 'admin', json: { SITE_ICON: value } });
        assert.equal(res.status, 400, value);
        assert.equal(res.body.code, 'rest_invalid_param');
      }
      const url = await t.api.patch(`${A}/settings`, { as: 'admin', json: { SITE_ICON: 'https://cdn.example.org/icons/town.png' } });
      assert.equal(url.status, 200, url.text);
      assert.equal(url.body.find((s: { name: string }) => s.name === 'SITE_ICON').value, 'https://cdn.example.org/icons/town.png');
      const page = await (await fetch(`${t.origin}/events/`)).text();
      assert.match(page, /<link rel="icon" href="https:\/\/cdn\.example\.org\/icons\/town\.png" type="image\/png">/);
      assert.equal(iconOf(await (await fetch(`${t.origin}/events/submit/`)).text()), 'https://cdn.example.org/icons/town.png');
      const ico = await fetch(`${t.origin}/favicon.ico`, { redirect: 'manual' });
      assert.equal(ico.headers.get('location'), 'https://cdn.example.org/icons/town.png');

      const path = await t.api.patch(`${A}/settings`, { as: 'admin', json: { SITE_ICON: '/uploads/icon.ico' } });
      assert.equal(path.status, 200, path.text);
      assert.equal(iconOf(await (await fetch(`${t.origin}/events/`)).text()), `${t.config.siteUrl}/uploads/icon.ico`);
      // Back to the default: an empty value is the shipped icon.
      const reset = await t.api.patch(`${A}/settings`, { as: 'admin', json: { SITE_ICON: '' } });
      assert.equal(reset.status, 200, reset.text);
      assert.equal(iconOf(await (await fetch(`${t.origin}/events/`)).text()), `${t.config.siteUrl}/favicon.svg`);
      assert.equal((await t.api.patch(`${A}/settings`, { json: { SITE_ICON: '/x.png' } })).status, 401);
    });
  },
  { SUBMISSIONS: 'anyone' },
);
