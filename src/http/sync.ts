/**
 * `?sync_token=` on the five lists (the rules are in `src/domain/sync.ts`): one
 * implementation, each list giving what differs (how it filters now and before, how it represents
 * records, its envelope).
 *
 * @example
 *   if (ctx.args.sync_token !== undefined) return syncAnswer(ctx, spec);
 *   const { token, renew } = await syncTokenNow(ctx.services);
 *   return { body, headers: { ...listHeaders(…), 'X-Sync-Token': token }, renew: { 'x-sync-token': renew } };
 */
import type { Services } from '../domain/services.js';
import { calendarIdNow } from '../calendar-now.js';
import { apiError, type ErrorCode } from '../domain/errors.js';
import { decodeSyncToken, encodeSyncToken, type DeltaView, type SyncKey, type Tombstone } from '../domain/sync.js';
import type { ArgSpec, EndpointContext, Reply } from './route.js';
import { listHeaders, requestPageLinks, type PageLinks } from './paging.js';

/** The `sync_token` argument of the five lists. */
export function syncTokenArg(): ArgSpec {
  return {
    type: 'string',
    description:
      'Only the records changed after this token (the X-Sync-Token header of an earlier list answer), in change order, ignoring the default date window: ' +
      'records the list shows in full, records removed from it (trashed, deleted, hidden from the caller, no longer matching) as {"id": N, "status": "trash"} or {"id": N, "status": "deleted"}. ' +
      'A token that is invalid, from another database or older than the kept history answers 410 rest_sync_token_expired: do a full sync. ' +
      'One answer covers at most SYNC_MAX_CHANGES change log rows: X-Sync-More: true says more changes follow, from its X-Sync-Token.',
  };
}

/**
 * The token of the data as the change feed knows it, read before the list's data: never newer than
 * what the answer holds (a change between the two is reported again by the next sync, never lost).
 */
export async function syncTokenNow(services: Services): Promise<{ token: string; renew: (nowMs: number) => string }> {
  const [key, position] = await Promise.all([keyOf(services), services.versions.position(false)]);
  // `renew`: the same position's token at another second (a replayed list answer: web/replay.ts,
  // which may renew it outside the request's calendar: the calendar is taken now).
  const calendar = calendarIdNow();
  const renew = (nowMs: number) => encodeSyncToken(key, position.seq, nowMs, calendar);
  return { token: renew(Date.now()), renew };
}

function keyOf(services: Services): Promise<SyncKey> {
  return services.versions.syncKey();
}

/** A list's view (what it shows now and showed before: the domain's delta reads it) and its face. */
export interface SyncSpec extends DeltaView {
  /** tombstone status of records not shown now: 'trash' (it exists), 'deleted', or null (not this list's: another taxonomy) */
  tombstones(ids: number[], details: Map<number, Array<Record<string, any> | null>>): Promise<Map<number, Tombstone>>;
  /** representations of the records shown now, by id */
  represent(ids: number[]): Promise<Map<number, Record<string, unknown>>>;
  /** the list envelope */
  body(items: unknown[], urls: { rest_url: string } & PageLinks, total: number, totalPages: number): Record<string, unknown>;
  /** the list's REST URL (`…/events/`) */
  restUrl: string;
  /** the answer to a page past the end, when the list has one */
  pageNotFound?: ErrorCode;
}

/** Answer a list request that carries `sync_token`. */
export async function syncAnswer(ctx: EndpointContext, spec: SyncSpec): Promise<Reply> {
  const { services } = ctx;
  const [key, position, historyDays] = await Promise.all([keyOf(services), services.versions.position(), services.sync.historyDays()]);
  const now = Date.now();
  // A token past the calendar's last change (one that carries the whole log's number, as tokens did
  // before each calendar had its own) has seen everything of it: it goes on from that change.
  const from = Math.min(decodeSyncToken(ctx.args.sync_token, { key, seq: position.logSeq, historyDays, now }), position.seq);
  // At most SYNC_MAX_CHANGES log rows: `through` is where this answer stops (the position, when it fits).
  const delta = await services.sync.delta(spec, { from, to: position.seq, rows: services.config.syncMaxChanges, historyDays, now });
  const { shownNow, through } = delta;
  let members = delta.records;
  const gone = members.filter((r) => !shownNow.has(r.id));
  const statuses = await spec.tombstones(
    gone.map((r) => r.id),
    new Map(gone.map((r) => [r.id, r.details])),
  );
  members = members.filter((r) => shownNow.has(r.id) || statuses.get(r.id) !== null);

  const perPage = Math.min(Number(ctx.args.per_page), services.config.maxPerPage);
  const page = Number(ctx.args.page);
  const total = members.length;
  const totalPages = Math.ceil(total / perPage);
  if (page > 1 && page > totalPages && spec.pageNotFound) throw apiError(spec.pageNotFound);
  const slice = members.slice((page - 1) * perPage, page * perPage);
  const reps = await spec.represent(slice.filter((r) => shownNow.has(r.id)).map((r) => r.id));
  const items = slice.map((r) => reps.get(r.id) ?? { id: r.id, status: shownNow.has(r.id) ? 'deleted' : (statuses.get(r.id) ?? 'deleted') });
  const restUrl = ctx.rawQuery ? `${spec.restUrl}?${ctx.rawQuery}` : spec.restUrl;
  const links = requestPageLinks(spec.restUrl, ctx.rawQuery, page, totalPages);
  return {
    body: spec.body(items, { rest_url: restUrl, ...links }, total, totalPages),
    headers: {
      ...listHeaders(total, totalPages, links),
      'X-Sync-Token': encodeSyncToken(key, through, now),
      // More changes after `through`: the token continues from there (absent when the answer reaches the position).
      ...(through < position.seq ? { 'X-Sync-More': 'true' } : {}),
    },
  };
}
