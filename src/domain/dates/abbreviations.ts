/**
 * Time zone abbreviations as PHP's date('T') writes them ('EST'/'EDT', 'CET'/'CEST', '+08'): the
 * table of lettered abbreviations by zone (data) and {@link timezoneAbbr}.
 */
import { FixedOffsetZone } from 'luxon';
import { registerKept } from '../../metrics.js';
import { zoneOf } from './zones.js';
import { fromWallTime, memoized, pad2, type WallTime } from './wall.js';

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

/** Recent results of {@link timezoneAbbr} (see {@link memoized}). */
const abbrMemo = new Map<string, string>();
registerKept(undefined, 'zone_abbreviation_memo', { entries: () => abbrMemo.size, maxEntries: 20_000 });

function computeTimezoneAbbr(tz: string, wallInZone: WallTime): string {
  const zone = zoneOf(tz);
  if (zone instanceof FixedOffsetZone) return tz;
  const dt = fromWallTime(wallInZone, tz);
  const pair = abbrPairFor(tz);
  if (pair) return dt.isInDST ? pair[1] : pair[0];
  return numericAbbr(dt.offset);
}
