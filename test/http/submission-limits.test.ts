/**
 * The limits of community submissions hold under concurrency and across instances: the
 * per-address and per-e-mail limits are one atomic count-and-reserve (20 submissions sent at once
 * with a limit of 2: exactly 2 accepted, on one instance and spread over two on one database), a
 * proof-of-work solution is accepted once (sent 20 times at once, and again on a second instance),
 * and IPv6 client addresses count by their /64 (as the login throttle and the REST rate limit
 * count them); the retention job deletes what the limits no longer need.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { solveChallenge } from 'altcha-lib/v1';
import { STORES, startServer, startTwoInstances, type TestServer } from '../support/harness.js';
import { EVENT, MOD, OPEN, SUB, submit } from '../support/submissions.js';

const statuses = (answers: Array<{ status: number }>) => answers.map((a) => a.status).sort((x, y) => x - y);
const count = (answers: Array<{ status: number }>, status: number) => answers.filter((a) => a.status === status).length;

async function solved(t: TestServer): Promise<string> {
  const c = (await t.api.get(`${SUB}/challenge`)).body as { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string };
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  assert.ok(solution);
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature })).toString('base64');
}

/** 20 submissions at once, the i-th to `servers[i % servers.length]`, each with `vary(i)`'s body and headers. */
async function twenty(servers: TestServer[], vary: (i: number) => { body?: Record<string, unknown>; headers?: Record<string, string> }) {
  return Promise.all(
    Array.from({ length: 20 }, (_, i) => {
      const { body = {}, headers = {} } = vary(i);
      return submit(servers[i % servers.length]!, { ...EVENT, title: `Party ${i}`, ...body }, headers);
    }),
  );
}

function assertLimited(answers: Array<{ status: number; body: any; headers: Headers }>, accepted: number, refusal: { status: number; code: string }) {
  assert.equal(count(answers, 201), accepted, `exactly ${accepted} accepted: ${statuses(answers).join(',')}`);
  const refused = answers.filter((a) => a.status !== 201);
  assert.equal(refused.length, answers.length - accepted);
  for (const r of refused) {
    assert.equal(r.status, refusal.status, JSON.stringify(r.body));
    assert.equal(r.body.code, refusal.code);
    assert.equal(r.body.data.status, refusal.status);
    if (refusal.status === 429) assert.ok(Number(r.headers.get('retry-after')) > 0);
  }
}

for (const kind of STORES) {
  describe(`submission limits under concurrency [${kind.name}]`, () => {
    it('20 submissions at once from one address with a limit of 2 per address: exactly 2 accepted, the rest 429', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_MAX_PER_ADDRESS: '2' });
      try {
        const answers = await twenty([t], (i) => ({ body: { email: `p${i}@example.org` } }));
        assertLimited(answers, 2, { status: 429, code: 'submission_rate_limited' });
        // Nothing of the refused ones was written: two submissions, two events.
        const queue = await t.api.get(`${MOD}/submissions`, { as: 'admin', query: { status: 'any' } });
        assert.equal(queue.headers.get('x-tec-total'), '2');
        const events = await t.api.get('/events', { as: 'admin', query: { status: 'pending', per_page: 50, end_date: '2040-01-01' } });
        assert.equal(events.body.total, 2);
      } finally {
        await t.close();
      }
    });

    it('20 submissions at once with one e-mail address from 20 addresses, a limit of 2 per e-mail: exactly 2 accepted', async () => {
      const t = await startServer(kind, { ...OPEN, TRUST_PROXY: 'true', SUBMISSIONS_MAX_PER_EMAIL: '2' });
      try {
        const answers = await twenty([t], (i) => ({ body: { email: i % 2 ? 'Same@Example.org' : 'same@example.org' }, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } }));
        assertLimited(answers, 2, { status: 429, code: 'submission_rate_limited' });
      } finally {
        await t.close();
      }
    });

    it('a failed submission frees its place: invalid fields after the limit check do not count', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_MAX_PER_ADDRESS: '2' });
      try {
        // Refused by the event's own checks, after the places were taken: each gives its place back.
        for (let i = 0; i < 5; i++) {
          const bad = await submit(t, { ...EVENT, start_date: 'not a date' });
          assert.equal(bad.status, 400, bad.text);
        }
        assert.equal((await submit(t)).status, 201);
        assert.equal((await submit(t)).status, 201);
        assert.equal((await submit(t)).status, 429);
      } finally {
        await t.close();
      }
    });

    it('IPv6 addresses count by /64: two in one /64 share the limit, another /64 has its own; moderators see the address as sent', async () => {
      const t = await startServer(kind, { ...OPEN, TRUST_PROXY: 'true', SUBMISSIONS_MAX_PER_ADDRESS: '2' });
      try {
        const from = (ip: string, email: string) => submit(t, { ...EVENT, email }, { 'x-forwarded-for': ip });
        assert.equal((await from('2001:db8:7:1::1', 'a@example.org')).status, 201);
        assert.equal((await from('2001:db8:7:1:ffff:ffff:ffff:fffe', 'b@example.org')).status, 201);
        const third = await from('2001:db8:7:1:1234::9', 'c@example.org');
        assert.equal(third.status, 429, 'the same /64');
        assert.equal(third.body.code, 'submission_rate_limited');
        assert.equal((await from('2001:db8:7:2::1', 'd@example.org')).status, 201, 'the next /64');
        assert.equal((await from('2001:db8:7:2::2', 'e@example.org')).status, 201);
        assert.equal((await from('2001:db8:7:2::3', 'f@example.org')).status, 429);
        // An IPv4-mapped IPv6 address is its IPv4 address.
        assert.equal((await from('192.0.2.9', 'g@example.org')).status, 201);
        assert.equal((await from('::ffff:192.0.2.9', 'h@example.org')).status, 201);
        assert.equal((await from('192.0.2.9', 'i@example.org')).status, 429);
        const queue = (await t.api.get(`${MOD}/submissions`, { as: 'admin', query: { status: 'any', email: 'b@example.org' } })).body as any[];
        assert.equal(queue[0].submitter.ip, '2001:db8:7:1:ffff:ffff:ffff:fffe');
      } finally {
        await t.close();
      }
    });

    it('the same proof-of-work solution sent 20 times at once is accepted once', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_POW: 'on', SUBMISSIONS_POW_MAX_NUMBER: '2000' });
      try {
        const altcha = await solved(t);
        const answers = await twenty([t], (i) => ({ body: { altcha, email: `w${i}@example.org` } }));
        assertLimited(answers, 1, { status: 400, code: 'submission_pow_required' });
      } finally {
        await t.close();
      }
    });

    it('the retention job deletes places older than the window and solutions whose challenge expired, and only those', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_POW: 'on', SUBMISSIONS_POW_MAX_NUMBER: '2000', SUBMISSIONS_MAX_PER_ADDRESS: '5', SUBMISSIONS_MAX_PER_EMAIL: '5' });
      try {
        assert.equal((await submit(t, { ...EVENT, altcha: await solved(t) })).status, 201);
        const db = t.built.store.db;
        const rows = async () => ({
          quota: Number(
            (
              await db
                .selectFrom('submission_quota')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
          pow: Number(
            (
              await db
                .selectFrom('submission_pow_used')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        });
        assert.deepEqual(await rows(), { quota: 2, pow: 1 }, 'a place per limit, the solution');
        await t.built.services.submissions.eraseExpired(new Date(Date.now() + 5 * 60_000));
        assert.deepEqual(await rows(), { quota: 2, pow: 1 }, 'still in the window, the challenge not yet expired');
        await t.built.services.submissions.eraseExpired(new Date(Date.now() + 11 * 60_000));
        assert.deepEqual(await rows(), { quota: 2, pow: 0 }, 'the challenge expired');
        await t.built.services.submissions.eraseExpired(new Date(Date.now() + 61 * 60_000));
        assert.deepEqual(await rows(), { quota: 0, pow: 0 }, 'out of the window');
      } finally {
        await t.close();
      }
    });

    it('two instances on one database: the limits and a proof-of-work solution hold across them', async () => {
      const env = { ...OPEN, TRUST_PROXY: 'true', SUBMISSIONS_POW: 'on', SUBMISSIONS_POW_MAX_NUMBER: '2000', SUBMISSIONS_MAX_PER_ADDRESS: '2', SUBMISSIONS_MAX_PER_EMAIL: '2' };
      const { a, b, close } = await startTwoInstances(kind, 'submission-limits', env);
      try {
        // A solution used on one instance is refused on the other.
        const used = await solved(a);
        assert.equal((await submit(a, { ...EVENT, altcha: used, email: 'x1@example.org' }, { 'x-forwarded-for': '203.0.113.1' })).status, 201);
        const again = await submit(b, { ...EVENT, altcha: used, email: 'x2@example.org' }, { 'x-forwarded-for': '203.0.113.2' });
        assert.equal(again.status, 400);
        assert.equal(again.body.code, 'submission_pow_required');
        // One solution sent 20 times at once, half to each instance: accepted once.
        const once = await solved(b);
        assertLimited(await twenty([a, b], (i) => ({ body: { altcha: once, email: `y${i}@example.org` }, headers: { 'x-forwarded-for': `203.0.113.${10 + i}` } })), 1, {
          status: 400,
          code: 'submission_pow_required',
        });
        // 20 submissions at once from one address, half to each instance, each with its own solution: 2 accepted.
        const solutions = await Promise.all(Array.from({ length: 20 }, (_, i) => solved(i % 2 ? b : a)));
        assertLimited(await twenty([a, b], (i) => ({ body: { altcha: solutions[i], email: `z${i}@example.org` }, headers: { 'x-forwarded-for': '2001:db8:9:9::1' } })), 2, {
          status: 429,
          code: 'submission_rate_limited',
        });
        // And one e-mail address from 20 addresses: 2 accepted.
        const more = await Promise.all(Array.from({ length: 20 }, (_, i) => solved(i % 2 ? b : a)));
        assertLimited(await twenty([a, b], (i) => ({ body: { altcha: more[i], email: 'one@example.org' }, headers: { 'x-forwarded-for': `198.51.100.${50 + i}` } })), 2, {
          status: 429,
          code: 'submission_rate_limited',
        });
      } finally {
        await close();
      }
    });
  });
}
