/**
 * `GET {REST_ROOT}/calendar/admin/v1/events` (issue 25): the index of every event post, for
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
 */
import type { Services } from '../../domain/services.js';
import { typeCan } from '../../domain/permissions.js';
import { isPositiveInt } from '../../domain/values.js';
import { eventIndex } from '../../domain/event-index.js';
import { endpoint, route, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

export function adminEventRoutes(services: Services): RouteDecl[] {
  return [
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
          const { items, total, totalPages } = await eventIndex(services.store.db, Number(ctx.args.page), perPage);
          return { body: items, headers: listHeaders(total, totalPages) };
        },
      }),
    ]),
  ];
}
