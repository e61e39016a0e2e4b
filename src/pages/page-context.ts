/**
 * What the calendar's page and feed routes share: the `Answer` a request computes, the query
 * argument readers, and the per-application context (calendar, views, URLs, filters) each page's
 * answer is computed with.
 */
import type { Services } from '../domain/services.js';
import type { SeriesFeed } from '../domain/ical.js';
import { createCalendar, type Calendar, type EventFilter, type PublicEvent } from './calendar.js';
import { createViews, type Subscription, type Views } from './views.js';
import { givenByCookie, passwordCookieName, passwordCookieValue } from '../domain/post-password-cookie.js';
import type { GivenPasswords } from '../domain/public-reader.js';
import { cookieOf } from '../web/sessions.js';

/** The pages' password cookie (WordPress' wp-postpass_…): its name, what a request's says, and its value for a password. */
export interface PagePasswords {
  cookieName: string;
  /** The request's cookie value ('' without one). */
  cookieOf(cookieHeader: string | undefined): string;
  /** Which passwords the request's cookie says were given. */
  given(cookieHeader: string | undefined): Promise<GivenPasswords>;
  /** The cookie's value for a password typed in the form. */
  valueOf(password: string): Promise<string>;
}

/** What a page or feed request answers: a page, a feed, or not found. */
export type Answer =
  | { kind: 'html'; status: number; body: string; /** for whoever holds the URL only: never kept by a shared cache */ unlisted?: boolean }
  | {
      kind: 'ical';
      events: PublicEvent[];
      name: string;
      filename: string;
      /** one event's own .ics: an occurrence stays that occurrence (no series) */
      single?: boolean;
      /** the series of recurring events' occurrences, filled in before writing */
      series?: Map<number, SeriesFeed>;
    }
  | { kind: 'not-found' }
  /** a permanent redirect (a moved occurrence's old address) */
  | { kind: 'redirect'; location: string };

/** What `/events.ics` answers to invalid arguments. */
export type BadRequest = { kind: 'bad-request'; message: string };

export type Query = Record<string, unknown>;

/** Which representation a request asks for: `?ical=1`, `?outlook-ical=1`, or a path ending in `/ical`. */
export type Format = 'html' | 'ical' | 'outlook';

export const first = (v: unknown): string | undefined => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
export const truthy = (v: unknown) => {
  const s = first(v);
  return s !== undefined && s !== '' && s !== '0' && s !== 'false';
};
/** A list argument: `a,b`, `a[]=x&a[]=y`. */
export function listOf(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return items
    .flatMap((x) => (typeof x === 'string' || typeof x === 'number' ? String(x).split(',') : []))
    .map((s) => s.trim())
    .filter(Boolean);
}
export const idsOf = (v: unknown) =>
  listOf(v)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
export const pageOf = (v: unknown) => {
  const n = Number(first(v) ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};
export const slugFile = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'events';

export const html = (body: string, status = 200): Answer => ({ kind: 'html', status, body });

/** The calendar's pages' shared state and helpers, made once per application. */
export interface PageContext {
  services: Services;
  config: Services['config'];
  calendar: Calendar;
  views: Views;
  /** The site's base URL. */
  site: string;
  /** An absolute URL of a site path. */
  url(path: string): string;
  /** The site name as a file name (the feeds' file names start with it). */
  siteFile: string;
  /** The query of a filter, as page links carry it. */
  filterQuery(f: EventFilter, extra?: Array<[string, string]>): string;
  /** The /events.ics subscription of a filter (the REST list's argument names). */
  subscription(name: string, f?: EventFilter): Subscription;
  withIcal(pageUrl: string): string;
  /** The filter a page's query asks for, added to the page's own. */
  filterOf(q: Query, base?: EventFilter): EventFilter;
  passwords: PagePasswords;
}

export function createPageContext(services: Services): PageContext {
  const calendar = createCalendar(services);
  const { config, links } = services;
  const views = createViews(config, links);
  const site = links.siteUrl;
  const url = (path: string) => `${site}${path}`;

  function filterQuery(f: EventFilter, extra: Array<[string, string]> = []): string {
    const p = new URLSearchParams();
    if (f.categories?.length) p.set('category', f.categories.join(','));
    if (f.tags?.length) p.set('tag', f.tags.join(','));
    if (f.search) p.set('search', f.search);
    for (const [k, v] of extra) p.set(k, v);
    const s = p.toString();
    return s ? `?${s}` : '';
  }
  function subscription(name: string, f: EventFilter = {}): Subscription {
    const p = new URLSearchParams();
    if (f.categories?.length) p.set('categories', f.categories.join(','));
    if (f.tags?.length) p.set('tags', f.tags.join(','));
    if (f.search) p.set('search', f.search);
    if (f.venue?.length) p.set('venue', f.venue.join(','));
    if (f.organizer?.length) p.set('organizer', f.organizer.join(','));
    const s = p.toString();
    return { feed: url(`/events.ics${s ? `?${s}` : ''}`), name };
  }
  const withIcal = (pageUrl: string) => `${pageUrl}${pageUrl.includes('?') ? '&' : '?'}ical=1`;

  function filterOf(q: Query, base: EventFilter = {}): EventFilter {
    const f: EventFilter = { ...base };
    const categories = [...(base.categories ?? []), ...listOf(q.category), ...listOf(q.categories)];
    const tags = [...(base.tags ?? []), ...listOf(q.tag), ...listOf(q.tags)];
    if (categories.length) f.categories = [...new Set(categories)];
    if (tags.length) f.tags = [...new Set(tags)];
    const search = first(q.search) ?? first(q['tribe-bar-search']);
    if (search !== undefined && search.trim() !== '') f.search = search.trim().slice(0, 200);
    return f;
  }

  let key: Promise<Buffer> | undefined;
  const keyOf = () => (key ??= services.passwordCookieKey().catch((err: unknown) => ((key = undefined), Promise.reject(err as Error))));
  const cookieName = passwordCookieName(site);
  const passwords: PagePasswords = {
    cookieName,
    cookieOf: (header) => cookieOf(header, cookieName) ?? '',
    async given(header) {
      const value = cookieOf(header, cookieName);
      return value ? givenByCookie(await keyOf(), value) : () => false;
    },
    valueOf: async (password) => passwordCookieValue(await keyOf(), password),
  };

  return { services, config, calendar, views, site, url, siteFile: slugFile(config.siteName), filterQuery, subscription, withIcal, filterOf, passwords };
}
