/**
 * `POST {REST_ROOT}/calendar/admin/v1/recurrence/preview`: the first `count` (at most
 * 50) occurrences a recurring event's schedule and `recurrence` lines generate, local and UTC,
 * without writing anything (domain/recurrence-preview.ts). The arguments are the event write's
 * own (`start_date`, `end_date`, `timezone`, `all_day`, `recurrence`), with its validators, so a
 * bad line gets exactly the 400 the events route gives. For whoever may create events (401/403
 * otherwise).
 */
import type { Services } from '../../domain/services.js';
import { typeCan } from '../../domain/permissions.js';
import { MAX_PREVIEW, previewRecurrence } from '../../domain/recurrence-preview.js';
import { endpoint, route, type RouteDecl } from '../route.js';
import { eventWriteArgs } from './events.js';

export function adminRecurrenceRoutes(services: Services): RouteDecl[] {
  const write = eventWriteArgs(services);
  return [
    route('/recurrence/preview', [
      endpoint({
        methods: ['POST'],
        args: {
          start_date: write.start_date!,
          end_date: write.end_date!,
          timezone: write.timezone!,
          all_day: write.all_day!,
          recurrence: { ...write.recurrence!, required: true },
          count: {
            default: 10,
            type: 'integer',
            description: `How many occurrences to answer (1 to ${MAX_PREVIEW})`,
            validate: (v) => /^\d+$/.test(String(v)) && Number(v) >= 1 && Number(v) <= MAX_PREVIEW,
          },
        },
        permission: (ctx) => typeCan(ctx.viewer, 'edit', 'tribe_events'),
        docs: {
          responses: {
            '200': { description: '{ recurrence (normalised lines), timezone, all_day, occurrences: [{ start_date, end_date, start_date_utc, end_date_utc }], more }' },
            '400': { description: 'A bad date, time zone or recurrence line (the events route’s errors)' },
          },
        },
        handler: async (ctx) => ({
          body: previewRecurrence(
            { start_date: ctx.args.start_date, end_date: ctx.args.end_date, timezone: ctx.args.timezone, all_day: Boolean(ctx.args.all_day), recurrence: ctx.args.recurrence },
            services.config.timezone,
            Number(ctx.args.count),
          ),
        }),
      }),
    ]),
  ];
}
