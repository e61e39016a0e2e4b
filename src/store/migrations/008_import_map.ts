/**
 * The import map: which local record each imported source record became, so that a
 * second import updates instead of duplicating (upsert by source and source id), and an
 * interrupted import resumes by skipping what is already there unchanged.
 *
 * - `source`: where the records came from (`tec:https://site/wp-json/tribe/events/v1`, `ics`);
 * - `kind`: event, venue, organizer, category, tag, user, image;
 * - `source_id`: the record's id there (a number as text, or an iCalendar UID);
 * - `local_id`: its id here; `fingerprint`: a hash of what was imported last (unchanged → skipped).
 */
import type { Kysely } from 'kysely';

export function importMapMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('import_map')
        .ifNotExists()
        .addColumn('source', 'varchar(500)', (c) => c.notNull())
        .addColumn('kind', 'varchar(20)', (c) => c.notNull())
        .addColumn('source_id', 'varchar(500)', (c) => c.notNull())
        .addColumn('local_id', 'integer', (c) => c.notNull())
        .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('updated_gmt', 'varchar(19)', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_map_pk', ['source', 'kind', 'source_id'])
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('import_map').ifExists().execute();
    },
  };
}
