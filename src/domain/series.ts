/**
 * Recurring events' occurrences (issue 15): generating them from their series (`materialise`),
 * splitting a series (`recurrence_scope=following`), and the rule edits that come with it. Called
 * by the event service inside its write transactions, and by the horizon job
 * (`src/recurrence/horizon.ts`).
 *
 * Occurrences are keyed by (series, generated start): regenerating finds each existing one by its
 * key and keeps its id; occurrences marked as exceptions (edited or deleted one by one) are never
 * rewritten, resurrected or removed by a regeneration.
 *
 * @example
 *   await writeTransaction(db, (trx) => materialise(trx, 42, { horizonMonths: 60, clock }, { rewrite: true }));
 */
import { DateTime } from 'luxon';
import type { Executor } from '../store/schema.js';
import * as eventsStore from '../store/events.js';
import * as recurrenceStore from '../store/recurrence.js';
import { expandOccurrences, horizonWall, parseRecurrence, type Occurrence, type Recurrence, type SeriesStart } from './recurrence.js';
import type { Clock } from './linked-posts.js';
import { truncateSlug } from './slugs.js';
import * as postsStore from '../store/posts.js';
import { wallToUtc } from './dates.js';

export interface SeriesDeps {
  horizonMonths: number;
  clock: Clock;
}

/** The wall time far enough ahead that every rule with an end has ended (for `complete`). */
const END_OF_TIME = '9999-01-01 00:00:00';

function firstOf(series: eventsStore.EventRecord): SeriesStart {
  return { start_local: series.start_local, end_local: series.end_local, timezone: series.timezone, all_day: Number(series.all_day) === 1 };
}

/** The slug an occurrence starting at `start` (wall time) is given before numbering: `{series-slug}-{YYYY-MM-DD}`. */
export function occurrenceSlugBase(seriesSlug: string, start: string): string {
  return `${truncateSlug(seriesSlug || 'event', 188)}-${start.slice(0, 10)}`;
}

/**
 * The occurrences a series' rules generate up to the horizon (`horizonMonths` ahead of `nowGmt`, in
 * the event's zone), the horizon, and whether the rules end before it (`complete`). Used by
 * `materialise` and by the bulk seed (`seed --series`), so both write the same rows.
 */
export function plannedOccurrences(rec: Recurrence, first: SeriesStart, horizonMonths: number, nowGmt: string): { occurrences: Occurrence[]; horizon: string; complete: boolean } {
  const horizon = horizonWall(first.timezone, horizonMonths, DateTime.fromSQL(nowGmt, { zone: 'utc' }));
  const occurrences = expandOccurrences(rec, first, horizon);
  const bounded = rec.rule === undefined || rec.count !== undefined || rec.until !== undefined;
  const complete = bounded && expandOccurrences(rec, first, END_OF_TIME).length === occurrences.length;
  return { occurrences, horizon, complete };
}

/** Slugs for new occurrences: `{series-slug}-{YYYY-MM-DD}`, numbered when taken. */
async function occurrenceSlugs(trx: Executor, seriesSlug: string, starts: string[]): Promise<string[]> {
  const bases = starts.map((s) => occurrenceSlugBase(seriesSlug, s));
  const taken = await recurrenceStore.takenEventSlugs(trx, [...new Set(bases)]);
  const used = new Set<string>();
  const out: string[] = [];
  for (const base of bases) {
    let slug = base;
    for (let n = 2; used.has(slug) || taken.has(slug); n++) {
      slug = `${base}-${n}`;
      if (!used.has(slug) && (await postsStore.isSlugTaken(trx, 'tribe_events', slug))) taken.add(slug);
    }
    used.add(slug);
    out.push(slug);
  }
  return out;
}

/**
 * Bring a series' occurrences in line with its rules up to the horizon (`RECURRENCE_HORIZON_MONTHS`
 * ahead of now, in the event's zone): insert the missing ones, delete those the rules no longer
 * generate (exceptions excepted), and with `rewrite` copy the series' fields to every other one.
 * Returns the ids inserted.
 */
export async function materialise(trx: Executor, seriesId: number, deps: SeriesDeps, options: { rewrite: boolean; scheduleChanged?: boolean }): Promise<number[]> {
  const [series] = await eventsStore.findEventsByIds(trx, [seriesId]);
  const row = (await recurrenceStore.findSeries(trx, [seriesId])).get(seriesId);
  if (!series || !row) return [];
  const rec = parseRecurrence(row.rules);
  const { occurrences, horizon, complete } = plannedOccurrences(rec, firstOf(series), deps.horizonMonths, deps.clock.nowGmt());
  const existing = await recurrenceStore.occurrencesOf(trx, seriesId);
  const byKey = new Map(existing.map((o) => [o.original_start, o]));
  const wanted = new Set(occurrences.map((o) => o.start_local));
  const missing = occurrences.filter((o) => !byKey.has(o.start_local));
  const slugs = await occurrenceSlugs(
    trx,
    series.slug,
    missing.map((o) => o.start_local),
  );
  const linkRows = await Promise.all([eventsStore.organizerLinksOf(trx, [seriesId]), eventsStore.termLinksOf(trx, [seriesId])]);
  const copy: recurrenceStore.SeriesCopy = {
    series,
    hideFromListings: row.hide_from_listings,
    organizers: linkRows[0].map((l) => Number(l.organizer_id)),
    terms: linkRows[1].map((l) => Number(l.term_id)),
    nowLocal: deps.clock.nowLocal(),
    nowGmt: deps.clock.nowGmt(),
  };
  const gone = existing.filter((o) => !o.exception && !wanted.has(o.original_start)).map((o) => o.post_id);
  await recurrenceStore.deleteOccurrences(trx, gone);
  const inserted = await recurrenceStore.insertOccurrences(
    trx,
    copy,
    missing.map((o, i) => ({ ...o, slug: slugs[i]! })),
  );
  if (options.rewrite) {
    const kept = occurrences.filter((o) => byKey.has(o.start_local) && !byKey.get(o.start_local)!.exception);
    const schedules = new Map<number, Omit<recurrenceStore.NewOccurrence, 'slug'>>();
    if (options.scheduleChanged) for (const o of kept) schedules.set(byKey.get(o.start_local)!.post_id, o);
    await recurrenceStore.rewriteOccurrences(
      trx,
      copy,
      kept.map((o) => byKey.get(o.start_local)!.post_id),
      schedules,
    );
  }
  await recurrenceStore.updateSeries(trx, seriesId, { horizon_local: horizon, complete });
  return inserted;
}

/**
 * The rules of a series cut so that it ends before `at` (a generated start, wall time in `tz`):
 * COUNT and UNTIL give way to an UNTIL one second before it (a date, the day before, for all-day
 * series); RDATEs from `at` on are dropped.
 */
export function rulesEndingBefore(rec: Recurrence, at: string, tz: string, allDay: boolean): string[] {
  const until = allDay
    ? DateTime.fromSQL(at.slice(0, 10), { zone: 'utc' }).minus({ days: 1 }).toFormat('yyyyMMdd')
    : DateTime.fromSQL(wallToUtc(at, tz), { zone: 'utc' }).minus({ seconds: 1 }).toFormat("yyyyMMdd'T'HHmmss'Z'");
  return rec.lines.flatMap((line) => {
    if (line.startsWith('RRULE:')) {
      const parts = line
        .slice(6)
        .split(';')
        .filter((p) => !p.startsWith('COUNT=') && !p.startsWith('UNTIL='));
      return [`RRULE:${[...parts, `UNTIL=${until}`].join(';')}`];
    }
    return [line];
  });
}

/**
 * The rules of the series that continues another from `at` (a split): the same lines, with a COUNT
 * reduced by the occurrences the rule generated before `at`.
 */
export function rulesContinuingFrom(rec: Recurrence, first: SeriesStart, at: string): string[] {
  if (rec.count === undefined || rec.rule === undefined) return rec.lines;
  const before = expandOccurrences({ ...rec, rdates: [], exdates: [] }, first, at).length;
  const left = Math.max(1, rec.count - before);
  return rec.lines.map((line) => (line.startsWith('RRULE:') ? line.replace(/COUNT=\d+/, `COUNT=${left}`) : line));
}
