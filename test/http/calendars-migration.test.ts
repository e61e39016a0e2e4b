/**
 * Migration 031 on a database an earlier version left: its data becomes the default calendar's in
 * place (every row `calendar_id` 1, the calendar settings moved to `calendar_settings`), a server
 * over it answers as before at the same URLs, and slugs, term slugs and the import map become
 * unique per calendar, so a second calendar may reuse them.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, migrate, type Store } from '../../src/store/db.js';
import { CALENDAR_TABLES, inCalendar } from '../../src/store/calendar-scope.js';
import { STORES, startServer } from '../support/harness.js';

const NOW = '2025-01-01 00:00:00';

for (const kind of STORES) {
  it(`an existing database becomes the default calendar in place [${kind.name}]`, { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-031-'));
    const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'm.db')}` : kind.url;
    const schema = kind.name === 'postgres' ? `t_031_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      // A database as the previous version left it: migrated up to 030, with data of each kind.
      store = await openStore(url, { schema, skipMigrations: true });
      await migrate(store, '030_post_passwords');
      const db = store.db as unknown as import('kysely').Kysely<any>;
      await sql`insert into "users" ("login", "email", "display_name", "role", "password_hash", "registered_gmt") values ('old', '', 'Old', 'administrator', '', ${NOW})`.execute(db);
      await sql`insert into "posts" ("id", "type", "author_id", "status", "title", "content", "excerpt", "slug", "date_local", "date_gmt", "modified_local", "modified_gmt")
        values (10, 'tribe_events', 1, 'publish', 'Old concert', '', '', 'old-concert', ${NOW}, ${NOW}, ${NOW}, ${NOW})`.execute(db);
      await sql`insert into "events" ("post_id", "start_local", "end_local", "start_utc", "end_utc", "timezone", "all_day", "cost", "currency_symbol", "currency_position", "website", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "venue_id")
        values (10, '2027-05-01 20:00:00', '2027-05-01 22:00:00', '2027-05-01 20:00:00', '2027-05-01 22:00:00', 'UTC', 0, null, '', 'prefix', null, 1, 1, 0, 0, 0, null)`.execute(db);
      await sql`insert into "terms" ("taxonomy", "name", "slug", "description", "parent_id", "count") values ('tribe_events_cat', 'Music', 'music', '', 0, 1)`.execute(db);
      await sql`insert into "event_terms" ("event_id", "term_id") select 10, "id" from "terms" where "slug" = 'music'`.execute(db);
      await sql`insert into "import_map" ("source", "kind", "source_id", "local_id", "fingerprint", "updated_gmt") values ('https://feed.example/', 'event', 'uid-1', 10, '', ${NOW})`.execute(db);
      await sql`insert into "settings" ("name", "value") values ('calendar:SITE_NAME', 'Old Town')`.execute(db);
      await store.close();
      store = undefined;

      // The new version opens it: migration 031 runs.
      store = await openStore(url, { schema });
      const after = store.db as unknown as import('kysely').Kysely<any>;
      for (const table of ['posts', 'events', 'terms', 'event_terms', 'import_map']) {
        assert.ok(CALENDAR_TABLES.has(table));
        const rows = (await sql<{ c: number }>`select distinct "calendar_id" as "c" from ${sql.table(table)}`.execute(after)).rows.map((r) => Number(r.c));
        assert.deepEqual(rows, [1], table);
      }
      const calendars = (await sql<{ id: number; slug: string }>`select "id", "slug" from "calendars"`.execute(after)).rows;
      assert.deepEqual(
        calendars.map((c) => [Number(c.id), c.slug]),
        [[1, 'default']],
      );
      const settings = (await sql<{ calendar_id: number; name: string; value: string }>`select "calendar_id", "name", "value" from "calendar_settings"`.execute(after)).rows;
      assert.deepEqual(
        settings.map((s) => [Number(s.calendar_id), s.name, s.value]),
        [[1, 'SITE_NAME', 'Old Town']],
      );
      assert.equal((await sql`select 1 from "settings" where "name" like 'calendar:%'`.execute(after)).rows.length, 0);
      // A second calendar may reuse the slug, the term slug and the import key.
      const second = Number((await sql<{ id: number }>`insert into "calendars" ("slug", "name", "created_gmt") values ('north', 'North', ${NOW}) returning "id"`.execute(after)).rows[0]!.id);
      await inCalendar(second, async () => {
        await sql`insert into "posts" ("type", "author_id", "status", "title", "content", "excerpt", "slug", "date_local", "date_gmt", "modified_local", "modified_gmt", "calendar_id")
          values ('tribe_events', 1, 'publish', 'Old concert', '', '', 'old-concert', ${NOW}, ${NOW}, ${NOW}, ${NOW}, ${second})`.execute(after);
        await sql`insert into "terms" ("taxonomy", "name", "slug", "description", "parent_id", "count", "calendar_id") values ('tribe_events_cat', 'Music', 'music', '', 0, 0, ${second})`.execute(
          after,
        );
        await sql`insert into "import_map" ("source", "kind", "source_id", "local_id", "fingerprint", "updated_gmt", "calendar_id") values ('https://feed.example/', 'event', 'uid-1', 10, '', ${NOW}, ${second})`.execute(
          after,
        );
      });
      // Within one calendar they stay unique.
      await assert.rejects(
        sql`insert into "terms" ("taxonomy", "name", "slug", "description", "parent_id", "count", "calendar_id") values ('tribe_events_cat', 'Music 2', 'music', '', 0, 0, 1)`.execute(after),
      );
      await store.close();
      store = undefined;

      // A server over it answers as before: the old event at its URL, the site's name kept.
      if (kind.name === 'sqlite') {
        const t = await startServer({ name: 'sqlite', url });
        try {
          const one = await t.api.get('/events/10');
          assert.equal(one.status, 200, one.text);
          const list = await t.api.get('/events', { query: { start_date: '2027-01-01' } });
          assert.deepEqual(
            list.body.events.map((e: { title: string; url: string }) => [e.title, e.url]),
            [['Old concert', `${t.origin}/event/old-concert/`]],
          );
          const root = await t.api.get(`${t.origin}${t.config.restRoot}/`);
          assert.equal(root.body.name, 'Old Town');
        } finally {
          await t.close();
        }
      }
    } finally {
      await store?.close();
      if (schema) {
        const cleanup = await openStore(kind.url, { skipMigrations: true });
        await sql`drop schema if exists ${sql.raw(schema)} cascade`.execute(cleanup.db);
        await cleanup.close();
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
