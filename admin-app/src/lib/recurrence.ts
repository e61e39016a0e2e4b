/**
 * The recurrence rule editor's model: the common cases (daily, weekly on chosen days, monthly by
 * date or by nth weekday, yearly; an interval; until a date or N times) read from and written to
 * RFC 5545 lines as the API's `recurrence` field takes them (docs/recurrence.md), exceptions
 * (EXDATE: dates removed, RDATE: dates added), and whatever else as raw lines. `preview` lists the
 * next starts with the API's semantics for these cases: wall times in the event's zone (the first
 * occurrence is the event's start and counts in COUNT; an EXDATE date removes that day; an RDATE
 * date adds one at the first occurrence's time).
 *
 * @example
 *   const rule = parseLines(['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10', 'EXDATE:20270406']);
 *   toLines(rule) // ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10', 'EXDATE:20270406']
 */
export type Freq = 'NONE' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export interface Rule {
  freq: Freq;
  interval: number;
  byDay: string[];
  /** MONTHLY: by the date of the month, or by the nth weekday (`2TU`, `-1FR`) */
  monthly: 'date' | 'nth';
  end: 'never' | 'until' | 'count';
  /** YYYY-MM-DD */
  until: string;
  count: number;
  /** YYYY-MM-DD */
  exdates: string[];
  rdates: string[];
  /** Lines the editor does not model (kept as they are). */
  raw: string[];
}

export const EMPTY_RULE: Rule = { freq: 'NONE', interval: 1, byDay: [], monthly: 'date', end: 'never', until: '', count: 10, exdates: [], rdates: [], raw: [] };

const compact = (d: string) => d.replace(/-/g, '');
const dashed = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;

/** Read lines into the model; a rule it cannot represent goes whole into `raw`. */
export function parseLines(lines: string[] | undefined): Rule {
  const rule: Rule = { ...EMPTY_RULE, byDay: [], exdates: [], rdates: [], raw: [] };
  for (const line of lines ?? []) {
    const m = /^(RRULE|EXDATE|RDATE)(;VALUE=DATE)?:(.*)$/i.exec(line.trim());
    if (!m) {
      if (line.trim()) rule.raw.push(line.trim());
      continue;
    }
    const name = m[1]!.toUpperCase();
    if (name !== 'RRULE') {
      const dates = m[3]!.split(',');
      if (dates.every((d) => /^\d{8}(T\d{6})?$/.test(d))) {
        for (const d of dates) (name === 'EXDATE' ? rule.exdates : rule.rdates).push(dashed(d));
        continue;
      }
      rule.raw.push(line.trim());
      continue;
    }
    const parts = Object.fromEntries(m[3]!.split(';').map((p) => p.split('=') as [string, string]));
    const known = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'COUNT', 'UNTIL', 'BYMONTH']);
    const freq = (parts.FREQ ?? '').toUpperCase();
    if (!['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'].includes(freq) || Object.keys(parts).some((k) => !known.has(k.toUpperCase())) || rule.freq !== 'NONE') {
      rule.raw.push(line.trim());
      continue;
    }
    rule.freq = freq as Freq;
    rule.interval = Number(parts.INTERVAL ?? 1) || 1;
    if (parts.BYDAY) rule.byDay = parts.BYDAY.split(',');
    if (freq === 'MONTHLY' && parts.BYDAY) rule.monthly = 'nth';
    if (parts.COUNT) {
      rule.end = 'count';
      rule.count = Number(parts.COUNT);
    } else if (parts.UNTIL) {
      rule.end = 'until';
      rule.until = dashed(parts.UNTIL.slice(0, 8));
    }
  }
  return rule;
}

/** The nth weekday of a date: `2TU` (second Tuesday), `-1FR` when it is the last. */
export function nthWeekdayOf(date: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const dow = WEEKDAYS[(new Date(Date.UTC(y, mo - 1, d)).getUTCDay() + 6) % 7]!;
  const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d + 7 > last && d > 28) return `-1${dow}`;
  return `${Math.ceil(d / 7)}${dow}`;
}

/** The lines of the model (the first occurrence's date decides the monthly nth weekday). */
export function toLines(rule: Rule, startDate: string): string[] {
  const out: string[] = [];
  if (rule.freq !== 'NONE') {
    const parts = [`FREQ=${rule.freq}`];
    if (rule.interval > 1) parts.push(`INTERVAL=${rule.interval}`);
    if (rule.freq === 'WEEKLY' && rule.byDay.length) parts.push(`BYDAY=${WEEKDAYS.filter((d) => rule.byDay.includes(d)).join(',')}`);
    if (rule.freq === 'MONTHLY' && rule.monthly === 'nth') parts.push(`BYDAY=${rule.byDay.length === 1 && /^-?\d/.test(rule.byDay[0]!) ? rule.byDay[0] : nthWeekdayOf(startDate)}`);
    if (rule.end === 'count' && rule.count > 0) parts.push(`COUNT=${rule.count}`);
    if (rule.end === 'until' && rule.until) parts.push(`UNTIL=${compact(rule.until)}`);
    out.push(`RRULE:${parts.join(';')}`);
  }
  if (rule.exdates.length) out.push(`EXDATE;VALUE=DATE:${rule.exdates.map(compact).join(',')}`);
  if (rule.rdates.length) out.push(`RDATE;VALUE=DATE:${rule.rdates.map(compact).join(',')}`);
  return [...out, ...rule.raw];
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(d.getTime() + n * 86400_000);
const dowOf = (d: Date) => WEEKDAYS[(d.getUTCDay() + 6) % 7]!;

function matchesNth(d: Date, spec: string): boolean {
  const m = /^(-?\d+)?([A-Z]{2})$/.exec(spec);
  if (!m || dowOf(d) !== m[2]) return false;
  if (!m[1]) return true;
  const n = Number(m[1]);
  const day = d.getUTCDate();
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return n > 0 ? Math.ceil(day / 7) === n : Math.floor((last - day) / 7) === -n - 1;
}

/**
 * The first `limit` occurrence dates (YYYY-MM-DD) of the model from `startDate` (the event's
 * start, always the first), walking day by day up to ten years. Raw lines are not previewed.
 */
export function preview(rule: Rule, startDate: string, limit = 10): string[] {
  if (rule.freq === 'NONE' && rule.rdates.length === 0) return [];
  const start = new Date(`${startDate}T00:00:00Z`);
  const out = new Set<string>([startDate]);
  let counted = 1;
  const until = rule.end === 'until' && rule.until ? rule.until : null;
  const max = rule.end === 'count' ? rule.count : Infinity;
  const days = rule.freq === 'WEEKLY' ? (rule.byDay.length ? rule.byDay : [dowOf(start)]) : [];
  const nth = rule.freq === 'MONTHLY' && rule.monthly === 'nth' ? (rule.byDay.length === 1 && /^-?\d/.test(rule.byDay[0]!) ? rule.byDay[0]! : nthWeekdayOf(startDate)) : null;
  if (rule.freq !== 'NONE')
    for (let i = 1; i < 3700 && counted < max && out.size < limit + rule.exdates.length + 1; i++) {
      const d = addDays(start, i);
      const date = ymd(d);
      if (until && date > until) break;
      let hit = false;
      const weeks = Math.floor((i + ((start.getUTCDay() + 6) % 7)) / 7);
      const months = (d.getUTCFullYear() - start.getUTCFullYear()) * 12 + d.getUTCMonth() - start.getUTCMonth();
      if (rule.freq === 'DAILY') hit = i % rule.interval === 0;
      else if (rule.freq === 'WEEKLY') hit = weeks % rule.interval === 0 && days.includes(dowOf(d));
      else if (rule.freq === 'MONTHLY') hit = months % rule.interval === 0 && (nth ? matchesNth(d, nth) : d.getUTCDate() === start.getUTCDate());
      else if (rule.freq === 'YEARLY') hit = (d.getUTCFullYear() - start.getUTCFullYear()) % rule.interval === 0 && d.getUTCMonth() === start.getUTCMonth() && d.getUTCDate() === start.getUTCDate();
      if (hit) {
        out.add(date);
        counted++;
      }
    }
  for (const r of rule.rdates) out.add(r);
  return [...out]
    .filter((d) => !rule.exdates.includes(d))
    .sort()
    .slice(0, limit);
}
