/**
 * SQLite: `change_counter` row 2, the count of rows the service wrote outside the change log on
 * tables no kept result reads (quiet-writes.ts). Other servers on the same file compare it with
 * their own marks to tell such commits from plain SQL, which still resets what they keep.
 * PostgreSQL: nothing (its servers follow the log alone; plain SQL there needs
 * `events-calendar refresh`).
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { QUIET_ROW } from '../quiet-writes.js';

export function quietWritesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') return;
      await sql`insert into "change_counter" ("id", "value") values (${QUIET_ROW}, 0)`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') return;
      await sql`delete from "change_counter" where "id" = ${QUIET_ROW}`.execute(db);
    },
  };
}
