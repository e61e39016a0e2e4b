/**
 * What an inbox request passes before Fedify reads it (issue 31): the signing key's domain must
 * not be blocked (FEDERATION_BLOCKED_DOMAINS), its host must stay under
 * FEDERATION_INBOX_RATE_LIMIT requests a minute (per instance; unsigned requests count against the
 * client's address), and a signed request is accepted once: its signature (with the digest of its
 * body) is remembered for twice FEDERATION_CLOCK_SKEW, the window in which Fedify accepts its
 * `Date`, so a replay within it is refused and one after it fails the time check. The body's size
 * is Fastify's `bodyLimit` (413), and the signature itself is Fedify's to verify.
 *
 * @example
 *   const refusal = await guard.check(req, body); // an ApiError to answer, or undefined
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { apiError, type ApiError } from '../domain/errors.js';
import type { Executor } from '../store/schema.js';
import { kvCas } from '../store/federation.js';
import { isBlockedHost } from './delivery.js';

const WINDOW_MS = 60_000;

export interface InboxGuard {
  check(req: FastifyRequest, body: Buffer | undefined): Promise<ApiError | undefined>;
}

/** The key id a request is signed with (draft-cavage `Signature` or RFC 9421 `Signature-Input`). */
export function signingKeyId(headers: FastifyRequest['headers']): string | undefined {
  const cavage = String(headers.signature ?? '');
  const rfc = String(headers['signature-input'] ?? '');
  return /keyId="([^"]+)"/i.exec(cavage)?.[1] ?? /keyid="([^"]+)"/i.exec(rfc)?.[1];
}

export function createInboxGuard(deps: { db: Executor; config: Config; onOutcome(outcome: string): void }): InboxGuard {
  const { config } = deps;
  const windows = new Map<string, { start: number; count: number }>();
  const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
  return {
    async check(req, body) {
      const keyId = signingKeyId(req.headers);
      let host = '';
      try {
        host = keyId ? new URL(keyId).hostname : '';
      } catch {
        host = '';
      }
      if (host && isBlockedHost(host, config.federationBlockedDomains)) {
        deps.onOutcome('blocked');
        return apiError('federation_blocked');
      }
      if (config.federationInboxRateLimit > 0) {
        const now = Date.now();
        const key = host || `ip:${req.ip}`;
        let w = windows.get(key);
        if (!w || now - w.start >= WINDOW_MS) {
          if (windows.size > 10_000) for (const [k, v] of windows) if (now - v.start >= WINDOW_MS) windows.delete(k);
          w = { start: now, count: 0 };
          windows.set(key, w);
        }
        if (++w.count > config.federationInboxRateLimit) {
          deps.onOutcome('rate_limited');
          return apiError('federation_rate_limited', { headers: { 'Retry-After': String(Math.ceil((w.start + WINDOW_MS - now) / 1000)) } });
        }
      }
      const signature = `${String(req.headers.signature ?? '')}\n${String(req.headers['signature-input'] ?? '')}`;
      if (signature.trim() !== '') {
        const fingerprint = sha(`${signature}\n${sha(body ?? Buffer.alloc(0))}`);
        const fresh = await kvCas(deps.db, JSON.stringify(['_calendar', 'replay', fingerprint]), null, '1', Date.now() + 2 * config.federationClockSkewMs, Date.now());
        if (!fresh) {
          deps.onOutcome('replayed');
          return apiError('federation_replayed');
        }
      }
      return undefined;
    },
  };
}
