/**
 * Parsing of an iCalendar text for `import ics` (ics.ts), with ical.js: producers' broken date
 * lines repaired first, a file ical.js refuses as a whole parsed VEVENT by VEVENT (those that do
 * not parse are skipped and named), each VEVENT read into an event input (times: ics-times.ts),
 * overrides (`RECURRENCE-ID`) gathered under their series' UID, duplicate UIDs and cancelled events
 * set apart, and a fingerprint of what is written. Nothing here writes; a large text is parsed in
 * a worker thread (ics-parse-worker.ts).
 *
 * @example
 *   const { events, warnings, skipped } = parseIcs(text, 'Europe/Paris', 'publish', 'calendar.ics');
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { EventInput } from '../domain/events/index.js';
import { isOrganizerEmail } from '../domain/linked-posts/index.js';
import { ImportError } from './source.js';
import { recurrenceLinesOf, scheduleOf, secondsOf, wallOf } from './ics-times.js';

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

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

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
        // RFC 5545 does not have) ends early in ical.js and leaves the rest in the value.
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
