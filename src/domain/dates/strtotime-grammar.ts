/**
 * The grammar of the strtotime() port (see strtotime.ts): the words it knows (months, weekdays,
 * zone abbreviations, ordinals) and the scanner's rules, each a sticky regular expression and what
 * a match sets in the {@link ParseState}, as timelib's parse_date.re has them.
 */
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import type { Zone } from 'luxon';
import { isKnownIanaZone } from './zones.js';

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

export interface ParseState {
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

export interface Rule {
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

export const RULES: Rule[] = [
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
