/**
 * `parseDateInput`: a hand-written port of the subset of PHP's strtotime() grammar (timelib) that
 * matters for an events calendar, including its relative-time rules, evaluated in a given zone.
 * The scanner's rules are in strtotime-grammar.ts; this file runs them and evaluates the result
 * (timelib_fill_holes, timelib_update_ts).
 */
import { DateTime } from 'luxon';
import { registerKept } from '../../metrics.js';
import { RULES, type ParseState, type Rule } from './strtotime-grammar.js';
import { daysInMonth, wallPartsOf, type WallParts } from './wall.js';
import { zoneOf } from './zones.js';

/** Civil-date arithmetic with overflow (like timelib_do_normalize), via a proleptic-Gregorian UTC Date. */
function normalize(y: number, m: number, d: number, h = 0, i = 0, s = 0): { y: number; m: number; d: number; h: number; i: number; s: number } {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  date.setUTCHours(h, i, s, 0);
  return {
    y: date.getUTCFullYear(),
    m: date.getUTCMonth() + 1,
    d: date.getUTCDate(),
    h: date.getUTCHours(),
    i: date.getUTCMinutes(),
    s: date.getUTCSeconds(),
  };
}

function dayOfWeek(y: number, m: number, d: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCDay();
}

/** do_adjust_for_weekday() from timelib; returns the day-of-month delta. */
function weekdayDelta(st: ParseState, y: number, m: number, d: number): number {
  const current = dayOfWeek(y, m, d);
  let weekday = st.weekday!;
  if (st.weekdayBehavior === 2) {
    if (current === 0 && weekday !== 0) weekday -= 7; // "this week" on a Sunday
    if (weekday === 0 && current !== 0) weekday = 7; // "sunday this week"
    return weekday - current;
  }
  let difference = weekday - current;
  if ((st.rel.d < 0 && difference < 0) || (st.rel.d >= 0 && difference <= -st.weekdayBehavior)) difference += 7;
  if (weekday >= 0) return difference;
  return -(7 - (Math.abs(weekday) - current));
}

/** do_adjust_special_weekday() from timelib: move by business days. */
function businessDayDelta(count: number, y: number, m: number, d: number): number {
  const dow = dayOfWeek(y, m, d);
  let delta = Math.trunc(count / 5) * 7;
  const rem = count % 5;
  if (count > 0) {
    if (rem === 0) {
      if (dow === 0) delta -= 2;
      else if (dow === 6) delta -= 1;
    } else if (dow === 6) delta += 1;
    else if (dow + rem > 5) delta += 2;
  } else {
    if (rem === 0) {
      if (dow === 6) delta += 2;
      else if (dow === 0) delta += 1;
    } else if (dow === 0) delta -= 1;
    else if (dow + rem < 1) delta -= 2;
  }
  return delta + rem;
}

const plainMemo = new Map<string, DateTime>();
registerKept(undefined, 'parsed_dates', { entries: () => plainMemo.size, maxEntries: 5000 });
const PLAIN_WALL_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** The parts of a plain, valid 'YYYY-MM-DD[ HH:MM[:SS]]' (years 1000-9999), else null. */
function plainWallTime(text: string): WallParts | null {
  const m = PLAIN_WALL_RE.exec(text);
  if (!m) return null;
  const p = wallPartsOf(m);
  if (p.year < 1000 || p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysInMonth(p.year, p.month)) return null;
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return null;
  return p;
}

/**
 * Parse the inputs PHP's strtotime() accepts for common cases, as a point in time.
 * Values without an explicit offset are wall-clock time in `tz`; relative expressions are evaluated
 * against `now` (default: the current time) seen in `tz`. Returns null for anything else.
 * Numbers, digit-only strings and '@123' are Unix timestamps (absolute instants).
 * Follows PHP's rules: 'tomorrow'/'today'/'midnight'/'noon' and weekday names reset the time of day
 * parsed before them ('tomorrow 9am' is 09:00, '9am tomorrow' is midnight); '+1 week' keeps the time.
 * Throws only when `tz` itself is invalid. The result is set to zone `tz`.
 * @example parseDateInput('tomorrow 9am', 'UTC', DateTime.fromISO('2026-11-21T10:59:55Z'))?.toISO() // '2026-11-22T09:00:00.000Z'
 * @example parseDateInput('2026-12-01 10:00', 'America/New_York')?.toUTC().toISO() // '2026-12-01T15:00:00.000Z'
 * @example parseDateInput('before my birthday', 'UTC') // null
 */
export function parseDateInput(input: string | number, tz: string, now?: DateTime): DateTime | null {
  const zone = zoneOf(tz);

  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    const dt = DateTime.fromSeconds(Math.floor(input), { zone });
    return dt.isValid ? dt : null;
  }
  if (typeof input !== 'string') return null;

  const text = input.trim().toLowerCase();
  if (text === '' || text.length > 200) return null;
  if (/^\d+$/.test(text)) {
    const dt = DateTime.fromSeconds(Number(text), { zone });
    return dt.isValid ? dt : null;
  }
  const plain = plainWallTime(text);
  if (plain) {
    // 'YYYY-MM-DD[ HH:MM[:SS]]', a valid calendar date and time: what the grammar below yields for
    // it, without running the scanner (list requests validate and parse their dates every time).
    // It does not depend on `now`, so recent results are kept (DateTimes are immutable).
    const key = `${tz}|${text}`;
    const known = plainMemo.get(key);
    if (known) return known;
    const dt = DateTime.fromObject(plain, { zone });
    if (dt.isValid) {
      if (plainMemo.size >= 5000) plainMemo.clear();
      plainMemo.set(key, dt);
      return dt;
    }
  }

  const st: ParseState = {
    haveDate: false,
    haveTime: false,
    haveZone: false,
    h: 0,
    i: 0,
    s: 0,
    rel: { y: 0, m: 0, d: 0, h: 0, i: 0, s: 0, ms: 0 },
    weekdayBehavior: 0,
    timeReset: false,
    sawContent: false,
  };

  // Scanner: at each position take the longest rule match (first rule wins ties), like re2c.
  let pos = 0;
  const separators = /[\s,.]+/y;
  while (pos < text.length) {
    separators.lastIndex = pos;
    if (separators.exec(text)) {
      pos = separators.lastIndex;
      continue;
    }
    let best: { rule: Rule; match: RegExpExecArray } | null = null;
    for (const rule of RULES) {
      rule.re.lastIndex = pos;
      const match = rule.re.exec(text);
      if (match && match[0].length > 0 && (!best || match[0].length > best.match[0].length)) best = { rule, match };
    }
    if (!best || !best.rule.apply(best.match, st)) return null;
    pos += best.match[0].length;
  }
  if (!st.sawContent) return null; // a bare zone ('utc', '+02:00') is not a date

  // Fill the holes from `now` seen in tz (timelib_fill_holes).
  const base = (now ?? DateTime.now()).setZone(zone);
  let y = st.y ?? base.year;
  let m = st.m ?? base.month;
  let d = st.d ?? base.day;
  if (d > daysInMonth(y, m)) return null; // invalid calendar date (PHP would overflow)
  let h: number, i: number, s: number;
  if (st.haveTime || st.haveDate || st.timeReset) {
    ({ h, i, s } = st);
  } else {
    ({ hour: h, minute: i, second: s } = base);
  }

  // timelib_update_ts(): the weekday of a month (do_adjust_special_early), first/last day of,
  // weekday, relative offsets, business days.
  if (st.weekdayOfMonth) {
    ({ y, m, d } = normalize(y, m + st.rel.m + (st.weekdayOfMonth === 'last' ? 1 : 0), 1));
    st.rel.m = 0;
  }
  if (st.firstLastDayOf) ({ y, m, d } = normalize(y, st.firstLastDayOf === 'first' ? m : m + 1, st.firstLastDayOf === 'first' ? 1 : 0));
  if (st.weekday !== undefined) d += weekdayDelta(st, y, m, d);
  ({ y, m, d, h, i, s } = normalize(y, m, d, h, i, s));
  y += st.rel.y;
  m += st.rel.m;
  d += st.rel.d;
  if (st.firstLastDayOf === 'first') d = 1;
  else if (st.firstLastDayOf === 'last') {
    d = 0;
    m += 1;
  }
  ({ y, m, d, h, i, s } = normalize(y, m, d, h, i, s));
  if (st.businessDays !== undefined) {
    d += businessDayDelta(st.businessDays, y, m, d);
    ({ y, m, d } = normalize(y, m, d));
  }

  // Relative hours/minutes/seconds are elapsed time (as in PHP 8.1+), so they behave across DST changes.
  const elapsedMs = ((st.rel.h * 60 + st.rel.i) * 60 + st.rel.s) * 1000 + Math.trunc(st.rel.ms);
  if (![y, m, d, h, i, s, elapsedMs].every(Number.isFinite)) return null; // absurd offsets overflowed
  try {
    let dt = DateTime.fromObject({ year: y, month: m, day: d, hour: h, minute: i, second: s }, { zone: st.zone ?? zone });
    if (elapsedMs !== 0) dt = dt.plus({ milliseconds: elapsedMs });
    dt = dt.setZone(zone);
    return dt.isValid ? dt : null;
  } catch {
    return null; // Luxon rejects out-of-range values by throwing
  }
}
