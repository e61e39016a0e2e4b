/**
 * The failed-login throttle's keys and policy (issue 24, src/web/login-throttle.ts): clients keyed
 * by IPv4 address or IPv6 /64; blocked per (subject, client) and per client, only slowed per
 * subject; attempts in flight count; bounded state.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/domain/errors.js';
import { subjectOf } from '../../src/domain/users.js';
import { clientKeyOf, createLoginThrottle, MAX_ENTRIES, MAX_SUBJECT_DELAY_MS, subjectDelayMs } from '../../src/web/login-throttle.js';

/** The 429's Retry-After seconds, or undefined when the attempt is let through (and then ends as `outcome`). */
function tryOnce(gate: ReturnType<ReturnType<typeof createLoginThrottle>['forClient']>, subject: string, outcome: 'ok' | 'failed' = 'failed'): number | undefined {
  try {
    gate.attempt(subject).end(outcome);
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

describe('login throttle policy', () => {
  it('blocks per (subject, client) for an increasing time after the threshold; other clients are not blocked', () => {
    let now = 1_000_000;
    const th = createLoginThrottle(5, () => now);
    const a = th.forClient('10.0.0.1');
    const b = th.forClient('10.0.0.2');
    for (let i = 0; i < 5; i++) assert.equal(tryOnce(a, 'id:1'), undefined, `failure ${i + 1} is checked`);
    assert.equal(tryOnce(a, 'id:1', 'ok'), 1, 'the 6th attempt from that client is refused, right or wrong');
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), 1);
    assert.equal(tryOnce(a, 'id:2'), undefined, 'other subjects from that client are not blocked');
    // The right password from another client is checked (a stranger cannot lock the user out).
    const fromB = b.attempt('id:1');
    assert.ok(fromB.delayMs > 0, 'but the subject is slowed');
    fromB.end('ok');
    now += 1000;
    assert.equal(tryOnce(a, 'id:1'), undefined, 'once the wait is over, one more try');
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), 2, 'then twice as long');
    now += 2000;
    assert.equal(tryOnce(a, 'id:1'), undefined);
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), 4);
    now += 4000;
    assert.equal(tryOnce(a, 'id:1', 'ok'), undefined, 'the right password after the wait');
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), undefined, 'a success resets the pair');
    for (let i = 0; i < 4; i++) assert.equal(tryOnce(a, 'id:1'), undefined, `failure ${i + 1} after the reset`);
  });

  it('blocks a client after 4 × the threshold over many subjects, for every subject', () => {
    let now = 1_000_000;
    const th = createLoginThrottle(5, () => now);
    const a = th.forClient('10.0.0.1');
    for (let i = 0; i < 20; i++) assert.equal(tryOnce(a, `login:user${i}`), undefined);
    assert.equal(tryOnce(a, 'login:someone-else'), 1, '20 failures from one client');
    assert.equal(tryOnce(th.forClient('10.0.0.9'), 'login:someone-else'), undefined, 'other clients are not');
    // A success does not reset the client's count (an account of one's own would clear it).
    now += 1000;
    assert.equal(tryOnce(a, 'id:99', 'ok'), undefined);
    assert.equal(tryOnce(a, 'login:x'), undefined);
    assert.equal(th.blockedFor('login:y', '10.0.0.1'), 2);
  });

  it('clients in one IPv6 /64 share a count', () => {
    const th = createLoginThrottle(5, () => 1_000_000);
    for (let i = 0; i < 5; i++) assert.equal(tryOnce(th.forClient(`2001:db8:1:2::${i + 1}`), 'id:1'), undefined);
    assert.equal(tryOnce(th.forClient('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'id:1'), 1);
    assert.equal(tryOnce(th.forClient('2001:db8:1:3::1'), 'id:1'), undefined, 'the next /64 is another client');
  });

  it('counts attempts in flight: parallel checks get no more than the threshold', () => {
    const th = createLoginThrottle(5, () => 1_000_000);
    const a = th.forClient('10.0.0.1');
    const running = [];
    for (let i = 0; i < 5; i++) running.push(a.attempt('id:1'));
    assert.equal(tryOnce(a, 'id:1'), 1, 'a 6th attempt while 5 are being checked');
    running[0]!.end('error');
    assert.equal(tryOnce(a, 'id:1', 'ok'), undefined, 'an attempt ending in an error (database fault) frees its place without counting');
    for (const r of running.slice(1)) r.end('failed');
    // 4 failures: one more may run; once it fails the pair is blocked.
    const last = a.attempt('id:1');
    assert.equal(tryOnce(a, 'id:1'), 1, 'only one more attempt may run');
    last.end('failed');
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), 1);
  });

  it('slows a subject from the threshold on, at most MAX_SUBJECT_DELAY_MS, never refusing it', () => {
    assert.equal(subjectDelayMs(4, 5), 0);
    assert.equal(subjectDelayMs(5, 5), 250);
    assert.equal(subjectDelayMs(6, 5), 500);
    assert.equal(subjectDelayMs(1000, 5), MAX_SUBJECT_DELAY_MS);
    const th = createLoginThrottle(5, () => 1_000_000);
    // 100 clients fail once each: no client is blocked, the subject is slowed.
    for (let i = 0; i < 100; i++) assert.equal(tryOnce(th.forClient(`10.0.${i}.1`), 'id:1'), undefined);
    const fresh = th.forClient('192.0.2.1').attempt('id:1');
    assert.equal(fresh.delayMs, MAX_SUBJECT_DELAY_MS);
    fresh.end('ok');
  });

  it('forgets failures 15 minutes after the last one; 0 turns it off; state is bounded', () => {
    let now = 1_000_000;
    const th = createLoginThrottle(5, () => now);
    const a = th.forClient('10.0.0.1');
    for (let i = 0; i < 5; i++) tryOnce(a, 'id:1');
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), 1);
    now += 16 * 60_000;
    assert.equal(th.blockedFor('id:1', '10.0.0.1'), undefined);
    assert.equal(a.attempt('id:1').delayMs, 0, 'the subject is forgotten too');

    const off = createLoginThrottle(0, () => now);
    for (let i = 0; i < 50; i++) assert.equal(tryOnce(off.forClient('10.0.0.1'), 'id:1'), undefined);
    assert.equal(off.blockedFor('id:1', '10.0.0.1'), undefined);

    const many = createLoginThrottle(5, () => now);
    for (let i = 0; i < MAX_ENTRIES + 50; i++) tryOnce(many.forClient(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`), `login:u${i}`);
    const sizes = many.sizes();
    assert.ok(sizes.pairs <= MAX_ENTRIES && sizes.clients <= MAX_ENTRIES && sizes.subjects <= MAX_ENTRIES, JSON.stringify(sizes));
  });
});
