/**
 * The record pages: a single event or one occurrence of a recurring event (`/event/{slug}/[YYYY-MM-DD/]`),
 * a venue's or organizer's upcoming events (`/venue/{slug}/`, `/organizer/{slug}/`), and their feeds.
 */
import { plainText, type SafeHtml } from './html.js';
import { representedPassword } from '../domain/representations/protected.js';
import type { GivenPasswords } from '../domain/public-reader.js';
import { shownTitle } from './view-helpers.js';
import { previewBanner, seriesBlock, seriesIdOf } from './series-views.js';
import { seriesOnce } from './list-pages.js';
import type { EventFilter, PublicEvent } from './calendar.js';
import type { PageMeta } from './views.js';
import { first, html, pageOf, slugFile, type Answer, type Format, type PageContext, type Query } from './page-context.js';

/**
 * An event's page or .ics: `(format, slug, day?, query?)`, `day` naming an occurrence of a recurring event;
 * the query's `preview` token opens an event not published yet (domain/previews.ts).
 */
export type EventAnswer = (format: Format, slug: string, day?: string, q?: Query, passwords?: GivenOnPage) => Promise<Answer>;

/** What the request's password cookie says: which passwords it gives, and whether it has one at all. */
export interface GivenOnPage {
  given: GivenPasswords;
  sent: boolean;
}

/** The event page's answer, keeping each page by the representation it was rendered from. */
export function createEventAnswer(ctx: PageContext): EventAnswer {
  const { calendar, config } = ctx;
  /** Event pages by the representation they were rendered from. */
  const eventPages = new WeakMap<PublicEvent, string>();
  return async (format, slug, day, q = {}, passwords) => {
    // `/event/{slug}/{YYYY-MM-DD}/`: an occurrence of a recurring event.
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day)) return { kind: 'not-found' };
    // The password cookie opens the page only: a feed, which a shared cache may keep, never shows protected content.
    const given = format === 'html' ? passwords?.given : undefined;
    const e = day === undefined ? await calendar.event(slug, given) : await calendar.occurrence(slug, day, given);
    if (!e && day === undefined && format === 'html' && q.preview !== undefined) {
      const preview = await calendar.preview(slug, first(q.preview));
      if (preview) return { ...html(previewPage(ctx, preview)), unlisted: true };
    }
    if (!e) {
      // A moved occurrence's old address: 301 to its new one (the `.ics` twin to its new `.ics`).
      const moved = day === undefined ? undefined : await calendar.movedOccurrence(slug, day);
      if (moved === undefined) return { kind: 'not-found' };
      return { kind: 'redirect', location: format === 'html' ? moved : `${moved}?${format === 'outlook' ? 'outlook-ical' : 'ical'}=1` };
    }
    if (format !== 'html') return { kind: 'ical', events: [e], name: config.siteName, filename: `${slugFile(e.slug)}.ics`, single: true };
    // A single event's page depends on its representation alone: kept per (kept) representation
    // object. An occurrence's shows its series' next dates too, read each time.
    // A protected event's page, with its password form or opened by the cookie, is for this reader only.
    if (e.protected) return privateHtml(protectedPage(ctx, e, passwords?.sent ?? false));
    const opened = representedPassword(e) !== '';
    const answer = (body: string): Answer => (opened ? privateHtml(body) : html(body));
    const seriesId = seriesIdOf(e);
    const kept = seriesId === undefined ? eventPages.get(e) : undefined;
    if (kept !== undefined) return answer(kept);
    const title = plainText(e.title);
    const text = plainText(e.excerpt || e.description);
    const meta: PageMeta = {
      title,
      description: (text || title).replace(/\s+/g, ' ').slice(0, 300),
      canonical: e.url,
      ogType: 'article',
      ...(e.image ? { image: e.image.url } : {}),
      ics: ctx.withIcal(e.url),
    };
    if (seriesId !== undefined) return answer(ctx.views.event(e, meta, { series: await otherDates(ctx, e, seriesId) }));
    const body = ctx.views.event(e, meta);
    eventPages.set(e, body);
    return answer(body);
  };
}

/** A page for whoever asked only (never kept by a shared cache). */
const privateHtml = (body: string): Answer => ({ kind: 'html', status: 200, body, unlisted: true });

/** A protected event's page before its password is given: the form, posting to the page itself. */
function protectedPage(ctx: PageContext, e: PublicEvent, wrong: boolean): string {
  const title = shownTitle(e);
  const meta: PageMeta = { title, description: title, canonical: e.url, ogType: 'article', noindex: true };
  return ctx.views.protectedEvent(e, meta, e.url, wrong);
}

/** A draft's page seen through its signed link: the banner, never indexed, canonical its future address. */
function previewPage(ctx: PageContext, e: PublicEvent): string {
  const title = plainText(e.title);
  const meta: PageMeta = { title, description: title, canonical: e.url, ogType: 'article', noindex: true };
  return ctx.views.event(e, meta, { banner: previewBanner() });
}

/** How many of a series' next dates an occurrence's page links to. */
export const OTHER_DATES = 5;

/** An occurrence's (or series') section of its series' next dates, this one left out. */
export async function otherDates(ctx: PageContext, e: PublicEvent, seriesId: number): Promise<SafeHtml> {
  const next = await ctx.calendar.upcoming({ series: seriesId }, 1, OTHER_DATES + 1);
  const others = next.events.filter((o) => o.id !== e.id).slice(0, OTHER_DATES);
  return seriesBlock(e, others, ctx.views.formats());
}

/** A venue's or organizer's page (its upcoming events) or feed. */
export async function linkedAnswer(ctx: PageContext, format: Format, kind: 'venue' | 'organizer', slug: string, q: Query, pageParam: unknown): Promise<Answer> {
  const { calendar, config, url } = ctx;
  const record = kind === 'venue' ? await calendar.venue(slug) : await calendar.organizer(slug);
  if (!record) return { kind: 'not-found' };
  const filter: EventFilter = kind === 'venue' ? { venue: [record.id] } : { organizer: [record.id] };
  const name = plainText(kind === 'venue' ? (record as { venue: string }).venue : (record as { organizer: string }).organizer);
  if (format !== 'html')
    return { kind: 'ical', events: (await calendar.upcoming(filter, 1, config.icalMaxEvents)).events, name: `${config.siteName} – ${name}`, filename: `${slugFile(record.slug)}.ics` };
  const page = pageOf(pageParam ?? q.page);
  if (page === undefined) return { kind: 'not-found' };
  if (seriesOnce(ctx, q).value) filter.firstOfSeries = true;
  const result = await calendar.upcoming(filter, page);
  const path = `/${kind}/${encodeURIComponent(record.slug)}/`;
  const pageUrl = (n: number) => url(path) + (n > 1 ? `?page=${n}` : '');
  const meta: PageMeta = {
    title: name,
    description: (plainText(record.description ?? '') || `Upcoming events of ${name}.`).replace(/\s+/g, ' ').slice(0, 300),
    canonical: pageUrl(page),
    ...(record.image ? { image: record.image.url } : {}),
    ics: ctx.withIcal(url(path)),
  };
  return html(ctx.views.linked(kind, record, result, meta, pageUrl, ctx.subscription(`${config.siteName} – ${name}`, filter)));
}
