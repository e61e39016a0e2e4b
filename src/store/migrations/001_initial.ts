/**
 * The initial schema: every resource of the API (events, venues, organizers, terms and their
 * links, images, users, application passwords), for SQLite and PostgreSQL alike.
 */
import type { Kysely } from 'kysely';

/** Column type of an auto-incrementing primary key per dialect. */
function idColumn(dialect: 'sqlite' | 'postgres') {
  return dialect === 'postgres' ? 'serial' : 'integer';
}

export function initialMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const id = idColumn(dialect);
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

      await db.schema
        .createTable('users')
        .addColumn('id', id, pk)
        .addColumn('login', 'varchar(60)', (c) => c.notNull().unique())
        .addColumn('email', 'varchar(100)', (c) => c.notNull().defaultTo(''))
        .addColumn('display_name', 'varchar(250)', (c) => c.notNull().defaultTo(''))
        .addColumn('role', 'varchar(20)', (c) => c.notNull())
        .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
        .addColumn('registered_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('app_passwords')
        .addColumn('id', id, pk)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('last_used_gmt', 'varchar(19)')
        .execute();
      await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();

      await db.schema
        .createTable('images')
        .addColumn('id', id, pk)
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('extension', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('mime_type', 'varchar(100)', (c) => c.notNull().defaultTo(''))
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('images_url').on('images').column('url').execute();

      await db.schema
        .createTable('posts')
        .addColumn('id', id, pk)
        .addColumn('type', 'varchar(20)', (c) => c.notNull())
        .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('pre_trash_status', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('slug', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('date_local', 'varchar(19)', (c) => c.notNull())
        .addColumn('date_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('modified_local', 'varchar(19)', (c) => c.notNull())
        .addColumn('modified_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('image_id', 'integer', (c) => c.references('images.id').onDelete('set null'))
        .execute();
      await db.schema.createIndex('posts_type_slug').on('posts').columns(['type', 'slug']).execute();
      await db.schema.createIndex('posts_type_status_date').on('posts').columns(['type', 'status', 'date_gmt', 'id']).execute();
      await db.schema.createIndex('posts_parent').on('posts').column('parent_id').execute();
      await db.schema.createIndex('posts_author').on('posts').column('author_id').execute();

      await db.schema
        .createTable('events')
        .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        .addColumn('start_local', 'varchar(19)', (c) => c.notNull())
        .addColumn('end_local', 'varchar(19)', (c) => c.notNull())
        .addColumn('start_utc', 'varchar(19)', (c) => c.notNull())
        .addColumn('end_utc', 'varchar(19)', (c) => c.notNull())
        .addColumn('timezone', 'varchar(64)', (c) => c.notNull())
        .addColumn('all_day', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cost', 'text')
        .addColumn('currency_symbol', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('currency_position', 'varchar(10)', (c) => c.notNull().defaultTo(''))
        .addColumn('website', 'text')
        .addColumn('show_map', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('show_map_link', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hide_from_listings', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sticky', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('featured', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('venue_id', 'integer', (c) => c.references('posts.id').onDelete('set null'))
        .execute();
      await db.schema.createIndex('events_start').on('events').columns(['start_local', 'post_id']).execute();
      await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();

      await db.schema
        .createTable('venues')
        .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        .addColumn('address', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('province', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('state', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('zip', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('stateprovince', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('show_map', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('show_map_link', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('geo_lat', 'double precision')
        .addColumn('geo_lng', 'double precision')
        .execute();

      await db.schema
        .createTable('organizers')
        .addColumn('post_id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
        .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
        .execute();

      await db.schema
        .createTable('event_organizers')
        .addColumn('event_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
        .addColumn('organizer_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('event_organizers_pk', ['event_id', 'organizer_id'])
        .execute();
      await db.schema.createIndex('event_organizers_organizer').on('event_organizers').columns(['organizer_id', 'event_id']).execute();

      await db.schema
        .createTable('terms')
        .addColumn('id', id, pk)
        .addColumn('taxonomy', 'varchar(32)', (c) => c.notNull())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('slug', 'varchar(200)', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('terms_taxonomy_slug', ['taxonomy', 'slug'])
        .execute();
      await db.schema.createIndex('terms_taxonomy_name').on('terms').columns(['taxonomy', 'name']).execute();
      await db.schema.createIndex('terms_parent').on('terms').columns(['taxonomy', 'parent_id']).execute();

      await db.schema
        .createTable('event_terms')
        .addColumn('event_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
        .addColumn('term_id', 'integer', (c) => c.notNull().references('terms.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('event_terms_pk', ['event_id', 'term_id'])
        .execute();
      await db.schema.createIndex('event_terms_term').on('event_terms').columns(['term_id', 'event_id']).execute();
    },
  };
}
