/**
 * Dates and time zones (pure, no I/O), built on Luxon. This index re-exports the public names of
 * the modules of this folder; new code may import the module it needs directly.
 *
 * - zones.ts: time zone strings are either IANA identifiers ('America/New_York', 'UTC') or
 *   WordPress-style manual offsets ('UTC+2', 'UTC-3:30', 'UTC+5.5').
 * - wall.ts: "wall times" are 'YYYY-MM-DD HH:MM:SS' strings without zone information; the zone
 *   always travels next to them.
 * - abbreviations.ts: zone abbreviations as PHP's date('T') writes them (a table by zone).
 * - strtotime.ts (with strtotime-grammar.ts): `parseDateInput`, a hand-written port of the subset of
 *   PHP's strtotime() grammar (timelib) that matters for an events calendar, including its
 *   relative-time rules, evaluated in a given zone.
 * - hints.ts: what a failed date or zone argument tells the client.
 */
export { manualOffsetMinutes, isValidTimezone, zoneOf } from './zones.js';
export { type WallTime, toWallTime, fromWallTime, wallToUtc, utcToWall, dateDetails, startOfDay, endOfDay, isoWithOffset, nowWall, wallAsUtcMs, utcMsAsWall, plusDays } from './wall.js';
export { timezoneAbbr } from './abbreviations.js';
export { parseDateInput } from './strtotime.js';
export { DATE_INPUT_FORMS, TIMEZONE_EXAMPLES, dateInputHint, timezoneHint, invalidDateFailure, invalidTimezoneFailure } from './hints.js';
