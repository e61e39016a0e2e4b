/**
 * Webhooks: endpoints, the outbox, deliveries and their attempts.
 *
 * The outbox is the change log itself (`changes`, written in each write's own transaction by
 * `writeTransaction`): each endpoint keeps a cursor in it (`cursor_seq`). Turning the log rows
 * after the cursor into deliveries (`materialize`) and moving the cursor happen in one transaction,
 * guarded by a compare-and-set on the cursor, so two instances never make the same deliveries (and
 * delivery ids are deterministic, `msg_<endpoint>_<seq>_<idx>`, the primary key, as a second
 * guard). A crash after a write's commit loses nothing: the log rows are there, the cursor has
 * not moved, the next run makes the deliveries.
 *
 * Sending (`deliverDue`) claims due deliveries with a lease (`lease_until_ms`), on PostgreSQL with
 * `SELECT … FOR UPDATE SKIP LOCKED`, so several instances on one database send each message once
 * in the normal case; a delivery waits while an earlier one of the same record to the same
 * endpoint is pending (in order per record). Failures are retried on WEBHOOKS_RETRY_SCHEDULE (by
 * default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.6 h), every attempt logged; an
 * endpoint failing for WEBHOOKS_DISABLE_AFTER (24 h) without a success is disabled until an
 * administrator enables it again.
 *
 * The service is composed of parts: endpoint management and the deliveries' log (`endpoints.ts`),
 * the outbox (`outbox.ts`) and sending (`delivery.ts`); the vocabulary is in `types.ts`.
 */
import type { DomainServices } from '../domain/services.js';
import { createDelivery } from './delivery.js';
import { createEndpoints } from './endpoints.js';
import { createOutbox } from './outbox.js';
import { randomBytes } from 'node:crypto';
import { sendWebhook } from './send.js';
import { TEST_EVENT_TYPE, type WebhookConfig, type WebhookService } from './types.js';

export { ACTIONS, EVENT_TYPES, RECORD_KINDS, TEST_EVENT_TYPE, type AttemptJson, type DeliveryJson, type EndpointJson, type WebhookService } from './types.js';
export { wants } from './outbox.js';

export function createWebhookService(services: DomainServices, config: WebhookConfig): WebhookService {
  const deps = { services, config };
  const endpoints = createEndpoints(deps);
  const outbox = createOutbox(deps);
  const delivery = createDelivery(deps);
  return {
    list: endpoints.list,
    get: endpoints.get,
    create: endpoints.create,
    update: endpoints.update,
    remove: endpoints.remove,
    deliveries: endpoints.deliveries,
    delivery: endpoints.delivery,
    redeliver: endpoints.redeliver,
    async test(endpointId) {
      const endpoint = await endpoints.get(endpointId);
      if (!endpoint) return undefined;
      const id = `msg_test_${endpointId}_${randomBytes(6).toString('hex')}`;
      const body = JSON.stringify({
        type: TEST_EVENT_TYPE,
        timestamp: new Date().toISOString(),
        data: { endpoint_id: endpointId, message: 'A test delivery sent from the calendar’s administration.' },
      });
      const r = await sendWebhook(endpoint.url, id, body, endpoint.secret, { timeoutMs: config.webhooksTimeoutMs, allowPrivate: config.webhooksAllowPrivate });
      return { id, type: TEST_EVENT_TYPE, ok: r.ok, response_code: r.status ?? null, duration_ms: r.durationMs, error: r.error ?? (r.ok ? null : `HTTP ${r.status}`) };
    },
    materialize: outbox.materialize,
    deliverDue: delivery.deliverDue,
    anyEnabled: endpoints.anyEnabled,
    knownNoneEnabled: endpoints.knownNoneEnabled,
  };
}
