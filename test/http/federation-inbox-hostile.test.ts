/**
 * Issue 44: what the federation inboxes refuse, they refuse in the face's JSON error shape
 * (`{code, message, data: {status}}`), never with a 500 and never as Fedify's bare text: activities
 * nested deeper than the JSON-LD processing can walk (a stack overflow, once a 500), activities
 * naming a remote JSON-LD context that cannot be loaded (a 500), bodies that are not JSON, and
 * requests without a valid signature (Fedify's text, now `federation_unauthorized`); and an object
 * id or outbox page no integer column holds (a 500). Found by the robustness suite
 * over the faces (test/robustness/fuzz-faces.test.ts). On both stores.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { MAX_DEPTH, nestingDepth } from '../../src/federation/inbox-body.js';
import { MAX_DOCUMENT_BYTES } from '../../src/federation/loaders.js';

const INBOXES = ['/federation/inbox', '/federation/actors/events/inbox'];

async function post(t: TestServer, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; json: any }> {
  const res = await fetch(t.origin + path, { method: 'POST', headers: { 'content-type': 'application/activity+json', ...headers }, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', json };
}

function assertError(res: { status: number; type: string; json: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.match(res.type, /^application\/json/);
  assert.equal(res.json.code, code);
  assert.equal(typeof res.json.message, 'string');
  assert.equal(res.json.data.status, status);
}

/**
 * A key host answering a document of `bytes` (chunked, or with a Content-Length saying so when
 * `declare`), written as fast as it is read: how much went out, and whether the reader hung up first.
 */
async function hugeDocumentHost(bytes: number, declare = false) {
  const state = { sent: 0, cut: false, requests: 0 };
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = createServer((_req, res) => {
    state.requests++;
    res.writeHead(200, { 'content-type': 'application/activity+json', ...(declare ? { 'content-length': String(bytes) } : {}) });
    res.write('{"id":"');
    let left = bytes - 9;
    res.on('close', () => {
      if (left > 0) state.cut = true;
    });
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(chunk.length, left);
        left -= n;
        state.sent += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      if (left <= 0 && !res.destroyed) res.end('"}');
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    /** Whether the reader hung up before the end, once the hang-up has reached this side (within 5 s). */
    async wasCut(): Promise<boolean> {
      for (let i = 0; i < 100 && !state.cut; i++) await new Promise((r) => setTimeout(r, 50));
      return state.cut;
    },
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** POST a Like signed with a key of our own under `keyId` (so the server fetches `keyId` to verify it). */
async function postSignedBy(inbox: string, keyId: string): Promise<number> {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const actor = keyId.replace(/#.*$/, '');
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/activities/${randomUUID()}`, type: 'Like', actor, object: inbox });
  const signed = await signRequest(new Request(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }), keys.privateKey, new URL(keyId), {
    spec: 'draft-cavage-http-signatures-12',
  });
  const res = await fetch(inbox, { method: 'POST', headers: signed.headers, body });
  await res.arrayBuffer();
  return res.status;
}

describe('nestingDepth (unit)', () => {
  it('counts arrays and objects outside strings', () => {
    assert.equal(nestingDepth(Buffer.from('{"a":[1,{"b":"[[[{{{"}]}')), 3);
    assert.equal(nestingDepth(Buffer.from('"\\"[[["')), 0);
    assert.equal(nestingDepth(Buffer.from('[]')), 1);
  });
});

for (const kind of STORES) {
  describe(`federation refuses hostile requests in the face's JSON shape [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { FEDERATION: 'true', FEDERATION_INBOX_RATE_LIMIT: '0' });
    });
    after(async () => {
      await t.close();
    });

    it('an activity nested deeper than the limit: 400 federation_bad_request (was a 500: a stack overflow in the JSON-LD processing)', async () => {
      for (const path of INBOXES) {
        for (const body of [`{"type":"Follow","actor":${'['.repeat(5000)}1${']'.repeat(5000)}}`, `${'{"object":'.repeat(5000)}{"type":"Note"}${'}'.repeat(5000)}`]) {
          assertError(await post(t, path, body), 400, 'federation_bad_request');
        }
      }
      // At the limit it is Fedify's to read (and refuse for what it is, not for its depth).
      const atLimit = await post(t, INBOXES[0]!, `${'{"object":'.repeat(MAX_DEPTH - 1)}{"type":"Note"}${'}'.repeat(MAX_DEPTH - 1)}`);
      assert.ok(atLimit.status < 500);
      assert.doesNotMatch(atLimit.json.message, /nested deeper/);
    });

    it('an activity whose remote JSON-LD context cannot be loaded: 400 federation_bad_request (was a 500)', async () => {
      const body = JSON.stringify({ '@context': 'http://127.0.0.1:1/context.jsonld', id: 'http://127.0.0.1:1/a/1', type: 'Announce', actor: 'http://127.0.0.1:1/u', object: 'x' });
      for (const path of INBOXES) assertError(await post(t, path, body), 400, 'federation_bad_request');
      const signed = await post(t, INBOXES[0]!, JSON.stringify({ ...JSON.parse(body), id: 'http://127.0.0.1:1/a/2' }), {
        signature: 'keyId="https://key.invalid/actor#main-key",signature=!!!,headers=(((',
        date: 'yesterday',
      });
      assert.ok(signed.status < 500, JSON.stringify(signed.json));
      assert.match(signed.type, /^application\/json/);
    });

    it('an object id or outbox page beyond an integer column is 404 federation_not_found (was a 500: PostgreSQL refuses such an id, and both stores such a page’s offset)', async () => {
      for (const path of [
        '/federation/events/99999999999999999999',
        '/federation/events/2147483648',
        '/federation/actors/events/outbox?page=1e20',
        '/federation/actors/events/outbox?page=2147483648',
      ]) {
        const res = await fetch(t.origin + path, { headers: { accept: 'application/activity+json' } });
        const json = await res.json();
        assert.equal(res.status, 404, `${path}: ${JSON.stringify(json)}`);
        assert.equal(json.code, 'federation_not_found');
      }
      assert.equal((await fetch(`${t.origin}/federation/actors/events/outbox?page=2147483647`)).status, 200, 'the last page an integer holds is a page (empty)');
    });

    it('the actor asked for HTML is 406 federation_not_acceptable, its status in the body too (it said 404 in a 406)', async () => {
      const res = await fetch(`${t.origin}/federation/actors/events`, { headers: { accept: 'text/html' } });
      assertError({ status: res.status, type: res.headers.get('content-type') ?? '', json: await res.json() }, 406, 'federation_not_acceptable');
    });

    it("Fedify's own refusals in the JSON shape: a body that is not JSON (400), no valid signature (401 federation_unauthorized)", async () => {
      const notJson = await post(t, INBOXES[0]!, '{"type":"Follow",,}');
      assertError(notJson, 400, 'federation_bad_request');
      assert.match(notJson.json.message, /JSON/i);
      const unsigned = await post(
        t,
        INBOXES[1]!,
        JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://x.example/1', type: 'Follow', actor: 'https://x.example/u', object: 'y' }),
      );
      assertError(unsigned, 401, 'federation_unauthorized');
    });
  });
}

for (const kind of STORES) {
  describe(`federation reads a remote document only up to its size bound [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { FEDERATION: 'true', FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true', FEDERATION_INBOX_RATE_LIMIT: '0' });
    });
    after(async () => {
      await t.close();
    });

    it('a key URL answering 64 MiB: the fetch stops past the bound, the request is refused as unverified (it was read whole into memory)', async () => {
      const host = await hugeDocumentHost(64 * 1024 * 1024);
      try {
        assert.equal(await postSignedBy(`${t.origin}/federation/inbox`, `${host.origin}/users/big#main-key`), 401);
        assert.ok(host.state.requests >= 1, 'the key was fetched');
        // What sits in socket buffers may have gone out too, but not the whole document.
        assert.ok(await host.wasCut(), `the server hung up before the end (${host.state.sent} bytes sent)`);
        assert.ok(host.state.sent < 16 * MAX_DOCUMENT_BYTES, `sent ${host.state.sent} bytes`);
        assert.equal((await fetch(`${t.origin}/livez`)).status, 200);
      } finally {
        await host.close();
      }
    });

    it('a key URL whose Content-Length is over the bound is not read at all', async () => {
      const host = await hugeDocumentHost(MAX_DOCUMENT_BYTES * 4, true);
      try {
        assert.equal(await postSignedBy(`${t.origin}/federation/inbox`, `${host.origin}/users/declared#main-key`), 401);
        assert.ok(host.state.requests >= 1, 'the key was asked for');
        assert.ok(await host.wasCut(), `the server hung up before the end (${host.state.sent} bytes sent)`);
      } finally {
        await host.close();
      }
    });

    it('what is not fetched for federation is not bounded: the platform fetch is unchanged outside the loaders', async () => {
      const host = await hugeDocumentHost(4 * MAX_DOCUMENT_BYTES);
      try {
        const res = await fetch(`${host.origin}/big`);
        assert.equal((await res.arrayBuffer()).byteLength, 4 * MAX_DOCUMENT_BYTES);
      } finally {
        await host.close();
      }
    });
  });
}
