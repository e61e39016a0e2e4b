/**
 * A recurring event's rules in words, in English or French, for people rather than for calendar
 * programs: "every Tuesday until March 30, 2027", « chaque mardi jusqu’au 30 mars 2027 ». Pure: it
 * reads the stored, normalised `recurrence` lines (upper-case names) and the first occurrence's
 * local start. Rules it cannot say simply (BYSETPOS, several months, …) read "on a custom schedule":
 * the page lists the dates themselves beside the sentence.
 *
 * @example
 *   describeRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270330'], '2027-03-02 19:00:00', 'en')
 *   // 'every Tuesday until March 30, 2027'
 */
import { DateTime } from 'luxon';

export type WordsLocale = 'en' | 'fr';

const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
const DAY_NAMES: Record<WordsLocale, readonly string[]> = {
  en: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  fr: ['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'],
};
const ORDINALS: Record<WordsLocale, Record<string, string>> = {
  en: { '1': 'first', '2': 'second', '3': 'third', '4': 'fourth', '5': 'fifth', '-1': 'last', '-2': 'second-to-last' },
  fr: { '1': 'premier', '2': 'deuxième', '3': 'troisième', '4': 'quatrième', '5': 'cinquième', '-1': 'dernier', '-2': 'avant-dernier' },
};

interface Words {
  custom: string;
  every: (unit: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY', interval: number) => string;
  everyWeekday: (days: string[]) => string;
  onDays: (days: string[]) => string;
  onMonthDay: (day: number) => string;
  onOrdinalDay: (ordinal: string, day: string) => string;
  until: (date: string) => string;
  times: (n: number) => string;
  list: (items: string[]) => string;
}

const WORDS: Record<WordsLocale, Words> = {
  en: {
    custom: 'on a custom schedule',
    every: (unit, n) => {
      const one = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' }[unit];
      return n === 1 ? `every ${one}` : `every ${n} ${one}s`;
    },
    everyWeekday: (days) => `every ${WORDS.en.list(days)}`,
    onDays: (days) => `on ${WORDS.en.list(days)}`,
    onMonthDay: (day) => (day === -1 ? 'on the last day' : `on day ${day}`),
    onOrdinalDay: (ordinal, day) => `on the ${ordinal} ${day}`,
    until: (date) => `until ${date}`,
    times: (n) => (n === 1 ? 'once' : `${n} times`),
    list: (items) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`),
  },
  fr: {
    custom: 'selon un calendrier particulier',
    every: (unit, n) => {
      if (n === 1) return { DAILY: 'chaque jour', WEEKLY: 'chaque semaine', MONTHLY: 'chaque mois', YEARLY: 'chaque année' }[unit];
      return { DAILY: `tous les ${n} jours`, WEEKLY: `toutes les ${n} semaines`, MONTHLY: `tous les ${n} mois`, YEARLY: `tous les ${n} ans` }[unit];
    },
    everyWeekday: (days) => `chaque ${WORDS.fr.list(days)}`,
    onDays: (days) => `le ${WORDS.fr.list(days)}`,
    onMonthDay: (day) => (day === -1 ? 'le dernier jour' : `le ${day === 1 ? '1er' : day}`),
    onOrdinalDay: (ordinal, day) => `le ${ordinal} ${day}`,
    until: (date) => `jusqu’au ${date}`,
    times: (n) => (n === 1 ? 'une fois' : `${n} fois`),
    list: (items) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} et ${items[items.length - 1]}`),
  },
};

/** The parts of an RRULE value (`FREQ=WEEKLY;BYDAY=TU`). */
function ruleParts(lines: readonly string[]): Map<string, string> | undefined {
  const line = lines.find((l) => l.toUpperCase().startsWith('RRULE:'));
  if (!line) return undefined;
  const parts = new Map<string, string>();
  for (const part of line.slice(6).split(';')) {
    const [k, v] = part.split('=');
    if (k && v !== undefined) parts.set(k.toUpperCase(), v.toUpperCase());
  }
  return parts;
}

/** A date of the rules (`20270330`, `20270330T235959Z`) in words, or undefined. */
function untilDate(value: string, locale: WordsLocale): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(value);
  if (!m) return undefined;
  const d = DateTime.fromObject({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, { zone: 'utc' });
  return d.isValid ? d.setLocale(locale).toLocaleString(DateTime.DATE_FULL) : undefined;
}

/**
 * The rules in words (without a capital or a final stop), or the locale's "on a custom schedule".
 * `firstStart` is the first occurrence's local start (`YYYY-MM-DD HH:MM:SS`): a weekly rule without
 * BYDAY repeats on its weekday, a monthly one without BYDAY or BYMONTHDAY on its day of the month.
 */
export function describeRecurrence(lines: readonly string[], firstStart: string, locale: WordsLocale): string {
  const w = WORDS[locale];
  const parts = ruleParts(lines);
  const freq = parts?.get('FREQ');
  if (!parts || (freq !== 'DAILY' && freq !== 'WEEKLY' && freq !== 'MONTHLY' && freq !== 'YEARLY')) return w.custom;
  if (parts.has('BYSETPOS') || (parts.get('BYMONTH') ?? '').includes(',') || (parts.has('BYMONTH') && freq !== 'YEARLY')) return w.custom;
  const interval = Math.max(1, Number(parts.get('INTERVAL') ?? '1') || 1);
  const first = DateTime.fromSQL(firstStart, { zone: 'utc' });
  const dayName = (code: string) => DAY_NAMES[locale][DAYS.indexOf(code as (typeof DAYS)[number])];
  const byDay = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  let text: string;
  if (freq === 'WEEKLY') {
    const days = byDay.length ? byDay : first.isValid ? [DAYS[first.weekday - 1]!] : [];
    if (days.some((d) => !DAYS.includes(d as (typeof DAYS)[number]))) return w.custom;
    const names = days.map(dayName) as string[];
    text = interval === 1 && names.length ? w.everyWeekday(names) : `${w.every('WEEKLY', interval)}${names.length ? ` ${w.onDays(names)}` : ''}`;
  } else if (freq === 'MONTHLY' || freq === 'YEARLY') {
    text = w.every(freq, interval);
    const monthDay = parts.get('BYMONTHDAY');
    if (byDay.length === 1) {
      const m = /^([+-]?\d)?(MO|TU|WE|TH|FR|SA|SU)$/.exec(byDay[0]!);
      const ordinal = m?.[1] ? ORDINALS[locale][m[1].replace('+', '')] : undefined;
      if (!m || !ordinal) return w.custom;
      text += ` ${w.onOrdinalDay(ordinal, dayName(m[2]!)!)}`;
    } else if (byDay.length > 1) return w.custom;
    else if (monthDay !== undefined) {
      if (monthDay.includes(',')) return w.custom;
      text += ` ${w.onMonthDay(Number(monthDay))}`;
    } else if (freq === 'MONTHLY' && first.isValid) text += ` ${w.onMonthDay(first.day)}`;
  } else {
    if (byDay.length) {
      if (byDay.some((d) => !DAYS.includes(d as (typeof DAYS)[number]))) return w.custom;
      text = `${w.every('DAILY', interval)} (${w.list(byDay.map(dayName) as string[])})`;
    } else text = w.every('DAILY', interval);
  }
  const until = parts.get('UNTIL');
  const count = parts.get('COUNT');
  if (until !== undefined) {
    const date = untilDate(until, locale);
    if (date) text += ` ${w.until(date)}`;
  } else if (count !== undefined && Number(count) > 0) text += `, ${w.times(Number(count))}`;
  return text;
}

/** The sentence the pages show above an occurrence's other dates. */
export const REPEATS_LABEL: Record<WordsLocale, string> = { en: 'This event repeats:', fr: 'Cet événement se répète :' };
