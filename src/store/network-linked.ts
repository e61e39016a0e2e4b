/**
 * Networks of calendars: the venues and organizers a follow mirrored into the calendar at hand
 * (`network_linked`, migration 033), whether a record is one, which of them events still use, and
 * the categories of a source event as a copy takes them. Every statement keeps to the calendar at
 * hand (the calendar scope); the rules are the network service's (`domain/network-linked.ts`).
 *
 * @example
 *   await inCalendar(b, () => saveMirror(db, { follow_id: 3, kind: 'venue', source_id: 12, post_id: 40, … }));
 *   await inCalendar(b, () => linkedInUse(db, 'venue', [40]));   // Set {40} while a live event uses it
 */
import type { Insertable, Selectable } from 'kysely';
import type { Executor, NetworkLinkedTable } from './schema.js';

export type MirrorRow = Selectable<NetworkLinkedTable>;

/** The records a follow mirrored into this calendar. */
export async function mirrorsOfFollow(db: Executor, followId: number): Promise<MirrorRow[]> {
  return db.selectFrom('network_linked').selectAll().where('follow_id', '=', followId).orderBy('kind').orderBy('source_id').execute();
}

/** The mirrored record of one source record, when there is one. */
export async function findMirror(db: Executor, followId: number, kind: MirrorRow['kind'], sourceId: number): Promise<MirrorRow | undefined> {
  return db.selectFrom('network_linked').selectAll().where('follow_id', '=', followId).where('kind', '=', kind).where('source_id', '=', sourceId).executeTakeFirst();
}

/** Note (or move) the mirrored record of a source record. */
export async function saveMirror(db: Executor, row: Insertable<NetworkLinkedTable>): Promise<void> {
  await db
    .insertInto('network_linked')
    .values(row)
    .onConflict((oc) => oc.columns(['calendar_id', 'follow_id', 'kind', 'source_id']).doUpdateSet({ post_id: row.post_id, source_digest: row.source_digest }))
    .execute();
}

export async function setMirrorDigest(db: Executor, followId: number, kind: MirrorRow['kind'], sourceId: number, digest: string): Promise<void> {
  await db.updateTable('network_linked').set({ source_digest: digest }).where('follow_id', '=', followId).where('kind', '=', kind).where('source_id', '=', sourceId).execute();
}

/** Forget the follow's mirror of one venue or organizer (by the mirrored record's id here). */
export async function deleteMirror(db: Executor, followId: number, kind: MirrorRow['kind'], postId: number): Promise<void> {
  await db.deleteFrom('network_linked').where('follow_id', '=', followId).where('kind', '=', kind).where('post_id', '=', postId).execute();
}

export async function deleteMirrorsOfFollow(db: Executor, followId: number): Promise<void> {
  await db.deleteFrom('network_linked').where('follow_id', '=', followId).execute();
}

/** Whether this venue or organizer of the calendar is a mirrored one. */
export async function isMirrored(db: Executor, postId: number): Promise<boolean> {
  return (await db.selectFrom('network_linked').select('post_id').where('post_id', '=', postId).limit(1).executeTakeFirst()) !== undefined;
}

/** Which of these venues (or organizers) an event of the calendar that is not trashed links to. */
export async function linkedInUse(db: Executor, kind: MirrorRow['kind'], ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows =
    kind === 'venue'
      ? await db
          .selectFrom('events')
          .innerJoin('posts', 'posts.id', 'events.post_id')
          .select('events.venue_id as id')
          .distinct()
          .where('events.venue_id', 'in', [...ids])
          .where('posts.status', '!=', 'trash')
          .execute()
      : await db
          .selectFrom('event_organizers')
          .innerJoin('posts', 'posts.id', 'event_organizers.event_id')
          .select('event_organizers.organizer_id as id')
          .distinct()
          .where('event_organizers.organizer_id', 'in', [...ids])
          .where('posts.status', '!=', 'trash')
          .execute();
  return new Set(rows.map((r) => Number(r.id)));
}

/** The categories of an event of this calendar (name and slug), read from the tables. */
export async function categoriesOfEvent(db: Executor, eventId: number): Promise<Array<{ name: string; slug: string }>> {
  return db
    .selectFrom('event_terms')
    .innerJoin('terms', 'terms.id', 'event_terms.term_id')
    .select(['terms.name', 'terms.slug'])
    .where('event_terms.event_id', '=', eventId)
    .where('terms.taxonomy', '=', 'tribe_events_cat')
    .orderBy('terms.name')
    .execute();
}
