/**
 * Issue 49, federation per calendar: each calendar is a fediverse actor of its own
 * (`/federation/actors/{slug}`, `acct:{slug}@{host}`), with its own keys, followers, outbox,
 * deliveries and inbox; the default calendar's actor is unchanged. Followed by peers written without
 * Fedify (federation-independent-follower.ts), which verify every delivery's signature with the key
 * its `keyId` names and check that key's owner is the activity's actor. On both stores.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { inCalendar } from '../../src/store/calendar-scope.js';
import { startIndependentFollower, type IndependentFollower } from './federation-independent-follower.js';

const ENV = { FEDERATION: 'true', FEDERATION_HANDLE: 'calendar', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true', FEDERATION_RETRY_SCHEDULE: '300ms,300ms,300ms' };

const event = (title: string) => ({
  title,
  description: '<p>Come along.</p>',
  start_date: '2031-05-14 19:30:00',
  end_date: '2031-05-14 22:00:00',
  timezone: 'Europe/Paris',
  status: 'publish',
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn` until it answers something truthy (bounded). */
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

for (const kind of STORES) {
  describe(`federation: each calendar is an actor of its own [${kind.name}]`, () => {
    let t: TestServer;
    let northId: number;
    const peers: IndependentFollower[] = [];
    const peer = async (name: string, host: string) => {
      const p = await startIndependentFollower(name, { host });
      peers.push(p);
      return p;
    };
    const northApi = (path: string) => `${t.origin}/c/north${t.config.restRoot}${path}`;
    let host: string;
    let northActor: any;
    let homeActor: any;
    let nina: IndependentFollower;
    let dora: IndependentFollower;

    before(async () => {
      t = await startServer(kind, ENV);
      northId = (await t.built.services.calendars.create({ slug: 'north', name: 'North side' })).id;
      host = new URL(t.origin).host;
    });
    after(async () => {
      for (const p of peers) await p.close();
      await t?.close();
    });

    it('finds north’s actor by WebFinger: its name, its page, its own keys', async () => {
      nina = await peer('nina', '127.0.0.171');
      dora = await peer('dora', '127.0.0.172');
      northActor = await nina.lookUp(`acct:north@${host}`, t.origin);
      homeActor = await dora.lookUp(`acct:${t.config.federationHandle}@${host}`, t.origin);
      assert.equal(northActor.id, `${t.origin}/federation/actors/north`);
      assert.equal(northActor.preferredUsername, 'north');
      assert.equal(northActor.name, 'North side');
      assert.equal(northActor.url, `${t.origin}/c/north/events/`);
      assert.equal(northActor.inbox, `${t.origin}/federation/actors/north/inbox`);
      assert.equal(northActor.endpoints.sharedInbox, `${t.origin}/federation/inbox`);
      // The default calendar's actor is as it always was.
      assert.equal(homeActor.id, `${t.origin}/federation/actors/${t.config.federationHandle}`);
      assert.notEqual(homeActor.name, 'North side');
      // Two actors, two keys.
      assert.ok(northActor.publicKey.publicKeyPem && homeActor.publicKey.publicKeyPem);
      assert.notEqual(northActor.publicKey.publicKeyPem, homeActor.publicKey.publicKeyPem);
      assert.equal(northActor.publicKey.owner, northActor.id);
      // WebFinger by the actor's URL too; an unknown identifier is no actor.
      const byUrl = await fetch(`${t.origin}/.well-known/webfinger?resource=${encodeURIComponent(northActor.id)}`);
      assert.equal(byUrl.status, 200);
      const jrd = await byUrl.json();
      assert.ok(
        jrd.links.some((l: any) => l.rel === 'self' && l.href === northActor.id),
        JSON.stringify(jrd),
      );
      const unknown = await fetch(`${t.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:south@${host}`)}`);
      assert.equal(unknown.status, 404);
      await unknown.arrayBuffer();
      assert.equal((await fetch(`${t.origin}/federation/actors/south`, { headers: { accept: 'application/activity+json' } })).status, 404);
    });

    it('delivers north’s events to north’s followers only, and the default calendar’s to its own, each signed with its actor’s key', async () => {
      await nina.follow(northActor);
      await nina.waitFor((a) => a.type === 'Accept' && a.json.actor === northActor.id);
      await dora.follow(homeActor);
      await dora.waitFor((a) => a.type === 'Accept' && a.json.actor === homeActor.id);

      const north = await t.api.post(northApi('/calendar/events/v1/events'), { as: 'admin', json: event('North Jam') });
      assert.equal(north.status, 201, north.text);
      const home = await t.api.post('/events', { as: 'admin', json: event('Home Jam') });
      assert.equal(home.status, 201, home.text);

      const northObject = `${t.origin}/federation/actors/north/events/${north.body.id}`;
      const created = await nina.waitFor((a) => a.type === 'Create' && a.json.object?.id === northObject);
      assert.equal(created.json.actor, northActor.id);
      assert.equal(created.json.object.name, 'North Jam');
      assert.equal(created.json.object.attributedTo, northActor.id);
      assert.deepEqual(created.json.cc, [`${northActor.id}/followers`]);
      assert.equal(created.json.object.url, north.body.url);
      const homeCreated = await dora.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'Home Jam');
      assert.equal(homeCreated.json.actor, homeActor.id);
      assert.equal(homeCreated.json.object.id, `${t.origin}/federation/events/${home.body.id}`);
      await sleep(1_000);
      assert.ok(!nina.received.some((a) => a.json.object?.name === 'Home Jam'), 'north’s follower never gets the default calendar’s event');
      assert.ok(!dora.received.some((a) => a.json.object?.name === 'North Jam'), 'the default calendar’s follower never gets north’s');
      // Every delivery verified with the key its keyId names, owned by the activity's actor.
      assert.deepEqual(nina.refused, []);
      assert.deepEqual(dora.refused, []);

      // North's object, outbox and followers; none of it through the default calendar's paths.
      const object = await fetch(northObject, { headers: { accept: 'application/activity+json' } });
      assert.equal(object.status, 200);
      assert.equal((await object.json()).name, 'North Jam');
      const across = await fetch(`${t.origin}/federation/events/${north.body.id}`, { headers: { accept: 'application/activity+json' } });
      assert.equal(across.status, 404);
      await across.arrayBuffer();
      const wrongActor = await fetch(`${t.origin}/federation/actors/north/events/${home.body.id}`, { headers: { accept: 'application/activity+json' } });
      assert.equal(wrongActor.status, 404);
      await wrongActor.arrayBuffer();
      const outbox = await (await fetch(`${northActor.outbox}?page=1`, { headers: { accept: 'application/activity+json' } })).json();
      assert.deepEqual(
        outbox.orderedItems.map((a: any) => a.object.name),
        ['North Jam'],
      );
      const activity = await fetch(created.json.id, { headers: { accept: 'application/activity+json' } });
      assert.equal(activity.status, 200);
      assert.equal((await activity.json()).object.name, 'North Jam');
      const followers = await (await fetch(northActor.followers, { headers: { accept: 'application/activity+json' } })).json();
      assert.equal(followers.totalItems, 1);

      // Content negotiation of north's pages: its object; the default calendar's page of the same path is not it.
      const negotiated = await fetch(north.body.url, { headers: { accept: 'application/activity+json' } });
      assert.match(negotiated.headers.get('content-type') ?? '', /activity\+json/);
      assert.equal((await negotiated.json()).id, northObject);
      const page = await fetch(north.body.url, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('link') ?? '', new RegExp(`<${northObject}>`));
      await page.arrayBuffer();
    });

    it('routes a Follow sent to the shared inbox to the calendar its object names; the REST administration of each calendar lists its own followers', async () => {
      const sam = await peer('sam', '127.0.0.173');
      await sam.follow({ ...northActor, inbox: northActor.endpoints.sharedInbox });
      await sam.waitFor((a) => a.type === 'Accept' && a.json.actor === northActor.id);

      const northFollowers = await t.api.get(northApi('/calendar/admin/v1/federation/followers'), { as: 'admin' });
      assert.equal(northFollowers.status, 200, northFollowers.text);
      const actorsOf = (body: any) => (Array.isArray(body) ? body : (body.items ?? body.followers)).map((f: any) => f.actor).sort();
      assert.deepEqual(actorsOf(northFollowers.body), [nina.actorId, sam.actorId].sort());
      const homeFollowers = await t.api.get(`${t.config.restRoot}/calendar/admin/v1/federation/followers`, { as: 'admin' });
      assert.equal(homeFollowers.status, 200, homeFollowers.text);
      assert.deepEqual(actorsOf(homeFollowers.body), [dora.actorId]);
      const status = await t.api.get(northApi('/calendar/admin/v1/federation'), { as: 'admin' });
      assert.equal(status.body.actor, northActor.id);
      assert.equal(status.body.handle, `@north@${host}`);
    });

    it('a suspended calendar’s actor answers 503 and nothing is delivered for it until it is resumed', async () => {
      await t.built.services.calendars.update('north', { status: 'suspended' });
      try {
        const actor = await fetch(northActor.id, { headers: { accept: 'application/activity+json' } });
        assert.equal(actor.status, 503);
        assert.equal((await actor.json()).code, 'calendar_suspended');
        const finger = await fetch(`${t.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:north@${host}`)}`);
        assert.equal(finger.status, 503);
        await finger.arrayBuffer();
        const inbox = await fetch(northActor.inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{}' });
        assert.equal(inbox.status, 503);
        await inbox.arrayBuffer();
        // Something queued for north's follower: it waits while the calendar is suspended.
        const body = JSON.stringify({
          '@context': 'https://www.w3.org/ns/activitystreams',
          id: `${northActor.id}/activities/suspended-test`,
          type: 'Announce',
          actor: northActor.id,
          object: northActor.id,
        });
        await inCalendar(northId, () =>
          t.built.services.federationStore.insertDeliveries([{ activity_id: `${northActor.id}/activities/suspended-test`, activity_type: 'Announce', inbox: nina.inbox, body }], Date.now()),
        );
        await sleep(1_500);
        assert.ok(!nina.received.some((a) => a.type === 'Announce'), 'nothing delivered for a suspended calendar');
      } finally {
        await t.built.services.calendars.update('north', { status: 'active' });
      }
      await until('the delivery after resuming', async () => nina.received.some((a) => a.type === 'Announce'));
      assert.deepEqual(nina.refused, []);
    });

    it('answers WebFinger on a calendar’s own host name for its actor, which lives on the service’s origin; nothing else of federation there', async () => {
      await t.built.services.calendars.create({ slug: 'west', name: 'West side', host: 'west.example' });
      const onHost = (path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const url = new URL(t.origin);
          const req = http.request({ host: url.hostname, port: url.port, path, headers: { host: 'west.example', accept: 'application/jrd+json' } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString('utf8')));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      // The host name's calendar is known within a few seconds (read in the background).
      await until('the host name known', async () => (await onHost('/events/')).status === 200);
      const finger = await onHost(`/.well-known/webfinger?resource=${encodeURIComponent('acct:west@west.example')}`);
      assert.equal(finger.status, 200, finger.body);
      const jrd = JSON.parse(finger.body);
      assert.equal(jrd.subject, `acct:west@${host}`);
      assert.ok(jrd.links.some((l: any) => l.rel === 'self' && l.href === `${t.origin}/federation/actors/west`));
      // Another account, or the default calendar's, is none of this host's.
      assert.equal((await onHost(`/.well-known/webfinger?resource=${encodeURIComponent('acct:north@west.example')}`)).status, 404);
      assert.equal((await onHost(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${t.config.federationHandle}@${host}`)}`)).status, 404);
      assert.equal((await onHost('/federation/actors/west')).status, 404);
      const actor = await (await fetch(`${t.origin}/federation/actors/west`, { headers: { accept: 'application/activity+json' } })).json();
      assert.equal(actor.name, 'West side');
      assert.equal(actor.url, 'http://west.example/events/');
      // Renamed, its host answers for the new account and, moved, for the old one.
      const west = await t.built.services.calendars.get('west');
      await t.built.services.calendars.update(west.id, { slug: 'wharf' });
      const finger2 = (acct: string) => onHost(`/.well-known/webfinger?resource=${encodeURIComponent(acct)}`);
      await until('the new slug known on the host', async () => (await finger2('acct:wharf@west.example')).status === 200);
      const moved = await finger2('acct:west@west.example');
      assert.equal(moved.status, 200, moved.body);
      assert.equal(JSON.parse(moved.body).subject, `acct:west@${host}`);
      assert.ok(JSON.parse(moved.body).links.some((l: any) => l.rel === 'self' && l.href === `${t.origin}/federation/actors/west`));
      const old = await (await fetch(`${t.origin}/federation/actors/west`, { headers: { accept: 'application/activity+json' } })).json();
      assert.equal(old.movedTo, `${t.origin}/federation/actors/wharf`);
      assert.equal((await finger2('acct:east@west.example')).status, 404);
      await t.built.services.calendars.remove(west.id);
    });

    it('an actor name no calendar can have is refused or not found, whatever it holds (a NUL byte, a name too long)', async () => {
      for (const name of ['north%00', `${t.config.federationHandle}%00`, 'North', 'a'.repeat(300), '%ff']) {
        for (const method of ['GET', 'OPTIONS']) {
          const res = await fetch(`${t.origin}/federation/actors/${name}`, { method, headers: { accept: 'application/activity+json' } });
          assert.ok(res.status >= 400 && res.status < 500, `${method} ${name}: ${res.status} ${await res.text()}`);
        }
      }
    });

    it('a deleted calendar’s actor is gone', async () => {
      await t.built.services.calendars.create({ slug: 'south', name: 'South side' });
      const before = await fetch(`${t.origin}/federation/actors/south`, { headers: { accept: 'application/activity+json' } });
      assert.equal(before.status, 200);
      await before.arrayBuffer();
      await t.built.services.calendars.remove('south');
      const gone = await fetch(`${t.origin}/federation/actors/south`, { headers: { accept: 'application/activity+json' } });
      assert.equal(gone.status, 404);
      await gone.arrayBuffer();
      const finger = await fetch(`${t.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:south@${host}`)}`);
      assert.equal(finger.status, 404);
      await finger.arrayBuffer();
    });

    it('lets one remote actor follow two calendars: a follower of each, an Accept from each', async () => {
      const both = await peer('bea', '127.0.0.174');
      await both.follow(northActor);
      await both.waitFor((a) => a.type === 'Accept' && a.json.actor === northActor.id);
      await both.follow(homeActor);
      await both.waitFor((a) => a.type === 'Accept' && a.json.actor === homeActor.id);
      const actorsOf = (body: any) => (Array.isArray(body) ? body : (body.items ?? body.followers)).map((f: any) => f.actor);
      assert.ok(actorsOf((await t.api.get(northApi('/calendar/admin/v1/federation/followers'), { as: 'admin' })).body).includes(both.actorId));
      assert.ok(actorsOf((await t.api.get(`${t.config.restRoot}/calendar/admin/v1/federation/followers`, { as: 'admin' })).body).includes(both.actorId));
    });

    /** Whether `actorId` follows each of these calendars (read in each, as its administration would). */
    const followsOf = (actorId: string, ids: number[]) => Promise.all(ids.map((id) => inCalendar(id, async () => (await t.built.services.federationStore.findFollower(actorId)) !== undefined)));

    it('a remote account’s Delete of itself, sent once to the shared inbox, removes it from every calendar it follows, a suspended one’s too', async () => {
      const eve = await peer('eve', '127.0.0.175');
      const east = await t.built.services.calendars.create({ slug: 'east', name: 'East side' });
      const eastActor = await eve.lookUp(`acct:east@${host}`, t.origin);
      for (const actor of [northActor, homeActor, eastActor]) {
        await eve.follow(actor);
        await eve.waitFor((a) => a.type === 'Accept' && a.json.actor === actor.id);
      }
      const calendars = [1, northId, east.id];
      assert.deepEqual(await followsOf(eve.actorId, calendars), [true, true, true]);
      // A suspended calendar does nothing, but a follower of it whose account is gone goes too.
      await t.built.services.calendars.update('east', { status: 'suspended' });
      try {
        const status = await eve.send(`${t.origin}/federation/inbox`, { id: `${eve.actorId}#delete`, type: 'Delete', object: eve.actorId, to: ['https://www.w3.org/ns/activitystreams#Public'] });
        assert.equal(status, 202);
        await until('removed from every calendar', async () => (await followsOf(eve.actorId, calendars)).every((follows) => !follows));
      } finally {
        await t.built.services.calendars.update('east', { status: 'active' });
      }
      // Nobody else is removed.
      assert.deepEqual(await followsOf(nina.actorId, [northId]), [true]);
      assert.deepEqual(await followsOf(dora.actorId, [1]), [true]);
    });

    it('a remote account’s Delete of itself whose key is gone removes it from every calendar once its actor URL answers 410', async () => {
      const gus = await peer('gus', '127.0.0.176');
      for (const actor of [northActor, homeActor]) {
        await gus.follow(actor);
        await gus.waitFor((a) => a.type === 'Accept' && a.json.actor === actor.id);
      }
      assert.deepEqual(await followsOf(gus.actorId, [1, northId]), [true, true]);
      // Its key under an id not seen before, which answers 410 as the account does: unverifiable.
      gus.actorAnswers(410);
      const status = await gus.send(`${t.origin}/federation/inbox`, { id: `${gus.actorId}#delete`, type: 'Delete', object: gus.actorId }, { keyId: gus.actorId });
      assert.equal(status, 202);
      assert.deepEqual(await followsOf(gus.actorId, [1, northId]), [false, false]);
    });

    it('NodeInfo and /metrics speak for the service: its active calendars as users, every calendar’s Creates, followers and deliveries', async () => {
      const store = t.built.services.federationStore;
      const expected = async () => {
        const { calendars } = await t.built.services.calendars.list({ perPage: 100 });
        const out = { users: 0, posts: 0, followers: 0, deliveries: 0 };
        for (const c of calendars) {
          await inCalendar(c.id, async () => {
            if (c.status === 'active') {
              out.users++;
              out.posts += (await store.listActivities({ limit: 1, offset: 0, types: ['Create'] })).total;
            }
            out.followers += (await store.countFollowers()).accepted ?? 0;
            out.deliveries += Object.values(await store.countDeliveries()).reduce((a, b) => a + b, 0);
          });
        }
        return out;
      };
      const answered = async () => {
        const nodeinfo = await (await fetch(`${t.origin}/nodeinfo/2.1`)).json();
        const metrics = await (await fetch(`${t.origin}/metrics`)).text();
        const gauge = (re: RegExp) => [...metrics.matchAll(re)].reduce((sum, m) => sum + Number(m[1]), 0);
        return {
          users: nodeinfo.usage.users.total,
          posts: nodeinfo.usage.localPosts,
          followers: gauge(/^calendar_federation_followers\{status="accepted"\} (\d+)$/gm),
          deliveries: gauge(/^calendar_federation_deliveries\{status="\w+"\} (\d+)$/gm),
        };
      };
      const same = async () => {
        const [want, got] = [await expected(), await answered()];
        return JSON.stringify(want) === JSON.stringify(got) && { want, got };
      };
      const both = await until('NodeInfo and /metrics', same);
      // More than the default calendar's: north's Create, followers and deliveries count too.
      assert.ok(both.got.users >= 3 && both.got.posts >= 2, JSON.stringify(both));
      assert.ok(both.got.followers > (await store.countFollowers()).accepted!, JSON.stringify(both));
      // A suspended calendar is no actor: it and its Creates leave NodeInfo's figures.
      await t.built.services.calendars.update('north', { status: 'suspended' });
      try {
        const suspended = await until('NodeInfo without north', same);
        assert.equal(suspended.got.users, both.got.users - 1);
        assert.ok(suspended.got.posts < both.got.posts);
      } finally {
        await t.built.services.calendars.update('north', { status: 'active' });
      }
    });

    const ACCEPT_AS = { accept: 'application/activity+json' };

    it('a slug change moves the actor: the old one answers movedTo the new, which lists it in alsoKnownAs; followers get a Move signed by the old actor; the new actor’s Follow is accepted and the old Follow’s Undo keeps the follower', async () => {
      const mia = await peer('mia', '127.0.0.177');
      const ned = await peer('ned', '127.0.0.178');
      const harbour = await t.built.services.calendars.create({ slug: 'harbour', name: 'Harbour' });
      const oldActor = await mia.lookUp(`acct:harbour@${host}`, t.origin);
      const oldFollow = await mia.follow(oldActor);
      await mia.waitFor((a) => a.type === 'Accept' && a.json.actor === oldActor.id);
      const nedFollow = await ned.follow(oldActor);
      await ned.waitFor((a) => a.type === 'Accept' && a.json.actor === oldActor.id);

      await t.built.services.calendars.update(harbour.id, { slug: 'quay' });
      const newId = `${t.origin}/federation/actors/quay`;
      // The Move, as Mastodon sends it: actor and object the old actor, target the new; the peer
      // verified its signature with the key its keyId names, owned by the old actor.
      const move = await mia.waitFor((a) => a.type === 'Move');
      assert.equal(move.json.actor, oldActor.id);
      assert.equal(move.json.object, oldActor.id);
      assert.equal(move.json.target, newId);
      assert.deepEqual(mia.refused, []);
      await ned.waitFor((a) => a.type === 'Move' && a.json.target === newId);
      assert.deepEqual(ned.refused, []);

      // The old actor URL answers the old identifier's actor, moved, with the calendar's key.
      const old = await (await fetch(oldActor.id, { headers: ACCEPT_AS })).json();
      assert.equal(old.id, oldActor.id);
      assert.equal(old.preferredUsername, 'harbour');
      assert.equal(old.movedTo, newId);
      assert.equal(old.publicKey.owner, oldActor.id);
      assert.equal(old.publicKey.publicKeyPem, oldActor.publicKey.publicKeyPem);
      // WebFinger of the old account answers it too; of the new, the new actor, which lists the old
      // in alsoKnownAs (what Mastodon checks before it moves a follower).
      const fingered = await mia.lookUp(`acct:harbour@${host}`, t.origin);
      assert.equal(fingered.id, oldActor.id);
      assert.equal(fingered.movedTo, newId);
      const newActor = await mia.lookUp(`acct:quay@${host}`, t.origin);
      assert.equal(newActor.id, newId);
      assert.deepEqual([newActor.alsoKnownAs].flat(), [oldActor.id]);
      assert.equal(newActor.movedTo, undefined);
      assert.equal(newActor.publicKey.publicKeyPem, oldActor.publicKey.publicKeyPem);

      // What a Mastodon follower does with the Move: follow the new actor (accepted as usual), then
      // undo its Follow of the old one, which leaves it a follower.
      await mia.follow(newActor);
      await mia.waitFor((a) => a.type === 'Accept' && a.json.actor === newId);
      const undo = await mia.send(oldActor.inbox, { id: `${mia.actorId}#undo-old`, type: 'Undo', object: { id: oldFollow, type: 'Follow', actor: mia.actorId, object: oldActor.id } });
      assert.equal(undo, 202);
      // A follower that does not move (its software reads no Move) and unfollows the old actor is removed.
      assert.equal(await ned.send(oldActor.inbox, { id: `${ned.actorId}#undo-old`, type: 'Undo', object: { id: nedFollow, type: 'Follow', actor: ned.actorId, object: oldActor.id } }), 202);
      await until('both Undos handled', async () => (await inCalendar(harbour.id, () => t.built.services.federationStore.queueDepth(Date.now()))).queued === 0);
      assert.deepEqual(await followsOf(mia.actorId, [harbour.id]), [true]);
      assert.deepEqual(await followsOf(ned.actorId, [harbour.id]), [false]);
      const made = await t.api.post(`${t.origin}/c/quay${t.config.restRoot}/calendar/events/v1/events`, { as: 'admin', json: event('Quay Night') });
      assert.equal(made.status, 201, made.text);
      const created = await mia.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'Quay Night');
      assert.equal(created.json.actor, newId);
      assert.equal(mia.received.filter((a) => a.type === 'Move').length, 1, 'one Move');
      assert.deepEqual(mia.refused, []);
    });

    it('a moving follower whose Undo of the old Follow comes before its Follow of the new actor is accepted again at once, even when follows wait for an editor', async () => {
      const s = await startServer(kind, { ...ENV, FEDERATION_APPROVE_FOLLOWS: 'true' });
      try {
        const sHost = new URL(s.origin).host;
        const max = await peer('max', '127.0.0.180');
        const dock = await s.built.services.calendars.create({ slug: 'dock', name: 'Dock' });
        const followers = (status: string) => s.api.get(`${s.origin}/c/dock${s.config.restRoot}/calendar/admin/v1/federation/followers`, { as: 'admin', query: { status } });
        const rowOf = (actorId: string) => inCalendar(dock.id, () => s.built.services.federationStore.findFollower(actorId));
        const oldActor = await max.lookUp(`acct:dock@${sHost}`, s.origin);
        const oldFollow = await max.follow(oldActor);
        const waiting = await until('the follow waiting', async () => (await followers('pending')).body.find((f: any) => f.actor === max.actorId));
        assert.equal((await s.api.post(`${s.origin}/c/dock${s.config.restRoot}/calendar/admin/v1/federation/followers/${waiting.id}/accept`, { as: 'admin' })).status, 200);
        await max.waitFor((a) => a.type === 'Accept' && a.json.actor === oldActor.id);
        await s.built.services.calendars.update(dock.id, { slug: 'berth' });
        const newId = `${s.origin}/federation/actors/berth`;
        await max.waitFor((a) => a.type === 'Move' && a.json.target === newId);
        // The Undo first: the follower goes.
        assert.equal(await max.send(oldActor.inbox, { id: `${max.actorId}#undo-dock`, type: 'Undo', object: { id: oldFollow, type: 'Follow', actor: max.actorId, object: oldActor.id } }), 202);
        await until('the Undo handled', async () => (await rowOf(max.actorId)) === undefined);
        // Then its Follow of the new actor: accepted at once, not left for an editor.
        const newActor = await max.lookUp(`acct:berth@${sHost}`, s.origin);
        await max.follow(newActor);
        await max.waitFor((a) => a.type === 'Accept' && a.json.actor === newId);
        assert.equal((await rowOf(max.actorId))?.status, 'accepted');
        // Another account's first Follow still waits.
        const sam = await peer('sam', '127.0.0.181');
        await sam.follow(newActor);
        await until('sam waiting', async () => (await rowOf(sam.actorId))?.status === 'pending');
      } finally {
        await s.close();
      }
    });

    it('a former slug another calendar takes is that calendar’s actor from then on, no longer the old one’s', async () => {
      const taken = await t.built.services.calendars.create({ slug: 'harbour', name: 'New harbour' });
      const actor = await (await fetch(`${t.origin}/federation/actors/harbour`, { headers: ACCEPT_AS })).json();
      assert.equal(actor.name, 'New harbour');
      assert.equal(actor.movedTo, undefined);
      await until('quay no longer known as harbour', async () => {
        const quay = await (await fetch(`${t.origin}/federation/actors/quay`, { headers: ACCEPT_AS })).json();
        return quay.alsoKnownAs === undefined;
      });
      await t.built.services.calendars.remove(taken.id);
    });

    it('an event announced before a slug change keeps its id under the old actor, which answers it and sends its Updates and Delete, signed with its key; events announced after are the new actor’s', async () => {
      const pia = await peer('pia', '127.0.0.179');
      const pier = await t.built.services.calendars.create({ slug: 'pier', name: 'Pier' });
      const eventsOf = (slug: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/events/v1/events`;
      const oldActor = await pia.lookUp(`acct:pier@${host}`, t.origin);
      await pia.follow(oldActor);
      await pia.waitFor((a) => a.type === 'Accept' && a.json.actor === oldActor.id);
      const made = await t.api.post(eventsOf('pier'), { as: 'admin', json: event('Pier Night') });
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as number;
      const created = await pia.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'Pier Night');
      const objectId = `${oldActor.id}/events/${id}`;
      assert.equal(created.json.object.id, objectId);

      await t.built.services.calendars.update(pier.id, { slug: 'jetty' });
      const newId = `${t.origin}/federation/actors/jetty`;
      await pia.waitFor((a) => a.type === 'Move' && a.json.target === newId);
      // The rename moved the event's page: an Update of the same object, from the actor that announced it.
      const moved = await pia.waitFor((a) => a.type === 'Update' && a.json.object?.id === objectId);
      assert.equal(moved.json.actor, oldActor.id);
      assert.equal(moved.json.object.attributedTo, oldActor.id);
      assert.match(moved.json.object.url, /\/c\/jetty\//);
      assert.equal(pia.objects.get(objectId)?.url, moved.json.object.url, 'applied to the object it holds');

      // Its URL still answers it; under the new actor there is no such object.
      const there = await fetch(objectId, { headers: ACCEPT_AS });
      assert.equal(there.status, 200);
      assert.equal((await there.json()).id, objectId);
      assert.equal((await fetch(`${newId}/events/${id}`, { headers: ACCEPT_AS })).status, 404);
      // So do the activities made under the old actor, at their ids.
      assert.equal((await fetch(created.json.id, { headers: ACCEPT_AS })).status, 200);
      assert.equal((await fetch(`${t.origin}/federation/actors/pier/followers`, { headers: ACCEPT_AS })).status, 200);

      const edited = await t.api.post(`${eventsOf('jetty')}/${id}`, { as: 'admin', json: { title: 'Pier Night (later)' } });
      assert.equal(edited.status, 200, edited.text);
      const update = await pia.waitFor((a) => a.type === 'Update' && a.json.object?.name === 'Pier Night (later)');
      assert.equal(update.json.actor, oldActor.id);
      assert.equal(update.json.object.id, objectId);
      assert.equal(pia.objects.get(objectId)?.name, 'Pier Night (later)');
      // The event page's link to its object names the object's own id.
      const page = await fetch(moved.json.object.url);
      assert.match(page.headers.get('link') ?? '', new RegExp(`<${objectId}>; rel="alternate"`));

      assert.equal((await t.api.delete(`${eventsOf('jetty')}/${id}`, { as: 'admin' })).status, 200);
      const deleted = await pia.waitFor((a) => a.type === 'Delete' && a.json.object?.id === objectId);
      assert.equal(deleted.json.actor, oldActor.id);
      assert.equal(pia.objects.has(objectId), false);
      const gone = await fetch(objectId, { headers: ACCEPT_AS });
      assert.equal(gone.status, 410);
      assert.equal((await gone.json()).id, objectId);

      const later = await t.api.post(eventsOf('jetty'), { as: 'admin', json: event('Jetty Night') });
      const fresh = await pia.waitFor((a) => a.type === 'Create' && a.json.object?.name === 'Jetty Night');
      assert.equal(fresh.json.actor, newId);
      assert.equal(fresh.json.object.id, `${newId}/events/${later.body.id}`);
      assert.deepEqual(pia.refused, [], 'each signed with the key of its actor');
      await t.built.services.calendars.remove(pier.id);
    });

    it('refuses a calendar slug that is the default calendar’s handle', async () => {
      await assert.rejects(t.built.services.calendars.create({ slug: t.config.federationHandle, name: 'Clash' }), (err: any) => /fediverse handle/.test(JSON.stringify(err.data ?? err)));
    });
  });
}
