import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { forEachStore } from '../support/harness.js';
import { seedCalendar, seedPlan } from '../../src/seed/calendar.js';

const N = 240;

forEachStore('seed', (t) => {
  it('adds N events with their venues, organizers and terms, as the API would have written them', async () => {
    const { store, services } = t.built;
    const admin = (await services.users.list()).find((u) => u.login === 'admin')!;
    const result = await seedCalendar(store, { events: N, authorId: Number(admin.id), timezone: 'UTC', seed: 7, batchSize: 100 });
    const plan = seedPlan(N);
    assert.equal(result.events, N);

    const db = store.db;
    const byType = await db
      .selectFrom('posts')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('type')
      .execute();
    const count = (type: string) => Number(byType.find((r) => r.type === type)?.n ?? 0);
    assert.equal(count('tribe_events'), N);
    assert.equal(count('tribe_venue'), plan.venues);
    assert.equal(count('tribe_organizer'), plan.organizers);
    const details = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(details.n), N);

    // Slugs are unique per type, as wp_unique_post_slug makes them.
    const dupes = await db
      .selectFrom('posts')
      .select(['type', 'slug'])
      .groupBy(['type', 'slug'])
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    assert.deepEqual(dupes, []);

    // Term counts are the number of published events linked to each term.
    const wrong = await sql<{ id: number }>`
      select terms.id from terms
      where terms.count <> (select count(*) from event_terms inner join posts on posts.id = event_terms.event_id
                            where event_terms.term_id = terms.id and posts.status = 'publish')`.execute(db);
    assert.deepEqual(wrong.rows, []);
    const used = await db
      .selectFrom('terms')
      .select((eb) => eb.fn.sum<number>('count').as('n'))
      .executeTakeFirstOrThrow();
    assert.ok(Number(used.n) > 0);

    // The API lists every event not hidden from listings (editors see every status but trash).
    const listed = await db
      .selectFrom('events')
      .innerJoin('posts', 'posts.id', 'events.post_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('events.hide_from_listings', '=', 0)
      .executeTakeFirstOrThrow();
    const list = await t.api.get('/events', { as: 'admin', query: { start_date: '2000-01-01', end_date: '2100-01-01', per_page: 50 } });
    assert.equal(list.status, 200);
    assert.equal(list.body.total, Number(listed.n));
    assert.equal(list.body.events.length, 50);

    // A seeded event reads back through the API with its venue, organizers and terms embedded.
    const linked = await db
      .selectFrom('events')
      .innerJoin('posts', 'posts.id', 'events.post_id')
      .select('posts.id')
      .where('posts.status', '=', 'publish')
      .where('events.venue_id', 'is not', null)
      .where('posts.id', 'in', (eb) => eb.selectFrom('event_organizers').select('event_id'))
      .where('posts.id', 'in', (eb) => eb.selectFrom('event_terms').select('event_id'))
      .orderBy('posts.id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const one = await t.api.get(`/events/${linked.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.id, Number(linked.id));
    assert.equal(typeof one.body.venue.id, 'number');
    assert.ok(one.body.organizer.length >= 1);
    assert.ok(one.body.categories.length + one.body.tags.length >= 1);
    assert.equal(one.body.author, String(admin.id));

    // Seeding again adds N more and keeps slugs unique (terms are reused, not duplicated).
    const termsBefore = await db
      .selectFrom('terms')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await seedCalendar(store, { events: 10, authorId: Number(admin.id), timezone: 'UTC', seed: 7 });
    const again = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'tribe_events')
      .executeTakeFirstOrThrow();
    assert.equal(Number(again.n), N + 10);
    const termsAfter = await db
      .selectFrom('terms')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(termsAfter.n), Number(termsBefore.n));
    const dupesAfter = await db
      .selectFrom('posts')
      .select(['type', 'slug'])
      .groupBy(['type', 'slug'])
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    assert.deepEqual(dupesAfter, []);

    // Events created through the API afterwards get fresh ids (the id sequences moved on).
    const created = await t.api.post('/events', { as: 'admin', json: { title: 'After seeding', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' } });
    assert.equal(created.status, 201);
  });
});
