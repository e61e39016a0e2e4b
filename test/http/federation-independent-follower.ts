/**
 * A second fediverse peer for the federation tests, written without Fedify (the calendar's own
 * library): its actor document is plain JSON, WebFinger and documents are read with `fetch`, and
 * HTTP signatures (draft-cavage, what Mastodon sends and verifies) are made and verified with
 * Joyent's `http-signature`, the digest with `node:crypto`. An activity is recorded only when its
 * signature verifies with the key its `keyId` names, that key's owner is the activity's actor, and
 * the body matches its `Digest`; anything else is answered 401 and counted in `refused`.
 *
 * Like a server that shows the fediverse's events (Mastodon keeps each status' `edited_at`), it
 * keeps the newest version of each object it was sent: a Create or Update is applied only when its
 * object's `updated` is later than the version kept (an Update with the same or an older `updated`
 * is dropped as stale), a Delete removes it.
 *
 * @example
 *   const p = await startIndependentFollower('ivy');
 *   const actor = await p.lookUp(`acct:events@${host}`, origin);
 *   await p.follow(actor);
 *   await p.waitFor((a) => a.type === 'Accept');
 *   p.objects.get(objectId)?.name;
 */
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import http, { createServer, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import httpSignature from 'http-signature';

export interface ReceivedActivity {
  type: string;
  /** the activity as it arrived (JSON) */
  json: any;
}

export interface IndependentFollower {
  origin: string;
  actorId: string;
  inbox: string;
  sharedInbox: string;
  /** verified activities, in the order they arrived */
  received: ReceivedActivity[];
  /** inbox requests refused (signature, key owner or digest wrong) */
  refused: string[];
  /** the newest version kept of each object, by id (as the Creates and Updates it applied left it) */
  objects: Map<string, any>;
  /** Updates not applied because their object's `updated` was not later than the version kept */
  stale: ReceivedActivity[];
  /** WebFinger look-up of `acct:` on `server`, then the actor document */
  lookUp(acct: string, server: string): Promise<any>;
  /** Send a signed Follow of `actor` to its inbox; answers the Follow's id */
  follow(actor: any): Promise<string>;
  /** Send a signed activity of this actor (`actor` set to it) to `inbox`, under `keyId` (default: its `#main-key`); answers the status */
  send(inbox: string, activity: Record<string, unknown>, options?: { keyId?: string }): Promise<number>;
  /** What its actor document answers from now on: a status (410: the account deleted), or undefined for the document */
  actorAnswers(status: number | undefined): void;
  waitFor(test: (a: ReceivedActivity) => boolean, ms?: number): Promise<ReceivedActivity>;
  close(): Promise<void>;
}

const AS = 'https://www.w3.org/ns/activitystreams';
const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const digestOf = (body: Buffer | string) => `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
const timeOf = (o: any) => Date.parse(o?.updated ?? o?.published ?? '');

export async function startIndependentFollower(name = 'ivy', { host = '127.0.0.1' }: { host?: string } = {}): Promise<IndependentFollower> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const received: ReceivedActivity[] = [];
  const refused: string[] = [];
  const stale: ReceivedActivity[] = [];
  const objects = new Map<string, any>();
  /** public keys by key id, as fetched (a key id names a key document or an actor holding it) */
  const keys = new Map<string, { owner: string; pem: string }>();

  const fetchJson = async (url: string) => {
    const res = await fetch(url, { headers: { accept: ACCEPT } });
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
    return (await res.json()) as any;
  };
  const keyOf = async (keyId: string) => {
    const kept = keys.get(keyId);
    if (kept) return kept;
    const doc = await fetchJson(keyId);
    const candidates = [doc.publicKey, doc].flat().filter((k: any) => k && typeof k === 'object');
    const key = candidates.find((k: any) => k.id === keyId && typeof k.publicKeyPem === 'string');
    if (!key) throw new Error(`no key ${keyId} in its document`);
    const found = { owner: String(key.owner ?? doc.id), pem: String(key.publicKeyPem) };
    keys.set(keyId, found);
    return found;
  };

  /** Why this inbox request is not verified (undefined: verified). */
  const refusal = async (req: IncomingMessage, body: Buffer, activity: any): Promise<string | undefined> => {
    let parsed: ReturnType<typeof httpSignature.parseRequest>;
    try {
      // The headers Mastodon requires of a signed POST.
      parsed = httpSignature.parseRequest(req as unknown as ClientRequest, { headers: ['(request-target)', 'host', 'date', 'digest'], clockSkew: 300 });
    } catch (err) {
      return `signature header: ${(err as Error).message}`;
    }
    if (req.headers.digest !== digestOf(body)) return 'digest does not match the body';
    let key: { owner: string; pem: string };
    try {
      key = await keyOf(parsed.params.keyId);
    } catch (err) {
      return `key: ${(err as Error).message}`;
    }
    if (key.owner !== activity?.actor) return `key owner ${key.owner} is not the actor ${String(activity?.actor)}`;
    if (!httpSignature.verifySignature(parsed, key.pem)) return 'signature does not verify';
    return undefined;
  };

  /** Apply a verified activity to the objects kept, as a server keeping the newest version does. */
  const apply = (a: ReceivedActivity) => {
    const object = a.json.object;
    const id = typeof object === 'string' ? object : object?.id;
    if (typeof id !== 'string') return;
    if (a.type === 'Delete') {
      objects.delete(id);
      return;
    }
    if (a.type !== 'Create' && a.type !== 'Update') return;
    const kept = objects.get(id);
    if (kept && !(timeOf(object) > timeOf(kept))) {
      stale.push(a);
      return;
    }
    objects.set(id, object);
  };

  let origin = '';
  const actorId = () => `${origin}/users/${name}`;
  const actorDocument = () => ({
    '@context': [AS, 'https://w3id.org/security/v1'],
    id: actorId(),
    type: 'Person',
    preferredUsername: name,
    name,
    inbox: `${actorId()}/inbox`,
    outbox: `${actorId()}/outbox`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    publicKey: { id: `${actorId()}#main-key`, owner: actorId(), publicKeyPem: publicKey },
  });

  let actorStatus: number | undefined;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const path = new URL(req.url ?? '/', origin).pathname;
      if (req.method === 'GET' && path === `/users/${name}` && actorStatus !== undefined) {
        res.writeHead(actorStatus).end();
        return;
      }
      if (req.method === 'GET' && path === `/users/${name}`) {
        res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actorDocument()));
        return;
      }
      if (req.method === 'POST' && (path === '/inbox' || path === `/users/${name}/inbox`)) {
        let activity: any;
        try {
          activity = JSON.parse(body.toString('utf8'));
        } catch {
          res.writeHead(400).end();
          return;
        }
        const why = await refusal(req, body, activity);
        if (why) {
          refused.push(why);
          res.writeHead(401).end(why);
          return;
        }
        const a = { type: String(activity.type), json: activity };
        received.push(a);
        apply(a);
        res.writeHead(202).end();
        return;
      }
      res.writeHead(404).end();
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;

  /** POST a JSON body to `url` signed with this actor's key (draft-cavage, as Mastodon signs), under `keyId`. */
  const postSigned = (url: string, doc: unknown, keyId = `${actorId()}#main-key`) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(doc);
      const target = new URL(url);
      const req = http.request(target, { method: 'POST', headers: { 'content-type': 'application/activity+json', digest: digestOf(body), host: target.host } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      httpSignature.signRequest(req, { key: privateKey, keyId, headers: ['(request-target)', 'host', 'date', 'digest'], authorizationHeaderName: 'Signature' } as never);
      req.end(body);
    });

  return {
    origin,
    actorId: actorId(),
    inbox: `${actorId()}/inbox`,
    sharedInbox: `${origin}/inbox`,
    received,
    refused,
    objects,
    stale,
    async lookUp(acct, serverOrigin) {
      const jrd = await (await fetch(`${serverOrigin}/.well-known/webfinger?resource=${encodeURIComponent(acct)}`, { headers: { accept: 'application/jrd+json' } })).json();
      const self = (jrd as { links: Array<{ rel: string; type?: string; href?: string }> }).links.find((l) => l.rel === 'self' && l.type === 'application/activity+json');
      if (!self?.href) throw new Error('no self link');
      return fetchJson(self.href);
    },
    async follow(actor) {
      const id = `${origin}/follows/${randomUUID()}`;
      const status = await postSigned(String(actor.inbox), { '@context': AS, id, type: 'Follow', actor: actorId(), object: actor.id });
      if (status < 200 || status >= 300) throw new Error(`Follow answered ${status}`);
      return id;
    },
    send: (inbox, activity, options = {}) => postSigned(inbox, { '@context': AS, ...activity, actor: actorId() }, options.keyId),
    actorAnswers(status) {
      actorStatus = status;
    },
    async waitFor(test, ms = 20_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        if (Date.now() > until)
          throw new Error(`not received within ${ms} ms; received: ${received.map((r) => `${r.type} ${r.json?.object?.id ?? r.json?.object ?? ''}`).join(', ')}; refused: ${refused.join('; ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
