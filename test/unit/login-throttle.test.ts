/**
 * The failed-login throttle's keys and policy (issue 24, src/web/login-throttle.ts): clients keyed
 * by IPv4 address or IPv6 /64; blocked per (subject, client) and per client, only slowed per
 * subject; attempts in flight count; counts in the database (each test on both stores), forgotten
 * after their window and pruned.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { ApiError } from '../../src/domain/errors.js';
import { subjectOf, type LoginGate } from '../../src/domain/users.js';
import { openStore, type Store } from '../../src/store/db.js';
import { pruneSharedLimits } from '../../src/store/shared-limits.js';
import { ATTEMPT_LEASE_MS, clientKeyOf, createLoginThrottle as createOn, FAILURE_WINDOW_MS, MAX_SUBJECT_DELAY_MS, subjectDelayMs } from '../../src/domain/login-throttle.js';
import { STORES } from '../support/harness.js';

/** The 429's Retry-After seconds, or undefined when the attempt is let through (and then ends as `outcome`). */
async function tryOnce(gate: LoginGate, subject: string, outcome: 'ok' | 'failed' = 'failed'): Promise<number | undefined> {
  try {
    await (await gate.attempt(subject)).end(outcome);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 429);
    assert.equal(e.code, 'rest_too_many_requests');
    return Number(e.headers['retry-after']);
  }
}

describe('login throttle keys', () => {
  it('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    assert.equal(clientKeyOf('203.0.113.7'), '203.0.113.7');
    assert.equal(clientKeyOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientKeyOf('::FFFF:cb00:7107'), '203.0.113.7');
    assert.equal(clientKeyOf('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientKeyOf('2001:0db8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
    assert.equal(clientKeyOf('2001:db8:1:2::'), '2001:db8:1:2::/64');
    assert.equal(clientKeyOf('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientKeyOf('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'another /64 is another client');
    assert.equal(clientKeyOf('::1'), '0:0:0:0::/64');
    assert.equal(clientKeyOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientKeyOf('[2001:db8:1:2::9]'), '2001:db8:1:2::/64');
    assert.equal(clientKeyOf('::1.2.3.4'), '0:0:0:0::/64', 'IPv4-compatible (deprecated) is IPv6');
    assert.equal(clientKeyOf('not an address'), 'not an address');
    assert.equal(clientKeyOf('x'.repeat(500)).length, 64, 'bounded');
  });

  it('a login and its e-mail are one subject (the user); unknown logins by their lowercased login', () => {
    assert.equal(subjectOf({ id: 7 }, 'ann'), 'id:7');
    assert.equal(subjectOf({ id: '7' }, 'ann@example.com'), 'id:7');
    assert.equal(subjectOf(undefined, 'NoBody'), 'login:nobody');
    assert.equal(subjectOf(undefined, 'x'.repeat(300)).length, 'login:#'.length + 64);
  });
});

for (const kind of STORES)
  describe(`login throttle policy, counted in the database [${kind.name}]`, () => {
    let store: Store;
    before(async () => {
      const schema = kind.name === 'postgres' ? `t_lt_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
    });
    after(() => store.close());
    beforeEach(() => sql`delete from login_failures`.execute(store.db));
    const createLoginThrottle = (max: number, now: () => number) => createOn(store.db, max, now);

    it('blocks per (subject, client) for an increasing time after the threshold; other clients are not blocked', async () => {
      let now = 1_000_000;
      const th = createLoginThrottle(5, () => now);
      const a = th.forClient('10.0.0.1');
      const b = th.forClient('10.0.0.2');
      for (let i = 0; i < 5; i++) assert.equal(await tryOnce(a, 'id:1'), undefined, `failure ${i + 1} is checked`);
      assert.equal(await tryOnce(a, 'id:1', 'ok'), 1, 'the 6th attempt from that client is refused, right or wrong');
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), 1);
      assert.equal(await tryOnce(a, 'id:2'), undefined, 'other subjects from that client are not blocked');
      // The right password from another client is checked (a stranger cannot lock the user out).
      const fromB = await b.attempt('id:1');
      assert.ok(fromB.delayMs > 0, 'but the subject is slowed');
      await fromB.end('ok');
      now += 1000;
      assert.equal(await tryOnce(a, 'id:1'), undefined, 'once the wait is over, one more try');
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), 2, 'then twice as long');
      now += 2000;
      assert.equal(await tryOnce(a, 'id:1'), undefined);
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), 4);
      now += 4000;
      assert.equal(await tryOnce(a, 'id:1', 'ok'), undefined, 'the right password after the wait');
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), undefined, 'a success resets the pair');
      for (let i = 0; i < 4; i++) assert.equal(await tryOnce(a, 'id:1'), undefined, `failure ${i + 1} after the reset`);
    });

    it('blocks a client after 4 × the threshold over many subjects, for every subject', async () => {
      let now = 1_000_000;
      const th = createLoginThrottle(5, () => now);
      const a = th.forClient('10.0.0.1');
      for (let i = 0; i < 20; i++) assert.equal(await tryOnce(a, `login:user${i}`), undefined);
      assert.equal(await tryOnce(a, 'login:someone-else'), 1, '20 failures from one client');
      assert.equal(await tryOnce(th.forClient('10.0.0.9'), 'login:someone-else'), undefined, 'other clients are not');
      // A success does not reset the client's count (an account of one's own would clear it).
      now += 1000;
      assert.equal(await tryOnce(a, 'id:99', 'ok'), undefined);
      assert.equal(await tryOnce(a, 'login:x'), undefined);
      assert.equal(await th.blockedFor('login:y', '10.0.0.1'), 2);
    });

    it('clients in one IPv6 /64 share a count', async () => {
      const th = createLoginThrottle(5, () => 1_000_000);
      for (let i = 0; i < 5; i++) assert.equal(await tryOnce(th.forClient(`2001:db8:1:2::${i + 1}`), 'id:1'), undefined);
      assert.equal(await tryOnce(th.forClient('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'id:1'), 1);
      assert.equal(await tryOnce(th.forClient('2001:db8:1:3::1'), 'id:1'), undefined, 'the next /64 is another client');
    });

    it('counts attempts in flight: parallel checks get no more than the threshold', async () => {
      const th = createLoginThrottle(5, () => 1_000_000);
      const a = th.forClient('10.0.0.1');
      const running = await Promise.all(Array.from({ length: 5 }, () => a.attempt('id:1')));
      assert.equal(await tryOnce(a, 'id:1'), 1, 'a 6th attempt while 5 are being checked');
      await running[0]!.end('error');
      assert.equal(await tryOnce(a, 'id:1', 'ok'), undefined, 'an attempt ending in an error (database fault) frees its place without counting');
      for (const r of running.slice(1)) await r.end('failed');
      // 4 failures: one more may run; once it fails the pair is blocked.
      const last = await a.attempt('id:1');
      assert.equal(await tryOnce(a, 'id:1'), 1, 'only one more attempt may run');
      await last.end('failed');
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), 1);
    });

    it('slows a subject from the threshold on, at most MAX_SUBJECT_DELAY_MS, never refusing it', async () => {
      assert.equal(subjectDelayMs(4, 5), 0);
      assert.equal(subjectDelayMs(5, 5), 250);
      assert.equal(subjectDelayMs(6, 5), 500);
      assert.equal(subjectDelayMs(1000, 5), MAX_SUBJECT_DELAY_MS);
      const th = createLoginThrottle(5, () => 1_000_000);
      // 100 clients fail once each: no client is blocked, the subject is slowed.
      for (let i = 0; i < 100; i++) assert.equal(await tryOnce(th.forClient(`10.0.${i}.1`), 'id:1'), undefined);
      const fresh = await th.forClient('192.0.2.1').attempt('id:1');
      assert.equal(fresh.delayMs, MAX_SUBJECT_DELAY_MS);
      await fresh.end('ok');
    });

    it('forgets failures 15 minutes after the last one; 0 turns it off; rows are pruned', async () => {
      let now = 1_000_000;
      const th = createLoginThrottle(5, () => now);
      const a = th.forClient('10.0.0.1');
      for (let i = 0; i < 5; i++) await tryOnce(a, 'id:1');
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), 1);
      now += 16 * 60_000;
      assert.equal(await th.blockedFor('id:1', '10.0.0.1'), undefined);
      assert.equal((await a.attempt('id:1')).delayMs, 0, 'the subject is forgotten too');

      const off = createLoginThrottle(0, () => now);
      for (let i = 0; i < 50; i++) assert.equal(await tryOnce(off.forClient('10.0.0.1'), 'id:1'), undefined);
      assert.equal(await off.blockedFor('id:1', '10.0.0.1'), undefined);

      const rows = async () => Number((await sql<{ n: number }>`select count(*) as n from login_failures`.execute(store.db)).rows[0]!.n);
      assert.ok((await rows()) > 0);
      await pruneSharedLimits(store.db, now + ATTEMPT_LEASE_MS + FAILURE_WINDOW_MS + 1, FAILURE_WINDOW_MS, 0);
      assert.equal(await rows(), 0, 'pruned once past their window');
    });

    it('an attempt in flight stops counting after its lease (an instance stopped in the middle of a check)', async () => {
      let now = 1_000_000;
      const th = createLoginThrottle(5, () => now);
      const a = th.forClient('10.0.0.1');
      for (let i = 0; i < 4; i++) await tryOnce(a, 'id:1');
      await a.attempt('id:1'); // never ended
      assert.equal(await tryOnce(a, 'id:1'), 1);
      now += ATTEMPT_LEASE_MS + 1;
      assert.equal(await tryOnce(a, 'id:1', 'ok'), undefined);
    });

    it('two throttles on one database (two instances) share the counts', async () => {
      const one = createLoginThrottle(5, () => 1_000_000);
      const two = createOn(store.db, 5, () => 1_000_000);
      for (let i = 0; i < 5; i++) assert.equal(await tryOnce((i % 2 ? one : two).forClient('10.0.0.1'), 'id:1'), undefined);
      assert.equal(await tryOnce(one.forClient('10.0.0.1'), 'id:1'), 1);
      assert.equal(await tryOnce(two.forClient('10.0.0.1'), 'id:1'), 1);
      await assert.rejects(two.forClient('10.0.0.1').known('id:1'), ApiError, 'a remembered success is refused too');
    });
  });
