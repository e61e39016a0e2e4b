/**
 * The `updated` time of each federated object, to the millisecond (docs/federation.md).
 *
 * - `federation_objects.updated_ms`: the `updated` (or, for a deleted event, the Tombstone's
 *   `deleted`) last sent for the event, in milliseconds since the epoch. Each activity about an
 *   object carries a later one than the last (at least a millisecond later), so that a receiver
 *   keeping the newest version of an object applies two edits made within one second in order,
 *   where `updated_gmt` (seconds) gave both the same time. Null for rows written before: their
 *   `updated_gmt` (when the step that sent them ran) bounds what they sent.
 * - state `waiting`: an occurrence published (or changed) while federation is on that starts too
 *   far ahead to announce yet; the outbox's sweep announces the waiting ones as they come within
 *   its horizon (an occurrence of a series published before federation started is not waiting,
 *   and not announced until the series is edited). Where federation has already run (a cursor
 *   exists), the upcoming public occurrences not sent yet are marked waiting, as the sweep sent
 *   every such occurrence before.
 */
import { sql, type Kysely } from 'kysely';

export function federationObjectTimesMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('federation_objects').addColumn('updated_ms', 'bigint').execute();
      const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
      await sql`insert into "federation_objects" ("event_id", "state", "digest", "published_gmt", "updated_gmt", "updated_ms")
        select "p"."id", 'waiting', '', ${now}, ${now}, null from "posts" as "p" join "events" as "e" on "e"."post_id" = "p"."id"
        where "p"."type" = 'tribe_events' and "p"."parent_id" > 0 and "p"."status" = 'publish' and "e"."start_utc" > ${now}
          and exists (select 1 from "federation_state")
          and not exists (select 1 from "federation_objects" as "o" where "o"."event_id" = "p"."id")`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.deleteFrom('federation_objects').where('state', '=', 'waiting').execute();
      await db.schema.alterTable('federation_objects').dropColumn('updated_ms').execute();
    },
  };
}
