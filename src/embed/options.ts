/**
 * The query arguments of `/embed/` and `/embed/snippet` (the component's attributes, by the same
 * names): read, checked and written back as a query or as attributes. Invalid values are named in
 * `invalid` (the iframe view answers 400; the snippet page leaves them out and says so).
 *
 * @example optionsOf({ view: 'month', category: 'jazz,blues', featured: '1' }).filter.categories // ['jazz', 'blues']
 */
import type { EmbedFilter } from './reader.js';
import type { Locale } from './messages.js';

export type View = 'list' | 'month' | 'upcoming';

export interface EmbedOptions {
  view: View;
  filter: EmbedFilter;
  /** the number of events of the list views (1 to MAX_LIMIT); undefined: the view's default */
  limit?: number;
  /** `YYYY-MM` (the month view) */
  month?: string;
  locale?: Locale;
  /** the component's time zone mode */
  timeZone?: 'viewer' | 'event';
  /** the component's refresh interval in seconds (0: never) */
  refresh?: number;
  /** the names of arguments whose value could not be read */
  invalid: string[];
}

export const MAX_LIMIT = 100;
const MAX_ITEMS = 20;

const first = (v: unknown): string | undefined => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : undefined);
const listOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v])
    .flatMap((x) => (typeof x === 'string' ? x.split(',') : []))
    .map((s) => s.trim())
    .filter(Boolean);

export function optionsOf(q: Record<string, unknown>): EmbedOptions {
  const invalid: string[] = [];
  const o: EmbedOptions = { view: 'list', filter: {}, invalid };
  const view = first(q.view);
  if (view !== undefined && view !== '') {
    if (view === 'list' || view === 'month' || view === 'upcoming') o.view = view;
    else invalid.push('view');
  }
  const terms = (names: string[], key: 'categories' | 'tags') => {
    const items = names.flatMap((n) => listOf(q[n]));
    if (items.length === 0) return;
    if (items.length > MAX_ITEMS || items.some((s) => s.length > 200)) invalid.push(names[0]!);
    else o.filter[key] = [...new Set(items)];
  };
  terms(['category', 'categories'], 'categories');
  terms(['tag', 'tags'], 'tags');
  for (const key of ['venue', 'organizer'] as const) {
    const items = listOf(q[key]);
    if (items.length === 0) continue;
    if (items.length > MAX_ITEMS || !items.every((s) => /^[1-9]\d{0,9}$/.test(s))) invalid.push(key);
    else o.filter[key] = [...new Set(items.map(Number))];
  }
  const featured = first(q.featured);
  if (featured !== undefined && featured !== '') {
    if (['1', 'true', 'on', 'yes'].includes(featured)) o.filter.featured = true;
    else if (!['0', 'false', 'off', 'no'].includes(featured)) invalid.push('featured');
  }
  const search = first(q.search);
  if (search !== undefined && search.trim() !== '') {
    if (search.length > 200) invalid.push('search');
    else o.filter.search = search.trim();
  }
  const limit = first(q.limit);
  if (limit !== undefined && limit !== '') {
    if (/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT) o.limit = Number(limit);
    else invalid.push('limit');
  }
  const month = first(q.month);
  if (month !== undefined && month !== '') {
    if (/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) o.month = month;
    else invalid.push('month');
  }
  const locale = first(q.locale);
  if (locale !== undefined && locale !== '') {
    if (locale === 'en' || locale === 'fr') o.locale = locale;
    else invalid.push('locale');
  }
  const tz = first(q['time-zone']);
  if (tz !== undefined && tz !== '') {
    if (tz === 'viewer' || tz === 'event') o.timeZone = tz;
    else invalid.push('time-zone');
  }
  const refresh = first(q.refresh);
  if (refresh !== undefined && refresh !== '') {
    if (/^\d{1,6}$/.test(refresh)) o.refresh = Number(refresh);
    else invalid.push('refresh');
  }
  return o;
}

/** The filter as query pairs (the iframe view's names). */
export function filterPairs(o: EmbedOptions): Array<[string, string]> {
  const f = o.filter;
  const out: Array<[string, string]> = [];
  if (f.categories?.length) out.push(['category', f.categories.join(',')]);
  if (f.tags?.length) out.push(['tag', f.tags.join(',')]);
  if (f.venue?.length) out.push(['venue', f.venue.join(',')]);
  if (f.organizer?.length) out.push(['organizer', f.organizer.join(',')]);
  if (f.featured) out.push(['featured', '1']);
  if (f.search) out.push(['search', f.search]);
  return out;
}

/** The iframe view's query for these options (view, filters, limit, month, locale). */
export function iframeQuery(o: EmbedOptions, extra: Array<[string, string]> = []): string {
  const p = new URLSearchParams();
  if (o.view !== 'list') p.set('view', o.view);
  for (const [k, v] of filterPairs(o)) p.set(k, v);
  if (o.limit !== undefined && o.view !== 'month') p.set('limit', String(o.limit));
  if (o.locale) p.set('locale', o.locale);
  for (const [k, v] of extra) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The component's attributes for these options, in a stable order. */
export function componentAttributes(o: EmbedOptions, service: string, weekStart = 1): Array<[string, string]> {
  const out: Array<[string, string]> = [['service', service]];
  if (o.view !== 'list') out.push(['view', o.view]);
  for (const [k, v] of filterPairs(o)) out.push([k, k === 'featured' ? '' : v]);
  if (o.limit !== undefined && o.view !== 'month') out.push(['limit', String(o.limit)]);
  if (o.locale) out.push(['locale', o.locale]);
  if (o.timeZone === 'event') out.push(['time-zone', 'event']);
  if (o.refresh !== undefined) out.push(['refresh', String(o.refresh)]);
  // The component's grid starts on Monday unless told the site's first day of the week.
  if (o.view === 'month' && weekStart !== 1) out.push(['week-start', String(weekStart)]);
  return out;
}
