/**
 * Issue 24: the import source's own HTTP GET (it replaced fetch to pin connections to checked
 * addresses): redirects followed by hand with the credentials kept for the first origin only, a
 * loopback target refused without `allowPrivate` (no retry, no request sent), and gzip answers decoded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { createSource, ImportError, RefusedTargetError } from '../../src/import/source.js';

type Answer = { status: number; headers?: Record<string, string>; body?: Buffer | string };

async function listen(handler: (url: string, headers: IncomingHttpHeaders) => Answer) {
  const seen: Array<{ url: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization });
    const a = handler(req.url!, req.headers);
    res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, seen, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('import source', () => {
  let other: Awaited<ReturnType<typeof listen>>;
  let main: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    other = await listen(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"from":"other"}' }));
    main = await listen((url): Answer => {
      if (url === '/same') return { status: 301, headers: { location: '/json' } };
      if (url === '/away') return { status: 302, headers: { location: `${other.origin}/x` } };
      if (url === '/ftp') return { status: 302, headers: { location: 'ftp://example.org/x' } };
      if (url === '/gz') return { status: 200, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"gz":true}') };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"from":"main"}' };
    });
  });
  after(() => {
    main.server.close();
    other.server.close();
  });

  it('follows redirects, sending the credentials to the first origin only', async () => {
    const source = createSource({ user: 'u', password: 'p', retries: 0, retryDelayMs: 1, allowPrivate: true });
    assert.deepEqual((await source.getJson(`${main.origin}/same`)).body, { from: 'main' });
    assert.equal(main.seen.at(-1)!.url, '/json');
    assert.match(main.seen.at(-1)!.authorization ?? '', /^Basic /);
    assert.deepEqual((await source.getJson(`${main.origin}/away`)).body, { from: 'other' });
    assert.equal(other.seen.at(-1)!.authorization, undefined);
    await assert.rejects(source.getJson(`${main.origin}/ftp`), /not an http\(s\) URL/);
    assert.deepEqual((await source.getJson(`${main.origin}/gz`)).body, { gz: true });
  });

  it('refuses a loopback target without allowPrivate, at once, with the flag named', async () => {
    const before = main.seen.length;
    const source = createSource({ retries: 3, retryDelayMs: 1000 });
    for (const url of [`${main.origin}/json`, main.origin.replace('127.0.0.1', 'localhost') + '/json', main.origin.replace('127.0.0.1', '[::ffff:7f00:1]') + '/json']) {
      const err = await source.getJson(url).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof RefusedTargetError && err instanceof ImportError, String(err));
      assert.match((err as Error).message, /refused: .* a loopback, private or reserved address \(give --allow-private to import from it\)/);
    }
    assert.equal(main.seen.length, before, 'no request was sent');
  });
});
