/**
 * `GET {REST_ROOT}/calendar/admin/v1/events`: the index of every event post, for
 * importers and administrators. The event lists (ours and the original's) never show events hidden
 * from listings, series or trashed occurrences; this index names them all, so `import tec` from
 * another instance brings hidden events and series with their exceptions. The legacy lists are
 * unchanged.
 *
 * Each entry: `id`, `type` (`event` or `series`), `status` (trash included), `hide_from_listings`,
 * and for occurrences of a series `recurring_event_id`, `original_start_date` and `exception`
 * (edited or deleted alone). By id ascending, `per_page` up to 500 (default 100), with the lists'
 * `X-WP-Total`/`X-WP-TotalPages` headers. Callers who may edit others' events (editors and
 * administrators): 401 without credentials, 403 for other roles.
 *
 * `DELETE {REST_ROOT}/calendar/admin/v1/events/{id}`: wp-admin's "Delete Permanently"
 * (the legacy `DELETE` only trashes): an event in the trash is deleted for good, a series with all
 * its occurrences; answers `{"deleted": true, "previous": {id, type, status, title}}` as WordPress'
 * forced deletes do. For whoever may delete that event (its author with `delete_published_posts`
 * and the like, editors and administrators); 400 when it is not in the trash or is one occurrence.
 *
 * `GET {REST_ROOT}/calendar/admin/v1/events/{id}`: what the admin app's editor loads beside the
 * event's REST representation, the fields as they were typed where that representation renders
 * them otherwise: `{"id": 12, "cost": "€5 suggested donation"}` (the legacy `cost` reads
 * "€ suggested donation5", the original's rendering: loaded into the editor and saved again, it
 * stored that), and its `password` ('' when none: docs/api.md, "Password-protected records"). For
 * whoever may edit that event; 401/403/404 as the legacy single event.
 *
 * `GET {REST_ROOT}/calendar/admin/v1/venues/{id}` and `/organizers/{id}`: the same for a venue or
 * an organizer, `{"id": 7, "password": ""}` (its REST representation never carries the password).
 */
import type { Services } from '../../domain/services.js';
import { canDeletePost, canEditPost, typeCan } from '../../domain/permissions.js';
import { typedCost } from '../../domain/cost.js';
import { storedCost } from '../../domain/representations/event.js';
import { apiError, invalidParams } from '../../domain/errors.js';
import type { EventRecord } from '../../store/events.js';
import type { LinkedRecord } from '../../store/linked-posts.js';
import type { LinkedPostService } from '../../domain/linked-posts/index.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

/** `GET /venues/{id}` or `/organizers/{id}`: the fields the editor loads beside the representation. */
function linkedFieldsRoute(service: LinkedPostService, noun: 'venue' | 'organizer'): RouteDecl {
  return route(`/${noun}s/{id}`, [
    endpoint<LinkedRecord>({
      methods: ['GET'],
      // An id that is not one of this kind fails as on the legacy single routes (400 rest_invalid_param).
      args: { id: { type: 'integer', description: `The ${noun} ID`, required: true, in: 'path', validate: async (v) => isPositiveInt(v) && (await service.existingIds([Number(v)])).has(Number(v)) } },
      load: async (ctx) => (await service.findById(Number(ctx.path.id))) ?? null,
      permission: (ctx) => (ctx.record ? canEditPost(ctx.viewer, service.postType, ctx.record) : typeCan(ctx.viewer, 'edit', service.postType)),
      docs: {
        responses: {
          '200': { description: `The ${noun}'s password, which its REST representation never carries: {"id": 7, "password": ""}` },
          '401': { description: 'Not logged in' },
          '403': { description: `May not edit this ${noun}` },
          '400': { description: `No ${noun} with this ID` },
        },
      },
      handler: async (ctx) => {
        const record = ctx.record;
        if (!record) throw invalidParams({ id: 'Invalid parameter.' });
        return { body: { id: Number(record.id), password: record.password } };
      },
    }),
  ]);
}

export function adminEventRoutes(services: Services): RouteDecl[] {
  return [
    linkedFieldsRoute(services.venues, 'venue'),
    linkedFieldsRoute(services.organizers, 'organizer'),
    route('/events', [
      endpoint({
        methods: ['GET'],
        args: {
          page: pageArg(),
          per_page: { default: '100', type: 'integer', description: 'Entries per page (at most 500)', validate: (v) => isPositiveInt(v) },
        },
        permission: (ctx) => typeCan(ctx.viewer, 'edit_others', 'tribe_events'),
        docs: {
          responses: {
            '200': {
              description:
                'Every event post by id (singles, series and occurrences; every status, trash included; hidden ones included): id, type (event or series), status, hide_from_listings, and for occurrences recurring_event_id, original_start_date and exception (edited or deleted alone)',
            },
            '401': { description: 'Not logged in' },
            '403': { description: 'May not edit the events of others' },
          },
        },
        handler: async (ctx) => {
          const perPage = Math.min(500, Number(ctx.args.per_page));
          const { items, total, totalPages } = await services.eventIndex(Number(ctx.args.page), perPage);
          return { body: items, headers: listHeaders(total, totalPages) };
        },
      }),
    ]),
    route('/events/{id}', [
      endpoint<EventRecord>({
        methods: ['GET'],
        args: { id: { type: 'integer', description: 'The event (or series) ID', required: true, in: 'path', validate: (v) => isPositiveInt(v) } },
        load: async (ctx) => (await services.events.findById(Number(ctx.path.id))) ?? null,
        permission: (ctx) => (ctx.record ? canEditPost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'edit', 'tribe_events')),
        precondition: { type: 'event' },
        docs: {
          responses: {
            '200': { description: 'The fields as typed where the REST representation renders them otherwise, and the password: {"id": 12, "cost": "€5 suggested donation", "password": ""}' },
            '401': { description: 'Not logged in' },
            '403': { description: 'May not edit this event' },
            '404': { description: 'No event with this ID' },
          },
        },
        handler: async (ctx) => {
          const record = ctx.record;
          if (!record) throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
          // The password is the editor's to show again (WordPress' edit screen shows it too).
          return { body: { id: Number(record.id), cost: typedCost(storedCost(record)), password: record.password } };
        },
      }),
      endpoint<EventRecord>({
        methods: ['DELETE'],
        args: { id: { type: 'integer', description: 'The event (or series) ID', required: true, in: 'path', validate: (v) => isPositiveInt(v) } },
        load: async (ctx) => (await services.events.findById(Number(ctx.path.id))) ?? null,
        permission: (ctx) => (ctx.record ? canDeletePost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'delete', 'tribe_events')),
        precondition: { type: 'event' },
        docs: {
          responses: {
            '200': { description: 'The event was deleted permanently: {"deleted": true, "previous": {id, type, status, title}}' },
            '400': { description: 'The event is not in the trash, or is one occurrence of a recurring event' },
            '401': { description: 'Not logged in' },
            '403': { description: 'May not delete this event' },
            '404': { description: 'No event with this ID' },
          },
        },
        handler: async (ctx) => {
          const record = ctx.record;
          if (!record) throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
          await services.events.purge(record);
          const previous = { id: Number(record.id), type: record.type === 'tribe_event_series' ? 'series' : 'event', status: record.status, title: record.title };
          return { body: { deleted: true, previous } };
        },
      }),
    ]),
  ];
}
