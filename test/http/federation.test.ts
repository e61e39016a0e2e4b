/**
 * Issue 31, federation: the calendar as an ActivityPub actor, followed by an independent follower
 * built with Fedify (federation-follower.ts: its own `createFederation` on a loopback port, which
 * verifies every activity's signature). WebFinger, NodeInfo and the actor; Follow and Accept; Create,
 * Update and Delete (with a Tombstone, and the object answering 410) for a published, edited and
 * trashed event; drafts and private events never leave; a follower answering 500 gets the activity
 * later, one answering 410 is removed; a restart during pending deliveries loses none; unsigned,
 * badly signed, oversized and replayed inbox requests are refused; the objects pass a JSON-LD
 * expansion, Fedify's own parsing and Mastodon's rules for incoming events; with FEDERATION off
 * every route 404s. On both stores.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { preloadedContexts } from '@fedify/vocab-runtime';
import { Application, Event as ApEvent } from '@fedify/vocab';
import { buildApp } from '../../src/app.js';
import { STORES, startServer, type StoreKind, type TestServer } from '../support/harness.js';
import { startFollower, type Follower } from './federation-follower.js';

const ADMIN_BASE = '/api/calendar/admin/v1';
const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const ENV = { FEDERATION: 'true', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true', FEDERATION_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms' };

const event = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  description: '<p>Bring <strong>friends</strong>.<script>alert(1)</script> <a href="javascript:alert(1)">x</a></p>',
  start_date: '2031-03-14 19:30:00',
  end_date: '2031-03-14 22:00:00',
  timezone: 'Europe/Paris',
  status: 'publish',
  venue: { venue: 'Le Caveau', address: '5 rue de la Huchette', city: 'Paris', zip: '75005', country: 'France' },
  organizer: [{ organizer: 'Hot Club', email: 'club@example.com', phone: '+33 1 23 45 67 89', website: 'https://example.com/club' }],
  categories: ['Concerts'],
  tags: ['jazz'],
  ...extra,
});

/** Poll `fn` until it answers something truthy (bounded, so a failure does not hang the run). */
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A JSON-LD document loader over Fedify's preloaded contexts (no network). */
const documentLoader = async (url: string) => {
  const doc = preloadedContexts[url];
  if (!doc) throw new Error(`context not preloaded: ${url}`);
  return { contextUrl: null, documentUrl: url, document: doc };
};

/**
 * Mastodon's rules for an incoming Create of an Event (docs.joinmastodon.org/spec/activitypub:
 * "Supported activities" and "Supported objects"; app/lib/activitypub/activity/create.rb): an
 * Event is not a Note, so Mastodon converts it into a status from its `name` and `url` (and shows
 * `summary`/`content`); the object needs an `id` on the same host as the actor that sent it,
 * `attributedTo` that actor, `published` for the status' date, and public addressing (as:Public in
 * `to` for a public status, in `cc` for an unlisted one) to appear outside direct messages.
 */
function assertMastodonAcceptsEvent(activity: any, actorId: string) {
  const object = activity.object;
  assert.equal(activity.actor, actorId, 'the activity is by the calendar');
  assert.equal(object.type, 'Event');
  assert.ok(typeof object.id === 'string' && new URL(object.id).host === new URL(actorId).host, 'object id on the actor host');
  assert.equal(object.attributedTo, actorId, 'attributedTo is the actor');
  assert.ok(typeof object.name === 'string' && object.name.length > 0, 'a name');
  assert.ok(typeof object.url === 'string' && /^https?:\/\//.test(object.url), 'a url');
  assert.ok(typeof object.content === 'string' || typeof object.summary === 'string', 'content or summary');
  assert.ok(!Number.isNaN(Date.parse(object.published)), 'published');
  assert.ok([...(object.to ?? []), ...(object.cc ?? [])].includes(AS_PUBLIC), 'public addressing');
  assert.ok((activity.to ?? []).includes(AS_PUBLIC), 'the activity is public');
}

/** The checks every Event object passes: JSON-LD expansion, Fedify's parsing, the shape Mobilizon and Gancio read. */
async function assertEventObject(object: any, expected: { name: string }) {
  const jsonldName = 'jsonld';
  const jsonld = (await import(jsonldName)).default;
  const expanded = await jsonld.expand(object, { documentLoader });
  assert.equal(expanded.length, 1);
  const node = expanded[0];
  assert.deepEqual(node['@type'], ['https://www.w3.org/ns/activitystreams#Event']);
  assert.equal(node['https://joinmobilizon.org/ns#timezone'][0]['@value'], 'Europe/Paris');
  const place = node['https://www.w3.org/ns/activitystreams#location'][0];
  assert.equal(place['http://schema.org/#address'][0]['http://schema.org/#addressLocality'][0]['@value'], 'Paris');
  const parsed = await ApEvent.fromJsonLd(object, { contextLoader: documentLoader as never, documentLoader: documentLoader as never });
  assert.equal(String(parsed.name), expected.name);
  assert.equal(parsed.startTime?.toString(), '2031-03-14T18:30:00Z');
  assert.equal(object.startTime, '2031-03-14T19:30:00+01:00', 'startTime with the zone offset');
  assert.equal(object.endTime, '2031-03-14T22:00:00+01:00');
  assert.equal(object.timezone, 'Europe/Paris');
  assert.match(object.summary, /Friday 14 March 2031, 19:30–22:00 \(Europe\/Paris\) · Le Caveau, Paris/);
  assert.doesNotMatch(object.content, /script|javascript:/);
  assert.match(object.content, /<strong>friends<\/strong>/);
  assert.equal(object.location.type, 'Place');
  assert.equal(object.location.address.type, 'PostalAddress');
  assert.equal(object.location.address.streetAddress, '5 rue de la Huchette');
  assert.equal(object.location.address.postalCode, '75005');
  assert.deepEqual(object.organizer, [{ type: 'Organization', name: 'Hot Club', url: 'https://example.com/club' }]);
  assert.doesNotMatch(JSON.stringify(object), /club@example\.com|23 45 67 89/, 'no e-mail or phone');
  assert.deepEqual(
    object.tag.map((h: any) => [h.type, h.name]),
    [
      ['Hashtag', '#Concerts'],
      ['Hashtag', '#jazz'],
    ],
  );
}

const activityOf = (f: Follower, type: string, objectId: string) => (a: { type: string; json: any }) => a.type === type && (a.json.object?.id ?? a.json.object) === objectId;

for (const kind of STORES) {
  describe(`federation [${kind.name}]`, () => {
    let t: TestServer;
    let f: Follower;
    let actorId: string;
    let followId: string;
    before(async () => {
      t = await startServer(kind, ENV);
      f = await startFollower('alice');
    });
    after(async () => {
      await f?.close();
      await t?.close();
    });

    it('discovery: WebFinger, NodeInfo 2.1 and the actor (an Application with its inbox, shared inbox, outbox, followers, RSA and Ed25519 keys)', async () => {
      const host = new URL(t.origin).host;
      const actor = await f.lookUp(`acct:events@${host}`, t.origin);
      assert.ok(actor instanceof Application);
      actorId = actor.id!.href;
      assert.equal(actorId, `${t.origin}/federation/actors/events`);
      assert.equal(String(actor.name), 'Events Calendar');
      assert.ok(String(actor.summary).length > 0);
      assert.equal(actor.inboxId?.href, `${actorId}/inbox`);
      assert.equal(actor.endpoints?.sharedInbox?.href, `${t.origin}/federation/inbox`);
      assert.equal(actor.outboxId?.href, `${actorId}/outbox`);
      assert.equal(actor.followersId?.href, `${actorId}/followers`);
      const key = await actor.getPublicKey();
      assert.equal(key?.ownerId?.href, actorId);
      const multikeys = [];
      for await (const k of actor.getAssertionMethods()) multikeys.push(k);
      assert.equal(multikeys.length, 2, 'RSA and Ed25519');
      // Keys are generated once and stored: the actor document's key does not change.
      const again = await (await fetch(actorId, { headers: { accept: 'application/activity+json' } })).json();
      assert.equal(again.publicKey.publicKeyPem, (await (await fetch(actorId, { headers: { accept: 'application/activity+json' } })).json()).publicKey.publicKeyPem);
      const nodeinfo = await (await fetch(`${t.origin}/.well-known/nodeinfo`)).json();
      const href = nodeinfo.links.find((l: any) => l.rel === 'http://nodeinfo.diaspora.software/ns/schema/2.1').href;
      const ni = await (await fetch(href)).json();
      assert.equal(ni.version, '2.1');
      assert.deepEqual(ni.protocols, ['activitypub']);
      assert.equal(ni.software.name, 'events-calendar');
      const unknown = await fetch(`${t.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:nobody@${host}`)}`);
      assert.equal(unknown.status, 404);
    });

    it('Follow is accepted: the follower receives a signed Accept and is listed for editors', async () => {
      const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
      followId = await f.follow(actor);
      const accept = await f.waitFor((a) => a.type === 'Accept');
      assert.equal(accept.json.actor, actorId);
      assert.equal(accept.json.object.id, followId);
      const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.length, 1);
      assert.equal(list.body[0].actor, f.actorId);
      assert.equal(list.body[0].status, 'accepted');
      assert.equal(list.body[0].shared_inbox, `${f.origin}/inbox`);
      assert.equal(list.headers.get('x-wp-total'), '1');
      const anon = await t.api.get(`${ADMIN_BASE}/federation/followers`);
      assert.equal(anon.status, 401);
      const index = await t.api.get(ADMIN_BASE);
      for (const route of [
        '/calendar/admin/v1/federation',
        '/calendar/admin/v1/federation/followers',
        '/calendar/admin/v1/federation/followers/(?P<id>\\d+)/accept',
        '/calendar/admin/v1/federation/deliveries',
      ]) {
        assert.ok(index.body.routes[route], route);
      }
      const followers = await (await fetch(`${actorId}/followers`)).json();
      assert.equal(followers.totalItems, 1);
    });

    it('publish → Create, edit → one Update (none for an edit that changes nothing shown), trash → Delete with a Tombstone (the object then answers 410); drafts and private events never leave', async () => {
      const draft = await t.api.post('/events', { as: 'admin', json: event('Secret draft', { status: 'draft' }) });
      const priv = await t.api.post('/events', { as: 'admin', json: event('Members only', { status: 'private' }) });
      assert.equal(draft.status, 201);
      assert.equal(priv.status, 201);
      const created = await t.api.post('/events', { as: 'admin', json: event('Jazz Night') });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id;
      const objectId = `${t.origin}/federation/events/${id}`;
      const create = await f.waitFor(activityOf(f, 'Create', objectId));
      assertMastodonAcceptsEvent(create.json, actorId);
      await assertEventObject({ '@context': create.json['@context'], ...create.json.object }, { name: 'Jazz Night' });
      assert.equal(create.json.object.url, created.body.url);
      // Activities reach an inbox in order: nothing about the draft or the private event came before.
      for (const other of [draft.body.id, priv.body.id]) {
        assert.ok(!f.received.some((a) => JSON.stringify(a.json).includes(`/federation/events/${other}`)), 'never sent');
        const obj = await fetch(`${t.origin}/federation/events/${other}`, { headers: { accept: 'application/activity+json' } });
        assert.equal(obj.status, 404);
      }
      // The object at its URL, and by content negotiation on the event's page (the page links to it).
      const direct = await fetch(objectId, { headers: { accept: 'application/activity+json' } });
      assert.equal(direct.status, 200);
      assert.match(direct.headers.get('content-type') ?? '', /application\/activity\+json/);
      assert.equal((await direct.json()).name, 'Jazz Night');
      const negotiated = await fetch(created.body.url, { headers: { accept: 'application/activity+json' } });
      assert.equal((await negotiated.json()).id, objectId);
      const page = await fetch(created.body.url, { headers: { accept: 'text/html' } });
      assert.match(await page.text(), /Jazz Night/);
      assert.match(page.headers.get('link') ?? '', new RegExp(`<${objectId}>; rel="alternate"; type="application/activity\\+json"`));

      // An edit that changes nothing the object shows sends nothing; a real edit sends one Update.
      const same = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Jazz Night' } });
      assert.equal(same.status, 200);
      const edited = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: 'Jazz Night (moved)', start_date: '2031-03-14 20:00:00' } });
      assert.equal(edited.status, 200);
      const update = await f.waitFor(activityOf(f, 'Update', objectId));
      assert.equal(update.json.object.name, 'Jazz Night (moved)');
      assert.equal(update.json.object.startTime, '2031-03-14T20:00:00+01:00');
      assertMastodonAcceptsEvent(update.json, actorId);

      const trashed = await t.api.delete(`/events/${id}`, { as: 'admin' });
      assert.equal(trashed.status, 200);
      const del = await f.waitFor(activityOf(f, 'Delete', objectId));
      assert.equal(del.json.object.type, 'Tombstone');
      assert.equal(del.json.object.formerType, 'Event');
      assert.equal(del.json.actor, actorId);
      const gone = await fetch(objectId, { headers: { accept: 'application/activity+json' } });
      assert.equal(gone.status, 410);
      assert.equal((await gone.json()).type, 'Tombstone');
      // Exactly one Update: the no-op edit made none.
      assert.equal(f.received.filter(activityOf(f, 'Update', objectId)).length, 1);

      // Unpublishing (publish → draft) deletes too; making a draft public creates.
      const second = await t.api.post('/events', { as: 'admin', json: event('Blues Night') });
      const secondId = `${t.origin}/federation/events/${second.body.id}`;
      await f.waitFor(activityOf(f, 'Create', secondId));
      await t.api.post(`/events/${second.body.id}`, { as: 'admin', json: { status: 'draft' } });
      await f.waitFor(activityOf(f, 'Delete', secondId));
      await t.api.post(`/events/${draft.body.id}`, { as: 'admin', json: { status: 'publish' } });
      await f.waitFor(activityOf(f, 'Create', `${t.origin}/federation/events/${draft.body.id}`));
      assert.ok(!f.received.some((a) => JSON.stringify(a.json).includes(`/federation/events/${priv.body.id}`)), 'the private event never left');

      // The outbox, paged, newest first: what a new follower can read.
      const outbox = await (await fetch(`${actorId}/outbox`, { headers: { accept: 'application/activity+json' } })).json();
      assert.equal(outbox.type, 'OrderedCollection');
      assert.ok(outbox.totalItems >= 6);
      const first = await (await fetch(outbox.first)).json();
      assert.equal(first.type, 'OrderedCollectionPage');
      assert.equal(first.orderedItems[0].type, 'Create');
      assert.equal(first.orderedItems[0].object.id, `${t.origin}/federation/events/${draft.body.id}`);
      assert.ok(!JSON.stringify(first).includes(`/federation/events/${priv.body.id}`));
    });

    it('a recurring series federates as one Event per occurrence, only those starting within 90 days (the series itself is no object)', async () => {
      const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
      const series = await t.api.post('/events', {
        as: 'admin',
        json: { ...event('Weekly Jam'), start_date: `${day(7)} 19:30:00`, end_date: `${day(7)} 22:00:00`, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=30'] },
      });
      assert.equal(series.status, 201, series.text);
      const marker = await t.api.post('/events', { as: 'admin', json: event('After the Jam') });
      await f.waitFor(activityOf(f, 'Create', `${t.origin}/federation/events/${marker.body.id}`));
      const jams = f.received.filter((a) => a.type === 'Create' && a.json.object.name === 'Weekly Jam');
      const horizon = Date.now() + 90 * 86_400_000;
      assert.ok(jams.length >= 11 && jams.length <= 14, `about 13 weekly occurrences within 90 days, got ${jams.length}`);
      for (const a of jams) assert.ok(Date.parse(a.json.object.startTime) <= horizon, a.json.object.startTime);
      assert.equal(new Set(jams.map((a) => a.json.object.id)).size, jams.length, 'one object per occurrence');
      assert.ok(!jams.some((a) => a.json.object.id === `${t.origin}/federation/events/${series.body.id}`) || series.body.recurring_event_id !== undefined);
      const seriesObject = await fetch(`${t.origin}/federation/events/${series.body.recurring_event_id ?? series.body.id}`, { headers: { accept: 'application/activity+json' } });
      assert.equal(seriesObject.status, 404, 'the series itself is not an object');
    });

    it('a follower answering 500 gets the activity later (retried with backoff); deliveries are listed for editors', async () => {
      f.answer(500, 1);
      const seen = f.inboxRequests;
      const created = await t.api.post('/events', { as: 'admin', json: event('Retry Night') });
      const objectId = `${t.origin}/federation/events/${created.body.id}`;
      await f.waitFor(activityOf(f, 'Create', objectId));
      assert.ok(f.inboxRequests >= seen + 2, 'a failed attempt, then the delivery');
      // The follower has it; our record of the answer follows the answer.
      const mine = await until('the delivery recorded', async () => {
        const list = await t.api.get(`${ADMIN_BASE}/federation/deliveries`, { as: 'admin' });
        assert.equal(list.status, 200);
        const d = list.body.find((x: any) => x.activity_type === 'Create' && x.activity_id.includes(`create-${created.body.id}-`));
        return d?.status === 'delivered' && d;
      });
      assert.equal(mine.status, 'delivered');
      assert.equal(mine.attempts, 2);
      assert.equal(mine.inbox, `${f.origin}/inbox`, 'one delivery per shared inbox');
      const metrics = await fetch(`${t.origin}/metrics`);
      const text = await metrics.text();
      assert.match(text, /calendar_federation_deliveries_total\{outcome="retried"\} [1-9]/);
      assert.match(text, /calendar_federation_followers\{status="accepted"\} 1/);
    });

    it('a follower whose inbox answers 410 is removed', async () => {
      const g = await startFollower('gone');
      try {
        const actor = await g.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await g.follow(actor);
        await g.waitFor((a) => a.type === 'Accept');
        g.answer(410, 100);
        await t.api.post('/events', { as: 'admin', json: event('Gone Night') });
        await until('the follower removed', async () => {
          const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' });
          return !list.body.some((x: any) => x.actor === g.actorId);
        });
        const gone = await t.api.get(`${ADMIN_BASE}/federation/deliveries`, { as: 'admin', query: { status: 'gone' } });
        assert.ok(gone.body.some((d: any) => d.inbox === `${g.origin}/inbox` && d.last_status === 410));
      } finally {
        await g.close();
      }
    });

    it('inbox: unsigned, badly signed, oversized and replayed requests are refused', async () => {
      const inbox = `${actorId}/inbox`;
      const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${f.origin}/follows/x1`, type: 'Follow', actor: f.actorId, object: actorId });
      const unsigned = await fetch(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
      assert.equal(unsigned.status, 401);
      const keyId = new URL(`${f.actorId}#main-key`);
      const sign = (b: string) =>
        signRequest(new Request(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: b }), f.keys[0]!.privateKey as never, keyId, {
          spec: 'draft-cavage-http-signatures-12',
        });
      // Badly signed: the body changed after signing (its digest no longer matches).
      const signed = await sign(body);
      const tampered = await fetch(inbox, { method: 'POST', headers: signed.headers, body: body.replace('x1', 'x2') });
      assert.equal(tampered.status, 401);
      // Signed by a key that is not the actor's: the key's owner must be the activity's actor.
      const other = JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${f.origin}/follows/x3`,
        type: 'Follow',
        actor: `${t.origin}/federation/actors/events`,
        object: actorId,
      });
      const notOwner = await sign(other);
      const res = await fetch(inbox, { method: 'POST', headers: notOwner.headers, body: other });
      assert.equal(res.status, 401);
      // Oversized.
      const big = JSON.stringify({ type: 'Note', content: 'x'.repeat(300_000) });
      const tooBig = await fetch(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: big });
      assert.equal(tooBig.status, 413);
      assert.equal((await tooBig.json()).code, 'federation_payload_too_large');
      // A valid request is accepted once; the same bytes again are a replay.
      const good = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${f.origin}/follows/x4`, type: 'Follow', actor: f.actorId, object: actorId });
      const once = await sign(good);
      const headers: Record<string, string> = {};
      once.headers.forEach((v, k) => {
        headers[k] = v;
      });
      const first = await fetch(inbox, { method: 'POST', headers, body: good });
      assert.equal(first.status, 202);
      const replay = await fetch(inbox, { method: 'POST', headers, body: good });
      assert.equal(replay.status, 401);
      assert.equal((await replay.json()).code, 'federation_replayed');
      // Too old: a Date outside the clock-skew window.
      const stale = await signRequest(
        new Request(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json', date: new Date(Date.now() - 3_600_000).toUTCString() }, body: good.replace('x4', 'x5') }),
        f.keys[0]!.privateKey as never,
        keyId,
        {
          spec: 'draft-cavage-http-signatures-12',
          currentTime: Temporal.Instant.fromEpochMilliseconds(Date.now() - 3_600_000),
        },
      );
      const old = await fetch(inbox, { method: 'POST', headers: stale.headers, body: good.replace('x4', 'x5') });
      assert.equal(old.status, 401);
    });

    it('Undo(Follow) removes the follower', async () => {
      const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
      await f.unfollow(actor, followId);
      await until('unfollowed', async () => {
        const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' });
        return list.body.length === 0;
      });
    });

    it("Delete of the follower's own actor (an account deleted) removes it", async () => {
      const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
      await f.follow(actor);
      await until('followed again', async () => (await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' })).body.length === 1);
      await f.deleteSelf(actor);
      await until('removed', async () => (await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' })).body.length === 0);
      // Other activities are dropped by default (FEDERATION_KEEP_ACTIVITIES=false): a Like, then a
      // Follow handled after it (incoming activities are handled in the order they came).
      await f.like(actor, `${t.origin}/federation/events/1`);
      await f.follow(actor);
      await until('followed after the Like', async () => (await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' })).body.length === 1);
      const kept = await t.api.get(`${ADMIN_BASE}/federation/received`, { as: 'admin' });
      assert.equal(kept.status, 200);
      assert.deepEqual(kept.body, []);
    });
  });

  describe(`federation: durability and approval [${kind.name}]`, () => {
    let dir: string | undefined;
    let shared: StoreKind = kind;
    before(() => {
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'federation-'));
        shared = { name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` };
      }
    });
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('a restart (close and rebuild the app over the same store) during pending deliveries loses none', async () => {
      // 100 retries 300 ms apart: the delivery stays pending for 30 s of failures, longer than the
      // wait for its first failed attempt (ten retries gave a loaded host a 3 s window to see it).
      const t = await startServer(shared, { ...ENV, FEDERATION_RETRY_SCHEDULE: Array(100).fill('300ms').join(',') });
      const f = await startFollower('bob');
      let stopped = false;
      try {
        const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await f.follow(actor);
        await f.waitFor((a) => a.type === 'Accept');
        f.answer(503, 1_000_000);
        const created = await t.api.post('/events', { as: 'admin', json: event('Restart Night') });
        const objectId = `${t.origin}/federation/events/${created.body.id}`;
        await until('a failed attempt', async () => {
          const list = await t.api.get(`${ADMIN_BASE}/federation/deliveries`, { as: 'admin', query: { status: 'pending' } });
          return list.body.some((d: any) => d.activity_type === 'Create' && d.attempts >= 1);
        });
        // Stop the service (its jobs stop with it), keep the database, and build it again.
        stopped = true;
        await t.built.app.close();
        f.answer(0, 0);
        const rebuilt = await buildApp(t.config, { store: t.built.store, logger: false });
        await rebuilt.app.listen({ port: t.config.port, host: '127.0.0.1' });
        try {
          const create = await f.waitFor(activityOf(f, 'Create', objectId));
          assert.equal(create.json.object.name, 'Restart Night');
          assert.equal(f.received.filter(activityOf(f, 'Create', objectId)).length, 1);
        } finally {
          await rebuilt.app.close();
        }
      } finally {
        // A failure before the restart leaves the first app running: its server and jobs would
        // keep this test file's process alive (the run would never end).
        if (!stopped) await t.built.app.close();
        await f.close();
        await t.built.store.close();
      }
    });

    it('FEDERATION_APPROVE_FOLLOWS=true: a follow waits for an editor; accept sends Accept, reject sends Reject', async () => {
      const t = await startServer(kind, { ...ENV, FEDERATION_APPROVE_FOLLOWS: 'true', FEDERATION_KEEP_ACTIVITIES: 'true' });
      const a = await startFollower('carol');
      const b = await startFollower('dave');
      try {
        const actor = await a.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        assert.equal(actor.manuallyApprovesFollowers, true);
        await a.follow(actor);
        await b.follow(actor);
        const pending = await until('two pending follows', async () => {
          const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin', query: { status: 'pending' } });
          return list.body.length === 2 && list.body;
        });
        await t.user('editor', 'ed');
        const accepted = await t.api.post(`${ADMIN_BASE}/federation/followers/${pending.find((x: any) => x.actor === a.actorId).id}/accept`, { as: 'ed' });
        assert.equal(accepted.status, 200, accepted.text);
        assert.equal(accepted.body.status, 'accepted');
        await a.waitFor((x) => x.type === 'Accept');
        const again = await t.api.post(`${ADMIN_BASE}/federation/followers/${accepted.body.id}/accept`, { as: 'ed' });
        assert.equal(again.status, 409);
        const rejected = await t.api.post(`${ADMIN_BASE}/federation/followers/${pending.find((x: any) => x.actor === b.actorId).id}/reject`, { as: 'ed' });
        assert.equal(rejected.status, 200);
        await b.waitFor((x) => x.type === 'Reject');
        await t.user('author', 'au');
        const author = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'au' });
        assert.equal(author.status, 403);
        // Only the accepted follower gets the calendar's activities.
        const created = await t.api.post('/events', { as: 'admin', json: event('Approved Night') });
        await a.waitFor(activityOf(a, 'Create', `${t.origin}/federation/events/${created.body.id}`));
        assert.ok(!b.received.some((x) => x.type === 'Create'));
        // FEDERATION_KEEP_ACTIVITIES=true: other activities are kept for moderation.
        await a.like(actor, `${t.origin}/federation/events/${created.body.id}`);
        const kept = await until('the Like kept', async () => {
          const r = await t.api.get(`${ADMIN_BASE}/federation/received`, { as: 'ed' });
          return r.body.length > 0 && r;
        });
        assert.equal(kept.body.length, 1);
        assert.equal(kept.body[0].type, 'Like');
        assert.equal(kept.body[0].actor, a.actorId);
      } finally {
        await a.close();
        await b.close();
        await t.close();
      }
    });
  });

  describe(`federation: blocked domains and the inbox rate limit [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { ...ENV, FEDERATION_BLOCKED_DOMAINS: 'example.invalid,127.0.0.1', FEDERATION_INBOX_RATE_LIMIT: '3' });
    });
    after(async () => {
      await t.close();
    });
    it('refuses requests signed by a blocked domain (403) and more than FEDERATION_INBOX_RATE_LIMIT a minute from one host (429)', async () => {
      const f = await startFollower('eve');
      try {
        const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await assert.rejects(f.follow(actor), /403/);
        const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' });
        assert.deepEqual(list.body, []);
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await fetch(`${t.origin}/federation/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{}' })).status);
        assert.deepEqual(statuses, [400, 400, 400, 429], 'three malformed activities refused by Fedify, then the limit');
      } finally {
        await f.close();
      }
    });
  });

  describe(`federation off [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind);
    });
    after(async () => {
      await t.close();
    });
    it('with FEDERATION unset every federation route answers 404', async () => {
      const created = await t.api.post('/events', { as: 'admin', json: event('Quiet Night') });
      const host = new URL(t.origin).host;
      for (const [method, path] of [
        ['GET', `/.well-known/webfinger?resource=${encodeURIComponent(`acct:events@${host}`)}`],
        ['GET', '/.well-known/nodeinfo'],
        ['GET', '/nodeinfo/2.1'],
        ['GET', '/federation/actors/events'],
        ['POST', '/federation/actors/events/inbox'],
        ['POST', '/federation/inbox'],
        ['GET', '/federation/actors/events/outbox'],
        ['GET', '/federation/actors/events/followers'],
        ['GET', `/federation/events/${created.body.id}`],
        ['GET', `${ADMIN_BASE}/federation`],
        ['GET', `${ADMIN_BASE}/federation/followers`],
        ['GET', `${ADMIN_BASE}/federation/deliveries`],
      ]) {
        const res = await fetch(`${t.origin}${path}`, {
          method,
          headers: { accept: 'application/activity+json', authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64') },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
      const page = await fetch(created.body.url, { headers: { accept: 'application/activity+json' } });
      assert.notEqual(page.headers.get('content-type'), 'application/activity+json; charset=utf-8');
      assert.doesNotMatch(page.headers.get('link') ?? '', /activity\+json/);
    });
  });
}
