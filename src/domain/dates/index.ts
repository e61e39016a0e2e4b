/**
 * Dates and time zones (pure, no I/O), built on Luxon.
 *
 * - Time zone strings are either IANA identifiers ('America/New_York', 'UTC')
 *   or WordPress-style manual offsets ('UTC+2', 'UTC-3:30', 'UTC+5.5').
 * - "Wall times" are 'YYYY-MM-DD HH:MM:SS' strings without zone information;
 *   the zone always travels next to them.
 * - `parseDateInput` is a hand-written port of the subset of PHP's strtotime()
 *   grammar (timelib) that matters for an events calendar, including its
 *   relative-time rules, evaluated in a given zone.
 */
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import type { Zone } from 'luxon';
import { INVALID_PARAMETER, type ParamFailure } from '../errors.js';
import { registerKept } from '../../metrics.js';

/** 'YYYY-MM-DD HH:MM:SS' wall-clock string */
export type WallTime = string;

/* ------------------------------------------------------------------ */
/* Time zones                                                          */
/* ------------------------------------------------------------------ */

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
function isKnownIanaZone(name: string): boolean {
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

/* ------------------------------------------------------------------ */
/* What a failed date or zone argument tells the client (issue 25)     */
/* ------------------------------------------------------------------ */

/**
 * The forms {@link parseDateInput} accepts, each with an example it parses (test/unit/validation-hints.test.ts
 * checks every example, so the message cannot promise a form that is refused).
 */
export const DATE_INPUT_FORMS: ReadonlyArray<{ form: string; examples: readonly string[] }> = [
  { form: 'Y-m-d H:i:s', examples: ['2027-01-15 19:00:00'] },
  { form: 'Y-m-d H:i', examples: ['2027-01-15 19:00'] },
  { form: 'Y-m-d', examples: ['2027-01-15'] },
  { form: 'ISO 8601', examples: ['2027-01-15T19:00:00+01:00'] },
  { form: 'other dates PHP strtotime() reads', examples: ['January 15 2027 7pm', '01/15/2027'] },
  { form: 'relative phrases', examples: ['tomorrow 9am', 'next monday', '+2 days'] },
  { form: 'a Unix timestamp', examples: ['1800000000'] },
];

/** Zones {@link isValidTimezone} accepts, named in the message of a refused `timezone`. */
export const TIMEZONE_EXAMPLES = { iana: ['Europe/Berlin', 'America/New_York', 'UTC'], offsets: ['UTC+2', 'UTC-3:30', 'UTC+5.5'] } as const;

/**
 * The `details` message of a refused date argument: the accepted forms with examples, the years a
 * date can have, and the zone a time without an offset is read in (`zoneNote`).
 * @example dateInputHint('the site time zone (Europe/Rome)')
 *   // 'Invalid date. Accepted forms: Y-m-d H:i:s (2027-01-15 19:00:00), …; years 1 to 9999. A time without an offset is read in the site time zone (Europe/Rome).'
 */
export function dateInputHint(zoneNote: string): string {
  const forms = DATE_INPUT_FORMS.map((f) => `${f.form} (${f.examples.join(', ')})`).join('; ');
  return `Invalid date. Accepted forms: ${forms}; years 1 to 9999. A time without an offset is read in ${zoneNote}.`;
}

/** The `details` message of a refused time zone argument. */
export function timezoneHint(): string {
  const { iana, offsets } = TIMEZONE_EXAMPLES;
  return `Unknown time zone. Use an IANA time zone name (${iana.join(', ')}) or a UTC offset as WordPress writes it (${offsets.join(', ')}); empty keeps the current one.`;
}

/**
 * The failure of a date argument: `params[name]` stays the original's "Invalid parameter." (old
 * clients read it), `details[name]` names the accepted forms (WordPress' per-parameter details).
 * @example invalidDateFailure('start_date', 'UTC').detail.code // 'rest_invalid_date'
 */
export function invalidDateFailure(name: string, zoneNote: string): ParamFailure {
  return { message: INVALID_PARAMETER, detail: { code: 'rest_invalid_date', message: dateInputHint(zoneNote), data: { param: name } } };
}

/** The failure of a time zone argument, as {@link invalidDateFailure}: the message names valid zones. */
export function invalidTimezoneFailure(name: string): ParamFailure {
  return { message: INVALID_PARAMETER, detail: { code: 'rest_invalid_timezone', message: timezoneHint(), data: { param: name } } };
}

/* ------------------------------------------------------------------ */
/* Wall times                                                          */
/* ------------------------------------------------------------------ */

const WALL_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
}

/** Parses 'YYYY-MM-DD HH:MM:SS' (also 'YYYY-MM-DD HH:MM', 'YYYY-MM-DD', 'T' separator); throws when malformed. */
function parseWall(wall: WallTime): WallParts {
  const m = typeof wall === 'string' ? WALL_RE.exec(wall.trim()) : null;
  if (!m) throw new RangeError(`Invalid wall time: ${String(wall)}`);
  const p: WallParts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: m[4] === undefined ? 0 : Number(m[4]),
    minute: m[5] === undefined ? 0 : Number(m[5]),
    second: m[6] === undefined ? 0 : Number(m[6]),
  };
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysInMonth(p.year, p.month) || p.hour > 23 || p.minute > 59 || p.second > 59) {
    throw new RangeError(`Invalid wall time: ${wall}`);
  }
  return p;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');
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

/* ------------------------------------------------------------------ */
/* Time zone abbreviations (PHP date('T'))                             */
/* ------------------------------------------------------------------ */

/** [standard, daylight, zones]; names are matched case-insensitively, also after Intl canonicalisation. */
const ABBR_GROUPS: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['UTC', 'UTC', ['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu']],
  ['GMT', 'GMT', ['GMT', 'Etc/GMT', 'Etc/GMT+0', 'Etc/GMT-0', 'Etc/GMT0', 'GMT0', 'GMT+0', 'GMT-0', 'Greenwich', 'Etc/Greenwich']],
  // North America
  [
    'EST',
    'EDT',
    [
      'America/New_York',
      'America/Detroit',
      'America/Toronto',
      'America/Montreal',
      'America/Nassau',
      'America/Iqaluit',
      'America/Nipigon',
      'America/Thunder_Bay',
      'America/Pangnirtung',
      'America/Indianapolis',
      'America/Fort_Wayne',
      'America/Indiana/Indianapolis',
      'America/Indiana/Marengo',
      'America/Indiana/Petersburg',
      'America/Indiana/Vevay',
      'America/Indiana/Vincennes',
      'America/Indiana/Winamac',
      'America/Kentucky/Louisville',
      'America/Kentucky/Monticello',
      'America/Louisville',
      'America/Port-au-Prince',
      'America/Grand_Turk',
      'US/Eastern',
      'US/Michigan',
      'US/East-Indiana',
      'Canada/Eastern',
      'EST5EDT',
    ],
  ],
  ['EST', 'EDT', ['America/Panama', 'America/Jamaica', 'America/Cancun', 'America/Cayman', 'America/Atikokan', 'America/Coral_Harbour', 'EST', 'Jamaica']],
  [
    'CST',
    'CDT',
    [
      'America/Chicago',
      'America/Winnipeg',
      'America/Indiana/Knox',
      'America/Indiana/Tell_City',
      'America/Knox_IN',
      'America/Menominee',
      'America/North_Dakota/Beulah',
      'America/North_Dakota/Center',
      'America/North_Dakota/New_Salem',
      'America/Matamoros',
      'America/Ojinaga',
      'America/Rainy_River',
      'America/Rankin_Inlet',
      'America/Resolute',
      'America/Regina',
      'America/Swift_Current',
      'America/Guatemala',
      'America/Costa_Rica',
      'America/El_Salvador',
      'America/Tegucigalpa',
      'America/Managua',
      'America/Belize',
      'America/Mexico_City',
      'America/Monterrey',
      'America/Merida',
      'America/Bahia_Banderas',
      'America/Chihuahua',
      'America/Havana',
      'Cuba',
      'US/Central',
      'US/Indiana-Starke',
      'Canada/Central',
      'Canada/Saskatchewan',
      'Mexico/General',
      'CST6CDT',
      'Asia/Shanghai',
      'Asia/Chongqing',
      'Asia/Chungking',
      'Asia/Harbin',
      'Asia/Taipei',
      'Asia/Macau',
      'Asia/Macao',
      'PRC',
      'ROC',
    ],
  ],
  [
    'MST',
    'MDT',
    [
      'America/Denver',
      'America/Boise',
      'America/Edmonton',
      'America/Cambridge_Bay',
      'America/Inuvik',
      'America/Yellowknife',
      'America/Ciudad_Juarez',
      'America/Phoenix',
      'America/Creston',
      'America/Dawson_Creek',
      'America/Fort_Nelson',
      'America/Hermosillo',
      'America/Mazatlan',
      'America/Shiprock',
      'US/Mountain',
      'US/Arizona',
      'Canada/Mountain',
      'Mexico/BajaSur',
      'Navajo',
      'MST',
      'MST7MDT',
    ],
  ],
  ['PST', 'PDT', ['America/Los_Angeles', 'America/Vancouver', 'America/Tijuana', 'America/Ensenada', 'America/Santa_Isabel', 'US/Pacific', 'Canada/Pacific', 'Mexico/BajaNorte', 'PST8PDT']],
  ['PST', 'PDT', ['Asia/Manila']],
  ['AKST', 'AKDT', ['America/Anchorage', 'America/Juneau', 'America/Sitka', 'America/Nome', 'America/Yakutat', 'America/Metlakatla', 'US/Alaska']],
  ['HST', 'HDT', ['Pacific/Honolulu', 'Pacific/Johnston', 'America/Adak', 'America/Atka', 'US/Hawaii', 'US/Aleutian', 'HST']],
  [
    'AST',
    'ADT',
    [
      'America/Halifax',
      'America/Glace_Bay',
      'America/Moncton',
      'America/Goose_Bay',
      'America/Thule',
      'Atlantic/Bermuda',
      'Canada/Atlantic',
      'America/Puerto_Rico',
      'America/Santo_Domingo',
      'America/Barbados',
      'America/Martinique',
      'America/Port_of_Spain',
      'America/Anguilla',
      'America/Antigua',
      'America/Aruba',
      'America/Curacao',
      'America/Dominica',
      'America/Grenada',
      'America/Guadeloupe',
      'America/Kralendijk',
      'America/Lower_Princes',
      'America/Marigot',
      'America/Montserrat',
      'America/St_Barthelemy',
      'America/St_Kitts',
      'America/St_Lucia',
      'America/St_Thomas',
      'America/St_Vincent',
      'America/Tortola',
      'America/Virgin',
      'America/Blanc-Sablon',
    ],
  ],
  ['NST', 'NDT', ['America/St_Johns', 'Canada/Newfoundland']],
  // Europe
  ['GMT', 'BST', ['Europe/London', 'Europe/Jersey', 'Europe/Guernsey', 'Europe/Isle_of_Man', 'Europe/Belfast', 'GB', 'GB-Eire']],
  ['GMT', 'IST', ['Europe/Dublin', 'Eire']],
  ['WET', 'WEST', ['Europe/Lisbon', 'Atlantic/Madeira', 'Atlantic/Canary', 'Atlantic/Faroe', 'Atlantic/Faeroe', 'Portugal', 'WET']],
  [
    'CET',
    'CEST',
    [
      'Europe/Rome',
      'Europe/Paris',
      'Europe/Berlin',
      'Europe/Madrid',
      'Europe/Amsterdam',
      'Europe/Brussels',
      'Europe/Vienna',
      'Europe/Zurich',
      'Europe/Stockholm',
      'Europe/Oslo',
      'Europe/Copenhagen',
      'Europe/Prague',
      'Europe/Warsaw',
      'Europe/Budapest',
      'Europe/Belgrade',
      'Europe/Bratislava',
      'Europe/Ljubljana',
      'Europe/Zagreb',
      'Europe/Sarajevo',
      'Europe/Skopje',
      'Europe/Podgorica',
      'Europe/Tirane',
      'Europe/Luxembourg',
      'Europe/Monaco',
      'Europe/Malta',
      'Europe/Andorra',
      'Europe/Gibraltar',
      'Europe/Vaduz',
      'Europe/San_Marino',
      'Europe/Vatican',
      'Europe/Busingen',
      'Arctic/Longyearbyen',
      'Atlantic/Jan_Mayen',
      'Africa/Ceuta',
      'Africa/Tunis',
      'Africa/Algiers',
      'Poland',
      'CET',
      'MET',
    ],
  ],
  [
    'EET',
    'EEST',
    [
      'Europe/Athens',
      'Europe/Helsinki',
      'Europe/Kiev',
      'Europe/Kyiv',
      'Europe/Bucharest',
      'Europe/Sofia',
      'Europe/Riga',
      'Europe/Tallinn',
      'Europe/Vilnius',
      'Europe/Chisinau',
      'Europe/Tiraspol',
      'Europe/Mariehamn',
      'Europe/Uzhgorod',
      'Europe/Zaporozhye',
      'Europe/Nicosia',
      'Europe/Kaliningrad',
      'Asia/Nicosia',
      'Asia/Famagusta',
      'Asia/Beirut',
      'Asia/Gaza',
      'Asia/Hebron',
      'Africa/Cairo',
      'Africa/Tripoli',
      'Egypt',
      'Libya',
      'EET',
    ],
  ],
  ['MSK', 'MSD', ['Europe/Moscow', 'Europe/Simferopol', 'Europe/Kirov', 'Europe/Volgograd', 'W-SU']],
  // Asia
  ['IST', 'IDT', ['Asia/Jerusalem', 'Asia/Tel_Aviv', 'Israel']],
  ['IST', 'IST', ['Asia/Kolkata', 'Asia/Calcutta']],
  ['PKT', 'PKST', ['Asia/Karachi']],
  ['JST', 'JDT', ['Asia/Tokyo', 'Japan']],
  ['KST', 'KDT', ['Asia/Seoul', 'Asia/Pyongyang', 'ROK']],
  ['HKT', 'HKST', ['Asia/Hong_Kong', 'Hongkong']],
  ['WIB', 'WIB', ['Asia/Jakarta', 'Asia/Pontianak']],
  ['WITA', 'WITA', ['Asia/Makassar', 'Asia/Ujung_Pandang']],
  ['WIT', 'WIT', ['Asia/Jayapura']],
  // Oceania
  [
    'AEST',
    'AEDT',
    [
      'Australia/Sydney',
      'Australia/Melbourne',
      'Australia/Hobart',
      'Australia/Canberra',
      'Australia/ACT',
      'Australia/NSW',
      'Australia/Victoria',
      'Australia/Tasmania',
      'Australia/Currie',
      'Antarctica/Macquarie',
      'Australia/Brisbane',
      'Australia/Lindeman',
      'Australia/Queensland',
    ],
  ],
  ['ACST', 'ACDT', ['Australia/Adelaide', 'Australia/Broken_Hill', 'Australia/South', 'Australia/Yancowinna', 'Australia/Darwin', 'Australia/North']],
  ['AWST', 'AWDT', ['Australia/Perth', 'Australia/West']],
  ['NZST', 'NZDT', ['Pacific/Auckland', 'Antarctica/McMurdo', 'Antarctica/South_Pole', 'NZ']],
  ['ChST', 'ChST', ['Pacific/Guam', 'Pacific/Saipan']],
  ['SST', 'SST', ['Pacific/Pago_Pago', 'Pacific/Midway', 'Pacific/Samoa', 'US/Samoa']],
  // Africa
  ['SAST', 'SAST', ['Africa/Johannesburg', 'Africa/Maseru', 'Africa/Mbabane']],
  [
    'WAT',
    'WAT',
    [
      'Africa/Lagos',
      'Africa/Kinshasa',
      'Africa/Luanda',
      'Africa/Douala',
      'Africa/Libreville',
      'Africa/Malabo',
      'Africa/Niamey',
      'Africa/Porto-Novo',
      'Africa/Bangui',
      'Africa/Brazzaville',
      'Africa/Ndjamena',
    ],
  ],
  [
    'CAT',
    'CAT',
    [
      'Africa/Maputo',
      'Africa/Harare',
      'Africa/Lusaka',
      'Africa/Lubumbashi',
      'Africa/Blantyre',
      'Africa/Bujumbura',
      'Africa/Gaborone',
      'Africa/Kigali',
      'Africa/Windhoek',
      'Africa/Juba',
      'Africa/Khartoum',
    ],
  ],
  [
    'EAT',
    'EAT',
    [
      'Africa/Nairobi',
      'Africa/Addis_Ababa',
      'Africa/Dar_es_Salaam',
      'Africa/Kampala',
      'Africa/Mogadishu',
      'Africa/Djibouti',
      'Africa/Asmara',
      'Africa/Asmera',
      'Indian/Antananarivo',
      'Indian/Comoro',
      'Indian/Mayotte',
    ],
  ],
  [
    'GMT',
    'GMT',
    [
      'Africa/Abidjan',
      'Africa/Accra',
      'Africa/Bamako',
      'Africa/Banjul',
      'Africa/Conakry',
      'Africa/Dakar',
      'Africa/Freetown',
      'Africa/Lome',
      'Africa/Monrovia',
      'Africa/Nouakchott',
      'Africa/Ouagadougou',
      'Africa/Sao_Tome',
      'Africa/Bissau',
      'Africa/Timbuktu',
      'Atlantic/Reykjavik',
      'Atlantic/St_Helena',
      'America/Danmarkshavn',
      'Iceland',
    ],
  ],
];

const ABBR_BY_ZONE: ReadonlyMap<string, readonly [string, string]> = (() => {
  const map = new Map<string, readonly [string, string]>();
  for (const [std, dst, zones] of ABBR_GROUPS) {
    for (const z of zones) map.set(z.toLowerCase(), [std, dst]);
  }
  return map;
})();

const abbrPairCache = new Map<string, readonly [string, string] | null>();
registerKept(undefined, 'zone_abbreviations', { entries: () => abbrPairCache.size, maxEntries: 1000 });

function abbrPairFor(tz: string): readonly [string, string] | null {
  const cached = abbrPairCache.get(tz);
  if (cached !== undefined) return cached;
  let pair = ABBR_BY_ZONE.get(tz.toLowerCase()) ?? null;
  if (pair === null) {
    try {
      const canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
      pair = ABBR_BY_ZONE.get(canonical.toLowerCase()) ?? null;
    } catch {
      pair = null;
    }
  }
  if (abbrPairCache.size >= 1000) abbrPairCache.clear();
  abbrPairCache.set(tz, pair);
  return pair;
}

/** PHP's numeric abbreviation for an offset in minutes: '+08', '-03', '+0530', '-0930'. */
function numericAbbr(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = pad2(Math.floor(abs / 60));
  const mm = abs % 60;
  return mm === 0 ? `${sign}${hh}` : `${sign}${hh}${pad2(mm)}`;
}

/**
 * Time zone abbreviation like PHP's date('T') at the given wall time in that zone:
 * 'EST'/'EDT', 'CET'/'CEST', 'GMT'/'BST', 'AEST'/'AEDT', 'UTC'…; PHP's numeric style ('+08', '-03', '+0530')
 * for zones without letters; the zone string itself for a manual offset ('UTC+2').
 * @example timezoneAbbr('America/New_York', '2026-01-15 12:00:00') // 'EST'
 * @example timezoneAbbr('Asia/Singapore', '2026-01-15 12:00:00') // '+08'
 * @example timezoneAbbr('UTC+2', '2026-01-15 12:00:00') // 'UTC+2'
 */
export function timezoneAbbr(tz: string, wallInZone: WallTime): string {
  return memoized(abbrMemo, tz, wallInZone, computeTimezoneAbbr);
}

/**
 * Recent results of the offset computations of representations and writes ({@link timezoneAbbr},
 * {@link isoWithOffset}, {@link wallToUtc}): pure functions of (zone, wall time), each a few `Intl`
 * calls in Luxon, made for every event answered or written. Bounded; errors are not remembered.
 */
const abbrMemo = new Map<string, string>();
const utcMemo = new Map<string, string>();
const isoMemo = new Map<string, string>();
for (const [kind, memo] of [
  ['zone_abbreviation_memo', abbrMemo],
  ['utc_memo', utcMemo],
  ['iso_memo', isoMemo],
] as const)
  registerKept(undefined, kind, { entries: () => memo.size, maxEntries: 20_000 });
function memoized(memo: Map<string, string>, tz: string, wall: WallTime, compute: (tz: string, wall: WallTime) => string): string {
  const key = `${tz}|${wall}`;
  let out = memo.get(key);
  if (out === undefined) {
    out = compute(tz, wall);
    if (memo.size >= 20_000) memo.clear();
    memo.set(key, out);
  }
  return out;
}

function computeTimezoneAbbr(tz: string, wallInZone: WallTime): string {
  const zone = zoneOf(tz);
  if (zone instanceof FixedOffsetZone) return tz;
  const dt = fromWallTime(wallInZone, tz);
  const pair = abbrPairFor(tz);
  if (pair) return dt.isInDST ? pair[1] : pair[0];
  return numericAbbr(dt.offset);
}

/* ------------------------------------------------------------------ */
/* strtotime-style parsing                                             */
/* ------------------------------------------------------------------ */

const MONTHS: Readonly<Record<string, number>> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sept: 9,
  sep: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};

/** 0 = Sunday … 6 = Saturday (timelib numbering). */
const WEEKDAYS: Readonly<Record<string, number>> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tues: 2,
  tue: 2,
  wednesday: 3,
  wednes: 3,
  wed: 3,
  thursday: 4,
  thurs: 4,
  thur: 4,
  thu: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

/** Abbreviations accepted as a zone inside the input, in minutes east of UTC (unambiguous ones only). */
const TZ_ABBR_OFFSETS: Readonly<Record<string, number>> = {
  z: 0,
  ut: 0,
  utc: 0,
  gmt: 0,
  wet: 0,
  west: 60,
  bst: 60,
  cet: 60,
  cest: 120,
  met: 60,
  mest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  hdt: -540,
  ast: -240,
  adt: -180,
  nst: -210,
  ndt: -150,
  jst: 540,
  kst: 540,
  hkt: 480,
  aest: 600,
  aedt: 660,
  acst: 570,
  acdt: 630,
  awst: 480,
  nzst: 720,
  nzdt: 780,
};

const MONTH_RE = '(january|february|march|april|june|july|august|september|october|november|december|sept|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(?![a-z])';
const DAY_RE = '(\\d{1,2})(?:st|nd|rd|th)?';
const WEEKDAY_RE = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday|wednes|thurs|tues|thur|sun|mon|tue|wed|thu|fri|sat)';
const UNIT_RE = `((?:msec|millisecond|usec|microsecond|second|sec|minute|min|hour|day|fortnight|forthnight|month|year)s?|weeks?|weekdays?|${WEEKDAY_RE.slice(1, -1)})(?![a-z])`;

interface ParseState {
  haveDate: boolean;
  haveTime: boolean;
  haveZone: boolean;
  y?: number;
  m?: number;
  d?: number;
  h: number;
  i: number;
  s: number;
  /** explicit zone given in the input */
  zone?: Zone;
  rel: { y: number; m: number; d: number; h: number; i: number; s: number; ms: number };
  weekday?: number; // relative weekday (timelib semantics, may be negative after 'ago')
  weekdayBehavior: number;
  firstLastDayOf?: 'first' | 'last';
  /** 'first monday of …' ('nth') / 'last friday of …' ('last'): counted from the month's first day */
  weekdayOfMonth?: 'nth' | 'last';
  businessDays?: number;
  /** the time of day was reset to midnight by 'today', 'tomorrow', a weekday name… */
  timeReset: boolean;
  /** a token other than a bare zone was seen */
  sawContent: boolean;
}

type Handler = (m: RegExpExecArray, st: ParseState) => boolean;

interface Rule {
  name: string;
  re: RegExp;
  apply: Handler;
}

function setDate(st: ParseState, y: number | undefined, m: number | undefined, d: number | undefined): boolean {
  if (st.haveDate) return false; // "Double date specification"
  st.haveDate = true;
  st.sawContent = true;
  if (m !== undefined && (m < 1 || m > 12)) return false;
  if (d !== undefined && (d < 1 || d > 31)) return false;
  if (y !== undefined) st.y = y;
  if (m !== undefined) st.m = m;
  if (d !== undefined) st.d = d;
  return true;
}

function setTime(st: ParseState, h: number, i: number, s: number): boolean {
  if (st.haveTime) return false; // "Double time specification"
  if (h > 24 || i > 59 || s > 59 || (h === 24 && (i !== 0 || s !== 0))) return false;
  st.haveTime = true;
  st.sawContent = true;
  st.h = h;
  st.i = i;
  st.s = s;
  return true;
}

/** TIMELIB_UNHAVE_TIME: forget any time parsed so far and use midnight. */
function unhaveTime(st: ParseState): void {
  st.haveTime = false;
  st.h = 0;
  st.i = 0;
  st.s = 0;
  st.timeReset = true;
}

function setZone(st: ParseState, zone: Zone): boolean {
  if (st.haveZone) return false; // "Double timezone specification"
  st.haveZone = true;
  st.zone = zone;
  return true;
}

function twoDigitYear(raw: string): number {
  const n = Number(raw);
  if (raw.length >= 3) return n;
  return n < 70 ? 2000 + n : 1900 + n;
}

function meridian(h: number, ap: string): number | null {
  if (h < 1 || h > 12) return null;
  if (ap === 'a') return h === 12 ? 0 : h;
  return h === 12 ? 12 : h + 12;
}

/** timelib_set_relative(): apply `amount` of `unit` with the given weekday behaviour. */
function setRelative(st: ParseState, amount: number, unit: string, behavior: number, keepTime: boolean): void {
  st.sawContent = true;
  const r = st.rel;
  const u = unit.replace(/s$/, '');
  switch (u) {
    case 'msec':
    case 'millisecond':
      r.ms += amount;
      return;
    case 'usec':
    case 'microsecond':
      r.ms += amount / 1000;
      return;
    case 'sec':
    case 'second':
      r.s += amount;
      return;
    case 'min':
    case 'minute':
      r.i += amount;
      return;
    case 'hour':
      r.h += amount;
      return;
    case 'day':
      r.d += amount;
      return;
    case 'week':
      r.d += 7 * amount;
      return;
    case 'fortnight':
    case 'forthnight':
      r.d += 14 * amount;
      return;
    case 'month':
      r.m += amount;
      return;
    case 'year':
      r.y += amount;
      return;
    case 'weekday':
      if (!keepTime) unhaveTime(st);
      st.businessDays = (st.businessDays ?? 0) + amount;
      return;
    default: {
      const wd = WEEKDAYS[unit];
      if (wd === undefined) return;
      if (!keepTime) unhaveTime(st);
      r.d += (amount > 0 ? amount - 1 : amount) * 7;
      st.weekday = wd;
      st.weekdayBehavior = behavior;
    }
  }
}

/** timelib's ordinal words ('reltextnumber'): 'first' → 1 … 'twelfth' → 12 ('eight' too, as timelib). */
const ORDINALS: Readonly<Record<string, number>> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eight: 8,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
};
const RELTEXT_RE = '(next|last|previous|this|first|second|third|fourth|fifth|sixth|seventh|eighth|eight|ninth|tenth|eleventh|twelfth)';

/** 'next'/'first' → (1, 0), 'second' → (2, 0) …, 'last'/'previous' → (-1, 0), 'this' → (0, 1) */
function relativeText(word: string): [number, number] {
  if (word === 'next') return [1, 0];
  if (word === 'this') return [0, 1];
  const ordinal = ORDINALS[word];
  if (ordinal !== undefined) return [ordinal, 0];
  return [-1, 0];
}

function weekdayRelative(st: ParseState, name: string): void {
  st.sawContent = true;
  unhaveTime(st);
  st.weekday = WEEKDAYS[name];
  if (st.weekdayBehavior !== 2) st.weekdayBehavior = 1;
}

const RULES: Rule[] = [
  /* ---- timestamps ---- */
  {
    name: 'timestamp',
    re: /@(-?\d+)(?:\.\d+)?(?!\d)/y,
    apply: (m, st) => {
      const dt = DateTime.fromSeconds(Number(m[1]), { zone: 'UTC' });
      if (!dt.isValid) return false;
      return setDate(st, dt.year, dt.month, dt.day) && setTime(st, dt.hour, dt.minute, dt.second) && setZone(st, FixedOffsetZone.utcInstance);
    },
  },
  /* ---- relative keywords ---- */
  { name: 'now', re: /now(?![a-z])/y, apply: (_m, st) => ((st.sawContent = true), true) },
  {
    name: 'noon',
    re: /(?:noon|midday)(?![a-z])/y,
    apply: (_m, st) => {
      unhaveTime(st);
      return setTime(st, 12, 0, 0);
    },
  },
  {
    name: 'midnight|today',
    re: /(?:midnight|today)(?![a-z])/y,
    apply: (_m, st) => {
      st.sawContent = true;
      unhaveTime(st);
      return true;
    },
  },
  {
    name: 'tomorrow',
    re: /tomorrow(?![a-z])/y,
    apply: (_m, st) => {
      st.sawContent = true;
      unhaveTime(st);
      st.rel.d = 1;
      return true;
    },
  },
  {
    name: 'yesterday',
    re: /yesterday(?![a-z])/y,
    apply: (_m, st) => {
      st.sawContent = true;
      unhaveTime(st);
      st.rel.d = -1;
      return true;
    },
  },
  {
    name: 'firstlastdayof',
    re: /(first|last)\s+day\s+of(?![a-z])/y,
    apply: (m, st) => {
      st.sawContent = true;
      st.firstLastDayOf = m[1] === 'first' ? 'first' : 'last';
      return true;
    },
  },
  {
    name: 'relativetextweek',
    re: /(next|last|previous|this)\s+week(?![a-z])/y,
    apply: (m, st) => {
      const [amount, behavior] = relativeText(m[1]!);
      setRelative(st, amount, 'week', behavior, false);
      st.weekdayBehavior = 2;
      if (st.weekday === undefined) st.weekday = 1;
      return true;
    },
  },
  {
    // 'first monday of', 'last friday of', 'second tuesday of' (timelib's weekdayof): the
    // weekday's occurrence in the month the rest of the input names (this month by default).
    name: 'weekdayof',
    re: new RegExp(`${RELTEXT_RE}\\s+${WEEKDAY_RE}\\s+of(?![a-z])`, 'y'),
    apply: (m, st) => {
      const [amount, behavior] = relativeText(m[1]!);
      if (amount > 0) {
        st.weekdayOfMonth = 'nth';
        setRelative(st, amount, m[2]!, 1, false);
      } else {
        st.weekdayOfMonth = 'last';
        setRelative(st, amount, m[2]!, behavior, false);
      }
      return true;
    },
  },
  {
    name: 'relativetext',
    re: new RegExp(`${RELTEXT_RE}\\s+${UNIT_RE}`, 'y'),
    apply: (m, st) => {
      const [amount, behavior] = relativeText(m[1]!);
      setRelative(st, amount, m[2]!, behavior, false);
      return true;
    },
  },
  {
    name: 'relative',
    re: new RegExp(`([+-]*)\\s*(\\d{1,13})\\s*${UNIT_RE}`, 'y'),
    apply: (m, st) => {
      const negative = (m[1]!.match(/-/g)?.length ?? 0) % 2 === 1;
      const amount = Number(m[2]) * (negative ? -1 : 1);
      setRelative(st, amount, m[3]!, 1, true);
      return true;
    },
  },
  {
    name: 'ago',
    re: /ago(?![a-z])/y,
    apply: (_m, st) => {
      const r = st.rel;
      r.y = -r.y;
      r.m = -r.m;
      r.d = -r.d;
      r.h = -r.h;
      r.i = -r.i;
      r.s = -r.s;
      r.ms = -r.ms;
      if (st.weekday !== undefined) st.weekday = st.weekday === 0 ? -7 : -st.weekday;
      if (st.businessDays !== undefined) st.businessDays = -st.businessDays;
      return true;
    },
  },
  { name: 'daytext', re: new RegExp(`${WEEKDAY_RE}(?![a-z])`, 'y'), apply: (m, st) => (weekdayRelative(st, m[1]!), true) },
  /* ---- dates ---- */
  {
    name: 'iso8601date',
    re: /(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?!\d)/y,
    apply: (m, st) => setDate(st, Number(m[1]), Number(m[3]), Number(m[4])),
  },
  {
    name: 'gnudateshorter', // 2026-12 → first of the month
    re: /(\d{4})-(\d{1,2})(?![\d\-/:])/y,
    apply: (m, st) => setDate(st, Number(m[1]), Number(m[2]), 1),
  },
  {
    name: 'american', // m/d/Y, m/d/y, m/d
    re: /(\d{1,2})\/(\d{1,2})(?:\/(\d{4}|\d{2}))?(?![\d/])/y,
    apply: (m, st) => setDate(st, m[3] === undefined ? undefined : twoDigitYear(m[3]), Number(m[1]), Number(m[2])),
  },
  {
    name: 'datefull-numeric', // d-m-Y, d.m.Y
    re: /(\d{1,2})[-.](\d{1,2})[-.](\d{4})(?!\d)/y,
    apply: (m, st) => setDate(st, Number(m[3]), Number(m[2]), Number(m[1])),
  },
  {
    name: 'datetextual', // December 1, 2026 / Dec 1st 2026 / Dec-1-2026
    re: new RegExp(`${MONTH_RE}[ .\\t-]*${DAY_RE}[,. \\t-]*(\\d{4})(?!\\d)`, 'y'),
    apply: (m, st) => setDate(st, Number(m[3]), MONTHS[m[1]!], Number(m[2])),
  },
  {
    name: 'datenoyear', // December 1 / Dec 1st
    re: new RegExp(`${MONTH_RE}[ .\\t-]*${DAY_RE}(?![\\d:])(?!\\s*[ap]\\.?m\\b)`, 'y'),
    apply: (m, st) => setDate(st, undefined, MONTHS[m[1]!], Number(m[2])),
  },
  {
    name: 'datefull', // 1 December 2026 / 01-Dec-2026
    re: new RegExp(`${DAY_RE}[ .\\t-]*${MONTH_RE}[ .\\t-]*(\\d{4})(?!\\d)`, 'y'),
    apply: (m, st) => setDate(st, Number(m[3]), MONTHS[m[2]!], Number(m[1])),
  },
  {
    name: 'datenoyearrev', // 1 December
    re: new RegExp(`${DAY_RE}[ .\\t-]*${MONTH_RE}`, 'y'),
    apply: (m, st) => setDate(st, undefined, MONTHS[m[2]!], Number(m[1])),
  },
  {
    name: 'datenoday', // December 2026 → first of the month
    re: new RegExp(`${MONTH_RE}[ .\\t-]*(\\d{4})(?!\\d)`, 'y'),
    apply: (m, st) => setDate(st, Number(m[2]), MONTHS[m[1]!], 1),
  },
  {
    name: 'datenodayrev', // 2026 December → first of the month
    re: new RegExp(`(\\d{4})[ .\\t-]*${MONTH_RE}`, 'y'),
    apply: (m, st) => setDate(st, Number(m[1]), MONTHS[m[2]!], 1),
  },
  {
    name: 'pgtextreverse', // 2026-Dec-01
    re: new RegExp(`(\\d{4})-${MONTH_RE}-(\\d{1,2})(?!\\d)`, 'y'),
    apply: (m, st) => setDate(st, Number(m[1]), MONTHS[m[2]!], Number(m[3])),
  },
  {
    name: 'monthtext', // bare month name
    re: new RegExp(MONTH_RE, 'y'),
    apply: (m, st) => setDate(st, undefined, MONTHS[m[1]!], undefined),
  },
  /* ---- times ---- */
  {
    name: 'time12', // 10am, 10 am, 10:30pm, 10:30:15 p.m.
    re: /(\d{1,2})(?:[:.](\d{2})(?:[:.](\d{2}))?)?\s*([ap])\.?\s?m\.?(?![a-z])/y,
    apply: (m, st) => {
      const h = meridian(Number(m[1]), m[4]!);
      if (h === null) return false;
      return setTime(st, h, m[2] === undefined ? 0 : Number(m[2]), m[3] === undefined ? 0 : Number(m[3]));
    },
  },
  {
    name: 'time24', // 10:00, 10:00:00, T10:00:00.123
    re: /t?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?!\d)/y,
    apply: (m, st) => setTime(st, Number(m[1]), Number(m[2]), m[3] === undefined ? 0 : Number(m[3])),
  },
  /* ---- time zones ---- */
  {
    name: 'tzcorrection', // +02:00, -0500, +02, GMT+2
    re: /(?:gmt|utc)?([+-])(\d{1,2})(?::?(\d{2}))?(?![\d:])/y,
    apply: (m, st) => {
      const hours = Number(m[2]);
      const minutes = m[3] === undefined ? 0 : Number(m[3]);
      if (hours > 14 || minutes > 59) return false;
      return setZone(st, FixedOffsetZone.instance((m[1] === '-' ? -1 : 1) * (hours * 60 + minutes)));
    },
  },
  {
    name: 'tzabbr',
    re: new RegExp(
      `(${Object.keys(TZ_ABBR_OFFSETS)
        .sort((a, b) => b.length - a.length)
        .join('|')})(?![a-z])`,
      'y',
    ),
    apply: (m, st) => setZone(st, FixedOffsetZone.instance(TZ_ABBR_OFFSETS[m[1]!]!)),
  },
  {
    name: 'tzidentifier', // America/New_York
    re: /([a-z]+(?:\/[a-z0-9_+-]+)+)/y,
    apply: (m, st) => (isKnownIanaZone(m[1]!) ? setZone(st, IANAZone.create(m[1]!)) : false),
  },
];

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
const plainMemo = new Map<string, DateTime>();
registerKept(undefined, 'parsed_dates', { entries: () => plainMemo.size, maxEntries: 5000 });
const PLAIN_WALL_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** The parts of a plain, valid 'YYYY-MM-DD[ HH:MM[:SS]]' (years 1000-9999), else null. */
function plainWallTime(text: string): WallParts | null {
  const m = PLAIN_WALL_RE.exec(text);
  if (!m) return null;
  const p: WallParts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: m[4] === undefined ? 0 : Number(m[4]),
    minute: m[5] === undefined ? 0 : Number(m[5]),
    second: m[6] === undefined ? 0 : Number(m[6]),
  };
  if (p.year < 1000 || p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysInMonth(p.year, p.month)) return null;
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return null;
  return p;
}

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
