/**
 * The calendar's id in the keys of calendar data (migration 034). On both stores, what one
 * calendar keeps under a name another calendar keeps too (an actor's keys, its key-value entries,
 * a follower, the outbox's cursor, an edit lock) are two rows, not one fight over one key, and a
 * database an earlier version left keeps its rows through the migration. On PostgreSQL, the layout
 * Citus needs: every primary key and unique constraint of a table of calendar data names the
 * calendar, and every foreign key between two of them goes calendar to calendar.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { openStore, migrate, type Store } from '../../src/store/db.js';
import { CALENDAR_TABLES, inCalendar } from '../../src/store/calendar-scope.js';
import { ensureOutboxCursor, findFollower, insertKeysOnce, readKeys, upsertFollower } from '../../src/store/federation.js';
import { kvGet, kvSet } from '../../src/store/federation-fedify.js';
import { activeEditLocks, takeEditLock } from '../../src/store/edit-locks.js';
import { STORES } from '../support/harness.js';

const NOW = '2026-11-29 12:00:00';

const follower = (calendar: number) => ({
  actor_id: 'https://social.example/users/ana',
  host: 'social.example',
  inbox: `https://social.example/users/ana/inbox?c=${calendar}`,
  shared_inbox: null,
  follow_id: `https://social.example/follows/${calendar}`,
  handle: '@ana@social.example',
  status: 'accepted',
  created_gmt: NOW,
});

for (const kind of STORES) {
  it(`two calendars keep the same names apart, and an earlier database keeps its rows [${kind.name}]`, { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-034-'));
    const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'k.db')}` : kind.url;
    const schema = kind.name === 'postgres' ? `t_034_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      // As the previous version left it: the default calendar's actor has its keys and a follower.
      store = await openStore(url, { schema, skipMigrations: true });
      await migrate(store, '033_network_linked');
      const before = store.db as unknown as Kysely<any>;
      await sql`insert into "federation_keys" ("kind", "private_jwk", "public_jwk", "created_gmt") values ('rsa', 'private-1', 'public-1', ${NOW})`.execute(before);
      const f = follower(1);
      await sql`insert into "federation_followers" ("actor_id", "host", "inbox", "shared_inbox", "follow_id", "handle", "status", "created_gmt")
        values (${f.actor_id}, ${f.host}, ${f.inbox}, null, ${f.follow_id}, ${f.handle}, ${f.status}, ${NOW})`.execute(before);
      await store.close();
      store = undefined;

      store = await openStore(url, { schema });
      const db = store.db as unknown as Kysely<any>;
      await sql`insert into "calendars" ("slug", "name", "status", "created_gmt") values ('north', 'North', 'active', ${NOW})`.execute(db);
      await sql`insert into "users" ("id", "login", "email", "display_name", "role", "password_hash", "registered_gmt") values (1, 'ana', '', 'Ana', 'administrator', '', ${NOW})`.execute(db);
      const north = Number((await sql<{ id: number }>`select "id" from "calendars" where "slug" = 'north'`.execute(db)).rows[0]!.id);

      await inCalendar(north, async () => {
        await insertKeysOnce(store!.db, [{ kind: 'rsa', private_jwk: 'private-2', public_jwk: 'public-2' }], NOW);
        await upsertFollower(store!.db, follower(north));
        await kvSet(store!.db, 'fedify:key', 'north', null);
        await ensureOutboxCursor(store!.db);
        await takeEditLock(store!.db, 7, 1, { nowMs: 1_000, ttlMs: 60_000, startedGmt: NOW });
      });
      await kvSet(store.db, 'fedify:key', 'default', null);
      await ensureOutboxCursor(store.db);
      await takeEditLock(store.db, 7, 1, { nowMs: 1_000, ttlMs: 60_000, startedGmt: NOW });

      assert.deepEqual(
        (await readKeys(store.db)).map((k) => k.private_jwk),
        ['private-1'],
      );
      assert.deepEqual(
        (await inCalendar(north, () => readKeys(store!.db))).map((k) => k.private_jwk),
        ['private-2'],
      );
      assert.equal((await findFollower(store.db, follower(1).actor_id))?.follow_id, follower(1).follow_id);
      assert.equal((await inCalendar(north, () => findFollower(store!.db, follower(1).actor_id)))?.follow_id, follower(north).follow_id);
      assert.equal(await kvGet(store.db, 'fedify:key', 0), 'default');
      assert.equal(await inCalendar(north, () => kvGet(store!.db, 'fedify:key', 0)), 'north');
      assert.equal((await activeEditLocks(store.db, 7, 2_000)).length, 1);
      assert.equal((await inCalendar(north, () => activeEditLocks(store!.db, 7, 2_000))).length, 1);
      const cursors = (await sql<{ c: number }>`select "calendar_id" as "c" from "federation_state" order by "calendar_id"`.execute(db)).rows.map((r) => Number(r.c));
      assert.deepEqual(cursors, [1, north]);

      if (kind.name === 'postgres') {
        // Every primary key and unique constraint or index of calendar data names the calendar.
        const uniques = (
          await sql<{ table: string; definition: string }>`
            select c.relname as "table", pg_get_indexdef(i.indexrelid) as "definition"
            from pg_index i join pg_class c on c.oid = i.indrelid
            where c.relnamespace = current_schema()::regnamespace and i.indisunique`.execute(db)
        ).rows.filter((r) => CALENDAR_TABLES.has(r.table));
        assert.ok(uniques.length >= CALENDAR_TABLES.size, `${uniques.length} unique indexes`);
        assert.deepEqual(
          uniques.filter((u) => !/\("?calendar_id"?[,)]/.test(u.definition)).map((u) => u.definition),
          [],
        );
        // Every foreign key between two tables of calendar data goes calendar to calendar.
        const keys = (
          await sql<{ table: string; references: string; definition: string }>`
            select c.conrelid::regclass::text as "table", c.confrelid::regclass::text as "references", pg_get_constraintdef(c.oid) as "definition"
            from pg_constraint c where c.connamespace = current_schema()::regnamespace and c.contype = 'f'`.execute(db)
        ).rows.filter((k) => CALENDAR_TABLES.has(k.table.replace(/^.*\./, '').replace(/"/g, '')) && CALENDAR_TABLES.has(k.references.replace(/^.*\./, '').replace(/"/g, '')));
        assert.equal(keys.length, 13);
        assert.deepEqual(
          keys.filter((k) => !/^FOREIGN KEY \(calendar_id, \w+\) REFERENCES \S+\(calendar_id, id\)/.test(k.definition)).map((k) => `${k.table}: ${k.definition}`),
          [],
        );
        // Deleting a venue clears it from its events (the one column), deleting an event cascades.
        await sql`insert into "posts" ("id", "type", "author_id", "status", "title", "content", "excerpt", "slug", "date_local", "date_gmt", "modified_local", "modified_gmt", "calendar_id")
          values (900, 'tribe_venue', 1, 'publish', 'Hall', '', '', 'hall', ${NOW}, ${NOW}, ${NOW}, ${NOW}, ${north}), (901, 'tribe_events', 1, 'publish', 'Show', '', '', 'show', ${NOW}, ${NOW}, ${NOW}, ${NOW}, ${north})`.execute(
          db,
        );
        await sql`insert into "events" ("post_id", "start_local", "end_local", "start_utc", "end_utc", "timezone", "venue_id", "calendar_id")
          values (901, '2027-05-01 20:00:00', '2027-05-01 22:00:00', '2027-05-01 20:00:00', '2027-05-01 22:00:00', 'UTC', 900, ${north})`.execute(db);
        await sql`delete from "posts" where "calendar_id" = ${north} and "id" = 900`.execute(db);
        const event = (await sql<{ venue_id: number | null; calendar_id: number }>`select "venue_id", "calendar_id" from "events" where "post_id" = 901`.execute(db)).rows[0]!;
        assert.deepEqual([event.venue_id, Number(event.calendar_id)], [null, north]);
        await sql`delete from "posts" where "calendar_id" = ${north} and "id" = 901`.execute(db);
        assert.equal((await sql`select 1 from "events" where "post_id" = 901`.execute(db)).rows.length, 0);
        // An event cannot name a venue of another calendar.
        await sql`insert into "posts" ("id", "type", "author_id", "status", "title", "content", "excerpt", "slug", "date_local", "date_gmt", "modified_local", "modified_gmt", "calendar_id")
          values (902, 'tribe_venue', 1, 'publish', 'Other hall', '', '', 'other-hall', ${NOW}, ${NOW}, ${NOW}, ${NOW}, 1), (903, 'tribe_events', 1, 'publish', 'Other', '', '', 'other', ${NOW}, ${NOW}, ${NOW}, ${NOW}, ${north})`.execute(
          db,
        );
        await assert.rejects(
          sql`insert into "events" ("post_id", "start_local", "end_local", "start_utc", "end_utc", "timezone", "venue_id", "calendar_id")
            values (903, '2027-05-01 20:00:00', '2027-05-01 22:00:00', '2027-05-01 20:00:00', '2027-05-01 22:00:00', 'UTC', 902, ${north})`.execute(db),
          /foreign key/,
        );
      }
    } finally {
      if (store && schema) await sql`drop schema if exists ${sql.raw(schema)} cascade`.execute(store.db as unknown as Kysely<any>);
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
