/**
 * Issue 31, federation, the parts without a server: its settings, blocked domains, the words of
 * an event's summary (all-day and multi-day events, in the event's own zone), times with offsets,
 * content sanitising, and Fedify's key-value store over our database (prefix listing, expiry,
 * compare-and-swap) on SQLite.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Temporal } from '@js-temporal/polyfill';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isBlockedHost } from '../../src/federation/delivery.js';
import { sanitizeContent, summaryOf, withOffset, type PublicEventJson } from '../../src/federation/objects.js';
import { createKvStore } from '../../src/federation/kv.js';
import { createFederationStore } from '../../src/domain/federation-store.js';
import { wantsActivityJson } from '../../src/federation/negotiation.js';
import { actorHostOf, signingKeyId } from '../../src/federation/inbox-guard.js';
import { openStore } from '../../src/store/db.js';
import { kvCountHit } from '../../src/store/federation-fedify.js';

const base: PublicEventJson = {
  id: 1,
  url: 'https://example.com/event/x/',
  title: 'X',
  description: '',
  date_utc: '2030-01-01 00:00:00',
  modified_utc: '2030-01-01 00:00:00',
  all_day: false,
  start_date: '2030-07-14 21:00:00',
  end_date: '2030-07-14 23:30:00',
  timezone: 'America/New_York',
};

describe('federation settings', () => {
  it('are off by default, with the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.federation, false);
    assert.equal(c.federationHandle, 'events');
    assert.equal(c.federationApproveFollows, false);
    assert.equal(c.federationKeepActivities, false);
    assert.deepEqual(c.federationBlockedDomains, []);
    assert.equal(c.federationAllowPrivate, false);
    assert.equal(c.federationMaxBodyBytes, 262_144);
    assert.equal(c.federationClockSkewMs, 300_000);
    assert.equal(c.federationInboxRateLimit, 120);
    assert.deepEqual(c.federationRetrySchedule, [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
  });
  it('are read and checked', () => {
    const c = loadConfig({ FEDERATION: 'true', FEDERATION_HANDLE: 'agenda', FEDERATION_BLOCKED_DOMAINS: 'Spam.example, .bad.test.', FEDERATION_RETRY_SCHEDULE: '1s,2m' });
    assert.equal(c.federation, true);
    assert.equal(c.federationHandle, 'agenda');
    assert.deepEqual(c.federationBlockedDomains, ['spam.example', 'bad.test']);
    assert.deepEqual(c.federationRetrySchedule, [1000, 120_000]);
    assert.throws(() => loadConfig({ FEDERATION_HANDLE: 'a b' }), ConfigError);
    assert.throws(() => loadConfig({ FEDERATION: 'maybe' }), ConfigError);
    assert.throws(() => loadConfig({ FEDERATION_ICON_URL: 'ftp://x/y.png' }), ConfigError);
  });
});

describe('federation helpers', () => {
  it('blocks a domain and its subdomains only', () => {
    assert.equal(isBlockedHost('spam.example', ['spam.example']), true);
    assert.equal(isBlockedHost('a.b.SPAM.example.', ['spam.example']), true);
    assert.equal(isBlockedHost('notspam.example', ['spam.example']), false);
  });
  it('states the date in the event zone, with its offset', () => {
    assert.equal(summaryOf(base), 'Sunday 14 July 2030, 21:00–23:30 (America/New_York)');
    assert.equal(withOffset(base.start_date, base.timezone), '2030-07-14T21:00:00-04:00');
    assert.equal(withOffset('2030-01-14 21:00:00', 'America/New_York'), '2030-01-14T21:00:00-05:00');
    assert.equal(summaryOf({ ...base, all_day: true, start_date: '2030-07-14 00:00:00', end_date: '2030-07-14 23:59:59' }), 'Sunday 14 July 2030 (all day)');
    assert.equal(summaryOf({ ...base, all_day: true, start_date: '2030-07-14 00:00:00', end_date: '2030-07-16 23:59:59' }), 'Sunday 14 July 2030 – Tuesday 16 July 2030 (all day)');
    assert.equal(
      summaryOf({ ...base, end_date: '2030-07-15 02:00:00', venue: { venue: 'Pier 17', city: 'New York' } }),
      'Sunday 14 July 2030, 21:00 – Monday 15 July 2030, 02:00 (America/New_York) · Pier 17, New York',
    );
  });
  it('keeps the HTML Mastodon keeps, and no scripts, handlers or javascript: links', () => {
    assert.equal(sanitizeContent('<p onclick="x()">Hi <em>there</em><script>alert(1)</script><img src=x onerror=y></p>'), '<p>Hi <em>there</em></p>');
    assert.equal(
      sanitizeContent('<a href="javascript:alert(1)">a</a><a href="https://x.test/">b</a>'),
      '<a rel="nofollow noopener noreferrer">a</a><a href="https://x.test/" rel="nofollow noopener noreferrer">b</a>',
    );
  });
  it('negotiates ActivityStreams JSON, and reads the signing key id', () => {
    assert.equal(wantsActivityJson('application/activity+json'), true);
    assert.equal(wantsActivityJson('application/ld+json; profile="https://www.w3.org/ns/activitystreams"'), true);
    assert.equal(wantsActivityJson('text/html,application/xhtml+xml'), false);
    assert.equal(wantsActivityJson(undefined), false);
    assert.equal(signingKeyId({ signature: 'keyId="https://a.test/u#k",algorithm="rsa-sha256",headers="(request-target)",signature="x"' }), 'https://a.test/u#k');
    assert.equal(signingKeyId({ 'signature-input': 'sig1=("@method");keyid="https://b.test/k";alg="ed25519"' }), 'https://b.test/k');
  });
  it("reads the host of an activity's actor, the host a verified activity counts against", () => {
    assert.equal(actorHostOf({ actor: 'https://Social.Example/users/a' }), 'social.example');
    assert.equal(actorHostOf({ actor: { id: 'https://b.test/u' } }), 'b.test');
    assert.equal(actorHostOf({ actor: [{ '@id': 'https://c.test/u' }, 'https://d.test/u'] }), 'c.test');
    assert.equal(actorHostOf({ actor: 'not a url' }), '');
    assert.equal(actorHostOf(null), '');
  });
});

describe("Fedify's key-value store over the database", () => {
  it('gets, sets, lists by prefix, expires and compares-and-swaps', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      const kv = createKvStore(createFederationStore(store));
      await kv.set(['a', 'b'], { n: 1 });
      await kv.set(['a', 'c'], [1, 2]);
      await kv.set(['ab'], 'not under a');
      await kv.set(['a', 'gone'], 1, { ttl: Temporal.Duration.from({ milliseconds: 1 }) as never });
      assert.deepEqual(await kv.get(['a', 'b']), { n: 1 });
      await new Promise((r) => setTimeout(r, 5));
      assert.equal(await kv.get(['a', 'gone']), undefined);
      const listed = [];
      for await (const e of kv.list(['a'])) listed.push(e.key.join('/'));
      assert.deepEqual(listed, ['a/b', 'a/c']);
      assert.equal(await kv.cas!(['a', 'b'], { n: 2 }, { n: 3 }), false);
      assert.equal(await kv.cas!(['a', 'b'], { n: 1 }, { n: 3 }), true);
      assert.deepEqual(await kv.get(['a', 'b']), { n: 3 });
      assert.equal(await kv.cas!(['new'], undefined, 'v'), true);
      assert.equal(await kv.cas!(['new'], undefined, 'w'), false);
      await kv.delete(['a', 'b']);
      assert.equal(await kv.get(['a', 'b']), undefined);
      assert.equal(await kv.purge(), 1);
    } finally {
      await store.close();
    }
  });
  it('counts hits in a fixed window (the inbox limits), a new window once it ended', async () => {
    const store = await openStore('sqlite::memory:');
    try {
      const key = JSON.stringify(['_calendar', 'inbox-rate', 'client', '192.0.2.1']);
      assert.deepEqual(await kvCountHit(store.db, key, 1_000, 61_000), { count: 1, endsMs: 61_000 });
      assert.deepEqual(await kvCountHit(store.db, key, 2_000, 62_000), { count: 2, endsMs: 61_000 });
      assert.deepEqual(await kvCountHit(store.db, key, 60_999, 120_999), { count: 3, endsMs: 61_000 });
      assert.deepEqual(await kvCountHit(store.db, key, 61_000, 121_000), { count: 1, endsMs: 121_000 });
    } finally {
      await store.close();
    }
  });
});
