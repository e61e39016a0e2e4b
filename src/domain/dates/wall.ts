/**
 * Wall times: 'YYYY-MM-DD HH:MM:SS' strings without zone information (the zone always travels next
 * to them), converted between zones and formatted (pure, no I/O), built on Luxon.
 */
import { DateTime } from 'luxon';
import { registerKept } from '../../metrics.js';
import { zoneOf } from './zones.js';

/** 'YYYY-MM-DD HH:MM:SS' wall-clock string */
export type WallTime = string;

const WALL_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

export interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The parts of a `Y-m-d[ H:i[:s]]` match (groups 1 to 6; a missing time part is 0). */
export function wallPartsOf(m: RegExpExecArray): WallParts {
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: m[4] === undefined ? 0 : Number(m[4]),
    minute: m[5] === undefined ? 0 : Number(m[5]),
    second: m[6] === undefined ? 0 : Number(m[6]),
  };
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
}

/** Parses 'YYYY-MM-DD HH:MM:SS' (also 'YYYY-MM-DD HH:MM', 'YYYY-MM-DD', 'T' separator); throws when malformed. */
function parseWall(wall: WallTime): WallParts {
  const m = typeof wall === 'string' ? WALL_RE.exec(wall.trim()) : null;
  if (!m) throw new RangeError(`Invalid wall time: ${String(wall)}`);
  const p = wallPartsOf(m);
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysInMonth(p.year, p.month) || p.hour > 23 || p.minute > 59 || p.second > 59) {
    throw new RangeError(`Invalid wall time: ${wall}`);
  }
  return p;
}

export const pad2 = (n: number): string => String(n).padStart(2, '0');
const pad4 = (n: number): string => String(n).padStart(4, '0');

function formatWall(p: WallParts): WallTime {
  return `${pad4(p.year)}-${pad2(p.month)}-${pad2(p.day)} ${pad2(p.hour)}:${pad2(p.minute)}:${pad2(p.second)}`;
}

/**
 * Format as WallTime in the DateTime's own zone.
 * @example toWallTime(DateTime.fromISO('2026-12-01T10:00:00', { zone: 'UTC' })) // '2026-12-01 10:00:00'
 */
export function toWallTime(dt: DateTime): WallTime {
  let wall = wallTimes.get(dt);
  if (wall === undefined) {
    if (!dt.isValid) throw new RangeError(`Invalid DateTime: ${String(dt.invalidReason)}`);
    wall = dt.toFormat('yyyy-MM-dd HH:mm:ss');
    wallTimes.set(dt, wall);
  }
  return wall;
}

/** Formatted DateTimes (immutable; remembered parses come back as the same objects). */
const wallTimes = new WeakMap<DateTime, WallTime>();

/**
 * Interpret a WallTime in zone tz (a wall time inside a DST gap shifts forward, as Luxon does). Throws on malformed input.
 * @example fromWallTime('2027-06-15 19:00:00', 'America/New_York').toISO() // '2027-06-15T19:00:00.000-04:00'
 */
export function fromWallTime(wall: WallTime, tz: string): DateTime {
  const p = parseWall(wall);
  const dt = DateTime.fromObject(p, { zone: zoneOf(tz) });
  if (!dt.isValid) throw new RangeError(`Invalid wall time: ${wall}`);
  return dt;
}

/**
 * Convert a wall time in tz to the UTC wall time.
 * @example wallToUtc('2027-06-15 19:00:00', 'America/New_York') // '2027-06-15 23:00:00'
 */
export function wallToUtc(wall: WallTime, tz: string): WallTime {
  return memoized(utcMemo, tz, wall, (zone, w) => toWallTime(fromWallTime(w, zone).setZone('UTC')));
}

/**
 * Inverse of wallToUtc: convert a UTC wall time to the wall time in tz.
 * @example utcToWall('2027-06-15 23:00:00', 'America/New_York') // '2027-06-15 19:00:00'
 */
export function utcToWall(utcWall: WallTime, tz: string): WallTime {
  return toWallTime(fromWallTime(utcWall, 'UTC').setZone(zoneOf(tz)));
}

/**
 * Date parts as zero-padded strings, in this key order.
 * @example dateDetails('2026-12-05 20:00:00') // { year: '2026', month: '12', day: '05', hour: '20', minutes: '00', seconds: '00' }
 */
export function dateDetails(wall: WallTime): {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
} {
  const p = parseWall(wall);
  return {
    year: pad4(p.year),
    month: pad2(p.month),
    day: pad2(p.day),
    hour: pad2(p.hour),
    minutes: pad2(p.minute),
    seconds: pad2(p.second),
  };
}

/**
 * First second of the wall time's day.
 * @example startOfDay('2026-12-05 20:15:00') // '2026-12-05 00:00:00'
 */
export function startOfDay(wall: WallTime): WallTime {
  const p = parseWall(wall);
  return formatWall({ ...p, hour: 0, minute: 0, second: 0 });
}

/**
 * Last second of the wall time's day.
 * @example endOfDay('2026-12-05 20:15:00') // '2026-12-05 23:59:59'
 */
export function endOfDay(wall: WallTime): WallTime {
  const p = parseWall(wall);
  return formatWall({ ...p, hour: 23, minute: 59, second: 59 });
}

/**
 * ISO 8601 with offset, seconds precision (for JSON-LD); UTC gives '+00:00', never 'Z'.
 * @example isoWithOffset('2027-06-15 19:00:00', 'America/New_York') // '2027-06-15T19:00:00-04:00'
 */
export function isoWithOffset(wall: WallTime, tz: string): string {
  return memoized(isoMemo, tz, wall, (zone, w) => fromWallTime(w, zone).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"));
}

/**
 * Current time as WallTime in tz (pass `now` for deterministic results).
 * @example nowWall('UTC', DateTime.fromISO('2026-11-21T10:59:55Z')) // '2026-11-21 10:59:55'
 */
export function nowWall(tz: string, now?: DateTime): WallTime {
  if (now) return toWallTime(now.setZone(zoneOf(tz)));
  // The wall clock changes once a second: every write asks for it twice, and Luxon's zone
  // conversion is a good part of a small write's cost.
  const second = Math.floor(Date.now() / 1000);
  const kept = nowMemo.get(tz);
  if (kept && kept.second === second) return kept.wall;
  const wall = toWallTime(DateTime.fromMillis(second * 1000).setZone(zoneOf(tz)));
  if (nowMemo.size >= 100) nowMemo.clear();
  nowMemo.set(tz, { second, wall });
  return wall;
}
const nowMemo = new Map<string, { second: number; wall: WallTime }>();
registerKept(undefined, 'wall_clock_by_zone', { entries: () => nowMemo.size, maxEntries: 100 });

/**
 * Recent results of the offset computations of representations and writes (`timezoneAbbr`,
 * {@link isoWithOffset}, {@link wallToUtc}): pure functions of (zone, wall time), each a few `Intl`
 * calls in Luxon, made for every event answered or written. Bounded; errors are not remembered.
 */
export function memoized(memo: Map<string, string>, tz: string, wall: WallTime, compute: (tz: string, wall: WallTime) => string): string {
  const key = `${tz}|${wall}`;
  let out = memo.get(key);
  if (out === undefined) {
    out = compute(tz, wall);
    if (memo.size >= 20_000) memo.clear();
    memo.set(key, out);
  }
  return out;
}
const utcMemo = new Map<string, string>();
const isoMemo = new Map<string, string>();
registerKept(undefined, 'utc_memo', { entries: () => utcMemo.size, maxEntries: 20_000 });
registerKept(undefined, 'iso_memo', { entries: () => isoMemo.size, maxEntries: 20_000 });

/*
 * Calendar arithmetic on wall times as plain numbers, for the answers that handle a thousand
 * events at once (month pages, FullCalendar ranges): a Luxon parse, shift or format costs tens of
 * microseconds each, and these need no zone.
 */

/**
 * A wall time (`YYYY-MM-DD[ HH:MM:SS]`) read as if it were UTC, in milliseconds; NaN when malformed.
 * @example wallAsUtcMs('1970-01-02 00:00:00') // 86400000
 */
export function wallAsUtcMs(wall: WallTime): number {
  const y = +wall.slice(0, 4);
  const ms = Date.UTC(y, +wall.slice(5, 7) - 1, +wall.slice(8, 10), +wall.slice(11, 13) || 0, +wall.slice(14, 16) || 0, +wall.slice(17, 19) || 0);
  if (y >= 100 || Number.isNaN(ms)) return ms;
  // Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const d = new Date(ms);
  d.setUTCFullYear(y);
  return d.getTime();
}

/**
 * Milliseconds as a UTC wall time, `YYYY-MM-DD HH:MM:SS` (Luxon's `yyyy-MM-dd HH:mm:ss`).
 * @example utcMsAsWall(86400000) // '1970-01-02 00:00:00'
 */
export function utcMsAsWall(ms: number): WallTime {
  const d = new Date(ms);
  return `${pad4(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/**
 * The day `n` days after `day` (`YYYY-MM-DD`; n may be negative).
 * @example plusDays('2027-02-28', 1) // '2027-03-01'
 */
export function plusDays(day: string, n: number): string {
  return utcMsAsWall(wallAsUtcMs(day.slice(0, 10)) + n * 86_400_000).slice(0, 10);
}
