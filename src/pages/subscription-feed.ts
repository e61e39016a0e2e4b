/**
 * `/events.ics`: the events the REST list's filters select, as iCalendar for subscriptions.
 */
import type { EventFilter } from './calendar.js';
import { first, idsOf, listOf, truthy, type Answer, type BadRequest, type PageContext, type Query } from './page-context.js';

/** `/events.ics`: the REST list's filters, for subscriptions. */
export async function feedAnswer(ctx: PageContext, q: Query): Promise<Answer | BadRequest> {
  const f: EventFilter = {};
  const categories = listOf(q.categories);
  const tags = listOf(q.tags);
  if (categories.length) f.categories = categories;
  if (tags.length) f.tags = tags;
  const search = first(q.search);
  if (search) f.search = search;
  if (q.venue !== undefined) f.venue = idsOf(q.venue);
  if (q.organizer !== undefined) f.organizer = idsOf(q.organizer);
  if (q.featured !== undefined) f.featured = truthy(q.featured);
  const start = first(q.start_date);
  const end = first(q.end_date);
  for (const [name, value] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (value !== undefined && !ctx.calendar.isDateInput(value)) return { kind: 'bad-request', message: `Invalid parameter: ${name}` };
  }
  const { events } = await ctx.calendar.window(f, start, end);
  return { kind: 'ical', events, name: ctx.config.siteName, filename: `${ctx.siteFile}.ics` };
}
