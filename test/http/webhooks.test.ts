/**
 * Issue 11, webhooks: the admin routes (administrators only, in their namespace's index and /doc),
 * signed deliveries verified with the `standardwebhooks` package, retries against a receiver that
 * fails first, order per record, disabling after failing and re-enabling, redelivery, and the
 * SSRF guard.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startServer, STORES, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const ADMIN_BASE = '/api/calendar/admin/v1';
const FAST = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms,150ms,150ms', WEBHOOKS_TIMEOUT: '2s' };

const ev = (title: string) => ({ title, start_date: '2032-01-01 10:00:00', end_date: '2032-01-01 11:00:00', status: 'publish' });

let endpointCount = 0;

/** An endpoint delivering to its own path of the receiver (`mine(m)` tells its deliveries). */
async function addEndpoint(t: TestServer, r: Receiver, extra: Record<string, unknown> = {}) {
  const path = `/hook/${++endpointCount}`;
  const res = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url: r.url.replace('/hook', path), ...extra } });
  assert.equal(res.status, 201, res.text);
  r.secret = res.body.secret;
  return { ...res.body, path, mine: (m: { path: string }) => m.path === path };
}

forEachStore(
  'webhooks',
  (t) => {
    let r: Receiver;
    before(async () => {
      r = await startReceiver();
    });
    after(async () => {
      await r.close();
    });

    it('admin routes: administrators only, declared in the admin namespace index and /doc', async () => {
      const anon = await t.api.get(`${ADMIN_BASE}/webhooks`);
      assert.equal(anon.status, 401);
      assert.equal(anon.body.code, 'rest_forbidden');
      await t.user('editor', 'ed');
      const editor = await t.api.get(`${ADMIN_BASE}/webhooks`, { as: 'ed' });
      assert.equal(editor.status, 403);
      const create = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'ed', json: { url: r.url } });
      assert.equal(create.status, 403);
      const index = await t.api.get(ADMIN_BASE);
      assert.equal(index.status, 200);
      assert.equal(index.body.namespace, 'calendar/admin/v1');
      for (const route of [
        '/calendar/admin/v1/webhooks',
        '/calendar/admin/v1/webhooks/(?P<id>\\d+)',
        '/calendar/admin/v1/webhooks/(?P<id>\\d+)/deliveries',
        '/calendar/admin/v1/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery>[^/]+)/redeliver',
      ]) {
        assert.ok(index.body.routes[route], route);
      }
      assert.ok('url' in index.body.routes['/calendar/admin/v1/webhooks'].endpoints[1].args);
      const doc = await t.api.get(`${ADMIN_BASE}/doc`);
      assert.equal(doc.status, 200);
      assert.ok(doc.body.paths['/webhooks'].post);
      assert.ok(doc.body.paths['/webhooks/{id}/deliveries/{delivery}/redeliver'].post);
    });

    it('creates (201, whsec_ secret generated or given), lists, reads, updates and removes endpoints; bad input is 400', async () => {
      const made = await addEndpoint(t, r, { events: ['event.created'], description: 'crm' });
      assert.match(made.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
      assert.deepEqual(made.events, ['event.created']);
      assert.equal(made.enabled, true);
      const given = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
      const second = (await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url: r.url, secret: given } })).body;
      assert.equal(second.secret, given);
      assert.deepEqual(second.events, ['*']);
      const list = await t.api.get(`${ADMIN_BASE}/webhooks`, { as: 'admin' });
      assert.deepEqual(
        list.body.map((e: any) => e.id),
        [made.id, second.id],
      );
      const patched = await t.api.patch(`${ADMIN_BASE}/webhooks/${made.id}`, { as: 'admin', json: { description: 'crm2', events: ['event.updated', 'venue.created'] } });
      assert.equal(patched.body.description, 'crm2');
      assert.deepEqual(patched.body.events, ['event.updated', 'venue.created']);
      for (const bad of [{ url: 'ftp://x' }, { url: r.url, events: ['event.exploded'] }, { url: r.url, secret: 'plain' }, {}]) {
        const res = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
      }
      assert.equal((await t.api.get(`${ADMIN_BASE}/webhooks/999999`, { as: 'admin' })).status, 404);
      for (const e of [made, second]) assert.equal((await t.api.delete(`${ADMIN_BASE}/webhooks/${e.id}`, { as: 'admin' })).status, 200);
      assert.deepEqual((await t.api.get(`${ADMIN_BASE}/webhooks`, { as: 'admin' })).body, []);
    });

    it('delivers every change, signed (verified with standardwebhooks), with the record as an administrator reads it', async () => {
      r.received.length = 0;
      r.respond = () => 200;
      const endpoint = await addEndpoint(t, r);
      const created = (await t.api.post('/events', { as: 'admin', json: { ...ev('Hooked'), venue: { venue: 'Hook Hall' }, categories: ['HookCat'], tags: ['hooktag'] } })).body;
      // A delivery carries the record as it is when the delivery is prepared (moments after the
      // commit): the update waits for the first one, so that each payload is known.
      await r.waitFor((m) => endpoint.mine(m) && m.body?.type === 'event.created' && m.body?.data?.id === created.id, 1);
      await t.api.post(`/events/${created.id}`, { as: 'admin', json: { title: 'Hooked 2' } });
      await t.api.delete(`/events/${created.id}`, { as: 'admin' });
      const all = await r.waitFor((m) => endpoint.mine(m) && m.body?.type.startsWith('event.') && m.body?.data?.id === created.id, 3);
      assert.ok(
        all.every((m) => m.verified),
        JSON.stringify(all.map((m) => m.verifyError)),
      );
      assert.deepEqual(
        all.map((m) => m.body.type),
        ['event.created', 'event.updated', 'event.trashed'],
      );
      assert.equal(all[0]!.body.data.title, 'Hooked');
      assert.equal(all[1]!.body.data.title, 'Hooked 2');
      assert.deepEqual(all[2]!.body.data, { id: created.id, status: 'trash' });
      assert.match(all[0]!.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(Object.keys(all[0]!.body), ['type', 'timestamp', 'data']);
      const types = new Set(r.received.filter(endpoint.mine).map((m) => m.body.type));
      for (const type of ['venue.created', 'category.created', 'tag.created']) assert.ok(types.has(type), `${type} in ${[...types]}`);
      // A draft is delivered too (administrators read it).
      const draft = (await t.api.post('/events', { as: 'admin', json: { ...ev('Hook draft'), status: 'draft' } })).body;
      const [d] = await r.waitFor((m) => endpoint.mine(m) && m.body?.type === 'event.created' && m.body?.data?.id === draft.id);
      assert.equal(d!.body.data.status, 'draft');
      // The attempt is logged once the receiver's answer is in.
      let entry: any;
      let log: any;
      for (let i = 0; i < 50 && !entry; i++) {
        if (i) await new Promise((res) => setTimeout(res, 100));
        log = await t.api.get(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries`, { as: 'admin', query: { status: 'succeeded' } });
        assert.equal(log.status, 200);
        entry = log.body.find((x: any) => x.type === 'event.created' && x.payload.data.id === draft.id);
      }
      assert.ok(log.body.length >= 4);
      assert.equal(entry.status, 'succeeded');
      assert.equal(entry.log.length, 1);
      assert.equal(entry.log[0].outcome, 'succeeded');
      assert.equal(entry.log[0].response_code, 200);
      assert.equal(typeof entry.log[0].duration_ms, 'number');
      assert.ok(!Number.isNaN(Date.parse(entry.log[0].time)));
      await t.api.delete(`${ADMIN_BASE}/webhooks/${endpoint.id}`, { as: 'admin' });
    });

    it('filters by event type', async () => {
      r.received.length = 0;
      const endpoint = await addEndpoint(t, r, { events: ['venue.created'] });
      await t.api.post('/events', { as: 'admin', json: { ...ev('Only venue'), venue: { venue: 'Filter Hall' } } });
      const [m] = await r.waitFor((x) => endpoint.mine(x) && x.body?.type === 'venue.created');
      assert.equal(m!.body.data.venue, 'Filter Hall');
      await new Promise((res) => setTimeout(res, 400));
      assert.deepEqual([...new Set(r.received.filter(endpoint.mine).map((x) => x.body.type))], ['venue.created']);
      await t.api.delete(`${ADMIN_BASE}/webhooks/${endpoint.id}`, { as: 'admin' });
    });

    it('retries a failing receiver with backoff, in order per record, logging every attempt; redeliver sends again', async () => {
      r.received.length = 0;
      const endpoint = await addEndpoint(t, r, { events: ['event.created', 'event.updated'] });
      let calls = 0;
      r.respond = (_n, req) => (req.url === endpoint.path ? (++calls <= 2 ? 500 : 200) : 200);
      const e = (await t.api.post('/events', { as: 'admin', json: ev('Retry me') })).body;
      await t.api.post(`/events/${e.id}`, { as: 'admin', json: { title: 'Retry me 2' } });
      const got = await r.waitFor((m) => endpoint.mine(m) && m.body?.type.startsWith('event.') && m.body?.data?.id === e.id, 4);
      // The created message fails twice, then succeeds; the update waits for it (order per record).
      assert.deepEqual(
        got.map((m) => m.body.type),
        ['event.created', 'event.created', 'event.created', 'event.updated'],
      );
      assert.equal(got[0]!.id, got[2]!.id, 'the same message id on every attempt');
      assert.ok(got[1]!.at - got[0]!.at >= 100, 'a delay between attempts');
      const log = await t.api.get(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries`, { as: 'admin' });
      const first = log.body.find((x: any) => x.id === got[0]!.id);
      assert.deepEqual(
        first.log.map((a: any) => [a.outcome, a.response_code]),
        [
          ['failed', 500],
          ['failed', 500],
          ['succeeded', 200],
        ],
      );
      assert.equal(first.attempts, 3);

      const again = await t.api.post(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, { as: 'admin' });
      assert.equal(again.status, 202, again.text);
      const redelivered = await r.waitFor((m) => m.id === first.id, 4);
      assert.ok(redelivered.at(-1)!.verified);
      assert.equal((await t.api.post(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries/msg_nope/redeliver`, { as: 'admin' })).status, 404);
      await t.api.delete(`${ADMIN_BASE}/webhooks/${endpoint.id}`, { as: 'admin' });
    });
  },
  FAST,
);

describe('webhooks: with no endpoint enabled, writes do not ask for endpoints each time (issue 27)', () => {
  for (const kind of STORES) {
    it(`${kind.name}: a "no" is kept for a poll interval; an endpoint added here is seen at once, one added by another process by the next poll, and nothing is lost`, async () => {
      // A poll interval of 1 s (half the shortest retry delay): the worker's own poll, which asks
      // the store again once its "no" is older than that, must not fall between the other
      // process's insert and the look at the kept "no" (with 75 ms it did once on a loaded host).
      const t = await startServer(kind, { ...FAST, WEBHOOKS_RETRY_SCHEDULE: '2s,2s,2s,2s' });
      const r = await startReceiver();
      try {
        const webhooks = t.built.webhooks!;
        const worker = t.built.webhookWorker!;
        const db = t.built.store.db;
        assert.equal(await webhooks.anyEnabled(60_000), false);
        // Knowing no endpoint is enabled, the worker does not want waking after each commit (the
        // change log then looks at no head).
        assert.equal(worker.wantsWakes(), false);
        // Another process adds an endpoint (the CLI, another instance): a "no" younger than the
        // interval given still stands; asked fresh, the store says yes.
        const cursor = await t.built.store.changes.head();
        const row = {
          url: r.url,
          secret: 'whsec_' + Buffer.from('a'.repeat(32)).toString('base64'),
          events: '["*"]',
          description: 'elsewhere',
          enabled: 1,
          disabled_reason: null,
          cursor_seq: cursor,
          failing_since: null,
          created_gmt: '2032-01-01 00:00:00',
        };
        assert.equal(await webhooks.anyEnabled(0), false, 'a fresh "no"');
        const other = Number((await db.insertInto('webhook_endpoints').values(row).returning('id').executeTakeFirstOrThrow()).id);
        r.secret = row.secret;
        assert.equal(await webhooks.anyEnabled(60_000), false, 'the kept "no"');
        assert.equal(await webhooks.anyEnabled(0), true, 'asked fresh');
        // The worker's own poll interval (1 s here) bounds how long another process's endpoint
        // waits: a write made now is delivered to it.
        await webhooks.anyEnabled(0);
        await db.deleteFrom('webhook_endpoints').where('id', '=', other).execute();
        assert.equal(await webhooks.anyEnabled(0), false);
        const again = Number(
          (
            await db
              .insertInto('webhook_endpoints')
              .values({ ...row, cursor_seq: await t.built.store.changes.head() })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
        const e = (await t.api.post('/events', { as: 'admin', json: ev('Seen from elsewhere') })).body;
        const [m] = await r.waitFor((x) => x.body?.type === 'event.created' && x.body?.data?.id === e.id);
        assert.ok(m!.verified);
        await db.deleteFrom('webhook_endpoints').where('id', '=', again).execute();
        // An endpoint made in this process clears the kept "no" at once.
        assert.equal(await webhooks.anyEnabled(0), false);
        const mine = await webhooks.create({ url: r.url });
        assert.equal(worker.wantsWakes(), true, 'an endpoint made here: woken again');
        assert.equal(await webhooks.anyEnabled(60_000), true);
        await webhooks.update(mine.id, { enabled: false });
        assert.equal(await webhooks.anyEnabled(60_000), false);
        await webhooks.update(mine.id, { enabled: true });
        assert.equal(await webhooks.anyEnabled(60_000), true, 'enabling clears the kept "no"');
      } finally {
        await r.close();
        await t.close();
      }
    });
  }
});

describe('webhooks: a "no endpoint enabled" read while this process enabled one is not kept (issue 27)', () => {
  for (const kind of STORES) {
    it(`${kind.name}: the answer read before the change comes back after it, and the next ask within the interval still asks the store`, async () => {
      const t = await startServer(kind, FAST);
      try {
        // The service over the same store, its "any endpoint enabled?" read held after it has read
        // (a Proxy on the query builder, so the connection is not held): meanwhile this process
        // enables an endpoint, then the held "no" comes back.
        let armed = false;
        let reached!: () => void;
        const reachedP = new Promise<void>((r) => (reached = r));
        let releaseHeld: () => void = () => {};
        const gate = async () => {
          if (!armed) return;
          armed = false;
          await new Promise<void>((release) => {
            releaseHeld = release;
            reached();
          });
        };
        const hold = <T extends object>(o: T): T =>
          new Proxy(o, {
            get(target, prop) {
              const v = Reflect.get(target, prop, target) as unknown;
              if (typeof v !== 'function') return v;
              const f = v as (...a: unknown[]) => unknown;
              if (prop === 'executeTakeFirst')
                return async (...a: unknown[]) => {
                  const out = await f.apply(target, a);
                  await gate();
                  return out;
                };
              return (...a: unknown[]) => {
                const out = f.apply(target, a);
                return out && typeof out === 'object' && typeof (out as { then?: unknown }).then !== 'function' ? hold(out) : out;
              };
            },
          });
        const realDb = t.built.store.db;
        const db = new Proxy(realDb, {
          get(target, prop) {
            const v = Reflect.get(target, prop, target) as unknown;
            if (prop === 'selectFrom') return (...a: unknown[]) => hold((v as (...x: unknown[]) => object).apply(target, a));
            return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
          },
        });
        const store = Object.create(t.built.store, { db: { value: db } }) as typeof t.built.store;
        const { createEndpoints } = await import('../../src/webhooks/endpoints.js');
        const webhooks = createEndpoints({ services: { store, quotas: t.built.services.quotas } } as unknown as Parameters<typeof createEndpoints>[0]);
        const mine = await webhooks.create({ url: 'http://127.0.0.1:9/hook' });
        await webhooks.update(mine.id, { enabled: false });
        assert.equal(await webhooks.anyEnabled(0), false);
        armed = true;
        const asked = webhooks.anyEnabled(0);
        await reachedP;
        await webhooks.update(mine.id, { enabled: true });
        releaseHeld();
        assert.equal(await asked, false, 'the held read saw the endpoint still disabled');
        assert.equal(webhooks.knownNoneEnabled(60_000), false, 'that "no" was not kept');
        assert.equal(await webhooks.anyEnabled(60_000), true, 'asked again: the store says yes');
        await webhooks.remove(mine.id);
      } finally {
        await t.close();
      }
    });
  }
});

describe('webhooks: an endpoint failing too long is disabled, and can be enabled again', () => {
  for (const kind of STORES) {
    it(kind.name, async () => {
      const t = await startServer(kind, { ...FAST, WEBHOOKS_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms', WEBHOOKS_DISABLE_AFTER: '300ms' });
      const r = await startReceiver();
      try {
        r.respond = () => 503;
        const endpoint = await addEndpoint(t, r);
        const e = (await t.api.post('/events', { as: 'admin', json: ev('Down') })).body;
        let state: any;
        for (let i = 0; i < 100; i++) {
          state = (await t.api.get(`${ADMIN_BASE}/webhooks/${endpoint.id}`, { as: 'admin' })).body;
          if (!state.enabled) break;
          await new Promise((res) => setTimeout(res, 100));
        }
        assert.equal(state.enabled, false);
        assert.match(state.disabled_reason, /failing since/);
        const seen = r.received.length;
        await new Promise((res) => setTimeout(res, 500));
        assert.equal(r.received.length, seen, 'nothing is sent while disabled');
        r.respond = () => 200;
        const enabled = await t.api.patch(`${ADMIN_BASE}/webhooks/${endpoint.id}`, { as: 'admin', json: { enabled: true } });
        assert.equal(enabled.body.enabled, true);
        const ok = await r.waitFor((m) => m.body?.type === 'event.created' && m.body?.data?.id === e.id && m.at > Date.now() - 5000, 1);
        assert.ok(ok[0]!.verified);
        const log = (await t.api.get(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries`, { as: 'admin' })).body;
        await new Promise((res) => setTimeout(res, 300));
        const final = (await t.api.get(`${ADMIN_BASE}/webhooks/${endpoint.id}/deliveries`, { as: 'admin' })).body.find((x: any) => x.type === 'event.created' && x.payload.data.id === e.id);
        assert.equal(final.status, 'succeeded', JSON.stringify(log));
        assert.ok(final.log.some((a: any) => a.response_code === 503));
      } finally {
        await r.close();
        await t.close();
      }
    });
  }
});

describe('webhooks: SSRF guard', () => {
  for (const kind of STORES) {
    it(`${kind.name}: loopback and private targets are refused unless WEBHOOKS_ALLOW_PRIVATE=true`, async () => {
      const t = await startServer(kind, { WEBHOOKS_RETRY_SCHEDULE: '100ms' });
      const r = await startReceiver();
      try {
        for (const url of [r.url, r.url.replace('127.0.0.1', 'localhost'), 'http://10.0.0.1/x', 'http://[::1]:9/x', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/x']) {
          const res = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url } });
          assert.equal(res.status, 400, url);
          assert.match(JSON.stringify(res.body.data.params), /refused/, url);
        }
        // Checked again when delivering (a name may resolve elsewhere later): an endpoint stored anyway is refused, with nothing sent.
        const stored = await t.built.webhooks.create({ url: r.url.replace('127.0.0.1', 'localhost') });
        r.secret = stored.secret;
        await t.api.post('/events', { as: 'admin', json: ev('Not for localhost') });
        let entry: any;
        for (let i = 0; i < 100 && !entry?.log?.length; i++) {
          await new Promise((res) => setTimeout(res, 100));
          entry = (await t.api.get(`${ADMIN_BASE}/webhooks/${stored.id}/deliveries`, { as: 'admin' })).body.find((x: any) => x.type === 'event.created');
        }
        assert.equal(entry.log[0].outcome, 'refused');
        assert.match(entry.log[0].error, /loopback, private or reserved/);
        assert.equal(r.received.length, 0, 'no request reached the receiver');
      } finally {
        await r.close();
        await t.close();
      }
    });
  }
});

describe('webhooks: SSRF guard, IPv4 inside IPv6 (issue 24)', () => {
  for (const kind of STORES) {
    it(`${kind.name}: the review's four URLs and the other embedding forms are refused by their IPv4 address`, async () => {
      const t = await startServer(kind);
      try {
        const review = ['http://[::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a00:1]/', 'http://[::ffff:0:7f00:1]/'];
        const more = ['http://[2002:7f00:1::1]/', 'http://[2001:0:808:808::80ff:fffe]/', 'http://[2001:0:a00:1::f7f7:f7f7]/', 'http://[64:ff9b:1::808:808]/', 'http://[::ffff:a00:1]/'];
        for (const url of [...review, ...more]) {
          const res = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url } });
          assert.equal(res.status, 400, url);
          assert.equal(res.body.code, 'rest_invalid_param', url);
          assert.match(JSON.stringify(res.body.data.params), /refused.*loopback, private or reserved/, url);
        }
        // The same forms around a public address are accepted (NAT64 is how IPv6-only hosts reach IPv4 sites).
        for (const url of ['http://[64:ff9b::808:808]/', 'http://[2002:808:808::1]/']) {
          const res = await t.api.post(`${ADMIN_BASE}/webhooks`, { as: 'admin', json: { url } });
          assert.equal(res.status, 201, `${url}: ${res.text}`);
        }
        const list = (await t.api.get(`${ADMIN_BASE}/webhooks`, { as: 'admin' })).body as Array<{ url: string }>;
        assert.equal(list.length, 2);
      } finally {
        await t.close();
      }
    });
  }
});
