/**
 * `events-calendar import ics FILE|URL`: events from an iCalendar file (Google Calendar, Outlook,
 * Apple, other calendars' feeds), parsed with ical.js (RFC 5545: folding, escaping, `TZID` with
 * the file's `VTIMEZONE`s, all-day `DATE` values). `LOCATION` is matched to a venue here (normalized
 * title or address: `venueMatcher`); one that matches none makes no venue, it is listed for review
 * in the result (`venuesForReview`) and the event goes without a venue until an editor creates it;
 * `CATEGORIES` categories (found by name or created), `ORGANIZER` an organizer (its CN, else its
 * address), `URL` the website. A recurring event becomes a series: its `RRULE`,
 * `RDATE`s and `EXDATE`s become the event's `recurrence` lines, and each override (a VEVENT with
 * the same UID and a `RECURRENCE-ID`) changes that one occurrence, or trashes it when its `STATUS`
 * is `CANCELLED`. Rules this service does not take (`FREQ=HOURLY`, `BYHOUR`, …) bring the first
 * occurrence only, with a warning. An event is upserted by its `UID` (import map, source `ics`), so
 * importing the same calendar again updates it (its overrides included).
 *
 * Nothing is lost silently: a `TZID` without `VTIMEZONE` is resolved by name (IANA, a
 * producer's prefix, Windows through CLDR: `windows-zones.ts`), one known nowhere is a warning and
 * floating time in the site zone; a VEVENT that cannot be imported is skipped and named (summary,
 * UID, line) with the reason, the rest imported (`strict`: all or nothing); a VEVENT without UID
 * gets one derived from its content; duplicate UIDs are reported; the fingerprint covers only what
 * is written, so volatile properties (`DTSTAMP`, …) leave an event unchanged. The whole file is
 * parsed before anything is written: a file that is not iCalendar changes nothing. A Windows zone
 * name with its `VTIMEZONE` (Outlook) is mapped to its IANA zone too, so the event keeps its zone. A
 * VEVENT with `STATUS:CANCELLED` and no `RECURRENCE-ID` is not a live event: it is left out (named
 * in the summary), and the event an earlier import made of it is trashed. A run may go on from where
 * an earlier one stopped (`resume`: the import job's slices) when it reads the same text.
 *
 * @example
 *   await importIcs(services, admin, { input: 'calendar.ics', status: 'publish', dryRun: false, retries: 5, retryDelayMs: 1000 });
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
import type { DomainServices } from '../domain/services.js';
import type { Viewer } from '../domain/permissions.js';
import { ApiError } from '../domain/errors.js';
import type { EventInput } from '../domain/events/index.js';
import { toWallTime } from '../domain/dates/wall.js';
import { writeTransaction } from '../store/changes.js';
import { withImportContext } from '../store/import-context.js';
import { findMapping, putMapping } from '../store/import-map.js';
import { venuesForMatching } from '../store/linked-posts.js';
import { putEventLocation } from '../store/event-locations.js';
import type { Executor } from '../store/schema.js';
import { occurrencesOf } from '../store/recurrence.js';
import { readFeedState, writeFeedState } from '../store/feed-state.js';
import { generateSeries } from '../domain/series-generation.js';
import { checkUrl, createSource, ImportError } from './source.js';
import { ImportReport, type ImportHooks, type ReportState } from './report.js';
import { refreshAfterBulkWrite } from '../store/statistics.js';
import { parseIcsOffLoop, type IcsCancelled, type IcsEvent, type IcsOverride } from './ics-parse.js';

export interface IcsImportOptions {
  /** a file path or an http(s) URL */
  input: string;
  /** status of the events (publish, draft, …) */
  status: string;
  dryRun: boolean;
  retries: number;
  retryDelayMs: number;
  /** a VEVENT that would be skipped, a duplicate UID or a TZID known nowhere stops the import before anything is written */
  strict?: boolean;
  /** make a venue of a LOCATION that matches none (`--create-venues`) instead of listing it for review */
  createVenues?: boolean;
  /** a URL is fetched with the ETag / Last-Modified of the last such run (scheduled runs, `--every`) */
  conditional?: boolean;
  /** read a URL on a loopback, private or reserved address too (`--allow-private`) */
  allowPrivate?: boolean;
  /** go on from where an earlier run of this import stopped (between two slices of the import job) */
  resume?: IcsResume;
}

/**
 * Where a run stopped between two events: the report then (its `inputDigest`: the text it read) and
 * how many events it had handled. A run that reads the same text goes on with the next event and
 * that report; one that reads another text (the feed changed) starts over, and the import map makes
 * what was written count as unchanged.
 */
export interface IcsResume {
  at: number;
  report: ReportState;
}

const SOURCE = 'ics';

/** The wall time (`YYYY-MM-DD HH:MM:SS`, in `zone`) or day an override's RECURRENCE-ID names. */
function overrideStart(o: IcsOverride, zone: string): string {
  return 'day' in o.recurrenceId ? o.recurrenceId.day : toWallTime(DateTime.fromSeconds(o.recurrenceId.seconds, { zone }));
}

/**
 * Generate a recurring event's occurrences, then apply its overrides to the occurrences of its series: each changed occurrence is
 * updated alone (`recurrence_scope=this`: it becomes an exception that keeps its id), each cancelled
 * one trashed. An override naming no occurrence (outside the generated horizon, or a start the
 * rules do not make) is a warning. Resolves with how many occurrences the series has (0 for an
 * event that does not recur).
 */
async function applyOverrides(
  services: DomainServices,
  admin: Viewer,
  seriesId: number,
  e: IcsEvent,
  warn: (w: string) => void,
  venueOf: (input: EventInput) => EventInput['venue'] | undefined,
): Promise<number> {
  if (!e.recurring && e.overrides.length === 0) return 0;
  // Every occurrence first: a write generates at most OCCURRENCES_PER_WRITE of them.
  if (e.recurring) await generateSeries(services, seriesId);
  const occurrences = await occurrencesOf(services.store.db, seriesId);
  if (e.overrides.length === 0) return occurrences.length;
  const series = await services.events.findById(seriesId);
  if (!series) return occurrences.length;
  for (const o of e.overrides) {
    const start = overrideStart(o, series.timezone);
    const found = occurrences.find((c) => ('day' in o.recurrenceId ? c.original_start.slice(0, 10) === start : c.original_start === start));
    if (!found) {
      warn(`${e.uid}: no occurrence starts at ${start} (${series.timezone}); its changed occurrence was left out`);
      continue;
    }
    const record = await services.events.findById(found.post_id);
    if (!record) continue;
    if (o.input === undefined) {
      if (record.status !== 'trash') await services.events.trash(record, 'this', admin);
    } else {
      const { venue: _location, ...rest } = o.input;
      const venue = venueOf(o.input);
      await services.events.update(admin, record, { ...rest, ...(venue !== undefined ? { venue } : {}), recurrence_scope: 'this' });
    }
  }
  return occurrences.length;
}

/** What an invalid `recurrence` was told (the error's params). */
function recurrenceProblem(err: ApiError): string {
  const params = (err.toJSON() as { data?: { params?: Record<string, string> } }).data?.params;
  return params?.recurrence ?? err.message;
}

/**
 * A cancelled VEVENT is not imported; the event an earlier import made of it (same UID) is trashed,
 * so that a feed cancelling an event takes it down here. Returns the reason the summary gives.
 */
async function retireCancelled(services: DomainServices, admin: Viewer, c: IcsCancelled, dryRun: boolean): Promise<string> {
  const reason = 'it is cancelled (STATUS:CANCELLED)';
  const known = await findMapping(services.store.db, SOURCE, 'event', c.uid);
  const record = known ? await services.events.findById(Number(known.local_id)) : undefined;
  if (!record || record.status === 'trash') return reason;
  if (!dryRun) {
    await services.events.trash(record, undefined, admin);
    // A later import of it as a live event (cancelled no more) writes it again.
    await writeTransaction(services.store.db, (trx) => putMapping(trx, { source: SOURCE, kind: 'event', source_id: c.uid, local_id: Number(record.id), fingerprint: '' }));
  }
  return `${reason}; event ${record.id}, imported from it earlier, ${dryRun ? 'would be' : 'was'} trashed`;
}

/** What a scheduled run keeps of a feed between runs, for a conditional GET. */
export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export async function importIcs(services: DomainServices, admin: Viewer, options: IcsImportOptions, hooks: ImportHooks = {}): Promise<ImportReport> {
  const report = new ImportReport({ unchanged: true, dryRun: options.dryRun });
  report.source = SOURCE;
  hooks.onReport?.(report);
  const db = services.store.db;
  let text: string;
  if (/^https?:\/\//i.test(options.input)) {
    checkUrl(options.input, 'the iCalendar URL');
    const source = createSource({ retries: options.retries, retryDelayMs: options.retryDelayMs, allowPrivate: options.allowPrivate, maxBytes: services.config.importMaxBytes });
    if (options.conditional) {
      // A scheduled run: send what the last run was told (ETag, Last-Modified); a 304 costs nothing more.
      const known = await readFeedState(db, options.input);
      const answer = await source.getTextIfChanged(options.input, known ?? {});
      if (answer.status === 304) {
        report.notModified = true;
        return report;
      }
      text = answer.text;
      const next = { etag: answer.etag, lastModified: answer.lastModified };
      if (!options.dryRun) report.afterImport = () => writeFeedState(db, options.input, next);
    } else text = await source.getText(options.input);
  } else {
    try {
      text = await readFile(options.input, 'utf8');
    } catch (err) {
      throw new ImportError(`cannot read ${options.input}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  const { events, cancelled, warnings, skipped } = await parseIcsOffLoop(text, services.config.timezone, options.status, options.input, options.strict ?? false);
  const digest = createHash('sha256').update(text).digest('base64url');
  // The same text parses to the same events in the same order: the events before `at`, and what
  // was said of the file, are in the report kept.
  const resume = options.resume?.report.inputDigest === digest ? options.resume : undefined;
  if (resume) report.restore(resume.report);
  report.inputDigest = digest;
  if (!resume) {
    for (const s of skipped) report.skip('event', s.id, s.reason);
    for (const c of cancelled) report.skip('event', c.label, await retireCancelled(services, admin, c, options.dryRun));
    for (const w of warnings) {
      report.warnings.push(w);
      hooks.onWarning?.(w);
    }
  }
  let done = Math.min(resume?.at ?? 0, events.length);
  let occurrences = 0;
  const venues = await venueMatcher(db);
  const ownUid = ownUidPattern(services.config.siteUrl);
  for (const e of events.slice(done)) {
    try {
      const known = await findMapping(db, SOURCE, 'event', e.uid);
      let record = known ? await services.events.findById(Number(known.local_id)) : undefined;
      // This site's own export (UID event-ID@host): the event it came from, not a copy of it.
      const own = known ? undefined : ownUid.exec(e.uid);
      if (own) record = await services.events.findById(Number(own[1]));
      const location = locationOf(e.input);
      const venueId = location ? venues(location) : undefined;
      // A location that names no venue here is not made into one (one real feed made ~40 junk
      // venues that way): the event goes without, and the text waits in the result for review.
      if (venueId !== undefined) e.input.venue = venueId;
      else if (!options.createVenues) {
        // An event written before keeps the venue it has (an editor may have given it one); a new one has none.
        if (location && record) delete e.input.venue;
        else e.input.venue = '';
      }
      if (record && known?.fingerprint === e.fingerprint) report.count('event', 'unchanged');
      else if (options.dryRun) {
        report.count('event', record ? 'updated' : 'created');
        if (location && venueId === undefined && !options.createVenues) report.venueForReview(location);
      } else {
        const remember = async (trx: Parameters<typeof putMapping>[0], result: unknown) => {
          const id = Number((result as { id: number }).id);
          await putMapping(trx, { source: SOURCE, kind: 'event', source_id: e.uid, local_id: id, fingerprint: e.fingerprint });
          // The text of a location that names no venue is kept with the event (the export writes it back).
          await putEventLocation(trx, id, location && venueId === undefined && !options.createVenues ? location : null);
        };
        const warn = (w: string) => {
          report.warnings.push(w);
          hooks.onWarning?.(w);
        };
        const write = async (input: EventInput) =>
          (await withImportContext({ wanted: {}, inTransaction: remember }, () => (record ? services.events.update(admin, record, input) : services.events.create(admin, input)))) as { id: number };
        let written;
        try {
          written = await write(e.input);
        } catch (err) {
          // Rules this service does not take: the first occurrence, as a single event.
          if (!(err instanceof ApiError) || !e.recurring || !JSON.stringify(err.toJSON()).includes('"recurrence"')) throw err;
          warn(`${options.input}: ${e.uid} ("${e.input.title}") repeats in a way not supported here (${err.message}: ${recurrenceProblem(err)}); only its first occurrence was imported`);
          written = await write({ ...e.input, recurrence: [] });
        }
        report.count('event', record ? 'updated' : 'created');
        report.wroteEvent(Number(written.id), record ? 'updated' : 'created');
        if (location && venueId === undefined && !options.createVenues) report.venueForReview(location, Number(written.id));
        occurrences += await applyOverrides(
          services,
          admin,
          Number(written.id),
          e,
          (w) => warn(`${options.input}: ${w}`),
          // An occurrence keeps its venue when its location names none here.
          (input) => venues(locationOf(input)) ?? (options.createVenues ? input.venue : locationOf(input) ? undefined : ''),
        );
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      report.fail('event', e.uid, `${err.code}: ${err.message}`);
    }
    hooks.onProgress?.({ phase: 'events', done: ++done, total: events.length });
  }
  // The validators are kept only once the feed's events are all in: a run that stopped, or an event
  // refused, takes the whole feed again next time.
  if (report.failed === 0) await report.afterImport?.();
  // Thousands of new events: PostgreSQL's planner learns of them now, not at autovacuum's next look.
  // Counted: the records written and their series' occurrences (many series of a few hundred each
  // add up; none alone reaches the threshold).
  if (!options.dryRun) await refreshAfterBulkWrite(db, report.written() + occurrences);
  return report;
}

/** The free-text `LOCATION` the parse put in an input's venue. */
function locationOf(input: EventInput): string {
  const v = input.venue as unknown;
  return typeof v === 'object' && v !== null ? String((v as { venue?: unknown }).venue ?? '') : '';
}

/** A location's comparable form: case, accents, punctuation and spacing do not count. */
export function normalizeLocation(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The venue a free-text `LOCATION` names, matched on its normalized title, its address, its title
 * and address lines as the `.ics` export writes them, or a location that starts with its title
 * followed by a comma ("Town Hall, 1 Main St" for the venue "Town Hall").
 */
async function venueMatcher(db: Executor): Promise<(location: string) => number | undefined> {
  const byKey = new Map<string, number>();
  const add = (key: string, id: number) => {
    if (key && !byKey.has(key)) byKey.set(key, id);
  };
  const rows = await venuesForMatching(db);
  for (const v of rows) add(normalizeLocation(v.title), v.id);
  for (const v of rows) {
    add(normalizeLocation([v.title, v.address, v.city, v.zip, v.country].filter((s) => s).join(', ')), v.id);
    add(normalizeLocation([v.title, v.address, v.city].filter((s) => s).join(', ')), v.id);
    add(normalizeLocation([v.title, v.address].filter((s) => s).join(', ')), v.id);
    add(normalizeLocation([v.address, v.city].filter((s) => s).join(', ')), v.id);
    if (v.address.trim().length >= 6) add(normalizeLocation(v.address), v.id);
  }
  return (location) => byKey.get(normalizeLocation(location)) ?? byKey.get(normalizeLocation(location.split(',')[0] ?? ''));
}

/** UIDs of this site's own `.ics` export (`event-ID@host`). */
function ownUidPattern(siteUrl: string): RegExp {
  const host = new URL(siteUrl).host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^event-(\\d+)@${host}$`);
}
