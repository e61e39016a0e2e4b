/**
 * Webhook endpoints as an administrator manages them: list, create (its cursor at the change
 * log's head), update, enable or disable, delete, and their deliveries with the attempts' log,
 * redelivery included.
 *
 * @example
 *   const endpoints = createEndpoints(deps);
 *   const ep = await endpoints.create({ url: 'https://example.org/hook', events: ['event.created'] });
 */
import {
  anyEndpointEnabled,
  attemptsOf,
  deleteEndpoint,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  resetDelivery,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
} from '../store/webhooks.js';
import { newSecret } from './send.js';
import { gmtNow, iso, type AttemptJson, type DeliveryJson, type EndpointJson, type WebhookService, type WebhookServiceDeps } from './types.js';

function endpointJson(r: EndpointRow): EndpointJson {
  return {
    id: Number(r.id),
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events) as string[],
    secret: r.secret,
    enabled: Number(r.enabled) === 1,
    disabled_reason: r.disabled_reason ?? null,
    failing_since: iso(r.failing_since),
    created: r.created_gmt.replace(' ', 'T') + 'Z',
  };
}

/** The endpoint management of the service. */
export type WebhookEndpoints = Pick<WebhookService, 'list' | 'get' | 'create' | 'update' | 'remove' | 'deliveries' | 'delivery' | 'redeliver' | 'anyEnabled' | 'knownNoneEnabled'>;

export function createEndpoints(deps: WebhookServiceDeps): WebhookEndpoints {
  const { store } = deps.services;
  const db = store.db;

  async function loadDeliveries(rows: DeliveryRow[]): Promise<DeliveryJson[]> {
    if (rows.length === 0) return [];
    const attempts = await attemptsOf(
      db,
      rows.map((r) => r.id),
    );
    const byDelivery = new Map<string, AttemptJson[]>();
    for (const a of attempts) {
      let list = byDelivery.get(a.delivery_id);
      if (!list) byDelivery.set(a.delivery_id, (list = []));
      list.push({ time: a.attempted_gmt, outcome: a.outcome, response_code: a.response_code === null ? null : Number(a.response_code), duration_ms: Number(a.duration_ms), error: a.error });
    }
    return rows.map((r) => ({
      id: r.id,
      endpoint_id: Number(r.endpoint_id),
      type: r.type,
      status: r.status,
      attempts: Number(r.attempts),
      next_attempt: r.status === 'pending' ? iso(r.next_attempt_ms) : null,
      last_response_code: r.last_response_code === null ? null : Number(r.last_response_code),
      created: r.created_gmt.replace(' ', 'T') + 'Z',
      payload: JSON.parse(r.payload),
      log: byDelivery.get(r.id) ?? [],
    }));
  }

  // When the store last answered that no endpoint is enabled (undefined: it did not, or an
  // endpoint changed in this process since). `changes` counts this process's endpoint writes: an
  // answer read while one happened is not kept (it may predate it).
  let noneEnabledAt: number | undefined;
  let changes = 0;
  const changed = () => {
    changes++;
    noneEnabledAt = undefined;
  };

  const endpoints: WebhookEndpoints = {
    async list() {
      return (await listEndpoints(db)).map(endpointJson);
    },
    async get(id) {
      const row = await findEndpoint(db, id);
      return row ? endpointJson(row) : undefined;
    },
    async create(input) {
      const cursor = await store.changes.head();
      // The calendar's `webhook_endpoints` quota, counted in the insert's transaction (domain/quotas.ts).
      const id = await deps.services.quotas.write(db, 'webhook_endpoints', 1, (on) =>
        insertEndpoint(on, {
          url: input.url,
          secret: input.secret ?? newSecret(),
          events: JSON.stringify(input.events && input.events.length ? input.events : ['*']),
          description: input.description ?? '',
          enabled: 1,
          disabled_reason: null,
          cursor_seq: cursor,
          failing_since: null,
          created_gmt: gmtNow(),
        }),
      );
      changed();
      return (await endpoints.get(id))!;
    },
    async update(id, patch) {
      const set: Record<string, unknown> = {};
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.events !== undefined) set.events = JSON.stringify(patch.events.length ? patch.events : ['*']);
      if (patch.secret !== undefined) set.secret = patch.secret;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.enabled !== undefined) Object.assign(set, patch.enabled ? { enabled: 1, disabled_reason: null, failing_since: null } : { enabled: 0, disabled_reason: 'disabled by an administrator' });
      if (Object.keys(set).length) await updateEndpoint(db, id, set);
      changed();
      return endpoints.get(id);
    },
    async remove(id) {
      const found = await endpoints.get(id);
      if (!found) return undefined;
      await deleteEndpoint(db, id);
      changed();
      return found;
    },
    async deliveries(endpointId, options = {}) {
      const { rows, total } = await listDeliveries(db, endpointId, options);
      return { items: await loadDeliveries(rows), total };
    },
    async delivery(endpointId, id) {
      const row = await findDelivery(db, endpointId, id);
      return row ? (await loadDeliveries([row]))[0] : undefined;
    },
    async redeliver(endpointId, id) {
      if (!(await resetDelivery(db, endpointId, id, Date.now()))) return undefined;
      changed();
      return endpoints.delivery(endpointId, id);
    },
    knownNoneEnabled(maxAgeMs) {
      return noneEnabledAt !== undefined && Date.now() - noneEnabledAt < maxAgeMs;
    },
    async anyEnabled(maxAgeMs = 0) {
      const now = Date.now();
      if (endpoints.knownNoneEnabled(maxAgeMs)) return false;
      const before = changes;
      const any = await anyEndpointEnabled(db);
      if (changes === before) noneEnabledAt = any ? undefined : now;
      return any;
    },
  };
  return endpoints;
}
