/**
 * An independent fediverse follower for the federation tests (issue 31), built with Fedify itself:
 * a second `createFederation` on a loopback port with its own actor (`alice`, a Person with RSA
 * and Ed25519 keys) and inbox. Its Fedify verifies the HTTP signature of every activity it
 * receives (and that the key belongs to the activity's actor); only verified activities are
 * recorded. `answer` makes its inbox answer a status instead (500, 410) for the next requests;
 * `actorAnswers` makes its actor document (and so its keys) answer a status (410: the account was
 * deleted). It listens on 127.0.0.1, or on another loopback address given as `host` (a host of
 * its own, as the calendar counts hosts by name).
 *
 * @example
 *   const f = await startFollower();
 *   const actor = await f.lookUp('acct:events@127.0.0.1:8080', 'http://127.0.0.1:8080');
 *   await f.follow(actor);
 *   await f.waitFor((a) => a.type === 'Accept');
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createFederation, generateCryptoKeyPair, MemoryKvStore, type Federation } from '@fedify/fedify';
import { Accept, Activity, Create, Delete, Endpoints, Follow, Like, Person, Reject, Undo, Update, isActor, type Actor } from '@fedify/vocab';

export interface ReceivedActivity {
  type: string;
  /** the activity as it arrived (JSON-LD) */
  json: any;
}

export interface Follower {
  origin: string;
  actorId: string;
  received: ReceivedActivity[];
  /** inbox requests seen (answered by Fedify or by `answer`) */
  inboxRequests: number;
  /** answer this status to the next `count` inbox requests instead of handling them */
  answer(status: number, count: number): void;
  /** answer this status to every GET of the actor document (0: serve it again) */
  actorAnswers(status: number): void;
  /** WebFinger look-up of `acct:` on `server`, then the actor document through Fedify */
  lookUp(acct: string, server: string): Promise<Actor>;
  follow(actor: Actor): Promise<string>;
  unfollow(actor: Actor, followId: string): Promise<void>;
  /** Send `Delete` of this follower's own actor (an account deleted) */
  deleteSelf(actor: Actor): Promise<void>;
  /** Send a `Like` of `object` (an activity the calendar does not act on) */
  like(actor: Actor, object: string): Promise<void>;
  waitFor(test: (a: ReceivedActivity) => boolean, ms?: number): Promise<ReceivedActivity>;
  /** the follower's Fedify (to sign requests in tests) */
  federation: Federation<void>;
  keys: CryptoKeyPair[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFollower(name = 'alice', { host = '127.0.0.1' }: { host?: string } = {}): Promise<Follower> {
  const keys = [await generateCryptoKeyPair('RSASSA-PKCS1-v1_5'), await generateCryptoKeyPair('Ed25519')] as unknown as CryptoKeyPair[];
  const received: ReceivedActivity[] = [];
  const federation = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (identifier !== name) return null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: identifier,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pairs[0]!.cryptographicKey,
        assertionMethods: pairs.map((p) => p.multikey),
      });
    })
    .setKeyPairsDispatcher(async () => keys as never);
  /** the bodies of inbox requests as they arrived, by activity id (recorded once Fedify verified them) */
  const raw = new Map<string, unknown>();
  const record = async (activity: Activity) => {
    received.push({ type: activity.constructor.name, json: (activity.id && raw.get(activity.id.href)) ?? (await activity.toJsonLd()) });
  };
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .on(Accept, async (_ctx, a) => record(a))
    .on(Reject, async (_ctx, a) => record(a))
    .on(Create, async (_ctx, a) => record(a))
    .on(Update, async (_ctx, a) => record(a))
    .on(Delete, async (_ctx, a) => record(a));

  let answers: { status: number; count: number } = { status: 0, count: 0 };
  let actorStatus = 0;
  const state = { inboxRequests: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const url = new URL(req.url ?? '/', origin);
      if (req.method === 'GET' && actorStatus && url.pathname === `/users/${name}`) {
        res.writeHead(actorStatus).end();
        return;
      }
      if (req.method === 'POST' && url.pathname.endsWith('inbox')) {
        state.inboxRequests++;
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown };
          if (typeof parsed.id === 'string') raw.set(parsed.id, parsed);
        } catch {
          /* Fedify refuses it */
        }
        if (answers.count > 0) {
          answers.count--;
          res.writeHead(answers.status).end();
          return;
        }
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) for (const x of Array.isArray(v) ? v : [v]) headers.append(k, x);
      const response = await federation.fetch(new Request(url, { method: req.method, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) }), { contextData: undefined });
      const out: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        out[k] = v;
      });
      res.writeHead(response.status, out);
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  const ctx = () => federation.createContext(new URL(origin), undefined);

  return {
    origin,
    actorId: `${origin}/users/${name}`,
    received,
    get inboxRequests() {
      return state.inboxRequests;
    },
    answer(status, count) {
      answers = { status, count };
    },
    actorAnswers(status) {
      actorStatus = status;
    },
    async lookUp(acct, server) {
      const wf = await fetch(`${server}/.well-known/webfinger?resource=${encodeURIComponent(acct)}`, { headers: { accept: 'application/jrd+json' } });
      if (wf.status !== 200) throw new Error(`WebFinger answered ${wf.status}`);
      const jrd = (await wf.json()) as { subject: string; links: Array<{ rel: string; type?: string; href?: string }> };
      const self = jrd.links.find((l) => l.rel === 'self' && l.type === 'application/activity+json');
      if (!self?.href) throw new Error('no self link');
      const actor = await ctx().lookupObject(self.href);
      if (!actor || !isActor(actor)) throw new Error('not an actor');
      return actor;
    },
    async follow(actor) {
      const id = `${origin}/follows/${randomUUID()}`;
      await ctx().sendActivity({ identifier: name }, actor, new Follow({ id: new URL(id), actor: ctx().getActorUri(name), object: actor.id }));
      return id;
    },
    async unfollow(actor, followId) {
      const follow = new Follow({ id: new URL(followId), actor: ctx().getActorUri(name), object: actor.id });
      await ctx().sendActivity({ identifier: name }, actor, new Undo({ id: new URL(`${origin}/undos/${randomUUID()}`), actor: ctx().getActorUri(name), object: follow }));
    },
    async deleteSelf(actor) {
      const me = ctx().getActorUri(name);
      await ctx().sendActivity({ identifier: name }, actor, new Delete({ id: new URL(`${origin}/deletes/${randomUUID()}`), actor: me, object: me }));
    },
    async like(actor, object) {
      await ctx().sendActivity({ identifier: name }, actor, new Like({ id: new URL(`${origin}/likes/${randomUUID()}`), actor: ctx().getActorUri(name), object: new URL(object) }));
    },
    async waitFor(test, ms = 20_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        if (Date.now() > until) throw new Error(`not received within ${ms} ms; received: ${received.map((r) => `${r.type} ${r.json?.object?.id ?? r.json?.object ?? ''}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    federation,
    keys,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
