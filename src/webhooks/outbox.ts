/**
 * The outbox: each enabled endpoint is a change-log consumer whose handler turns the log rows
 * after its cursor into deliveries (the record as an administrator reads it, or a tombstone) and
 * moves the cursor with them, in one transaction (`storeDeliveries`, a compare-and-set).
 *
 * Endpoints are a calendar's: each calendar's endpoints read that calendar's log rows, in it, so a
 * calendar's webhooks never carry another calendar's records.
 *
 * @example
 *   const made = await createOutbox(deps).materialize(); // deliveries made for every enabled endpoint of every calendar
 */
import { rowsCoveredBySeries } from '../store/recurrence.js';
import { viewerOf, type Viewer } from '../domain/permissions.js';
import { toTermJson } from '../domain/representations/term.js';
import { runConsumer, type ChangeConsumer, type ChangeRow } from '../store/change-log.js';
import { findTermById } from '../store/terms.js';
import { enabledEndpoints, storeDeliveries } from '../store/webhooks.js';
import { ACTIONS, gmtNow, type WebhookService, type WebhookServiceDeps } from './types.js';

const ACTION_OF: Record<string, (typeof ACTIONS)[number]> = { create: 'created', update: 'updated', trash: 'trashed', delete: 'deleted' };

/** Log rows turned into deliveries per endpoint and run. */
const BATCH = 500;

/** Whether an endpoint asking for `events` wants this type. */
export function wants(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

export function createOutbox(deps: WebhookServiceDeps): Pick<WebhookService, 'materialize'> {
  const { services } = deps;
  const { store } = services;
  const db = store.db;
  /** Payloads are what an administrator reads. */
  const admin: Viewer = viewerOf({ id: 2 ** 31 - 1, login: 'webhooks', role: 'administrator' });

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
        const record = await service.findById(id);
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
      case 'submission': {
        // What happened to a community submission; never the submitter's identity.
        const event = row.detail?.submission;
        if (!event) return undefined;
        return { type: `submission.${event}`, data: await services.submissions.webhookPayload(id) };
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
        // A change to a recurring event's series is delivered once, as the series.
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

  return {
    async materialize() {
      const endpoints = await enabledEndpoints(db);
      if (endpoints.length === 0) return 0;
      const to = await store.changes.head();
      const made = { count: 0 };
      const byCalendar = new Map<number, typeof endpoints>();
      for (const ep of endpoints) {
        const list = byCalendar.get(ep.calendar_id);
        if (list) list.push(ep);
        else byCalendar.set(ep.calendar_id, [ep]);
      }
      // Each calendar's endpoints in their calendar: the log they read is that calendar's rows only,
      // the records are read there, and the payloads' URLs are its own (its site's).
      for (const [calendar, list] of byCalendar) {
        const cache = new Map<string, { type: string; data: unknown; time: string } | null>();
        await services.calendars.within(calendar, async () => {
          // One batch per endpoint and run (the worker runs again while there is more).
          for (const ep of list) await runConsumer(store.changes, endpointConsumer(ep, cache, made), to);
        });
      }
      return made.count;
    },
  };
}
