/**
 * Many calendars in one database. `calendars` holds each calendar (slug, name, status, host name,
 * quotas); the first one (id 1, slug `default`) is the default and owns every row that was here
 * before, so an existing database becomes the default calendar in place. Every table of calendar
 * data (store/calendar-scope.ts, CALENDAR_TABLES) gets `calendar_id` (1 for what is there), and the
 * indexes its reads go through lead with it; the unique slugs become unique per calendar.
 * People stay shared: an account is one login across the service, and `calendar_roles` gives its
 * role in the calendars other than the default one (where `users.role` is its role, as before).
 * An application password may be limited to one calendar (`app_passwords.calendar_id`).
 * A calendar's own settings move from `settings` (`calendar:NAME` rows) to `calendar_settings`.
 *
 * Adding a column with a constant default is instant on both stores (SQLite writes no row;
 * PostgreSQL 11+ keeps the default in the catalog); the index builds are what takes time on a
 * large database (docs/operations.md gives the figure for a million events).
 */
import { sql, type Kysely } from 'kysely';
import { LONG_EVENT_CONDITION } from '../event-overlaps.js';

/** The tables whose rows gain `calendar_id` here (calendar_settings is made with it). */
const TABLES = [
  'posts',
  'events',
  'venues',
  'organizers',
  'event_organizers',
  'terms',
  'event_terms',
  'images',
  'event_locations',
  'event_occurrences',
  'event_series',
  'occurrence_moves',
  'changes',
  'edit_locks',
  'import_map',
  'imports',
  'submissions',
  'submission_log',
  'submission_quota',
  'preview_revocations',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'federation_kv',
  'federation_keys',
  'federation_followers',
  'federation_state',
  'federation_objects',
  'federation_activities',
  'federation_deliveries',
  'federation_received',
  'federation_queue',
];

/** Indexes replaced by the same columns led by the calendar: [name, table, columns, unique condition]. */
const LEADING: Array<[name: string, table: string, columns: string[], where?: string]> = [
  ['posts_type_slug', 'posts', ['type', 'slug']],
  ['posts_type_status_date', 'posts', ['type', 'status', 'date_gmt', 'id']],
  ['posts_type_status_local', 'posts', ['type', 'status', 'date_local', 'id']],
  ['posts_parent', 'posts', ['parent_id']],
  ['events_start', 'events', ['start_local', 'post_id']],
  ['events_listing', 'events', ['hide_from_listings', 'start_local', 'post_id', 'end_local']],
  ['events_venue_start', 'events', ['venue_id', 'start_local', 'post_id']],
  ['venues_geo', 'venues', ['geo_lat', 'geo_lng', 'post_id']],
  ['terms_taxonomy_name', 'terms', ['taxonomy', 'name']],
  ['terms_parent', 'terms', ['taxonomy', 'parent_id']],
  ['event_series_horizon', 'event_series', ['complete', 'horizon_local']],
  ['imports_status', 'imports', ['status', 'id']],
  ['submissions_status', 'submissions', ['status', 'id']],
  ['webhook_deliveries_endpoint', 'webhook_deliveries', ['endpoint_id', 'seq', 'idx']],
];

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

export function calendarsMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const id = dialect === 'postgres' ? 'serial' : 'integer';
      await db.schema
        .createTable('calendars')
        .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('slug', 'varchar(60)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull().defaultTo('active'))
        // A host name of its own (custom domain): requests whose Host is it are this calendar's.
        .addColumn('host', 'varchar(255)')
        // The calendar's quotas as JSON ({} : the installation's defaults).
        .addColumn('quotas', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('calendars_host').on('calendars').column('host').unique().where(sql.ref('host'), 'is not', null).execute();
      const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
      await db.insertInto('calendars').values({ id: 1, slug: 'default', name: 'Default calendar', status: 'active', created_gmt: now }).execute();
      if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence('calendars', 'id'), 1)`.execute(db);

      await db.schema
        .createTable('calendar_roles')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('calendar_id', 'integer', (c) => c.notNull().references('calendars.id').onDelete('cascade'))
        .addColumn('role', 'varchar(20)', (c) => c.notNull())
        .addPrimaryKeyConstraint('calendar_roles_pk', ['user_id', 'calendar_id'])
        .execute();
      await db.schema.createIndex('calendar_roles_calendar').on('calendar_roles').columns(['calendar_id', 'role']).execute();
      await db.schema.alterTable('app_passwords').addColumn('calendar_id', 'integer').execute();

      for (const table of TABLES) {
        await db.schema
          .alterTable(table)
          .addColumn('calendar_id', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
      }

      for (const [name, table, columns] of LEADING) {
        await db.schema.dropIndex(name).ifExists().execute();
        await sql.raw(`create index "${name}" on "${table}" ("calendar_id", ${quoted(columns)})`).execute(db);
      }
      await sql.raw(`create index "changes_calendar" on "changes" ("calendar_id", "seq", "idx")`).execute(db);
      // Links read by the linked record's id (global) stay covering with the calendar after them.
      for (const [name, table, columns] of [
        ['event_organizers_organizer', 'event_organizers', ['organizer_id', 'event_id']],
        ['event_terms_term', 'event_terms', ['term_id', 'event_id']],
      ] as const) {
        await db.schema.dropIndex(name).ifExists().execute();
        await sql.raw(`create index "${name}" on "${table}" (${quoted([...columns])}, "calendar_id")`).execute(db);
      }
      await sql.raw(`drop index if exists "events_long"`).execute(db);
      await sql.raw(`create index "events_long" on "events" ("calendar_id", "end_local", "start_local", "post_id") where ${LONG_EVENT_CONDITION}`).execute(db);
      // Slugs are unique per calendar: two calendars may each have an event called `concert`.
      await sql`drop index if exists posts_type_slug_unique`.execute(db);
      await sql`create unique index posts_type_slug_unique on posts (calendar_id, type, slug) where slug <> ''`.execute(db);
      await sql`drop index if exists posts_event_slug_unique`.execute(db);
      await sql`create unique index posts_event_slug_unique on posts (calendar_id, slug) where slug <> '' and type in ('tribe_events', 'tribe_event_series')`.execute(db);

      // Terms: `(taxonomy, slug)` unique per calendar; import_map: its key per calendar. Both are
      // table constraints, which SQLite changes only by making the table anew.
      if (dialect === 'postgres') {
        await sql`alter table "terms" drop constraint "terms_taxonomy_slug"`.execute(db);
        await sql`alter table "terms" add constraint "terms_taxonomy_slug" unique ("calendar_id", "taxonomy", "slug")`.execute(db);
        await sql`alter table "import_map" drop constraint "import_map_pk"`.execute(db);
        await sql`alter table "import_map" add constraint "import_map_pk" primary key ("calendar_id", "source", "kind", "source_id")`.execute(db);
      } else {
        await sql`pragma foreign_keys = off`.execute(db);
        try {
          await sql`create table "terms_new" ("id" integer primary key autoincrement, "taxonomy" varchar(32) not null, "name" varchar(200) not null, "slug" varchar(200) not null, "description" text default '' not null, "parent_id" integer default 0 not null, "count" integer default 0 not null, "calendar_id" integer default 1 not null, constraint "terms_taxonomy_slug" unique ("calendar_id", "taxonomy", "slug"))`.execute(
            db,
          );
          await sql`insert into "terms_new" select "id", "taxonomy", "name", "slug", "description", "parent_id", "count", "calendar_id" from "terms"`.execute(db);
          await sql`drop table "terms"`.execute(db);
          await sql`alter table "terms_new" rename to "terms"`.execute(db);
          await sql.raw(`create index "terms_taxonomy_name" on "terms" ("calendar_id", "taxonomy", "name")`).execute(db);
          await sql.raw(`create index "terms_parent" on "terms" ("calendar_id", "taxonomy", "parent_id")`).execute(db);
          await sql`create table "import_map_new" ("source" varchar(500) not null, "kind" varchar(20) not null, "source_id" varchar(500) not null, "local_id" integer not null, "fingerprint" varchar(64) default '' not null, "updated_gmt" varchar(19) not null, "calendar_id" integer default 1 not null, constraint "import_map_pk" primary key ("calendar_id", "source", "kind", "source_id"))`.execute(
            db,
          );
          await sql`insert into "import_map_new" select "source", "kind", "source_id", "local_id", "fingerprint", "updated_gmt", "calendar_id" from "import_map"`.execute(db);
          await sql`drop table "import_map"`.execute(db);
          await sql`alter table "import_map_new" rename to "import_map"`.execute(db);
        } finally {
          await sql`pragma foreign_keys = on`.execute(db);
        }
      }

      await db.schema
        .createTable('calendar_settings')
        .addColumn('calendar_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('calendar_settings_pk', ['calendar_id', 'name'])
        .execute();
      await sql`insert into "calendar_settings" ("calendar_id", "name", "value") select 1, substr("name", 10), "value" from "settings" where "name" like 'calendar:%'`.execute(db);
      await sql`delete from "settings" where "name" like 'calendar:%'`.execute(db);
    },
  };
}
