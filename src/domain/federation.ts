/**
 * What the REST face's administration routes need from federation (issue 31): the calendar's
 * followers and the outbox's deliveries, as the federation face (src/federation) provides them.
 * Types only, so that the REST face (src/http/routes/admin-federation.ts) and the federation
 * face never import each other; the composition root hands one to the other.
 *
 * @example
 *   const { items, total } = await admin.followers({ status: 'pending', limit: 20, offset: 0 });
 */

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
