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
import { sql } from 'kysely';
import type { Config } from '../config.js';
import type { Services } from '../domain/services.js';
import { viewerOf, type Viewer } from '../domain/permissions.js';
import { toTermJson } from '../domain/representations/term.js';
import { lastSeq } from '../store/changes.js';
import type { Executor } from '../store/schema.js';
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

function endpointJson(r: any): EndpointJson {
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

  async function loadDeliveries(rows: any[]): Promise<DeliveryJson[]> {
    if (rows.length === 0) return [];
    const attempts = await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id')
      .execute();
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
  async function messageOf(row: { record_type: string; record_id: number | string; action: string; detail: string | null }): Promise<{ type: string; data: unknown } | undefined> {
    const action = ACTION_OF[row.action];
    if (!action) return undefined;
    const id = Number(row.record_id);
    const links = services.links;
    const tombstone = (status: 'trash' | 'deleted') => ({ id, status });
    switch (row.record_type) {
      case 'event': {
        const record = await services.events.findById(id);
        if (!record) return { type: `event.${action}`, data: tombstone('deleted') };
        if (action === 'trashed' || action === 'deleted') return { type: `event.${action}`, data: tombstone(action === 'trashed' ? 'trash' : 'deleted') };
        const [json] = await services.events.represent([record], admin, 'single', links);
        return { type: `event.${action}`, data: json };
      }
      case 'venue':
      case 'organizer': {
        const service = row.record_type === 'venue' ? services.venues : services.organizers;
        const record = await service.findById(db, id);
        if (!record) return { type: `${row.record_type}.${action}`, data: tombstone('deleted') };
        if (action === 'trashed' || action === 'deleted') return { type: `${row.record_type}.${action}`, data: tombstone(action === 'trashed' ? 'trash' : 'deleted') };
        const [json] = await service.represent([record], links, 'single');
        return { type: `${row.record_type}.${action}`, data: json };
      }
      case 'term': {
        const term = await db.selectFrom('terms').selectAll().where('id', '=', id).executeTakeFirst();
        const taxonomy = term?.taxonomy ?? (row.detail ? (JSON.parse(row.detail) as { taxonomy?: string }).taxonomy : undefined);
        if (taxonomy === undefined) return undefined;
        const kind = taxonomy === 'tribe_events_cat' ? 'category' : 'tag';
        if (!term || action === 'deleted') return { type: `${kind}.${action}`, data: tombstone('deleted') };
        return { type: `${kind}.${action}`, data: toTermJson(term, links) };
      }
      default:
        return undefined;
    }
  }

  async function materializeEndpoint(
    ep: { id: number | string; cursor_seq: number | string; events: string },
    to: number,
    cache: Map<string, { type: string; data: unknown; time: string } | null>,
  ): Promise<number> {
    const from = Number(ep.cursor_seq);
    if (from >= to) return 0;
    let rows = await db
      .selectFrom('changes')
      .select(['seq', 'idx', 'record_type', 'record_id', 'action', 'detail', 'created_gmt'])
      .where('seq', '>', from)
      .where('seq', '<=', to)
      .orderBy('seq')
      .orderBy('idx')
      .limit(BATCH)
      .execute();
    let cursor = to;
    if (rows.length === BATCH) {
      // Stop at a whole sequence number (a write's rows go together).
      const last = Number(rows[rows.length - 1]!.seq);
      const before = rows.filter((r) => Number(r.seq) < last);
      if (before.length) {
        rows = before;
        cursor = last - 1;
      } else {
        rows = await db.selectFrom('changes').select(['seq', 'idx', 'record_type', 'record_id', 'action', 'detail', 'created_gmt']).where('seq', '=', last).orderBy('idx').execute();
        cursor = last;
      }
    }
    const events = JSON.parse(ep.events) as string[];
    const endpointId = Number(ep.id);
    const deliveries: Array<Record<string, unknown>> = [];
    const created = gmtNow();
    // A change to a recurring event's series is delivered once, as the series (issue 15).
    const covered = await rowsCoveredBySeries(db, rows);
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
        seq: Number(r.seq),
        idx: Number(r.idx),
        record_key: `${r.record_type}:${r.record_id}`,
        type: message.type,
        payload: JSON.stringify({ type: message.type, timestamp: message.time, data: message.data }),
        status: 'pending',
        attempts: 0,
        next_attempt_ms: Date.now(),
        lease_until_ms: 0,
        created_gmt: created,
      });
    }
    return db.transaction().execute(async (trx) => {
      // Compare-and-set: another instance that got here first moved the cursor; then nothing is made.
      const moved = await trx.updateTable('webhook_endpoints').set({ cursor_seq: cursor }).where('id', '=', endpointId).where('cursor_seq', '=', from).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return 0;
      for (let i = 0; i < deliveries.length; i += 100)
        await trx
          .insertInto('webhook_deliveries')
          .values(deliveries.slice(i, i + 100) as never)
          .execute();
      return deliveries.length;
    });
  }

  async function claim(now: number): Promise<any[]> {
    return db.transaction().execute(async (trx) => {
      const due = await sql<{ id: string }>`
        select d."id" from "webhook_deliveries" d inner join "webhook_endpoints" e on e."id" = d."endpoint_id"
        where d."status" = 'pending' and d."next_attempt_ms" <= ${now} and d."lease_until_ms" < ${now} and e."enabled" = 1
          and not exists (
            select 1 from "webhook_deliveries" p
            where p."endpoint_id" = d."endpoint_id" and p."record_key" = d."record_key" and p."status" = 'pending'
              and (p."seq" < d."seq" or (p."seq" = d."seq" and p."idx" < d."idx")))
        order by d."seq", d."idx"
        limit ${CLAIM}
        ${postgres ? sql`for update of d skip locked` : sql``}`.execute(trx);
      const ids = due.rows.map((r) => r.id);
      if (ids.length === 0) return [];
      await trx
        .updateTable('webhook_deliveries')
        .set({ lease_until_ms: now + 2 * config.webhooksTimeoutMs + 1000 })
        .where('id', 'in', ids)
        .execute();
      return trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select(['d.id', 'd.endpoint_id', 'd.payload', 'd.attempts', 'e.url', 'e.secret'])
        .where('d.id', 'in', ids)
        .orderBy('d.seq')
        .orderBy('d.idx')
        .execute();
    });
  }

  async function recordAttempt(d: { id: string; endpoint_id: number | string; attempts: number | string }, result: AttemptResult, startedMs: number): Promise<void> {
    const now = Date.now();
    const attempts = Number(d.attempts) + 1;
    const endpointId = Number(d.endpoint_id);
    await db.transaction().execute(async (trx: Executor) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: d.id,
          attempted_gmt: new Date(startedMs).toISOString(),
          outcome: result.ok ? 'succeeded' : result.refused ? 'refused' : result.status !== undefined ? 'failed' : 'error',
          response_code: result.status ?? null,
          duration_ms: result.durationMs,
          error: result.error ?? null,
        })
        .execute();
      if (result.ok) {
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'succeeded', attempts, lease_until_ms: 0, last_response_code: result.status ?? null })
          .where('id', '=', d.id)
          .execute();
        await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', endpointId).execute();
        return;
      }
      const schedule = config.webhooksRetrySchedule;
      const spent = attempts > schedule.length;
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: spent ? 'failed' : 'pending',
          attempts,
          next_attempt_ms: spent ? now : now + schedule[attempts - 1]!,
          lease_until_ms: 0,
          last_response_code: result.status ?? null,
        })
        .where('id', '=', d.id)
        .execute();
      const ep = await trx.selectFrom('webhook_endpoints').select(['failing_since', 'enabled']).where('id', '=', endpointId).executeTakeFirst();
      if (!ep) return;
      const since = ep.failing_since === null ? startedMs : Number(ep.failing_since);
      const disable = Number(ep.enabled) === 1 && now - since >= config.webhooksDisableAfterMs;
      await trx
        .updateTable('webhook_endpoints')
        .set({
          failing_since: since,
          ...(disable ? { enabled: 0, disabled_reason: `failing since ${new Date(since).toISOString()} without a success` } : {}),
        })
        .where('id', '=', endpointId)
        .execute();
    });
  }

  const service: WebhookService = {
    async list() {
      return (await db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute()).map(endpointJson);
    },
    async get(id) {
      const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? endpointJson(row) : undefined;
    },
    async create(input) {
      const cursor = await lastSeq(db);
      const row = await db
        .insertInto('webhook_endpoints')
        .values({
          url: input.url,
          secret: input.secret ?? newSecret(),
          events: JSON.stringify(input.events && input.events.length ? input.events : ['*']),
          description: input.description ?? '',
          enabled: 1,
          disabled_reason: null,
          cursor_seq: cursor,
          failing_since: null,
          created_gmt: gmtNow(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return (await service.get(Number(row.id)))!;
    },
    async update(id, patch) {
      const set: Record<string, unknown> = {};
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.events !== undefined) set.events = JSON.stringify(patch.events.length ? patch.events : ['*']);
      if (patch.secret !== undefined) set.secret = patch.secret;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.enabled !== undefined) Object.assign(set, patch.enabled ? { enabled: 1, disabled_reason: null, failing_since: null } : { enabled: 0, disabled_reason: 'disabled by an administrator' });
      if (Object.keys(set).length) await db.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
      return service.get(id);
    },
    async remove(id) {
      const found = await service.get(id);
      if (!found) return undefined;
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('webhook_attempts')
          .where('delivery_id', 'in', trx.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id))
          .execute();
        await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
        await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
      });
      return found;
    },
    async deliveries(endpointId, options = {}) {
      let q = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
      if (options.status) q = q.where('status', '=', options.status);
      const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const rows = await q
        .selectAll()
        .orderBy('seq', 'desc')
        .orderBy('idx', 'desc')
        .limit(options.limit ?? 50)
        .offset(options.offset ?? 0)
        .execute();
      return { items: await loadDeliveries(rows), total };
    },
    async delivery(endpointId, id) {
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
      return row ? (await loadDeliveries([row]))[0] : undefined;
    },
    async redeliver(endpointId, id) {
      const res = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_ms: Date.now(), lease_until_ms: 0 })
        .where('endpoint_id', '=', endpointId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return undefined;
      return service.delivery(endpointId, id);
    },
    async materialize() {
      const endpoints = await db.selectFrom('webhook_endpoints').select(['id', 'cursor_seq', 'events']).where('enabled', '=', 1).orderBy('id').execute();
      if (endpoints.length === 0) return 0;
      const to = await lastSeq(db);
      const cache = new Map<string, { type: string; data: unknown; time: string } | null>();
      let made = 0;
      for (const ep of endpoints) made += await materializeEndpoint(ep, to, cache);
      return made;
    },
    async deliverDue() {
      const claimed = await claim(Date.now());
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
      return (await db.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1).limit(1).executeTakeFirst()) !== undefined;
    },
  };
  return service;
}
