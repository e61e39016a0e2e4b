/**
 * The index of every event post, for `GET calendar/admin/v1/events`: singles, series
 * and their occurrences, in every status, hidden ones included, by id, with what an importer needs
 * to rebuild series (each occurrence's series, generated start and whether it was edited or
 * deleted alone). The event lists never show hidden events, series or trashed occurrences.
 *
 * @example
 *   const { rows, total } = await eventIndexPage(db, { limit: 100, offset: 0 });
 */
import type { Executor } from './schema.js';

export interface EventIndexRow {
  id: number;
  type: 'event' | 'series';
  status: string;
  hide_from_listings: boolean;
  /** occurrences only */
  series_id: number | null;
  original_start: string | null;
  exception: boolean;
}

export async function eventIndexPage(db: Executor, page: { limit: number; offset: number }): Promise<{ rows: EventIndexRow[]; total: number }> {
  const base = db.selectFrom('posts').where('posts.type', 'in', ['tribe_events', 'tribe_event_series']);
  const counted = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .leftJoin('events', 'events.post_id', 'posts.id')
    .leftJoin('event_occurrences', 'event_occurrences.post_id', 'posts.id')
    .leftJoin('event_series', 'event_series.post_id', 'posts.id')
    .select([
      'posts.id',
      'posts.type',
      'posts.status',
      'events.hide_from_listings as event_hidden',
      'event_series.hide_from_listings as series_hidden',
      'event_occurrences.series_id',
      'event_occurrences.original_start',
      'event_occurrences.exception',
    ])
    .orderBy('posts.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return {
    total: Number(counted.n),
    rows: rows.map((r) => ({
      id: Number(r.id),
      type: r.type === 'tribe_event_series' ? 'series' : 'event',
      status: r.status,
      hide_from_listings: Number((r.type === 'tribe_event_series' ? r.series_hidden : r.event_hidden) ?? 0) === 1,
      series_id: r.series_id === null || r.series_id === undefined ? null : Number(r.series_id),
      original_start: r.original_start ?? null,
      exception: Number(r.exception ?? 0) === 1,
    })),
  };
}
