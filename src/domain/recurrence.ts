/**
 * Recurrence rules: the `recurrence` lines of an event (RFC 5545 `RRULE`, `RDATE`,
 * `EXDATE`, as Google Calendar's API takes them, without `DTSTART`: the event's own start, end,
 * time zone and all-day flag give the first occurrence and the duration), their validation, and
 * their expansion into occurrence start times.
 *
 * Expansion happens in the event's time zone and never in the process' (`TZ` plays no part): the
 * rule is expanded over *wall times* by `rrule-temporal` (run in UTC, where no day has a gap or an
 * overlap), then each wall time is placed in the event's zone with the same function single events
 * use (`wallToUtc`, Luxon). So a weekly 19:00 class stays at 19:00 local through every change of
 * daylight-saving time.
 *
 * **Local times in a daylight-saving gap** (02:30 on the night clocks jump from 02:00 to 03:00) are
 * shifted forward by the gap's length (03:30), as RFC 5545 §3.3.5 says for a DATE-TIME with a TZID
 * ("interpreted using the UTC offset before the gap") and as Google Calendar does, rather than
 * skipped (RFC 5545 §3.3.10): a weekly class is still held that week. A time that occurs twice
 * (clocks going back) is the later of the two, as for single events. The occurrence's
 * `original_start_date` is that shifted time.
 *
 * @example
 *   const rules = parseRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10']);
 *   expandOccurrences(rules, { start_local: '2027-03-02 19:00:00', end_local: '2027-03-02 20:00:00', timezone: 'America/New_York', all_day: false }, '2032-03-02 00:00:00');
 *   // [{ start_local: '2027-03-02 19:00:00', end_local: '2027-03-02 20:00:00', start_utc: '2027-03-03 00:00:00', end_utc: … }, …]
 */
import { DateTime } from 'luxon';
import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';
import { invalidParams, type ApiError } from './errors.js';
import { isValidTimezone, zoneOf } from './dates/zones.js';
import { utcToWall, wallToUtc } from './dates/wall.js';

/** A date or date-time of an `RDATE`/`EXDATE`/`UNTIL` value. */
export type RecurrenceDate =
  | { kind: 'date'; date: string }
  /** a wall time in `tzid`, or in the event's zone when absent (a "floating" value) */
  | { kind: 'local'; wall: string; tzid?: string }
  | { kind: 'utc'; wall: string };

/** The parsed, normalised `recurrence` of an event. */
export interface Recurrence {
  /** the lines as stored and answered (normalised: upper-case names, no spaces) */
  lines: string[];
  /** the RRULE without UNTIL (the expansion applies UNTIL itself), or undefined for RDATE-only sets */
  rule?: string;
  until?: RecurrenceDate;
  count?: number;
  rdates: RecurrenceDate[];
  exdates: RecurrenceDate[];
}

/** The first occurrence (the event's own schedule). */
export interface SeriesStart {
  start_local: string;
  end_local: string;
  timezone: string;
  all_day: boolean;
}

/** One generated occurrence: its wall times in the event's zone and in UTC. */
export interface Occurrence {
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
}

const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
const PARTS = ['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'WKST'] as const;
/** At most this many occurrences per series (a daily rule over 20 years is 7,305). */
export const MAX_OCCURRENCES = 10_000;
/** At most this many lines, and RDATE/EXDATE values in all. */
const MAX_LINES = 50;
const MAX_DATES = 1000;

class LineError extends Error {}

/**
 * The 400 `rest_invalid_param` of a bad `recurrence`: `params.recurrence` names the line (1-based)
 * and the problem; `details.recurrence.data` has them as `line`, `value` and `problem`.
 */
function recurrenceError(index: number, value: string, problem: string): ApiError {
  const message = `Line ${index + 1} (${JSON.stringify(value.length > 200 ? value.slice(0, 200) + '…' : value)}): ${problem}`;
  return invalidParams({
    recurrence: { message, detail: { code: 'rest_invalid_recurrence', message, data: { status: 400, line: index + 1, value, problem } } },
  });
}

/** Whether the value clears the recurrence (`[]`, `""`, `null`): the event becomes single again. */
export function isClearingRecurrence(value: unknown): boolean {
  return value === '' || value === null || (Array.isArray(value) && value.every((v) => v === '' || v === null));
}

/** The lines of a `recurrence` value: a list of strings, or one string (lines split at newlines). */
function linesOf(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\r?\n/) : undefined;
  if (raw === undefined) throw invalidParams({ recurrence: 'recurrence must be a list of RRULE, RDATE and EXDATE lines.' });
  const lines: string[] = [];
  for (const v of raw) {
    if (typeof v !== 'string') throw invalidParams({ recurrence: 'recurrence must be a list of RRULE, RDATE and EXDATE lines.' });
    if (v.trim() !== '') lines.push(v.trim());
  }
  return lines;
}

/**
 * Parse and validate a `recurrence` value (the caller handles clearing values first). Throws the
 * 400 naming the first bad line and its problem.
 *
 * @example parseRecurrence(['RRULE:FREQ=MONTHLY;BYDAY=-1FR', 'EXDATE:20270129T190000']).count // undefined
 */
export function parseRecurrence(value: unknown): Recurrence {
  const lines = linesOf(value);
  if (lines.length === 0) throw invalidParams({ recurrence: 'recurrence must hold an RRULE or RDATE line.' });
  if (lines.length > MAX_LINES) throw invalidParams({ recurrence: `recurrence may hold at most ${MAX_LINES} lines.` });
  const out: Recurrence = { lines: [], rdates: [], exdates: [] };
  lines.forEach((line, index) => {
    try {
      const colon = line.indexOf(':');
      if (colon < 0) throw new LineError('expected NAME:VALUE, e.g. RRULE:FREQ=WEEKLY.');
      const [rawName = '', ...params] = line.slice(0, colon).split(';');
      const name = rawName.toUpperCase();
      const body = line.slice(colon + 1).trim();
      if (name === 'RRULE') {
        if (params.length) throw new LineError('RRULE takes no parameters.');
        if (out.rule !== undefined) throw new LineError('only one RRULE is allowed.');
        const rule = parseRule(body);
        Object.assign(out, rule.parts);
        out.rule = rule.forLibrary;
        out.lines.push(`RRULE:${rule.normalised}`);
      } else if (name === 'RDATE' || name === 'EXDATE') {
        const { dates, normalised } = parseDateList(params, body);
        (name === 'RDATE' ? out.rdates : out.exdates).push(...dates);
        if (out.rdates.length + out.exdates.length > MAX_DATES) throw new LineError(`at most ${MAX_DATES} RDATE and EXDATE values in all.`);
        out.lines.push(`${name}${normalised}`);
      } else if (name === 'DTSTART') {
        throw new LineError('DTSTART is not accepted: start_date, end_date, timezone and all_day give the first occurrence.');
      } else if (name === 'EXRULE') {
        throw new LineError('EXRULE is not supported (RFC 5545 deprecated it); use EXDATE.');
      } else {
        throw new LineError(`unknown line ${JSON.stringify(name)}: expected RRULE, RDATE or EXDATE.`);
      }
    } catch (err) {
      if (err instanceof LineError) throw recurrenceError(index, line, err.message);
      throw err;
    }
  });
  if (out.rule === undefined && out.rdates.length === 0) throw invalidParams({ recurrence: 'recurrence must hold an RRULE or RDATE line.' });
  return out;
}

function intIn(name: string, v: string, min: number, max: number, zero = true): number {
  if (!/^[+-]?\d{1,6}$/.test(v)) throw new LineError(`${name} must be an integer, not ${JSON.stringify(v)}.`);
  const n = Number(v);
  if (n < min || n > max || (!zero && n === 0)) throw new LineError(`${name} value ${v} is out of range (${min}..${max}${zero ? '' : ', not 0'}).`);
  return n;
}

function parseRule(body: string): { parts: Pick<Recurrence, 'until' | 'count'>; forLibrary: string; normalised: string } {
  const seen = new Map<string, string>();
  for (const part of body.split(';')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new LineError(`expected NAME=VALUE, not ${JSON.stringify(part)}.`);
    const key = part.slice(0, eq).toUpperCase();
    const val = part.slice(eq + 1).toUpperCase();
    if (!(PARTS as readonly string[]).includes(key)) {
      throw new LineError(`${key} is not supported (supported: ${PARTS.join(', ')}).`);
    }
    if (seen.has(key)) throw new LineError(`${key} is given twice.`);
    if (val === '') throw new LineError(`${key} has no value.`);
    seen.set(key, val);
  }
  const freq = seen.get('FREQ');
  if (freq === undefined) throw new LineError('FREQ is required.');
  if (!(FREQS as readonly string[]).includes(freq)) throw new LineError(`FREQ must be one of ${FREQS.join(', ')}, not ${freq}.`);
  const parts: Pick<Recurrence, 'until' | 'count'> = {};
  const lib: string[] = [`FREQ=${freq}`];
  const norm: string[] = [`FREQ=${freq}`];
  const interval = seen.get('INTERVAL');
  if (interval !== undefined) {
    const n = intIn('INTERVAL', interval, 1, 1000);
    lib.push(`INTERVAL=${n}`);
    norm.push(`INTERVAL=${n}`);
  }
  if (seen.has('COUNT') && seen.has('UNTIL')) throw new LineError('COUNT and UNTIL must not both be given.');
  const count = seen.get('COUNT');
  if (count !== undefined) {
    parts.count = intIn('COUNT', count, 1, MAX_OCCURRENCES);
    lib.push(`COUNT=${parts.count}`);
    norm.push(`COUNT=${parts.count}`);
  }
  const until = seen.get('UNTIL');
  if (until !== undefined) {
    parts.until = parseDateValue(until, undefined, 'UNTIL');
    norm.push(`UNTIL=${until}`);
  }
  const byday = seen.get('BYDAY');
  if (byday !== undefined) {
    for (const d of byday.split(',')) {
      const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(d);
      if (!m) throw new LineError(`BYDAY value ${JSON.stringify(d)} is not a weekday (MO..SU, optionally with an ordinal such as -1FR or 2TU).`);
      if (m[1] !== undefined) {
        if (freq !== 'MONTHLY' && freq !== 'YEARLY') throw new LineError(`BYDAY ordinals (${d}) are only allowed with FREQ=MONTHLY or FREQ=YEARLY.`);
        intIn(`BYDAY ordinal of ${d}`, m[1], freq === 'MONTHLY' ? -5 : -53, freq === 'MONTHLY' ? 5 : 53, false);
      }
    }
    lib.push(`BYDAY=${byday}`);
    norm.push(`BYDAY=${byday}`);
  }
  const bymonthday = seen.get('BYMONTHDAY');
  if (bymonthday !== undefined) {
    if (freq === 'WEEKLY') throw new LineError('BYMONTHDAY is not allowed with FREQ=WEEKLY.');
    bymonthday.split(',').forEach((v) => intIn('BYMONTHDAY', v, -31, 31, false));
    lib.push(`BYMONTHDAY=${bymonthday}`);
    norm.push(`BYMONTHDAY=${bymonthday}`);
  }
  const bymonth = seen.get('BYMONTH');
  if (bymonth !== undefined) {
    bymonth.split(',').forEach((v) => intIn('BYMONTH', v, 1, 12));
    lib.push(`BYMONTH=${bymonth}`);
    norm.push(`BYMONTH=${bymonth}`);
  }
  const bysetpos = seen.get('BYSETPOS');
  if (bysetpos !== undefined) {
    if (byday === undefined && bymonthday === undefined && bymonth === undefined) throw new LineError('BYSETPOS needs BYDAY, BYMONTHDAY or BYMONTH.');
    bysetpos.split(',').forEach((v) => intIn('BYSETPOS', v, -366, 366, false));
    lib.push(`BYSETPOS=${bysetpos}`);
    norm.push(`BYSETPOS=${bysetpos}`);
  }
  const wkst = seen.get('WKST');
  if (wkst !== undefined) {
    if (!(WEEKDAYS as readonly string[]).includes(wkst)) throw new LineError(`WKST must be a weekday (MO..SU), not ${wkst}.`);
    lib.push(`WKST=${wkst}`);
    norm.push(`WKST=${wkst}`);
  }
  return { parts, forLibrary: lib.join(';'), normalised: norm.join(';') };
}

/** `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ`, checked as a real date. */
function parseDateValue(v: string, tzid: string | undefined, what: string): RecurrenceDate {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(v);
  if (!m) throw new LineError(`${what} value ${JSON.stringify(v)} is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS, optionally ending in Z).`);
  const [, y, mo, d, h, mi, s, z] = m;
  const dt = DateTime.fromObject({ year: Number(y), month: Number(mo), day: Number(d), hour: Number(h ?? 0), minute: Number(mi ?? 0), second: Number(s ?? 0) }, { zone: 'UTC' });
  if (!dt.isValid || dt.year < 1) throw new LineError(`${what} value ${v} is not a valid date.`);
  const date = `${y}-${mo}-${d}`;
  if (h === undefined) return { kind: 'date', date };
  const wall = `${date} ${h}:${mi}:${s}`;
  if (z) {
    if (tzid) throw new LineError(`${what} value ${v} ends in Z (UTC) and also has a TZID.`);
    return { kind: 'utc', wall };
  }
  return tzid ? { kind: 'local', wall, tzid } : { kind: 'local', wall };
}

function parseDateList(params: string[], body: string): { dates: RecurrenceDate[]; normalised: string } {
  let tzid: string | undefined;
  let valueType: string | undefined;
  const normParams: string[] = [];
  for (const p of params) {
    const eq = p.indexOf('=');
    const key = (eq < 0 ? p : p.slice(0, eq)).toUpperCase();
    const raw = eq < 0 ? '' : p.slice(eq + 1);
    const val = raw.toUpperCase();
    if (key === 'TZID') {
      tzid = raw.replace(/^"(.*)"$/, '$1');
      if (!isValidTimezone(tzid)) throw new LineError(`TZID ${raw} is not a known time zone.`);
      normParams.push(`TZID=${tzid}`);
    } else if (key === 'VALUE') {
      if (val !== 'DATE' && val !== 'DATE-TIME') throw new LineError(`VALUE must be DATE or DATE-TIME (PERIOD is not supported), not ${val}.`);
      valueType = val;
      normParams.push(`VALUE=${val}`);
    } else throw new LineError(`parameter ${key} is not supported (supported: TZID, VALUE).`);
  }
  if (body === '') throw new LineError('no date given.');
  const dates = body.split(',').map((v) => {
    const d = parseDateValue(v.trim().toUpperCase(), tzid, 'date');
    if (valueType === 'DATE' && d.kind !== 'date') throw new LineError(`VALUE=DATE but ${v} is a date-time.`);
    if (valueType === 'DATE-TIME' && d.kind === 'date') throw new LineError(`VALUE=DATE-TIME but ${v} is a date.`);
    if (tzid && d.kind === 'date') throw new LineError(`TZID given but ${v} is a date without a time.`);
    return d;
  });
  return { dates, normalised: `${normParams.map((p) => ';' + p).join('')}:${body.toUpperCase().replace(/\s+/g, '')}` };
}

/** The wall time in `tz` of a recurrence date (dates keep the time of day of `timeOfDay`). */
function wallInZone(d: RecurrenceDate, tz: string, timeOfDay: string): string {
  switch (d.kind) {
    case 'date':
      return `${d.date} ${timeOfDay}`;
    case 'utc':
      return utcToWall(d.wall, tz);
    case 'local':
      return d.tzid && d.tzid !== tz ? utcToWall(wallToUtc(d.wall, d.tzid), tz) : d.wall;
  }
}

/** Seconds between two `YYYY-MM-DD HH:MM:SS` UTC wall times. */
function secondsBetween(a: string, b: string): number {
  return (Date.parse(b.replace(' ', 'T') + 'Z') - Date.parse(a.replace(' ', 'T') + 'Z')) / 1000;
}

function addSeconds(utcWall: string, seconds: number): string {
  return new Date(Date.parse(utcWall.replace(' ', 'T') + 'Z') + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(date + 'T00:00:00Z') + days * 86_400_000).toISOString().slice(0, 10);
}

/** The latest wall time a rule is expanded to (later years do not fit `YYYY-MM-DD`). */
const LAST_WALL_MS = Date.UTC(9999, 0, 1);
/** How far one `between` query of a rule without COUNT reaches, per frequency (each answers at most ~1,500 starts). */
const WINDOW: Record<(typeof FREQS)[number], { days?: number; weeks?: number; months?: number; years?: number }> = {
  DAILY: { days: 1500 },
  WEEKLY: { weeks: 200 },
  MONTHLY: { months: 48 },
  YEARLY: { years: 4 },
};

/** `YYYY-MM-DD HH:MM:SS` of an instant, in UTC. */
function utcWallOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

function zonedUtc(wall: string): Temporal.ZonedDateTime {
  const [date, time] = wall.split(' ') as [string, string];
  return Temporal.ZonedDateTime.from(`${date}T${time}[UTC]`);
}

/**
 * The wall starts the RRULE generates before `horizon` (the first being the event's own start), at
 * most MAX_OCCURRENCES, UNTIL applied. The rule runs over wall times in UTC; only the instants'
 * epoch milliseconds are read (the library's numeric path: 10,000 daily starts take tens of
 * milliseconds, where reading each as a Temporal date-time took a second). A rule with COUNT is
 * expanded whole (COUNT is at most MAX_OCCURRENCES); one without is read window by window up to
 * the horizon or UNTIL.
 */
function ruleWalls(rec: Recurrence, first: SeriesStart, horizon: string): string[] {
  const tz = first.timezone;
  if (rec.rule === undefined) return [first.start_local];
  const until = rec.until;
  const untilUtc = until?.kind === 'utc' ? until.wall : until?.kind === 'local' ? wallToUtc(until.wall, until.tzid ?? tz) : undefined;
  const untilDate = until?.kind === 'date' ? until.date : undefined;
  const walls: string[] = [];
  /** Take one generated instant; false once the expansion is over. */
  const take = (ms: number): boolean => {
    if (ms >= LAST_WALL_MS) return false;
    const wall = utcWallOf(ms);
    if (wall >= horizon || walls.length >= MAX_OCCURRENCES) return false;
    if (untilDate !== undefined && wall.slice(0, 10) > untilDate) return false;
    if (untilUtc !== undefined && wall !== first.start_local && wallToUtc(wall, tz) > untilUtc) return false;
    walls.push(wall);
    return true;
  };
  const dtstart = zonedUtc(first.start_local);
  try {
    const rule = new RRuleTemporal({ rruleString: rec.rule, dtstart, includeDtstart: true, maxIterations: 20_000 });
    if (rec.count !== undefined) {
      for (const z of rule.all()) if (!take(z.epochMilliseconds)) break;
    } else {
      // The last wall that can pass UNTIL (a day later than it in UTC covers every zone's offset).
      let endMs = Math.min(LAST_WALL_MS, Date.parse(horizon.replace(' ', 'T') + 'Z'));
      if (untilDate !== undefined) endMs = Math.min(endMs, Date.parse(untilDate + 'T00:00:00Z') + 86_400_000);
      if (untilUtc !== undefined) endMs = Math.min(endMs, Date.parse(untilUtc.replace(' ', 'T') + 'Z') + 86_400_000);
      const freq = /FREQ=(\w+)/.exec(rec.rule)![1] as (typeof FREQS)[number];
      let from = dtstart;
      let last = -Infinity;
      let going = true;
      while (going && from.epochMilliseconds < endMs) {
        let to = from.add(WINDOW[freq]);
        if (to.epochMilliseconds > endMs) to = Temporal.Instant.fromEpochMilliseconds(endMs).toZonedDateTimeISO('UTC');
        for (const z of rule.between(from, to, true)) {
          const ms = z.epochMilliseconds;
          if (ms <= last) continue;
          last = ms;
          if (!(going = take(ms))) break;
        }
        from = to;
      }
    }
  } catch (err) {
    // A rule that finds no further date within its iteration bound (e.g. February 30th) ends there;
    // any other refusal of the library is the rule's fault (400, nothing written).
    if (!(err instanceof Error)) throw err;
    if (!/Maximum iterations|Maximum candidate/i.test(err.message)) {
      throw invalidParams({ recurrence: `The rules cannot be expanded from the event's start: ${err.message}` });
    }
  }
  return walls;
}

/**
 * The generated wall starts of a series before `horizon`, sorted and distinct, before they are
 * placed in the event's zone: the rule's (ruleWalls), RDATEs added, EXDATE dates (whole days)
 * removed. Cheap (no time-zone arithmetic but UNTIL's): `placeStarts` places a slice of them.
 */
export function candidateStarts(rec: Recurrence, first: SeriesStart, horizon: string): string[] {
  const tz = first.timezone;
  const timeOfDay = first.start_local.slice(11);
  const starts = new Set<string>(ruleWalls(rec, first, horizon));
  for (const d of rec.rdates) {
    const wall = wallInZone(d, tz, timeOfDay);
    if (wall < horizon && wall >= '0001-01-01 00:00:00') starts.add(wall);
  }
  const exDates = new Set<string>();
  for (const d of rec.exdates) if (d.kind === 'date') exDates.add(d.date);
  return [...starts].filter((wall) => !exDates.has(wall.slice(0, 10))).sort();
}

/**
 * The function placing one generated wall start in the event's zone: timed occurrences last as
 * many seconds as the first, all-day ones as many days; undefined when an EXDATE date-time removes
 * it (as generated, or as shifted out of a daylight-saving gap).
 */
export function placerOf(rec: Recurrence, first: SeriesStart): (wall: string) => Occurrence | undefined {
  const tz = first.timezone;
  const timeOfDay = first.start_local.slice(11);
  const firstUtc = wallToUtc(first.start_local, tz);
  const durationSeconds = secondsBetween(firstUtc, wallToUtc(first.end_local, tz));
  const durationDays = Math.round(secondsBetween(first.start_local.slice(0, 10) + ' 00:00:00', first.end_local.slice(0, 10) + ' 00:00:00') / 86_400);
  const exWalls = new Set<string>();
  for (const d of rec.exdates) if (d.kind !== 'date') exWalls.add(wallInZone(d, tz, timeOfDay));
  return (wall) => {
    if (exWalls.has(wall)) return undefined;
    if (first.all_day) {
      const startLocal = `${wall.slice(0, 10)} 00:00:00`;
      const endLocal = `${addDays(wall.slice(0, 10), durationDays)} 23:59:59`;
      if (exWalls.has(startLocal)) return undefined;
      return { start_local: startLocal, end_local: endLocal, start_utc: wallToUtc(startLocal, tz), end_utc: wallToUtc(endLocal, tz) };
    }
    const startUtc = wallToUtc(wall, tz);
    // A wall time inside a gap becomes the time the clocks show then (shifted forward).
    const startLocal = utcToWall(startUtc, tz);
    if (exWalls.has(startLocal)) return undefined;
    const endUtc = addSeconds(startUtc, durationSeconds);
    return { start_local: startLocal, end_local: utcToWall(endUtc, tz), start_utc: startUtc, end_utc: endUtc };
  };
}

/**
 * Place generated wall starts (a sorted slice of `candidateStarts`) in the event's zone
 * (`placerOf`); a start met twice is kept once. At most `max`.
 */
export function placeStarts(walls: readonly string[], rec: Recurrence, first: SeriesStart, max = MAX_OCCURRENCES): Occurrence[] {
  const place = placerOf(rec, first);
  const out: Occurrence[] = [];
  const seen = new Set<string>();
  for (const wall of walls) {
    if (out.length >= max) break;
    const o = place(wall);
    if (!o || seen.has(o.start_local)) continue;
    seen.add(o.start_local);
    out.push(o);
  }
  return out;
}

/**
 * The occurrences of a series that start before `horizon` (a wall time in the event's zone,
 * exclusive), in start order, the first being the event's own schedule. Timed occurrences last
 * as long as the first (the same number of seconds, whatever daylight-saving time does between);
 * all-day ones the same number of days. EXDATE values remove occurrences starting at that wall
 * time (a date: any occurrence on that day); RDATE values add occurrences (a date: at the first
 * occurrence's time of day). At most MAX_OCCURRENCES.
 *
 * @example expandOccurrences(parseRecurrence(['RRULE:FREQ=DAILY;COUNT=2']), first, '2030-01-01 00:00:00').length // 2
 */
export function expandOccurrences(rec: Recurrence, first: SeriesStart, horizon: string): Occurrence[] {
  return placeStarts(candidateStarts(rec, first, horizon), rec, first);
}

/**
 * The horizon wall time `months` ahead of `now` in the event's zone (start of that day).
 *
 * @example horizonWall('UTC', 60, DateTime.fromISO('2026-11-23T10:00:00Z')) // '2031-11-23 00:00:00'
 */
export function horizonWall(tz: string, months: number, now: DateTime = DateTime.utc()): string {
  return now.setZone(zoneOf(tz)).plus({ months }).startOf('day').toFormat('yyyy-MM-dd HH:mm:ss');
}

/** `YYYYMMDDTHHMMSS` of a wall time. */
function icsWall(wall: string): string {
  return wall.replace(/[-:]/g, '').replace(' ', 'T');
}

/**
 * The series' recurrence as iCalendar property lines for a VEVENT whose DTSTART is the first
 * occurrence (for feeds): the RRULE with UNTIL in UTC (a date for all-day series), RDATE
 * lines in the event's zone, and one EXDATE per start the rules generate (up to `horizon`) that is
 * not an occurrence any more: EXDATE lines of the rules (a date: every start that day) and
 * `removed` starts (occurrences deleted or hidden one by one). `zoned` says whether DTSTART is
 * written with the zone's TZID (else times are written in UTC).
 *
 * @example icsRecurrenceLines(parseRecurrence(['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20270303T190000']), first, horizon, [], true)
 *   // ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;TZID=America/New_York:20270303T190000']
 */
export function icsRecurrenceLines(rec: Recurrence, first: SeriesStart, horizon: string, removed: readonly string[], zoned: boolean): string[] {
  const tz = first.timezone;
  const value = (wall: string): string => {
    if (first.all_day) return `;VALUE=DATE:${wall.slice(0, 10).replace(/-/g, '')}`;
    return zoned ? `;TZID=${tz}:${icsWall(wall)}` : `:${icsWall(wallToUtc(wall, tz))}Z`;
  };
  const out: string[] = [];
  if (rec.rule !== undefined) {
    let until = '';
    if (rec.until) {
      if (first.all_day) until = `;UNTIL=${(rec.until.kind === 'date' ? rec.until.date : rec.until.kind === 'utc' ? utcToWall(rec.until.wall, tz) : rec.until.wall).slice(0, 10).replace(/-/g, '')}`;
      else {
        const utcWall = rec.until.kind === 'utc' ? rec.until.wall : rec.until.kind === 'date' ? wallToUtc(`${rec.until.date} 23:59:59`, tz) : wallToUtc(rec.until.wall, rec.until.tzid ?? tz);
        until = `;UNTIL=${icsWall(utcWall)}Z`;
      }
    }
    out.push(`RRULE:${rec.rule}${until}`);
  }
  const timeOfDay = first.start_local.slice(11);
  for (const d of rec.rdates) out.push(`RDATE${value(wallInZone(d, tz, timeOfDay))}`);
  // What the EXDATE lines remove, as explicit starts: the expansion without them, less the one with
  // them (only expanded when the rules have EXDATEs: a feed of a hundred plain series expanded
  // three thousand occurrences for nothing, holding the loop tens of ms).
  const exdates = new Set<string>(removed);
  if (rec.exdates.length) {
    const kept = new Set(expandOccurrences(rec, first, horizon).map((o) => o.start_local));
    for (const o of expandOccurrences({ ...rec, exdates: [] }, first, horizon)) if (!kept.has(o.start_local)) exdates.add(o.start_local);
  }
  for (const wall of [...exdates].sort()) out.push(`EXDATE${value(wall)}`);
  return out;
}
