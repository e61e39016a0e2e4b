/**
 * Writes of single events: create (one statement on PostgreSQL when it only names records by id),
 * the partial update of one record (COMPAT decision 1) and trash, with what a write computes on the
 * way (dates and time zones per COMPAT decision 5, cost, linked venue and organizers, terms, image,
 * slug, status). Each runs in a transaction the service opens (`writeTransaction`), never the caller.
 *
 * @example
 *   const writes = createWrites(deps, readModel);
 *   const event = await writes.create(viewer, { title: 'Jazz', start_date: 'tomorrow 8pm', end_date: 'tomorrow 11pm' });
 */
import type { Executor } from '../../store/schema.js';
import * as eventsStore from '../../store/events.js';
import type { EventRecord } from '../../store/events.js';
import * as postsStore from '../../store/posts.js';
import * as termsStore from '../../store/terms.js';
import * as recurrenceStore from '../../store/recurrence.js';
import { isCreatedHere, isStatementWrite } from '../../store/change-notes.js';
import { writeStatement, writeTransaction } from '../../store/changes.js';
import { parseCostInput } from '../cost.js';
import { endOfDay, startOfDay, toWallTime, wallToUtc } from '../dates/wall.js';
import { invalidDateFailure } from '../dates/hints.js';
import { parseIn } from './validators.js';
import { invalidParams } from '../errors.js';
import { can, canAssignTerms, type Viewer } from '../permissions.js';
import { firstSlugCandidate, sanitizeSlug, uniqueSlug } from '../slugs.js';
import { applyScheduling, scaleBackStatus } from '../statuses.js';
import { MAX_NEW_TERMS_PER_WRITE } from '../terms/index.js';
import { markupFailure } from '../text/markup-limit.js';
import { phpTrim } from '../text/php.js';
import { sanitizePostHtml } from '../text/kses.js';
import { isEmptyValue } from '../values.js';
import { isClearingRecurrence, parseRecurrence } from '../recurrence.js';
import { materialise, type SeriesDeps } from '../series.js';
import { reload, type ReadModel } from './read-model.js';
import { EVENT_SLUG_TYPES, SERIES_TYPE, ZERO_DATE, type EventInput, type EventService, type EventServiceDeps } from './types.js';

/** What the series writes (`series-writes.ts`) build on. */
export interface Writes extends Pick<EventService, 'create' | 'onGenerationLeft'> {
  /** The update of one event or series record (partial, COMPAT 1), inside the caller's transaction. */
  updateRecord(trx: Executor, viewer: Viewer, record: EventRecord, input: EventInput): Promise<EventRecord>;
  /** Trash one event record (the original's DELETE), inside the caller's transaction. */
  trashRecord(trx: Executor, record: EventRecord): Promise<EventRecord>;
  /** `materialise` within a write: at most OCCURRENCES_PER_WRITE occurrences, the rest noted for the horizon job. */
  generate(trx: Executor, seriesId: number, options: { rewrite: boolean; scheduleChanged?: boolean }): Promise<void>;
  /** Run a write; once it has committed, tell the listeners if it left occurrences to generate. */
  seriesWrite<T>(run: typeof writeTransaction, write: (trx: Executor) => Promise<T>): Promise<T>;
}

export function createWrites(deps: EventServiceDeps, readModel: ReadModel): Writes {
  const { store, clock } = deps;
  const db = store.db;
  const seriesDeps: SeriesDeps = { horizonMonths: deps.recurrenceHorizonMonths ?? 60, clock };
  /** Transactions whose writes left occurrences to generate, and who wants to know once they commit. */
  const generationLeft = new WeakSet<Executor>();
  const generationListeners = new Set<() => void>();
  /** `materialise` within a write: at most OCCURRENCES_PER_WRITE occurrences, the rest noted for the horizon job. */
  async function generate(trx: Executor, seriesId: number, options: { rewrite: boolean; scheduleChanged?: boolean }): Promise<void> {
    if ((await materialise(trx, seriesId, seriesDeps, options)).pending) generationLeft.add(trx);
  }
  /** Run a write; once it has committed, tell the listeners if it left occurrences to generate. */
  async function seriesWrite<T>(run: typeof writeTransaction, write: (trx: Executor) => Promise<T>): Promise<T> {
    let last: Executor | undefined;
    const out = await run(db, (trx) => {
      last = trx;
      return write(trx);
    });
    if (last && generationLeft.has(last)) for (const listener of generationListeners) listener();
    return out;
  }

  return {
    updateRecord: (trx, viewer, record, input) => updateRecord(deps, trx, viewer, record, input),
    trashRecord: (trx, record) => trashRecord(clock, trx, record),
    generate,
    seriesWrite,

    async create(viewer, input) {
      // A recurring event: a series post, and its occurrences as events.
      const rec = input.recurrence === undefined || isClearingRecurrence(input.recurrence) ? undefined : parseRecurrence(input.recurrence);
      // An event that only names existing records by id writes one statement on PostgreSQL
      // (`writeStatement`); one that may create some (inline venues, named terms, an image URL)
      // or a series with its occurrences is a transaction.
      // The calendar's `events` quota, when it has one, is counted in the transaction, under its lock.
      const limit = deps.quotas?.limit('events') ?? 0;
      const quota = typeof limit === 'number' ? limit : await limit;
      const plain = !quota && !rec && idsOnly(input.venue) && idsOnly(input.organizer) && idsOnly(input.categories) && idsOnly(input.tags) && idsOnly(input.image);
      return seriesWrite(plain ? writeStatement : writeTransaction, async (trx) => {
        if (quota) await deps.quotas!.guard(trx, 'events', 1, quota);
        const sched = schedule(input, null, deps.siteTimezone);
        const nowGmt = clock.nowGmt();
        const nowLocal = clock.nowLocal();
        const pub = publicationDate(input, deps.siteTimezone);
        // `future` without a date publishes now, as in WordPress (applyScheduling against now).
        const status = applyScheduling(scaleBackStatus(viewer, input.status), pub?.date_gmt ?? nowGmt, nowGmt);
        const unpublished = status === 'draft' || status === 'pending' || status === 'auto-draft';
        const title = html(viewer, phpTrim(input.title ?? '')); // trimmed, as WordPress' title_save_pre
        const base = sanitizeSlug(isEmptyValue(input.slug) ? title : (input.slug as string)) || 'event';
        // A one-statement write (PostgreSQL) tries the first candidate in its statement, which
        // checks it; only when it is taken are the numbered ones looked at.
        const slugTaken = (c: string) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c);
        const statement = isStatementWrite(trx);
        const slug = statement ? firstSlugCandidate(base) : await uniqueSlug(base, slugTaken);
        // Linked records and terms first (named ones may be created, in the store's lock order:
        // venue, organizer, categories, tags), then the event with its links in one go.
        const { venue, organizers } = await linkedIds(deps, trx, viewer, input);
        const imageId = await deps.images.idFor(trx, input.image, viewer);
        const termIds = [...new Set((await termIdsForWrite(deps, trx, viewer, input)).flatMap(([, ids]) => ids))];
        const organizerIds = [...new Set(organizers ?? [])];
        const created = await eventsStore.insertEvent(
          trx,
          {
            type: rec ? SERIES_TYPE : 'tribe_events',
            author_id: input.author ?? viewer.id,
            status,
            title,
            content: html(viewer, input.description ?? '', 'description'),
            excerpt: html(viewer, input.excerpt ?? '', 'excerpt'),
            slug,
            date_local: pub?.date_local ?? nowLocal,
            date_gmt: pub?.date_gmt ?? (unpublished ? ZERO_DATE : nowGmt),
            modified_local: nowLocal,
            modified_gmt: nowGmt,
            image_id: imageId,
            password: input.password ?? '',
          },
          {
            ...sched,
            ...costColumns(input.cost),
            website: isEmptyValue(input.website) ? null : String(input.website).trim(),
            show_map: input.show_map ? 1 : 0,
            show_map_link: input.show_map_link ? 1 : 0,
            // A series is never listed itself (its occurrences are): its own flag is kept with its rules.
            hide_from_listings: rec || input.hide_from_listings ? 1 : 0,
            sticky: input.sticky ? 1 : 0,
            featured: input.featured ? 1 : 0,
            venue_id: venue?.[0] ?? null,
          },
          organizerIds,
          termIds,
          statement ? { types: EVENT_SLUG_TYPES, next: () => uniqueSlug(base, slugTaken) } : undefined,
        );
        const id = Number(created.id);
        if (rec) {
          await recurrenceStore.insertSeries(trx, { post_id: id, rules: rec.lines, horizon_local: sched.start_local, complete: false, hide_from_listings: input.hide_from_listings ? 1 : 0 });
          await generate(trx, id, { rewrite: false });
          return reload(trx, id);
        }
        readModel.noteLinksWritten(created, { organizers: organizerIds, terms: termIds });
        return created;
      });
    },

    onGenerationLeft(listener) {
      generationListeners.add(listener);
      return () => generationListeners.delete(listener);
    },
  };
}

/** Link an event to the terms a write names; the ids of terms whose counts may have changed. */
async function assignTerms(deps: EventServiceDeps, trx: Executor, viewer: Viewer, eventId: number, input: EventInput): Promise<number[]> {
  const wanted = await termIdsForWrite(deps, trx, viewer, input);
  // A new event has no links yet: every taxonomy's in one statement.
  if (isCreatedHere(trx, 'event', eventId))
    return eventsStore.addEventTerms(
      trx,
      eventId,
      wanted.flatMap(([, ids]) => ids),
    );
  const changed: number[] = [];
  for (const [taxonomy, ids] of wanted) changed.push(...(await eventsStore.setEventTerms(trx, eventId, taxonomy, ids)));
  return changed;
}

/** The venue and organizer ids a write names (inline ones the viewer may create are created). */
async function linkedIds(deps: EventServiceDeps, trx: Executor, viewer: Viewer, input: EventInput) {
  const venue = input.venue === undefined || input.venue === null ? undefined : await deps.venues.idsForEventWrite(trx, input.venue, viewer);
  const organizers = input.organizer === undefined || input.organizer === null ? undefined : await deps.organizers.idsForEventWrite(trx, input.organizer, viewer);
  return { venue, organizers };
}

/** The update of one event or series record (partial, COMPAT 1), inside the caller's transaction. */
async function updateRecord(deps: EventServiceDeps, trx: Executor, viewer: Viewer, record: EventRecord, input: EventInput): Promise<EventRecord> {
  const { clock } = deps;
  const id = Number(record.id);
  const nowGmt = clock.nowGmt();
  const nowLocal = clock.nowLocal();
  const schedTouched = input.start_date !== undefined || input.end_date !== undefined || input.all_day !== undefined || !isEmptyValue(input.timezone);
  const sched = schedTouched ? schedule(input, record, deps.siteTimezone) : {};
  const post: Record<string, unknown> = { modified_local: nowLocal, modified_gmt: nowGmt };
  // Stored trimmed, as WordPress' title_save_pre (PHP trim).
  if (input.title !== undefined) post.title = html(viewer, phpTrim(input.title));
  if (input.description !== undefined) post.content = html(viewer, input.description, 'description');
  if (input.excerpt !== undefined) post.excerpt = html(viewer, input.excerpt, 'excerpt');
  if (input.author !== undefined) post.author_id = input.author;
  if (input.password !== undefined) post.password = input.password;
  if (input.slug !== undefined && !isEmptyValue(input.slug)) {
    const base = sanitizeSlug(input.slug) || record.slug;
    post.slug = await uniqueSlug(base, (c) => postsStore.isSlugTaken(trx, EVENT_SLUG_TYPES, c, id));
  }
  const pub = publicationDate(input, deps.siteTimezone);
  if (pub) Object.assign(post, pub);
  let status = record.status;
  if (input.status !== undefined && input.status !== '') status = scaleBackStatus(viewer, input.status);
  const dateGmt = (post.date_gmt as string | undefined) ?? record.date_gmt;
  if (status !== record.status || pub) status = applyScheduling(status, dateGmt === ZERO_DATE ? nowGmt : dateGmt, nowGmt);
  if (status !== record.status) {
    post.status = status;
    if (record.status === 'trash') post.pre_trash_status = '';
    if ((status === 'publish' || status === 'future' || status === 'private') && record.date_gmt === ZERO_DATE && !pub) {
      post.date_gmt = nowGmt;
      post.date_local = nowLocal;
    }
  }
  if (input.image !== undefined) post.image_id = await deps.images.idFor(trx, input.image, viewer);
  await postsStore.updatePost(trx, id, post);

  const details: Record<string, unknown> = { ...sched };
  // Who changed it last (WordPress' `_edit_last`), for the editor's conflict panel.
  if (viewer.id > 0) details.modified_by = viewer.id;
  if (input.cost !== undefined) Object.assign(details, costColumns(input.cost));
  if (input.website !== undefined) details.website = isEmptyValue(input.website) ? '' : String(input.website).trim();
  for (const flag of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
    if (input[flag] !== undefined) details[flag] = input[flag] ? 1 : 0;
  }
  // A series stays out of lists (its own flag is kept with its rules, `updateSeriesRecord`).
  if (record.type === SERIES_TYPE) delete details.hide_from_listings;
  const { venue, organizers } = await linkedIds(deps, trx, viewer, input);
  if (input.venue !== undefined && input.venue !== null) details.venue_id = venue?.[0] ?? null;
  await eventsStore.updateEventDetails(trx, id, details);
  if (organizers !== undefined) await eventsStore.setEventOrganizers(trx, id, organizers);

  const changedTerms = await assignTerms(deps, trx, viewer, id, input);
  if (status !== record.status && record.type !== SERIES_TYPE) {
    for (const l of await eventsStore.termLinksOf(trx, [id])) changedTerms.push(Number(l.term_id));
  }
  await termsStore.recountTerms(trx, changedTerms);
  return reload(trx, id);
}

/** Trash one event record (the original's DELETE). */
async function trashRecord(clock: EventServiceDeps['clock'], trx: Executor, record: EventRecord): Promise<EventRecord> {
  const id = Number(record.id);
  await postsStore.updatePost(trx, id, {
    status: 'trash',
    pre_trash_status: record.status,
    modified_local: clock.nowLocal(),
    modified_gmt: clock.nowGmt(),
  });
  await termsStore.recountTerms(
    trx,
    (await eventsStore.termLinksOf(trx, [id])).map((l) => Number(l.term_id)),
  );
  return reload(trx, id);
}

/**
 * Whether a write's reference value (venue, organizer, categories, tags, image) names records by
 * id only, so that resolving it creates nothing: empty, positive integers, or strings of digits
 * (one, a list, or comma-separated). Anything else answers false, also what would resolve to ids
 * all the same (`{ "id": 5 }`, `"007"`): the caller then takes the general path.
 */
function idsOnly(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : [value];
  return items.every((v) => v === '' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^[1-9][0-9]{0,14}$/.test(v)));
}

/** Schedule fields from the input, merged over the stored values on update. */
function schedule(input: EventInput, existing: EventRecord | null, siteTimezone: string) {
  const tzChanged = !isEmptyValue(input.timezone);
  const tz = tzChanged ? (input.timezone as string) : (existing?.timezone ?? siteTimezone);
  const allDay = input.all_day !== undefined ? input.all_day : Boolean(existing?.all_day ?? 0);
  let start = input.start_date !== undefined ? toWallTime(parseIn('start_date', input.start_date, tz)) : existing?.start_local;
  let end = input.end_date !== undefined ? toWallTime(parseIn('end_date', input.end_date, tz)) : existing?.end_local;
  if (start === undefined || end === undefined) throw invalidParams({ start_date: 'Invalid parameter.' });
  if (allDay) {
    start = startOfDay(start);
    end = endOfDay(end);
  }
  if (end < start) throw invalidParams({ end_date: 'The end date must not be before the start date.' });
  const startUtc = wallToUtc(start, tz);
  const endUtc = wallToUtc(end, tz);
  // The event's zone may move a date of the year 9999 past it (validation used the site zone).
  if (startUtc.length !== 19 || endUtc.length !== 19) {
    const name = startUtc.length !== 19 ? 'start_date' : 'end_date';
    throw invalidParams({ [name]: invalidDateFailure(name, `the event's time zone (${tz})`) });
  }
  return {
    timezone: tz,
    all_day: allDay ? 1 : 0,
    start_local: start,
    end_local: end,
    start_utc: startUtc,
    end_utc: endUtc,
  };
}

/**
 * The publication date (WordPress' post_date / post_date_gmt): `date` is in the site time zone,
 * whatever the event's own `timezone` (which applies to start_date/end_date only); `date_utc` in
 * UTC. When both are sent, `date` wins and `date_utc` is derived from it, as WordPress does.
 */
function publicationDate(input: EventInput, siteTimezone: string): { date_local: string; date_gmt: string } | null {
  if (!isEmptyValue(input.date)) {
    const d = parseIn('date', input.date as string, siteTimezone);
    return { date_gmt: toWallTime(d.toUTC()), date_local: toWallTime(d.setZone(siteTimezone)) };
  }
  if (!isEmptyValue(input.date_utc)) {
    const d = parseIn('date_utc', input.date_utc as string, 'UTC');
    return { date_gmt: toWallTime(d.toUTC()), date_local: toWallTime(d.setZone(siteTimezone)) };
  }
  return null;
}

/** Submitted markup as stored; `name` (description, excerpt) is refused beyond the markup limit. */
function html(viewer: Viewer, value: string, name?: string): string {
  const failure = name === undefined ? undefined : markupFailure(name, value);
  if (failure) throw invalidParams({ [name!]: failure });
  return can(viewer, 'unfiltered_html') ? value : sanitizePostHtml(value);
}

function costColumns(value: unknown) {
  const parsed = parseCostInput(value);
  return parsed ? { cost: JSON.stringify(parsed.raw), currency_symbol: parsed.symbol, currency_position: parsed.position } : { cost: null, currency_symbol: '', currency_position: '' };
}

/** The term ids a write's `categories` and `tags` name, by taxonomy (named terms the viewer may create are created). */
async function termIdsForWrite(deps: EventServiceDeps, trx: Executor, viewer: Viewer, input: EventInput): Promise<Array<[string, number[]]>> {
  const wanted: Array<[string, number[]]> = [];
  // One count of new terms for the whole write (MAX_NEW_TERMS_PER_WRITE), categories and tags together.
  const newTerms = { left: MAX_NEW_TERMS_PER_WRITE };
  for (const [arg, service] of [
    ['categories', deps.categories],
    ['tags', deps.tags],
  ] as const) {
    const value = input[arg];
    if (value === undefined || value === null) continue;
    if (!canAssignTerms(viewer, service.taxonomy)) continue;
    wanted.push([service.taxonomy, await service.idsForWrite(trx, value, viewer, arg, newTerms)]);
  }
  return wanted;
}
