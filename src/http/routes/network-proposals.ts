/**
 * Networks of calendars over REST, in the namespace `calendar/network/v1` (domain/network.ts):
 *
 * - `POST /proposals` {event, to}: an author or editor of the calendar of the request proposes one
 *   of its published events to calendar `to`'s moderation queue (201: the submission's id and
 *   status; nothing else of that calendar);
 * - `GET /follows`, `POST /follows` {calendar, categories}, `DELETE /follows/{slug}`: the calendar's
 *   administrators manage what it follows;
 * - `GET /search` (`search`, `start_date`, `end_date`, paging): published, public events of every
 *   active calendar, each with its calendar.
 *
 * These routes sit beside the namespace's calendar management (its index and /doc are that file's);
 * they are registered on their own (register.ts) so the two sets merge without conflict.
 */
import type { Services } from '../../domain/services.js';
import { isPositiveInt } from '../../domain/values.js';
import { listHeaders } from '../paging.js';
import { anyone, endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { pageArg } from './common.js';

/** The namespace of the network's routes. */
export const NETWORK_NAMESPACE = 'calendar/network/v1';

const signedIn = (ctx: EndpointContext) => ctx.viewer.id > 0;
const isAdministrator = (ctx: EndpointContext) => ctx.viewer.role === 'administrator';
const slugArg = (description: string, where: 'path' | 'body'): ArgSpec => ({
  type: 'string',
  description,
  required: true,
  ...(where === 'path' ? { in: 'path' as const } : {}),
  validate: (v) => typeof v === 'string' && /^[a-z0-9-]{1,60}$/.test(v),
});
const perPageArg: ArgSpec = { default: '20', type: 'integer', description: 'Items per page (at most 100)', validate: (v) => isPositiveInt(v) && Number(v) <= 100 };

export function networkProposalRoutes(services: Services): RouteDecl[] {
  const network = services.network;
  return [
    route('/proposals', [
      endpoint({
        methods: ['POST'],
        args: {
          event: { type: 'integer', required: true, description: 'The ID of a published event of this calendar' },
          to: slugArg('The slug of the calendar to propose it to', 'body'),
        },
        permission: signedIn,
        docs: {
          responses: {
            '201': { description: 'The proposal: a submission in the other calendar’s moderation queue ({id, status, to, event_id})' },
            '400': { description: 'The event is not published, or is password-protected' },
            '403': { description: 'Not an author or editor here, or that calendar takes no submissions' },
            '404': { description: 'No such event or calendar' },
            '409': {
              description:
                'network_already_proposed: proposed there and not yet decided; network_already_there: accepted there, or copied there by a follow; network_proposal_declined: declined there, and not changed since; network_calendar_suspended: that calendar is suspended',
            },
          },
        },
        handler: async (ctx) => ({ status: 201, body: await network.propose(ctx.viewer, Number(ctx.args.event), String(ctx.args.to)) }),
      }),
    ]),
    route('/follows', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isAdministrator,
        docs: {
          responses: {
            '200': {
              description:
                'The calendars this calendar follows: id, calendar ({id, slug, name, url}, null when it is gone), categories followed, created, not_copied (its events this calendar’s events quota refused at the last sync), copies (its events published here now: the follow’s copies not trashed)',
            },
          },
        },
        handler: async (ctx) => ({ body: await network.follows(ctx.viewer) }),
      }),
      endpoint({
        methods: ['POST'],
        args: {
          calendar: slugArg('The slug of the calendar to follow', 'body'),
          categories: { type: 'array', items: { type: 'string' }, maxItems: 50, description: 'Only events in these categories of it (by slug); every event by default' },
        },
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: 'The calendar was followed already: the follow, with the categories changed (and not_copied and copies, as for 201)' },
            '201': {
              description:
                'The follow; its events are mirrored here at once, as many as this calendar’s events quota takes: not_copied counts those it refused (the follow is kept; they are copied on a later sync once there is room), copies those published here',
            },
            '400': { description: 'rest_invalid_param: a category slug that calendar has no category of' },
            '404': { description: 'calendar_not_found: no calendar has that slug' },
            '409': { description: 'network_calendar_suspended: that calendar is suspended' },
          },
        },
        handler: async (ctx) => {
          const raw = ctx.args.categories;
          const categories = raw === undefined ? [] : (Array.isArray(raw) ? raw : String(raw).split(',')).map((c: unknown) => String(c).trim()).filter((c: string) => c !== '');
          const { follow, made } = await network.follow(ctx.viewer, String(ctx.args.calendar), categories);
          // 200, not 201, when the calendar was followed already: its categories were changed.
          return { status: made ? 201 : 200, body: follow };
        },
      }),
    ]),
    route('/follows/{slug}', [
      endpoint({
        methods: ['DELETE'],
        args: { slug: slugArg('The slug of the calendar followed', 'path') },
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The follow ended; its copies are trashed' }, '404': { description: 'Not followed' } } },
        handler: async (ctx) => {
          await network.unfollow(ctx.viewer, String(ctx.path.slug));
          return { body: { deleted: true, calendar: ctx.path.slug } };
        },
      }),
    ]),
    route('/search', [
      endpoint({
        methods: ['GET'],
        args: {
          search: { type: 'string', description: 'Words of the title or description', validate: (v) => typeof v === 'string' && v.length <= 200 },
          start_date: { type: 'string', description: 'Events that end on or after this date (any date form the event list reads)' },
          end_date: { type: 'string', description: 'Events that start on or before this date' },
          page: pageArg(),
          per_page: perPageArg,
        },
        permission: anyone,
        docs: {
          responses: {
            '200': { description: 'Published, public events of every active calendar, soonest first: {id, title, start_date, end_date, all_day, timezone, url, calendar: {slug, name, url}}' },
          },
        },
        handler: async (ctx) => {
          const page = Number(ctx.args.page ?? 1);
          const perPage = Number(ctx.args.per_page ?? 20);
          const { items, total } = await network.search({
            search: typeof ctx.args.search === 'string' ? ctx.args.search : '',
            ...(ctx.args.start_date ? { startDate: String(ctx.args.start_date) } : {}),
            ...(ctx.args.end_date ? { endDate: String(ctx.args.end_date) } : {}),
            page,
            perPage,
          });
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
    ]),
  ];
}
