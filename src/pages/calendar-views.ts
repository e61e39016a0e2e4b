/**
 * The calendar's views of many events: the list, month and day pages.
 */
import { repeatingIcon } from './series-views.js';
import { DateTime } from 'luxon';
import { monthGrid } from '../domain/month-grid.js';
import type { PublicEvent } from '../domain/public-records.js';
import { html, plainText, type SafeHtml } from './html.js';
import { dayText, daysCovered, timeText, type DayView, type ListView, type MonthView } from './view-helpers.js';
import type { ViewParts } from './view-parts.js';
import { thumbnailTag } from './image-views.js';

/** A list page: upcoming or past events, a search's results, a category's or tag's or series' events. */
export function listView(parts: ViewParts, v: ListView): string {
  const { layout, eventCard, searchForm, pager, subscribeBlock } = parts;
  const { page } = v;
  const prev = page.page > 1 ? v.pageUrl(page.page - 1) : undefined;
  const next = page.page < page.totalPages ? v.pageUrl(page.page + 1) : undefined;
  const main = html`<h1>${v.heading}</h1>
${v.intro ? html`<p class="intro">${v.intro}</p>` : ''}
${searchForm(v.searchAction, v.filter, v.past)}
${v.filter.search ? html`<p class="results" role="status">${page.total} ${page.total === 1 ? 'event' : 'events'} found for “${v.filter.search}”.</p>` : ''}
${page.events.length ? html`<div class="events">${page.events.map((e) => eventCard(e))}</div>` : html`<p class="empty">${v.past ? 'No past events.' : 'There are no upcoming events.'}</p>`}
${pager('Pages', prev, next, v.past ? 'Newer events' : 'Previous events', v.past ? 'Older events' : 'Next events')}
<p class="other"><a href="${v.otherUrl}">${v.past ? 'Upcoming events' : 'Past events'}</a></p>
${subscribeBlock(v.subscription, v.meta.ics)}`;
  return layout(v.meta, main);
}

/** A month's grid (from the site's first day of the week), at most three events a day with a link to the rest. */
export function monthView(parts: ViewParts, v: MonthView): string {
  const { layout, pager, subscribeBlock } = parts;
  const { first, gridStart, gridEnd } = monthGrid(v.month, v.weekStart);
  const { time } = parts.formats();
  const byDay = new Map<string, PublicEvent[]>();
  const within = { from: gridStart.toISODate()!, until: gridEnd.toISODate()! };
  for (const e of v.events) for (const d of daysCovered(e, within)) (byDay.get(d) ?? byDay.set(d, []).get(d)!).push(e);
  const weeks: SafeHtml[] = [];
  for (let w = gridStart; w <= gridEnd; w = w.plus({ days: 7 })) {
    const cells: SafeHtml[] = [];
    for (let i = 0; i < 7; i++) {
      const d = w.plus({ days: i });
      const day = d.toISODate()!;
      const events = byDay.get(day) ?? [];
      const shown = events.slice(0, 3);
      const more = events.length - shown.length;
      const classes = ['day', d.month !== first.month ? 'other-month' : '', day === v.today ? 'today' : '', events.length ? 'has-events' : ''].filter(Boolean).join(' ');
      cells.push(html`<td class="${classes}"${day === v.today ? html` aria-current="date"` : ''}>
<a class="day-number" href="${v.dayUrl(day)}" aria-label="${dayText(day)}${events.length ? `, ${events.length} ${events.length === 1 ? 'event' : 'events'}` : ''}">${d.day}</a>
${shown.length ? html`<ul>${shown.map((e) => html`<li><a href="${e.url}">${e.image ? thumbnailTag(e.image) : ''}${e.all_day ? '' : html`<span class="time">${timeText(e.start_date, time)}</span> `}${plainText(e.title)}${repeatingIcon(e)}</a></li>`)}</ul>` : ''}
${more > 0 || (v.truncated && events.length) ? html`<a class="more" href="${v.dayUrl(day)}">${more > 0 ? `+ ${more} more` : 'more'}</a>` : ''}
</td>`);
    }
    weeks.push(html`<tr>${cells}</tr>`);
  }
  const prevMonth = first.minus({ months: 1 }).toFormat('yyyy-LL');
  const nextMonth = first.plus({ months: 1 }).toFormat('yyyy-LL');
  const heading = first.toFormat('LLLL yyyy');
  const main = html`<h1>Events in ${heading}</h1>
${pager('Months', v.monthUrl(prevMonth), v.monthUrl(nextMonth), `‹ ${first.minus({ months: 1 }).toFormat('LLLL yyyy')}`, `${first.plus({ months: 1 }).toFormat('LLLL yyyy')} ›`)}
<table class="month">
<caption>${heading}</caption>
<thead><tr>${[0, 1, 2, 3, 4, 5, 6].map((i) => gridStart.plus({ days: i }).toFormat('cccc')).map((d) => html`<th scope="col"><abbr title="${d}">${d.slice(0, 3)}</abbr></th>`)}</tr></thead>
<tbody>
${weeks}
</tbody>
</table>
${v.events.length === 0 ? html`<p class="empty">No events this month.</p>` : ''}
${subscribeBlock(v.subscription, v.meta.ics)}`;
  return layout(v.meta, main);
}

/** A day's events. */
export function dayView(parts: ViewParts, v: DayView): string {
  const { layout, eventCard, pager, subscribeBlock } = parts;
  const d = DateTime.fromISO(v.day, { zone: 'utc' });
  const prev = d.minus({ days: 1 }).toISODate()!;
  const next = d.plus({ days: 1 }).toISODate()!;
  const main = html`<h1>Events on ${dayText(v.day)}</h1>
${pager('Days', v.dayUrl(prev), v.dayUrl(next), `‹ ${d.minus({ days: 1 }).toFormat('cccc d LLLL')}`, `${d.plus({ days: 1 }).toFormat('cccc d LLLL')} ›`)}
${v.events.length ? html`<div class="events">${v.events.map((e) => eventCard(e))}</div>` : html`<p class="empty">No events on this day.</p>`}
${subscribeBlock(v.subscription, v.meta.ics)}`;
  return layout(v.meta, main);
}
