/**
 * Sending activities: each delivery (one activity to one inbox; an activity to every
 * follower goes once to each shared inbox) is a row of `federation_deliveries`, sent by a job on
 * the runner, signed with the actor's RSA key (HTTP Signatures, draft-cavage, which Mastodon,
 * Mobilizon, Gancio and Fedify all verify; Fedify's `signRequest`), over `node:http(s)` with the
 * SSRF guard's pinned lookup (src/web/ssrf.ts): no private address unless
 * FEDERATION_ALLOW_PRIVATE_ADDRESSES=true. A 2xx is delivered; 410 Gone removes the followers at
 * that inbox and drops what was pending to it; anything else is retried after the delays of
 * FEDERATION_RETRY_SCHEDULE, then given up (`failed`). Rows are claimed with a lease (PostgreSQL:
 * `SKIP LOCKED`), so instances share the work and a crash loses nothing: an unfinished row is due
 * again when its lease ends.
 *
 * @example
 *   const result = await postActivity(inbox, body, key, { allowPrivate: false, timeoutMs: 10_000 });
 */
import http from 'node:http';
import https from 'node:https';
import { signRequest } from '@fedify/fedify';
import { checkTarget, guardedLookup } from '../web/ssrf.js';

const HINT = 'FEDERATION_ALLOW_PRIVATE_ADDRESSES=true allows it';

export interface SigningKey {
  keyId: URL;
  privateKey: Parameters<typeof signRequest>[1];
}

export interface PostResult {
  ok: boolean;
  status?: number;
  error?: string;
  /** refused by the SSRF guard: no connection was made */
  refused?: boolean;
}

/** Whether `host` is a blocked domain or under one (FEDERATION_BLOCKED_DOMAINS). */
export function isBlockedHost(host: string, blocked: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return blocked.some((d) => h === d || h.endsWith(`.${d}`));
}

/** POST a signed activity to an inbox. Never throws. */
export async function postActivity(inbox: string, body: string, key: SigningKey, options: { allowPrivate: boolean; timeoutMs: number; userAgent: string }): Promise<PostResult> {
  let target: URL;
  try {
    target = new URL(inbox);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return { ok: false, error: 'not an http(s) URL', refused: true };
  } catch {
    return { ok: false, error: 'invalid URL', refused: true };
  }
  try {
    await checkTarget(target, options.allowPrivate, HINT);
  } catch (err) {
    return { ok: false, error: (err as Error).message, refused: (err as { code?: string }).code === 'EWEBHOOKTARGET' };
  }
  const payload = Buffer.from(body);
  let signed: Request;
  try {
    const unsigned = new Request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json, application/ld+json', 'user-agent': options.userAgent },
      body: payload,
    });
    signed = await signRequest(unsigned, key.privateKey, key.keyId, {
      spec: 'draft-cavage-http-signatures-12',
      body: payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.byteLength) as ArrayBuffer,
    });
  } catch (err) {
    return { ok: false, error: `signing failed: ${(err as Error).message}` };
  }
  const headers: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(payload.length);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(target, { method: 'POST', lookup: guardedLookup(options.allowPrivate, HINT) as never, headers }, (res) => {
      const status = res.statusCode ?? 0;
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 65_536) res.destroy();
      });
      const done = () => finish({ ok: status >= 200 && status < 300, status });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('error', (err) => finish({ ok: false, error: err.message, refused: (err as { code?: string }).code === 'EWEBHOOKTARGET' }));
    req.end(payload);
  });
}
