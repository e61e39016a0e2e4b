/**
 * The date pages: a month's grid (`/events/month/[YYYY-MM/]`) and a day's events
 * (`/events/YYYY-MM-DD/`, `/events/today/`), and their feeds.
 */
import { DateTime } from 'luxon';
import { monthGrid } from '../domain/month-grid.js';
import { html, type Answer, type Format, type PageContext, type Query } from './page-context.js';

/** A month's page or feed; `month` (YYYY-MM) defaults to this month. */
export async function monthAnswer(ctx: PageContext, format: Format, q: Query, month: string | undefined): Promise<Answer> {
  const { calendar, config, url, filterQuery } = ctx;
  const m = month ?? calendar.today().slice(0, 7);
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(m)) return { kind: 'not-found' };
  const filter = ctx.filterOf(q);
  const { first: firstDay, last: lastDay, gridStart: from, gridEnd: until } = monthGrid(m, config.weekStart);
  const { events, total } = await calendar.between(format === 'html' ? from.toISODate()! : `${m}-01`, format === 'html' ? until.toISODate()! : lastDay.toISODate()!, filter);
  if (format !== 'html') return { kind: 'ical', events, name: `${config.siteName} – ${firstDay.toFormat('LLLL yyyy')}`, filename: `${ctx.siteFile}-${m}.ics` };
  const path = `/events/month/${m}/`;
  return html(
    ctx.views.month({
      month: m,
      weekStart: config.weekStart,
      today: calendar.today(),
      events,
      truncated: total > events.length,
      filter,
      meta: {
        title: `Events in ${firstDay.toFormat('LLLL yyyy')}`,
        description: `Events of ${config.siteName} in ${firstDay.toFormat('LLLL yyyy')}.`,
        canonical: url(path) + filterQuery(filter),
        ics: ctx.withIcal(url(path) + filterQuery(filter)),
      },
      monthUrl: (mm) => url(`/events/month/${mm}/`) + filterQuery(filter),
      dayUrl: (d) => url(`/events/${d}/`),
      subscription: ctx.subscription(config.siteName, filter),
    }),
  );
}

/** A day's page or feed (`day` is YYYY-MM-DD). */
export async function dayAnswer(ctx: PageContext, format: Format, q: Query, day: string): Promise<Answer> {
  const { config, url } = ctx;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !DateTime.fromISO(day).isValid) return { kind: 'not-found' };
  const filter = ctx.filterOf(q);
  const { events } = await ctx.calendar.between(day, day, filter);
  const d = DateTime.fromISO(day, { zone: 'utc' });
  if (format !== 'html') return { kind: 'ical', events, name: `${config.siteName} – ${d.toFormat('d LLLL yyyy')}`, filename: `${ctx.siteFile}-${day}.ics` };
  const path = `/events/${day}/`;
  return html(
    ctx.views.day({
      day,
      events,
      meta: { title: `Events on ${d.toFormat('cccc d LLLL yyyy')}`, description: `Events of ${config.siteName} on ${d.toFormat('d LLLL yyyy')}.`, canonical: url(path), ics: ctx.withIcal(url(path)) },
      dayUrl: (x) => url(`/events/${x}/`),
      subscription: ctx.subscription(config.siteName, filter),
    }),
  );
}
