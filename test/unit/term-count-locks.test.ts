/**
 * Issue 24: a term's count set from its links must see every write that moved it before. Two
 * writes unpublish two events of one category at the same time: on PostgreSQL the first counted
 * the links while the second had not committed, and its count (1) overwrote the second's, which
 * had counted the first's event as still published (1): the category said 1 where 0 published
 * events link it. Counts made from links are now made at the transaction's end under the terms'
 * row locks (`noteTermRecount`, change-notes.ts), so the second counts after the first commits.
 *
 * The first write is held open after its recount until the second has finished (or has waited
 * a moment: without the fix on PostgreSQL it waits for the first's row lock; on SQLite writes run
 * one after the other anyway), then both commit; the count is compared with the links.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { addTermCounts } from '../../src/store/change-notes.js';
import { writeTransaction } from '../../src/store/changes.js';
import { openStore, type Store } from '../../src/store/db.js';
import { updatePost } from '../../src/store/posts.js';
import { recountTerms } from '../../src/store/terms.js';
import { STORES } from '../support/harness.js';
import { writeCommitCountersOf } from '../../src/metrics.js';

for (const kind of STORES) {
  describe(`term counts made from links see concurrent writes [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    let admin: Awaited<ReturnType<Services['users']['authenticate']>>;

    before(async () => {
      const schema = kind.name === 'postgres' ? `t_tcl_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 4 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      admin = await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64'));
    });
    after(async () => {
      await store.close();
    });

    async function stored(termId: number): Promise<{ count: number; linked: number }> {
      const r = await sql<{ count: number | string; linked: number | string }>`select t.count,
        (select count(*) from event_terms et join posts p on p.id = et.event_id where et.term_id = t.id and p.status = 'publish' and p.type = 'tribe_events') as linked
        from terms t where t.id = ${termId}`.execute(store.db);
      return { count: Number(r.rows[0]!.count), linked: Number(r.rows[0]!.linked) };
    }

    async function twoEvents(name: string): Promise<{ term: number; events: number[] }> {
      const events: number[] = [];
      for (const n of [1, 2]) {
        const e = await services.events.create(admin, { title: `${name} ${n}`, status: 'publish', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00', categories: [name] });
        events.push(Number(e.id));
      }
      const [{ id }] = (await sql<{ id: number }>`select id from terms where name = ${name}`.execute(store.db)).rows as [{ id: number }];
      assert.deepEqual(await stored(Number(id)), { count: 2, linked: 2 });
      return { term: Number(id), events };
    }

    /**
     * Run `first` as a write transaction held open after its work until `second` (another write)
     * has finished (or has waited a moment for it), then committed.
     */
    async function interleaved(first: (trx: Parameters<Parameters<typeof writeTransaction>[1]>[0]) => Promise<void>, second: () => Promise<unknown>): Promise<void> {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let firstDone!: () => void;
      const firstReady = new Promise<void>((r) => (firstDone = r));
      const a = writeTransaction(store.db, async (trx) => {
        await first(trx);
        firstDone();
        await gate;
      });
      await Promise.race([firstReady, a]);
      // On SQLite the second write queues behind the first (one writer at a time): it finishes after it.
      const b = second();
      await Promise.race([b.catch(() => {}), new Promise((r) => setTimeout(r, 300))]);
      release();
      await Promise.all([a, b]);
    }

    const unpublish = (event: number, term: number) => async (trx: Parameters<Parameters<typeof writeTransaction>[1]>[0]) => {
      await updatePost(trx, event, { status: 'draft' });
      await recountTerms(trx, [term]);
    };

    it('two writes unpublishing two events of one category leave its count 0', async () => {
      const { term, events } = await twoEvents('Locked recount');
      await interleaved(unpublish(events[0]!, term), () => writeTransaction(store.db, unpublish(events[1]!, term)));
      assert.deepEqual(await stored(term), { count: 0, linked: 0 });
    });

    it('a recount and a concurrent published create of the category (its count moved by one) leave the count exact', async () => {
      const { term, events } = await twoEvents('Recount and create');
      await interleaved(unpublish(events[0]!, term), () =>
        services.events.create(admin, { title: 'One more', status: 'publish', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00', categories: [term] }),
      );
      assert.deepEqual(await stored(term), { count: 2, linked: 2 });
    });

    it('a recount after a move of the same term in one transaction counts the linked event once', async () => {
      const { term, events } = await twoEvents('Move then recount');
      await writeTransaction(store.db, async (trx) => {
        // A move noted first (a published occurrence linked), then a recount of the same term:
        // the recount sees the link, so the move must not be added on top.
        await sql`delete from event_terms where event_id = ${events[1]!} and term_id = ${term}`.execute(trx);
        await sql`insert into event_terms (event_id, term_id) values (${events[1]!}, ${term})`.execute(trx);
        await addTermCounts(trx, [term], 1);
        await recountTerms(trx, [term]);
      });
      assert.deepEqual(await stored(term), { count: 2, linked: 2 });
      if (kind.name === 'postgres') assert.equal(writeCommitCountersOf(store.db).retries['40P01'] ?? 0, 0, 'no deadlock');
    });
  });
}
