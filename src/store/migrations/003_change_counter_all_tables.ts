/**
 * PostgreSQL: the change counter of migration 002 also counts writes to venues, organizers,
 * terms and images, so that it is a revision of everything an event's representation is built
 * from (the domain caches public event representations per revision). SQLite: nothing to do
 * (its revision covers every table).
 */
import { sql, type Kysely } from 'kysely';

const MORE_TABLES = ['venues', 'organizers', 'terms', 'images'] as const;

export function changeCounterAllTablesMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'postgres') return;
      for (const table of MORE_TABLES) {
        await sql.raw(`create trigger ${table}_changed after insert or update or delete or truncate on ${table} ` + 'for each statement execute function bump_change_counter()').execute(db);
      }
    },
  };
}
