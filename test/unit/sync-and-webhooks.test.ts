/**
 * Issue 11's pure parts: the SSRF address checks, Standard Webhooks signatures (checked against
 * the `standardwebhooks` package), entity tag parsing and conditional evaluation, sync tokens, and
 * the new settings.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isForbiddenAddress } from '../../src/web/ssrf.js';
import { isSecret, newSecret, sign } from '../../src/webhooks/send.js';
import { wants } from '../../src/webhooks/service.js';
import { pollIntervalMs } from '../../src/jobs/webhook-delivery.js';
import { etagOf, parseEtags, preconditionsHold } from '../../src/web/conditional.js';
import { tagNamesVersion, itemEtag } from '../../src/http/versioning.js';
import { decodeSyncToken, encodeSyncToken, everListed, openSyncToken, versionTag } from '../../src/domain/sync.js';
import { inCalendar } from '../../src/calendar-now.js';
import { ApiError } from '../../src/domain/errors.js';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('SSRF guard', () => {
  it('refuses loopback, private, link-local, shared, reserved and multicast addresses, IPv4 and IPv6', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1']) {
      assert.equal(isForbiddenAddress(a), true, a);
    }
    for (const a of ['::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '2001:db8::1']) {
      assert.equal(isForbiddenAddress(a), true, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isForbiddenAddress(a), false, a);
    assert.equal(isForbiddenAddress('not-an-ip'), true);
  });
});

describe('Standard Webhooks signatures', () => {
  it('are verified by the standardwebhooks package', () => {
    const secret = newSecret();
    assert.ok(isSecret(secret));
    const body = JSON.stringify({ type: 'event.created', timestamp: '2026-01-01T00:00:00Z', data: { id: 1 } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_1_2_0', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'msg_1_2_0', ts, body) };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newSecret()).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify(body + ' ', headers));
  });
  it('secrets have the whsec_ form', () => {
    assert.equal(isSecret('whsec_' + Buffer.alloc(24).toString('base64')), true);
    assert.equal(isSecret('whsec_short'), false);
    assert.equal(isSecret('secret'), false);
  });
  it('event filters and polling', () => {
    assert.equal(wants(['*'], 'tag.deleted'), true);
    assert.equal(wants(['event.created'], 'event.updated'), false);
    assert.equal(pollIntervalMs([5000, 300000]), 1000);
    assert.equal(pollIntervalMs([150]), 75);
  });
});

describe('entity tags', () => {
  it('parses If-Match / If-None-Match lists', () => {
    assert.deepEqual(parseEtags('"a", W/"b" ,"c,d"'), ['"a"', 'W/"b"', '"c,d"']);
    assert.deepEqual(parseEtags('*'), ['*']);
    assert.deepEqual(parseEtags(undefined), []);
  });
  it('strong tags from versions; If-Match names the record and version, any variant', () => {
    assert.match(etagOf(['x', 1]), /^"[A-Za-z0-9_-]{27}"$/);
    assert.notEqual(etagOf(['x', 1]), etagOf(['x', 2]));
    const key = { databaseId: 'abc', secret: Buffer.alloc(32, 7) };
    const tag = itemEtag(key, 'event', 42, 7, 'v1');
    assert.equal(tagNamesVersion(tag, key, 'event', 42, 7), true);
    assert.equal(tagNamesVersion(itemEtag(key, 'event', 42, 7, 'other'), key, 'event', 42, 7), true);
    assert.equal(tagNamesVersion(tag, key, 'event', 42, 8), false);
    assert.equal(tagNamesVersion(tag, { ...key, databaseId: 'abd' }, 'event', 42, 7), false);
    assert.equal(tagNamesVersion(tag, key, 'venue', 42, 7), false);
    // The version is named, not shown: no tag carries the change log's number, and another
    // calendar (or another secret) names the same number otherwise.
    assert.doesNotMatch(tag, /\.7\./);
    // A tag of before (the number in clear) is still taken as a write's precondition, for that number only.
    assert.equal(tagNamesVersion('"abc.e42.7.v1"', key, 'event', 42, 7), true);
    assert.equal(tagNamesVersion('"abc.e42.7.v1"', key, 'event', 42, 8), false);
    assert.equal(
      inCalendar(2, () => tagNamesVersion(tag, key, 'event', 42, 7)),
      false,
    );
    assert.notEqual(versionTag(key, 7, 1), versionTag(key, 7, 2));
    assert.notEqual(versionTag(key, 7), versionTag({ ...key, secret: Buffer.alloc(32, 8) }, 7));
    assert.equal(versionTag(key, '7~1'), versionTag(key, '7~1'));
    const current = { matches: (t: string) => t === tag, lastModified: '2026-01-01 10:00:00' };
    assert.equal(preconditionsHold({ 'if-match': tag }, current), true);
    assert.equal(preconditionsHold({ 'if-match': `W/${tag}` }, current), false);
    assert.equal(preconditionsHold({ 'if-match': '"x", *' }, current), true);
    assert.equal(preconditionsHold({ 'if-unmodified-since': 'Thu, 01 Jan 2026 10:00:00 GMT' }, current), true);
    assert.equal(preconditionsHold({ 'if-unmodified-since': 'Thu, 01 Jan 2026 09:59:59 GMT' }, current), false);
    assert.equal(preconditionsHold({}, current), true);
  });
});

describe('sync tokens', () => {
  const now = Date.now();
  const key = { databaseId: 'abc123', secret: Buffer.alloc(32, 7) };
  const at = (seq: number) => ({ key, seq, historyDays: 30, now });
  const expired = (fn: () => unknown) => assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 410 && e.code === 'rest_sync_token_expired');
  it('round-trip; refuse other databases, the future, old tokens and garbage with 410', () => {
    const tok = encodeSyncToken(key, 10, now);
    assert.equal(decodeSyncToken(tok, at(12)), 10);
    expired(() => decodeSyncToken(tok, { ...at(12), key: { ...key, databaseId: 'abc124' } }));
    expired(() => decodeSyncToken(tok, at(9)));
    expired(() => decodeSyncToken(encodeSyncToken(key, 10, now - 31 * 86_400_000), at(12)));
    expired(() => decodeSyncToken('%%%', at(12)));
    expired(() => decodeSyncToken(42, at(12)));
  });
  it('tokens are signed: any field changed, another key or the unsigned version 1 form answer 410', () => {
    const tok = encodeSyncToken(key, 10, now);
    const text = Buffer.from(tok, 'base64url').toString('latin1');
    const [version, db, sealed, issued, mac] = text.split('.');
    assert.equal(version, '3');
    assert.equal(sealed!.length, 22, 'one AES block, base64url');
    assert.equal(mac!.length, 22, '16 bytes of HMAC-SHA256, base64url');
    const forge = (parts: string[]) => Buffer.from(parts.join('.')).toString('base64url');
    const flip = (s: string) => (s.startsWith('A') ? 'B' : 'A') + s.slice(1);
    assert.equal(decodeSyncToken(forge([version!, db!, sealed!, issued!, mac!]), at(12)), 10);
    expired(() => decodeSyncToken(forge([version!, db!, flip(sealed!), issued!, mac!]), at(12)));
    expired(() => decodeSyncToken(forge([version!, db!, '9', issued!, mac!]), at(12)));
    expired(() => decodeSyncToken(forge(['2', db!, sealed!, issued!, mac!]), at(12)));
    expired(() => decodeSyncToken(forge([version!, db!, sealed!, String(Number(issued) + 1), mac!]), at(12)));
    expired(() => decodeSyncToken(forge([version!, 'abc124', sealed!, issued!, mac!]), { ...at(12), key: { ...key, databaseId: 'abc124' } }));
    expired(() => decodeSyncToken(forge([version!, db!, sealed!, issued!, flip(mac!)]), at(12)));
    expired(() => decodeSyncToken(forge([version!, db!, sealed!, issued!]), at(12)));
    expired(() => decodeSyncToken(forge(['1', db!, '0', issued!]), at(12)));
    expired(() => decodeSyncToken(tok, { ...at(12), key: { ...key, secret: Buffer.alloc(32, 8) } }));
  });
  it('a token shows neither its position nor how far apart two are, and opens in its own calendar only', () => {
    const parts = (seq: number) =>
      Buffer.from(encodeSyncToken(key, seq, now), 'base64url')
        .toString('latin1')
        .split('.');
    const [a, b] = [parts(10), parts(11)];
    assert.doesNotMatch(a[2]!, /^\d+$/);
    assert.notEqual(a[2], b[2]);
    // Bytes of the two blocks in common: about one in 256 per byte by chance, never the run of
    // equal leading bytes a counter in clear gives.
    const [x, y] = [Buffer.from(a[2]!, 'base64url'), Buffer.from(b[2]!, 'base64url')];
    assert.ok(x.filter((v, i) => v === y[i]).length < 6);
    assert.deepEqual(openSyncToken(key, encodeSyncToken(key, 10, now)), { seq: 10, calendar: 1, issuedMs: Math.floor(now / 1000) * 1000 });
    const north = encodeSyncToken(key, 10, now, 2);
    assert.equal(
      inCalendar(2, () => decodeSyncToken(north, at(12))),
      10,
    );
    assert.equal(decodeSyncToken(north, { ...at(12), calendar: 2 }), 10);
    expired(() => decodeSyncToken(north, at(12)));
    expired(() => inCalendar(3, () => decodeSyncToken(north, at(12))));
    const home = encodeSyncToken(key, 10, now);
    expired(() => inCalendar(2, () => decodeSyncToken(home, at(12))));
  });
  it('a version 2 token (the position in clear, before tokens were sealed) is still taken while valid', () => {
    const payload = `2.${key.databaseId}.10.${Math.floor(now / 1000)}`;
    const mac = createHmac('sha256', key.secret).update(payload).digest().subarray(0, 16).toString('base64url');
    const v2 = Buffer.from(`${payload}.${mac}`).toString('base64url');
    assert.equal(decodeSyncToken(v2, at(12)), 10);
    expired(() => decodeSyncToken(v2, at(9)));
    const old = `2.${key.databaseId}.10.${Math.floor((now - 31 * 86_400_000) / 1000)}`;
    expired(() => decodeSyncToken(Buffer.from(`${old}.${createHmac('sha256', key.secret).update(old).digest().subarray(0, 16).toString('base64url')}`).toString('base64url'), at(12)));
  });
  it('a record counts as seen when one of its logged earlier states was listed', () => {
    const listed = (b: { status: string }) => b.status === 'publish';
    assert.equal(everListed({ id: 1, seq: 1, idx: 0, actions: ['create', 'update'], details: [{ before: null }, { before: { status: 'draft' } }] }, listed, false), false);
    assert.equal(everListed({ id: 1, seq: 1, idx: 0, actions: ['update'], details: [{ before: { status: 'publish' } }] }, listed, false), true);
    assert.equal(everListed({ id: 1, seq: 1, idx: 0, actions: ['update'], details: [null] }, listed, false), false);
    assert.equal(everListed({ id: 1, seq: 1, idx: 0, actions: ['delete'], details: [null] }, listed, true), true);
  });
});

describe('issue 11 settings', () => {
  it('have defaults, parse durations and refuse bad values', () => {
    const d = loadConfig({});
    assert.equal(d.cacheMaxAge, 10);
    assert.equal(d.syncHistoryDays, 30);
    assert.equal(d.webhooksAllowPrivate, false);
    assert.deepEqual(d.webhooksRetrySchedule, [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    assert.ok(d.webhooksRetrySchedule.reduce((a, b) => a + b, 0) >= 24 * 3_600_000, 'retries cover at least 24 h');
    assert.equal(d.webhooksDisableAfterMs, 86_400_000);
    assert.equal(d.webhooksTimeoutMs, 10_000);
    const c = loadConfig({
      CACHE_MAX_AGE: '0',
      SYNC_HISTORY_DAYS: '0.5',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_RETRY_SCHEDULE: '200ms, 1s,1.5m',
      WEBHOOKS_DISABLE_AFTER: '2h',
      WEBHOOKS_TIMEOUT: '500ms',
    });
    assert.equal(c.cacheMaxAge, 0);
    assert.equal(c.syncHistoryDays, 0.5);
    assert.equal(c.webhooksAllowPrivate, true);
    assert.deepEqual(c.webhooksRetrySchedule, [200, 1000, 90000]);
    assert.equal(c.webhooksDisableAfterMs, 7_200_000);
    assert.equal(c.webhooksTimeoutMs, 500);
    for (const bad of [{ CACHE_MAX_AGE: '-1' }, { SYNC_HISTORY_DAYS: '0' }, { WEBHOOKS_RETRY_SCHEDULE: '5 parsecs' }, { WEBHOOKS_TIMEOUT: '0' }, { WEBHOOKS_ALLOW_PRIVATE: 'maybe' }]) {
      assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
    }
  });
});
