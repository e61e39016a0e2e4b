/**
 * Concurrent creates answer what sequential ones answer (issue 13, item 7), on both stores
 * (PostgreSQL runs them at the same time; SQLite one after the other): the same category or tag
 * name sent 20 times at once makes one term (201) and 19 `term_exists`; events with the same title
 * get distinct slugs; the same venue or organizer name makes one record that every request gets
 * (duplicate avoidance); inline venues, organizers and terms of parallel event creates too, and
 * event creates naming one new category without an inline venue (issue 24: on PostgreSQL all of
 * them succeed and share the term, as on SQLite).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { forEachStore, type ApiResponse } from '../support/harness.js';

const N = 20;

function parallel(n: number, send: (i: number) => Promise<ApiResponse>): Promise<ApiResponse[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

function statuses(responses: ApiResponse[]): string {
  const counts = new Map<string, number>();
  for (const r of responses) {
    const key = r.status < 300 ? String(r.status) : `${r.status} ${r.body?.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(', ');
}

forEachStore(
  'concurrent creates',
  (t) => {
    for (const taxonomy of ['categories', 'tags'] as const) {
      it(`${N} parallel creates of one ${taxonomy} name: one 201 and term_exists for the others`, async () => {
        const name = `Parallel ${taxonomy}`;
        const responses = await parallel(N, () => t.api.post(`/${taxonomy}`, { as: 'admin', json: { name } }));
        assert.equal(statuses(responses), `201×1, 400 term_exists×${N - 1}`);
        const created = responses.find((r) => r.status === 201)!;
        for (const r of responses.filter((r) => r.status === 400)) {
          assert.equal(r.body.data.term_id, created.body.id, 'term_exists names the created term');
        }
        const list = await t.api.get(`/${taxonomy}`, { query: { hide_empty: 'false', search: name } });
        assert.equal(list.body.total, 1);
      });
    }

    it(`${N} parallel creates of categories whose names make the same slug: ${N} terms, distinct slugs`, async () => {
      const responses = await parallel(N, (i) => t.api.post('/categories', { as: 'admin', json: { name: `Same slug${'!'.repeat(i + 1)}` } }));
      assert.equal(statuses(responses), `201×${N}`);
      assert.equal(new Set(responses.map((r) => r.body.slug)).size, N);
    });

    it(`${N} parallel event creates with one title get ${N} distinct slugs`, async () => {
      const responses = await parallel(N, () => t.api.post('/events', { as: 'admin', json: { title: 'Parallel night', start_date: '2030-03-01 20:00', end_date: '2030-03-01 23:00' } }));
      assert.equal(statuses(responses), `201×${N}`);
      const slugs = responses.map((r) => r.body.slug as string);
      assert.equal(new Set(slugs).size, N, slugs.join(' '));
      assert.ok(slugs.includes('parallel-night'));
      const rows = await sql<{ n: number | string }>`select count(distinct slug) as n from posts where type = 'tribe_events' and slug like 'parallel-night%'`.execute(t.built.store.db);
      assert.equal(Number(rows.rows[0]!.n), N);
    });

    for (const [kind, field] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      it(`${N} parallel creates of one ${field} name make one ${field}, which every request gets`, async () => {
        const name = `Parallel ${field} hall`;
        const responses = await parallel(N, () => t.api.post(`/${kind}`, { as: 'admin', json: { [field]: name } }));
        assert.equal(statuses(responses), `201×${N}`);
        assert.equal(new Set(responses.map((r) => r.body.id)).size, 1, 'one record');
        const list = await t.api.get(`/${kind}`, { query: { search: name } });
        assert.equal(list.body.total, 1);
      });
    }

    it(`${N} parallel event creates with the same inline venue, organizer, category and tag make one of each`, async () => {
      const responses = await parallel(N, (i) =>
        t.api.post('/events', {
          as: 'admin',
          json: {
            title: `Inline ${i}`,
            start_date: '2030-04-01 20:00',
            end_date: '2030-04-01 23:00',
            venue: { venue: 'Inline venue' },
            organizer: [{ organizer: 'Inline organizer' }],
            categories: ['Inline category'],
            tags: ['Inline tag', 'Second inline tag'],
          },
        }),
      );
      assert.equal(statuses(responses), `201×${N}`);
      for (const pick of [(r: ApiResponse) => r.body.venue.id, (r: ApiResponse) => r.body.organizer[0].id, (r: ApiResponse) => r.body.categories[0].id]) {
        assert.equal(new Set(responses.map(pick)).size, 1);
      }
      assert.equal(new Set(responses.flatMap((r) => r.body.tags.map((tag: { id: number }) => tag.id))).size, 2);
      const category = await t.api.get('/categories', { query: { search: 'Inline category' } });
      assert.equal(category.body.categories[0].count, N, 'the count saw every event');
    });

    // Issue 24: on PostgreSQL, eight creates naming one new category answered one 201 and seven
    // `term_exists` (each looked before the taxonomy's lock, and created after it); on SQLite the
    // second and later find the first's term. Ten races, each with names of its own.
    it('8 parallel event creates naming the same new category and tag: all 201, one term each, counted 8 times (10 races)', async () => {
      for (let race = 0; race < 10; race++) {
        const category = `Race category ${race}`;
        const tag = `Race tag ${race}`;
        const responses = await parallel(8, (i) =>
          t.api.post('/events', {
            as: 'admin',
            json: { title: `Race ${race}.${i}`, status: 'publish', start_date: '2030-05-01 20:00', end_date: '2030-05-01 22:00', categories: [category], tags: [tag] },
          }),
        );
        assert.equal(statuses(responses), '201×8', `race ${race}: ${responses.map((r) => r.body?.message ?? '').join(' | ')}`);
        assert.equal(new Set(responses.map((r) => r.body.categories[0].id)).size, 1, `race ${race}: one category`);
        assert.equal(new Set(responses.map((r) => r.body.tags[0].id)).size, 1, `race ${race}: one tag`);
        for (const [taxonomy, name] of [
          ['categories', category],
          ['tags', tag],
        ] as const) {
          const list = await t.api.get(`/${taxonomy}`, { query: { hide_empty: 'false', search: name } });
          assert.equal(list.body.total, 1, `race ${race}: one ${taxonomy} named ${name}`);
          assert.equal(list.body[taxonomy][0].count, 8, `race ${race}: ${name} counts 8 events`);
        }
      }
    });
  },
  { RATE_LIMIT_MAX: '0' },
);
