/**
 * One delivery attempt: a JSON POST signed per Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the
 * endpoint's `whsec_…` secret), a time limit, no redirects, and the SSRF guard (`ssrf.ts`).
 *
 * @example
 *   const r = await sendWebhook('https://example.org/hook', 'msg_1_42_0', '{"type":…}', 'whsec_…', { timeoutMs: 10_000, allowPrivate: false });
 *   r // { ok: true, status: 200, durationMs: 35 }
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { checkTarget, guardedLookup } from '../web/ssrf.js';

/** A new endpoint secret: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Whether a secret has the Standard Webhooks form (`whsec_` + base64 of 24 to 64 bytes). */
export function isSecret(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith('whsec_')) return false;
  const b64 = value.slice(6);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false;
  const n = Buffer.from(b64, 'base64').length;
  return n >= 24 && n <= 64;
}

/** The `webhook-signature` value of a message. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface AttemptResult {
  ok: boolean;
  status?: number;
  durationMs: number;
  error?: string;
  /** the target was refused by the SSRF guard (no connection made) */
  refused?: boolean;
}

export async function sendWebhook(url: string, id: string, body: string, secret: string, options: { timeoutMs: number; allowPrivate: boolean }): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done({ ok: false, error: 'invalid URL' });
  }
  try {
    await checkTarget(target, options.allowPrivate);
  } catch (err) {
    return done({ ok: false, error: (err as Error).message, refused: (err as { code?: string }).code === 'EWEBHOOKTARGET' });
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(body);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(options.allowPrivate) as never,
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': 'events-calendar-webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(secret, id, timestamp, body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: read (and drop) at most 64 KB, then close.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 65_536) res.destroy();
        });
        res.on('end', () => finish({ ok: status >= 200 && status < 300, status }));
        res.on('close', () => finish({ ok: status >= 200 && status < 300, status }));
        res.on('error', () => finish({ ok: status >= 200 && status < 300, status }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (err) => finish({ ok: false, error: err.message, refused: (err as { code?: string }).code === 'EWEBHOOKTARGET' }));
    req.end(payload);
  });
}
