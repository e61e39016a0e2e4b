/**
 * Time zone strings: IANA identifiers ('America/New_York', 'UTC') or WordPress-style manual
 * offsets ('UTC+2', 'UTC-3:30', 'UTC+5.5'), checked and turned into Luxon zones (pure, no I/O).
 */
import { FixedOffsetZone, IANAZone } from 'luxon';
import type { Zone } from 'luxon';
import { registerKept } from '../../metrics.js';

/** WordPress manual offsets: 'UTC+2', 'UTC-3:30', 'UTC+5.5', 'UTC+5.75', 'UTC+0'. */
const MANUAL_OFFSET_RE = /^UTC([+-])(\d{1,2})(?::(\d{2})|\.(\d{1,6}))?$/i;
/** Shape of an IANA-style identifier (keeps '+02:00' & co. out of the IANA path). */
const IANA_NAME_RE = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

/**
 * Offset in minutes of a WordPress manual-offset zone string, or null when the
 * string is not one.
 * @example manualOffsetMinutes('UTC-3:30') // -210
 * @example manualOffsetMinutes('UTC+5.75') // 345
 * @example manualOffsetMinutes('America/New_York') // null
 */
export function manualOffsetMinutes(tz: string): number | null {
  const m = MANUAL_OFFSET_RE.exec(tz);
  if (!m) return null;
  const hours = Number(m[2]);
  let minutes = 0;
  if (m[3] !== undefined) {
    minutes = Number(m[3]);
    if (minutes > 59) return null;
  } else if (m[4] !== undefined) {
    const exact = Number(`0.${m[4]}`) * 60;
    minutes = Math.round(exact);
    if (Math.abs(exact - minutes) > 1e-6) return null; // must be a whole number of minutes
  }
  const total = hours * 60 + minutes;
  if (total > 14 * 60) return null;
  return (m[1] === '-' ? -1 : 1) * total;
}

/**
 * True for an IANA zone Luxon knows, or a WordPress manual offset ('UTC+2', 'UTC-3:30', 'UTC+5.5').
 * @example isValidTimezone('America/New_York') // true
 * @example isValidTimezone('UTC+5') // true
 * @example isValidTimezone('Mars/Olympus') // false
 */
export function isValidTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0) return false;
  if (/^utc./i.test(tz)) return manualOffsetMinutes(tz) !== null;
  return IANA_NAME_RE.test(tz) && isKnownIanaZone(tz);
}

/**
 * Luxon's `IANAZone.isValidZone`, remembered: Luxon builds an `Intl.DateTimeFormat` on every call
 * (tens of microseconds), and zone names are checked on every date computation. Bounded, since
 * names can come from requests.
 */
const knownZones = new Map<string, boolean>();
registerKept(undefined, 'known_zones', { entries: () => knownZones.size, maxEntries: 1000 });
export function isKnownIanaZone(name: string): boolean {
  let known = knownZones.get(name);
  if (known === undefined) {
    known = IANAZone.isValidZone(name);
    if (knownZones.size >= 1000) knownZones.clear();
    knownZones.set(name, known);
  }
  return known;
}

/**
 * Luxon zone for a timezone string (IANA or 'UTC+2' style manual offset). Throws on invalid.
 * @example zoneOf('UTC-3:30').offset(0) // -210
 * @example zoneOf('Europe/Rome').name // 'Europe/Rome'
 */
export function zoneOf(tz: string): Zone {
  if (typeof tz === 'string' && /^utc./i.test(tz)) {
    const minutes = manualOffsetMinutes(tz);
    if (minutes !== null) return FixedOffsetZone.instance(minutes);
  } else if (typeof tz === 'string' && IANA_NAME_RE.test(tz) && isKnownIanaZone(tz)) {
    return IANAZone.create(tz);
  }
  throw new RangeError(`Invalid timezone: ${String(tz)}`);
}
