/**
 * Issue 44, item 4: the second step of sign-in. TOTP guesses for one user are capped across every
 * client address and every instance (a per-user count in the database: 10 wrong codes, then codes
 * are refused, 429 with Retry-After, for a time that doubles with each block, and the
 * half-signed-in sessions end); the in-memory throttle's delay is waited; a code's time step is
 * accepted once (RFC 6238 §5.2), also when it is sent twice at the same moment; recovery codes
 * work as before.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Secret, TOTP } from 'otpauth';
import { MAX_CODE_FAILURES, sessionServiceOf } from '../../src/domain/sessions.js';
import { STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';

const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;
const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function post(t: TestServer, path: string, form: Record<string, string>, cookie = '', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.origin + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Sign in with the password (the login form, as a browser): a session waiting for its code, and the code form's nonce. */
async function halfSignIn(t: TestServer, login: string): Promise<{ cookie: string; nonce: string }> {
  const form = await fetch(t.origin + '/admin/login', { redirect: 'manual' });
  const res = await post(t, '/admin/login', { log: login, pwd: `${login}-pw`, _wpnonce: formNonce(await form.text()) }, cookieOf(form));
  assert.equal(res.status, 303, await res.text());
  assert.equal(res.headers.get('location'), '/admin/login', 'waits for the code');
  const cookie = cookieOf(res);
  const step = await (await fetch(t.origin + '/admin/login', { redirect: 'manual', headers: { cookie } })).text();
  assert.match(step, /autocomplete="one-time-code"/);
  return { cookie, nonce: formNonce(step) };
}

const sendCode = (t: TestServer, half: { cookie: string; nonce: string }, code: string, ip?: string) =>
  post(t, '/admin/login/code', { _wpnonce: half.nonce, code }, half.cookie, ip ? { 'x-forwarded-for': ip } : {});

/** Whether the session is still waiting for its code (else ended: the login form). */
async function waiting(t: TestServer, half: { cookie: string }): Promise<boolean> {
  const text = await (await fetch(t.origin + '/admin/login', { redirect: 'manual', headers: { cookie: half.cookie } })).text();
  return /autocomplete="one-time-code"/.test(text);
}

/** Not within 3 s of the end of a 30 s step (codes made now for a step keep their meaning while the test uses them). */
async function awayFromStepEnd(): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3000) await sleep(left + 100);
}

/** A user with TOTP on, enrolled with the code of the previous step (so the current and next ones sign in). */
async function enrolled(t: TestServer, login: string): Promise<{ id: number; totp: TOTP; recovery: string[] }> {
  await awayFromStepEnd();
  const { id } = await t.user('author', login);
  const sessions = sessionServiceOf(t.built.services);
  const { secret } = await sessions.startTotp(id, login);
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  const recovery = await sessions.confirmTotp(id, totp.generate({ timestamp: Date.now() - 30_000 }));
  assert.ok(recovery);
  return { id, totp, recovery };
}

/** A six-digit code that is none of the valid ones now (on a server clock `offset` ms ahead). */
function wrongCode(totp: TOTP, offset = 0): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totp.generate({ timestamp: Date.now() + offset + d })));
  for (let n = 100000; ; n++) if (!valid.has(String(n))) return String(n);
}

for (const kind of STORES) {
  describe(`second step of sign-in [${kind.name}]`, () => {
    let t: TestServer;
    let quiet: TestServer;
    before(async () => {
      t = await startServer(kind, { TRUST_PROXY: 'true' });
      // The in-memory throttle off: the database's count alone.
      quiet = await startServer(kind, { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES: '0' });
    });
    after(async () => {
      await t.close();
      await quiet.close();
    });

    it('20 parallel wrong codes from 20 addresses: at most 10 are checked, then 429 with Retry-After; the session ends', async () => {
      const { totp } = await enrolled(t, 'pia');
      const half = await halfSignIn(t, 'pia');
      const wrong = wrongCode(totp);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => sendCode(t, half, wrong, `198.51.100.${i + 1}`)));
      const statuses = answers.map((r) => r.status);
      await Promise.all(answers.map((r) => r.text()));
      const checked = statuses.filter((s) => s === 401).length;
      assert.ok(checked <= MAX_CODE_FAILURES, `${checked} wrong codes checked: ${statuses.join(' ')}`);
      assert.ok(!statuses.includes(303));
      const blocked = answers.filter((r) => r.status === 429);
      assert.ok(blocked.length >= 1, statuses.join(' '));
      assert.ok(blocked.every((r) => Number(r.headers.get('retry-after')) >= 1));
      // Every answer is a wrong code, a refusal, or (once the session ended) a form without its session.
      assert.ok(
        statuses.every((s) => s === 401 || s === 429 || s === 403),
        statuses.join(' '),
      );
      assert.equal(await waiting(t, half), false, 'the half-signed-in session ended');
      // Signing in again with the password does not reopen the guessing: the right code is refused too.
      const again = await halfSignIn(t, 'pia');
      const right = await sendCode(t, again, totp.generate(), '203.0.113.7');
      assert.equal(right.status, 429);
      assert.ok(Number(right.headers.get('retry-after')) >= 1);
      assert.match(await right.text(), /Too many failed sign-in attempts/);
    });

    it('the block doubles each time and ends; a right code starts the count again (the services clock)', async () => {
      const { totp } = await enrolled(quiet, 'gus');
      const clock = quiet.built.services.clock;
      const real = clock.nowGmt;
      let offset = 0;
      clock.nowGmt = () => new Date(Date.now() + offset).toISOString().slice(0, 19).replace('T', ' ');
      try {
        const guessTen = async () => {
          const half = await halfSignIn(quiet, 'gus');
          const wrong = wrongCode(totp, offset);
          for (let i = 1; i < MAX_CODE_FAILURES; i++) assert.equal((await sendCode(quiet, half, wrong, `192.0.2.${i}`)).status, 401, `wrong code ${i}`);
          const last = await sendCode(quiet, half, wrong, '192.0.2.200');
          assert.equal(last.status, 429, 'the tenth wrong code starts a block');
          assert.equal(await waiting(quiet, half), false);
          return Number(last.headers.get('retry-after'));
        };
        assert.equal(await guessTen(), 60);
        offset += 30_000;
        const during = await sendCode(quiet, await halfSignIn(quiet, 'gus'), totp.generate({ timestamp: Date.now() + offset }), '192.0.2.201');
        assert.equal(during.status, 429);
        assert.ok(Math.abs(Number(during.headers.get('retry-after')) - 30) <= 2, during.headers.get('retry-after')!);
        offset += 31_000;
        assert.equal(await guessTen(), 120, 'the second block lasts twice as long');
        offset += 121_000;
        assert.equal(await guessTen(), 240);
        offset += 241_000;
        // Past the block, the right code signs in and the next block is a minute again.
        const half = await halfSignIn(quiet, 'gus');
        assert.equal((await sendCode(quiet, half, wrongCode(totp, offset))).status, 401);
        assert.equal((await sendCode(quiet, half, totp.generate({ timestamp: Date.now() + offset }))).status, 303);
        assert.equal(await guessTen(), 60);
      } finally {
        clock.nowGmt = real;
      }
    });

    it("waits the throttle's delay before checking a code (LOGIN_MAX_FAILURES=5: slowed after 5 failures)", async () => {
      const { totp } = await enrolled(t, 'wes');
      const half = await halfSignIn(t, 'wes');
      const wrong = wrongCode(totp);
      for (let i = 0; i < 5; i++) assert.equal((await sendCode(t, half, wrong, `100.64.0.${i + 1}`)).status, 401);
      const started = performance.now();
      assert.equal((await sendCode(t, half, wrong, '100.64.0.99')).status, 401);
      assert.ok(performance.now() - started >= 240, `waited ${Math.round(performance.now() - started)} ms`);
    });

    it('a code works once: again after it signed in, an older one, and two at once (one wins)', async () => {
      const { totp } = await enrolled(t, 'ona');
      const now = totp.generate();
      assert.equal((await sendCode(t, await halfSignIn(t, 'ona'), now)).status, 303);
      assert.equal((await sendCode(t, await halfSignIn(t, 'ona'), now)).status, 401, 'the same code again');
      const older = totp.generate({ timestamp: Date.now() - 30_000 });
      assert.equal((await sendCode(t, await halfSignIn(t, 'ona'), older)).status, 401, 'the previous step');
      // Five sessions send the next step's code at once: exactly one signs in.
      const next = totp.generate({ timestamp: Date.now() + 30_000 });
      const halves = await Promise.all(Array.from({ length: 5 }, () => halfSignIn(t, 'ona')));
      const statuses = (await Promise.all(halves.map((h, i) => sendCode(t, h, next, `10.9.0.${i + 1}`)))).map((r) => r.status);
      assert.deepEqual([...statuses].sort(), [303, 401, 401, 401, 401], statuses.join(' '));
    });

    it('recovery codes work as before: each once, and a right one starts the count again', async () => {
      const { totp, recovery } = await enrolled(quiet, 'rex');
      const wrong = wrongCode(totp);
      const half = await halfSignIn(quiet, 'rex');
      for (let i = 0; i < MAX_CODE_FAILURES - 1; i++) assert.equal((await sendCode(quiet, half, wrong)).status, 401);
      assert.equal((await sendCode(quiet, half, recovery[0]!)).status, 303);
      const again = await halfSignIn(quiet, 'rex');
      assert.equal((await sendCode(quiet, again, recovery[0]!)).status, 401, 'a recovery code works once');
      // The count started again at the recovery code: 8 more wrong ones are still checked.
      for (let i = 0; i < MAX_CODE_FAILURES - 2; i++) assert.equal((await sendCode(quiet, again, wrong)).status, 401);
      assert.equal((await sendCode(quiet, again, recovery[1]!)).status, 303);
    });
  });

  describe(`second step of sign-in on two instances [${kind.name}]`, () => {
    let a: TestServer;
    let b: TestServer;
    let closeBoth: (() => Promise<void>) | undefined;
    before(async () => {
      ({ a, b, close: closeBoth } = await startTwoInstances(kind, 'sign-in-codes', { TRUST_PROXY: 'true' }));
    });
    after(async () => {
      await closeBoth?.();
    });

    it('the wrong codes of both instances count together: 10 in parallel on each, at most 10 checked in all', async () => {
      const { totp } = await enrolled(a, 'ida');
      const half = await halfSignIn(a, 'ida');
      const wrong = wrongCode(totp);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => sendCode(i % 2 === 0 ? a : b, half, wrong, `203.0.113.${i + 1}`)));
      const statuses = answers.map((r) => r.status);
      await Promise.all(answers.map((r) => r.text()));
      assert.ok(statuses.filter((s) => s === 401).length <= MAX_CODE_FAILURES, statuses.join(' '));
      assert.ok(statuses.includes(429), statuses.join(' '));
      assert.ok(!statuses.includes(303));
      // Blocked on both.
      for (const t of [a, b]) assert.equal((await sendCode(t, await halfSignIn(t, 'ida'), totp.generate(), '203.0.113.99')).status, 429);
    });

    it('one code sent to both instances at once signs in once', async () => {
      const { totp } = await enrolled(a, 'max');
      const code = totp.generate();
      const halves = await Promise.all(Array.from({ length: 4 }, (_, i) => halfSignIn(i % 2 === 0 ? a : b, 'max')));
      const statuses = (await Promise.all(halves.map((h, i) => sendCode(i % 2 === 0 ? a : b, h, code, `198.18.0.${i + 1}`)))).map((r) => r.status);
      assert.deepEqual([...statuses].sort(), [303, 401, 401, 401], statuses.join(' '));
    });
  });
}
