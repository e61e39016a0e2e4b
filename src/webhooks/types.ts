/**
 * The webhook service's vocabulary: the event types an endpoint may ask for, the wire objects of
 * endpoints, deliveries and attempts, what the service needs (`WebhookServiceDeps`) and offers
 * (`WebhookService`), and the time formats its parts share.
 *
 * @example
 *   EVENT_TYPES.includes('venue.updated') // true
 */
import type { Config } from '../config.js';
import type { DomainServices } from '../domain/services.js';

export const RECORD_KINDS = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export const ACTIONS = ['created', 'updated', 'trashed', 'deleted'] as const;
/**
 * Community submissions' event types: their payloads say the submission's id, status,
 * event id, reason and flags, never the submitter's name, e-mail or address.
 */
export const SUBMISSION_EVENT_TYPES = ['submission.received', 'submission.approved', 'submission.rejected', 'submission.changes_requested'] as const;
/** Every event type an endpoint may ask for. */
export const EVENT_TYPES: readonly string[] = [...RECORD_KINDS.flatMap((r) => ACTIONS.map((a) => `${r}.${a}`)), ...SUBMISSION_EVENT_TYPES];

export interface EndpointJson {
  id: number;
  url: string;
  description: string;
  events: string[];
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created: string;
}

export interface AttemptJson {
  time: string;
  outcome: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface DeliveryJson {
  id: string;
  endpoint_id: number;
  type: string;
  status: string;
  attempts: number;
  next_attempt: string | null;
  last_response_code: number | null;
  created: string;
  payload: unknown;
  log: AttemptJson[];
}

/** How a test delivery went. */
export interface TestDeliveryJson {
  id: string;
  type: typeof TEST_EVENT_TYPE;
  ok: boolean;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** The type of the message "Send a test delivery" sends: no endpoint subscribes to it, every endpoint takes it. */
export const TEST_EVENT_TYPE = 'webhook.test';

export function iso(ms: number | string | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

export function gmtNow(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

export interface WebhookService {
  list(): Promise<EndpointJson[]>;
  get(id: number): Promise<EndpointJson | undefined>;
  create(input: { url: string; events?: string[]; secret?: string; description?: string }): Promise<EndpointJson>;
  update(id: number, patch: { url?: string; events?: string[]; secret?: string; description?: string; enabled?: boolean }): Promise<EndpointJson | undefined>;
  remove(id: number): Promise<EndpointJson | undefined>;
  deliveries(endpointId: number, options?: { status?: string; limit?: number; offset?: number }): Promise<{ items: DeliveryJson[]; total: number }>;
  delivery(endpointId: number, id: string): Promise<DeliveryJson | undefined>;
  redeliver(endpointId: number, id: string): Promise<DeliveryJson | undefined>;
  /**
   * Send a `webhook.test` message to an endpoint now (signed as any delivery, kept in no log) and
   * answer how it went: an administrator checks a receiver without waiting for a change.
   */
  test(endpointId: number): Promise<TestDeliveryJson | undefined>;
  /** Turn new log rows into deliveries for every enabled endpoint; returns how many were made. */
  materialize(): Promise<number>;
  /** Send the deliveries due now (one claim); returns how many were sent. */
  deliverDue(): Promise<number>;
  /**
   * Whether any endpoint is enabled (the worker idles otherwise). With `maxAgeMs`, a "no" the
   * store gave less than that long ago is answered again without asking it, unless an endpoint
   * was created, changed, removed or redelivered to in this process since (another process's
   * change is seen once the "no" is that old).
   */
  anyEnabled(maxAgeMs?: number): Promise<boolean>;
  /** Whether `anyEnabled(maxAgeMs)` would answer false without asking the store (synchronous). */
  knownNoneEnabled(maxAgeMs: number): boolean;
}

/** The settings the service reads. */
export type WebhookConfig = Pick<Config, 'webhooksAllowPrivate' | 'webhooksRetrySchedule' | 'webhooksDisableAfterMs' | 'webhooksTimeoutMs'>;

/** What the service's parts share. */
export interface WebhookServiceDeps {
  services: DomainServices;
  config: WebhookConfig;
}
