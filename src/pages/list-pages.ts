/**
 * The list pages: upcoming and past events (`/events/list/`), a category's or tag's events, a
 * recurring event's series (`/event/{slug}/all/`), and their feeds.
 */
import { plainText } from './html.js';
import { PAGE_LOCALE, repeatWords, SERIES_STRINGS } from './series-views.js';
import type { EventFilter } from './calendar.js';
import type { PageMeta } from './views.js';
import { first, html, pageOf, slugFile, type Answer, type Format, type PageContext, type Query } from './page-context.js';

/** What a list page shows besides the request's own filter. */
export interface ListBase {
  path: string;
  filter?: EventFilter;
  heading?: string;
  intro?: string;
  title?: string;
  feedName?: string;
}

/** A list page (upcoming or past), its feed, or 404 past the last page. */
export async function listAnswer(ctx: PageContext, format: Format, q: Query, pageParam: unknown, base: ListBase): Promise<Answer> {
  const { calendar, config, url, filterQuery } = ctx;
  const filter = ctx.filterOf(q, base.filter);
  /** What the request added to the page's own filter: carried by its links. */
  const asked = ctx.filterOf(q);
  const past = first(q.eventDisplay) === 'past';
  const name = base.feedName ?? config.siteName;
  if (format !== 'html') {
    const events = past ? (await calendar.past(filter, 1)).events : (await calendar.upcoming(filter, 1, config.icalMaxEvents)).events;
    return { kind: 'ical', events, name, filename: `${ctx.siteFile}-${slugFile(base.path)}.ics` };
  }
  const page = pageOf(pageParam ?? q.page);
  if (page === undefined) return { kind: 'not-found' };
  // LIST_SERIES_ONCE (or the page's hide_subsequent_recurrences): each series once, at its next date.
  const once = seriesOnce(ctx, q);
  if (!past && base.filter?.series === undefined && once.value) filter.firstOfSeries = true;
  const result = past ? await calendar.past(filter, page) : await calendar.upcoming(filter, page);
  const keep: Array<[string, string]> = past ? [['eventDisplay', 'past']] : [...once.keep];
  const pageUrl = (n: number) => url(`${base.path}${n > 1 ? `page/${n}/` : ''}`) + filterQuery(asked, keep);
  const heading = base.heading ?? (past ? 'Past events' : filter.search ? 'Search results' : 'Upcoming events');
  const title = base.title ?? heading;
  const meta: PageMeta = {
    title: page > 1 ? `${title} – page ${page}` : title,
    description: base.intro ? plainText(base.intro).slice(0, 300) : `${past ? 'Past' : 'Upcoming'} events of ${config.siteName}.`,
    canonical: pageUrl(page),
    ics: ctx.withIcal(url(base.path) + filterQuery(asked, keep)),
    noindex: filter.search !== undefined,
  };
  return html(
    ctx.views.list({
      page: result,
      past,
      filter,
      heading,
      ...(base.intro ? { intro: base.intro } : {}),
      meta,
      pageUrl,
      otherUrl: url(base.path) + filterQuery(asked, past ? [] : [['eventDisplay', 'past']]),
      searchAction: url(base.path),
      subscription: ctx.subscription(name, filter),
    }),
  );
}

/**
 * Whether an upcoming list shows each series once: the page's `hide_subsequent_recurrences` (`1`,
 * `true`, `0`, `false`: TEC Pro's own parameter, carried by the page's links) or LIST_SERIES_ONCE.
 */
export function seriesOnce(ctx: PageContext, q: Query): { value: boolean; keep: Array<[string, string]> } {
  const asked = first(q.hide_subsequent_recurrences);
  if (asked === '1' || asked === 'true') return { value: true, keep: [['hide_subsequent_recurrences', '1']] };
  if (asked === '0' || asked === 'false') return { value: false, keep: [['hide_subsequent_recurrences', '0']] };
  return { value: ctx.config.listSeriesOnce, keep: [] };
}

/** A category's or tag's list page (`/events/category/{slug}/`, `/events/tag/{slug}/`). */
export async function termAnswer(ctx: PageContext, format: Format, taxonomy: 'category' | 'tag', slug: string, q: Query, pageParam: unknown): Promise<Answer> {
  const term = await ctx.calendar.term(taxonomy, slug);
  if (!term) return { kind: 'not-found' };
  const name = plainText(term.name);
  const base: EventFilter = taxonomy === 'category' ? { categories: [term.slug] } : { tags: [term.slug] };
  return listAnswer(ctx, format, q, pageParam, {
    path: `/events/${taxonomy}/${encodeURIComponent(term.slug)}/`,
    filter: base,
    heading: taxonomy === 'category' ? name : `Events tagged “${name}”`,
    ...(term.description ? { intro: plainText(term.description) } : {}),
    title: name,
    feedName: `${ctx.config.siteName} – ${name}`,
  });
}

/** A recurring event's series: its upcoming occurrences, its feed. */
export async function seriesAnswer(ctx: PageContext, format: Format, slug: string, q: Query, pageParam: unknown): Promise<Answer> {
  const series = await ctx.calendar.series(slug);
  if (!series) return { kind: 'not-found' };
  const title = plainText(series.title);
  return listAnswer(ctx, format, q, pageParam, {
    path: `/event/${series.slug}/all/`,
    filter: { series: series.id },
    heading: title,
    title,
    // The rules in words first ("This event repeats: every Tuesday until …"), then its excerpt.
    intro: [`${SERIES_STRINGS[PAGE_LOCALE].repeats} ${repeatWords(series)}.`, plainText(series.excerpt || series.description)].filter(Boolean).join(' '),
    feedName: `${ctx.config.siteName} – ${title}`,
  });
}
