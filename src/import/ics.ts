/**
 * `events-calendar import ics FILE|URL`: events from an iCalendar file (Google Calendar, Outlook,
 * Apple, other calendars' feeds), parsed with ical.js (RFC 5545: folding, escaping, `TZID` with
 * the file's `VTIMEZONE`s, all-day `DATE` values). `LOCATION` becomes a venue (reused by name),
 * `CATEGORIES` categories (found by name or created), `ORGANIZER` an organizer (its CN, else its
 * address), `URL` the website. A recurring event becomes a series (issue 15): its `RRULE`,
 * `RDATE`s and `EXDATE`s become the event's `recurrence` lines, and each override (a VEVENT with
 * the same UID and a `RECURRENCE-ID`) changes that one occurrence, or trashes it when its `STATUS`
 * is `CANCELLED`. Rules this service does not take (`FREQ=HOURLY`, `BYHOUR`, …) bring the first
 * occurrence only, with a warning. An event is upserted by its `UID` (import map, source `ics`), so
 * importing the same calendar again updates it (its overrides included).
 *
 * The whole file is parsed before anything is written: a malformed file changes nothing.
 *
 * @example
 *   await importIcs(services, admin, { input: 'calendar.ics', status: 'publish', dryRun: false, retries: 5, retryDelayMs: 1000 });
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { Services } from '../domain/services.js';
import type { Viewer } from '../domain/permissions.js';
import { ApiError } from '../domain/errors.js';
import type { EventInput } from '../domain/events.js';
import { isValidTimezone, toWallTime } from '../domain/dates.js';
import { withImportContext } from '../store/import-context.js';
import { findMapping, putMapping } from '../store/import-map.js';
import { occurrencesOf } from '../store/recurrence.js';
import { generateSeries } from '../recurrence/horizon.js';
import { checkUrl, createSource, ImportError } from './source.js';
import { ImportReport, type ImportHooks } from './report.js';

export interface IcsImportOptions {
  /** a file path or an http(s) URL */
  input: string;
  /** status of the events (publish, draft, …) */
  status: string;
  dryRun: boolean;
  retries: number;
  retryDelayMs: number;
}

/** One VEVENT, read into what an event write needs. */
export interface IcsEvent {
  uid: string;
  input: EventInput;
  fingerprint: string;
  recurring: boolean;
  /** changed or cancelled occurrences of a recurring event (VEVENTs with its UID and a RECURRENCE-ID) */
  overrides: IcsOverride[];
}

/** One occurrence of a recurring event changed (or cancelled) by a VEVENT with a `RECURRENCE-ID`. */
export interface IcsOverride {
  /** the occurrence's start as the series generates it: Unix seconds, or `YYYY-MM-DD` for a DATE */
  recurrenceId: { seconds: number } | { day: string };
  /** what the occurrence becomes (undefined: it is cancelled) */
  input: EventInput | undefined;
}

const SOURCE = 'ics';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The wall time of an ical.js time as `YYYY-MM-DD HH:MM:SS`. */
function wallOf(t: ICAL.Time): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.year, 4)}-${p(t.month)}-${p(t.day)} ${p(t.hour)}:${p(t.minute)}:${p(t.second)}`;
}

/**
 * Start, end and zone of an event. A `TZID` that is an IANA name is kept with the wall times as
 * written; another `TZID` (Outlook's "W. Europe Standard Time") is resolved through the file's
 * `VTIMEZONE` and the times expressed in the site zone; UTC times stay UTC; floating times are
 * taken in the site zone.
 */
function scheduleOf(event: ICAL.Event, siteTimezone: string): Pick<EventInput, 'start_date' | 'end_date' | 'timezone' | 'all_day'> {
  const start = event.startDate;
  if (!start) throw new Error('no DTSTART');
  let end = event.endDate ?? start.clone();
  if (start.isDate) {
    // DTEND of an all-day event is the day after its last day.
    const last = end.clone();
    if (end.compare(start) > 0) last.adjust(-1, 0, 0, 0);
    return { all_day: true, timezone: siteTimezone, start_date: `${wallOf(start).slice(0, 10)} 00:00:00`, end_date: `${wallOf(last).slice(0, 10)} 23:59:59` };
  }
  if (end.compare(start) < 0) end = start.clone();
  const tzid = start.zone?.tzid ?? '';
  if (tzid === 'UTC' || tzid === 'Z') return { all_day: false, timezone: 'UTC', start_date: wallOf(start), end_date: wallOf(end) };
  if (tzid === 'floating' || tzid === '') return { all_day: false, timezone: siteTimezone, start_date: wallOf(start), end_date: wallOf(end) };
  const original = (start as unknown as { timezone?: string }).timezone ?? tzid;
  if (isValidTimezone(original)) {
    const endZone = (end as unknown as { timezone?: string }).timezone ?? original;
    const endWall = endZone === original ? wallOf(end) : toWallTime(DateTime.fromSeconds(end.toUnixTime(), { zone: original }));
    return { all_day: false, timezone: original, start_date: wallOf(start), end_date: endWall };
  }
  const inSite = (t: ICAL.Time) => toWallTime(DateTime.fromSeconds(t.toUnixTime(), { zone: siteTimezone }));
  return { all_day: false, timezone: siteTimezone, start_date: inSite(start), end_date: inSite(end) };
}

/** `YYYYMMDD` / `YYYYMMDDTHHMMSS(Z)` of an ical.js time: a DATE, a UTC time, or a floating one. */
function icalValue(t: ICAL.Time): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  if (t.isDate) return `${p(t.year, 4)}${p(t.month)}${p(t.day)}`;
  const tzid = t.zone?.tzid ?? '';
  if (tzid === 'floating' || tzid === '') return `${p(t.year, 4)}${p(t.month)}${p(t.day)}T${p(t.hour)}${p(t.minute)}${p(t.second)}`;
  const utc = DateTime.fromSeconds(t.toUnixTime(), { zone: 'UTC' });
  return utc.toFormat("yyyyMMdd'T'HHmmss'Z'");
}

/**
 * The `recurrence` lines of a recurring VEVENT: its RRULEs as written, its RDATE and EXDATE values
 * as DATEs, UTC times (a TZID is resolved through the file's zones, Outlook's included) or floating
 * times (the event's zone). RDATE periods keep their start.
 */
function recurrenceLinesOf(vevent: ICAL.Component): string[] {
  const lines: string[] = [];
  for (const prop of vevent.getAllProperties('rrule')) lines.push(`RRULE:${String(prop.getFirstValue())}`);
  for (const name of ['rdate', 'exdate']) {
    for (const prop of vevent.getAllProperties(name)) {
      for (const raw of prop.getValues() as unknown[]) {
        const value = raw instanceof ICAL.Period ? raw.start : raw;
        if (!(value instanceof ICAL.Time)) continue;
        lines.push(`${name.toUpperCase()}${value.isDate ? ';VALUE=DATE' : ''}:${icalValue(value)}`);
      }
    }
  }
  return lines;
}

/** Parse a whole iCalendar text; throws ImportError with the reason when it is not one. */
export function parseIcs(text: string, siteTimezone: string, status: string, where: string): { events: IcsEvent[]; warnings: string[] } {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (err) {
    throw new ImportError(`${where} is not a valid iCalendar file: ${(err as Error).message}`);
  }
  if (root.name !== 'vcalendar') throw new ImportError(`${where} is not an iCalendar file (it holds a ${root.name.toUpperCase()}, not a VCALENDAR)`);
  for (const vtz of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(vtz);
  const warnings: string[] = [];
  const events: IcsEvent[] = [];
  const overrides = new Map<string, Array<{ override: IcsOverride; json: unknown }>>();
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(vevent);
    const uid = event.uid;
    if (!uid) throw new ImportError(`${where}: an event without UID ("${event.summary ?? ''}") cannot be updated by a later import; every VEVENT needs one`);
    const recurrenceId = vevent.hasProperty('recurrence-id') ? (vevent.getFirstPropertyValue('recurrence-id') as ICAL.Time) : undefined;
    const cancelled = String(vevent.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
    let schedule;
    try {
      schedule = recurrenceId && cancelled ? undefined : scheduleOf(event, siteTimezone);
    } catch (err) {
      throw new ImportError(`${where}: event ${uid} has unusable dates (${(err as Error).message})`);
    }
    const categories = vevent
      .getAllProperties('categories')
      .flatMap((p) => p.getValues().map(String))
      .map((c) => c.trim())
      .filter((c) => c !== '');
    const organizerProp = vevent.getFirstProperty('organizer');
    const organizers: Array<Record<string, string>> = [];
    if (organizerProp) {
      const address = String(organizerProp.getFirstValue() ?? '').replace(/^mailto:/i, '');
      const cn = String(organizerProp.getParameter('cn') ?? '').trim();
      if (cn || address) organizers.push({ organizer: cn || address, ...(address.includes('@') ? { email: address } : {}) });
    }
    const location = (event.location ?? '').trim();
    const url = String(vevent.getFirstPropertyValue('url') ?? '').trim();
    const description = (event.description ?? '').trim();
    const input: EventInput = {
      title: escapeHtml(event.summary ?? ''),
      description: escapeHtml(description),
      status,
      ...schedule,
      venue: location ? { venue: location } : '',
      organizer: organizers,
      categories,
      website: url,
    };
    if (recurrenceId) {
      const at = recurrenceId.isDate ? { day: wallOf(recurrenceId).slice(0, 10) } : { seconds: recurrenceId.toUnixTime() };
      const list = overrides.get(uid) ?? [];
      list.push({ override: { recurrenceId: at, input: cancelled ? undefined : input }, json: vevent.toJSON() });
      overrides.set(uid, list);
      continue;
    }
    const recurring = event.isRecurring();
    if (recurring) input.recurrence = recurrenceLinesOf(vevent);
    events.push({ uid, input, recurring, overrides: [], fingerprint: JSON.stringify(vevent.toJSON()) });
  }
  for (const e of events) {
    const mine = overrides.get(e.uid) ?? [];
    overrides.delete(e.uid);
    if (mine.length && !e.recurring) warnings.push(`${where}: ${e.uid} ("${e.input.title}") does not repeat; its ${mine.length} changed occurrence(s) were left out`);
    else e.overrides = mine.map((m) => m.override);
    // The fingerprint covers the overrides too: a changed occurrence updates the series on the next import.
    e.fingerprint = createHash('sha256')
      .update(mine.length ? e.fingerprint + JSON.stringify(mine.map((m) => m.json)) : e.fingerprint)
      .digest('hex')
      .slice(0, 32);
  }
  for (const uid of overrides.keys()) warnings.push(`${where}: changed occurrences of ${uid} were left out: the file has no recurring event with that UID`);
  return { events, warnings };
}

/** The wall time (`YYYY-MM-DD HH:MM:SS`, in `zone`) or day an override's RECURRENCE-ID names. */
function overrideStart(o: IcsOverride, zone: string): string {
  return 'day' in o.recurrenceId ? o.recurrenceId.day : toWallTime(DateTime.fromSeconds(o.recurrenceId.seconds, { zone }));
}

/**
 * Apply a recurring event's overrides to the occurrences of its series: each changed occurrence is
 * updated alone (`recurrence_scope=this`: it becomes an exception that keeps its id), each cancelled
 * one trashed. An override naming no occurrence (outside the generated horizon, or a start the
 * rules do not make) is a warning.
 */
async function applyOverrides(services: Services, admin: Viewer, seriesId: number, e: IcsEvent, warn: (w: string) => void): Promise<void> {
  // Every occurrence first: a write generates at most OCCURRENCES_PER_WRITE of them (issue 24).
  if (e.recurring) await generateSeries(services, seriesId);
  if (e.overrides.length === 0) return;
  const series = await services.events.findById(seriesId);
  if (!series) return;
  const occurrences = await occurrencesOf(services.store.db, seriesId);
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
    } else await services.events.update(admin, record, { ...o.input, recurrence_scope: 'this' });
  }
}

/** What an invalid `recurrence` was told (the error's params). */
function recurrenceProblem(err: ApiError): string {
  const params = (err.toJSON() as { data?: { params?: Record<string, string> } }).data?.params;
  return params?.recurrence ?? err.message;
}

export async function importIcs(services: Services, admin: Viewer, options: IcsImportOptions, hooks: ImportHooks = {}): Promise<ImportReport> {
  const report = new ImportReport();
  report.source = SOURCE;
  let text: string;
  if (/^https?:\/\//i.test(options.input)) {
    checkUrl(options.input, 'the iCalendar URL');
    text = await createSource({ retries: options.retries, retryDelayMs: options.retryDelayMs }).getText(options.input);
  } else {
    try {
      text = await readFile(options.input, 'utf8');
    } catch (err) {
      throw new ImportError(`cannot read ${options.input}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  const { events, warnings } = parseIcs(text, services.config.timezone, options.status, options.input);
  for (const w of warnings) {
    report.warnings.push(w);
    hooks.onWarning?.(w);
  }
  const db = services.store.db;
  let done = 0;
  for (const e of events) {
    try {
      const known = await findMapping(db, SOURCE, 'event', e.uid);
      const record = known ? await services.events.findById(Number(known.local_id)) : undefined;
      if (record && known!.fingerprint === e.fingerprint) report.count('event', 'skipped');
      else if (options.dryRun) report.count('event', record ? 'updated' : 'created');
      else {
        const remember = async (trx: Parameters<typeof putMapping>[0], result: unknown) =>
          putMapping(trx, { source: SOURCE, kind: 'event', source_id: e.uid, local_id: Number((result as { id: number }).id), fingerprint: e.fingerprint });
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
        await applyOverrides(services, admin, Number(written.id), e, (w) => warn(`${options.input}: ${w}`));
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      report.fail('event', e.uid, `${err.code}: ${err.message}`);
    }
    hooks.onProgress?.({ phase: 'events', done: ++done, total: events.length });
  }
  return report;
}
