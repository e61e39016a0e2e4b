/**
 * `{REST_ROOT}/calendar/network/v1`: the network's administration, the calendars of the service
 * (docs/calendars.md, "Managing calendars over HTTP"), over the calendar service as the CLI's
 * `calendars` commands:
 *
 * - `GET /calendars` (`search`, `page`, `per_page` ≤ 100; `X-WP-Total`/`X-WP-TotalPages`): network
 *   administrators see every calendar; any other signed-in user the calendars they have a role in
 *   (the admin app's calendar switcher), each with `role`, the caller's role there;
 * - `POST /calendars` `{slug, name, host?, quotas?}` (201);
 * - `GET`/`POST|PUT|PATCH`/`DELETE /calendars/{id}` (update `name`, `slug`, `host` ("" removes
 *   it), `status` (`active` or `suspended`), `quotas`; delete, every record of it, only with
 *   `force=true`);
 * - `GET`/`POST /calendars/{id}/members` `{login, role}` (role "" removes it);
 * - `GET /calendars/{id}/usage`: each quota's limit and what the calendar uses of it.
 *
 * The network is one: the namespace answers the same under `/c/{slug}/` as at the root. Only
 * network administrators (administrators of the default calendar) manage it; a calendar's own
 * administrator does not. 401 without credentials, 403 otherwise.
 */
import type { CalendarView } from '../../domain/calendars.js';
import { apiError } from '../../domain/errors.js';
import { ROLES } from '../../domain/permissions.js';
import type { Services } from '../../domain/services.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { docRoutes } from './doc.js';
import { namespaceRoutes } from './namespace.js';
import { pageArg } from './common.js';

/** The namespace of the network's administration. */
export const NETWORK_NAMESPACE = 'calendar/network/v1';

const isNetworkAdministrator = (ctx: EndpointContext) => ctx.services.calendars.isNetworkAdministrator(ctx.viewer);
const isSignedIn = (ctx: EndpointContext) => ctx.viewer.id > 0;

const idArg: ArgSpec = { type: 'integer', description: 'The calendar ID', required: true, in: 'path' };
const slugArg: ArgSpec = { type: 'string', description: 'The calendar’s slug, its path /c/{slug}/: 1 to 60 lower-case letters, digits and hyphens' };
const nameArg: ArgSpec = { type: 'string', description: 'The calendar’s name (1 to 200 characters)' };
const hostArg: ArgSpec = { type: 'string', description: 'A host name of the calendar’s own (events.example.org); "" for none' };
const quotasArg: ArgSpec = {
  type: 'object',
  description:
    'Quotas by name (events, media_bytes in bytes, requests_per_minute, webhook_endpoints, submissions_per_day, sync_history_days in days, at most 36500): whole numbers, 0 for no limit; a quota not named is the installation’s default. They replace the calendar’s quotas',
};

/** A calendar as answered: the calendar, with the caller's role in it. */
type Answered = CalendarView & { role: string };

export function networkRoutes(services: Services): RouteDecl[] {
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(...docRoutes(services, () => routes));
  routes.push(...calendarRoutes(services.calendars, services.network), ...memberRoutes(services.calendars), ...usageRoutes(services));
  return routes;
}

function calendarRoutes(calendars: Services['calendars'], network: Services['network']): RouteDecl[] {
  return [
    route('/calendars', [
      endpoint({
        methods: ['GET'],
        args: {
          search: { type: 'string', description: 'Only calendars whose slug or name contains this' },
          page: pageArg(),
          per_page: { default: '50', type: 'integer', description: 'Calendars per page (at most 100)', validate: (v) => isPositiveInt(v) },
        },
        permission: isSignedIn,
        docs: {
          responses: {
            '200': {
              description:
                'Calendars: id, slug, name, status, host, url, quotas, created, default, role (the caller’s there). Network administrators: every calendar; others: those they have a role in',
            },
            '401': { description: 'Not signed in' },
          },
        },
        handler: async (ctx) => {
          const perPage = Math.min(100, Number(ctx.args.per_page));
          const page = Number(ctx.args.page);
          const search = typeof ctx.args.search === 'string' && ctx.args.search !== '' ? ctx.args.search : undefined;
          let items: Answered[];
          let total: number;
          if (await calendars.isNetworkAdministrator(ctx.viewer)) {
            const listed = await calendars.list({ page, perPage, ...(search ? { search } : {}) });
            items = listed.calendars.map((c) => ({ ...c, role: 'administrator' }));
            total = listed.total;
          } else {
            // A handful at most: the calendars one account has a role in.
            const needle = search?.toLowerCase();
            const mine = (await calendars.calendarsOf(ctx.viewer))
              .filter((m) => m.role !== '')
              .filter((m) => needle === undefined || m.calendar.slug.includes(needle) || m.calendar.name.toLowerCase().includes(needle));
            total = mine.length;
            items = mine.slice((page - 1) * perPage, page * perPage).map((m) => ({ ...m.calendar, role: m.role }));
          }
          return { body: items, headers: listHeaders(total, Math.ceil(total / perPage)) };
        },
      }),
      endpoint({
        methods: ['POST'],
        args: { slug: { ...slugArg, required: true }, name: { ...nameArg, required: true }, host: hostArg, quotas: quotasArg },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '201': { description: 'The created calendar' },
            '400': { description: 'rest_invalid_param (a slug, name, host or quota of the wrong form, a reserved slug), or calendar_exists (the slug or host is taken)' },
          },
        },
        handler: async (ctx) => {
          const made = await calendars.create({ slug: ctx.args.slug, name: ctx.args.name, host: ctx.args.host, quotas: ctx.args.quotas });
          return { status: 201, body: { ...made, role: 'administrator' }, headers: { location: ctx.links.rest(`calendars/${made.id}`) } };
        },
      }),
    ]),
    route('/calendars/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: isNetworkAdministrator,
        docs: { responses: { '200': { description: 'The calendar' }, '404': { description: 'calendar_not_found' } } },
        handler: async (ctx) => ({ body: { ...(await calendars.get(Number(ctx.path.id))), role: 'administrator' } }),
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: {
          id: idArg,
          name: nameArg,
          slug: slugArg,
          host: hostArg,
          status: { type: 'string', enum: ['active', 'suspended'], description: 'suspended: every path of the calendar answers 503 until it is active again' },
          quotas: quotasArg,
        },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '200': { description: 'The updated calendar' },
            '400': { description: 'rest_invalid_param (a value of the wrong form, or a change the default calendar refuses), or calendar_exists' },
            '404': { description: 'calendar_not_found' },
          },
        },
        handler: async (ctx) => {
          const { name, slug, host, status, quotas } = ctx.args;
          const updated = await calendars.update(Number(ctx.path.id), {
            ...(name !== undefined ? { name } : {}),
            ...(slug !== undefined ? { slug } : {}),
            ...(host !== undefined ? { host: host === '' ? null : host } : {}),
            ...(status !== undefined ? { status } : {}),
            ...(quotas !== undefined ? { quotas } : {}),
          });
          return { body: { ...updated, role: 'administrator' } };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: { id: idArg, force: { type: 'boolean', default: false, description: 'Must be true: a calendar is deleted for good, with every record of it' } },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '200': { description: '{ deleted: true, previous }' },
            '400': { description: 'calendar_default: the default calendar is never deleted' },
            '404': { description: 'calendar_not_found' },
            '501': { description: 'calendar_trash_not_supported: force=true was not given' },
          },
        },
        handler: async (ctx) => {
          const previous = await calendars.get(Number(ctx.path.id));
          if (ctx.args.force !== true) throw apiError('calendar_trash_not_supported');
          await calendars.remove(previous.id);
          // Its followers stop following it now (their copies trashed), not at the job's next step.
          await network.sourceRemoved(previous.id);
          return { body: { deleted: true, previous } };
        },
      }),
    ]),
  ];
}

function memberRoutes(calendars: Services['calendars']): RouteDecl[] {
  return [
    route('/calendars/{id}/members', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '200': { description: 'The people with a role in the calendar: user_id, login, role (the default calendar’s people are its users: calendar/admin/v1/users)' },
            '404': { description: 'calendar_not_found' },
          },
        },
        handler: async (ctx) => ({ body: await calendars.members(Number(ctx.path.id)) }),
      }),
      endpoint({
        methods: ['POST'],
        args: {
          id: idArg,
          login: { type: 'string', required: true, description: 'The account’s login' },
          role: { type: 'string', required: true, enum: [...ROLES, ''], description: 'The role in this calendar; "" removes it' },
        },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '200': { description: 'The calendar’s members, after the change' },
            '400': { description: 'rest_invalid_param: no such login, a bad role, or the default calendar (whose roles are the accounts’ own)' },
            '404': { description: 'calendar_not_found' },
          },
        },
        handler: async (ctx) => {
          const id = Number(ctx.path.id);
          await calendars.setRole(String(ctx.args.login), id, String(ctx.args.role));
          return { body: await calendars.members(id) };
        },
      }),
    ]),
  ];
}

function usageRoutes(services: Pick<Services, 'calendars' | 'quotas'>): RouteDecl[] {
  const { calendars, quotas } = services;
  return [
    route('/calendars/{id}/usage', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        permission: isNetworkAdministrator,
        docs: {
          responses: {
            '200': {
              description:
                'Each quota (events, media_bytes, requests_per_minute, webhook_endpoints, submissions_per_day, sync_history_days): { limit (0: none), used }; used is counted now as the quota counts it (submissions: the last 24 hours; the sync history: the days SYNC_HISTORY_DAYS asks for), null for requests_per_minute (each instance counts its own share of the minute)',
            },
            '404': { description: 'calendar_not_found' },
          },
        },
        handler: async (ctx) => {
          const calendar = await calendars.get(Number(ctx.path.id));
          return { body: await calendars.within(calendar.id, () => quotas.usage()) };
        },
      }),
    ]),
  ];
}
