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
 * Each request's handler computes one `Answer` from the calendar (`calendar.ts`), which `send` (`send.ts`) then
 * renders as HTML or iCalendar (the one place a response version could later be attached).
 * This module is the route table; the pages' answers are in `list-pages.ts`, `date-pages.ts`,
 * `event-pages.ts` and `subscription-feed.ts`, their shared context in `page-context.ts`. Unknown, trashed and unpublished records get the HTML 404 page.
 *
 * @example registerCalendarPages(app, { services })
 */
import type { FaceDeps } from '../faces.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { passwordFailure } from '../domain/post-passwords.js';
import { PASSWORD_COOKIE_MAX_AGE } from '../domain/post-password-cookie.js';
import { dayAnswer, monthAnswer } from './date-pages.js';
import { createEventAnswer, linkedAnswer, type GivenOnPage } from './event-pages.js';
import { listAnswer, seriesAnswer, termAnswer } from './list-pages.js';
import { createPageContext, type PageContext, type Query } from './page-context.js';
import { calendarIdNow, DEFAULT_CALENDAR_ID } from '../domain/calendars.js';
import { registerPage, send, type PageHandler } from './send.js';
import { feedAnswer } from './subscription-feed.js';
import { STYLESHEET, STYLESHEET_PATH } from './views.js';

export type { Answer } from './page-context.js';

/** Calendars whose page context is kept (the most recently used); the default calendar's always is. */
const CONTEXTS_KEPT = 256;

export function registerCalendarPages(app: FastifyInstance, { services }: Pick<FaceDeps, 'services'>): void {
  // A page context holds the calendar's URLs, name and views: one per calendar, made in it when a
  // request of it first comes, and read through `ctx` by every page of that request.
  const contexts = new Map<string, PageContext>();
  let home: { ctx: PageContext; name: string } | undefined;
  const here = (): PageContext => {
    // The default calendar's (most requests, and read at every step of a page): one look.
    if (calendarIdNow() === DEFAULT_CALENDAR_ID) {
      const name = services.config.siteName;
      if (home?.name !== name) home = { ctx: createPageContext(services), name };
      return home.ctx;
    }
    const key = `${calendarIdNow()}|${services.links.siteUrl}|${services.config.siteName}`;
    let made = contexts.get(key);
    if (made) return made;
    if (contexts.size >= CONTEXTS_KEPT) contexts.delete(contexts.keys().next().value!);
    contexts.set(key, (made = createPageContext(services)));
    return made;
  };
  const ctx = new Proxy({} as PageContext, { get: (_target, name) => Reflect.get(here(), name) });
  const { calendar } = ctx;
  const eventAnswer = createEventAnswer(ctx);
  const page = (path: string, handler: PageHandler) => registerPage(app, ctx, path, handler);

  const list: PageHandler = (f, p, q) => listAnswer(ctx, f, q, p.page, { path: '/events/list/' });
  // `/events/` opens the site's default view (CALENDAR_DEFAULT_VIEW, read at each request); a past
  // list, a page number, a search and the feed stay the list's, as TEC's `eventDisplay` asks.
  page('/events', (f, p, q) =>
    f === 'html' && ctx.config.defaultView === 'month' && q.eventDisplay === undefined && q.page === undefined && q.search === undefined && q['tribe-bar-search'] === undefined
      ? monthAnswer(ctx, f, q, undefined)
      : listAnswer(ctx, f, q, p.page, { path: '/events/list/' }),
  );
  page('/events/list', list);
  page('/events/list/page/:page', list);
  page('/events/page/:page', list);
  page('/events/month', (f, _p, q) => monthAnswer(ctx, f, q, undefined));
  page('/events/month/:month', (f, p, q) => monthAnswer(ctx, f, q, p.month));
  page('/events/today', (f, _p, q) => dayAnswer(ctx, f, q, calendar.today()));
  page('/events/:day', (f, p, q) => dayAnswer(ctx, f, q, p.day!));
  page('/events/category/:slug', (f, p, q) => termAnswer(ctx, f, 'category', p.slug!, q, undefined));
  page('/events/category/:slug/page/:page', (f, p, q) => termAnswer(ctx, f, 'category', p.slug!, q, p.page));
  page('/events/tag/:slug', (f, p, q) => termAnswer(ctx, f, 'tag', p.slug!, q, undefined));
  page('/events/tag/:slug/page/:page', (f, p, q) => termAnswer(ctx, f, 'tag', p.slug!, q, p.page));
  // A protected event's page reads the password cookie its form sets (below).
  const given = async (req: FastifyRequest): Promise<GivenOnPage> => ({ given: await ctx.passwords.given(req.headers.cookie), sent: ctx.passwords.cookieOf(req.headers.cookie) !== '' });
  page('/event/:slug', async (f, p, q, req) => eventAnswer(f, p.slug!, undefined, q, await given(req)));
  // Recurring events: one occurrence, and the series (its upcoming occurrences, its feed).
  page('/event/:slug/:day', async (f, p, _q, req) => eventAnswer(f, p.slug!, p.day!, {}, await given(req)));
  // The password form of a protected event's page (WordPress' wp-login.php?action=postpass): the
  // cookie keeps an HMAC of what was typed (right or not, as WordPress does), then back to the page.
  for (const path of ['/event/:slug', '/event/:slug/:day']) {
    app.post(path, async (req, reply) => {
      req.sitePage = true;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const typed = typeof body.post_password === 'string' ? body.post_password : '';
      const secure = req.protocol === 'https' ? '; Secure' : '';
      const value = typed === '' || passwordFailure(typed) !== undefined ? '' : await ctx.passwords.valueOf(typed);
      const cookie =
        value === ''
          ? `${ctx.passwords.cookieName}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`
          : `${ctx.passwords.cookieName}=${value}; Path=/; Max-Age=${PASSWORD_COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax${secure}`;
      // Back to the page, under its calendar's path (`/c/{slug}`, taken off before routing).
      const back = `${new URL(ctx.site).pathname.replace(/\/$/, '')}${req.url.split('?')[0]!}`;
      return reply.code(303).header('set-cookie', cookie).header('cache-control', 'no-store').header('location', back).send('');
    });
  }
  const seriesPage: PageHandler = (f, p, q) => seriesAnswer(ctx, f, p.slug!, q, p.page);
  page('/event/:slug/all', seriesPage);
  page('/event/:slug/all/page/:page', seriesPage);
  page('/venue/:slug', (f, p, q) => linkedAnswer(ctx, f, 'venue', p.slug!, q, undefined));
  page('/organizer/:slug', (f, p, q) => linkedAnswer(ctx, f, 'organizer', p.slug!, q, undefined));

  app.get('/events.ics', async (req, reply) => send(ctx, req, reply, () => feedAnswer(ctx, (req.query ?? {}) as Query)));

  // Anything else under the calendar's paths: the HTML 404 page, never a JSON error.
  for (const prefix of ['/events', '/event', '/venue', '/organizer']) {
    app.get(`${prefix}/*`, async (req, reply) => send(ctx, req, reply, async () => ({ kind: 'not-found' })));
    if (prefix !== '/events') app.get(prefix, async (req, reply) => send(ctx, req, reply, async () => ({ kind: 'not-found' })));
  }

  app.get(STYLESHEET_PATH, async (req, reply) => {
    req.sitePage = true;
    return reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET);
  });
}
