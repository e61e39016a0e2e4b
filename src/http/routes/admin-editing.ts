/**
 * `{REST_ROOT}/calendar/admin/v1/events/{id}/editors`: who has the event open in the admin app's
 * editor (post locks, domain/edit-locks.ts; WordPress' `_edit_lock` and "X is currently editing").
 *
 * - `GET`: `{ editors: [{ id, name, since, expires }], last_editor: { id, name } | null, heartbeat }`
 *   (`last_editor`: who changed the event last, for the editor's conflict panel).
 * - `POST`: take or refresh the caller's lock (the editor's heartbeat, every `heartbeat` seconds;
 *   a lock not refreshed for 150 s ends); answers as `GET`.
 * - `DELETE`: release the caller's lock (the editor leaves): `{ released: true|false }`.
 *
 * `holder` (both): the editor page's token. A page's lock is its own: its `DELETE` releases it and
 * not the lock the user's next page (or stream, on this server or another) took meanwhile; without
 * it, `DELETE` releases every lock of the caller on the event.
 *
 * For whoever may edit the event (the permission of its writes): 401 without credentials, 403
 * otherwise, 404 for no event. The change stream (`changes/stream?editing=ID`) sends the same
 * state as `editors` events when it changes.
 */
import type { Services } from '../../domain/services.js';
import { canEditPost, typeCan } from '../../domain/permissions.js';
import { apiError } from '../../domain/errors.js';
import type { EventRecord } from '../../store/events.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type EndpointContext, type RouteDecl } from '../route.js';
import { holderArg } from './common.js';

const STATE = '{ editors: [{ id, name, since, expires }], last_editor: { id, name } | null, heartbeat }';

export function adminEditingRoutes(services: Services): RouteDecl[] {
  const common = {
    args: { id: { type: 'integer' as const, description: 'The event (or series) ID', required: true, in: 'path' as const, validate: (v: unknown) => isPositiveInt(v) } },
    load: async (ctx: Omit<EndpointContext<EventRecord>, 'record'>) => (await services.events.findById(Number(ctx.path.id))) ?? null,
    permission: (ctx: EndpointContext<EventRecord>) => (ctx.record ? canEditPost(ctx.viewer, 'tribe_events', ctx.record) : typeCan(ctx.viewer, 'edit', 'tribe_events')),
  };
  const holderOf = (ctx: EndpointContext<EventRecord>): string | undefined => (typeof ctx.args.holder === 'string' ? ctx.args.holder : undefined);
  const mustHave = (ctx: EndpointContext<EventRecord>): number => {
    if (!ctx.record || ctx.record.status === 'auto-draft') throw apiError('rest-event-not-found', { args: [Number(ctx.path.id)] });
    return Number(ctx.record.id);
  };
  const responses = (ok: string) => ({
    '200': { description: ok },
    '401': { description: 'Not logged in' },
    '403': { description: 'May not edit this event' },
    '404': { description: 'No event with this ID' },
  });
  return [
    route('/events/{id}/editors', [
      endpoint<EventRecord>({
        methods: ['GET'],
        ...common,
        docs: { responses: responses(`Who has the event open in the editor, and who changed it last: ${STATE}`) },
        handler: async (ctx) => ({ body: await services.editLocks.state(mustHave(ctx)), headers: { 'cache-control': 'no-store' } }),
      }),
      endpoint<EventRecord>({
        methods: ['POST'],
        ...common,
        args: { ...common.args, holder: holderArg() },
        docs: { responses: responses(`The caller's lock was taken or refreshed (until 150 s after): ${STATE}`) },
        handler: async (ctx) => ({ body: await services.editLocks.take(ctx.viewer, mustHave(ctx), holderOf(ctx)), headers: { 'cache-control': 'no-store' } }),
      }),
      endpoint<EventRecord>({
        methods: ['DELETE'],
        ...common,
        args: { ...common.args, holder: holderArg() },
        docs: { responses: responses("The caller's lock was released: { released: true } (false: it held none)") },
        handler: async (ctx) => ({ body: { released: await services.editLocks.release(ctx.viewer, mustHave(ctx), holderOf(ctx)) } }),
      }),
    ]),
  ];
}
