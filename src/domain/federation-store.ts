/**
 * What federation keeps in the database, as one narrow port: the operations of
 * `store/federation-fedify.ts` (Fedify's key-value store and message queue) and
 * `store/federation.ts` (the actor's keys, followers,
 * activities received, the outbox's cursor and steps, object states, activities, deliveries,
 * counts) bound to one store's handle, and the change log as the outbox reads it. The federation
 * face (src/federation) and the administration service (domain/federation.ts) reach the store
 * only through it, so that the face imports store/ for types alone.
 *
 * The store's handle, its dialect and its change log are bound here: claims skip rows other
 * instances hold on PostgreSQL (`FOR UPDATE SKIP LOCKED`), and the outbox runs as a consumer of
 * this store's change log. Transactions stay in the store's functions: each operation that writes
 * several rows at once (`kvCas`, `storeOutboxStep`, the claims) is one transaction there, and the
 * face never opens one.
 *
 * @example
 *   const fed = createFederationStore(store);
 *   await fed.ensureOutboxCursor();
 *   const batch = await fed.claimDeliveries({ now, leaseUntilMs: now + 60_000, limit: 10 });
 */
import type { Store } from '../store/db.js';
import type { ChangeConsumer } from '../store/change-log.js';
import { runConsumer } from '../store/change-log.js';
import { formerSlugs, pendingMoves } from '../store/calendars.js';
import { claimMessages, enqueueMessages, finishMessage, kvCas, kvCountHit, kvDelete, kvEntry, kvGet, kvList, kvPurge, kvSet, postponeMessage, queueDepth } from '../store/federation-fedify.js';
import {
  claimFederationDeliveries,
  countDeliveries,
  countFollowers,
  deleteFollower,
  deleteFollowerById,
  deleteFollowersAt,
  dropPendingTo,
  ensureOutboxCursor,
  findActivity,
  findFollower,
  findFollowerById,
  followerCalendars,
  followerInboxes,
  insertDeliveries,
  insertKeysOnce,
  insertReceived,
  listActivities,
  listDeliveries,
  listFollowers,
  listReceived,
  liveObjectIds,
  objectState,
  objectStates,
  outboxCalendars,
  outboxCalendarsDue,
  outboxCursor,
  readKeys,
  recordDeliveryAttempt,
  retryDelivery,
  serviceDeliveryCounts,
  serviceFollowerCounts,
  serviceUsage,
  setFollowerStatus,
  storeOutboxStep,
  upsertFollower,
  type ActivityRow,
  type ClaimedFederationDelivery,
  type DeliveryRow,
  type FollowerRow,
  type ObjectStateRow,
  type OutboxStep,
  type ReceivedRow,
} from '../store/federation.js';

/** A stored key pair of the actor (JWK texts). */
export interface StoredKeyPair {
  kind: string;
  private_jwk: string;
  public_jwk: string;
}

/** What a delivery attempt made of it (`recordDeliveryAttempt`). */
export interface DeliveryAttempt {
  status: 'delivered' | 'pending' | 'failed' | 'gone';
  attempts: number;
  nextAttemptMs?: number;
  lastStatus: number | null;
  lastError: string | null;
  now: number;
}

/** A claim of due rows, leased until `leaseUntilMs`. */
export interface Claim {
  now: number;
  leaseUntilMs: number;
  limit: number;
}

export interface Paging {
  limit: number;
  offset: number;
}

/** Federation's port to the store (see the file's header); each call is the store function of the same name. */
export interface FederationStore {
  // Fedify's key-value store: keys are JSON texts, `now` decides what has expired.
  kvGet(key: string, now: number): Promise<string | undefined>;
  kvEntry(key: string, now: number): Promise<{ value: string; expiresMs: number | null } | undefined>;
  kvSet(key: string, value: string, expiresMs: number | null): Promise<void>;
  kvDelete(key: string): Promise<void>;
  /** Set `key` when its current value (null: absent or expired) is `expected`; whether it was set. */
  kvCas(key: string, expected: string | null, value: string, expiresMs: number | null, now: number): Promise<boolean>;
  kvList(prefix: string | undefined, now: number): Promise<Array<{ key: string; value: string }>>;
  /** Count one hit in the key's fixed window (one atomic statement). */
  kvCountHit(key: string, now: number, windowEndsMs: number): Promise<{ count: number; endsMs: number }>;
  kvPurge(now: number): Promise<number>;

  // The actor's keys.
  readKeys(): Promise<StoredKeyPair[]>;
  /** Store key pairs unless some are there already (the first instance's are kept). */
  insertKeysOnce(keys: StoredKeyPair[], now: string): Promise<void>;

  // Followers.
  findFollower(actorId: string): Promise<FollowerRow | undefined>;
  findFollowerById(id: number): Promise<FollowerRow | undefined>;
  upsertFollower(f: Omit<FollowerRow, 'id'>): Promise<FollowerRow>;
  setFollowerStatus(id: number, status: string): Promise<void>;
  deleteFollower(actorId: string): Promise<boolean>;
  deleteFollowerById(id: number): Promise<boolean>;
  /** Followers at an inbox (or shared inbox) that answered 410; how many were removed. */
  deleteFollowersAt(inbox: string): Promise<number>;
  listFollowers(options: Paging & { status?: string }): Promise<{ rows: FollowerRow[]; total: number }>;
  /** Where an activity to every accepted follower goes: each shared inbox once, else each inbox. */
  followerInboxes(): Promise<string[]>;
  countFollowers(): Promise<Record<string, number>>;
  /** The calendars (suspended ones too) where a remote actor is a follower: a look across calendars, by its index. */
  followerCalendars(actorId: string): Promise<number[]>;
  /** Every calendar's followers by state, in one statement (the service's `/metrics`). */
  serviceFollowerCounts(): Promise<Record<string, number>>;

  // Activities received, kept for moderation.
  insertReceived(r: Omit<ReceivedRow, 'id'>): Promise<void>;
  listReceived(options: Paging): Promise<{ rows: ReceivedRow[]; total: number }>;

  // Fedify's message queue (incoming activities).
  enqueueMessages(messages: Array<{ message: string; ordering_key: string | null }>, runAtMs: number, now: number): Promise<void>;
  /** Due messages of every active calendar, each with its calendar (handled there). */
  claimMessages(claim: Claim): Promise<Array<{ id: number; calendar_id: number; message: string; attempts: number }>>;
  finishMessage(id: number): Promise<void>;
  postponeMessage(id: number, attempts: number, runAtMs: number): Promise<void>;
  queueDepth(now: number): Promise<{ queued: number; ready: number; delayed: number }>;

  // The outbox: its cursor in the change log, a step's objects, activities and deliveries.
  /** Make the cursor at the change log's head unless there is one; answers it. */
  ensureOutboxCursor(): Promise<number>;
  outboxCursor(): Promise<number>;
  /** The active calendars with rows of their own after their outbox's cursor (a look across calendars for due work). */
  outboxCalendarsDue(limit: number): Promise<number[]>;
  /** The active calendars with an outbox (a cursor). */
  outboxCalendars(limit: number): Promise<number[]>;
  /** The identifiers the calendar at hand's actor had before (its former slugs), the latest first. */
  formerIdentifiers(): Promise<string[]>;
  /** Those whose Move the calendar at hand's followers are still to be sent (the step that makes it lists them in `moved`). */
  pendingMoves(): Promise<string[]>;
  /** Move the cursor from `from` to `to` and store the step, in one transaction; false when another instance moved it. */
  storeOutboxStep(from: number, to: number, step: OutboxStep, now: number): Promise<boolean>;
  /** One step of a consumer of this store's change log; true when more is left. */
  runOutbox(consumer: ChangeConsumer): Promise<boolean>;
  /** Be woken after local commits and, every `pollMs`, for other instances'; answers the unsubscription. */
  subscribeToChanges(wake: () => void, options: { pollMs: number }): () => void;

  // What was last sent about each event.
  objectState(eventId: number): Promise<ObjectStateRow | undefined>;
  objectStates(eventIds: number[]): Promise<Map<number, ObjectStateRow>>;
  liveObjectIds(limit: number): Promise<number[]>;

  // The outbox's activities, newest first.
  listActivities(options: Paging & { types?: string[] }): Promise<{ rows: ActivityRow[]; total: number }>;
  findActivity(id: string): Promise<ActivityRow | undefined>;

  // Deliveries.
  insertDeliveries(deliveries: OutboxStep['deliveries'], now: number): Promise<void>;
  /** Due pending deliveries of every active calendar, each with its calendar; none behind an earlier pending one of its calendar to the same inbox. */
  claimDeliveries(claim: Claim): Promise<ClaimedFederationDelivery[]>;
  recordDeliveryAttempt(id: number, attempt: DeliveryAttempt): Promise<void>;
  dropPendingTo(inbox: string, now: number): Promise<void>;
  listDeliveries(options: Paging & { status?: string }): Promise<{ rows: Array<Omit<DeliveryRow, 'body'>>; total: number }>;
  retryDelivery(id: number, now: number): Promise<boolean>;
  countDeliveries(): Promise<Record<string, number>>;
  /** Every calendar's deliveries by state, in one statement (the service's `/metrics`). */
  serviceDeliveryCounts(): Promise<Record<string, number>>;

  /** The service as NodeInfo tells it, in one statement: its active calendars and the Creates they announced. */
  serviceUsage(): Promise<{ calendars: number; creates: number }>;
}

/** The port over one store: its handle, its dialect (for the claims) and its change log. */
export function createFederationStore(store: Pick<Store, 'db' | 'dialect' | 'changes'>): FederationStore {
  const { db, changes } = store;
  const skipLocked = store.dialect === 'postgres';
  return {
    kvGet: (key, now) => kvGet(db, key, now),
    kvEntry: (key, now) => kvEntry(db, key, now),
    kvSet: (key, value, expiresMs) => kvSet(db, key, value, expiresMs),
    kvDelete: (key) => kvDelete(db, key),
    kvCas: (key, expected, value, expiresMs, now) => kvCas(db, key, expected, value, expiresMs, now),
    kvList: (prefix, now) => kvList(db, prefix, now),
    kvCountHit: (key, now, windowEndsMs) => kvCountHit(db, key, now, windowEndsMs),
    kvPurge: (now) => kvPurge(db, now),

    readKeys: () => readKeys(db),
    insertKeysOnce: (keys, now) => insertKeysOnce(db, keys, now),

    findFollower: (actorId) => findFollower(db, actorId),
    findFollowerById: (id) => findFollowerById(db, id),
    upsertFollower: (f) => upsertFollower(db, f),
    setFollowerStatus: (id, status) => setFollowerStatus(db, id, status),
    deleteFollower: (actorId) => deleteFollower(db, actorId),
    deleteFollowerById: (id) => deleteFollowerById(db, id),
    deleteFollowersAt: (inbox) => deleteFollowersAt(db, inbox),
    listFollowers: (options) => listFollowers(db, options),
    followerInboxes: () => followerInboxes(db),
    countFollowers: () => countFollowers(db),
    followerCalendars: (actorId) => followerCalendars(db, actorId),
    serviceFollowerCounts: () => serviceFollowerCounts(db),

    insertReceived: (r) => insertReceived(db, r),
    listReceived: (options) => listReceived(db, options),

    enqueueMessages: (messages, runAtMs, now) => enqueueMessages(db, messages, runAtMs, now),
    claimMessages: (claim) => claimMessages(db, { ...claim, skipLocked }),
    finishMessage: (id) => finishMessage(db, id),
    postponeMessage: (id, attempts, runAtMs) => postponeMessage(db, id, attempts, runAtMs),
    queueDepth: (now) => queueDepth(db, now),

    ensureOutboxCursor: () => ensureOutboxCursor(db),
    outboxCursor: () => outboxCursor(db),
    outboxCalendarsDue: (limit) => outboxCalendarsDue(db, limit),
    outboxCalendars: (limit) => outboxCalendars(db, limit),
    formerIdentifiers: () => formerSlugs(db),
    pendingMoves: () => pendingMoves(db),
    storeOutboxStep: (from, to, step, now) => storeOutboxStep(db, from, to, step, now),
    runOutbox: (consumer) => runConsumer(changes, consumer),
    subscribeToChanges: (wake, options) => changes.subscribe(wake, options),

    objectState: (eventId) => objectState(db, eventId),
    objectStates: (eventIds) => objectStates(db, eventIds),
    liveObjectIds: (limit) => liveObjectIds(db, limit),

    listActivities: (options) => listActivities(db, options),
    findActivity: (id) => findActivity(db, id),

    insertDeliveries: (deliveries, now) => insertDeliveries(db, deliveries, now),
    claimDeliveries: (claim) => claimFederationDeliveries(db, { ...claim, skipLocked }),
    recordDeliveryAttempt: (id, attempt) => recordDeliveryAttempt(db, id, attempt),
    dropPendingTo: (inbox, now) => dropPendingTo(db, inbox, now),
    listDeliveries: (options) => listDeliveries(db, options),
    retryDelivery: (id, now) => retryDelivery(db, id, now),
    countDeliveries: () => countDeliveries(db),
    serviceDeliveryCounts: () => serviceDeliveryCounts(db),

    serviceUsage: () => serviceUsage(db),
  };
}
