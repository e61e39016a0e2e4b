/**
 * `events-calendar import ics FILE|URL`: events from an iCalendar file (Google Calendar, Outlook,
 * Apple, other calendars' feeds), parsed with ical.js (RFC 5545: folding, escaping, `TZID` with
 * the file's `VTIMEZONE`s, all-day `DATE` values). `LOCATION` is matched to a venue here (normalized
 * title or address: `venueMatcher`); one that matches none makes no venue, it is listed for review
 * in the result (`venuesForReview`) and the event goes without a venue until an editor creates it;
 * `CATEGORIES` categories (found by name or created), `ORGANIZER` an organizer (its CN, else its
 * address), `URL` the website. A recurring event becomes a series (issue 15): its `RRULE`,
 * `RDATE`s and `EXDATE`s become the event's `recurrence` lines, and each override (a VEVENT with
 * the same UID and a `RECURRENCE-ID`) changes that one occurrence, or trashes it when its `STATUS`
 * is `CANCELLED`. Rules this service does not take (`FREQ=HOURLY`, `BYHOUR`, …) bring the first
 * occurrence only, with a warning. An event is upserted by its `UID` (import map, source `ics`), so
 * importing the same calendar again updates it (its overrides included).
 *
 * Issue 25, nothing lost silently: a `TZID` without `VTIMEZONE` is resolved by name (IANA, a
 * producer's prefix, Windows through CLDR: `windows-zones.ts`), one known nowhere is a warning and
 * floating time in the site zone; a VEVENT that cannot be imported is skipped and named (summary,
 * UID, line) with the reason, the rest imported (`strict`: all or nothing); a VEVENT without UID
 * gets one derived from its content; duplicate UIDs are reported; the fingerprint covers only what
 * is written, so volatile properties (`DTSTAMP`, …) leave an event unchanged. The whole file is
 * parsed before anything is written: a file that is not iCalendar changes nothing. A Windows zone
 * name with its `VTIMEZONE` (Outlook) is mapped to its IANA zone too, so the event keeps its zone. A
 * VEVENT with `STATUS:CANCELLED` and no `RECURRENCE-ID` is not a live event: it is left out (named
 * in the summary), and the event an earlier import made of it is trashed.
 *
 * @example
 *   await importIcs(services, admin, { input: 'calendar.ics', status: 'publish', dryRun: false, retries: 5, retryDelayMs: 1000 });
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { DomainServices } from '../domain/services.js';
import type { Viewer } from '../domain/permissions.js';
import { ApiError } from '../domain/errors.js';
import type { EventInput } from '../domain/events/index.js';
import { isOrganizerEmail } from '../domain/linked-posts/index.js';
import { isValidTimezone } from '../domain/dates/zones.js';
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
import { ImportReport, type ImportHooks } from './report.js';
import { refreshAfterBulkWrite } from '../store/statistics.js';
import { resolveTzid, WINDOWS_VIA } from './windows-zones.js';

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

/** A VEVENT with `STATUS:CANCELLED` and no `RECURRENCE-ID`: not imported (an event imported from it before is trashed). */
export interface IcsCancelled {
  uid: string;
  /** how the summary names it: summary, UID and line */
  label: string;
}

/** One occurrence of a recurring event changed (or cancelled) by a VEVENT with a `RECURRENCE-ID`. */
export interface IcsOverride {
  /** the occurrence's start as the series generates it: Unix seconds, or `YYYY-MM-DD` for a DATE */
  recurrenceId: { seconds: number } | { day: string };
  /** what the occurrence becomes (undefined: it is cancelled) */
  input: EventInput | undefined;
  /** the RECURRENCE-ID's day as written (Exchange names an all-day occurrence by its midnight in a zone) */
  wallDay?: string;
}

const SOURCE = 'ics';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The wall time of an ical.js time as `YYYY-MM-DD HH:MM:SS`. */
function wallOf(t: ICAL.Time): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.year, 4)}-${p(t.month)}-${p(t.day)} ${p(t.hour)}:${p(t.minute)}:${p(t.second)}`;
}

/**
 * What zone an ical.js time is in. ical.js leaves a time whose `TZID` has no `VTIMEZONE` in the
 * file *floating* (its `toUnixTime()` then reads the wall time as UTC, silently): such a `TZID` is
 * resolved here (IANA name, prefixed IANA name, Windows name through CLDR), or reported unknown.
 */
type ZoneOf = { kind: 'utc' } | { kind: 'floating' } | { kind: 'iana'; zone: string; tzid: string; via: string } | { kind: 'vtimezone'; tzid: string } | { kind: 'unknown'; tzid: string };

function zoneOf(t: ICAL.Time): ZoneOf {
  const tzid = t.zone?.tzid ?? '';
  if (tzid === 'UTC' || tzid === 'Z' || tzid === 'GMT') return { kind: 'utc' };
  const named = (t as unknown as { timezone?: string }).timezone;
  if (tzid === 'floating' || tzid === '') {
    if (!named) return { kind: 'floating' };
    const resolved = resolveTzid(named);
    return resolved ? { kind: 'iana', zone: resolved.zone, tzid: named, via: resolved.via } : { kind: 'unknown', tzid: named };
  }
  // A zone of the file's own VTIMEZONEs: an IANA name keeps its wall times (the name is the zone),
  // and so does a Windows name CLDR maps (Outlook writes its VTIMEZONE beside it): the event keeps its zone.
  const original = named ?? tzid;
  if (isValidTimezone(original) && !/^utc./i.test(original)) return { kind: 'iana', zone: original, tzid: original, via: 'IANA' };
  const windows = resolveTzid(original);
  if (windows?.via === WINDOWS_VIA) return { kind: 'iana', zone: windows.zone, tzid: original, via: windows.via };
  return { kind: 'vtimezone', tzid };
}

/** The instant of an ical.js time in Unix seconds; floating (and unknown-zone) times are read in `floatingZone`. */
function secondsOf(t: ICAL.Time, floatingZone: string): number {
  const z = zoneOf(t);
  if (z.kind === 'utc' || z.kind === 'vtimezone') return t.toUnixTime();
  const zone = z.kind === 'iana' ? z.zone : floatingZone;
  const dt = DateTime.fromObject({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second }, { zone });
  return Math.floor(dt.toSeconds());
}

const wallIn = (seconds: number, zone: string) => toWallTime(DateTime.fromSeconds(seconds, { zone }));

/**
 * Start, end and zone of an event. A `TZID` that is an IANA name (with or without a `VTIMEZONE`,
 * or behind a producer's prefix) is kept with the wall times as written, and so is a Windows name
 * with or without its `VTIMEZONE` (through CLDR's mapping); a `TZID` known only by the file's `VTIMEZONE`
 * (Outlook's custom zones) is resolved through it and the times expressed in the site zone; UTC
 * times stay UTC; floating times, and times of a `TZID` known nowhere (`unknown` is told), are taken
 * in the site zone.
 */
function scheduleOf(event: ICAL.Event, siteTimezone: string, unknown: (tzid: string) => void): Pick<EventInput, 'start_date' | 'end_date' | 'timezone' | 'all_day'> {
  const start = event.startDate;
  if (!start) throw new Error('no DTSTART');
  let end = event.endDate ?? start.clone();
  if (start.isDate) {
    // DTEND of an all-day event is the day after its last day.
    const last = end.clone();
    if (end.compare(start) > 0) last.adjust(-1, 0, 0, 0);
    return { all_day: true, timezone: siteTimezone, start_date: `${wallOf(start).slice(0, 10)} 00:00:00`, end_date: `${wallOf(last).slice(0, 10)} 23:59:59` };
  }
  const z = zoneOf(start);
  if (z.kind === 'unknown') unknown(z.tzid);
  const zone = z.kind === 'utc' ? 'UTC' : z.kind === 'iana' ? z.zone : siteTimezone;
  const startSeconds = secondsOf(start, zone);
  const startWall = z.kind === 'vtimezone' ? wallIn(startSeconds, zone) : wallOf(start);
  if (end.isDate) end = start.clone();
  const endZone = zoneOf(end);
  if (endZone.kind === 'unknown' && endZone.tzid !== (z as { tzid?: string }).tzid) unknown(endZone.tzid);
  let endSeconds = secondsOf(end, zone);
  if (endSeconds < startSeconds) endSeconds = startSeconds;
  const sameZone = JSON.stringify(endZone) === JSON.stringify(z) && z.kind !== 'vtimezone';
  const endWall = sameZone && endSeconds !== startSeconds ? wallOf(end) : wallIn(endSeconds, zone);
  return { all_day: false, timezone: zone, start_date: startWall, end_date: endSeconds === startSeconds ? startWall : endWall };
}

/** `YYYYMMDD` / `YYYYMMDDTHHMMSS(Z)` of an ical.js time: a DATE, a UTC time, or a floating one (also for a TZID known nowhere). */
function icalValue(t: ICAL.Time, floatingZone: string): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  if (t.isDate) return `${p(t.year, 4)}${p(t.month)}${p(t.day)}`;
  const z = zoneOf(t);
  if (z.kind === 'floating' || z.kind === 'unknown') return `${p(t.year, 4)}${p(t.month)}${p(t.day)}T${p(t.hour)}${p(t.minute)}${p(t.second)}`;
  return DateTime.fromSeconds(secondsOf(t, floatingZone), { zone: 'UTC' }).toFormat("yyyyMMdd'T'HHmmss'Z'");
}

/**
 * The `recurrence` lines of a recurring VEVENT: its RRULEs as written, its RDATE and EXDATE values
 * as DATEs, UTC times (a TZID is resolved through the file's zones, Outlook's included, or by name)
 * or floating times (the event's zone). RDATE periods keep their start.
 */
function recurrenceLinesOf(vevent: ICAL.Component, zone: string): string[] {
  const lines: string[] = [];
  for (const prop of vevent.getAllProperties('rrule')) lines.push(`RRULE:${String(prop.getFirstValue())}`);
  for (const name of ['rdate', 'exdate']) {
    for (const prop of vevent.getAllProperties(name)) {
      for (const raw of prop.getValues() as unknown[]) {
        const value = raw instanceof ICAL.Period ? raw.start : raw;
        if (!(value instanceof ICAL.Time)) continue;
        lines.push(`${name.toUpperCase()}${value.isDate ? ';VALUE=DATE' : ''}:${icalValue(value, zone)}`);
      }
    }
  }
  return lines;
}

/*
 * Properties the fingerprint does not see. The fingerprint is a hash of what the import takes
 * from a VEVENT (the event written: title, description, times and zone, venue, organizer,
 * categories, website, status, recurrence lines, and its changed or cancelled occurrences), so
 * everything else is ignored: in particular `DTSTAMP` (generators set it to "now"),
 * `LAST-MODIFIED`, `CREATED`, `SEQUENCE`, `ATTENDEE`s, `VALARM`s, `TRANSP`, `CLASS`, `PRIORITY` and
 * `X-` properties (see parseIcs).
 */

/** Date-valued properties whose text must be a real date (ical.js would roll `20271345` over into 2028). */
const DATE_PROPERTIES = ['dtstart', 'dtend', 'recurrence-id', 'due'];

function checkDates(vevent: ICAL.Component, rawLine: (name: string) => string | undefined): void {
  for (const name of DATE_PROPERTIES) {
    for (const prop of vevent.getAllProperties(name)) {
      const json = prop.toJSON() as unknown[];
      for (const raw of json.slice(3)) {
        if (typeof raw !== 'string') continue;
        const type = String(json[2]);
        if (type !== 'date' && type !== 'date-time') continue;
        if (!DateTime.fromISO(raw, { zone: 'UTC' }).isValid) throw new Error(`${rawLine(name) ?? name.toUpperCase()} is not a date (expected YYYYMMDD or YYYYMMDDTHHMMSS)`);
      }
    }
  }
}

/** A stable UID for a VEVENT without one: a hash of what identifies it, never of volatile properties. */
function derivedUid(vevent: ICAL.Component): string {
  const parts = ['summary', 'dtstart', 'dtend', 'duration', 'location', 'rrule'].map((name) => {
    const prop = vevent.getFirstProperty(name);
    return prop ? JSON.stringify(prop.toJSON()) : '';
  });
  return `derived-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 24)}@events-calendar`;
}

/** Content lines (folding undone), each with the line of the file it starts on (1-based). */
interface Line {
  text: string;
  line: number;
}

function unfold(text: string): Line[] {
  const out: Line[] = [];
  text.split(/\r\n|\n|\r/).forEach((raw, i) => {
    const last = out[out.length - 1];
    if (last && (raw.startsWith(' ') || raw.startsWith('\t'))) last.text += raw.slice(1);
    else out.push({ text: raw, line: i + 1 });
  });
  return out;
}

const DATE_LINE = /^(DTSTART|DTEND|DUE|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:]*)?):(.*)$/i;

/**
 * Repairs of date lines as common producers write them wrong, before ical.js reads them:
 * - Outlook's `DTSTART;TZID="W. Europe Standard Time:20200609T090000"` (the quote closes after the value);
 * - `VALUE=DATE` with a date-time value (`DTSTART;VALUE=DATE:20110805T150000`): a date-time;
 * - a bare date without `VALUE=DATE` (`DTSTART:20021028`, Apple iCal 1.0): a DATE.
 */
function repairLine(text: string): string {
  const quoted = /^(DTSTART|DTEND|DUE|RECURRENCE-ID|EXDATE|RDATE)(;.*TZID=)"([^":]*):([0-9TZ,]+)"\s*$/i.exec(text);
  if (quoted) text = `${quoted[1]}${quoted[2]}"${quoted[3]}":${quoted[4]}`;
  const m = DATE_LINE.exec(text);
  if (!m) return text;
  const [, name, params = '', value = ''] = m;
  const values = value.trim().split(',');
  const isDateParam = /;VALUE=DATE(?=;|$)/i.test(params);
  if (isDateParam && values.every((v) => /^\d{8}T\d{6}Z?$/.test(v))) return `${name}${params.replace(/;VALUE=DATE(?=;|$)/i, '')}:${value}`;
  if (!/;VALUE=/i.test(params) && values.every((v) => /^\d{8}$/.test(v))) return `${name}${params.replace(/;TZID=("[^"]*"|[^;:]*)/i, '')};VALUE=DATE:${value}`;
  return text;
}

/** Where each VEVENT starts in the file (line numbers, 1-based), in order. */
function veventLines(lines: Line[]): number[] {
  return lines.filter((l) => /^BEGIN:VEVENT\s*$/i.test(l.text)).map((l) => l.line);
}

/** One VEVENT block the parser refused, named by what the raw text says. */
interface Refused {
  line: number;
  label: string;
  reason: string;
}

/**
 * The calendar of a text ical.js refuses as a whole: the calendar without its VEVENTs must parse
 * (else the file is not iCalendar), then each VEVENT is parsed on its own; those that do not parse
 * are returned as refused.
 */
function parseByBlocks(lines: Line[], where: string, firstError: Error): { root: ICAL.Component; refused: Refused[]; lines: number[] } {
  const skeleton: string[] = [];
  const blocks: Array<{ line: number; text: string[] }> = [];
  let current: { line: number; text: string[] } | undefined;
  lines.forEach(({ text: line, line: number }) => {
    if (!current && /^BEGIN:VEVENT\s*$/i.test(line)) current = { line: number, text: [] };
    if (current) {
      current.text.push(line);
      if (/^END:VEVENT\s*$/i.test(line)) {
        blocks.push(current);
        current = undefined;
      }
    } else skeleton.push(line);
  });
  if (current) blocks.push(current);
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(skeleton.join('\r\n')) as unknown[]);
  } catch {
    throw new ImportError(`${where} is not a valid iCalendar file: ${firstError.message}`);
  }
  const refused: Refused[] = [];
  const kept: number[] = [];
  for (const block of blocks) {
    const raw = block.text.join('\r\n');
    try {
      const vevent = new ICAL.Component(ICAL.parse(raw) as unknown[]);
      if (vevent.name !== 'vevent') throw new Error('not a VEVENT');
      root.addSubcomponent(vevent);
      kept.push(block.line);
    } catch (err) {
      const uid = /^UID:(.*)$/im.exec(raw)?.[1]?.trim();
      const summary = /^SUMMARY[^:]*:(.*)$/im.exec(raw)?.[1]?.trim();
      refused.push({ line: block.line, label: labelOf(summary, uid, block.line), reason: `it does not parse: ${(err as Error).message}` });
    }
  }
  return { root, refused, lines: kept };
}

function labelOf(summary: string | undefined, uid: string | undefined, line: number | undefined): string {
  const bits = [uid ? `UID ${uid}` : 'no UID', line ? `line ${line}` : undefined].filter(Boolean).join(', ');
  return `event "${summary ?? ''}" (${bits})`;
}

export interface ParsedIcs {
  events: IcsEvent[];
  warnings: string[];
  /** VEVENTs left out, each named (summary, UID, line) with the reason */
  skipped: Array<{ id: string; reason: string }>;
  /** VEVENTs cancelled (`STATUS:CANCELLED`, no `RECURRENCE-ID`): not imported, not a problem (`strict` lets them pass) */
  cancelled: IcsCancelled[];
  /** VEVENTs in the file */
  total: number;
}

/**
 * Parse a whole iCalendar text. A file that is not iCalendar throws ImportError; a VEVENT that
 * cannot be imported (no DTSTART, a date that is not one, a line that does not parse, a second
 * VEVENT with the same UID) is skipped and named, and the rest is returned. With `strict`, any
 * VEVENT skipped, any duplicate UID and any `TZID` known nowhere throws instead.
 */
export function parseIcs(text: string, siteTimezone: string, status: string, where: string, strict = false): ParsedIcs {
  let root: ICAL.Component;
  let refused: Refused[] = [];
  const contentLines = unfold(text).map((l) => ({ text: repairLine(l.text), line: l.line }));
  let lines = veventLines(contentLines);
  const textLines = text.split(/\r\n|\n|\r/);
  try {
    root = new ICAL.Component(ICAL.parse(contentLines.map((l) => l.text).join('\r\n')) as unknown[]);
  } catch (err) {
    if (!/^\s*BEGIN:VCALENDAR/i.test(text)) throw new ImportError(`${where} is not a valid iCalendar file: ${(err as Error).message}`);
    ({ root, refused, lines } = parseByBlocks(contentLines, where, err as Error));
  }
  if (root.name !== 'vcalendar') throw new ImportError(`${where} is not an iCalendar file (it holds a ${root.name.toUpperCase()}, not a VCALENDAR)`);
  // ical.js keeps zones process-wide: only this file's VTIMEZONEs count.
  ICAL.TimezoneService.reset();
  for (const vtz of root.getAllSubcomponents('vtimezone')) {
    try {
      ICAL.TimezoneService.register(vtz);
    } catch {
      // a VTIMEZONE without TZID: its events' TZID is resolved by name, or reported
    }
  }
  const warnings: string[] = [];
  const skipped: Array<{ id: string; reason: string }> = refused.map((r) => ({ id: r.label, reason: r.reason }));
  const vevents = root.getAllSubcomponents('vevent');
  if (lines.length !== vevents.length) lines = [];
  const events: Array<IcsEvent & { label: string; sequence: number; cancelled: boolean }> = [];
  const overrides = new Map<string, Array<{ override: IcsOverride; input: EventInput | undefined }>>();
  const unknownZones: string[] = [];
  let derived = 0;
  vevents.forEach((vevent, index) => {
    const line = lines[index];
    const summaryText = String(vevent.getFirstPropertyValue('summary') ?? '').trim();
    let uid = String(vevent.getFirstPropertyValue('uid') ?? '').trim();
    const label = labelOf(summaryText, uid || undefined, line);
    try {
      if (!vevent.hasProperty('dtstart')) throw new Error('it has no DTSTART');
      checkDates(vevent, (name) => {
        // the property's line as written, for the message (ical.js has already mangled the value)
        if (line === undefined) return undefined;
        for (let i = line; i < textLines.length && !/^END:VEVENT/i.test(textLines[i]!); i++) {
          if (textLines[i]!.toUpperCase().startsWith(name.toUpperCase()) && /^[;:]/.test(textLines[i]!.slice(name.length))) return `"${textLines[i]!.trim()}"`;
        }
        return undefined;
      });
      if (!uid) {
        uid = derivedUid(vevent);
        derived++;
      }
      // No exceptions related by ical.js (its default scans every VEVENT of the calendar for each
      // one: quadratic, a 1 MiB feed held the loop seconds); overrides are matched by UID below.
      const event = new ICAL.Event(vevent, { exceptions: [] });
      const recurrenceId = vevent.hasProperty('recurrence-id') ? (vevent.getFirstPropertyValue('recurrence-id') as ICAL.Time) : undefined;
      const cancelled = String(vevent.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
      const zonesNotFound = new Set<string>();
      let schedule;
      try {
        schedule = recurrenceId && cancelled ? undefined : scheduleOf(event, siteTimezone, (tzid) => zonesNotFound.add(tzid));
      } catch (err) {
        throw new Error(`its dates are unusable (${(err as Error).message})`);
      }
      for (const tzid of zonesNotFound) {
        unknownZones.push(tzid);
        warnings.push(
          `${where}: ${label}: time zone "${tzid}" is not known (no VTIMEZONE for it in the file, and not an IANA or Windows zone name); its times were taken as floating times in the site zone (${siteTimezone})`,
        );
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
        // The e-mail only when the value is an address: a CN with a backslash-escaped quote (which
        // RFC 5545 does not have) ends early in ical.js and leaves the rest in the value (issue 24).
        if (cn || address) organizers.push({ organizer: cn || address, ...(isOrganizerEmail(address) ? { email: address } : {}) });
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
        const at = recurrenceId.isDate ? { day: wallOf(recurrenceId).slice(0, 10) } : { seconds: secondsOf(recurrenceId, schedule?.timezone ?? siteTimezone) };
        const list = overrides.get(uid) ?? [];
        list.push({ override: { recurrenceId: at, input: cancelled ? undefined : input, wallDay: wallOf(recurrenceId).slice(0, 10) }, input: cancelled ? undefined : input });
        overrides.set(uid, list);
        return;
      }
      const recurring = event.isRecurring();
      if (recurring) input.recurrence = recurrenceLinesOf(vevent, String(input.timezone ?? siteTimezone));
      const sequence = Number(vevent.getFirstPropertyValue('sequence') ?? 0) || 0;
      events.push({ uid, input, recurring, overrides: [], fingerprint: '', label: labelOf(summaryText, uid, line), sequence, cancelled });
    } catch (err) {
      skipped.push({ id: label, reason: (err as Error).message });
    }
  });
  if (derived) {
    warnings.push(`${where}: ${derived} event(s) without UID were given one derived from their summary, start, end, location and rule; a later import recognises them while those stay the same`);
  }
  // Two VEVENTs with one UID and no RECURRENCE-ID: the one with the higher SEQUENCE is kept (the first on a tie).
  const byUid = new Map<string, IcsEvent & { label: string; sequence: number; cancelled: boolean }>();
  let kept: Array<IcsEvent & { label: string; sequence: number; cancelled: boolean }> = [];
  const duplicates: string[] = [];
  for (const e of events) {
    const first = byUid.get(e.uid);
    if (!first) {
      byUid.set(e.uid, e);
      kept.push(e);
      continue;
    }
    const [winner, loser] = e.sequence > first.sequence ? [e, first] : [first, e];
    if (winner === e) kept[kept.indexOf(first)] = e;
    byUid.set(e.uid, winner);
    const reason = `it has the same UID as ${winner.label} and no RECURRENCE-ID; the one with the higher SEQUENCE (the first on a tie) was imported`;
    skipped.push({ id: loser.label, reason });
    duplicates.push(`${loser.label}: ${reason}`);
  }
  for (const d of duplicates) warnings.push(`${where}: duplicate UID: ${d}`);
  // Cancelled events (STATUS:CANCELLED without RECURRENCE-ID) are not live events: left out, with their changed occurrences.
  const cancelledEvents: IcsCancelled[] = kept.filter((e) => e.cancelled).map((e) => ({ uid: e.uid, label: e.label }));
  for (const c of cancelledEvents) overrides.delete(c.uid);
  kept = kept.filter((e) => !e.cancelled);
  for (const e of kept) {
    const mine = overrides.get(e.uid) ?? [];
    overrides.delete(e.uid);
    if (mine.length && !e.recurring) warnings.push(`${where}: ${e.uid} ("${e.input.title}") does not repeat; its ${mine.length} changed occurrence(s) were left out`);
    else e.overrides = mine.map((m) => (e.input.all_day && 'seconds' in m.override.recurrenceId ? { ...m.override, recurrenceId: { day: m.override.wallDay! } } : m.override));
    // What the import writes, and only that: volatile properties (DTSTAMP, …) leave it unchanged.
    e.fingerprint = createHash('sha256')
      .update(JSON.stringify({ v: 2, input: e.input, recurring: e.recurring, overrides: e.overrides }))
      .digest('hex')
      .slice(0, 32);
  }
  for (const uid of overrides.keys()) warnings.push(`${where}: changed occurrences of ${uid} were left out: the file has no recurring event with that UID`);
  for (const s of skipped) if (!s.reason.startsWith('it has the same UID')) warnings.push(`${where}: ${s.id} was skipped: ${s.reason}`);
  if (strict && (skipped.length || unknownZones.length)) {
    const first = skipped[0] ? `${skipped[0].id}: ${skipped[0].reason}` : `time zone "${unknownZones[0]}" is not known`;
    throw new ImportError(`${where}: --strict: ${skipped.length} event(s) would be skipped and ${unknownZones.length} time zone(s) are not known (first: ${first}); nothing was imported`);
  }
  return { events: kept.map(({ label: _label, sequence: _sequence, cancelled: _cancelled, ...e }) => e), cancelled: cancelledEvents, warnings, skipped, total: vevents.length + refused.length };
}

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
  // Every occurrence first: a write generates at most OCCURRENCES_PER_WRITE of them (issue 24).
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

/** Texts up to this size are parsed on the calling thread (a few tens of milliseconds at most). */
export const PARSE_ON_LOOP_MAX_CHARS = 256 * 1024;

/**
 * `parseIcs`, off the event loop for a large text: parsing costs about 0.2-0.3 s of CPU per MiB,
 * and an import runs in the server's process (the admin API's import job), where such a parse
 * would hold every request for seconds. A text of up to PARSE_ON_LOOP_MAX_CHARS is parsed here;
 * a larger one in a worker thread of its own (ics-parse-worker.ts), ended once it answered.
 */
export async function parseIcsOffLoop(text: string, siteTimezone: string, status: string, where: string, strict = false, onLoopMaxChars = PARSE_ON_LOOP_MAX_CHARS): Promise<ParsedIcs> {
  if (text.length <= onLoopMaxChars) return parseIcs(text, siteTimezone, status, where, strict);
  // The compiled worker beside the compiled module, or the TypeScript source under tsx (tests).
  const file = new URL(import.meta.url.endsWith('.ts') ? './ics-parse-worker.ts' : './ics-parse-worker.js', import.meta.url);
  const worker = new Worker(file, { workerData: { text, siteTimezone, status, where, strict } });
  try {
    const answer = await new Promise<{ parsed?: ParsedIcs; error?: { message: string; importError: boolean } }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the iCalendar parse stopped (exit code ${code})`)));
    });
    if (answer.error) throw answer.error.importError ? new ImportError(answer.error.message) : new Error(answer.error.message);
    return answer.parsed!;
  } finally {
    void worker.terminate();
  }
}

export async function importIcs(services: DomainServices, admin: Viewer, options: IcsImportOptions, hooks: ImportHooks = {}): Promise<ImportReport> {
  const report = new ImportReport({ unchanged: true, dryRun: options.dryRun });
  report.source = SOURCE;
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
  for (const s of skipped) report.skip('event', s.id, s.reason);
  for (const c of cancelled) report.skip('event', c.label, await retireCancelled(services, admin, c, options.dryRun));
  for (const w of warnings) {
    report.warnings.push(w);
    hooks.onWarning?.(w);
  }
  let done = 0;
  let occurrences = 0;
  const venues = await venueMatcher(db);
  const ownUid = ownUidPattern(services.config.siteUrl);
  for (const e of events) {
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
