/**
 * Issue 24: the import source's own HTTP GET (it replaced fetch to pin connections to checked
 * addresses): redirects followed by hand with the credentials kept for the first origin only, a
 * loopback target refused without `allowPrivate` (no retry, no request sent), and gzip answers decoded.
 * Issue 44: every answer read within the import limit (IMPORT_MAX_BYTES, 10 MiB by default): a gzip
 * bomb (259 KiB → 256 MiB), deflate (zlib and raw) and brotli ones, a Content-Length over it and a
 * chunked body over it each fail with the limit named, at once (no retry), without holding the
 * event loop 100 ms or growing the memory by more than a little; answers within it decode as before.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { createSource, ImportError, RefusedTargetError, TooLargeError } from '../../src/import/source.js';
import { brotliBomb, deflateBomb, gzipBomb, rawDeflateBomb } from '../support/bombs.js';
import { startLoopPing } from '../support/loop-ping.js';

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

describe('import source limits (IMPORT_MAX_BYTES)', () => {
  const MIB = 1024 * 1024;
  let server: Server;
  let origin: string;
  /** Requests per path, and the bytes the server sent of each streamed answer. */
  const requests = new Map<string, number>();
  const sent = new Map<string, number>();
  const bodies: Record<string, { coding?: string; body: Buffer }> = {};
  before(async () => {
    bodies['/gzip-bomb'] = { coding: 'gzip', body: gzipBomb(256) };
    bodies['/deflate-bomb'] = { coding: 'deflate', body: deflateBomb(256) };
    bodies['/raw-deflate-bomb'] = { coding: 'deflate', body: rawDeflateBomb(256) };
    bodies['/br-bomb'] = { coding: 'br', body: await brotliBomb(16) };
    const json = Buffer.from('{"ok":true}');
    bodies['/gzip'] = { coding: 'gzip', body: gzipSync(json) };
    bodies['/deflate'] = { coding: 'deflate', body: deflateSync(json) };
    bodies['/raw-deflate'] = { coding: 'deflate', body: deflateRawSync(json) };
    bodies['/br'] = { coding: 'br', body: brotliCompressSync(json) };
    bodies['/exact'] = { body: Buffer.alloc(1024, 0x61) };
    bodies['/exact-gzip'] = { coding: 'gzip', body: gzipSync(Buffer.alloc(1024, 0x61)) };
    bodies['/over-gzip'] = { coding: 'gzip', body: gzipSync(Buffer.alloc(1025, 0x61)) };
    server = createServer((req, res) => {
      const path = req.url!;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      const fixed = bodies[path];
      if (fixed) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': fixed.body.length, ...(fixed.coding ? { 'content-encoding': fixed.coding } : {}) });
        return void res.end(fixed.body);
      }
      // 64 MiB streamed 1 MiB at a time, as fast as the client reads: with a Content-Length (/declared) or chunked (/chunked).
      res.writeHead(200, { 'content-type': 'text/calendar', ...(path === '/declared' ? { 'content-length': 64 * MIB } : {}) });
      let count = 0;
      const chunk = Buffer.alloc(MIB, 0x61);
      const more = () => {
        while (count < 64 && !res.destroyed) {
          count++;
          sent.set(path, (sent.get(path) ?? 0) + MIB);
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (count = 64));
      more();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  const limitNamed = /: the answer.* is larger than the import limit, 10 MiB \(IMPORT_MAX_BYTES\); the import stopped\. Raise IMPORT_MAX_BYTES if the source is right\./;

  for (const [path, why] of [
    ['/gzip-bomb', /the answer, once its gzip coding is undone,/],
    ['/deflate-bomb', /the answer, once its deflate coding is undone,/],
    ['/raw-deflate-bomb', /the answer, once its deflate coding is undone,/],
    ['/br-bomb', /the answer, once its br coding is undone,/],
    ['/declared', /the answer \(its Content-Length: 67108864 bytes\)/],
    ['/chunked', /GET http:\/\/127\.0\.0\.1:\d+\/chunked: the answer is larger/],
  ] as const) {
    it(`${path}: fails at once with the limit named, the loop never held 100 ms, the memory bounded`, async () => {
      const source = createSource({ retries: 3, retryDelayMs: 1, allowPrivate: true });
      for (const read of [() => source.getText(`${origin}${path}`), () => source.getJson(`${origin}${path}`)]) {
        requests.clear();
        global.gc?.();
        const ping = startLoopPing();
        const err = await read().then(
          () => undefined,
          (e: unknown) => e,
        );
        const { heldMs, cpuHeldMs, rssGrowthMiB } = ping.stop();
        // The loop's own CPU time during its longest hold (a loaded host delays the timer without that).
        assert.ok(cpuHeldMs < 100, `the loop was held ${cpuHeldMs.toFixed(0)} ms (CPU; ${heldMs.toFixed(0)} ms of wall clock)`);
        assert.ok(rssGrowthMiB < 200, `RSS grew ${rssGrowthMiB.toFixed(0)} MiB`);
        assert.ok(err instanceof TooLargeError && err instanceof ImportError, String(err));
        assert.match((err as Error).message, limitNamed);
        assert.match((err as Error).message, why);
        assert.equal(requests.get(path), 1, 'not retried');
      }
      // A streamed answer is cut short: far less than its 64 MiB was sent.
      if (sent.has(path)) assert.ok(sent.get(path)! < 40 * MIB, `${sent.get(path)! / MIB} MiB sent`);
    });
  }

  it('a Content-Length over the limit is refused before the body is read', async () => {
    sent.delete('/declared');
    const source = createSource({ retries: 0, retryDelayMs: 1, allowPrivate: true, maxBytes: MIB });
    await assert.rejects(source.getText(`${origin}/declared`), /the answer \(its Content-Length: 67108864 bytes\) is larger than the import limit, 1 MiB/);
    // What the kernel's buffers took before the connection closed, not the 64 MiB.
    assert.ok(sent.get('/declared')! <= 16 * MIB, `${sent.get('/declared')! / MIB} MiB sent`);
  });

  it('answers within the limit decode as before: gzip, deflate (zlib and raw), br; the limit itself is allowed', async () => {
    const source = createSource({ retries: 0, retryDelayMs: 1, allowPrivate: true, maxBytes: 1024 });
    for (const path of ['/gzip', '/deflate', '/raw-deflate', '/br']) assert.deepEqual((await source.getJson(`${origin}${path}`)).body, { ok: true }, path);
    assert.equal((await source.getText(`${origin}/exact`)).length, 1024);
    assert.equal((await source.getText(`${origin}/exact-gzip`)).length, 1024);
    await assert.rejects(source.getText(`${origin}/over-gzip`), /once its gzip coding is undone, is larger than the import limit, 1 KiB/);
  });
});
