/**
 * The network search: the published, public, listed events of every active calendar whose title
 * or description holds the words, each once (as its original), with its calendar. One statement
 * across calendars (`store/network.ts` `searchNetwork`); the dates are read as every list reads them.
 *
 * @example await searchNetwork(ctx, { search: 'jazz', startDate: '2027-01-01', page: 1, perPage: 10 });
 */
import * as store from '../store/network.js';
import type { DomainContext } from './context.js';
import { parseDateInput } from './dates/strtotime.js';
import { endOfDay, type WallTime } from './dates/wall.js';
import { invalidParams } from './errors.js';
import { createLinks } from './links.js';

export interface NetworkSearchItem {
  id: number;
  title: string;
  start_date: string;
  end_date: string;
  all_day: boolean;
  timezone: string;
  url: string;
  calendar: { slug: string; name: string; url: string };
}

export interface NetworkQuery {
  search: string;
  startDate?: string;
  endDate?: string;
  page: number;
  perPage: number;
}

export async function searchNetwork(ctx: DomainContext, { search, startDate, endDate, page, perPage }: NetworkQuery): Promise<{ items: NetworkSearchItem[]; total: number }> {
  const { calendars } = ctx;
  const db = ctx.store.db;
  // Dates as every list reads them (any strtotime form), in wall time: each calendar's events are in their own.
  const wall = (name: string, v: string | undefined) => {
    if (v === undefined || v === '') return undefined;
    const d = parseDateInput(v, ctx.config.timezone);
    if (!d) throw invalidParams({ [name]: `${name} is not a date.` });
    return d.toFormat('yyyy-MM-dd HH:mm:ss');
  };
  const startLocal = wall('start_date', startDate);
  // As the events list reads it (the original's rule): an end date is that day's end, so a bare
  // date keeps the day's events.
  const endWall = wall('end_date', endDate);
  const endLocal = endWall === undefined ? undefined : endOfDay(endWall as WallTime);
  const { rows, total } = await store.searchNetwork(db, {
    search,
    ...(startLocal ? { startLocal } : {}),
    ...(endLocal ? { endLocal } : {}),
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const items: NetworkSearchItem[] = [];
  for (const r of rows) {
    const url = calendars.urlOf({ id: r.calendar_id, slug: r.calendar_slug, host: r.calendar_host } as Parameters<typeof calendars.urlOf>[0]);
    items.push({
      id: r.id,
      title: r.title,
      start_date: r.start_local,
      end_date: r.end_local,
      all_day: r.all_day === 1,
      timezone: r.timezone,
      url: createLinks(url, '', '').eventPermalink(r.slug),
      calendar: { slug: r.calendar_slug, name: r.calendar_name, url },
    });
  }
  return { items, total };
}
