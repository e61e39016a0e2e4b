/**
 * `events-calendar import ics FILE|URL`: events from an iCalendar file (Google Calendar, Outlook,
 * Apple, other calendars' feeds), parsed with ical.js (RFC 5545: folding, escaping, `TZID` with
 * the file's `VTIMEZONE`s, all-day `DATE` values). `LOCATION` becomes a venue (reused by name),
 * `CATEGORIES` categories (found by name or created), `ORGANIZER` an organizer (its CN, else its
 * address), `URL` the website. Recurring events bring their first occurrence, with a warning
 * (recurrence does not exist here yet). An event is upserted by its `UID` (import map, source
 * `ics`), so importing the same calendar again updates it.
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
  for (const vevent of root.getAllSubcomponents('vevent')) {
    if (vevent.hasProperty('recurrence-id')) {
      warnings.push(`${where}: a changed occurrence of ${String(vevent.getFirstPropertyValue('uid'))} was left out (recurrence does not exist here yet)`);
      continue;
    }
    const event = new ICAL.Event(vevent);
    const uid = event.uid;
    if (!uid) throw new ImportError(`${where}: an event without UID ("${event.summary ?? ''}") cannot be updated by a later import; every VEVENT needs one`);
    let schedule;
    try {
      schedule = scheduleOf(event, siteTimezone);
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
    const recurring = event.isRecurring();
    if (recurring) warnings.push(`${where}: ${uid} ("${event.summary}") repeats; only its first occurrence was imported (recurrence does not exist here yet)`);
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
    events.push({ uid, input, recurring, fingerprint: createHash('sha256').update(JSON.stringify(vevent.toJSON())).digest('hex').slice(0, 32) });
  }
  return { events, warnings };
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
        if (record) {
          await withImportContext({ wanted: {}, inTransaction: remember }, () => services.events.update(admin, record, e.input));
          report.count('event', 'updated');
        } else {
          await withImportContext({ wanted: {}, inTransaction: remember }, () => services.events.create(admin, e.input));
          report.count('event', 'created');
        }
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      report.fail('event', e.uid, `${err.code}: ${err.message}`);
    }
    hooks.onProgress?.({ phase: 'events', done: ++done, total: events.length });
  }
  return report;
}
