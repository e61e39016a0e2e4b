/**
 * How a page or feed request is answered: its validators (a conditional GET is answered 304 before
 * anything is read), the answer computed, then rendered as HTML or iCalendar, or the 404, 400 and
 * database-fault pages. `registerPage` adds a page route with its `/ical` twin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { faultError } from '../domain/errors.js';
import { wallToUtc } from '../domain/dates/wall.js';
import { answerConditional, etagOf, isNotModified, type Validators } from '../web/conditional.js';
import { storeFault } from '../domain/faults.js';
import { icalendarInSteps, ICAL_CONTENT_TYPE } from '../domain/ical.js';
import { isPageNotFound } from './calendar.js';
import { idsOf, truthy, type Answer, type BadRequest, type Format, type PageContext, type Query } from './page-context.js';

/**
 * The validators of a page or feed: what it shows depends on the data (the change
 * log's position), on the day (upcoming events, today's view) and on the URL; the tag is made of
 * those, so a conditional GET is answered 304 before anything is read. `Last-Modified` is the
 * later of the last change and the start of the site's day.
 */
async function validatorsOf(ctx: PageContext, req: FastifyRequest): Promise<Validators> {
  const { versions } = ctx.services;
  const [position, databaseId] = await Promise.all([versions.position(), versions.databaseId()]);
  const today = ctx.calendar.today();
  const dayStart = wallToUtc(`${today} 00:00:00`, ctx.config.timezone);
  const lastModified = position.gmt !== undefined && position.gmt > dayStart ? position.gmt : dayStart;
  // The password cookie opens protected event pages: a page read with another cookie is another page.
  return { etag: etagOf(['page', databaseId, position.tag, today, req.url, ctx.passwords.cookieOf(req.headers.cookie)]), lastModified };
}

/** Answers a page or feed request with what `compute` makes of it. */
export async function send(ctx: PageContext, req: FastifyRequest, reply: FastifyReply, compute: () => Promise<Answer | BadRequest>) {
  const { config, views } = ctx;
  req.sitePage = true;
  let answer: Answer | BadRequest;
  let validators: Validators | undefined;
  try {
    validators = await validatorsOf(ctx, req);
    // Only a 200 carries these validators, so a client that has them had a 200 for this URL.
    if (isNotModified(req, validators) && answerConditional(req, reply, validators)) return reply;
    answer = await compute();
    // Recurring events: a feed writes each series once, with its exceptions.
    if (answer.kind === 'ical' && !answer.single) answer = { ...answer, series: await ctx.calendar.seriesFeeds(answer.events) };
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
      .send(views.notFound(ctx.url(req.url.split('?')[0]!)));
  if (answer.kind === 'redirect') return reply.code(301).header('location', answer.location).header('content-type', 'text/html; charset=utf-8').send('');
  if (answer.kind === 'bad-request') return reply.code(400).header('content-type', 'text/plain; charset=utf-8').send(`${answer.message}\n`);
  if (answer.kind === 'html') {
    // A signed preview: no shared cache may keep it (it would outlive the link's trash); the page says noindex.
    if (answer.unlisted) return reply.code(answer.status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'private, no-store').send(answer.body);
    if (answer.status === 200 && validators) answerConditional(req, reply, validators);
    return reply.code(answer.status).header('content-type', 'text/html; charset=utf-8').send(answer.body);
  }
  if (validators) answerConditional(req, reply, validators);
  // A feed: never negotiated (calendar clients send no Accept), always text/calendar.
  const text = await icalendarInSteps(answer.events, {
    name: answer.name,
    timezone: config.timezone,
    siteUrl: ctx.site,
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

/** A page's answer to a request in a format, with the route's parameters and the query. */
export type PageHandler = (format: Format, params: Record<string, string>, q: Query, req: FastifyRequest) => Promise<Answer>;

/** A page route, its `/ical` twin, and `?ical=1&event_ids=…` on either. */
export function registerPage(app: FastifyInstance, ctx: PageContext, path: string, handler: PageHandler): void {
  for (const suffix of [false, true]) {
    app.get(suffix ? `${path === '/' ? '' : path}/ical` : path, async (req, reply) => {
      const q = (req.query ?? {}) as Query;
      const params = req.params as Record<string, string>;
      const format = formatOf(q, suffix);
      return send(ctx, req, reply, async () => {
        if (format !== 'html' && q.event_ids !== undefined) {
          return { kind: 'ical', events: await ctx.calendar.byIds(idsOf(q.event_ids)), name: ctx.config.siteName, filename: `${ctx.siteFile}.ics` };
        }
        return handler(format, params, q, req);
      });
    });
  }
}
