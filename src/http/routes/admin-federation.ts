/**
 * `{REST_ROOT}/calendar/admin/v1/federation…` (docs/federation.md): the calendar's
 * fediverse followers and the deliveries of its activities, for editors and administrators.
 * Registered only when FEDERATION=true (otherwise these routes answer 404 like any unknown URL).
 *
 * - `GET /federation`: the actor, its handle and counts of followers and deliveries by state;
 * - `GET /federation/followers` (`status`: accepted or pending), `DELETE /federation/followers/{id}`;
 * - `POST /federation/followers/{id}/accept`, `POST /federation/followers/{id}/reject` (a follow
 *   waiting under FEDERATION_APPROVE_FOLLOWS=true);
 * - `GET /federation/deliveries` (`status`), `POST /federation/deliveries/{id}/retry`;
 * - `GET /federation/received`: other activities kept under FEDERATION_KEEP_ACTIVITIES=true.
 */
import type { FederationAdmin } from '../../domain/federation.js';
import { apiError } from '../../domain/errors.js';
import { isPositiveInt } from '../../domain/values.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { pageArg } from './common.js';

const isEditor = (ctx: EndpointContext) => ctx.viewer.role === 'administrator' || ctx.viewer.role === 'editor';
const NOT_ALLOWED = { '401': { description: 'Not logged in' }, '403': { description: 'Not an editor or administrator' } };

export function adminFederationRoutes(admin: FederationAdmin): RouteDecl[] {
  const idArg: ArgSpec = { type: 'integer', description: 'The ID', required: true, in: 'path' };
  const perPage: ArgSpec = { default: '20', type: 'integer', description: 'Items per page (at most 100)', validate: (v) => isPositiveInt(v) };
  const paging = (ctx: EndpointContext) => {
    const limit = Math.min(100, Number(ctx.args.per_page));
    return { limit, offset: (Number(ctx.args.page) - 1) * limit };
  };
  const paged = <T>(r: { items: T[]; total: number }, limit: number) => ({ body: r.items, headers: listHeaders(r.total, Math.ceil(r.total / limit)) });
  return [
    route('/federation', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isEditor,
        docs: { responses: { '200': { description: 'The actor, its handle, and followers and deliveries counted by state' }, ...NOT_ALLOWED } },
        handler: async () => ({ body: await admin.status() }),
      }),
    ]),
    route('/federation/followers', [
      endpoint({
        methods: ['GET'],
        args: { page: pageArg(), per_page: perPage, status: { type: 'string', enum: ['accepted', 'pending'], description: 'Only followers in this state' } },
        permission: isEditor,
        docs: { responses: { '200': { description: 'Followers, oldest first' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          const p = paging(ctx);
          return paged(await admin.followers({ status: ctx.args.status, ...p }), p.limit);
        },
      }),
    ]),
    route('/federation/followers/{id}', [
      endpoint({
        methods: ['DELETE'],
        args: { id: idArg },
        permission: isEditor,
        docs: { responses: { '200': { description: 'Removed: nothing more is sent to it' }, '404': { description: 'No such follower' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          if (!(await admin.remove(Number(ctx.path.id)))) throw apiError('federation_follower_not_found');
          return { body: { deleted: true, id: Number(ctx.path.id) } };
        },
      }),
    ]),
    route('/federation/followers/{id}/accept', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg },
        permission: isEditor,
        docs: {
          responses: {
            '200': { description: 'Accepted: an Accept is sent, and the follower gets activities from now on' },
            '404': { description: 'No such follower' },
            '409': { description: 'Not pending' },
            ...NOT_ALLOWED,
          },
        },
        handler: async (ctx) => {
          const r = await admin.accept(Number(ctx.path.id));
          if (r === undefined) throw apiError('federation_follower_not_found');
          if (r === 'not-pending') throw apiError('federation_follower_not_pending');
          return { body: r };
        },
      }),
    ]),
    route('/federation/followers/{id}/reject', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg },
        permission: isEditor,
        docs: { responses: { '200': { description: 'Rejected: a Reject is sent and the follow removed' }, '404': { description: 'No such pending follower' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          if (!(await admin.reject(Number(ctx.path.id)))) throw apiError('federation_follower_not_found');
          return { body: { rejected: true, id: Number(ctx.path.id) } };
        },
      }),
    ]),
    route('/federation/deliveries', [
      endpoint({
        methods: ['GET'],
        args: { page: pageArg(), per_page: perPage, status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'gone'], description: 'Only deliveries in this state' } },
        permission: isEditor,
        docs: { responses: { '200': { description: 'Deliveries, newest first (activity, inbox, state, attempts, last answer)' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          const p = paging(ctx);
          return paged(await admin.deliveries({ status: ctx.args.status, ...p }), p.limit);
        },
      }),
    ]),
    route('/federation/deliveries/{id}/retry', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg },
        permission: isEditor,
        docs: { responses: { '202': { description: 'Pending again: sent at once' }, '404': { description: 'No failed or gone delivery with this ID' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          if (!(await admin.retry(Number(ctx.path.id)))) throw apiError('federation_delivery_not_found');
          return { status: 202, body: { retried: true, id: Number(ctx.path.id) } };
        },
      }),
    ]),
    route('/federation/received', [
      endpoint({
        methods: ['GET'],
        args: { page: pageArg(), per_page: perPage },
        permission: isEditor,
        docs: { responses: { '200': { description: 'Activities kept for moderation (FEDERATION_KEEP_ACTIVITIES=true), newest first' }, ...NOT_ALLOWED } },
        handler: async (ctx) => {
          const p = paging(ctx);
          return paged(await admin.received(p), p.limit);
        },
      }),
    ]),
  ];
}
