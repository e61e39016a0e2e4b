/**
 * What the network's mirroring reads of the change log (`changedByCalendar`): a calendar's events by
 * id, `all` when anything a copy may show changed there, and nothing for what no copy shows (a
 * submission, a role given in the calendar, a change of credentials). On both stores.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { acrossCalendars } from '../../src/store/calendar-scope.js';
import { changedByCalendar } from '../../src/store/network.js';
import { STORES } from '../support/harness.js';

const NOW = '2026-12-01 12:00:00';

for (const kind of STORES) {
  it(`a role or a change of credentials in a calendar makes no follower copy it again [${kind.name}]`, { timeout: 60_000 }, async () => {
    const schema = kind.name === 'postgres' ? `t_netchg_${process.pid}_${randomBytes(3).toString('hex')}` : undefined;
    let store: Store | undefined;
    try {
      store = await openStore(kind.name === 'sqlite' ? 'sqlite::memory:' : kind.url, { schema });
      const db = store.db as unknown as Kysely<any>;
      // Log rows as the writes leave them: calendar 2's role and credentials, calendar 3's event, calendar 4's venue.
      const rows: Array<[seq: number, calendar: number, type: string, id: number]> = [
        [101, 2, 'role', 7],
        [102, 2, 'credentials', 7],
        [103, 3, 'event', 40],
        [104, 4, 'venue', 9],
      ];
      for (const [seq, calendar, type, id] of rows)
        await sql`insert into "changes" ("seq", "idx", "record_type", "record_id", "action", "detail", "created_gmt", "calendar_id") values (${seq}, 0, ${type}, ${id}, 'update', null, ${NOW}, ${calendar})`.execute(
          db,
        );
      const changed = await acrossCalendars(() => changedByCalendar(store!.db, 100, 104, 100));
      assert.equal(changed.has(2), false, 'a role and credentials: nothing for a copy');
      assert.deepEqual(changed.get(3), new Set([40]));
      assert.equal(changed.get(4), 'all');
    } finally {
      if (store && schema) await sql`drop schema if exists ${sql.raw(schema)} cascade`.execute(store.db as unknown as Kysely<any>);
      await store?.close();
    }
  });
}
