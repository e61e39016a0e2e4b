/**
 * The index of every event post for administrators and importers: see
 * `src/store/event-index.ts` and the route `GET calendar/admin/v1/events`.
 */
import type { Executor } from '../store/schema.js';
import { eventIndexPage, type EventIndexRow } from '../store/event-index.js';

export type { EventIndexRow };

/** One page of the index, in its wire form. */
export async function eventIndex(db: Executor, page: number, perPage: number): Promise<{ items: Record<string, unknown>[]; total: number; totalPages: number }> {
  const { rows, total } = await eventIndexPage(db, { limit: perPage, offset: (page - 1) * perPage });
  const items = rows.map((r) => ({
    id: r.id,
    type: r.type,
    status: r.status,
    hide_from_listings: r.hide_from_listings,
    ...(r.series_id !== null ? { recurring_event_id: r.series_id, original_start_date: r.original_start, exception: r.exception } : {}),
  }));
  return { items, total, totalPages: Math.ceil(total / perPage) };
}
