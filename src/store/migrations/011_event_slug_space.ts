/**
 * Events and recurring events' series share one slug space (by-slug routes find either),
 * and from here on the database enforces it as it enforces each post type's own (migration 006):
 * a unique index on `posts (slug)` for the two types. A create then needs no lock to pick its slug
 * (one statement fewer on PostgreSQL): two concurrent writes that pick the same one meet
 * the index, and the loser is run again (`writeTransaction`), finding the slug taken.
 *
 * Slugs already shared by an event and a series (a race before this version) are made unique
 * first, as migration 006 did: the oldest post keeps the slug, the others get the first free
 * `-2`, `-3`, … in the space; a `reset` entry in the change log tells running servers.
 */
import { sql, type Kysely } from 'kysely';
import { numberDuplicateSlugs } from './slug-duplicates.js';

export function eventSlugSpaceMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await numberDuplicateSlugs(db, [['tribe_events', 'tribe_event_series']]);
      await sql`create unique index posts_event_slug_unique on posts (slug) where slug <> '' and type in ('tribe_events', 'tribe_event_series')`.execute(db);
    },
  };
}
