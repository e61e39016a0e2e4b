/**
 * Sending activities: what is queued for an inbox (the outbox's Creates, Updates and Deletes,
 * and the Accept or Reject of a Follow), claimed in leased batches shared by instances, signed
 * with the RSA key of the actor of its calendar (each delivery is claimed with its calendar, among
 * every active calendar's, and attempted and recorded in it) and posted (delivery.ts); what each attempt makes of a delivery is the
 * domain's rule (`deliveryOutcome`: delivered, retried on the schedule, failed, or gone with the
 * followers at that inbox).
 *
 * @example
 *   const deliveries = createDeliveries({ … });
 *   await deliveries.reply('Accept', follower); // queued, the delivery job nudged
 *   while (await deliveries.deliverDue()) {}
 */
import { randomUUID, type webcrypto } from 'node:crypto';
import type { Federation } from '@fedify/fedify';
import type { Config } from '../config.js';
import { deliveryOutcome, REFUSED_DELIVERY } from '../domain/federation.js';
import type { FederationStore } from '../domain/federation-store.js';
import type { ClaimedFederationDelivery, FollowerRow } from '../store/federation.js';
import { isBlockedHost, postActivity, type SigningKey } from './delivery.js';
import { actorIdentifierOf } from './routes.js';
import type { FederationMetrics } from './metrics.js';
import { withContext, type FederationUrls } from './objects.js';

/** How long a claimed delivery stays leased (longer than an attempt's time limit). */
export const LEASE_MS = 60_000;
const ATTEMPT_TIMEOUT_MS = 15_000;

export interface Deliveries {
  /**
   * The actor's RSA key, as signatures use it: under the calendar at hand's actor's key id, or,
   * given one of its former identifiers, under that old actor's (its Move is signed by the old actor).
   */
  rsaKey(identifier?: string): Promise<SigningKey>;
  /** Queue Accept or Reject of a follower's Follow, to its inbox. */
  reply(type: 'Accept' | 'Reject', follower: Pick<FollowerRow, 'actor_id' | 'follow_id' | 'inbox'>): Promise<void>;
  /** Send what is due; true when something was claimed (the next activity to the same inbox may be due now). */
  deliverDue(): Promise<boolean>;
  /** Who to wake when something was queued (the delivery job, once registered). */
  onQueued(nudge: () => void): void;
  nudge(): void;
}

export function createDeliveries(deps: {
  store: FederationStore;
  config: Config;
  federation: Federation<void>;
  origin: string;
  urls: FederationUrls;
  metrics: FederationMetrics;
  logger: { info(obj: object, msg: string): void };
  userAgent: string;
  /** The identifier of the calendar at hand's actor. */
  identifierHere(): string;
  /** Run `fn` in a calendar (its deliveries are attempted and recorded there). */
  within<T>(calendarId: number, fn: () => Promise<T>): Promise<T>;
}): Deliveries {
  const { store, config, federation, urls, metrics, logger, userAgent } = deps;
  const blocked = config.federationBlockedDomains;
  let nudge = () => {};

  const rsaKey = async (identifier?: string): Promise<SigningKey> => {
    const ctx = federation.createContext(new URL(deps.origin), undefined);
    const current = deps.identifierHere();
    // (ActorKeyPair extends the DOM's CryptoKeyPair, which this project's lib does not declare.)
    type Pair = webcrypto.CryptoKeyPair & { keyId: URL };
    let pairs = (await ctx.getActorKeyPairs(identifier ?? current)) as unknown as Pair[];
    // A former identifier another calendar has taken since is no longer this calendar's: its own key then.
    if (pairs.length === 0 && identifier !== undefined) pairs = (await ctx.getActorKeyPairs(current)) as unknown as Pair[];
    const rsa = pairs.find((p) => p.privateKey.algorithm.name === 'RSASSA-PKCS1-v1_5') ?? pairs[0]!;
    return { keyId: rsa.keyId, privateKey: rsa.privateKey as unknown as SigningKey['privateKey'] };
  };

  /**
   * The actor an activity is sent by, from the activity as stored: a former identifier's (a Move;
   * an Update or Delete of an object announced before a rename) is signed with that old actor's key id.
   */
  const senderOf = (body: string): string | undefined => {
    try {
      return actorIdentifierOf((JSON.parse(body) as { actor?: unknown }).actor, deps.origin);
    } catch {
      return undefined;
    }
  };

  /** Attempt the claimed deliveries of the calendar at hand, signed with the key of the actor each is sent by. */
  async function attempt(batch: ClaimedFederationDelivery[]): Promise<void> {
    const own = await rsaKey();
    const current = deps.identifierHere();
    await Promise.all(
      batch.map(async (d) => {
        const sender = senderOf(d.body);
        const key = sender === undefined || sender === current ? own : await rsaKey(sender);
        const attempts = d.attempts + 1;
        let host = '';
        try {
          host = new URL(d.inbox).hostname;
        } catch {
          /* refused below */
        }
        const r =
          !host || isBlockedHost(host, blocked) ? undefined : await postActivity(d.inbox, d.body, key, { allowPrivate: config.federationAllowPrivate, timeoutMs: ATTEMPT_TIMEOUT_MS, userAgent });
        const done = Date.now();
        const step = r ? deliveryOutcome(r, attempts, config.federationRetrySchedule, done) : REFUSED_DELIVERY;
        metrics.delivered.inc({ outcome: step.outcome });
        await store.recordDeliveryAttempt(d.id, {
          status: step.status,
          attempts,
          lastStatus: step.lastStatus,
          lastError: step.lastError,
          now: done,
          ...(step.nextAttemptMs !== undefined ? { nextAttemptMs: step.nextAttemptMs } : {}),
        });
        if (step.status === 'gone') {
          const removed = await store.deleteFollowersAt(d.inbox);
          await store.dropPendingTo(d.inbox, done);
          logger.info({ inbox: d.inbox, removed }, 'federation: inbox gone, followers removed');
        }
      }),
    );
  }

  async function deliverDue(): Promise<boolean> {
    const now = Date.now();
    // Due work of every active calendar (a suspended calendar's waits); each calendar's is then
    // attempted in it, with its actor's key.
    const batch = await store.claimDeliveries({ now, leaseUntilMs: now + LEASE_MS, limit: 10 });
    if (batch.length === 0) return false;
    const byCalendar = new Map<number, ClaimedFederationDelivery[]>();
    for (const d of batch) {
      const list = byCalendar.get(d.calendar_id);
      if (list) list.push(d);
      else byCalendar.set(d.calendar_id, [d]);
    }
    for (const [calendar, list] of byCalendar) {
      try {
        await deps.within(calendar, () => attempt(list));
      } catch (err) {
        // A calendar deleted since the claim: its deliveries went with it.
        if ((err as { code?: string }).code !== 'calendar_not_found') throw err;
      }
    }
    return true;
  }

  return {
    rsaKey,
    async reply(type, f) {
      const body = withContext({
        id: urls.activity(`${type.toLowerCase()}-${randomUUID()}`),
        type,
        actor: urls.actor,
        to: [f.actor_id],
        object: { id: f.follow_id, type: 'Follow', actor: f.actor_id, object: urls.actor },
      });
      await store.insertDeliveries([{ activity_id: String(body.id), activity_type: type, inbox: f.inbox, body: JSON.stringify(body) }], Date.now());
      nudge();
    },
    deliverDue,
    onQueued(n) {
      nudge = n;
    },
    nudge: () => nudge(),
  };
}
