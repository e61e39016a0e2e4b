/**
 * `seed --series N`: recurring events on top of the seeded calendar, bulk-loaded
 * (`store/seed.ts`) with exactly the rows the event service writes for the same series created
 * through the API: the series post (`tribe_event_series`) and its events row (hidden from lists),
 * its `event_series` row (normalised rules, horizon, complete), and per occurrence a post, an
 * events row and an `event_occurrences` row (ids after the series', `parent_id` = the series,
 * slugs `{series-slug}-{YYYY-MM-DD}`), venue and category links copied from the series, term
 * counts recounted (series not counted), and a `reset` note in the change log (every reader drops
 * what it keeps). The occurrences come from the service's own code (`plannedOccurrences`,
 * `domain/recurrence.ts`), not a copy.
 *
 * The mix (`kind`): `mixed` (the default) alternates weekly (on the weekday of their first date, no
 * end: bounded by RECURRENCE_HORIZON_MONTHS) and monthly series (the same weekday of the month's
 * n-th week, or the last one, 24 times); `weekly` and `monthly` make only one kind. Dates start
 * within the next 60 days at a whole hour between 09:00 and 20:00, in the site zone.
 *
 * @example await seedSeries(store, { series: 100, authorId: 1, timezone: 'UTC', horizonMonths: 60 }) // { series: 100, occurrences: 13_300, … }
 */
import { DateTime } from 'luxon';
import type { Store } from '../store/db.js';
import { bulkLoad, seriesLinkCandidates } from '../store/seed.js';
import { parseDateInput } from '../domain/dates/strtotime.js';
import { toWallTime, utcToWall, wallToUtc } from '../domain/dates/wall.js';
import { parseRecurrence, type Occurrence } from '../domain/recurrence.js';
import { occurrenceSlugBase, plannedOccurrences } from '../domain/series.js';
import { sanitizeSlug, uniqueSlug } from '../domain/slugs.js';
import { EVENT_COLUMNS, POST_COLUMNS, prng, wallOf, type Cell } from './common.js';

export const SERIES_KINDS = ['mixed', 'weekly', 'monthly'] as const;
export type SeriesKind = (typeof SERIES_KINDS)[number];

/** What the seed would send to `POST /events` for one series (the API input). */
export interface SeriesInput {
  title: string;
  description: string;
  status: 'publish';
  timezone: string;
  start_date: string;
  end_date: string;
  venue?: number;
  categories?: number[];
  recurrence: string[];
}

export interface SeriesPlanOptions {
  series: number;
  kind?: SeriesKind;
  seed?: number;
  /** the site zone: the series' zone and "today" */
  timezone: string;
  /** "today" for the start dates (default: now) */
  now?: Date;
  /** venue and category ids to pick from (none: the series get none) */
  venues: number[];
  categories: number[];
}

export interface SeriesSeedOptions {
  series: number;
  kind?: SeriesKind;
  authorId: number;
  /** site time zone (CALENDAR_TIMEZONE) */
  timezone: string;
  /** RECURRENCE_HORIZON_MONTHS */
  horizonMonths: number;
  seed?: number;
  /** the write time (publication and modification dates, the horizon; default: now) */
  now?: Date;
  /** occurrences per transaction, about (default 20,000; a series is never split) */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
}

const WEEKLY = ['Yoga', 'Pilates', 'Choir rehearsal', 'Chess club', 'Book circle', 'Running group', 'Life drawing', 'Salsa class'];
const MONTHLY = ['Board meeting', 'Repair café', 'Open mic', 'Town hall', 'Wine tasting', 'Quiz night'];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

/** The series the seed makes, as API inputs (deterministic for a seed, a zone and a day). */
export function seriesInputs(options: SeriesPlanOptions): SeriesInput[] {
  const random = prng(options.seed ?? 1);
  const kind = options.kind ?? 'mixed';
  const tz = options.timezone;
  const today = DateTime.fromJSDate(options.now ?? new Date())
    .setZone(tz)
    .startOf('day');
  const { venues, categories } = options;
  const out: SeriesInput[] = [];
  for (let i = 0; i < options.series; i++) {
    const weekly = kind === 'weekly' || (kind === 'mixed' && i % 2 === 0);
    const start = today.plus({ days: 1 + Math.floor(random() * 60), hours: 9 + Math.floor(random() * 12) });
    const day = DAYS[start.weekday - 1]!;
    const week = Math.ceil(start.day / 7);
    const names = weekly ? WEEKLY : MONTHLY;
    const rule = weekly ? 'RRULE:FREQ=WEEKLY' : `RRULE:FREQ=MONTHLY;BYDAY=${week >= 5 ? -1 : week}${day};COUNT=24`;
    out.push({
      title: `${names[Math.floor(random() * names.length)]} ${i + 1}`,
      description: weekly ? 'Every week, all levels welcome.' : 'Once a month.',
      status: 'publish',
      timezone: tz,
      start_date: toWallTime(start),
      end_date: toWallTime(start.plus({ minutes: weekly ? 60 : 120 })),
      ...(venues.length ? { venue: venues[Math.floor(random() * venues.length)] } : {}),
      ...(categories.length ? { categories: [categories[Math.floor(random() * categories.length)]!] } : {}),
      recurrence: [rule],
    });
  }
  return out;
}

/** A series ready to write: its input parsed as the service parses it, and its occurrences. */
interface PlannedSeries {
  input: SeriesInput;
  rules: string[];
  start_local: string;
  end_local: string;
  occurrences: Occurrence[];
  horizon: string;
  complete: boolean;
}

/**
 * Add `options.series` recurring events in bulk; resolves with how many series and occurrences
 * were written.
 */
export async function seedSeries(store: Store, options: SeriesSeedOptions): Promise<{ series: number; occurrences: number; milliseconds: number }> {
  const started = Date.now();
  const tz = options.timezone;
  const author = options.authorId;
  const batchSize = Math.max(1, options.batchSize ?? 20_000);
  const nowMs = Math.floor((options.now ?? new Date()).getTime() / 1000) * 1000;
  const nowGmt = wallOf(nowMs);
  const nowLocal = utcToWall(nowGmt, tz);
  let occurrenceCount = 0;

  // The same rules from the same first date expand to the same occurrences: expand each once.
  const expansions = new Map<string, ReturnType<typeof plannedOccurrences> & { rules: string[] }>();
  const plan = (input: SeriesInput): PlannedSeries => {
    // As the service reads its input (`schedule`): wall times parsed in the event's zone.
    const start_local = toWallTime(parseDateInput(input.start_date, input.timezone)!);
    const end_local = toWallTime(parseDateInput(input.end_date, input.timezone)!);
    const key = `${input.timezone}|${start_local}|${end_local}|${input.recurrence.join('\n')}`;
    let e = expansions.get(key);
    if (!e) {
      const rec = parseRecurrence(input.recurrence);
      e = { ...plannedOccurrences(rec, { start_local, end_local, timezone: input.timezone, all_day: false }, options.horizonMonths, nowGmt), rules: rec.lines };
      expansions.set(key, e);
    }
    return { input, rules: e.rules, start_local, end_local, occurrences: e.occurrences, horizon: e.horizon, complete: e.complete };
  };

  return bulkLoad(store, async (load) => {
    const candidates = await seriesLinkCandidates(load.db);
    const inputs = seriesInputs({ series: options.series, kind: options.kind, seed: options.seed, timezone: tz, now: new Date(nowMs), ...candidates });
    // Slugs: events and series share one space (a series' slug is unique among both); an
    // occurrence's is numbered against events only, as `materialise` numbers it.
    const eventSlugs = await load.existingSlugs('tribe_events');
    const seriesSlugs = await load.existingSlugs('tribe_event_series');
    const termIds = new Set<number>();

    const write = async (batch: PlannedSeries[]) => {
      const total = batch.reduce((n, s) => n + 1 + s.occurrences.length, 0);
      await load.transaction(async (tx) => {
        const ids = await tx.reserveIds('posts', total);
        const posts: Cell[][] = [];
        const events: Cell[][] = [];
        const series: Cell[][] = [];
        const occurrences: Cell[][] = [];
        const termLinks: Cell[][] = [];
        let next = 0;
        for (const s of batch) {
          const input = s.input;
          const id = ids[next++]!;
          const slug = await uniqueSlug(sanitizeSlug(input.title) || 'event', (c) => eventSlugs.has(c) || seriesSlugs.has(c));
          seriesSlugs.add(slug);
          const venue = input.venue ?? null;
          const terms = input.categories ?? [];
          // The series: published now, hidden from lists (its own flag, 0, is kept with its rules).
          posts.push([id, 'tribe_event_series', author, input.status, '', input.title, input.description, '', slug, nowLocal, nowGmt, nowLocal, nowGmt, 0, null]);
          events.push([id, s.start_local, s.end_local, wallToUtc(s.start_local, input.timezone), wallToUtc(s.end_local, input.timezone), input.timezone, 0, null, '', '', null, 0, 0, 1, 0, 0, venue]);
          for (const t of terms) termLinks.push([id, t]);
          series.push([id, JSON.stringify(s.rules), s.horizon, s.complete ? 1 : 0, 0]);
          // Its occurrences, in order of their starts, with the series' fields.
          const used = new Set<string>();
          for (const o of s.occurrences) {
            const oid = ids[next++]!;
            const base = occurrenceSlugBase(slug, o.start_local);
            let oslug = base;
            for (let n = 2; used.has(oslug) || eventSlugs.has(oslug); n++) oslug = `${base}-${n}`;
            used.add(oslug);
            eventSlugs.add(oslug);
            posts.push([oid, 'tribe_events', author, input.status, '', input.title, input.description, '', oslug, nowLocal, nowGmt, nowLocal, nowGmt, id, null]);
            events.push([oid, o.start_local, o.end_local, o.start_utc, o.end_utc, input.timezone, 0, null, '', '', null, 0, 0, 0, 0, 0, venue]);
            occurrences.push([oid, id, o.start_local, 0]);
            for (const t of terms) termLinks.push([oid, t]);
          }
          for (const t of terms) termIds.add(t);
          occurrenceCount += s.occurrences.length;
        }
        await tx.insert('posts', POST_COLUMNS, posts);
        await tx.insert('events', EVENT_COLUMNS, events);
        await tx.insert('event_series', ['post_id', 'rules', 'horizon_local', 'complete', 'hide_from_listings'], series);
        await tx.insert('event_occurrences', ['post_id', 'series_id', 'original_start', 'exception'], occurrences);
        await tx.insert('event_terms', ['event_id', 'term_id'], termLinks);
      });
    };

    let batch: PlannedSeries[] = [];
    let pending = 0;
    let done = 0;
    options.onProgress?.(0, inputs.length);
    for (const input of inputs) {
      const s = plan(input);
      batch.push(s);
      pending += 1 + s.occurrences.length;
      if (pending >= batchSize) {
        await write(batch);
        done += batch.length;
        options.onProgress?.(done, inputs.length);
        batch = [];
        pending = 0;
      }
    }
    if (batch.length) {
      await write(batch);
      done += batch.length;
      options.onProgress?.(done, inputs.length);
    }
    // Term counts: each category's published events (the series themselves are not counted).
    await load.analyze();
    await load.recountTerms([...termIds]);
    return { series: inputs.length, occurrences: occurrenceCount, milliseconds: Date.now() - started };
  });
}
