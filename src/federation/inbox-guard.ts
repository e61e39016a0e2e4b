/**
 * What an inbox request passes before Fedify reads it, and after Fedify verified it (see
 * docs/federation.md "Receiving"). Nothing a request merely claims is counted against anyone else:
 *
 * - **per client address** (`check`, first): every inbox request counts against its client's
 *   address (IPv4, IPv6 by its /64, as every limit counts clients: `clientKeyOf`), at most
 *   FEDERATION_INBOX_RATE_LIMIT a minute, before anything is fetched for it; so a sender naming
 *   a new key host in each request is cut off all the same, and the fetches it causes are bounded
 *   (each request's by loaders.ts);
 * - **per verified host** (`admit`, when Fedify queues an activity it verified): the host of the
 *   activity's actor, whose key signed it, at most FEDERATION_INBOX_RATE_LIMIT a minute; a host
 *   over it is refused before verification too (`check`). A request that does not verify counts
 *   against no host, so naming someone else's key host costs that host nothing;
 * - the signing key's domain must not be blocked (FEDERATION_BLOCKED_DOMAINS);
 * - a signed request is accepted once: its signature (with the digest of its body) is remembered
 *   for twice FEDERATION_CLOCK_SKEW, the window in which Fedify accepts its `Date`, so a replay
 *   within it is refused and one after it fails the time check.
 *
 * The counts live in the database (`federation_kv`, one atomic upsert per hit), so they hold under
 * parallel requests and across instances. The body's size is Fastify's `bodyLimit` (413), and the
 * signature itself is Fedify's to verify.
 *
 * @example
 *   const refusal = await guard.check(req, body); // an ApiError to answer, or undefined
 *   await guard.admit(message.activity);          // throws the 429 when the actor's host is over its limit
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { apiError, type ApiError } from '../domain/errors.js';
import type { FederationStore } from '../domain/federation-store.js';
import { clientKeyOf } from '../domain/client-address.js';
import { isBlockedHost } from './delivery.js';

const WINDOW_MS = 60_000;

export interface InboxGuard {
  check(req: FastifyRequest, body: Buffer | undefined): Promise<ApiError | undefined>;
  /** Count a verified activity against its actor's host; throws the 429 (an ApiError) over the limit. */
  admit(activity: unknown): Promise<void>;
}

/** The key id a request is signed with (draft-cavage `Signature` or RFC 9421 `Signature-Input`). */
export function signingKeyId(headers: FastifyRequest['headers']): string | undefined {
  const cavage = String(headers.signature ?? '');
  const rfc = String(headers['signature-input'] ?? '');
  return /keyId="([^"]+)"/i.exec(cavage)?.[1] ?? /keyid="([^"]+)"/i.exec(rfc)?.[1];
}

const hostOf = (url: unknown): string => {
  try {
    return typeof url === 'string' ? new URL(url).hostname : '';
  } catch {
    return '';
  }
};

/** The host of an activity's (first) actor, as JSON-LD gives it: a URL, an object with an id, or a list of those. */
export function actorHostOf(activity: unknown): string {
  let actor = (activity as { actor?: unknown } | null)?.actor;
  if (Array.isArray(actor)) actor = actor[0];
  if (actor && typeof actor === 'object') actor = (actor as { id?: unknown; '@id'?: unknown }).id ?? (actor as { '@id'?: unknown })['@id'];
  return hostOf(actor);
}

export function createInboxGuard(deps: { store: FederationStore; config: Config; onOutcome(outcome: string): void }): InboxGuard {
  const { config, store } = deps;
  const limit = config.federationInboxRateLimit;
  const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
  const rateKey = (kind: 'client' | 'host', id: string) => JSON.stringify(['_calendar', 'inbox-rate', kind, id]);
  const refuse = (endsMs: number, now: number): ApiError => {
    deps.onOutcome('rate_limited');
    return apiError('federation_rate_limited', { headers: { 'Retry-After': String(Math.max(1, Math.ceil((endsMs - now) / 1000))) } });
  };
  return {
    async check(req, body) {
      if (limit > 0) {
        const now = Date.now();
        const hit = await store.kvCountHit(rateKey('client', clientKeyOf(req.ip)), now, now + WINDOW_MS);
        if (hit.count > limit) return refuse(hit.endsMs, now);
      }
      const host = hostOf(signingKeyId(req.headers));
      if (host && isBlockedHost(host, config.federationBlockedDomains)) {
        deps.onOutcome('blocked');
        return apiError('federation_blocked');
      }
      if (limit > 0 && host) {
        // A host over its limit of verified requests: refused before its key is looked at. (Only
        // verified requests raise this count, so naming a host does not bring it here.)
        const now = Date.now();
        const entry = await store.kvEntry(rateKey('host', host), now);
        if (entry && Number(entry.value) >= limit) return refuse(entry.expiresMs ?? now + WINDOW_MS, now);
      }
      const signature = `${String(req.headers.signature ?? '')}\n${String(req.headers['signature-input'] ?? '')}`;
      if (signature.trim() !== '') {
        const fingerprint = sha(`${signature}\n${sha(body ?? Buffer.alloc(0))}`);
        const fresh = await store.kvCas(JSON.stringify(['_calendar', 'replay', fingerprint]), null, '1', Date.now() + 2 * config.federationClockSkewMs, Date.now());
        if (!fresh) {
          deps.onOutcome('replayed');
          return apiError('federation_replayed');
        }
      }
      return undefined;
    },
    async admit(activity) {
      if (limit <= 0) return;
      const host = actorHostOf(activity);
      if (!host) return;
      const now = Date.now();
      const hit = await store.kvCountHit(rateKey('host', host), now, now + WINDOW_MS);
      if (hit.count > limit) throw refuse(hit.endsMs, now);
    },
  };
}
