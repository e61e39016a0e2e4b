/**
 * Trash and restore in the admin namespace (the admin app's list row and editor, its Undo):
 *
 *   POST {REST_ROOT}/calendar/admin/v1/events/{id}/trash    scope=this|all
 *   POST {REST_ROOT}/calendar/admin/v1/events/{id}/restore  scope=this|all
 *
 * `scope=all` on an occurrence (and always on a series) acts on the whole series: the series and
 * every occurrence, in one transaction (all or nothing). A restore gives each post the status it
 * had before the trash; occurrences trashed one by one before the series stay in the trash. The
 * legacy `DELETE /events/{id}` answers as before; these routes are what the app calls.
 * Answers `{"id": 12, "type": "event"|"series", "status": "…", "series": {"id", "status"}?}`.
 * For whoever may delete the event (and, with `scope=all`, its series): 401/403/404 otherwise;
 * 400 `rest_restore_not_trashed` when what is restored is not in the trash.
 *
 *   POST {REST_ROOT}/calendar/admin/v1/events/{id}/preview
 *
 * A signed preview link of the event's public page (domain/previews.ts): `{"url", "expires"}`,
 * valid PREVIEW_DAYS days or until the event is trashed. For whoever may edit the event; 400
 * `rest_preview_trashed` for an event in the trash.
 */
import type { Services } from '../../domain/services.js';
import { canDeletePost, canEditPost, typeCan } from '../../domain/permissions.js';
import { PREVIEW_DAYS } from '../../domain/previews.js';
import { apiError, forbidden } from '../../domain/errors.js';
import type { EventRecord } from '../../store/events.js';
import { isPositiveInt } from '../../domain/values.js';
import { SERIES_TYPE } from '../../domain/events/index.js';
import { endpoint, route, type RouteDecl } from '../route.js';

export function adminSeriesRoutes(services: Services): RouteDecl[] {
  const { events } = services;
  const args = {
    id: { type: 'integer', description: 'The event, occurrence or series ID', required: true, in: 'path', validate: (v: unknown) => isPositiveInt(v) },
    scope: {
      type: 'string',
      default: 'this',
      enum: ['this', 'all'],
      validate: (v: unknown) => v === 'this' || v === 'all',
      description: 'this: the event or occurrence alone; all: the whole series (every occurrence)',
    },
  } as const;
  const load = async (ctx: { path: Record<string, string | undefined> }) => (await events.findById(Number(ctx.path.id))) ?? null;
  /** The answer: the record and, for an occurrence or a series, its series' status. */
  const answer = async (record: EventRecord) => {
    const seriesId = record.type === SERIES_TYPE ? Number(record.id) : Number(record.parent_id);
    const series = seriesId ? await events.findById(seriesId) : undefined;
    return {
      body: {
        id: Number(record.id),
        type: record.type === SERIES_TYPE ? 'series' : 'event',
        status: record.status,
        ...(series && series.type === SERIES_TYPE ? { series: { id: Number(series.id), status: series.status } } : {}),
      },
    };
  };
  /** With scope=all, the caller must be allowed to delete the series itself. */
  const mayActOnSeries = async (viewer: Parameters<typeof canDeletePost>[0], record: EventRecord) => {
    if (record.type === SERIES_TYPE || Number(record.parent_id) === 0) return;
    const series = await events.findById(Number(record.parent_id));
    if (series && !canDeletePost(viewer, 'tribe_events', series)) throw forbidden(true);
  };
  const docs = (what: string) => ({
    responses: {
      '200': { description: `${what}: {"id", "type", "status", "series": {"id", "status"}}` },
      '400': { description: 'A bad scope, or (restore) not in the trash' },
      '401': { description: 'Not logged in' },
      '403': { description: 'May not delete this event (or its series)' },
      '404': { description: 'No event with this ID' },
    },
  });
  return [
    route('/events/{id}/preview', [
      endpoint<EventRecord>({
        methods: ['POST'],
        args: { id: args.id },
        load,
        permission: (ctx) => (ctx.record ? canEditPost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'edit', 'tribe_events')),
        docs: {
          responses: {
            '200': { description: `A signed link to the event's public page, valid ${PREVIEW_DAYS} days or until the event is trashed: {"url", "expires"}` },
            '400': { description: 'The event is in the trash' },
            '401': { description: 'Not logged in' },
            '403': { description: 'May not edit this event' },
            '404': { description: 'No event with this ID' },
          },
        },
        handler: async (ctx) => {
          const record = ctx.record;
          if (!record) throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
          if (record.status === 'trash') throw apiError('rest_preview_trashed');
          const { url, expires } = await services.previews.link(record);
          return { body: { url, expires } };
        },
      }),
    ]),
    route('/events/{id}/trash', [
      endpoint<EventRecord>({
        methods: ['POST'],
        args,
        load,
        permission: (ctx) => (ctx.record ? canDeletePost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'delete', 'tribe_events')),
        docs: docs('Moved to the trash'),
        handler: async (ctx) => {
          const record = ctx.record;
          if (!record) throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
          const scope = ctx.args.scope === 'all' ? 'all' : record.type === SERIES_TYPE ? 'all' : 'this';
          if (scope === 'all') await mayActOnSeries(ctx.viewer, record);
          return answer(await events.trash(record, Number(record.parent_id) === 0 && record.type !== SERIES_TYPE ? undefined : scope, ctx.viewer));
        },
      }),
    ]),
    route('/events/{id}/restore', [
      endpoint<EventRecord>({
        methods: ['POST'],
        args,
        load,
        permission: (ctx) => (ctx.record ? canDeletePost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'delete', 'tribe_events')),
        docs: docs('Taken out of the trash'),
        handler: async (ctx) => {
          const record = ctx.record;
          if (!record) throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
          const scope = ctx.args.scope === 'all' ? 'all' : 'this';
          if (scope === 'all') await mayActOnSeries(ctx.viewer, record);
          return answer(await events.restore(record, scope));
        },
      }),
    ]),
  ];
}
