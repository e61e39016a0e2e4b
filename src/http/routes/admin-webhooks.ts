/**
 * `{REST_ROOT}/calendar/admin/v1`: this service's own extensions for administrators,
 * declared like every other route (so they appear in this namespace's index and `/doc`):
 *
 * - `GET /webhooks`, `POST /webhooks` `{url, events?, secret?, description?}` (201, with `id` and
 *   the `whsec_…` secret, generated when not given);
 * - `GET`/`PATCH`/`DELETE /webhooks/{id}` (`PATCH {enabled: true}` re-enables a disabled endpoint);
 * - `GET /webhooks/{id}/deliveries` (newest first, each with its attempt log);
 * - `POST /webhooks/{id}/deliveries/{delivery}/redeliver` (202: sent again at once);
 * - `POST /webhooks/{id}/test`: a `webhook.test` message sent now, and how it went;
 * - `GET /webhook-event-types`: the event types an endpoint may ask for.
 *
 * Administrators only: 401 without credentials, 403 for other roles.
 */
import type { Services } from '../../domain/services.js';
import { apiError } from '../../domain/errors.js';
import { isPositiveInt } from '../../domain/values.js';
import { EVENT_TYPES, TEST_EVENT_TYPE, type WebhookService } from '../../webhooks/service.js';
import { checkEvents, checkSecret, checkUrl, eventList } from '../../webhooks/validate.js';
import { endpoint, route, type ArgSpec, type EndpointContext, type RouteDecl } from '../route.js';
import { listHeaders } from '../paging.js';
import { docRoutes } from './doc.js';
import { namespaceRoutes } from './namespace.js';
import { pageArg } from './common.js';

/** The namespace of this service's own administration routes. */
export const ADMIN_NAMESPACE = 'calendar/admin/v1';

const isAdministrator = (ctx: EndpointContext) => ctx.viewer.role === 'administrator';

/** What the webhook routes share: the service, their argument specs and the endpoint loader. */
interface WebhookRouteContext {
  webhooks: WebhookService;
  urlArg: (required: boolean) => ArgSpec;
  eventsArg: ArgSpec;
  secretArg: ArgSpec;
  descriptionArg: ArgSpec;
  idArg: ArgSpec;
  load: (ctx: Omit<EndpointContext, 'record'>) => Promise<Awaited<ReturnType<WebhookService['get']>> | null>;
}

const mustHave = <R>(ctx: EndpointContext<R>): R => {
  if (!ctx.record) throw apiError('rest_webhook_not_found');
  return ctx.record;
};

export function adminRoutes(services: Services, webhooks: WebhookService): RouteDecl[] {
  const allowPrivate = services.config.webhooksAllowPrivate;
  const c: WebhookRouteContext = {
    webhooks,
    urlArg: (required) => ({
      type: 'string',
      description: 'Where deliveries are POSTed (http or https). Loopback, private and link-local targets are refused unless WEBHOOKS_ALLOW_PRIVATE=true.',
      required,
      validate: (v) => checkUrl(v, allowPrivate),
    }),
    eventsArg: {
      type: 'array',
      items: { type: 'string' },
      description: `Event types to deliver (${EVENT_TYPES.join(', ')}), or * (the default) for all`,
      validate: checkEvents,
      sanitize: eventList,
    },
    secretArg: {
      type: 'string',
      description: 'The signing secret in Standard Webhooks form (whsec_ and base64 of 24 to 64 bytes); generated when not given',
      validate: checkSecret,
    },
    descriptionArg: { type: 'string', description: 'A note for administrators' },
    idArg: { type: 'integer', description: 'The webhook endpoint ID', required: true, in: 'path' },
    load: async (ctx) => (await webhooks.get(Number(ctx.path.id))) ?? null,
  };
  const routes: RouteDecl[] = [];
  routes.push(...namespaceRoutes(services, () => routes));
  routes.push(...docRoutes(services, () => routes));
  routes.push(...endpointRoutes(c), ...deliveryRoutes(c));
  return routes;
}

/** `/webhooks` and `/webhooks/{id}`: the endpoints themselves. */
function endpointRoutes({ webhooks, urlArg, eventsArg, secretArg, descriptionArg, idArg, load }: WebhookRouteContext): RouteDecl[] {
  return [
    route('/webhooks', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The webhook endpoints' }, '401': { description: 'Not logged in' }, '403': { description: 'Not an administrator' } } },
        handler: async () => ({ body: await webhooks.list() }),
      }),
      endpoint({
        methods: ['POST'],
        args: { url: urlArg(true), events: eventsArg, secret: secretArg, description: descriptionArg },
        permission: isAdministrator,
        docs: { responses: { '201': { description: 'The created endpoint, with its id and secret' }, '400': { description: 'A parameter is missing or invalid' } } },
        handler: async (ctx) => {
          const created = await webhooks.create({ url: ctx.args.url, events: ctx.args.events, secret: ctx.args.secret, description: ctx.args.description });
          return { status: 201, body: created, headers: { location: ctx.links.rest(`webhooks/${created.id}`) } };
        },
      }),
    ]),
    route('/webhooks/{id}', [
      endpoint({
        methods: ['GET'],
        args: { id: idArg },
        load,
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The endpoint' }, '404': { description: 'No such endpoint' } } },
        handler: async (ctx) => ({ body: mustHave(ctx) }),
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: {
          id: idArg,
          url: urlArg(false),
          events: eventsArg,
          secret: secretArg,
          description: descriptionArg,
          enabled: { type: 'boolean', description: 'false pauses deliveries; true re-enables an endpoint (also one disabled after failing for a day)' },
        },
        load,
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The updated endpoint' }, '404': { description: 'No such endpoint' } } },
        handler: async (ctx) => {
          const found = mustHave(ctx) as { id: number };
          const patch: Record<string, unknown> = {};
          for (const k of ['url', 'events', 'secret', 'description', 'enabled']) if (ctx.sent.has(k)) patch[k] = ctx.args[k];
          return { body: await webhooks.update(found.id, patch) };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: { id: idArg },
        load,
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The removed endpoint (its deliveries and their log are removed too)' }, '404': { description: 'No such endpoint' } } },
        handler: async (ctx) => ({ body: await webhooks.remove((mustHave(ctx) as { id: number }).id) }),
      }),
    ]),
  ];
}

/** Deliveries, test messages, redelivery and the event types. */
function deliveryRoutes({ webhooks, idArg, load }: WebhookRouteContext): RouteDecl[] {
  return [
    route('/webhooks/{id}/deliveries', [
      endpoint({
        methods: ['GET'],
        args: {
          id: idArg,
          page: pageArg(),
          per_page: { default: '20', type: 'integer', description: 'Deliveries per page (at most 100)', validate: (v) => isPositiveInt(v) },
          status: { type: 'string', enum: ['pending', 'succeeded', 'failed'], description: 'Only deliveries in this state' },
        },
        load,
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'Deliveries, newest first, each with its attempts (time, outcome, response code, duration)' }, '404': { description: 'No such endpoint' } } },
        handler: async (ctx) => {
          const found = mustHave(ctx) as { id: number };
          const perPage = Math.min(100, Number(ctx.args.per_page));
          const page = Number(ctx.args.page);
          const { items, total } = await webhooks.deliveries(found.id, { status: ctx.args.status, limit: perPage, offset: (page - 1) * perPage });
          const totalPages = Math.ceil(total / perPage);
          return { body: items, headers: listHeaders(total, totalPages) };
        },
      }),
    ]),
    route('/webhooks/{id}/test', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg },
        load,
        permission: isAdministrator,
        docs: {
          responses: {
            '200': { description: `How a ${TEST_EVENT_TYPE} message sent now went: ok, response_code, duration_ms, error (kept in no delivery log)` },
            '404': { description: 'No such endpoint' },
          },
        },
        handler: async (ctx) => {
          const found = mustHave(ctx) as { id: number };
          return { body: await webhooks.test(found.id) };
        },
      }),
    ]),
    route('/webhook-event-types', [
      endpoint({
        methods: ['GET'],
        args: {},
        permission: isAdministrator,
        docs: { responses: { '200': { description: 'The event types an endpoint may ask for (its events), for the admin app’s form' } } },
        handler: async () => ({ body: [...EVENT_TYPES] }),
      }),
    ]),
    route('/webhooks/{id}/deliveries/{delivery}/redeliver', [
      endpoint({
        methods: ['POST'],
        args: { id: idArg, delivery: { type: 'string', description: 'The delivery ID (its webhook-id)', required: true, in: 'path' } },
        load,
        permission: isAdministrator,
        docs: { responses: { '202': { description: 'The delivery, pending again: sent at once' }, '404': { description: 'No such endpoint or delivery' } } },
        handler: async (ctx) => {
          const found = mustHave(ctx) as { id: number };
          const again = await webhooks.redeliver(found.id, String(ctx.path.delivery));
          if (!again) throw apiError('rest_webhook_delivery_not_found');
          return { status: 202, body: again };
        },
      }),
    ]),
  ];
}
