/**
 * The calendar's id in the keys of calendar data, so that a PostgreSQL store can be spread over
 * machines by calendar (Citus: docs/operations.md). Citus wants the distribution column in every
 * primary key and unique constraint of a distributed table, and in both sides of a foreign key
 * between two of them; the ids stay unique on their own (one sequence each), the wider key only
 * lets each machine enforce it for its calendars.
 *
 * PostgreSQL: every primary key and unique constraint of a table of calendar data leads with
 * `calendar_id`, and the foreign keys between them are `(calendar_id, …) → (calendar_id, id)`.
 * `ON DELETE SET NULL` of a composite key names the one column it clears (PostgreSQL 15: 14 reached
 * its end of life in November 2026). Plain indexes keep the reads that work across calendars by
 * number fast: the change log by `(seq, idx)` (the change feed, pruning), and posts, terms and
 * images by `id` (an import asks whether the id it wants is free anywhere).
 *
 * SQLite is never spread over machines, and its integer primary keys are the rows' own storage
 * (the rowid): those stay. What changes there is what two calendars would otherwise collide on
 * and the `ON CONFLICT` targets the store names, which now name the calendar on both stores: the
 * federation tables (each calendar's actor has its own keys, state, followers and objects), edit
 * locks, preview revocations and imported locations. Table constraints change on SQLite only by
 * making the table anew; these tables are small.
 */
import { sql, type Kysely } from 'kysely';

/** Primary keys of calendar data that do not name the calendar yet (PostgreSQL). */
const PRIMARY_KEYS: Array<[table: string, columns: string[]]> = [
  ['posts', ['id']],
  ['terms', ['id']],
  ['images', ['id']],
  ['events', ['post_id']],
  ['venues', ['post_id']],
  ['organizers', ['post_id']],
  ['event_series', ['post_id']],
  ['event_occurrences', ['post_id']],
  ['event_locations', ['event_id']],
  ['preview_revocations', ['post_id']],
  ['event_organizers', ['event_id', 'organizer_id']],
  ['event_terms', ['event_id', 'term_id']],
  ['edit_locks', ['post_id', 'user_id']],
  ['occurrence_moves', ['series_id', 'day']],
  ['changes', ['seq', 'idx']],
  ['imports', ['id']],
  ['submissions', ['id']],
  ['submission_log', ['id']],
  ['submission_quota', ['id']],
  ['webhook_endpoints', ['id']],
  ['webhook_deliveries', ['id']],
  ['webhook_attempts', ['id']],
  ['calendar_follows', ['id']],
  ['federation_kv', ['key']],
  ['federation_keys', ['kind']],
  ['federation_state', ['id']],
  ['federation_followers', ['id']],
  ['federation_objects', ['event_id']],
  ['federation_activities', ['ord']],
  ['federation_deliveries', ['id']],
  ['federation_received', ['id']],
  ['federation_queue', ['id']],
];

/** Unique constraints of one column that become unique per calendar (PostgreSQL). */
const UNIQUE_COLUMNS: Array<[table: string, column: string]> = [
  ['submissions', 'token_hash'],
  ['federation_followers', 'actor_id'],
  ['federation_activities', 'id'],
];

/** Unique indexes that become unique per calendar (both stores). */
const UNIQUE_INDEXES: Array<[name: string, table: string, columns: string[]]> = [
  ['federation_deliveries_activity_inbox', 'federation_deliveries', ['activity_id', 'inbox']],
  ['event_occurrences_series', 'event_occurrences', ['series_id', 'original_start']],
];

/** Foreign keys between tables of calendar data: [table, column, referenced table, on delete]. */
const FOREIGN_KEYS: Array<[table: string, column: string, references: string, onDelete: 'cascade' | 'set null']> = [
  ['posts', 'image_id', 'images', 'set null'],
  ['events', 'post_id', 'posts', 'cascade'],
  ['events', 'venue_id', 'posts', 'set null'],
  ['venues', 'post_id', 'posts', 'cascade'],
  ['organizers', 'post_id', 'posts', 'cascade'],
  ['event_organizers', 'event_id', 'posts', 'cascade'],
  ['event_organizers', 'organizer_id', 'posts', 'cascade'],
  ['event_terms', 'event_id', 'posts', 'cascade'],
  ['event_terms', 'term_id', 'terms', 'cascade'],
  ['event_series', 'post_id', 'posts', 'cascade'],
  ['event_occurrences', 'post_id', 'posts', 'cascade'],
  ['event_occurrences', 'series_id', 'posts', 'cascade'],
  ['event_locations', 'event_id', 'posts', 'cascade'],
];

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/** The names of a table's constraints of one kind (p, u, f), with the columns they cover. */
async function constraintsOf(db: Kysely<any>, table: string, kind: 'p' | 'u' | 'f'): Promise<Array<{ name: string; columns: string[] }>> {
  const { rows } = await sql<{ name: string; columns: string[] }>`
    select c.conname as name, array(select a.attname from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o)::text[] as columns
    from pg_constraint c where c.conrelid = to_regclass(${`"${table}"`}) and c.contype = ${kind}`.execute(db);
  return rows;
}

async function postgres(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(db);
  if (Number(rows[0]!.v) < 150000) {
    throw new Error('migration 034_calendar_keys needs PostgreSQL 15 or later (a foreign key that clears one column of two); PostgreSQL 14 reached its end of life in November 2026');
  }
  // The foreign keys go first: they hold on to the keys being replaced.
  for (const [table] of FOREIGN_KEYS) {
    for (const fk of await constraintsOf(db, table, 'f')) {
      if (fk.columns.length === 1) await sql.raw(`alter table "${table}" drop constraint "${fk.name}"`).execute(db);
    }
  }
  for (const [table, columns] of PRIMARY_KEYS) {
    const [pk] = await constraintsOf(db, table, 'p');
    const drop = pk ? `drop constraint "${pk.name}", ` : '';
    await sql.raw(`alter table "${table}" ${drop}add constraint "${table}_pkey" primary key ("calendar_id", ${quoted(columns)})`).execute(db);
  }
  for (const [table, column] of UNIQUE_COLUMNS) {
    for (const u of await constraintsOf(db, table, 'u')) {
      if (u.columns.length === 1 && u.columns[0] === column) await sql.raw(`alter table "${table}" drop constraint "${u.name}"`).execute(db);
    }
    await sql.raw(`alter table "${table}" add constraint "${table}_${column}_key" unique ("calendar_id", "${column}")`).execute(db);
  }
  for (const [name, table, columns] of UNIQUE_INDEXES) {
    await sql.raw(`drop index if exists "${name}"`).execute(db);
    await sql.raw(`create unique index "${name}" on "${table}" ("calendar_id", ${quoted(columns)})`).execute(db);
  }
  // The change log's primary key is now what `changes_calendar` was; the reads across calendars
  // (the change feed's tail, pruning) go by number.
  await sql`drop index if exists "changes_calendar"`.execute(db);
  await sql`create index "changes_seq" on "changes" ("seq", "idx")`.execute(db);
  for (const table of ['posts', 'terms', 'images']) await sql.raw(`create index "${table}_id" on "${table}" ("id")`).execute(db);
  for (const [table, column, references, onDelete] of FOREIGN_KEYS) {
    const action = onDelete === 'cascade' ? 'cascade' : `set null ("${column}")`;
    await sql
      .raw(`alter table "${table}" add constraint "${table}_${column}_fkey" foreign key ("calendar_id", "${column}") references "${references}" ("calendar_id", "id") on delete ${action}`)
      .execute(db);
  }
}

/** SQLite: the tables made anew, with their indexes. */
const SQLITE_TABLES: Array<[table: string, create: string, indexes: string[]]> = [
  [
    'federation_kv',
    `("key" varchar(1000) not null, "value" text not null, "expires_ms" bigint, "calendar_id" integer default 1 not null, constraint "federation_kv_pk" primary key ("calendar_id", "key"))`,
    [],
  ],
  [
    'federation_keys',
    `("kind" varchar(40) not null, "private_jwk" text not null, "public_jwk" text not null, "created_gmt" varchar(19) not null, "calendar_id" integer default 1 not null, constraint "federation_keys_pk" primary key ("calendar_id", "kind"))`,
    [],
  ],
  ['federation_state', `("id" integer not null, "cursor_seq" bigint not null, "calendar_id" integer default 1 not null, constraint "federation_state_pk" primary key ("calendar_id", "id"))`, []],
  [
    'federation_followers',
    `("id" integer primary key autoincrement, "actor_id" varchar(1000) not null, "host" varchar(255) not null, "inbox" varchar(1000) not null, "shared_inbox" varchar(1000), "follow_id" varchar(1000) not null, "handle" varchar(300) default '' not null, "status" varchar(20) not null, "created_gmt" varchar(19) not null, "calendar_id" integer default 1 not null, constraint "federation_followers_actor_id_key" unique ("calendar_id", "actor_id"))`,
    [`create index "federation_followers_status" on "federation_followers" ("status", "id")`],
  ],
  [
    'federation_objects',
    `("event_id" integer not null, "state" varchar(10) not null, "digest" varchar(64) not null, "published_gmt" varchar(19) not null, "updated_gmt" varchar(19) not null, "updated_ms" bigint, "calendar_id" integer default 1 not null, constraint "federation_objects_pk" primary key ("calendar_id", "event_id"))`,
    [],
  ],
  [
    'federation_activities',
    `("ord" integer primary key autoincrement, "id" varchar(300) not null, "type" varchar(20) not null, "event_id" integer, "body" text not null, "created_gmt" varchar(19) not null, "calendar_id" integer default 1 not null, constraint "federation_activities_id_key" unique ("calendar_id", "id"))`,
    [],
  ],
  [
    'edit_locks',
    `("post_id" integer not null, "user_id" integer not null, "started_gmt" varchar(19) not null, "expires_ms" bigint not null, "calendar_id" integer default 1 not null, constraint "edit_locks_pk" primary key ("calendar_id", "post_id", "user_id"))`,
    [],
  ],
  [
    'preview_revocations',
    `("post_id" integer not null, "revoked_ms" bigint not null, "calendar_id" integer default 1 not null, constraint "preview_revocations_pk" primary key ("calendar_id", "post_id"))`,
    [],
  ],
  [
    'event_locations',
    `("event_id" integer not null references "posts" ("id") on delete cascade, "location" text not null, "calendar_id" integer default 1 not null, constraint "event_locations_pk" primary key ("calendar_id", "event_id"))`,
    [],
  ],
];

async function sqlite(db: Kysely<any>): Promise<void> {
  for (const [table, create, indexes] of SQLITE_TABLES) {
    const { rows } = await sql<{ name: string }>`select "name" from pragma_table_info(${table}) order by "cid"`.execute(db);
    const columns = quoted(rows.map((r) => r.name));
    await sql.raw(`create table "${table}_new" ${create}`).execute(db);
    await sql.raw(`insert into "${table}_new" (${columns}) select ${columns} from "${table}"`).execute(db);
    await sql.raw(`drop table "${table}"`).execute(db);
    await sql.raw(`alter table "${table}_new" rename to "${table}"`).execute(db);
    for (const index of indexes) await sql.raw(index).execute(db);
  }
  for (const [name, table, columns] of UNIQUE_INDEXES) {
    await sql.raw(`drop index if exists "${name}"`).execute(db);
    await sql.raw(`create unique index "${name}" on "${table}" ("calendar_id", ${quoted(columns)})`).execute(db);
  }
}

export function calendarKeysMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await (dialect === 'postgres' ? postgres(db) : sqlite(db));
    },
  };
}
