/**
 * Limits outside the submissions that had no test under concurrency (the table of every limit is
 * in docs/security.md, "Limits under concurrency"): the REST rate limit under 20 parallel requests,
 * by IPv6 /64 too, and across two instances on one database (grants taken from the database:
 * docs/security.md "Rate limits"), and the
 * import queue, whose queued import is claimed by exactly one of 20 claims made at once from two
 * store handles on one database (two instances).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { STORES, startServer, startTwoInstances } from '../support/harness.js';
import { clearOfWindowEnd } from '../support/rate-window.js';
import { openStore, type Store } from '../../src/store/db.js';
import { claimNextImport, insertImport } from '../../src/store/imports.js';

const count = (answers: Array<{ status: number }>, status: number) => answers.filter((a) => a.status === status).length;
const statuses = (answers: Array<{ status: number }>) => answers.map((a) => a.status).sort((x, y) => x - y);

for (const kind of STORES) {
  describe(`the REST rate limit under concurrency [${kind.name}]`, () => {
    it('20 requests at once from one client with RATE_LIMIT_MAX=5: exactly 5 answered, 15 refused 429', async () => {
      await clearOfWindowEnd(60, 15_000);
      const t = await startServer(kind, { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '1m' });
      try {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api.get('/events', { query: { search: `x${i}` } })));
        assert.equal(count(answers, 200), 5, statuses(answers).join(','));
        assert.equal(count(answers, 429), 15);
        for (const r of answers.filter((x) => x.status === 429)) assert.equal(r.body.code, 'rest_too_many_requests');
      } finally {
        await t.close();
      }
    });

    it('IPv6 clients count by /64: 20 requests at once from addresses of one /64 share a budget, another /64 has its own', async () => {
      await clearOfWindowEnd(60, 15_000);
      const t = await startServer(kind, { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '1m', TRUST_PROXY: 'true' });
      try {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api.get('/events', { headers: { 'x-forwarded-for': `2001:db8:5:5::${(i + 1).toString(16)}` } })));
        assert.equal(count(answers, 200), 5, statuses(answers).join(','));
        assert.equal((await t.api.get('/events', { headers: { 'x-forwarded-for': '2001:db8:5:5:ffff::1' } })).status, 429, 'the same /64');
        assert.equal((await t.api.get('/events', { headers: { 'x-forwarded-for': '2001:db8:5:6::1' } })).status, 200, 'the next /64');
      } finally {
        await t.close();
      }
    });

    it('two instances on one database share the limit: 16 requests at once split over both with RATE_LIMIT_MAX=10, exactly 10 answered', async () => {
      await clearOfWindowEnd(3600, 30_000);
      const { a, b, close } = await startTwoInstances(kind, 'rate-two', { RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW: '1h', TRUST_PROXY: 'true' });
      try {
        const from = { 'x-forwarded-for': '203.0.113.50' };
        // Kept answers (replayed without Fastify) count too: the same read over and over.
        const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? b : a).api.get('/events', { headers: from })));
        assert.equal(count(answers, 200), 10, statuses(answers).join(','));
        assert.equal(count(answers, 429), 6);
        for (const t of [a, b]) assert.equal((await t.api.get('/events', { headers: from })).status, 429, 'then refused on both');
        assert.equal((await b.api.get('/events', { headers: { 'x-forwarded-for': '203.0.113.51' } })).status, 200, 'another client has its own');
      } finally {
        await close();
      }
    });

    it('two instances, one after the other: a larger limit (200) spent in turns never goes past it, nor far below', async () => {
      await clearOfWindowEnd(3600, 30_000);
      const { a, b, close } = await startTwoInstances(kind, 'rate-turns', { RATE_LIMIT_MAX: '200', RATE_LIMIT_WINDOW: '1h', TRUST_PROXY: 'true' });
      try {
        const from = { 'x-forwarded-for': '203.0.113.60' };
        let ok = 0;
        // Bursts of 10 to one instance, then the other, as a load balancer might.
        for (let round = 0; round < 26; round++) {
          const t = round % 2 ? b : a;
          const answers = await Promise.all(Array.from({ length: 10 }, () => t.api.get('/events', { headers: from })));
          ok += count(answers, 200);
        }
        assert.ok(ok <= 200, `${ok} answered`);
        assert.ok(ok >= 190, `${ok} answered: at most a few held by the other instance`);
      } finally {
        await close();
      }
    });
  });
}

for (const kind of STORES) {
  describe(`the import queue under concurrency [${kind.name}]`, () => {
    it('20 claims at once from two instances on one database: each queued import is claimed once', async () => {
      let dir: string | undefined;
      let url = kind.url;
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'import-claims-'));
        url = `sqlite:${join(dir, 'calendar.db')}`;
      }
      const schema = kind.name === 'postgres' ? `t_${process.pid}_claims_${randomBytes(3).toString('hex')}` : undefined;
      const a: Store = await openStore(url, { schema, dropSchemaOnClose: true, poolSize: 4 });
      const b: Store = await openStore(url, { schema, poolSize: 4 });
      try {
        const ids: number[] = [];
        for (let i = 0; i < 3; i++) {
          ids.push(
            await insertImport(a.db, {
              kind: 'ics',
              source: `q${i}.ics`,
              options: JSON.stringify({ status: 'publish', strict: false, dry_run: false }),
              upload: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n',
              user_id: 1,
              created_gmt: '2026-01-01 00:00:00',
            }),
          );
        }
        const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => claimNextImport((i % 2 ? b : a).db, '2026-01-01 00:00:01')));
        const claimed = claims.filter((c) => c !== undefined).map((c) => Number(c!.id));
        assert.deepEqual(
          [...claimed].sort((x, y) => x - y),
          ids,
          'each import claimed once',
        );
      } finally {
        await b.close();
        await a.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
