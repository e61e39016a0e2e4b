/**
 * Issue 44, item 1: two-factor sign-in guards every door. With TOTP confirmed for a user, or
 * required for their role by ADMIN_REQUIRE_2FA, their account password is refused over HTTP Basic
 * on every face (the REST API under each root and namespace alias, the admin API, CalDAV) with the
 * Two-Factor plugin's 401 `invalid_application_credentials`; their application passwords work, and
 * so does the password of a user without a second factor. The refusal is not a failed login.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { sessionServiceOf } from '../../src/domain/sessions.js';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { dav } from '../support/caldav.js';

const EVENT = { title: 'Door test', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' };
const PRINCIPAL = '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>';

const basic = (credentials: string) => ({ authorization: 'Basic ' + Buffer.from(credentials).toString('base64') });

/** One request through each face that needs credentials: the answer's status and, for JSON, its code. */
async function throughEachFace(t: TestServer, credentials: string): Promise<Record<string, { status: number; code?: string }>> {
  const json = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    const text = await res.text();
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      code = undefined;
    }
    return { status: res.status, code };
  };
  const post = (url: string) => json(url, { method: 'POST', headers: { ...basic(credentials), 'content-type': 'application/json' }, body: JSON.stringify(EVENT) });
  const caldav = await dav(t, 'PROPFIND', '/dav/', PRINCIPAL, { depth: '0' }, credentials);
  return {
    rest: await post(`${t.origin}/api/calendar/events/v1/events`),
    'rest alias': await post(`${t.origin}/api/tribe/events/v1/events`),
    'wp-json root': await post(`${t.origin}/wp-json/calendar/events/v1/events`),
    rest_route: await post(`${t.origin}/?rest_route=/calendar/events/v1/events`),
    'admin api': await json(`${t.origin}/api/calendar/admin/v1/sessions`, { headers: basic(credentials) }),
    caldav: { status: caldav.status, code: caldav.headers.get('www-authenticate') ? 'www-authenticate' : undefined },
  };
}

/** Turn TOTP on for a user, as the account page does (start, confirm with a code). */
async function enrol(t: TestServer, id: number, login: string): Promise<void> {
  const sessions = sessionServiceOf(t.built.services);
  const { secret } = await sessions.startTotp(id, login);
  assert.ok(await sessions.confirmTotp(id, new TOTP({ secret: Secret.fromBase32(secret) }).generate()));
}

const REFUSED = { status: 401, code: 'invalid_application_credentials' };
const ALLOWED_STATUS: Record<string, number> = { rest: 201, 'rest alias': 201, 'wp-json root': 201, rest_route: 201, 'admin api': 200, caldav: 207 };

function assertRefusedEverywhere(answers: Record<string, { status: number; code?: string }>, who: string): void {
  for (const [face, answer] of Object.entries(answers)) {
    if (face === 'caldav') assert.deepEqual(answer, { status: 401, code: 'www-authenticate' }, `${who}: CalDAV asks again`);
    else assert.deepEqual(answer, REFUSED, `${who}: ${face}`);
  }
}

function assertAllowedEverywhere(answers: Record<string, { status: number; code?: string }>, who: string): void {
  for (const [face, answer] of Object.entries(answers)) assert.equal(answer.status, ALLOWED_STATUS[face], `${who}: ${face} (${answer.code ?? ''})`);
}

for (const kind of STORES) {
  describe(`two-factor sign-in guards every door [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { LOGIN_MAX_FAILURES: '2' });
    });
    after(async () => {
      await t.close();
    });

    it('with TOTP confirmed, the account password is refused on every face; an application password works', async () => {
      const tess = await t.user('editor', 'tess');
      assertAllowedEverywhere(await throughEachFace(t, 'tess:tess-pw'), 'before enrolment');
      await enrol(t, tess.id, 'tess');
      assertRefusedEverywhere(await throughEachFace(t, 'tess:tess-pw'), 'TOTP on');
      // Kept authentications keep the rule (the second time the header is known).
      assertRefusedEverywhere(await throughEachFace(t, 'tess:tess-pw'), 'TOTP on, again');
      const { password } = await t.built.services.users.addAppPassword('tess', 'calendar app');
      assertAllowedEverywhere(await throughEachFace(t, `tess:${password}`), 'application password');
      // The body is a WordPress-style error saying what to use.
      const res = await t.api.post('/events', { as: 'tess:tess-pw', json: EVENT });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'invalid_application_credentials');
      assert.match(res.body.message, /application password/);
      assert.deepEqual(res.body.data, { status: 401 });
      const caldav = await dav(t, 'PROPFIND', '/dav/', PRINCIPAL, { depth: '0' }, 'tess:tess-pw');
      assert.match(caldav.text, /need-privileges.*application password/s);
    });

    it('without a second factor the password still works, and it works again once TOTP is turned off', async () => {
      await t.user('author', 'paul');
      assertAllowedEverywhere(await throughEachFace(t, 'paul:paul-pw'), 'no TOTP');
      const ivy = await t.user('author', 'ivy');
      await enrol(t, ivy.id, 'ivy');
      assertRefusedEverywhere(await throughEachFace(t, 'ivy:ivy-pw'), 'TOTP on');
      await sessionServiceOf(t.built.services).resetTotp(ivy.id);
      assertAllowedEverywhere(await throughEachFace(t, 'ivy:ivy-pw'), 'TOTP off');
    });

    it('the refusal is not a failed login: the throttle (LOGIN_MAX_FAILURES=2) does not block the client', async () => {
      const ray = await t.user('author', 'ray');
      await enrol(t, ray.id, 'ray');
      for (let i = 0; i < 5; i++) assert.equal((await t.api.get('/events', { as: 'ray:ray-pw' })).status, 401);
      // Counted as failures, these would have blocked ray from this client (429 without a check).
      const wrong = await t.api.get('/events', { as: 'ray:wrong' });
      assert.equal(wrong.status, 200, 'a wrong password is anonymous, not throttled');
      const { password } = await t.built.services.users.addAppPassword('ray', 'app');
      assert.equal((await t.api.post('/events', { as: `ray:${password}`, json: EVENT })).status, 201);
    });
  });

  describe(`ADMIN_REQUIRE_2FA=administrators guards every door [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { ADMIN_REQUIRE_2FA: 'administrators' });
    });
    after(async () => {
      await t.close();
    });

    it("refuses an administrator's password on every face, enrolled or not; their application password and an editor's password work", async () => {
      assertRefusedEverywhere(await throughEachFace(t, 'admin:admin-password'), 'administrator, not enrolled');
      const { password } = await t.built.services.users.addAppPassword('admin', 'sync');
      assertAllowedEverywhere(await throughEachFace(t, `admin:${password}`), 'administrator, application password');
      await t.user('editor', 'eddie');
      assertAllowedEverywhere(await throughEachFace(t, 'eddie:eddie-pw'), 'editor');
      // Promoted, the editor's password stops at once.
      await t.built.services.users.setRole('eddie', 'administrator');
      assertRefusedEverywhere(await throughEachFace(t, 'eddie:eddie-pw'), 'promoted');
    });
  });
}
