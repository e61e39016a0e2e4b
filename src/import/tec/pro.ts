/**
 * The Events Calendar Pro's recurring events, as its REST API shows them: each
 * occurrence is an event of its own in the lists, the first being the recurring event itself (the
 * parent post) and the others its children, which name it in `post_parent`. Pro's lists do not give
 * the rule, so the series is rebuilt here from the occurrences' starts: a rule when the starts are
 * evenly spaced at one time of day (every N days or weeks, every N months on one day of the month,
 * every N years), with `COUNT` so that it makes exactly those starts; else the starts as `RDATE`s.
 *
 * TEC's own event JSON does not carry `post_parent` (its lists take it as a filter): where the
 * children do not name their parent, the occurrences are recognised by their links (`/event/{slug}/
 * {date}/`, `proOccurrenceBase`) and confirmed by asking the list for `post_parent={parent}`.
 *
 * @example
 *   proRecurrence(['2027-03-02 19:00:00', '2027-03-09 19:00:00', '2027-03-16 19:00:00'], false) // ['RRULE:FREQ=WEEKLY;COUNT=3']
 *   proParentOf({ id: 12, post_parent: 10 }) // 10
 */

type Json = Record<string, any>;

/** The parent (the recurring event) a listed TEC Pro occurrence names in `post_parent`; 0 for none. */
export function proParentOf(e: Json): number {
  const parent = Number(e.post_parent);
  return Number.isSafeInteger(parent) && parent > 0 && parent !== Number(e.id) ? parent : 0;
}

/**
 * The permalink of a TEC Pro recurring event's occurrence without its date: Pro links each one
 * (the parent included) as `/event/{slug}/{YYYY-MM-DD}/`, a single event as `/event/{slug}/`. Events
 * sharing it are the occurrences of one recurring event when the source's `post_parent` filter
 * confirms it. Undefined for a link without the occurrence's date.
 */
export function proOccurrenceBase(e: Json): string | undefined {
  const m = /^(.*\/)(\d{4}-\d{2}-\d{2})\/?$/.exec(String(e.url ?? ''));
  return m && m[2] === String(e.start_date ?? '').slice(0, 10) ? m[1] : undefined;
}

/** RDATE values per line (a series holds at most 50 lines and 1,000 RDATE/EXDATE values). */
const VALUES_PER_LINE = 25;

const dayNumber = (wall: string) => Date.UTC(Number(wall.slice(0, 4)), Number(wall.slice(5, 7)) - 1, Number(wall.slice(8, 10))) / 86_400_000;
const monthNumber = (wall: string) => Number(wall.slice(0, 4)) * 12 + Number(wall.slice(5, 7)) - 1;

/** The one value all the numbers' consecutive differences share (positive), or undefined. */
function evenStep(values: number[]): number | undefined {
  const step = values[1]! - values[0]!;
  if (step <= 0) return undefined;
  for (let i = 2; i < values.length; i++) if (values[i]! - values[i - 1]! !== step) return undefined;
  return step;
}

const rule = (freq: string, interval: number, count: number) => `RRULE:FREQ=${freq}${interval > 1 ? `;INTERVAL=${interval}` : ''};COUNT=${count}`;

/** A rule that makes exactly these starts (sorted, distinct, two or more), when there is a simple one. */
function ruleOf(starts: string[]): string | undefined {
  const time = starts[0]!.slice(11);
  if (!starts.every((s) => s.slice(11) === time)) return undefined;
  const days = evenStep(starts.map(dayNumber));
  if (days !== undefined) return days % 7 === 0 ? rule('WEEKLY', days / 7, starts.length) : rule('DAILY', days, starts.length);
  // Months: one day of the month that every month has (a rule skips the months without a 30th).
  const day = starts[0]!.slice(8, 10);
  if (Number(day) > 28 || !starts.every((s) => s.slice(8, 10) === day)) return undefined;
  const months = evenStep(starts.map(monthNumber));
  if (months === undefined) return undefined;
  return months % 12 === 0 ? rule('YEARLY', months / 12, starts.length) : rule('MONTHLY', months, starts.length);
}

/**
 * The `recurrence` lines of a series whose occurrences start at `starts` (wall times in the event's
 * zone, `YYYY-MM-DD HH:MM:SS`; the first is the event's own start): a rule when one makes exactly
 * those starts, else one `RDATE` per other start (dates for an all-day series, floating times else).
 */
export function proRecurrence(starts: string[], allDay: boolean): string[] {
  const sorted = [...new Set(allDay ? starts.map((s) => `${s.slice(0, 10)} 00:00:00`) : starts)].sort();
  if (sorted.length < 2) return [];
  const found = ruleOf(sorted);
  if (found) return [found];
  const values = sorted.slice(1).map((s) => (allDay ? s.slice(0, 10).replace(/-/g, '') : `${s.slice(0, 10).replace(/-/g, '')}T${s.slice(11).replace(/:/g, '')}`));
  const lines: string[] = [];
  for (let i = 0; i < values.length; i += VALUES_PER_LINE) lines.push(`RDATE${allDay ? ';VALUE=DATE' : ''}:${values.slice(i, i + VALUES_PER_LINE).join(',')}`);
  return lines;
}
