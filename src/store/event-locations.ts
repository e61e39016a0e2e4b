/**
 * Imported events' free-text locations (migration 029): kept when an iCalendar `LOCATION` names no
 * venue here, so the `.ics` export can write it back while the event has no venue.
 *
 * @example
 *   await putEventLocation(trx, 42, 'Room 12B');
 *   (await eventLocationsOf(db, [42])).get(42) // 'Room 12B'
 */
import { byChunks } from './lists.js';
import type { Executor } from './schema.js';

/** Keep an event's location text, or (null) drop it. */
export async function putEventLocation(db: Executor, eventId: number, location: string | null): Promise<void> {
  if (location === null) {
    await db.deleteFrom('event_locations').where('event_id', '=', eventId).execute();
    return;
  }
  await db
    .insertInto('event_locations')
    .values({ event_id: eventId, location })
    .onConflict((oc) => oc.columns(['calendar_id', 'event_id']).doUpdateSet({ location }))
    .execute();
}

/** The kept location texts of these events, by event id. */
export async function eventLocationsOf(db: Executor, eventIds: number[]): Promise<Map<number, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await byChunks(eventIds, (chunk) => db.selectFrom('event_locations').select(['event_id', 'location']).where('event_id', 'in', chunk).execute());
  return new Map(rows.map((r) => [Number(r.event_id), r.location]));
}
