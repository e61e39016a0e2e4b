/**
 * What a remote actor's own URL answers now: the check behind removing a follower on an `Delete`
 * of itself that could not be verified (its server deleted the account, and the key with it). The
 * URL is the one stored for the follower, never one the request names; the GET is signed with the
 * calendar's key (servers in "authorized fetch" mode answer unsigned ones 401), goes through the
 * SSRF guard's pinned lookup (src/web/ssrf.ts: no private address unless
 * FEDERATION_ALLOW_PRIVATE_ADDRESSES=true), follows no redirect, reads no body and gives up after
 * `timeoutMs`.
 *
 * @example
 *   await actorStatus('https://social.example/users/alice', key, { allowPrivate: false, timeoutMs: 10_000, userAgent })
 *   // 410: the account is gone; undefined: no answer (refused address, network error, timeout)
 */
import http from 'node:http';
import https from 'node:https';
import { signRequest } from '@fedify/fedify';
import { checkTarget, guardedLookup } from '../web/ssrf.js';
import type { SigningKey } from './delivery.js';

const HINT = 'FEDERATION_ALLOW_PRIVATE_ADDRESSES=true allows it';

/** The HTTP status `url` answers a signed GET with, or undefined when there was no answer. Never throws. */
export async function actorStatus(url: string, key: SigningKey, options: { allowPrivate: boolean; timeoutMs: number; userAgent: string }): Promise<number | undefined> {
  let target: URL;
  let headers: Record<string, string>;
  try {
    target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return undefined;
    await checkTarget(target, options.allowPrivate, HINT);
    const signed = await signRequest(
      new Request(target, { method: 'GET', headers: { accept: 'application/activity+json, application/ld+json', 'user-agent': options.userAgent } }),
      key.privateKey,
      key.keyId,
      { spec: 'draft-cavage-http-signatures-12' },
    );
    headers = {};
    signed.headers.forEach((value, name) => {
      headers[name] = value;
    });
  } catch {
    return undefined;
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<number | undefined>((resolve) => {
    const req = client.request(target, { method: 'GET', lookup: guardedLookup(options.allowPrivate, HINT) as never, headers }, (res) => {
      clearTimeout(timer);
      resolve(res.statusCode);
      res.destroy();
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    req.end();
  });
}
