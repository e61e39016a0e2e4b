/**
 * Writes of recurring events: an update or trash of a series, or of one occurrence with
 * its scope (`this`: an exception; `following`: the series is split; `all`: the series), a single
 * event given rules (it becomes a series) and a series given none (it becomes a single event
 * again); and the reads feeds make of a series. Occurrences are generated within the write, at
 * most OCCURRENCES_PER_WRITE of them (the horizon job generates the rest).
 *
 * @example
 *   const series = createSeriesWrites(deps, writes);
 *   await series.update(viewer, occurrence, { title: 'Jazz', recurrence_scope: 'following' });
 */
import type { Executor } from '../../store/schema.js';
import * as eventsStore from '../../store/events.js';
import type { EventRecord } from '../../store/events.js';
import * as postsStore from '../../store/posts.js';
import * as recurrenceStore from '../../store/recurrence.js';
import { recountTerms } from '../../store/terms.js';
import { writeTransaction } from '../../store/changes.js';
import { apiError, forbidden, invalidParams } from '../errors.js';
import type { Clock } from '../linked-posts/index.js';
import { canDeletePost, canEditPost, type Viewer } from '../permissions.js';
import { uniqueSlug } from '../slugs.js';
import { expandOccurrences, isClearingRecurrence, parseRecurrence, type Recurrence } from '../recurrence.js';
import { rulesContinuingFrom, rulesEndingBefore } from '../series.js';
import { isEmptyValue } from '../values.js';
import { reload } from './read-model.js';
import type { Writes } from './writes.js';
import { EVENT_SLUG_TYPES, SERIES_TYPE, type EventInput, type EventService, type EventServiceDeps } from './types.js';

const SCOPE_ON_OCCURRENCES = 'recurrence_scope this and following apply to occurrences of recurring events only.';
const RULES_NEED_SCOPE = 'recurrence cannot be set on one occurrence: send recurrence_scope=following or all.';
const MOVE_NEEDS_SERIES = (seriesId: number) => `recurrence_scope=all cannot move the series from one occurrence: update the series (id ${seriesId}) or use recurrence_scope=following.`;

export function createSeriesWrites(deps: EventServiceDeps, writes: Writes): Pick<EventService, 'update' | 'trash' | 'purge' | 'occurrenceOn' | 'movedOccurrence' | 'seriesDetails'> {
  const { store, clock } = deps;
  const db = store.db;
  const { updateRecord, trashRecord, generate, seriesWrite } = writes;
  /**
   * A series write that leaves `adding` more events (a split's new series, a series' exceptions
   * left as single events) counts against the calendar's `events` quota as a create does, in the
   * write's transaction and under its lock: refused, the transaction writes nothing.
   */
  const guardEvents = async (trx: Executor, adding: number): Promise<void> => {
    if (adding > 0 && deps.quotas) await deps.quotas.guard(trx, 'events', adding);
  };

  /** An update of a series (scope `all`): its record, its rules, then every occurrence not edited alone. */
  async function updateSeriesRecord(trx: Executor, viewer: Viewer, series: EventRecord, input: EventInput, rec: Recurrence | undefined): Promise<EventRecord> {
    if (input.recurrence_scope !== undefined && input.recurrence_scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
    const id = Number(series.id);
    let record = series;
    if (input.recurrence !== undefined && isClearingRecurrence(input.recurrence)) record = await makeSingle(trx, series, guardEvents);
    const updated = await updateRecord(trx, viewer, record, plainInput(input));
    if (record.type !== SERIES_TYPE) return updated;
    const patch: { rules?: string[]; hide_from_listings?: number } = {};
    if (rec) patch.rules = rec.lines;
    if (input.hide_from_listings !== undefined) patch.hide_from_listings = input.hide_from_listings ? 1 : 0;
    await recurrenceStore.updateSeries(trx, id, patch);
    await generate(trx, id, { rewrite: true, scheduleChanged: scheduleSent(input) });
    return reload(trx, id);
  }

  /** An update of an occurrence: this one (an exception), the following ones (a split), or all. */
  async function updateOccurrence(trx: Executor, viewer: Viewer, record: EventRecord, occurrence: recurrenceStore.OccurrenceRow, input: EventInput, rec: Recurrence | undefined): Promise<EventRecord> {
    const id = Number(record.id);
    const scope = input.recurrence_scope ?? 'this';
    if (scope === 'this') {
      if (input.recurrence !== undefined) throw invalidParams({ recurrence: RULES_NEED_SCOPE });
      const updated = await updateRecord(trx, viewer, record, plainInput(input));
      await recurrenceStore.markExceptions(trx, [id]);
      // Moved to another day: its address follows the new date, the old one redirects to it.
      const [from, to] = [record.start_local.slice(0, 10), updated.start_local.slice(0, 10)];
      if (from !== to) await recurrenceStore.noteOccurrenceMove(trx, occurrence.series_id, from, id);
      return updated;
    }
    const series = await reload(trx, occurrence.series_id);
    if (!canEditPost(viewer, 'tribe_events', series)) throw forbidden(true);
    if (scope === 'all') {
      if (scheduleSent(input)) throw invalidParams({ recurrence_scope: MOVE_NEEDS_SERIES(occurrence.series_id) });
      await updateSeriesRecord(trx, viewer, series, { ...input, recurrence_scope: 'all' }, rec);
      return occurrenceOrSeries(trx, id, occurrence.series_id);
    }
    // following: the first occurrence's "following" is the whole series.
    if (occurrence.original_start <= series.start_local) {
      await updateSeriesRecord(trx, viewer, series, { ...input, recurrence_scope: 'all' }, rec);
      return occurrenceOrSeries(trx, id, occurrence.series_id);
    }
    if (input.recurrence !== undefined && isClearingRecurrence(input.recurrence)) throw invalidParams({ recurrence: 'A split series needs rules: send recurrence lines, or none to keep the rules.' });
    // The new series is one more event: counted before anything is written.
    await guardEvents(trx, 1);
    const newId = await split(trx, series, occurrence.original_start, rec, clock, generate);
    const [created] = await eventsStore.findEventsByIds(trx, [newId]);
    // The changes sent apply to the new series (the occurrence's own id stays with it).
    const withDates = scheduleSent(input) ? input : { ...input, start_date: undefined, end_date: undefined };
    await updateSeriesRecord(trx, viewer, created!, { ...withDates, recurrence: undefined, recurrence_scope: 'all' }, undefined);
    return occurrenceOrSeries(trx, id, newId);
  }

  return {
    occurrenceOn: (seriesId, day) => recurrenceStore.occurrenceIdStartingOn(db, seriesId, day),
    async movedOccurrence(seriesId, day) {
      // A day it was moved away from, or (moved before such days were noted) the day its rules generated it on.
      return (await recurrenceStore.movedOccurrenceFrom(db, seriesId, day)) ?? (await recurrenceStore.occurrenceIdOn(db, seriesId, day));
    },
    seriesDetails: (seriesId) => seriesDetails(db, seriesId),

    async update(viewer, record, input) {
      const rec = input.recurrence === undefined || isClearingRecurrence(input.recurrence) ? undefined : parseRecurrence(input.recurrence);
      return seriesWrite(writeTransaction, async (trx) => {
        if (record.type === SERIES_TYPE) return updateSeriesRecord(trx, viewer, record, input, rec);
        // Only records with a parent can be occurrences: single events cost nothing more.
        if (Number(record.parent_id) !== 0) {
          const occurrence = await recurrenceStore.occurrenceOf(trx, Number(record.id));
          if (occurrence) return updateOccurrence(trx, viewer, record, occurrence, input, rec);
        }
        if (input.recurrence_scope !== undefined && input.recurrence_scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
        const updated = await updateRecord(trx, viewer, record, input);
        return rec ? convertToSeries(trx, updated, rec, generate) : updated;
      });
    },

    async trash(record, scope, viewer) {
      return seriesWrite(writeTransaction, async (trx) => {
        if (record.type === SERIES_TYPE) {
          if (scope !== undefined && scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
          return trashSeries(trx, record, clock);
        }
        const occurrence = Number(record.parent_id) !== 0 ? await recurrenceStore.occurrenceOf(trx, Number(record.id)) : undefined;
        if (!occurrence) {
          if (scope !== undefined && scope !== 'all') throw invalidParams({ recurrence_scope: SCOPE_ON_OCCURRENCES });
          return trashRecord(trx, record);
        }
        // The whole series or its end: the caller must be allowed to delete the series itself.
        if (scope !== undefined && scope !== 'this' && viewer && !canDeletePost(viewer, 'tribe_events', await reload(trx, occurrence.series_id))) throw forbidden(true);
        if (scope === 'all') {
          await trashSeries(trx, await reload(trx, occurrence.series_id), clock);
          return reload(trx, Number(record.id));
        }
        if (scope === 'following') return trashFollowing(trx, record, occurrence, clock, generate);
        // this (default): an exception, never generated again.
        await recurrenceStore.markExceptions(trx, [Number(record.id)]);
        return trashRecord(trx, record);
      });
    },

    async purge(record) {
      await writeTransaction(db, async (trx) => {
        // Read again in the transaction: what the caller loaded may have changed since.
        const current = await eventsStore.findEventsByIds(trx, [Number(record.id)]);
        const found = current[0];
        if (!found) throw apiError('rest-event-not-found', { args: [Number(record.id)] });
        if (found.status !== 'trash') throw apiError('rest_purge_not_trashed');
        const id = Number(found.id);
        if (found.type !== SERIES_TYPE && Number(found.parent_id) !== 0 && (await recurrenceStore.occurrenceOf(trx, id))) throw apiError('rest_purge_occurrence');
        const occurrences = found.type === SERIES_TYPE ? (await recurrenceStore.occurrencesOf(trx, id)).map((o) => o.post_id) : [];
        // Occurrences first (their rows point at the series), then the event or series itself.
        await recurrenceStore.deleteOccurrences(trx, occurrences);
        await recurrenceStore.deleteOccurrences(trx, [id]);
      });
    },
  };
}

/** The series row of a series record (it always has one). */
async function seriesRowOf(trx: Executor, id: number): Promise<recurrenceStore.SeriesRow> {
  const row = (await recurrenceStore.findSeries(trx, [id])).get(id);
  if (!row) throw apiError('rest-event-not-found', { args: [id] });
  return row;
}

function scheduleSent(input: EventInput): boolean {
  return input.start_date !== undefined || input.end_date !== undefined || input.all_day !== undefined || !isEmptyValue(input.timezone);
}

/** The input without what only recurring events read (for `updateRecord`). */
function plainInput(input: EventInput): EventInput {
  const { recurrence: _r, recurrence_scope: _s, ...rest } = input;
  return rest;
}

/** Terms of a record, for recounting when it starts or stops being counted (a series is not). */
async function termIdsOf(trx: Executor, id: number): Promise<number[]> {
  return (await eventsStore.termLinksOf(trx, [id])).map((l) => Number(l.term_id));
}

/**
 * `recurrence: []` on a series: it becomes a single event again (same id). Occurrences edited or
 * deleted one by one stay as single events; the others are deleted.
 */
async function makeSingle(trx: Executor, series: EventRecord, guardEvents: (trx: Executor, adding: number) => Promise<void>): Promise<EventRecord> {
  const id = Number(series.id);
  const row = await seriesRowOf(trx, id);
  const occurrences = await recurrenceStore.occurrencesOf(trx, id);
  // The series stays one event; each exception kept becomes one more (counted before any write).
  await guardEvents(trx, occurrences.filter((o) => o.exception).length);
  await recurrenceStore.detachOccurrences(
    trx,
    occurrences.filter((o) => o.exception).map((o) => o.post_id),
  );
  await recurrenceStore.deleteOccurrences(
    trx,
    occurrences.filter((o) => !o.exception).map((o) => o.post_id),
  );
  await recurrenceStore.deleteSeriesRow(trx, id);
  await postsStore.updatePost(trx, id, { type: 'tribe_events' });
  await eventsStore.updateEventDetails(trx, id, { hide_from_listings: row.hide_from_listings });
  await recountTerms(trx, await termIdsOf(trx, id));
  return reload(trx, id);
}

/** The occurrence after a change to its series, or the series when the occurrence is gone. */
async function occurrenceOrSeries(trx: Executor, id: number, seriesId: number): Promise<EventRecord> {
  const [row] = await eventsStore.findEventsByIds(trx, [id]);
  return row ?? reload(trx, seriesId);
}

/** Trash a series with all its occurrences. */
async function trashSeries(trx: Executor, series: EventRecord, clock: Clock): Promise<EventRecord> {
  const id = Number(series.id);
  if (series.status !== 'trash') {
    await postsStore.updatePost(trx, id, { status: 'trash', pre_trash_status: series.status, modified_local: clock.nowLocal(), modified_gmt: clock.nowGmt() });
  }
  const occurrences = await recurrenceStore.occurrencesOf(trx, id);
  await recurrenceStore.trashOccurrences(
    trx,
    occurrences.filter((o) => o.status !== 'trash').map((o) => o.post_id),
    clock.nowLocal(),
    clock.nowGmt(),
  );
  return reload(trx, id);
}

/** Recurring events, for feeds: the series' rules, its horizon and its exceptions (`EventService.seriesDetails`). */
async function seriesDetails(db: Executor, seriesId: number): ReturnType<EventService['seriesDetails']> {
  const row = (await recurrenceStore.findSeries(db, [seriesId])).get(seriesId);
  if (!row) return undefined;
  const exceptions = (await recurrenceStore.occurrencesOf(db, seriesId)).filter((o) => o.exception).map((o) => ({ id: o.post_id, original_start: o.original_start, status: o.status }));
  return { rules: row.rules, horizon: row.horizon_local, exceptions };
}

/** A single event given rules: it becomes a series (same id), its occurrences are generated. */
async function convertToSeries(trx: Executor, record: EventRecord, rec: Recurrence, generate: Writes['generate']): Promise<EventRecord> {
  const id = Number(record.id);
  await postsStore.updatePost(trx, id, { type: SERIES_TYPE });
  await eventsStore.updateEventDetails(trx, id, { hide_from_listings: 1 });
  await recurrenceStore.insertSeries(trx, { post_id: id, rules: rec.lines, horizon_local: record.start_local, complete: false, hide_from_listings: Number(record.hide_from_listings) });
  await recountTerms(trx, await termIdsOf(trx, id));
  await generate(trx, id, { rewrite: false });
  return reload(trx, id);
}

/**
 * Split a series at a generated start `at`: the old series ends before it, a new series (a copy,
 * starting at that occurrence) continues with the same rules (COUNT reduced) or `rec`, and the
 * occurrences from `at` on move to it with their ids. Returns the new series' id.
 */
async function split(trx: Executor, series: EventRecord, at: string, rec: Recurrence | undefined, clock: Clock, generate: Writes['generate']): Promise<number> {
  const seriesId = Number(series.id);
  const row = await seriesRowOf(trx, seriesId);
  const old = parseRecurrence(row.rules);
  const first = { start_local: series.start_local, end_local: series.end_local, timezone: series.timezone, all_day: Number(series.all_day) === 1 };
  const generated = expandOccurrences(old, first, `${at.slice(0, 10)} 23:59:59`).find((o) => o.start_local === at);
  const sched = generated ?? { start_local: at, end_local: at, start_utc: series.start_utc, end_utc: series.start_utc };
  const nowLocal = clock.nowLocal();
  const nowGmt = clock.nowGmt();
  const slug = await uniqueSlug(series.slug || 'event', (c) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c));
  const newId = await postsStore.insertPost(trx, {
    type: SERIES_TYPE,
    author_id: Number(series.author_id),
    status: series.status,
    title: series.title,
    content: series.content,
    excerpt: series.excerpt,
    slug,
    date_local: series.date_local,
    date_gmt: series.date_gmt,
    modified_local: nowLocal,
    modified_gmt: nowGmt,
    image_id: series.image_id === null ? null : Number(series.image_id),
  });
  await eventsStore.insertEventDetails(trx, {
    post_id: newId,
    start_local: sched.start_local,
    end_local: sched.end_local,
    start_utc: sched.start_utc,
    end_utc: sched.end_utc,
    timezone: series.timezone,
    all_day: Number(series.all_day),
    cost: series.cost,
    currency_symbol: series.currency_symbol,
    currency_position: series.currency_position,
    website: series.website,
    show_map: Number(series.show_map),
    show_map_link: Number(series.show_map_link),
    hide_from_listings: 1,
    sticky: Number(series.sticky),
    featured: Number(series.featured),
    venue_id: series.venue_id === null ? null : Number(series.venue_id),
  });
  const organizers = (await eventsStore.organizerLinksOf(trx, [seriesId])).map((l) => Number(l.organizer_id));
  if (organizers.length) await eventsStore.setEventOrganizers(trx, newId, organizers);
  await eventsStore.addEventTerms(trx, newId, await termIdsOf(trx, seriesId));
  await recurrenceStore.insertSeries(trx, {
    post_id: newId,
    rules: rec ? rec.lines : rulesContinuingFrom(old, first, at),
    horizon_local: at,
    complete: false,
    hide_from_listings: row.hide_from_listings,
  });
  await recurrenceStore.updateSeries(trx, seriesId, { rules: rulesEndingBefore(old, at, series.timezone, first.all_day) });
  const moving = (await recurrenceStore.occurrencesOf(trx, seriesId)).filter((o) => o.original_start >= at).map((o) => o.post_id);
  await recurrenceStore.moveOccurrences(trx, moving, newId);
  await postsStore.updatePost(trx, seriesId, { modified_local: nowLocal, modified_gmt: nowGmt });
  await generate(trx, seriesId, { rewrite: false });
  return newId;
}

/**
 * Trash an occurrence and the ones after it (`recurrence_scope=following`): the series ends before
 * it (the whole series when it is the first). Returns the occurrence's record.
 */
async function trashFollowing(trx: Executor, record: EventRecord, occurrence: recurrenceStore.OccurrenceRow, clock: Clock, generate: Writes['generate']): Promise<EventRecord> {
  const series = await reload(trx, occurrence.series_id);
  if (occurrence.original_start <= series.start_local) {
    await trashSeries(trx, series, clock);
    return reload(trx, Number(record.id));
  }
  const row = await seriesRowOf(trx, occurrence.series_id);
  const rec = parseRecurrence(row.rules);
  await recurrenceStore.updateSeries(trx, occurrence.series_id, { rules: rulesEndingBefore(rec, occurrence.original_start, series.timezone, Number(series.all_day) === 1) });
  const following = (await recurrenceStore.occurrencesOf(trx, occurrence.series_id)).filter((o) => o.original_start >= occurrence.original_start);
  // Kept as trashed exceptions (not deleted): their ids answer 403 "no longer available".
  await recurrenceStore.markExceptions(
    trx,
    following.map((o) => o.post_id),
  );
  await recurrenceStore.trashOccurrences(
    trx,
    following.filter((o) => o.status !== 'trash').map((o) => o.post_id),
    clock.nowLocal(),
    clock.nowGmt(),
  );
  await postsStore.updatePost(trx, occurrence.series_id, { modified_local: clock.nowLocal(), modified_gmt: clock.nowGmt() });
  await generate(trx, occurrence.series_id, { rewrite: false });
  return reload(trx, Number(record.id));
}
