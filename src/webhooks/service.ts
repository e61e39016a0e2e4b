/**
 * Webhooks (issue 11): endpoints, the outbox, deliveries and their attempts.
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
 */
import { rowsCoveredBySeries } from '../store/recurrence.js';
import type { Config } from '../config.js';
import type { Services } from '../domain/services.js';
import { viewerOf, type Viewer } from '../domain/permissions.js';
import { toTermJson } from '../domain/representations/term.js';
import { runConsumer, type ChangeConsumer, type ChangeRow } from '../store/change-log.js';
import { findTermById } from '../store/terms.js';
import {
  anyEndpointEnabled,
  attemptsOf,
  claimDeliveries,
  deleteEndpoint,
  enabledEndpoints,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  recordAttempt as storeAttempt,
  resetDelivery,
  storeDeliveries,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
} from '../store/webhooks.js';
import { newSecret, sendWebhook, type AttemptResult } from './send.js';

export const RECORD_KINDS = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export const ACTIONS = ['created', 'updated', 'trashed', 'deleted'] as const;
/** Every event type an endpoint may ask for. */
export const EVENT_TYPES: readonly string[] = RECORD_KINDS.flatMap((r) => ACTIONS.map((a) => `${r}.${a}`));

const ACTION_OF: Record<string, (typeof ACTIONS)[number]> = { create: 'created', update: 'updated', trash: 'trashed', delete: 'deleted' };

/** Log rows turned into deliveries per endpoint and run. */
const BATCH = 500;
/** Deliveries claimed at once. */
const CLAIM = 20;

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

function iso(ms: number | string | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

function gmtNow(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}

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

/** Whether an endpoint asking for `events` wants this type. */
export function wants(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
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
  /** Turn new log rows into deliveries for every enabled endpoint; returns how many were made. */
  materialize(): Promise<number>;
  /** Send the deliveries due now (one claim); returns how many were sent. */
  deliverDue(): Promise<number>;
  /** Whether any endpoint is enabled (the worker idles otherwise). */
  anyEnabled(): Promise<boolean>;
}

export function createWebhookService(services: Services, config: Pick<Config, 'webhooksAllowPrivate' | 'webhooksRetrySchedule' | 'webhooksDisableAfterMs' | 'webhooksTimeoutMs'>): WebhookService {
  const { store } = services;
  const db = store.db;
  const postgres = store.dialect === 'postgres';
  /** Payloads are what an administrator reads. */
  const admin: Viewer = viewerOf({ id: 2 ** 31 - 1, login: 'webhooks', role: 'administrator' });

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

  /** The webhook type and data of one log row (undefined: not a record change an endpoint can ask for). */
  async function messageOf(row: ChangeRow): Promise<{ type: string; data: unknown } | undefined> {
    const action = ACTION_OF[row.action];
    if (!action) return undefined;
    const id = row.id;
    const links = services.links;
    const tombstone = (status: 'trash' | 'deleted') => ({ id, status });
    switch (row.type) {
      case 'event': {
        const record = await services.events.findById(id);
        if (!record) return { type: `event.${action}`, data: tombstone('deleted') };
        if (action === 'trashed' || action === 'deleted') return { type: `event.${action}`, data: tombstone(action === 'trashed' ? 'trash' : 'deleted') };
        const [json] = await services.events.represent([record], admin, 'single', links);
        return { type: `event.${action}`, data: json };
      }
      case 'venue':
      case 'organizer': {
        const service = row.type === 'venue' ? services.venues : services.organizers;
        const record = await service.findById(db, id);
        if (!record) return { type: `${row.type}.${action}`, data: tombstone('deleted') };
        if (action === 'trashed' || action === 'deleted') return { type: `${row.type}.${action}`, data: tombstone(action === 'trashed' ? 'trash' : 'deleted') };
        const [json] = await service.represent([record], links, 'single');
        return { type: `${row.type}.${action}`, data: json };
      }
      case 'term': {
        const term = await findTermById(db, id);
        const taxonomy = term?.taxonomy ?? row.detail?.taxonomy;
        if (taxonomy === undefined) return undefined;
        const kind = taxonomy === 'tribe_events_cat' ? 'category' : 'tag';
        if (!term || action === 'deleted') return { type: `${kind}.${action}`, data: tombstone('deleted') };
        return { type: `${kind}.${action}`, data: toTermJson(term, links) };
      }
      default:
        return undefined;
    }
  }

  /**
   * An endpoint as a change-log consumer: its cursor is `cursor_seq`; its handler turns the rows
   * into deliveries and moves the cursor with them (`storeDeliveries`, a compare-and-set).
   */
  function endpointConsumer(
    ep: { id: number | string; cursor_seq: number | string; events: string },
    cache: Map<string, { type: string; data: unknown; time: string } | null>,
    made: { count: number },
  ): ChangeConsumer {
    const events = JSON.parse(ep.events) as string[];
    const endpointId = Number(ep.id);
    return {
      limit: BATCH,
      cursor: () => Number(ep.cursor_seq),
      async handle(rows, { from, through }) {
        const deliveries: Array<Parameters<typeof storeDeliveries>[4][number]> = [];
        const created = gmtNow();
        // A change to a recurring event's series is delivered once, as the series (issue 15).
        const covered = await rowsCoveredBySeries(
          db,
          rows.map((r) => ({ seq: r.seq, idx: r.idx, record_type: r.type, record_id: r.id, detail: r.detailText })),
        );
        for (const r of rows) {
          const key = `${r.seq}:${r.idx}`;
          if (covered.has(key)) continue;
          let message = cache.get(key);
          if (message === undefined) {
            const m = await messageOf(r);
            message = m ? { ...m, time: r.created_gmt.replace(' ', 'T') + 'Z' } : null;
            cache.set(key, message);
          }
          if (!message || !wants(events, message.type)) continue;
          deliveries.push({
            id: `msg_${endpointId}_${r.seq}_${r.idx}`,
            endpoint_id: endpointId,
            seq: r.seq,
            idx: r.idx,
            record_key: `${r.type}:${r.id}`,
            type: message.type,
            payload: JSON.stringify({ type: message.type, timestamp: message.time, data: message.data }),
            status: 'pending',
            attempts: 0,
            next_attempt_ms: Date.now(),
            lease_until_ms: 0,
            created_gmt: created,
          });
        }
        made.count += await storeDeliveries(db, endpointId, from, through, deliveries);
      },
    };
  }

  async function recordAttempt(d: { id: string; endpoint_id: number | string; attempts: number | string }, result: AttemptResult, startedMs: number): Promise<void> {
    const now = Date.now();
    const attempts = Number(d.attempts) + 1;
    const schedule = config.webhooksRetrySchedule;
    const spent = attempts > schedule.length;
    await storeAttempt(db, {
      deliveryId: d.id,
      endpointId: Number(d.endpoint_id),
      attempts,
      attempt: {
        attempted_gmt: new Date(startedMs).toISOString(),
        outcome: result.ok ? 'succeeded' : result.refused ? 'refused' : result.status !== undefined ? 'failed' : 'error',
        response_code: result.status ?? null,
        duration_ms: result.durationMs,
        error: result.error ?? null,
      },
      ok: result.ok,
      responseCode: result.status ?? null,
      ...(spent ? {} : { nextAttemptMs: now + schedule[attempts - 1]! }),
      startedMs,
      now,
      disableAfterMs: config.webhooksDisableAfterMs,
    });
  }

  const service: WebhookService = {
    async list() {
      return (await listEndpoints(db)).map(endpointJson);
    },
    async get(id) {
      const row = await findEndpoint(db, id);
      return row ? endpointJson(row) : undefined;
    },
    async create(input) {
      const cursor = await store.changes.head();
      const id = await insertEndpoint(db, {
        url: input.url,
        secret: input.secret ?? newSecret(),
        events: JSON.stringify(input.events && input.events.length ? input.events : ['*']),
        description: input.description ?? '',
        enabled: 1,
        disabled_reason: null,
        cursor_seq: cursor,
        failing_since: null,
        created_gmt: gmtNow(),
      });
      return (await service.get(id))!;
    },
    async update(id, patch) {
      const set: Record<string, unknown> = {};
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.events !== undefined) set.events = JSON.stringify(patch.events.length ? patch.events : ['*']);
      if (patch.secret !== undefined) set.secret = patch.secret;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.enabled !== undefined) Object.assign(set, patch.enabled ? { enabled: 1, disabled_reason: null, failing_since: null } : { enabled: 0, disabled_reason: 'disabled by an administrator' });
      if (Object.keys(set).length) await updateEndpoint(db, id, set);
      return service.get(id);
    },
    async remove(id) {
      const found = await service.get(id);
      if (!found) return undefined;
      await deleteEndpoint(db, id);
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
      return service.delivery(endpointId, id);
    },
    async materialize() {
      const endpoints = await enabledEndpoints(db);
      if (endpoints.length === 0) return 0;
      const to = await store.changes.head();
      const cache = new Map<string, { type: string; data: unknown; time: string } | null>();
      const made = { count: 0 };
      // One batch per endpoint and run (the worker runs again while there is more).
      for (const ep of endpoints) await runConsumer(store.changes, endpointConsumer(ep, cache, made), to);
      return made.count;
    },
    async deliverDue() {
      const now = Date.now();
      const claimed = await claimDeliveries(db, { now, leaseUntilMs: now + 2 * config.webhooksTimeoutMs + 1000, limit: CLAIM, skipLocked: postgres });
      await Promise.all(
        claimed.map(async (d) => {
          const started = Date.now();
          const result = await sendWebhook(d.url, d.id, d.payload, d.secret, { timeoutMs: config.webhooksTimeoutMs, allowPrivate: config.webhooksAllowPrivate });
          await recordAttempt(d, result, started);
        }),
      );
      return claimed.length;
    },
    async anyEnabled() {
      return anyEndpointEnabled(db);
    },
  };
  return service;
}
