/**
 * Issue 44: URL imports are bounded. A loopback source answers a gzip bomb (259 KiB that inflate
 * to 256 MiB), a body over the limit with a Content-Length, and a chunked one without; each import
 * fails with the limit named (IMPORT_MAX_BYTES, 10 MiB by default): in the import's history and
 * its own answer through the admin API (ics by URL, and a tec site), and in the CLI's exit message
 * (`import ics URL`, `import tec --from URL`, exit 1). While the admin API's import runs in the
 * server's process, its event loop is never held 100 ms (its thread's CPU time; a ping every 5 ms)
 * and its RSS does not jump (the same bomb read whole held the loop 12-42 s and added 1.5 GB).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, STORES, type TestServer } from '../support/harness.js';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { gzipBomb } from '../support/bombs.js';
import { startLoopPing } from '../support/loop-ping.js';

const A = '/api/calendar/admin/v1';
const MIB = 1024 * 1024;
const LIMIT_NAMED = /is larger than the import limit, 10 MiB \(IMPORT_MAX_BYTES\); the import stopped\. Raise IMPORT_MAX_BYTES if the source is right\./;

/** A source that answers too much: a gzip bomb (/bomb.ics and every path under /wp-json), 64 MiB declared (/declared.ics) or chunked (/chunked.ics). */
async function hostileSource(): Promise<{ server: Server; origin: string }> {
  const bomb = gzipBomb(256);
  const chunk = Buffer.alloc(MIB, 0x61);
  const server = createServer((req, res) => {
    const path = req.url!;
    if (path === '/bomb.ics' || path.startsWith('/wp-json')) {
      res.writeHead(200, { 'content-type': path.endsWith('.ics') ? 'text/calendar' : 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      return void res.end(bomb);
    }
    res.writeHead(200, { 'content-type': 'text/calendar', ...(path === '/declared.ics' ? { 'content-length': 64 * MIB } : {}) });
    let count = 0;
    const more = () => {
      while (count < 64 && !res.destroyed) {
        count++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('close', () => (count = 64));
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** Poll an import until it ends. */
async function until(t: TestServer, id: number): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const res = await t.api.get(`${A}/imports/${id}`, { as: 'admin' });
    assert.equal(res.status, 200, res.text);
    if (res.body.status === 'done' || res.body.status === 'failed') return res.body;
    await sleep(50);
  }
  throw new Error(`import ${id} did not end`);
}

let source: { server: Server; origin: string };
before(async () => {
  source = await hostileSource();
});
after(() => source.server.close());

for (const kind of STORES) {
  describe(`import limits through the admin API [${kind.name}]`, () => {
    let t: TestServer;
    before(async () => {
      t = await startServer(kind, { WEBHOOKS_ALLOW_PRIVATE: 'true' });
    });
    after(async () => {
      await t?.close();
    });

    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['an .ics URL answering a gzip bomb (259 KiB -> 256 MiB)', { url: '/bomb.ics' }, /\/bomb\.ics: the answer, once its gzip coding is undone, is larger/],
      ['an .ics URL answering a Content-Length over the limit', { url: '/declared.ics' }, /\/declared\.ics: the answer \(its Content-Length: 67108864 bytes\) is larger/],
      ['an .ics URL answering a chunked body over the limit', { url: '/chunked.ics' }, /\/chunked\.ics: the answer is larger/],
      ['a tec site answering a gzip bomb', { type: 'tec', from: '/wp-json' }, /\/wp-json\/tribe\/events\/v1: the answer, once its gzip coding is undone, is larger/],
    ];
    for (const [name, body, where] of cases) {
      it(`${name}: the import fails with the limit named; the loop never held 100 ms, RSS bounded`, async () => {
        const json = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' && v.startsWith('/') ? source.origin + v : v]));
        global.gc?.();
        const ping = startLoopPing();
        const res = await t.api.post(`${A}/imports`, { as: 'admin', json });
        assert.equal(res.status, 202, res.text);
        const final = await until(t, res.body.id);
        const { heldMs, cpuHeldMs, rssGrowthMiB } = ping.stop();
        console.log(`  ${name}: longest loop hold ${cpuHeldMs.toFixed(0)} ms CPU (${heldMs.toFixed(0)} ms wall clock), RSS growth ${rssGrowthMiB.toFixed(0)} MiB`);
        assert.ok(cpuHeldMs < 100, `the server's loop was held ${cpuHeldMs.toFixed(0)} ms (CPU; ${heldMs.toFixed(0)} ms of wall clock)`);
        assert.ok(rssGrowthMiB < 200, `RSS grew ${rssGrowthMiB.toFixed(0)} MiB`);
        assert.equal(final.status, 'failed', JSON.stringify(final));
        assert.match(final.error, LIMIT_NAMED);
        assert.match(final.error, where);
        // The history (the list of imports) says the same.
        const history = await t.api.get(`${A}/imports`, { as: 'admin' });
        const listed = history.body.find((i: { id: number }) => i.id === res.body.id);
        assert.equal(listed.status, 'failed');
        assert.match(listed.error, LIMIT_NAMED);
      });
    }
  });

  describe(`import limits through the CLI [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-import-limits-'));
    let target: { server: TestServer; url: string };
    before(async () => {
      target = await cliTarget(kind, dir, 'limits');
    });
    after(async () => {
      await target?.server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const runs: Array<[string, () => string[], RegExp]> = [
      ['import ics URL (a gzip bomb)', () => ['import', 'ics', `${source.origin}/bomb.ics`], /once its gzip coding is undone/],
      ['import ics URL (chunked, over the limit)', () => ['import', 'ics', `${source.origin}/chunked.ics`], /\/chunked\.ics: the answer is larger/],
      ['import tec --from URL (a gzip bomb)', () => ['import', 'tec', '--from', `${source.origin}/wp-json`], /\/wp-json\/tribe\/events\/v1: the answer, once its gzip coding is undone/],
    ];
    for (const [name, args, where] of runs) {
      it(`${name}: exits 1 with the limit named`, async () => {
        const run = await cli([...args(), '--allow-private', '--no-progress'], cliEnv(target.url));
        assert.equal(run.code, 1, run.stderr + run.stdout);
        const line = run.stderr.split('\n').find((l) => l.startsWith('error: '));
        assert.ok(line, run.stderr);
        assert.match(line, LIMIT_NAMED);
        assert.match(line, where);
      });
    }

    it('--import-max-bytes (IMPORT_MAX_BYTES) sets the limit', async () => {
      const run = await cli(['import', 'ics', `${source.origin}/chunked.ics`, '--allow-private', '--no-progress', '--import-max-bytes', '2097152'], cliEnv(target.url));
      assert.equal(run.code, 1, run.stderr + run.stdout);
      assert.match(run.stderr, /is larger than the import limit, 2 MiB \(IMPORT_MAX_BYTES\)/);
    });
  });
}
