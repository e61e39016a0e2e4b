/**
 * Issue 31, federation: the calendar as an ActivityPub actor, followed by an independent follower
 * built with Fedify (federation-follower.ts: its own `createFederation` on a loopback port, which
 * verifies every activity's signature). WebFinger, NodeInfo and the actor; Follow and Accept; Create,
 * Update and Delete (with a Tombstone, and the object answering 410) for a published, edited and
 * trashed event; drafts and private events never leave; a follower answering 500 gets the activity
 * later, one answering 410 is removed; a restart during pending deliveries loses none; unsigned,
 * badly signed, oversized and replayed inbox requests are refused; the objects pass a JSON-LD
 * expansion, Fedify's own parsing and Mastodon's rules for incoming events; with FEDERATION off
 * every route 404s. Issue 44: the inbox trusts only what it verified: an unverified Delete of an
 * actor removes its follower only when the actor URL stored for it answers 410/404; the inbox
 * limit counts each client address (per /64 for IPv6) before anything is fetched, and a key host
 * only once its signature verified, under 20 parallel requests and across two instances. What the
 * outbox announces, seen by a second peer written without Fedify (federation-independent-follower.ts):
 * an event published before the outbox job's first step, or just before a restart, or by two
 * instances starting at once, is announced once; one published before federation was on is not
 * (its object URL answers 404), nor swept if it is a series; two edits within one second are two
 * Updates with strictly increasing `updated`. On both stores.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { preloadedContexts } from '@fedify/vocab-runtime';
import { Application, Event as ApEvent } from '@fedify/vocab';
import { buildApp } from '../../src/app.js';
import { STORES, startServer, startTwoInstances, type StoreKind, type TestServer } from '../support/harness.js';
import { MAX_FETCHES_PER_REQUEST } from '../../src/federation/loaders.js';
import { upsertFollower } from '../../src/store/federation.js';
import { tryJobLock } from '../../src/store/job-locks.js';
import { federationObjectTimesMigration } from '../../src/store/migrations/022_federation_object_times.js';
import { startFollower, type Follower } from './federation-follower.js';
import { startIndependentFollower, type IndependentFollower } from './federation-independent-follower.js';

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

/** A server on a loopback address of its own (a host by name) answering `status` to everything, counting the requests. */
async function statusServer(host: string, status: number): Promise<{ origin: string; hits: number; close(): Promise<void> }> {
  const state = { hits: 0 };
  const server = createServer((_req, res) => {
    state.hits++;
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    get hits() {
      return state.hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** POST an activity signed (draft-cavage) with `privateKey` under `keyId`, from the client address `from` (X-Forwarded-For; TRUST_PROXY=true). */
async function postSigned(inbox: string, activity: Record<string, unknown>, privateKey: CryptoKey, keyId: string, from?: string): Promise<number> {
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${new URL(keyId).origin}/activities/${randomUUID()}`, ...activity });
  const signed = await signRequest(new Request(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }), privateKey as never, new URL(keyId), {
    spec: 'draft-cavage-http-signatures-12',
  });
  const headers: Record<string, string> = {};
  signed.headers.forEach((v, k) => {
    headers[k] = v;
  });
  if (from) headers['x-forwarded-for'] = from;
  const res = await fetch(inbox, { method: 'POST', headers, body });
  await res.arrayBuffer();
  return res.status;
}

/**
 * One store (SQLite: a file; PostgreSQL: a schema) served first with federation off by `instances`
 * servers, then stopped and started again with it on (all at once, with one SITE_URL), as a
 * deployment turning federation on does. `follow` writes an accepted follower as a Follow would have (before the first
 * start with federation on, when the outbox has no place in the change log yet).
 */
async function stagedStore(kind: StoreKind, instances = 1) {
  let dir: string | undefined;
  let shared: StoreKind = kind;
  if (kind.name === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'federation-outbox-'));
    shared = { name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` };
  }
  const servers: TestServer[] = [];
  for (let i = 0; i < instances; i++) servers.push(await startServer(shared, { ...ENV, FEDERATION: 'false' }, i > 0 ? { peerOf: servers[0]! } : {}));
  let apps: Array<{ close(): Promise<unknown> } | undefined> = servers.map((t) => t.built.app);
  const held: Array<{ release(): Promise<void> }> = [];
  const stop = async () => {
    const running = apps;
    apps = [];
    await Promise.all(running.map((app) => app?.close()));
  };
  return {
    servers,
    stop,
    async start() {
      apps = await Promise.all(
        servers.map(async (t) => {
          // One SITE_URL for every instance, as in a deployment: the ids are built from it.
          const built = await buildApp({ ...t.config, federation: true, siteUrl: servers[0]!.config.siteUrl }, { store: t.built.store, logger: false });
          await built.app.listen({ port: t.config.port, host: '127.0.0.1' });
          return built.app;
        }),
      );
    },
    /**
     * Keep the outbox job from running (it is one at a time across instances: this takes its lock,
     * as another instance in the middle of a step would), so that what comes next happens before
     * its first step, however long a start takes on a loaded host. Answers what lets it run.
     */
    async holdOutbox() {
      const lock = await tryJobLock(servers[0]!.built.store, 'federation-outbox');
      assert.ok(lock, 'the outbox job lock was free');
      held.push(lock);
      return () => lock.release();
    },
    async follow(p: IndependentFollower) {
      await upsertFollower(servers[0]!.built.store.db, {
        actor_id: p.actorId,
        host: new URL(p.actorId).host,
        inbox: p.inbox,
        shared_inbox: p.sharedInbox,
        follow_id: `${p.origin}/follows/1`,
        handle: '',
        status: 'accepted',
        created_gmt: '2030-01-01 00:00:00',
      });
    },
    async close() {
      for (const lock of held) await lock.release();
      await stop();
      for (const t of [...servers].reverse()) await t.built.store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
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

  describe(`federation: the outbox announces every event, once, in order [${kind.name}]`, () => {
    it('an event published right after the first start with federation on, before the outbox job first ran (held off), is announced; one published before federation was on is not, and its object URL answers 404', async () => {
      const p = await startIndependentFollower('ivy', { host: '127.0.0.151' });
      const s = await stagedStore(kind);
      try {
        const earlier = await s.servers[0]!.api.post('/events', { as: 'admin', json: event('Before Federation') });
        assert.equal(earlier.status, 201, earlier.text);
        await s.stop();
        await s.follow(p);
        const release = await s.holdOutbox();
        await s.start();
        const opening = await s.servers[0]!.api.post('/events', { as: 'admin', json: event('Opening Night') });
        assert.equal(opening.status, 201, opening.text);
        await release();
        const origin = s.servers[0]!.origin;
        const objectId = `${origin}/federation/events/${opening.body.id}`;
        const create = await p.waitFor((a) => a.type === 'Create' && a.json.object?.id === objectId);
        assert.equal(create.json.object.name, 'Opening Night');
        assert.deepEqual(p.refused, [], 'every delivery verified');
        const object = await fetch(objectId, { headers: { accept: 'application/activity+json' } });
        assert.equal(object.status, 200);
        assert.equal((await object.json()).name, 'Opening Night');
        // Federation was off when this one was published: never announced, so no object.
        const earlierId = `${origin}/federation/events/${earlier.body.id}`;
        const never = await fetch(earlierId, { headers: { accept: 'application/activity+json' } });
        assert.equal(never.status, 404);
        assert.equal((await never.json()).code, 'federation_not_found');
        const negotiated = await fetch(earlier.body.url, { headers: { accept: 'application/activity+json' } });
        assert.doesNotMatch(negotiated.headers.get('content-type') ?? '', /activity\+json/, 'its page is no object either');
        await negotiated.arrayBuffer();
        const page = await fetch(earlier.body.url, { headers: { accept: 'text/html' } });
        assert.equal(page.status, 200);
        assert.doesNotMatch(page.headers.get('link') ?? '', /activity\+json/, 'its page links to no object');
        await page.arrayBuffer();
        const outbox = await (await fetch(`${origin}/federation/actors/events/outbox?page=1`, { headers: { accept: 'application/activity+json' } })).json();
        assert.deepEqual(
          outbox.orderedItems.map((a: any) => [a.type, a.object.id]),
          [['Create', objectId]],
        );
        assert.ok(!p.received.some((a) => JSON.stringify(a.json).includes(earlierId)));
      } finally {
        await s.close();
        await p.close();
      }
    });

    it('an event published just before a restart, before the outbox job ran, is announced after it, once', async () => {
      const p = await startIndependentFollower('jay', { host: '127.0.0.152' });
      const s = await stagedStore(kind);
      try {
        await s.stop();
        await s.follow(p);
        const release = await s.holdOutbox();
        await s.start();
        const published = await s.servers[0]!.api.post('/events', { as: 'admin', json: event('Restart Night') });
        assert.equal(published.status, 201, published.text);
        await s.stop();
        await s.start();
        await release();
        const origin = s.servers[0]!.origin;
        const objectId = `${origin}/federation/events/${published.body.id}`;
        await p.waitFor((a) => a.type === 'Create' && a.json.object?.id === objectId);
        // Activities reach an inbox in order: once the next event's Create is in, a second one of the first would be too.
        const next = await s.servers[0]!.api.post('/events', { as: 'admin', json: event('After the Restart') });
        await p.waitFor((a) => a.type === 'Create' && a.json.object?.id === `${origin}/federation/events/${next.body.id}`);
        assert.equal(p.received.filter((a) => a.type === 'Create' && a.json.object?.id === objectId).length, 1);
      } finally {
        await s.close();
        await p.close();
      }
    });

    it('two instances starting at once on one database, each publishing at once before the outbox job ran: both events announced, each once', async () => {
      const p = await startIndependentFollower('kai', { host: '127.0.0.153' });
      const s = await stagedStore(kind, 2);
      try {
        await s.stop();
        await s.follow(p);
        const release = await s.holdOutbox();
        await s.start();
        const [a, b] = await Promise.all(s.servers.map((t, i) => t.api.post('/events', { as: 'admin', json: event(`Twin Night ${i}`) })));
        await release();
        const ids = [a!, b!].map((r) => {
          assert.equal(r.status, 201, r.text);
          return `${s.servers[0]!.origin}/federation/events/${r.body.id}`;
        });
        for (const id of ids) await p.waitFor((x) => x.type === 'Create' && x.json.object?.id === id);
        const marker = await s.servers[1]!.api.post('/events', { as: 'admin', json: event('After the Twins') });
        await p.waitFor((x) => x.type === 'Create' && x.json.object?.id === `${s.servers[0]!.origin}/federation/events/${marker.body.id}`);
        for (const id of ids) assert.equal(p.received.filter((x) => x.type === 'Create' && x.json.object?.id === id).length, 1, id);
      } finally {
        await s.close();
        await p.close();
      }
    });

    it('occurrences of a series published while federation is on wait for the horizon; one published before it is not swept, unless the calendar federated before migration 022 (its upcoming occurrences are marked waiting)', async () => {
      const p = await startIndependentFollower('max', { host: '127.0.0.155' });
      const s = await stagedStore(kind);
      try {
        const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
        const weekly = (title: string) => ({ ...event(title), start_date: `${day(7)} 19:30:00`, end_date: `${day(7)} 22:00:00`, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=20'] });
        const old = await s.servers[0]!.api.post('/events', { as: 'admin', json: weekly('Old Jam') });
        assert.equal(old.status, 201, old.text);
        await s.stop();
        await s.follow(p);
        await s.start();
        const fresh = await s.servers[0]!.api.post('/events', { as: 'admin', json: weekly('New Jam') });
        assert.equal(fresh.status, 201, fresh.text);
        const marker = await s.servers[0]!.api.post('/events', { as: 'admin', json: event('After the Jams') });
        await p.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'After the Jams');
        const created = (name: string) => p.received.filter((a) => a.type === 'Create' && a.json.object?.name === name).length;
        assert.ok(created('New Jam') >= 11 && created('New Jam') <= 14, `New Jam: ${created('New Jam')}`);
        assert.equal(created('Old Jam'), 0, 'a series published before federation started is not announced');
        const db = s.servers[0]!.built.store.db;
        const waiting = await db.withTables<{ federation_objects: { event_id: number; state: string } }>().selectFrom('federation_objects').select('event_id').where('state', '=', 'waiting').execute();
        assert.equal(waiting.length, 20 - created('New Jam'), 'the later New Jam occurrences wait');
        assert.equal(marker.status, 201);
        // A calendar that federated before migration 022 (no waiting rows): its upcoming occurrences are marked waiting, as its sweep sent them all.
        await s.stop();
        const objects = db.withTables<{ federation_objects: { event_id: number; state: string } }>();
        await objects.deleteFrom('federation_objects').where('state', '=', 'waiting').execute();
        await db.schema.alterTable('federation_objects').dropColumn('updated_ms').execute();
        await federationObjectTimesMigration().up(db as never);
        const marked = await objects.selectFrom('federation_objects').select('event_id').where('state', '=', 'waiting').execute();
        assert.equal(marked.length, 20 + 20 - created('New Jam'), 'every Old Jam occurrence and the later New Jam ones');
        // The sweep (at the outbox's first idle step) sends those within the horizon.
        await s.start();
        await until('Old Jam swept', async () => created('Old Jam') >= 11);
        assert.ok(created('Old Jam') <= 14, `Old Jam: ${created('Old Jam')}`);
      } finally {
        await s.close();
        await p.close();
      }
    });

    it('two edits within one second: an independent follower gets two Updates, in order, with strictly increasing `updated`, and keeps the second edit', async () => {
      const t = await startServer(kind, ENV);
      const p = await startIndependentFollower('lou', { host: '127.0.0.154' });
      try {
        const actor = await p.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await p.follow(actor);
        await p.waitFor((a) => a.type === 'Accept');
        const created = await t.api.post('/events', { as: 'admin', json: event('Edit Night') });
        const id = created.body.id;
        const objectId = `${t.origin}/federation/events/${id}`;
        await p.waitFor((a) => a.type === 'Create' && a.json.object?.id === objectId);
        const outboxHas = async (name: string) => {
          const page = await (await fetch(`${t.origin}/federation/actors/events/outbox?page=1`, { headers: { accept: 'application/activity+json' } })).json();
          return page.orderedItems.some((a: any) => a.type === 'Update' && a.object.name === name);
        };
        // Each edit read by the outbox on its own (two Updates, not one for both), both within one
        // wall-clock second (the same `modified_utc`); a loaded host may need another try.
        let names: [string, string] | undefined;
        for (let attempt = 1; !names; attempt++) {
          while (Date.now() % 1000 > 30) await new Promise((r) => setTimeout(r, 5));
          const first = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: `First edit ${attempt}` } });
          for (const end = Date.now() + 5_000; !(await outboxHas(`First edit ${attempt}`)) && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
          const second = await t.api.post(`/events/${id}`, { as: 'admin', json: { title: `Second edit ${attempt}` } });
          assert.equal(second.status, 200, second.text);
          if (first.body.modified_utc === second.body.modified_utc && (await outboxHas(`First edit ${attempt}`))) names = [`First edit ${attempt}`, `Second edit ${attempt}`];
          else assert.ok(attempt < 5, 'two edits within one second, each in its own Update, in five tries');
        }
        await p.waitFor((a) => a.type === 'Update' && a.json.object?.name === names[1]);
        const updates = p.received.filter((a) => a.type === 'Update' && a.json.object?.id === objectId);
        const [u1, u2] = names.map((n) => updates.findIndex((a) => a.json.object.name === n));
        assert.ok(u1! >= 0 && u2! > u1!, 'the Updates arrived in the order of the edits');
        const [t1, t2] = [updates[u1!]!, updates[u2!]!].map((a) => Date.parse(a.json.object.updated));
        assert.ok(t2! > t1!, `updated strictly increasing: ${updates[u1!]!.json.object.updated} then ${updates[u2!]!.json.object.updated}`);
        assert.ok(Date.parse(updates[u2!]!.json.published) >= Date.parse(updates[u1!]!.json.published));
        assert.equal(p.objects.get(objectId)?.name, names[1], 'the follower keeps the second edit');
        assert.deepEqual(p.stale, [], 'no Update dropped as stale');
        assert.deepEqual(p.refused, []);
        // The object at its URL is the version last sent, with the same `updated`.
        const object = await (await fetch(objectId, { headers: { accept: 'application/activity+json' } })).json();
        assert.equal(object.name, names[1]);
        assert.equal(object.updated, updates[u2!]!.json.object.updated);
      } finally {
        await p.close();
        await t.close();
      }
    });
  });

  describe(`federation: blocked domains and the inbox rate limit [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { ...ENV, FEDERATION_BLOCKED_DOMAINS: 'example.invalid,127.0.0.1', FEDERATION_INBOX_RATE_LIMIT: '3', TRUST_PROXY: 'true' });
    });
    after(async () => {
      await t.close();
    });
    it('refuses requests signed by a blocked domain (403) and more than FEDERATION_INBOX_RATE_LIMIT a minute from one client address (429)', async () => {
      const f = await startFollower('eve');
      try {
        const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await assert.rejects(f.follow(actor), /403/);
        const list = await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' });
        assert.deepEqual(list.body, []);
        const statuses = [];
        // From another address (X-Forwarded-For, TRUST_PROXY=true) than the refused follow's, which counted against its own.
        const post = () => fetch(`${t.origin}/federation/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json', 'x-forwarded-for': '203.0.113.1' }, body: '{}' });
        for (let i = 0; i < 4; i++) statuses.push((await post()).status);
        assert.deepEqual(statuses, [400, 400, 400, 429], 'three malformed activities refused by Fedify, then the limit');
      } finally {
        await f.close();
      }
    });
  });

  describe(`federation: a Delete of an actor removes its follower only when that actor is gone [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, ENV);
    });
    after(async () => {
      await t.close();
    });
    const followers = async () => (await t.api.get(`${ADMIN_BASE}/federation/followers`, { as: 'admin' })).body.map((x: any) => x.actor);

    it("a Delete of a follower signed by another actor, whose key URL answers 410, removes no follower (the follower's own actor URL is asked)", async () => {
      const f = await startFollower('ann', { host: '127.0.0.21' });
      const gone = await statusServer('127.0.0.22', 410);
      try {
        const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
        await f.follow(actor);
        await until('followed', async () => (await followers()).includes(f.actorId));
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        for (const inbox of [`${t.origin}/federation/inbox`, `${t.origin}/federation/actors/events/inbox`]) {
          const status = await postSigned(inbox, { type: 'Delete', actor: f.actorId, object: f.actorId }, mallory.privateKey, `${gone.origin}/users/mallory#main-key`);
          assert.equal(status, 401, inbox);
        }
        assert.ok(gone.hits >= 1, 'the key was asked for, and answered 410');
        assert.ok((await followers()).includes(f.actorId), 'still a follower: its own actor answers 200');
      } finally {
        await f.close();
        await gone.close();
      }
    });

    it('a genuine Delete of itself whose actor URL answers 410 (or 404) removes that follower', async () => {
      const zoe = await startFollower('zoe', { host: '127.0.0.23' });
      const yan = await startFollower('yan', { host: '127.0.0.24' });
      try {
        for (const f of [zoe, yan]) {
          const actor = await f.lookUp(`acct:events@${new URL(t.origin).host}`, t.origin);
          await f.follow(actor);
        }
        await until('both followed', async () => (await followers()).includes(zoe.actorId) && (await followers()).includes(yan.actorId));
        zoe.actorAnswers(410);
        yan.actorAnswers(404);
        for (const f of [zoe, yan]) {
          // Signed with its key under a key id not seen before: the key, like the account, is gone.
          const status = await postSigned(`${t.origin}/federation/actors/events/inbox`, { type: 'Delete', actor: f.actorId, object: f.actorId }, f.keys[0]!.privateKey, f.actorId);
          assert.equal(status, 202, f.actorId);
        }
        const left = await followers();
        assert.ok(!left.includes(zoe.actorId), 'zoe (410) removed');
        assert.ok(!left.includes(yan.actorId), 'yan (404) removed');
      } finally {
        await zoe.close();
        await yan.close();
      }
    });
  });

  describe(`federation: the inbox limit counts each client address, and a key host once verified [${kind.name}]`, () => {
    let t: TestServer;
    const LIMIT = 3;
    before(async () => {
      t = await startServer(kind, { ...ENV, FEDERATION_INBOX_RATE_LIMIT: String(LIMIT), TRUST_PROXY: 'true' });
    });
    after(async () => {
      await t.close();
    });

    it('requests naming a new key host each time from one address are cut off after the limit, and no key is fetched for the others (IPv6 counted per /64)', async () => {
      const hosts = await Promise.all(Array.from({ length: 13 }, (_, i) => statusServer(`127.0.0.${31 + i}`, 404)));
      const hits = () => hosts.reduce((n, h) => n + h.hits, 0);
      try {
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        const send = (i: number, from: string) => {
          const actor = `${hosts[i]!.origin}/users/m${i}`;
          return postSigned(`${t.origin}/federation/inbox`, { type: 'Like', actor, object: `${t.origin}/federation/events/1` }, mallory.privateKey, `${actor}#main-key`, from);
        };
        const statuses = [];
        let fetchedForAdmitted = 0;
        for (let i = 0; i < 8; i++) {
          statuses.push(await send(i, '203.0.113.5'));
          if (i === LIMIT - 1) fetchedForAdmitted = hits();
        }
        assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429, 429, 429]);
        assert.ok(fetchedForAdmitted >= 1 && fetchedForAdmitted <= LIMIT, `keys fetched for the admitted requests: ${fetchedForAdmitted}`);
        assert.equal(hits(), fetchedForAdmitted, 'nothing fetched for the refused ones');
        // Addresses of one /64 are one client.
        const v6 = [];
        for (let i = 8; i < 13; i++) v6.push(await send(i, `2001:db8:7:7::${i}`));
        assert.deepEqual(v6, [401, 401, 401, 429, 429]);
        const metrics = await (await fetch(`${t.origin}/metrics`)).text();
        assert.match(metrics, /calendar_federation_inbox_requests_total\{outcome="rate_limited"\} ([7-9]|\d\d)/);
      } finally {
        await Promise.all(hosts.map((h) => h.close()));
      }
    });

    it('20 parallel requests from one address, each naming a new key host: the limit holds, and no key is fetched for the refused', async () => {
      const hosts = await Promise.all(Array.from({ length: 20 }, (_, i) => statusServer(`127.0.0.${101 + i}`, 404)));
      try {
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        const statuses = await Promise.all(
          hosts.map((h, i) =>
            postSigned(
              `${t.origin}/federation/inbox`,
              { type: 'Like', actor: `${h.origin}/users/p${i}`, object: `${t.origin}/federation/events/1` },
              mallory.privateKey,
              `${h.origin}/users/p${i}#main-key`,
              '203.0.113.9',
            ),
          ),
        );
        assert.equal(statuses.filter((s) => s === 429).length, 20 - LIMIT, statuses.join(','));
        assert.equal(statuses.filter((s) => s === 401).length, LIMIT, statuses.join(','));
        assert.ok(hosts.reduce((n, h) => n + h.hits, 0) <= LIMIT, 'keys fetched only for the admitted');
      } finally {
        await Promise.all(hosts.map((h) => h.close()));
      }
    });

    it('a key host is counted once its signature verified: forged requests naming it cost it nothing; its verified requests are limited, 20 parallel ones too', async () => {
      const kim = await startFollower('kim', { host: '127.0.0.61' });
      const lee = await startFollower('lee', { host: '127.0.0.62' });
      try {
        const inbox = `${t.origin}/federation/inbox`;
        const like = (f: Follower) => ({ type: 'Like', actor: f.actorId, object: `${t.origin}/federation/events/1` });
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        // Forged: kim's key id, another key, from five addresses (more than the limit).
        for (let i = 1; i <= 5; i++) assert.equal(await postSigned(inbox, like(kim), mallory.privateKey, `${kim.actorId}#main-key`, `198.51.100.${i}`), 401);
        // kim's own requests are all still allowed, up to the limit.
        const genuine = [];
        for (let i = 11; i <= 11 + LIMIT; i++) genuine.push(await postSigned(inbox, like(kim), kim.keys[0]!.privateKey, `${kim.actorId}#main-key`, `198.51.100.${i}`));
        assert.deepEqual(genuine, [...Array(LIMIT).fill(202), 429]);
        // Verified requests from 20 addresses at once: the host's limit holds.
        const parallel = await Promise.all(Array.from({ length: 20 }, (_, i) => postSigned(inbox, like(lee), lee.keys[0]!.privateKey, `${lee.actorId}#main-key`, `192.0.2.${i + 1}`)));
        assert.equal(parallel.filter((s) => s === 202).length, LIMIT, parallel.join(','));
        assert.equal(parallel.filter((s) => s === 429).length, 20 - LIMIT, parallel.join(','));
      } finally {
        await kim.close();
        await lee.close();
      }
    });
  });

  describe(`federation: what one inbox request makes the server fetch is bounded [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, ENV);
    });
    after(async () => {
      await t.close();
    });
    it('a key id naming an actor that lists 30 key URLs elsewhere: at most MAX_FETCHES_PER_REQUEST documents are fetched, and the request is refused', async () => {
      const victim = await statusServer('127.0.0.91', 404);
      const state = { hits: 0 };
      const actorServer = createServer((req, res) => {
        state.hits++;
        const id = `http://${req.headers.host}${req.url}`;
        const publicKey = Array.from({ length: 30 }, (_, i) => `${victim.origin}/keys/${i}`);
        res
          .writeHead(200, { 'content-type': 'application/activity+json' })
          .end(JSON.stringify({ '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id, type: 'Person', inbox: `${id}/inbox`, publicKey }));
      });
      await new Promise<void>((resolve) => actorServer.listen(0, '127.0.0.92', resolve));
      try {
        const actor = `http://127.0.0.92:${(actorServer.address() as AddressInfo).port}/users/many`;
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        const status = await postSigned(`${t.origin}/federation/inbox`, { type: 'Like', actor, object: `${t.origin}/federation/events/1` }, mallory.privateKey, actor);
        assert.equal(status, 401);
        assert.ok(state.hits >= 1, 'the actor was fetched');
        assert.ok(state.hits + victim.hits <= MAX_FETCHES_PER_REQUEST, `fetched ${state.hits} + ${victim.hits} documents`);
      } finally {
        await new Promise<void>((resolve) => actorServer.close(() => resolve()));
        await victim.close();
      }
    });
  });

  describe(`federation: the inbox limits across two instances [${kind.name}]`, () => {
    it('two instances on one database share the counts per address and per verified host', async () => {
      const LIMIT = 3;
      const env = { ...ENV, FEDERATION_INBOX_RATE_LIMIT: String(LIMIT), TRUST_PROXY: 'true' };
      const pair = await startTwoInstances(kind, 'federation-limits', env);
      const hosts = await Promise.all(Array.from({ length: 8 }, (_, i) => statusServer(`127.0.0.${71 + i}`, 404)));
      const max = await startFollower('max', { host: '127.0.0.81' });
      try {
        const servers = [pair.a, pair.b];
        const mallory = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
        const unverified = [];
        for (let i = 0; i < 8; i++) {
          const s = servers[i % 2]!;
          const actor = `${hosts[i]!.origin}/users/q${i}`;
          unverified.push(
            await postSigned(`${s.origin}/federation/inbox`, { type: 'Like', actor, object: `${s.origin}/federation/events/1` }, mallory.privateKey, `${actor}#main-key`, '203.0.113.77'),
          );
        }
        assert.deepEqual(unverified, [401, 401, 401, 429, 429, 429, 429, 429]);
        const verified = [];
        for (let i = 0; i < 6; i++) {
          const s = servers[i % 2]!;
          verified.push(
            await postSigned(
              `${s.origin}/federation/inbox`,
              { type: 'Like', actor: max.actorId, object: `${s.origin}/federation/events/1` },
              max.keys[0]!.privateKey,
              `${max.actorId}#main-key`,
              `198.51.100.${50 + i}`,
            ),
          );
        }
        assert.deepEqual(verified, [202, 202, 202, 429, 429, 429]);
      } finally {
        await max.close();
        await Promise.all(hosts.map((h) => h.close()));
        await pair.close();
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
