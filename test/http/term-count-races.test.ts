/**
 * Term counts stay exact under concurrent writes (issue 24: after 1,475 mixed concurrent
 * operations on PostgreSQL one category's `count` said 84 where 83 published events linked it).
 * Eight clients race creates (published and drafts, terms by id and by name), updates (status
 * publish <-> draft, term changes, titles), trashes, restores, term renames and deletes of terms
 * in use, with a fixed seed; afterwards every term's `count`, as stored and as the API answers it
 * (kept term rows, adjusted by the change feed), equals the number of published events linked to
 * it (`tribe_events` posts with status `publish`: what counts, see docs/performance.md "The store", recurring
 * events). Both stores; SQLite runs the writes one after another, PostgreSQL at the same time.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { forEachStore, type ApiResponse, type TestServer } from '../support/harness.js';
import { prng as random } from '../../src/seed/common.js';

const CLIENTS = 8;
const OPERATIONS_PER_CLIENT = 60;

interface Mismatch {
  id: number;
  name: string;
  stored: number;
  answered: number | undefined;
  linked: number;
}

/** Every term whose stored or answered count differs from the published events linked to it. */
async function countMismatches(t: TestServer): Promise<{ mismatches: Mismatch[]; terms: number; linkedTotal: number }> {
  const rows = await sql<{ id: number | string; name: string; count: number | string; linked: number | string }>`
    select t.id, t.name, t.count,
      (select count(*) from event_terms et join posts p on p.id = et.event_id where et.term_id = t.id and p.status = 'publish' and p.type = 'tribe_events') as linked
    from terms t order by t.id`.execute(t.built.store.db);
  const answered = new Map<number, number>();
  for (const taxonomy of ['categories', 'tags'] as const) {
    const res = await t.api.get(`/${taxonomy}`, { query: { hide_empty: 'false', per_page: 100 } });
    assert.equal(res.status, 200);
    for (const term of res.body[taxonomy] as Array<{ id: number; count: number }>) answered.set(term.id, term.count);
  }
  const mismatches: Mismatch[] = [];
  let linkedTotal = 0;
  for (const r of rows.rows) {
    const id = Number(r.id);
    const m = { id, name: r.name, stored: Number(r.count), answered: answered.get(id), linked: Number(r.linked) };
    linkedTotal += m.linked;
    if (m.stored !== m.linked || m.answered !== m.linked) mismatches.push(m);
  }
  return { mismatches, terms: rows.rows.length, linkedTotal };
}

forEachStore(
  'term counts under concurrent writes',
  (t) => {
    it(`${CLIENTS} clients × ${OPERATIONS_PER_CLIENT} mixed operations leave every term's count equal to its published events`, async () => {
      const categories: number[] = [];
      const tags: number[] = [];
      for (let i = 0; i < 6; i++) categories.push((await t.api.post('/categories', { as: 'admin', json: { name: `Counted category ${i}` } })).body.id);
      for (let i = 0; i < 4; i++) tags.push((await t.api.post('/tags', { as: 'admin', json: { name: `Counted tag ${i}` } })).body.id);
      /** Terms that may be deleted during the run (events link them too). */
      const doomed: number[] = [];
      for (let i = 0; i < 4; i++) doomed.push((await t.api.post('/categories', { as: 'admin', json: { name: `Doomed category ${i}` } })).body.id);
      const events: number[] = [];
      const seedRnd = random(2024);
      const pickFrom = (rnd: () => number, list: readonly number[], most: number) => {
        const n = 1 + Math.floor(rnd() * most);
        return [...new Set(Array.from({ length: n }, () => list[Math.floor(rnd() * list.length)]!))];
      };
      for (let i = 0; i < 16; i++) {
        const res = await t.api.post('/events', {
          as: 'admin',
          json: {
            title: `Seeded ${i}`,
            status: i % 3 === 0 ? 'draft' : 'publish',
            start_date: '2030-06-01 10:00',
            end_date: '2030-06-01 12:00',
            categories: pickFrom(seedRnd, categories, 3),
            tags: pickFrom(seedRnd, tags, 2),
          },
        });
        assert.equal(res.status, 201);
        events.push(res.body.id);
      }

      const answers = new Map<string, number>();
      const note = (op: string, res: ApiResponse) => {
        const key = `${op} ${res.status}${res.status >= 400 ? ` ${res.body?.code}` : ''}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      };
      const client = async (c: number) => {
        const rnd = random(1000 + c);
        const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
        const termsOf = () => ({ categories: [...pickFrom(rnd, categories, 2), ...(rnd() < 0.3 ? [pick(doomed)] : [])], tags: pickFrom(rnd, tags, 2) });
        for (let n = 0; n < OPERATIONS_PER_CLIENT; n++) {
          const r = rnd();
          if (r < 0.25) {
            // A create: published or a draft; sometimes naming a term (one that exists, or a new one).
            const terms = termsOf();
            const named = rnd() < 0.2 ? [rnd() < 0.5 ? 'Counted category 1' : `Named in race ${Math.floor(rnd() * 3)}`] : [];
            const res = await t.api.post('/events', {
              as: 'admin',
              json: {
                title: `Race ${c}.${n}`,
                status: rnd() < 0.7 ? 'publish' : 'draft',
                start_date: '2030-06-02 10:00',
                end_date: '2030-06-02 12:00',
                categories: [...terms.categories, ...named],
                tags: terms.tags,
              },
            });
            note('create', res);
            if (res.status === 201) events.push(res.body.id);
          } else if (r < 0.5) {
            // An update: status publish <-> draft, terms, or both, or only the title.
            const id = pick(events);
            const json: Record<string, unknown> = {};
            const kind = rnd();
            if (kind < 0.4) json.status = rnd() < 0.5 ? 'publish' : 'draft';
            if (kind >= 0.25 && kind < 0.85) Object.assign(json, termsOf());
            if (kind >= 0.85) json.title = `Renamed ${c}.${n}`;
            note('update', await t.api.post(`/events/${id}`, { as: 'admin', json }));
          } else if (r < 0.65) {
            note('trash', await t.api.delete(`/events/${pick(events)}`, { as: 'admin' }));
          } else if (r < 0.8) {
            // A restore: a trashed event published (or made a draft) again; others are just updated.
            note('restore', await t.api.post(`/events/${pick(events)}`, { as: 'admin', json: { status: rnd() < 0.7 ? 'publish' : 'draft' } }));
          } else if (r < 0.9) {
            note('rename term', await t.api.post(`/categories/${pick(categories)}`, { as: 'admin', json: { description: `Described ${c}.${n}` } }));
          } else if (r < 0.93) {
            note('delete term', await t.api.delete(`/categories/${pick(doomed)}`, { as: 'admin', query: { force: 'true' } }));
          } else {
            // Reads in between (they keep term rows and representations, which writes must adjust).
            note('read', await t.api.get(`/events/${pick(events)}`));
            note('read', await t.api.get('/categories', { query: { hide_empty: 'false', per_page: 100 } }));
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

      const failures = [...answers].filter(([key]) => / 5\d\d/.test(key));
      assert.deepEqual(failures, [], `no write answered 5xx: ${JSON.stringify(Object.fromEntries(answers))}`);
      const { mismatches, terms, linkedTotal } = await countMismatches(t);
      assert.deepEqual(mismatches, [], `answers: ${JSON.stringify(Object.fromEntries(answers))}`);
      // Every writer takes the term rows in id order, then the log's counter: no deadlock to retry.
      const metrics = await fetch(`${t.origin}/metrics`).then((r) => r.text());
      assert.doesNotMatch(metrics, /calendar_write_retries_total\{code="40P01"\} [1-9]/);
      // The run did something: terms in use and published events linking them.
      assert.ok(terms >= 10 && linkedTotal > 20, `terms ${terms}, published links ${linkedTotal}`);
    });
  },
  { RATE_LIMIT_MAX: '0' },
);
