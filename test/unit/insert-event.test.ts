/**
 * Issue 9: an event create writes its post, events row and links with `insertEvent` (one
 * statement on PostgreSQL, direct statements on SQLite) and answers with the record built from
 * what it wrote instead of reading it back. That record must be the one the store reads back, in
 * every column, on both stores and on each write path (a SQLite write transaction, a group
 * commit's savepoint, the query builder outside a transaction).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { writeTransaction } from '../../src/store/changes.js';
import { openStore, type Store } from '../../src/store/db.js';
import { findEventsByIds, insertEvent, organizerLinksOf, termLinksOf } from '../../src/store/events.js';
import type { NewPost } from '../../src/store/schema.js';
import { STORES } from '../support/harness.js';
import { writeCommitCountersOf } from '../../src/metrics.js';

for (const kind of STORES) {
  describe(`insertEvent: the record it answers is the record stored [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    const ids = { venue: 0, organizers: [] as number[], terms: [] as number[], image: 0 };

    before(async () => {
      const schema = kind.name === 'postgres' ? `t_ins_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 2 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      const admin = await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64'));
      const event = await services.events.create(admin, {
        title: 'Links',
        start_date: '2027-01-01 10:00:00',
        end_date: '2027-01-01 11:00:00',
        venue: { venue: 'Hall', city: 'Oslo' },
        organizer: [{ organizer: 'Ann' }, { organizer: 'Bob' }],
        categories: ['music', 'jazz'],
        tags: ['loud'],
      });
      ids.venue = Number(event.venue_id);
      ids.organizers = (await organizerLinksOf(store.db, [Number(event.id)])).map((l) => Number(l.organizer_id));
      ids.terms = (await termLinksOf(store.db, [Number(event.id)])).map((l) => Number(l.term_id));
      ids.image = Number(
        (
          await store.db
            .insertInto('images')
            .values({ url: 'https://example.org/a.jpg', extension: 'jpg', mime_type: 'image/jpeg', width: 1, height: 1, author_id: Number(admin.id), created_gmt: '2027-01-01 00:00:00' })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
    });
    after(async () => {
      await store.close();
    });

    const post = (n: number, extra: Partial<NewPost> = {}): NewPost => ({
      type: 'tribe_events',
      author_id: 1,
      status: 'publish',
      title: `Event ${n} – “quoted” ünïcode`,
      content: '<p>Doors at 19:00</p>',
      excerpt: '',
      slug: `event-${n}`,
      date_local: '2027-01-02 03:04:05',
      date_gmt: '2027-01-02 02:04:05',
      modified_local: '2027-01-02 03:04:05',
      modified_gmt: '2027-01-02 02:04:05',
      ...extra,
    });
    const details = (extra: Record<string, unknown> = {}) => ({
      start_local: '2027-03-05 20:00:00',
      end_local: '2027-03-05 22:30:00',
      start_utc: '2027-03-05 19:00:00',
      end_utc: '2027-03-05 21:30:00',
      timezone: 'Europe/Oslo',
      all_day: 0,
      cost: null,
      currency_symbol: '',
      currency_position: '',
      website: null,
      show_map: 0,
      show_map_link: 0,
      hide_from_listings: 0,
      sticky: 0,
      featured: 0,
      venue_id: null,
      ...extra,
    });

    const cases = () => [
      { post: post(1), details: details(), organizers: [], terms: [] },
      {
        post: post(2, { status: 'draft', date_gmt: '0000-00-00 00:00:00', image_id: ids.image }),
        details: details({
          cost: '["15","20"]',
          currency_symbol: '€',
          currency_position: 'postfix',
          website: '',
          show_map: 1,
          show_map_link: 1,
          sticky: 1,
          featured: 1,
          venue_id: ids.venue,
          all_day: 1,
        }),
        organizers: ids.organizers,
        terms: ids.terms,
      },
      {
        post: post(3, { status: 'future', author_id: 1 }),
        details: details({ website: 'https://example.org/x', hide_from_listings: 1 }),
        organizers: [...ids.organizers].reverse(),
        terms: ids.terms.slice(0, 1),
      },
    ];

    const check = async (written: Awaited<ReturnType<typeof insertEvent>>, c: ReturnType<typeof cases>[number]) => {
      const [stored] = await findEventsByIds(store.db, [Number(written.id)]);
      assert.deepEqual(written, stored);
      assert.deepEqual(
        (await organizerLinksOf(store.db, [Number(written.id)])).map((l) => Number(l.organizer_id)),
        c.organizers,
        'organizers in the order given',
      );
      assert.deepEqual((await termLinksOf(store.db, [Number(written.id)])).map((l) => Number(l.term_id)).sort(), [...c.terms].sort());
    };

    it('in a write transaction', async () => {
      for (const c of cases()) {
        const written = await writeTransaction(store.db, (trx) => insertEvent(trx, { ...c.post, slug: `${c.post.slug}-t` }, c.details, c.organizers, c.terms));
        await check(written, c);
      }
    });

    it('in writes committed together (SQLite: savepoints of one transaction)', async () => {
      const all = cases();
      const written = await Promise.all(all.map((c) => writeTransaction(store.db, (trx) => insertEvent(trx, { ...c.post, slug: `${c.post.slug}-g` }, c.details, c.organizers, c.terms))));
      for (let i = 0; i < all.length; i++) await check(written[i]!, all[i]!);
    });

    it('outside a transaction', async () => {
      for (const c of cases()) {
        const written = await insertEvent(store.db, { ...c.post, slug: `${c.post.slug}-o` }, c.details, c.organizers, c.terms);
        await check(written, c);
      }
    });

    it('logs the create, and a failed insert writes nothing', async () => {
      const before = await store.db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await assert.rejects(writeTransaction(store.db, (trx) => insertEvent(trx, post(9), details(), [], [999_999])));
      const after = await store.db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n), 'the post of a write whose link failed is not there');
      const written = await writeTransaction(store.db, (trx) => insertEvent(trx, post(10), details(), [], []));
      const logged = await store.db.selectFrom('changes').select(['record_type', 'action']).where('record_id', '=', Number(written.id)).execute();
      assert.deepEqual(logged, [{ record_type: 'event', action: 'create' }]);
    });
  });
}

for (const kind of STORES) {
  describe(`event create in one statement where it can be [${kind.name}]`, () => {
    let store: Store;
    let services: Services;
    let admin: Awaited<ReturnType<Services['users']['authenticate']>>;
    const ids = { venue: 0, organizer: 0, category: 0, tag: 0 };

    before(async () => {
      const schema = kind.name === 'postgres' ? `t_one_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      store = await openStore(kind.url, { schema, dropSchemaOnClose: true, poolSize: 10 });
      services = createServices(loadConfig({ DATABASE_URL: kind.url }), store);
      await services.users.ensureAdmin('admin', 'a long enough password');
      admin = await services.users.authenticate('Basic ' + Buffer.from('admin:a long enough password').toString('base64'));
      const first = await services.events.create(admin, {
        title: 'Links',
        start_date: '2027-01-01 10:00:00',
        end_date: '2027-01-01 11:00:00',
        venue: { venue: 'Hall' },
        organizer: [{ organizer: 'Ann' }],
        categories: ['music'],
        tags: ['loud'],
      });
      ids.venue = Number(first.venue_id);
      ids.organizer = Number((await organizerLinksOf(store.db, [Number(first.id)]))[0]!.organizer_id);
      const terms = await store.db.selectFrom('terms').select(['id', 'taxonomy']).execute();
      ids.category = Number(terms.find((t) => t.taxonomy === 'tribe_events_cat')!.id);
      ids.tag = Number(terms.find((t) => t.taxonomy === 'post_tag')!.id);
    });
    after(async () => {
      await store.close();
    });

    const counts = async () => new Map((await store.db.selectFrom('terms').select(['id', 'count']).execute()).map((t) => [Number(t.id), Number(t.count)]));
    const input = (title: string, extra: Record<string, unknown> = {}) => ({
      title,
      start_date: '2027-02-01 20:00:00',
      end_date: '2027-02-01 22:00:00',
      status: 'publish',
      venue: ids.venue,
      organizer: [ids.organizer],
      categories: [ids.category],
      tags: String(ids.tag),
      ...extra,
    });

    it('writes an event naming records by id as one statement on PostgreSQL (a transaction on SQLite), with the same rows and log', async () => {
      const commits = writeCommitCountersOf(store.db);
      const before = { statements: commits.statements, counts: await counts() };
      const created = await services.events.create(admin, input('By ids'));
      assert.equal(commits.statements - before.statements, kind.name === 'postgres' ? 1 : 0);
      const [stored] = await findEventsByIds(store.db, [Number(created.id)]);
      assert.deepEqual(created, stored);
      const after = await counts();
      assert.equal(after.get(ids.category), before.counts.get(ids.category)! + 1);
      assert.equal(after.get(ids.tag), before.counts.get(ids.tag)! + 1);
      const log = await store.db
        .selectFrom('changes')
        .select(['seq', 'idx', 'record_type', 'record_id', 'action', 'detail'])
        .where('seq', '=', (eb) => eb.selectFrom('changes').select((e) => e.fn.max('seq').as('m')))
        .orderBy('idx')
        .execute();
      assert.deepEqual(
        log.map((r) => [Number(r.idx), r.record_type, Number(r.record_id), r.action, r.detail]),
        [
          [0, 'event', Number(created.id), 'create', null],
          [1, 'term', ids.category, 'update', '{"count":1}'],
          [2, 'term', ids.tag, 'update', '{"count":1}'],
        ],
      );
    });

    it('answers with the counts its write left on its terms, as a fresh read shows them', async () => {
      // Another write moves the counts first (the feed has not seen it when the create answers).
      await services.events.create(admin, input('Before'));
      const created = await services.events.create(admin, input('Counted'));
      const [json] = await services.events.represent([created], admin, 'list', services.links);
      const stored = await counts();
      const shown = [...(json!.categories as Array<{ id: number; count: number }>), ...(json!.tags as Array<{ id: number; count: number }>)];
      assert.deepEqual(
        shown.map((t) => [t.id, t.count]),
        [
          [ids.category, stored.get(ids.category)],
          [ids.tag, stored.get(ids.tag)],
        ],
      );
    });

    it('a draft moves no count; anything that may create a record is a transaction', async () => {
      const commits = writeCommitCountersOf(store.db);
      const before = { statements: commits.statements, counts: await counts() };
      await services.events.create(admin, input('Draft', { status: 'draft' }));
      assert.deepEqual(await counts(), before.counts);
      assert.equal(commits.statements - before.statements, kind.name === 'postgres' ? 1 : 0);
      await services.events.create(admin, input('Named', { categories: ['music'] }));
      await services.events.create(admin, input('Inline', { venue: { venue: 'Another hall' } }));
      assert.equal(commits.statements - before.statements, kind.name === 'postgres' ? 1 : 0, 'named terms and inline venues: transactions');
    });

    it('concurrent writes moving the counts of the same terms, in any order and on either path, never deadlock', async () => {
      const more = await Promise.all(['rock', 'folk'].map((name) => services.categories.add({ name })));
      const cats = [ids.category, ...more.map((t) => Number(t.id))];
      const retries = writeCommitCountersOf(store.db).retries;
      const deadlocks = () => retries['40P01'] ?? 0;
      const before = deadlocks();
      for (let round = 0; round < 8; round++) {
        const writes = Array.from({ length: 10 }, (_, i) => {
          const order = i % 2 === 0 ? cats : [...cats].reverse();
          // By id: one statement; by name: a transaction (its flush moves the counts); trashes move them back.
          if (i % 3 === 2) return services.events.create(admin, input(`Named ${round}-${i}`, { categories: ['music', 'rock', 'folk'], tags: [ids.tag] }));
          return services.events.create(admin, input(`Ids ${round}-${i}`, { categories: order, tags: [ids.tag] }));
        });
        const created = await Promise.all(writes);
        await Promise.all(created.slice(0, 4).map((e) => services.events.trash(e, undefined, admin)));
      }
      assert.equal(deadlocks() - before, 0, `deadlocks: ${JSON.stringify(retries)}`);
    });

    it('concurrent creates of one title all succeed, with distinct slugs (the losers run again as transactions)', async () => {
      const created = await Promise.all(Array.from({ length: 8 }, () => services.events.create(admin, input('Same title'))));
      const slugs = created.map((c) => c.slug);
      assert.equal(new Set(slugs).size, 8, slugs.join(' '));
      assert.ok(slugs.includes('same-title'));
    });
  });
}
