/**
 * Migration 037 (`federation_objects.home`, the actor an object was first announced by): on a
 * database an earlier version left, another calendar's announced objects (live or deleted) are its
 * current slug's, so that its next rename leaves them where they were announced; the default
 * calendar's, and objects waiting to be announced, have none. On both stores.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { openStore, migrate, type Store } from '../../src/store/db.js';
import { inCalendar } from '../../src/store/calendar-scope.js';
import { objectState } from '../../src/store/federation.js';
import { STORES } from '../support/harness.js';

const NOW = '2026-11-30 12:00:00';

for (const kind of STORES) {
  it(`an earlier database's announced objects are their calendar's current actor's [${kind.name}]`, { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-037-'));
    const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'h.db')}` : kind.url;
    const schema = kind.name === 'postgres' ? `t_037_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      store = await openStore(url, { schema, skipMigrations: true });
      await migrate(store, '036_calendar_former_slugs');
      const before = store.db as unknown as Kysely<any>;
      await sql`insert into "calendars" ("slug", "name", "status", "created_gmt") values ('north', 'North', 'active', ${NOW})`.execute(before);
      const north = Number((await sql<{ id: number }>`select "id" from "calendars" where "slug" = 'north'`.execute(before)).rows[0]!.id);
      const rows: Array<[calendar: number, event: number, state: string]> = [
        [1, 1, 'live'],
        [north, 2, 'live'],
        [north, 3, 'gone'],
        [north, 4, 'waiting'],
      ];
      for (const [calendar, event, state] of rows)
        await sql`insert into "federation_objects" ("calendar_id", "event_id", "state", "digest", "published_gmt", "updated_gmt", "updated_ms")
          values (${calendar}, ${event}, ${state}, '', ${NOW}, ${NOW}, 1)`.execute(before);
      await store.close();
      store = undefined;

      store = await openStore(url, { schema });
      assert.equal((await objectState(store.db, 1))?.home, null, 'the default calendar’s handle never changes');
      const homes = await inCalendar(north, async () => Promise.all([2, 3, 4].map(async (id) => (await objectState(store!.db, id))?.home)));
      assert.deepEqual(homes, ['north', 'north', null]);
    } finally {
      if (store && schema) await sql`drop schema if exists ${sql.raw(schema)} cascade`.execute(store.db as unknown as Kysely<any>);
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
