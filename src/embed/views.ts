/**
 * The embed face's HTML: the iframe view (`/embed/`: list, upcoming or month, no script, times in
 * each event's own zone with its abbreviation, links opening in the top window) and the snippet
 * generator (`/embed/snippet`: a GET form, the three snippets in read-only text areas, previews).
 */
import { plusDays } from '../domain/dates/wall.js';
import { monthGrid } from '../domain/month-grid.js';
import { costShown } from '../domain/representations/event.js';
import { html, Html } from './html.js';
import { messagesFor, plural, type Locale } from './messages.js';
import { componentAttributes, iframeQuery, type EmbedOptions } from './options.js';
import type { EmbedEvent } from './reader.js';

const MAX_PER_DAY = 3;

const VIEW_CSS = `
:root{color-scheme:light;--accent:#1a56a8;--muted:#555;--border:#c8c8c8}
body{font:16px/1.45 system-ui,sans-serif;margin:0;padding:.75rem;color:#1b1b1b;background:#fff}
a{color:var(--accent)}a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
h1{font-size:1.2rem;margin:0 0 .5rem}h2{font-size:1rem;margin:1rem 0 .3rem;color:var(--muted)}
ul{list-style:none;margin:0;padding:0}li.event{padding:.4rem 0;border-bottom:1px solid var(--border);display:flex;flex-wrap:wrap;gap:.15rem .8rem}
.name{font-weight:600}.meta{color:var(--muted);font-size:.92rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
nav{display:flex;justify-content:space-between;align-items:center;margin-bottom:.5rem}
nav a{display:inline-block;padding:.5rem .75rem;min-width:44px;text-align:center}
table{border-collapse:collapse;width:100%;table-layout:fixed}th{font-size:.85rem;color:var(--muted);padding:.25rem 0}
td{border:1px solid var(--border);vertical-align:top;height:5rem;padding:.2rem;overflow:hidden}td.other{color:#6b6b6b}td.today{background:#fff4c2}
.num{font-size:.85rem;font-weight:600}.chip{display:block;font-size:.8rem;margin-top:.15rem;padding:.1rem .3rem;border-radius:3px;background:#e8effa;color:#0f2f5e;text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.more{font-size:.8rem;color:var(--muted)}
@media (max-width:520px){td{height:auto}.chip{white-space:normal}th{font-size:.7rem}}
`;

/** The Content-Security-Policy of the iframe view: no script, frameable by any site. */
export const VIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors *";

/** Formatters by locale and options (a few shapes): building one costs more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { ...options, timeZone: 'UTC' })));
  return f;
}
/** A wall time (`YYYY-MM-DD[ HH:MM:SS]`, the year of any length: a month grid of 9999-12 reaches into 10000) formatted. */
const fmt = (locale: Locale, wall: string, options: Intl.DateTimeFormatOptions) => {
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = wall.split(/[-T: ]/).map(Number);
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second));
  // Set apart: Date.UTC reads the years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  return formatter(locale, options).format(date);
};
const longDay = (locale: Locale, day: string) => fmt(locale, day, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const hm = (locale: Locale, wall: string) => fmt(locale, wall, { hour: '2-digit', minute: '2-digit' });

/** Titles and names come rendered (entities); the template escapes again, so decode first. */
function text(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (all, name: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
    if (name[0] !== '#') return named[name.toLowerCase()] ?? all;
    const code = name[1]!.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/**
 * The days of the grid (`within`) an event covers (an end at midnight does not cover that day),
 * however long before the grid it began.
 */
function daysOf(e: EmbedEvent, within: { from: string; until: string }): string[] {
  const start = e.start_date.slice(0, 10);
  let last = e.end_date.slice(0, 10);
  if (!e.all_day && e.end_date.slice(11) === '00:00:00' && e.end_date > e.start_date) last = plusDays(last, -1);
  if (last < start) last = start;
  const first = start < within.from ? within.from : start;
  if (last > within.until) last = within.until;
  const out: string[] = [];
  for (let d = first; d <= last && out.length < 62; d = plusDays(d, 1)) out.push(d);
  return out;
}

function timeText(locale: Locale, e: EmbedEvent): string {
  const m = messagesFor(locale);
  if (e.all_day) return m.allDay;
  const sameDay = e.start_date.slice(0, 10) === e.end_date.slice(0, 10);
  const end = sameDay ? hm(locale, e.end_date) : `${fmt(locale, e.end_date, { day: 'numeric', month: 'short' })} ${hm(locale, e.end_date)}`;
  return `${hm(locale, e.start_date)} – ${end}${e.timezone_abbr ? ` ${e.timezone_abbr}` : ''}`;
}

function page(locale: Locale, title: string, body: Html): string {
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<base target="_top">
<style>${new Html(VIEW_CSS)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}

function eventItem(locale: Locale, e: EmbedEvent, compact: boolean): Html {
  const venue = Array.isArray(e.venue) ? '' : [text(e.venue.venue), e.venue.city ?? ''].filter(Boolean).join(', ');
  const when = compact ? `${fmt(locale, e.start_date, { weekday: 'short', day: 'numeric', month: 'short' })}, ${timeText(locale, e)}` : timeText(locale, e);
  return html`<li class="event"><a class="name" href="${e.url}">${text(e.title)}</a> <span class="meta">${when}</span>${
    compact
      ? ''
      : html`${venue ? html` <span class="meta">${venue}</span>` : ''}${e.cost ? html` <span class="meta">${text(costShown(e))}</span>` : ''}${e.categories.length ? html` <span class="meta">${e.categories.map((c) => text(c.name)).join(', ')}</span>` : ''}`
  }</li>`;
}

/** The list and upcoming views. */
export function listView(site: string, o: EmbedOptions, locale: Locale, events: EmbedEvent[], today: string): string {
  const m = messagesFor(locale);
  let body: Html;
  if (events.length === 0) body = html`<p>${m.empty}</p>`;
  else if (o.view === 'upcoming') body = html`<ul>${events.map((e) => eventItem(locale, e, true))}</ul>`;
  else {
    const byDay = new Map<string, EmbedEvent[]>();
    for (const e of events) {
      const day = e.start_date.slice(0, 10) < today ? today : e.start_date.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), e]);
    }
    body = html`${[...byDay].map(([day, list]) => html`<h2>${longDay(locale, day)}</h2><ul>${list.map((e) => eventItem(locale, e, false))}</ul>`)}`;
  }
  return page(locale, `${m.upcoming} – ${site}`, html`<h1>${m.upcoming}</h1>${body}`);
}

/** The month view: a grid from the site's first day of the week (`weekStart`), with previous/next links (in the frame). */
export function monthView(site: string, o: EmbedOptions, locale: Locale, month: string, events: EmbedEvent[], today: string, weekStart: string): string {
  const m = messagesFor(locale);
  const { first, gridStart, gridEnd } = monthGrid(month, weekStart);
  const byDay = new Map<string, EmbedEvent[]>();
  const within = { from: gridStart.toFormat('yyyy-MM-dd'), until: gridEnd.toFormat('yyyy-MM-dd') };
  let inMonth = false;
  for (const e of events)
    for (const d of daysOf(e, within)) {
      const list = byDay.get(d);
      if (list) list.push(e);
      else byDay.set(d, [e]);
      if (d.startsWith(month)) inMonth = true;
    }
  const title = fmt(locale, `${month}-01`, { month: 'long', year: 'numeric' });
  const prev = first.minus({ months: 1 }).toFormat('yyyy-MM');
  const next = first.plus({ months: 1 }).toFormat('yyyy-MM');
  const weeks: Html[] = [];
  for (let w = gridStart; w <= gridEnd; w = w.plus({ days: 7 })) {
    const cells: Html[] = [];
    for (let i = 0; i < 7; i++) {
      const day = w.plus({ days: i }).toFormat('yyyy-MM-dd');
      const list = byDay.get(day) ?? [];
      const cls = [day.startsWith(month) ? '' : 'other', day === today ? 'today' : ''].filter(Boolean).join(' ');
      const count = list.length ? plural(m.events, list.length, locale) : m.noEvents;
      cells.push(
        html`<td${cls ? html` class="${cls}"` : ''}><span class="num" aria-hidden="true">${Number(day.slice(8))}</span><span class="sr">${longDay(locale, day)}, ${count}</span>${list
          .slice(0, MAX_PER_DAY)
          .map((e) => html`<a class="chip" href="${e.url}">${e.all_day || e.start_date.slice(0, 10) !== day ? '' : `${hm(locale, e.start_date)} `}${text(e.title)}</a>`)}${
          list.length > MAX_PER_DAY ? html`<span class="more">${m.more.replace('{n}', String(list.length - MAX_PER_DAY))}</span>` : ''
        }</td>`,
      );
    }
    weeks.push(html`<tr>${cells}</tr>`);
  }
  const heads = [0, 1, 2, 3, 4, 5, 6].map((i) => {
    const d = gridStart.plus({ days: i }).toFormat('yyyy-MM-dd');
    return html`<th scope="col" abbr="${fmt(locale, d, { weekday: 'long' })}">${fmt(locale, d, { weekday: 'short' })}</th>`;
  });
  // No link past the last month a view takes (9999-12).
  const nextLink = next.length === 7 ? html`<a href="./${iframeQuery(o, [['month', next]])}" target="_self" rel="next" aria-label="${m.next}">›</a>` : '';
  const body = html`<nav aria-label="${title}"><a href="./${iframeQuery(o, [['month', prev]])}" target="_self" rel="prev" aria-label="${m.previous}">‹</a><h1 id="month-title">${title}</h1>${nextLink}</nav>
<table aria-labelledby="month-title"><thead><tr>${heads}</tr></thead><tbody>${weeks}</tbody></table>${inMonth ? '' : html`<p>${m.emptyMonth}</p>`}`;
  return page(locale, `${title} – ${site}`, body);
}

/** A page for a request the view cannot answer (400) or a database fault (503). */
export function messageView(locale: Locale, title: string, message: string): string {
  return page(locale, title, html`<h1>${title}</h1><p>${message}</p>`);
}

export interface SnippetAssets {
  /** the stable URL and the hashed one, absolute */
  stable: string;
  hashed: string;
  integrity: string;
}

/** A script tag of the snippet: a served file and its SRI hash. */
export interface SnippetScript {
  /** absolute URL */
  src: string;
  integrity: string;
}

/** The three snippets for these options: the component, the iframe and FullCalendar's code. */
export interface SnippetTexts {
  component: string;
  iframe: string;
  /** the iframe view's URL (the preview) */
  iframeSrc: string;
  fullcalendar: string;
  /** the component's attributes, as written in `component` */
  attrText: string;
}

/**
 * The snippets for these options. FullCalendar's is paste-ready: the global build's script tags
 * (served by this service, with their SRI hashes), then a few lines that make the calendar with
 * the chosen locale and first day of the week, reading this service's event source.
 *
 * @example snippetTexts('https://cal.example', 'Town', optionsOf({ view: 'month' }), 'en', undefined, 1, scripts).fullcalendar
 */
export function snippetTexts(site: string, siteName: string, o: EmbedOptions, locale: Locale, assets: SnippetAssets | undefined, firstDay: number, scripts: SnippetScript[]): SnippetTexts {
  const m = messagesFor(locale);
  const attrs = componentAttributes(o, site, firstDay);
  const attrText = attrs.map(([k, v]) => (v === '' ? ` ${k}` : ` ${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`)).join('');
  const component = assets ? `<script type="module" src="${assets.hashed}" integrity="${assets.integrity}" crossorigin="anonymous"></script>\n<events-calendar${attrText}></events-calendar>` : '';
  const iframeSrc = `${site}/embed/${iframeQuery(o)}`;
  const iframe = `<iframe src="${iframeSrc.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" title="${m.calendar.replace(/"/g, '&quot;')} – ${siteName.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" width="100%" height="${o.view === 'month' ? 720 : 600}" style="border:0" loading="lazy"></iframe>`;
  const params = new URLSearchParams();
  for (const [k, v] of attrs)
    if (['category', 'tag', 'venue', 'organizer', 'search', 'featured'].includes(k)) params.set(k === 'category' ? 'categories' : k === 'tag' ? 'tags' : k, k === 'featured' ? '1' : v);
  const fcQuery = params.toString();
  // JSON in a script: `<` escaped, so a search text can never close the script element.
  const js = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  const tags = scripts.map((s) => `<script src="${s.src}" integrity="${s.integrity}" crossorigin="anonymous"></script>`).join('\n');
  const fullcalendar = `<div id="events-calendar"></div>
${tags}
<script>
document.addEventListener('DOMContentLoaded', function () {
  var calendar = new FullCalendar.Calendar(document.getElementById('events-calendar'), {
    initialView: '${o.view === 'month' ? 'dayGridMonth' : 'listMonth'}',
    firstDay: ${firstDay},${o.locale ? `\n    locale: '${o.locale}',` : ''}
    headerToolbar: { left: 'prev,next today', center: 'title', right: 'dayGridMonth,listMonth' },
    events: { url: '${site}/wp-json/calendar/embed/v1/fullcalendar'${fcQuery ? `, extraParams: ${js(Object.fromEntries(params))}` : ''} },
  });
  calendar.render();
});
</script>`;
  return { component, iframe, iframeSrc, fullcalendar, attrText };
}

/** The snippet generator page. */
export function snippetPage(site: string, siteName: string, o: EmbedOptions, locale: Locale, assets: SnippetAssets | undefined, firstDay: number, scripts: SnippetScript[]): string {
  const m = messagesFor(locale);
  const { component, iframe, iframeSrc, fullcalendar, attrText } = snippetTexts(site, siteName, o, locale, assets, firstDay, scripts);
  const weekday = (d: number) => new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 7 + d)));
  const option = (value: string, label: string, current: string | undefined) => html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  const field = (name: string, label: string, value: string, type = 'text', extra: Html | string = '') =>
    html`<p><label for="f-${name}">${label}</label><br><input id="f-${name}" name="${name}" type="${type}" value="${value}"${extra}></p>`;
  const f = o.filter;
  const textarea = (id: string, label: string, value: string, rows: number) =>
    html`<h2 id="${id}-h">${label}</h2><textarea id="${id}" aria-labelledby="${id}-h" readonly rows="${rows}" spellcheck="false">${value}</textarea>`;
  const body = html`<h1>${m.snippetTitle}</h1>
<p>${m.snippetIntro}</p>
${o.invalid.length ? html`<p role="alert" class="warn">${m.invalid.replace('{names}', o.invalid.join(', '))}</p>` : ''}
<form method="get" action="./snippet" target="_self">
<fieldset><legend>${m.options}</legend>
<p><label for="f-view">${m.view}</label><br><select id="f-view" name="view">${option('list', m.viewList, o.view)}${option('month', m.viewMonth, o.view)}${option('upcoming', m.viewUpcoming, o.view)}</select></p>
${field('category', m.category, f.categories?.join(',') ?? '')}
${field('tag', m.tag, f.tags?.join(',') ?? '')}
${field('venue', m.venue, f.venue?.join(',') ?? '', 'text', html` inputmode="numeric"`)}
${field('organizer', m.organizer, f.organizer?.join(',') ?? '', 'text', html` inputmode="numeric"`)}
<p><input id="f-featured" name="featured" type="checkbox" value="1"${f.featured ? html` checked` : ''}> <label for="f-featured">${m.featured}</label></p>
${field('search', m.search, f.search ?? '', 'search')}
${field('limit', m.limit, o.limit === undefined ? '' : String(o.limit), 'number', html` min="1" max="100"`)}
<p><label for="f-locale">${m.locale}</label><br><select id="f-locale" name="locale">${option('', m.localeAuto, o.locale ?? '')}${option('en', 'English', o.locale)}${option('fr', 'Français', o.locale)}</select></p>
<p><label for="f-first-day">${m.firstDay}</label><br><select id="f-first-day" name="first-day">${[0, 1, 2, 3, 4, 5, 6].map((d) => option(String(d), weekday(d), String(firstDay)))}</select></p>
<p><label for="f-tz">${m.timeZone}</label><br><select id="f-tz" name="time-zone">${option('viewer', m.tzViewer, o.timeZone ?? 'viewer')}${option('event', m.tzEvent, o.timeZone)}</select></p>
${field('refresh', m.refresh, o.refresh === undefined ? '' : String(o.refresh), 'number', html` min="0"`)}
</fieldset>
<p><button type="submit">${m.make}</button></p>
</form>
${assets ? html`${textarea('snippet-component', m.componentSnippet, component, 4)}<p>${m.componentNote.replace('{stable}', assets.stable)}</p>` : ''}
${textarea('snippet-iframe', m.iframeSnippet, iframe, 3)}
${textarea('snippet-fullcalendar', m.fullcalendarSnippet, fullcalendar, 18)}<p>${m.fullcalendarNote}</p>
<h2>${m.preview}</h2>
${assets ? html`<script type="module" src="${assets.hashed}" integrity="${assets.integrity}" crossorigin="anonymous"></script><events-calendar ${new Html(attrText.trim())}></events-calendar>` : ''}
<h2>${m.previewIframe}</h2>
<iframe src="${iframeSrc}" title="${m.previewIframe}" width="100%" height="${o.view === 'month' ? 720 : 600}" style="border:1px solid #c8c8c8" loading="lazy"></iframe>`;
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${m.snippetTitle} – ${siteName}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1b1b}textarea{width:100%;font:14px/1.4 ui-monospace,monospace}fieldset{border:1px solid #c8c8c8}input,select{font:inherit;min-height:2.2rem}input[type=text],input[type=search],input[type=number],select{width:100%;max-width:30rem}button{font:inherit;padding:.5rem 1rem;min-height:44px}a{color:#1a56a8}:focus-visible{outline:3px solid #1a56a8;outline-offset:2px}.warn{color:#a1001f}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}
