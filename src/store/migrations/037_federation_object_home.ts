/**
 * The actor identifier each federated object was first announced under
 * (`federation_objects.home`): a calendar's objects keep the ids they were announced with after
 * its slug changes (docs/federation.md, "Many calendars"). Their URLs stay under the former
 * identifier's actor (`/federation/actors/{home}/events/{id}`), which keeps answering them, and
 * their later Updates and Deletes come from that actor, signed with its key id, as the servers
 * that hold them match an Update to the object's id and to the account that sent the Create.
 *
 * Null for the default calendar's objects (its handle never changes) and for objects not yet
 * announced. Objects of other calendars announced before this migration are under their
 * calendar's current slug (a rename before it sent their Updates under the new actor already).
 */
import { sql, type Kysely } from 'kysely';

export function federationObjectHomeMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('federation_objects').addColumn('home', 'varchar(60)').execute();
      await sql`update "federation_objects" set "home" = (select "c"."slug" from "calendars" as "c" where "c"."id" = "federation_objects"."calendar_id")
        where "calendar_id" <> 1 and "state" in ('live', 'gone')`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('federation_objects').dropColumn('home').execute();
    },
  };
}
