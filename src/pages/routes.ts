/**
 * The public calendar at the permalinks the API's `url` fields name, outside the REST root:
 *
 *   /events/, /events/list/ (+ /page/N/, ?page=N, ?eventDisplay=past), /events/month/[YYYY-MM/],
 *   /events/YYYY-MM-DD/, /events/today/, /event/{slug}/, /venue/{slug}/, /organizer/{slug}/,
 *   /events/category/{slug}/, /events/tag/{slug}/ (+ /page/N/) — HTML pages;
 *   the same with `?ical=1`, `?outlook-ical=1`, `/ical/` appended, or `?ical=1&event_ids=1,2,3`
 *   — iCalendar; /events.ics (the REST list's filters) — iCalendar for subscriptions;
 *   /events-calendar.css — the stylesheet.
 *
 * Each request's handler computes one `Answer` from the calendar (`calendar.ts`), which `send` then
 * renders as HTML or iCalendar (the one place a response version could later be attached). Unknown, trashed and unpublished records get the HTML 404 page.
 *
 * @example registerCalendarPages(app, services)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { faultError } from '../domain/errors.js';
import { wallToUtc } from '../domain/dates/index.js';
import { answerConditional, etagOf, isNotModified, type Validators } from '../web/conditional.js';
import type { Services } from '../domain/services.js';
import { storeFault } from '../store/faults.js';
import { icalendar, ICAL_CONTENT_TYPE, type SeriesFeed } from './ical.js';
import { createCalendar, isPageNotFound, type EventFilter, type PublicEvent } from './calendar.js';
import { plainText } from './html.js';
import { createViews, STYLESHEET, STYLESHEET_PATH, type PageMeta, type Subscription } from './views.js';

/** What a page or feed request answers: a page, a feed, or not found. */
export type Answer =
  | { kind: 'html'; status: number; body: string }
  | {
      kind: 'ical';
      events: PublicEvent[];
      name: string;
      filename: string;
      /** one event's own .ics: an occurrence stays that occurrence (no series, issue 15) */
      single?: boolean;
      /** the series of recurring events' occurrences, filled in before writing (issue 15) */
      series?: Map<number, SeriesFeed>;
    }
  | { kind: 'not-found' };

type Query = Record<string, unknown>;

/** Which representation a request asks for: `?ical=1`, `?outlook-ical=1`, or a path ending in `/ical`. */
type Format = 'html' | 'ical' | 'outlook';

const first = (v: unknown): string | undefined => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const truthy = (v: unknown) => {
  const s = first(v);
  return s !== undefined && s !== '' && s !== '0' && s !== 'false';
};
/** A list argument: `a,b`, `a[]=x&a[]=y`. */
function listOf(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return items
    .flatMap((x) => (typeof x === 'string' || typeof x === 'number' ? String(x).split(',') : []))
    .map((s) => s.trim())
    .filter(Boolean);
}
const idsOf = (v: unknown) =>
  listOf(v)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
const pageOf = (v: unknown) => {
  const n = Number(first(v) ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};
const slugFile = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'events';

export function registerCalendarPages(app: FastifyInstance, services: Services): void {
  const calendar = createCalendar(services);
  const { config, links } = services;
  const views = createViews(config, links);
  const site = links.siteUrl;
  const url = (path: string) => `${site}${path}`;
  const siteFile = slugFile(config.siteName);
  /** Event pages by the representation they were rendered from (see eventAnswer). */
  const eventPages = new WeakMap<PublicEvent, string>();

  /** The query of a filter, as page links carry it. */
  function filterQuery(f: EventFilter, extra: Array<[string, string]> = []): string {
    const p = new URLSearchParams();
    if (f.categories?.length) p.set('category', f.categories.join(','));
    if (f.tags?.length) p.set('tag', f.tags.join(','));
    if (f.search) p.set('search', f.search);
    for (const [k, v] of extra) p.set(k, v);
    const s = p.toString();
    return s ? `?${s}` : '';
  }
  /** The /events.ics subscription of a filter (the REST list's argument names). */
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

  const html = (body: string, status = 200): Answer => ({ kind: 'html', status, body });

  /** A list page (upcoming or past), its feed, or 404 past the last page. */
  async function listAnswer(
    format: Format,
    q: Query,
    pageParam: unknown,
    base: { path: string; filter?: EventFilter; heading?: string; intro?: string; title?: string; feedName?: string },
  ): Promise<Answer> {
    const filter = filterOf(q, base.filter);
    /** What the request added to the page's own filter: carried by its links. */
    const asked = filterOf(q);
    const past = first(q.eventDisplay) === 'past';
    const name = base.feedName ?? config.siteName;
    if (format !== 'html') {
      const events = past ? (await calendar.past(filter, 1)).events : (await calendar.upcoming(filter, 1, config.icalMaxEvents)).events;
      return { kind: 'ical', events, name, filename: `${siteFile}-${slugFile(base.path)}.ics` };
    }
    const page = pageOf(pageParam ?? q.page);
    if (page === undefined) return { kind: 'not-found' };
    const result = past ? await calendar.past(filter, page) : await calendar.upcoming(filter, page);
    const keep: Array<[string, string]> = past ? [['eventDisplay', 'past']] : [];
    const pageUrl = (n: number) => url(`${base.path}${n > 1 ? `page/${n}/` : ''}`) + filterQuery(asked, keep);
    const heading = base.heading ?? (past ? 'Past events' : filter.search ? 'Search results' : 'Upcoming events');
    const title = base.title ?? heading;
    const meta: PageMeta = {
      title: page > 1 ? `${title} – page ${page}` : title,
      description: base.intro ? plainText(base.intro).slice(0, 300) : `${past ? 'Past' : 'Upcoming'} events of ${config.siteName}.`,
      canonical: pageUrl(page),
      ics: withIcal(url(base.path) + filterQuery(asked, keep)),
      noindex: filter.search !== undefined,
    };
    return html(
      views.list({
        page: result,
        past,
        filter,
        heading,
        ...(base.intro ? { intro: base.intro } : {}),
        meta,
        pageUrl,
        otherUrl: url(base.path) + filterQuery(asked, past ? [] : [['eventDisplay', 'past']]),
        searchAction: url(base.path),
        subscription: subscription(name, filter),
      }),
    );
  }

  async function monthAnswer(format: Format, q: Query, month: string | undefined): Promise<Answer> {
    const m = month ?? calendar.today().slice(0, 7);
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(m)) return { kind: 'not-found' };
    const filter = filterOf(q);
    const firstDay = DateTime.fromISO(`${m}-01`, { zone: 'utc' });
    const from = firstDay.minus({ days: firstDay.weekday - 1 });
    const lastDay = firstDay.endOf('month');
    const until = lastDay.plus({ days: 7 - lastDay.weekday });
    const { events, total } = await calendar.between(format === 'html' ? from.toISODate()! : `${m}-01`, format === 'html' ? until.toISODate()! : lastDay.toISODate()!, filter);
    if (format !== 'html') return { kind: 'ical', events, name: `${config.siteName} – ${firstDay.toFormat('LLLL yyyy')}`, filename: `${siteFile}-${m}.ics` };
    const path = `/events/month/${m}/`;
    return html(
      views.month({
        month: m,
        today: calendar.today(),
        events,
        truncated: total > events.length,
        filter,
        meta: {
          title: `Events in ${firstDay.toFormat('LLLL yyyy')}`,
          description: `Events of ${config.siteName} in ${firstDay.toFormat('LLLL yyyy')}.`,
          canonical: url(path) + filterQuery(filter),
          ics: withIcal(url(path) + filterQuery(filter)),
        },
        monthUrl: (mm) => url(`/events/month/${mm}/`) + filterQuery(filter),
        dayUrl: (d) => url(`/events/${d}/`),
        subscription: subscription(config.siteName, filter),
      }),
    );
  }

  async function dayAnswer(format: Format, q: Query, day: string): Promise<Answer> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !DateTime.fromISO(day).isValid) return { kind: 'not-found' };
    const filter = filterOf(q);
    const { events } = await calendar.between(day, day, filter);
    const d = DateTime.fromISO(day, { zone: 'utc' });
    if (format !== 'html') return { kind: 'ical', events, name: `${config.siteName} – ${d.toFormat('d LLLL yyyy')}`, filename: `${siteFile}-${day}.ics` };
    const path = `/events/${day}/`;
    return html(
      views.day({
        day,
        events,
        meta: { title: `Events on ${d.toFormat('cccc d LLLL yyyy')}`, description: `Events of ${config.siteName} on ${d.toFormat('d LLLL yyyy')}.`, canonical: url(path), ics: withIcal(url(path)) },
        dayUrl: (x) => url(`/events/${x}/`),
        subscription: subscription(config.siteName, filter),
      }),
    );
  }

  async function eventAnswer(format: Format, slug: string, day?: string): Promise<Answer> {
    // `/event/{slug}/{YYYY-MM-DD}/`: an occurrence of a recurring event (issue 15).
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day)) return { kind: 'not-found' };
    const e = day === undefined ? await calendar.event(slug) : await calendar.occurrence(slug, day);
    if (!e) return { kind: 'not-found' };
    if (format !== 'html') return { kind: 'ical', events: [e], name: config.siteName, filename: `${slugFile(e.slug)}.ics`, single: true };
    // The page depends on the representation alone: kept per (kept) representation object.
    const kept = eventPages.get(e);
    if (kept !== undefined) return html(kept);
    const title = plainText(e.title);
    const text = plainText(e.excerpt || e.description);
    const meta: PageMeta = {
      title,
      description: (text || title).replace(/\s+/g, ' ').slice(0, 300),
      canonical: e.url,
      ogType: 'article',
      ...(e.image ? { image: e.image.url } : {}),
      ics: withIcal(e.url),
    };
    const body = views.event(e, meta);
    eventPages.set(e, body);
    return html(body);
  }

  async function linkedAnswer(format: Format, kind: 'venue' | 'organizer', slug: string, q: Query, pageParam: unknown): Promise<Answer> {
    const record = kind === 'venue' ? await calendar.venue(slug) : await calendar.organizer(slug);
    if (!record) return { kind: 'not-found' };
    const filter: EventFilter = kind === 'venue' ? { venue: [record.id] } : { organizer: [record.id] };
    const name = plainText(kind === 'venue' ? (record as { venue: string }).venue : (record as { organizer: string }).organizer);
    if (format !== 'html')
      return { kind: 'ical', events: (await calendar.upcoming(filter, 1, config.icalMaxEvents)).events, name: `${config.siteName} – ${name}`, filename: `${slugFile(record.slug)}.ics` };
    const page = pageOf(pageParam ?? q.page);
    if (page === undefined) return { kind: 'not-found' };
    const result = await calendar.upcoming(filter, page);
    const path = `/${kind}/${encodeURIComponent(record.slug)}/`;
    const pageUrl = (n: number) => url(path) + (n > 1 ? `?page=${n}` : '');
    const meta: PageMeta = {
      title: name,
      description: (plainText(record.description ?? '') || `Upcoming events of ${name}.`).replace(/\s+/g, ' ').slice(0, 300),
      canonical: pageUrl(page),
      ...(record.image ? { image: record.image.url } : {}),
      ics: withIcal(url(path)),
    };
    return html(views.linked(kind, record, result, meta, pageUrl, subscription(`${config.siteName} – ${name}`, filter)));
  }

  async function termAnswer(format: Format, taxonomy: 'category' | 'tag', slug: string, q: Query, pageParam: unknown): Promise<Answer> {
    const term = await calendar.term(taxonomy, slug);
    if (!term) return { kind: 'not-found' };
    const name = plainText(term.name);
    const base: EventFilter = taxonomy === 'category' ? { categories: [term.slug] } : { tags: [term.slug] };
    return listAnswer(format, q, pageParam, {
      path: `/events/${taxonomy}/${encodeURIComponent(term.slug)}/`,
      filter: base,
      heading: taxonomy === 'category' ? name : `Events tagged “${name}”`,
      ...(term.description ? { intro: plainText(term.description) } : {}),
      title: name,
      feedName: `${config.siteName} – ${name}`,
    });
  }

  /** `/events.ics`: the REST list's filters, for subscriptions. */
  async function feedAnswer(q: Query): Promise<Answer | { kind: 'bad-request'; message: string }> {
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
      if (value !== undefined && !calendar.isDateInput(value)) return { kind: 'bad-request', message: `Invalid parameter: ${name}` };
    }
    const { events } = await calendar.window(f, start, end);
    return { kind: 'ical', events, name: config.siteName, filename: `${siteFile}.ics` };
  }

  /**
   * The validators of a page or feed (issue 11): what it shows depends on the data (the change
   * log's position), on the day (upcoming events, today's view) and on the URL; the tag is made of
   * those, so a conditional GET is answered 304 before anything is read. `Last-Modified` is the
   * later of the last change and the start of the site's day.
   */
  async function validatorsOf(req: FastifyRequest): Promise<Validators> {
    const [position, databaseId] = await Promise.all([services.versions.position(), services.versions.databaseId()]);
    const today = calendar.today();
    const dayStart = wallToUtc(`${today} 00:00:00`, config.timezone);
    const lastModified = position.gmt !== undefined && position.gmt > dayStart ? position.gmt : dayStart;
    return { etag: etagOf(['page', databaseId, position.revision, today, req.url]), lastModified };
  }

  async function send(req: FastifyRequest, reply: FastifyReply, compute: () => Promise<Answer | { kind: 'bad-request'; message: string }>) {
    req.sitePage = true;
    let answer: Answer | { kind: 'bad-request'; message: string };
    let validators: Validators | undefined;
    try {
      validators = await validatorsOf(req);
      // Only a 200 carries these validators, so a client that has them had a 200 for this URL.
      if (isNotModified(req, validators) && answerConditional(req, reply, validators)) return reply;
      answer = await compute();
      // Recurring events (issue 15): a feed writes each series once, with its exceptions.
      if (answer.kind === 'ical' && !answer.single) answer = { ...answer, series: await calendar.seriesFeeds(answer.events) };
    } catch (err) {
      if (isPageNotFound(err)) answer = { kind: 'not-found' };
      else {
        const fault = storeFault(err);
        if (fault === undefined) throw err;
        req.log.warn({ fault, error: (err as Error).message }, 'database fault');
        const e = faultError(fault);
        return reply.code(e.status).headers(e.headers).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(views.unavailable());
      }
    }
    if (answer.kind === 'not-found')
      return reply
        .code(404)
        .header('content-type', 'text/html; charset=utf-8')
        .send(views.notFound(url(req.url.split('?')[0]!)));
    if (answer.kind === 'bad-request') return reply.code(400).header('content-type', 'text/plain; charset=utf-8').send(`${answer.message}\n`);
    if (answer.kind === 'html') {
      if (answer.status === 200 && validators) answerConditional(req, reply, validators);
      return reply.code(answer.status).header('content-type', 'text/html; charset=utf-8').send(answer.body);
    }
    if (validators) answerConditional(req, reply, validators);
    // A feed: never negotiated (calendar clients send no Accept), always text/calendar.
    const text = icalendar(answer.events, {
      name: answer.name,
      timezone: config.timezone,
      siteUrl: site,
      description: `Events of ${config.siteName}`,
      ...(answer.series ? { series: answer.series } : {}),
    });
    return reply.code(200).header('content-type', ICAL_CONTENT_TYPE).header('content-disposition', `attachment; filename="${answer.filename}"`).send(text);
  }

  /** The format a request asks for (the path's `/ical` suffix is given by the route). */
  function formatOf(q: Query, suffix: boolean): Format {
    if (truthy(q['outlook-ical'])) return 'outlook';
    if (suffix || truthy(q.ical)) return 'ical';
    return 'html';
  }

  type Handler = (format: Format, params: Record<string, string>, q: Query) => Promise<Answer>;
  /** A page route, its `/ical` twin, and `?ical=1&event_ids=…` on either. */
  function page(path: string, handler: Handler) {
    for (const suffix of [false, true]) {
      app.get(suffix ? `${path === '/' ? '' : path}/ical` : path, async (req, reply) => {
        const q = (req.query ?? {}) as Query;
        const params = req.params as Record<string, string>;
        const format = formatOf(q, suffix);
        return send(req, reply, async () => {
          if (format !== 'html' && q.event_ids !== undefined) {
            return { kind: 'ical', events: await calendar.byIds(idsOf(q.event_ids)), name: config.siteName, filename: `${siteFile}.ics` };
          }
          return handler(format, params, q);
        });
      });
    }
  }

  const list: Handler = (f, p, q) => listAnswer(f, q, p.page, { path: '/events/list/' });
  page('/events', (f, p, q) => listAnswer(f, q, p.page, { path: '/events/list/' }));
  page('/events/list', list);
  page('/events/list/page/:page', list);
  page('/events/page/:page', list);
  page('/events/month', (f, _p, q) => monthAnswer(f, q, undefined));
  page('/events/month/:month', (f, p, q) => monthAnswer(f, q, p.month));
  page('/events/today', (f, _p, q) => dayAnswer(f, q, calendar.today()));
  page('/events/:day', (f, p, q) => dayAnswer(f, q, p.day!));
  page('/events/category/:slug', (f, p, q) => termAnswer(f, 'category', p.slug!, q, undefined));
  page('/events/category/:slug/page/:page', (f, p, q) => termAnswer(f, 'category', p.slug!, q, p.page));
  page('/events/tag/:slug', (f, p, q) => termAnswer(f, 'tag', p.slug!, q, undefined));
  page('/events/tag/:slug/page/:page', (f, p, q) => termAnswer(f, 'tag', p.slug!, q, p.page));
  page('/event/:slug', (f, p) => eventAnswer(f, p.slug!));
  // Recurring events (issue 15): one occurrence, and the series (its upcoming occurrences, its feed).
  page('/event/:slug/:day', (f, p) => eventAnswer(f, p.slug!, p.day!));
  const seriesPage: Handler = async (f, p, q) => {
    const series = await calendar.series(p.slug!);
    if (!series) return { kind: 'not-found' };
    const title = plainText(series.title);
    return listAnswer(f, q, p.page, {
      path: `/event/${series.slug}/all/`,
      filter: { series: series.id },
      heading: title,
      title,
      intro: series.excerpt || series.description,
      feedName: `${config.siteName} – ${title}`,
    });
  };
  page('/event/:slug/all', seriesPage);
  page('/event/:slug/all/page/:page', seriesPage);
  page('/venue/:slug', (f, p, q) => linkedAnswer(f, 'venue', p.slug!, q, undefined));
  page('/organizer/:slug', (f, p, q) => linkedAnswer(f, 'organizer', p.slug!, q, undefined));

  app.get('/events.ics', async (req, reply) => send(req, reply, () => feedAnswer((req.query ?? {}) as Query)));

  // Anything else under the calendar's paths: the HTML 404 page, never a JSON error.
  for (const prefix of ['/events', '/event', '/venue', '/organizer']) {
    app.get(`${prefix}/*`, async (req, reply) => send(req, reply, async () => ({ kind: 'not-found' })));
    if (prefix !== '/events') app.get(prefix, async (req, reply) => send(req, reply, async () => ({ kind: 'not-found' })));
  }

  app.get(STYLESHEET_PATH, async (req, reply) => {
    req.sitePage = true;
    return reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET);
  });
}
