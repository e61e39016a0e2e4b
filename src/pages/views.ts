/**
 * The calendar's HTML views: pure functions from what `calendar.ts` read to a page. Every value
 * is escaped by the `html` template; the only markup inserted as it is comes from the stored
 * description (sanitised again here, as kses would) and the JSON-LD (made safe for a script).
 * The pages are in `calendar-views.ts` and `record-views.ts`, built from the pieces of
 * `view-parts.ts`; the texts and links they show are made in `view-helpers.ts`.
 *
 * @example
 *   const v = createViews(config, links);
 *   v.list({ page, filter, past: false, icsUrl }).value
 */
import type { Config } from '../config.js';
import type { Links } from '../domain/links.js';
import type { EventsPage, PublicEvent, PublicOrganizer, PublicVenue } from '../domain/public-records.js';
import { html } from './html.js';
import { dayView, listView, monthView } from './calendar-views.js';
import { eventView, linkedView, protectedEventView, type EventExtras } from './record-views.js';
import { SERIES_STYLES } from './series-views.js';
import type { DayView, ListView, MonthView, PageMeta, Subscription } from './view-helpers.js';
import { createViewParts } from './view-parts.js';

export {
  STYLESHEET_PATH,
  dayText,
  daysCovered,
  googleCalendarUrl,
  mapUrl,
  outlookUrl,
  safeUrl,
  subscribeLinks,
  timeText,
  whenText,
  type DayView,
  type ListView,
  type MonthView,
  type PageMeta,
  type Subscription,
} from './view-helpers.js';
export type { EventExtras } from './record-views.js';

/** Views bound to the site's settings and links. */
export function createViews(config: Config, links: Links) {
  const parts = createViewParts(config, links);
  const { url, layout, eventCard } = parts;

  return {
    layout,
    eventCard,
    /** The site's date and time formats in force. */
    formats: parts.formats,

    list: (v: ListView): string => listView(parts, v),
    month: (v: MonthView): string => monthView(parts, v),
    day: (v: DayView): string => dayView(parts, v),
    event: (e: PublicEvent, meta: PageMeta, extra?: EventExtras): string => eventView(parts, e, meta, extra),
    protectedEvent: (e: PublicEvent, meta: PageMeta, action: string, wrong: boolean): string => protectedEventView(parts, e, meta, action, wrong),
    linked: (kind: 'venue' | 'organizer', record: PublicVenue | PublicOrganizer, page: EventsPage, meta: PageMeta, pageUrl: (n: number) => string, subscription: Subscription): string =>
      linkedView(parts, kind, record, page, meta, pageUrl, subscription),

    notFound(requested: string): string {
      const main = html`<h1>Page not found</h1>
<p>There is nothing at this address. The event may have been removed, or it is not published.</p>
<p><a href="${url('/events/')}">See the upcoming events</a></p>`;
      return layout({ title: 'Page not found', description: 'There is nothing at this address.', canonical: requested, noindex: true }, main);
    },

    unavailable(): string {
      const main = html`<h1>The calendar is unavailable</h1>
<p>The calendar cannot be read right now. Please try again in a moment.</p>`;
      return layout({ title: 'Unavailable', description: 'The calendar cannot be read right now.', canonical: url('/events/'), noindex: true }, main);
    },
  };
}

export type Views = ReturnType<typeof createViews>;

/** The stylesheet: small, responsive (the month grid becomes a list on narrow screens), no JavaScript needed. */
export const STYLESHEET = `:root{--fg:#1d2327;--muted:#50575e;--accent:#1d4ed8;--line:#d0d5dd;--bg:#fff;--soft:#f3f5f8;--today:#fff7d6}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.site-header,.site-footer,main{max-width:72rem;margin:0 auto;padding:1rem}
.site-header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;border-bottom:1px solid var(--line)}
.site-name{margin:0;font-size:1.25rem;font-weight:700}.site-name a{color:var(--fg);text-decoration:none}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:1rem}
.site-footer{color:var(--muted);font-size:.875rem;border-top:1px solid var(--line);margin-top:2rem}
h1{font-size:1.75rem;line-height:1.2}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
.search input{flex:1 1 14rem;padding:.5rem;border:1px solid var(--muted);border-radius:4px;font:inherit}
.search button{padding:.5rem 1rem;border:0;border-radius:4px;background:var(--accent);color:#fff;font:inherit;cursor:pointer}
.events{display:grid;gap:1rem}
.event{border:1px solid var(--line);border-radius:6px;padding:1rem}
.event.featured{border-left:4px solid var(--accent)}
.event h2,.event h3{margin:0 0 .25rem;font-size:1.2rem}
.event p{margin:.25rem 0}.when{color:var(--muted)}
.terms{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem}
.terms a{display:inline-block;padding:0 .5rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:.875rem}
.pager ul{justify-content:space-between;margin:1.5rem 0}
.subscribe,.add-to-calendar{margin-top:2rem}.subscribe ul,.add-to-calendar ul{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;list-style:none;padding:0}
table.month{width:100%;border-collapse:collapse;table-layout:fixed}
table.month caption{position:absolute;left:-9999px}
table.month th{padding:.25rem;background:var(--soft);border:1px solid var(--line)}
table.month abbr{text-decoration:none}
table.month td{vertical-align:top;height:7rem;padding:.25rem;border:1px solid var(--line);overflow:hidden}
table.month td.other-month{background:var(--soft)}
table.month td.other-month .day-number{color:var(--muted)}
table.month td.today{background:var(--today)}
table.month ul{list-style:none;margin:.25rem 0 0;padding:0;font-size:.8rem}
table.month li{margin-bottom:.2rem;overflow-wrap:anywhere}
table.month li a{display:inline-block;min-width:24px;min-height:24px}
.day-number{font-weight:700;text-decoration:none}
.time{color:var(--muted)}
.more{font-size:.8rem}
.event-single .description{margin:1rem 0}
.event-single img{max-width:100%;height:auto}
.post-password-form input{padding:.5rem;border:1px solid var(--muted);border-radius:4px;font:inherit;max-width:100%}
.post-password-form button{padding:.5rem 1rem;border:0;border-radius:4px;background:var(--accent);color:#fff;font:inherit;cursor:pointer}
.password-wrong{color:#b32d2e;font-weight:700}
.event img.picture{display:block;width:100%;max-width:300px;height:auto;margin:.5rem 0;border-radius:4px}
.month img.thumb{display:block;width:2.5rem;height:2.5rem;object-fit:cover;border-radius:3px;margin-bottom:.125rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:700}dd{margin:0}
dd .terms{margin:0}
address{font-style:normal}
@media (max-width:40rem){
table.month,table.month tbody,table.month tr,table.month td{display:block;width:100%}
table.month thead{display:none}
table.month td{height:auto;border-width:0 0 1px}
table.month td:not(.has-events){display:none}
dl{grid-template-columns:1fr}
}
${SERIES_STYLES}`;
