/**
 * `seed --series N` (issue 15): recurring events on top of the seeded calendar, written through the
 * event service exactly as the API writes them (series, occurrences, links, change log): half
 * weekly (on the weekday of their first date, no end: bounded by RECURRENCE_HORIZON_MONTHS), half
 * monthly (the same weekday of the month's n-th week, or the last one, 24 times). Dates start
 * within the next 60 days at a whole hour between 09:00 and 20:00, in the site zone.
 *
 * @example await seedSeries(services, { series: 100, authorId: 1, seed: 1 }) // { series: 100, occurrences: 13_300, … }
 */
import { DateTime } from 'luxon';
import type { Services } from './services.js';
import { viewerOf } from './permissions.js';
import { prng } from './seed.js';
import { toWallTime } from './dates.js';

export interface SeriesSeedOptions {
  series: number;
  authorId: number;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

const WEEKLY = ['Yoga', 'Pilates', 'Choir rehearsal', 'Chess club', 'Book circle', 'Running group', 'Life drawing', 'Salsa class'];
const MONTHLY = ['Board meeting', 'Repair café', 'Open mic', 'Town hall', 'Wine tasting', 'Quiz night'];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

/** Add `series` recurring events; resolves with how many series and occurrences were written. */
export async function seedSeries(services: Services, options: SeriesSeedOptions): Promise<{ series: number; occurrences: number; milliseconds: number }> {
  const started = Date.now();
  const random = prng(options.seed ?? 1);
  const db = services.store.db;
  const author = viewerOf({ id: options.authorId, login: 'seed', role: 'administrator' });
  const venues = (await db.selectFrom('posts').select('id').where('type', '=', 'tribe_venue').where('status', '=', 'publish').orderBy('id').limit(200).execute()).map((r) => Number(r.id));
  const categories = (await db.selectFrom('terms').select('id').where('taxonomy', '=', 'tribe_events_cat').orderBy('id').limit(50).execute()).map((r) => Number(r.id));
  const tz = services.config.timezone;
  const today = DateTime.now().setZone(tz).startOf('day');
  let occurrences = 0;
  for (let i = 0; i < options.series; i++) {
    const weekly = i % 2 === 0;
    const start = today.plus({ days: 1 + Math.floor(random() * 60), hours: 9 + Math.floor(random() * 12) });
    const day = DAYS[start.weekday - 1]!;
    const week = Math.ceil(start.day / 7);
    const names = weekly ? WEEKLY : MONTHLY;
    const rule = weekly ? 'RRULE:FREQ=WEEKLY' : `RRULE:FREQ=MONTHLY;BYDAY=${week >= 5 ? -1 : week}${day};COUNT=24`;
    const created = await services.events.create(author, {
      title: `${names[Math.floor(random() * names.length)]} ${i + 1}`,
      description: weekly ? 'Every week, all levels welcome.' : 'Once a month.',
      status: 'publish',
      timezone: tz,
      start_date: toWallTime(start),
      end_date: toWallTime(start.plus({ minutes: weekly ? 60 : 120 })),
      ...(venues.length ? { venue: venues[Math.floor(random() * venues.length)] } : {}),
      ...(categories.length ? { categories: [categories[Math.floor(random() * categories.length)]] } : {}),
      recurrence: [rule],
    });
    occurrences += Number(
      (
        await db
          .selectFrom('event_occurrences')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('series_id', '=', Number(created.id))
          .executeTakeFirstOrThrow()
      ).n,
    );
    options.onProgress?.(i + 1, options.series);
  }
  return { series: options.series, occurrences, milliseconds: Date.now() - started };
}
