/**
 * Migration 041 (`changes_pruned`, how far each calendar's log was pruned): on a database an
 * earlier version pruned, every calendar gets the installation's number (its rows were pruned that
 * far at most), so that a token from before it is still refused in each. A database never pruned
 * gets no rows. The installation's number stays, and a server of the earlier version that prunes
 * after the migration (several servers, upgraded one after the other) raises it for every calendar.
 * On both stores.
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
import { prunedThrough } from '../../src/store/change-pruning.js';
import { STORES } from '../support/harness.js';

for (const kind of STORES) {
  for (const pruned of [1234, 0]) {
    it(`gives every calendar the installation's pruned number (${pruned}) [${kind.name}]`, { timeout: 120_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'calendar-041-'));
      const url = kind.name === 'sqlite' ? `sqlite:${join(dir, 'p.db')}` : kind.url;
      const schema = kind.name === 'postgres' ? `t_041_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
      let store: Store | undefined;
      try {
        store = await openStore(url, { schema, skipMigrations: true });
        await migrate(store, '040_job_locks');
        const before = store.db as unknown as Kysely<any>;
        await sql`insert into "calendars" ("slug", "name", "status", "created_gmt") values ('north', 'North', 'active', '2026-11-01 00:00:00')`.execute(before);
        const north = Number((await sql<{ id: number }>`select "id" from "calendars" where "slug" = 'north'`.execute(before)).rows[0]!.id);
        await sql`update "settings" set "value" = ${String(pruned)} where "name" = 'changes_pruned_seq'`.execute(before);
        await store.close();
        store = undefined;

        store = await openStore(url, { schema });
        assert.equal(await prunedThrough(store.db), pruned, 'the default calendar');
        assert.equal(await inCalendar(north, () => prunedThrough(store!.db)), pruned, 'another calendar');
        const rows = await sql<{ n: number | string }>`select count(*) as "n" from "changes_pruned"`.execute(store.db);
        assert.equal(Number(rows.rows[0]!.n), pruned ? 2 : 0);
        // A server of the earlier version prunes meanwhile: its number is every calendar's floor.
        await sql`update "settings" set "value" = '5000' where "name" = 'changes_pruned_seq'`.execute(store.db);
        assert.equal(await prunedThrough(store.db), 5000);
        assert.equal(await inCalendar(north, () => prunedThrough(store!.db)), 5000);
      } finally {
        if (store && schema) await sql`drop schema if exists ${sql.raw(schema)} cascade`.execute(store.db as unknown as Kysely<any>);
        await store?.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
