/**
 * Federation's rules, apart from the protocol: who becomes a follower and when, what a delivery's
 * outcome makes of it (delivered, retried on the schedule, given up, gone with its followers), and
 * the administration service the REST face's routes use (src/http/routes/admin-federation.ts):
 * the followers, the deliveries and what was received, over federation's store port
 * (federation-store.ts). The federation face (src/federation) keeps the ActivityPub glue (Fedify,
 * signatures, objects, routes) and hands this service the one protocol step it needs (sending
 * Accept or Reject), so the REST face and the federation face never import each other.
 *
 * @example
 *   followStatus(undefined, true)                                   // 'pending'
 *   deliveryOutcome({ ok: false, status: 503 }, 1, [60_000], now)   // { status: 'pending', nextAttemptMs: now + 60_000, … }
 *   const { items, total } = await admin.followers({ status: 'pending', limit: 20, offset: 0 });
 */
import type { FollowerRow } from '../store/federation.js';
import type { FederationStore } from './federation-store.js';

export interface FollowerView {
  id: number;
  /** the follower's actor URL */
  actor: string;
  /** `@user@host` when known */
  handle: string;
  host: string;
  inbox: string;
  shared_inbox: string | null;
  status: 'accepted' | 'pending';
  /** when the Follow arrived (UTC, `YYYY-MM-DD HH:MM:SS`) */
  date_utc: string;
}

export interface DeliveryView {
  id: number;
  activity_id: string;
  activity_type: string;
  inbox: string;
  /** pending (due at next_attempt), delivered, failed (given up or refused), gone (the inbox answered 410) */
  status: 'pending' | 'delivered' | 'failed' | 'gone';
  attempts: number;
  next_attempt: string | null;
  last_status: number | null;
  last_error: string | null;
  created: string;
  updated: string;
}

export interface ReceivedView {
  id: number;
  activity_id: string | null;
  type: string;
  actor: string;
  received_utc: string;
  activity: unknown;
}

export interface FederationStatus {
  actor: string;
  handle: string;
  approve_follows: boolean;
  followers: Record<string, number>;
  deliveries: Record<string, number>;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

export interface FederationAdmin {
  status(): Promise<FederationStatus>;
  followers(options: { status?: string; limit: number; offset: number }): Promise<Paged<FollowerView>>;
  /** Accept a pending follow (sends Accept); undefined when there is no such follower. */
  accept(id: number): Promise<FollowerView | 'not-pending' | undefined>;
  /** Reject a pending follow (sends Reject) or remove a follower (sends nothing): false when none. */
  reject(id: number): Promise<boolean>;
  remove(id: number): Promise<boolean>;
  deliveries(options: { status?: string; limit: number; offset: number }): Promise<Paged<DeliveryView>>;
  /** Send a failed or gone delivery again: false when there is no such delivery. */
  retry(id: number): Promise<boolean>;
  received(options: { limit: number; offset: number }): Promise<Paged<ReceivedView>>;
}

/**
 * A Follow's status: accepted at once, unless follows wait for an editor (FEDERATION_APPROVE_FOLLOWS);
 * a follower already accepted stays accepted when it follows again.
 */
export function followStatus(existing: { status: string } | undefined, approveFollows: boolean): 'accepted' | 'pending' {
  return existing?.status === 'accepted' || !approveFollows ? 'accepted' : 'pending';
}

/** What one attempt to deliver to an inbox answered. */
export interface AttemptResult {
  ok: boolean;
  status?: number;
  /** refused before sending (a private address, a bad URL): no point trying again */
  refused?: boolean;
  error?: string;
}

/** What a delivery becomes after an attempt. */
export interface DeliveryStep {
  status: 'pending' | 'delivered' | 'failed' | 'gone';
  /** the metric's outcome */
  outcome: 'delivered' | 'retried' | 'failed' | 'gone' | 'refused';
  lastStatus: number | null;
  lastError: string | null;
  /** when a retried delivery is due (ms) */
  nextAttemptMs?: number;
}

/**
 * A delivery after its `attempts`-th attempt: delivered; gone (410: its inbox's followers are
 * removed and what waits for it dropped); failed when refused or when the retry schedule
 * (FEDERATION_RETRY_SCHEDULE, one delay per retry) is spent; else pending, due after the next delay.
 */
export function deliveryOutcome(r: AttemptResult, attempts: number, schedule: readonly number[], now: number): DeliveryStep {
  if (r.ok) return { status: 'delivered', outcome: 'delivered', lastStatus: r.status ?? null, lastError: null };
  if (r.status === 410) return { status: 'gone', outcome: 'gone', lastStatus: 410, lastError: 'Gone: the followers at this inbox were removed' };
  const lastError = r.error ?? `HTTP ${r.status}`;
  if (r.refused || attempts > schedule.length) return { status: 'failed', outcome: 'failed', lastStatus: r.status ?? null, lastError };
  return { status: 'pending', outcome: 'retried', lastStatus: r.status ?? null, lastError, nextAttemptMs: now + schedule[attempts - 1]! };
}

/** A delivery refused before any attempt: its inbox is on a blocked domain or is no URL. */
export const REFUSED_DELIVERY: DeliveryStep = { status: 'failed', outcome: 'refused', lastStatus: null, lastError: 'blocked domain or invalid inbox' };

function followerView(r: FollowerRow): FollowerView {
  return { id: Number(r.id), actor: r.actor_id, handle: r.handle, host: r.host, inbox: r.inbox, shared_inbox: r.shared_inbox, status: r.status as FollowerView['status'], date_utc: r.created_gmt };
}

const gmtOf = (ms: number | string | null) => (ms === null || Number(ms) === 0 ? null : new Date(Number(ms)).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** What the administration service needs: federation's store, who the actor is, and the protocol's two steps. */
export interface FederationAdminDeps {
  store: FederationStore;
  actor: string;
  /** `@handle@host` */
  handle: string;
  approveFollows: boolean;
  /** Send Accept or Reject of a follower's Follow (queued as a delivery). */
  reply(type: 'Accept' | 'Reject', follower: FollowerRow): Promise<void>;
  /** A delivery was made due again. */
  nudgeDelivery(): void;
}

/** The administration of federation: followers (accept, reject, remove), deliveries (retry), what was received. */
export function createFederationAdmin(deps: FederationAdminDeps): FederationAdmin {
  const { store } = deps;
  return {
    async status() {
      return { actor: deps.actor, handle: deps.handle, approve_follows: deps.approveFollows, followers: await store.countFollowers(), deliveries: await store.countDeliveries() };
    },
    async followers(options) {
      const { rows, total } = await store.listFollowers(options);
      return { items: rows.map(followerView), total };
    },
    async accept(id) {
      const f = await store.findFollowerById(id);
      if (!f) return undefined;
      if (f.status !== 'pending') return 'not-pending';
      await store.setFollowerStatus(id, 'accepted');
      await deps.reply('Accept', f);
      return followerView({ ...f, status: 'accepted' });
    },
    async reject(id) {
      const f = await store.findFollowerById(id);
      if (!f || f.status !== 'pending') return false;
      await store.deleteFollowerById(id);
      await deps.reply('Reject', f);
      return true;
    },
    remove: (id) => store.deleteFollowerById(id),
    async deliveries(options) {
      const { rows, total } = await store.listDeliveries(options);
      const items: DeliveryView[] = rows.map((r) => ({
        id: Number(r.id),
        activity_id: r.activity_id,
        activity_type: r.activity_type,
        inbox: r.inbox,
        status: r.status as DeliveryView['status'],
        attempts: Number(r.attempts),
        next_attempt: r.status === 'pending' ? gmtOf(r.next_attempt_ms) : null,
        last_status: r.last_status === null ? null : Number(r.last_status),
        last_error: r.last_error,
        created: gmtOf(r.created_ms)!,
        updated: gmtOf(r.updated_ms)!,
      }));
      return { items, total };
    },
    async retry(id) {
      const ok = await store.retryDelivery(id, Date.now());
      if (ok) deps.nudgeDelivery();
      return ok;
    },
    async received(options) {
      const { rows, total } = await store.listReceived(options);
      return {
        items: rows.map((r) => ({ id: Number(r.id), activity_id: r.activity_id, type: r.type, actor: r.actor_id, received_utc: r.received_gmt, activity: JSON.parse(r.body) as unknown })),
        total,
      };
    },
  };
}
