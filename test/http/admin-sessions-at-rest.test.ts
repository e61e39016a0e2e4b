/**
 * Issue 28, item 1 (the admin API's part): the REST nonce of a cookie session is also read from a
 * form body's `_wpnonce` (as WordPress reads `$_REQUEST`), and TOTP secrets are stored encrypted
 * (AES-256-GCM, key from SECRET_KEY or generated once into the settings table); a plain secret
 * stored before is still read, and encrypted when used.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, forEachStore, type TestServer } from '../support/harness.js';
import { openSecret, secretKeyText, secretsKey, sessionServiceOf } from '../../src/domain/sessions.js';
import { findTotp, putTotp } from '../../src/store/sessions.js';
import { writeTransaction } from '../../src/store/changes.js';

async function signIn(t: TestServer): Promise<{ cookie: string; nonce: string }> {
  // As a browser: the login form first (its pre-session cookie and login nonce).
  const form0 = await fetch(`${t.origin}/admin/login`, { redirect: 'manual' });
  const loginNonce = /name="_wpnonce" value="([^"]+)"/.exec(await form0.text())?.[1] ?? '';
  const res = await fetch(`${t.origin}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: (form0.headers.get('set-cookie') ?? '').split(';')[0]! },
    body: new URLSearchParams({ log: ADMIN.login, pwd: ADMIN.password, _wpnonce: loginNonce }).toString(),
  });
  assert.equal(res.status, 303);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const html = await (await fetch(`${t.origin}/admin/account`, { headers: { cookie } })).text();
  return { cookie, nonce: /name="calendar-rest-nonce" content="([^"]*)"/.exec(html)![1]! };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const EVENT = { title: 'Form event', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'draft' };

forEachStore('cookie nonce in a form body, TOTP secrets at rest', (t) => {
  it('a form body with _wpnonce authenticates the cookie; a wrong one is 403; none is anonymous', async () => {
    const b = await signIn(t);
    const post = (fields: Record<string, string>) =>
      fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: b.cookie }, body: form(fields) });
    const ok = await post({ ...EVENT, _wpnonce: b.nonce });
    assert.equal(ok.status, 201, await ok.clone().text());
    assert.ok(ok.headers.get('x-wp-nonce'), 'a fresh nonce with the answer');
    const wrong = await post({ ...EVENT, _wpnonce: 'not-the-nonce' });
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as { code: string }).code, 'rest_cookie_invalid_nonce');
    const none = await post(EVENT);
    assert.equal(none.status, 401);
    // A JSON body's _wpnonce is not read (WordPress reads $_REQUEST: query and form).
    const json = await fetch(`${t.base}/events`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: b.cookie }, body: JSON.stringify({ ...EVENT, _wpnonce: b.nonce }) });
    assert.equal(json.status, 401);
  });

  it('stores a new TOTP secret encrypted, bound to its user; the enrolment works with it', async () => {
    const sessions = sessionServiceOf(t.built.services);
    const { id } = await t.user('editor', 'totp-ed');
    const { secret } = await sessions.startTotp(id, 'totp-ed');
    const row = (await findTotp(t.built.store.db, id))!;
    assert.match(row.secret, /^enc:v1:/);
    assert.ok(!row.secret.includes(secret));
    const key = secretsKey(await secretKeyText(t.built.services));
    assert.equal(openSecret(key, row.secret, `totp:${id}`).value, secret);
    assert.throws(() => openSecret(key, row.secret, `totp:${id + 1}`), 'bound to the user');
    const codes = await sessions.confirmTotp(id, new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    assert.equal(codes?.length, 10);
  });

  it('reads a plain secret stored before, and encrypts it on use', async () => {
    const sessions = sessionServiceOf(t.built.services);
    const { id } = await t.user('author', 'totp-old');
    const plain = new Secret({ size: 20 }).base32;
    await writeTransaction(t.built.store.db, (trx) => putTotp(trx, id, plain));
    assert.equal((await findTotp(t.built.store.db, id))!.secret, plain);
    const status = await sessions.totpStatus(id);
    assert.equal(status.state, 'pending');
    assert.equal((status as { secret: string }).secret, plain);
    const after = (await findTotp(t.built.store.db, id))!.secret;
    assert.match(after, /^enc:v1:/);
    const codes = await sessions.confirmTotp(id, new TOTP({ secret: Secret.fromBase32(plain) }).generate());
    assert.equal(codes?.length, 10);
  });
});

forEachStore(
  'TOTP secrets at rest with SECRET_KEY',
  (t) => {
    it('uses SECRET_KEY when set', async () => {
      const { id } = await t.user('editor', 'keyed');
      const { secret } = await sessionServiceOf(t.built.services).startTotp(id, 'keyed');
      const row = (await findTotp(t.built.store.db, id))!;
      assert.equal(openSecret(secretsKey('k'.repeat(40)), row.secret, `totp:${id}`).value, secret);
    });
  },
  { SECRET_KEY: 'k'.repeat(40) },
);
