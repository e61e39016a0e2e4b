/**
 * Migrations 006 and 011 on a database an earlier version left with duplicated slugs (a PostgreSQL
 * race): the oldest post keeps its slug, the others are numbered, the change log tells running
 * servers (`reset`), and the database refuses a second post of a type with a slug from then on
 * (011: nor an event and a series with one slug).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, migrate, type Store } from '../../src/store/db.js';
import { STORES } from '../support/harness.js';
import type { PostType } from '../../src/store/schema.js';

const post = (id: number, type: PostType, slug: string) => ({
  id,
  type,
  author_id: 1,
  status: 'publish',
  title: slug,
  content: '',
  excerpt: '',
  slug,
  date_local: '2030-01-01 00:00:00',
  date_gmt: '2030-01-01 00:00:00',
  modified_local: '2030-01-01 00:00:00',
  modified_gmt: '2030-01-01 00:00:00',
});

for (const kind of STORES) {
  it(`migration 006 numbers duplicated slugs and makes them unique [${kind.name}]`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-006-'));
    const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'm.db')}` : kind.url;
    const schema = kind.name === 'postgres' ? `t_006_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      // A database as an earlier version left it: migrated up to 005, slugs duplicated.
      store = await openStore(url, { schema, dropSchemaOnClose: true });
      const db = store.db;
      await sql`drop index posts_type_slug_unique`.execute(db);
      // (and before 011, whose index also refuses duplicated event slugs)
      await sql`drop index posts_event_slug_unique`.execute(db);
      await db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, 'in', ['006_unique_slugs', '011_event_slug_space'] as never)
        .execute();
      await db
        .insertInto('posts')
        .values([post(101, 'tribe_events', 'jazz'), post(102, 'tribe_events', 'jazz'), post(103, 'tribe_events', 'jazz'), post(104, 'tribe_events', 'jazz-2'), post(105, 'tribe_venue', 'jazz')])
        .execute();
      const before = Number((await sql<{ v: number }>`select value as v from change_counter where id = 1`.execute(db)).rows[0]!.v);

      assert.deepEqual(await migrate(store), ['006_unique_slugs', '011_event_slug_space']);
      const rows = await db.selectFrom('posts').select(['id', 'slug']).where('id', '>=', 101).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.id), r.slug]),
        [
          [101, 'jazz'],
          [102, 'jazz-3'],
          [103, 'jazz-4'],
          [104, 'jazz-2'],
          [105, 'jazz'],
        ],
      );
      const log = await db.selectFrom('changes').select(['record_type', 'action']).where('seq', '>', before).execute();
      assert.deepEqual(
        log.map((l) => `${l.record_type}:${l.action}`),
        ['all:reset'],
      );
      await assert.rejects(
        db
          .insertInto('posts')
          .values(post(106, 'tribe_events', 'jazz'))
          .execute(),
        /unique|UNIQUE/,
      );
      await db
        .insertInto('posts')
        .values(post(107, 'tribe_organizer', 'jazz'))
        .execute();
    } finally {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

for (const kind of STORES) {
  it(`migration 011 makes the slug space of events and series unique, numbering shared slugs [${kind.name}]`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-011-'));
    const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'm.db')}` : kind.url;
    const schema = kind.name === 'postgres' ? `t_011_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      // A database as the version before left it: an event and a series with one slug (a race).
      store = await openStore(url, { schema, dropSchemaOnClose: true });
      const db = store.db;
      await sql`drop index posts_event_slug_unique`.execute(db);
      await db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '011_event_slug_space' as never)
        .execute();
      const series = (id: number, slug: string) => ({ ...post(id, 'tribe_events', slug), type: 'tribe_event_series' as const });
      await db
        .insertInto('posts')
        .values([post(201, 'tribe_events', 'yoga'), series(202, 'yoga'), post(203, 'tribe_events', 'yoga-2'), post(204, 'tribe_venue', 'yoga')])
        .execute();
      const before = Number((await sql<{ v: number }>`select value as v from change_counter where id = 1`.execute(db)).rows[0]!.v);

      assert.deepEqual(await migrate(store), ['011_event_slug_space']);
      const rows = await db.selectFrom('posts').select(['id', 'slug']).where('id', '>=', 201).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.id), r.slug]),
        [
          [201, 'yoga'],
          [202, 'yoga-3'],
          [203, 'yoga-2'],
          [204, 'yoga'],
        ],
      );
      const log = await db.selectFrom('changes').select(['record_type', 'action']).where('seq', '>', before).execute();
      assert.deepEqual(
        log.map((l) => `${l.record_type}:${l.action}`),
        ['all:reset'],
      );
      // From now on the database refuses a series with an event's slug (and the other way round).
      await assert.rejects(db.insertInto('posts').values(series(205, 'yoga')).execute(), /unique|UNIQUE/);
      await assert.rejects(
        db
          .insertInto('posts')
          .values(post(206, 'tribe_events', 'yoga-3'))
          .execute(),
        /unique|UNIQUE/,
      );
    } finally {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
