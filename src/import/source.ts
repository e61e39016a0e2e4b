/**
 * Reading a remote REST API politely: JSON GETs with HTTP Basic credentials, retries with
 * exponential backoff on 429, 5xx and network errors (honouring `Retry-After`, capped), bounded
 * concurrency by the caller, and errors that say what went wrong in the operator's terms. Targets
 * on loopback, private, link-local or reserved addresses (IPv4 inside IPv6 included: the webhooks'
 * SSRF guard, `webhooks/ssrf.ts`) are refused unless `allowPrivate` (`--allow-private`): every
 * address a name resolves to is checked and the connection goes to a checked one, and redirects
 * are followed hop by hop (at most 10), each hop checked the same way (credentials are sent to the
 * first origin only).
 *
 * @example
 *   const source = createSource({ user: 'admin', password: 'xxxx xxxx', retries: 5, retryDelayMs: 1000 });
 *   const { body, headers } = await source.getJson('https://site/wp-json/tribe/events/v1/events?page=1');
 */

import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { checkTarget, guardedLookup } from '../webhooks/ssrf.js';

/** A failure the operator must act on; the command prints the message and exits 1. */
export class ImportError extends Error {}

/** A target refused by the SSRF guard (a loopback, private or reserved address without `--allow-private`). */
export class RefusedTargetError extends ImportError {}

/** How a refused target says it can be allowed. */
export const ALLOW_PRIVATE_HINT = 'give --allow-private to import from it';

export interface SourceOptions {
  user?: string;
  password?: string;
  /** attempts after the first on 429/5xx/network errors */
  retries: number;
  /** the first backoff; doubles per attempt (a `Retry-After` header wins, up to 60 s) */
  retryDelayMs: number;
  /** per request */
  timeoutMs?: number;
  /** connect to loopback, private and reserved addresses too (`--allow-private`) */
  allowPrivate?: boolean;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface Source {
  readonly authenticated: boolean;
  /** GET a JSON document; `accept` lists statuses returned instead of thrown (besides 2xx). */
  getJson(url: string, accept?: number[]): Promise<JsonAnswer>;
  /** GET a text document (ICS). */
  getText(url: string): Promise<string>;
  /**
   * One GET of a page (a site's home page) for its `Link` header, without credentials or retries,
   * through the same private-address guard; `url` is where the redirects ended.
   */
  home(url: string): Promise<{ link: string | null; url: string }>;
  /** GET a text document with If-None-Match / If-Modified-Since: 304 when unchanged, else the text and its validators. */
  getTextIfChanged(url: string, known: { etag?: string; lastModified?: string }): Promise<{ status: 200 | 304; text: string; etag?: string; lastModified?: string }>;
}

/** Refuse anything but an absolute http(s) URL. */
export function checkUrl(value: string, what = 'URL'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ImportError(`${what} "${value}" is not a URL (like https://example.org/wp-json)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ImportError(`${what} "${value}" must be an http:// or https:// URL`);
  if (url.username || url.password) throw new ImportError(`${what} must not carry credentials; give --user and --app-password`);
  return url;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The target was refused by the SSRF guard: not retried. */
class RefusedError extends Error {}

const MAX_REDIRECTS = 10;

/** A body without its content coding (gzip, deflate, br: asked for as fetch does); the header removed. */
function decoded(body: Buffer, headers: Headers): Buffer {
  const coding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity' || body.length === 0) return body;
  const out = coding === 'gzip' || coding === 'x-gzip' ? gunzipSync(body) : coding === 'deflate' ? inflateSync(body) : coding === 'br' ? brotliDecompressSync(body) : undefined;
  if (!out) throw new Error(`answered in an unknown content coding "${coding}"`);
  headers.delete('content-encoding');
  headers.delete('content-length');
  return out;
}

/**
 * One GET through the SSRF guard: the target checked (an IP literal directly, a name by resolving
 * it) and the connection pinned to a checked address; redirects followed by hand, each hop checked.
 */
async function guardedGet(url: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean): Promise<Response & { finalUrl: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  let current = new URL(url);
  const origin = current.origin;
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new Error(`redirected to ${current.href}, not an http(s) URL`);
    try {
      await checkTarget(current, allowPrivate, ALLOW_PRIVATE_HINT);
    } catch (err) {
      if ((err as { code?: string }).code === 'EWEBHOOKTARGET') throw new RefusedError((err as Error).message);
      throw err;
    }
    // Credentials go to the origin given only (as fetch does on a cross-origin redirect).
    const sent = current.origin === origin ? headers : Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'authorization'));
    const answer = await new Promise<{ status: number; headers: Headers; body: Buffer }>((resolve, reject) => {
      const client = current.protocol === 'https:' ? https : http;
      const req = client.get(current, { headers: sent, signal, lookup: guardedLookup(allowPrivate, ALLOW_PRIVATE_HINT) as never }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error(signal.aborted ? `timed out after ${timeoutMs} ms` : 'the connection closed before the answer ended'));
        });
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
          try {
            resolve({ status: res.statusCode ?? 0, headers: h, body: decoded(Buffer.concat(chunks), h) });
          } catch (err) {
            reject(err as Error);
          }
        });
      });
      req.on('error', (err) => reject((err as { code?: string }).code === 'EWEBHOOKTARGET' ? new RefusedError(err.message) : err));
    });
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && answer.status !== 304 && location) {
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      current = new URL(location, current);
      continue;
    }
    const response = new Response(answer.status === 204 || answer.status === 304 ? null : (answer.body as unknown as ConstructorParameters<typeof Response>[0]), {
      status: answer.status,
      headers: answer.headers,
    });
    return Object.assign(response, { finalUrl: current.href });
  }
}

/** Why a 401/403 happened, in words an operator can act on. */
function authMessage(url: string, status: number, authenticated: boolean, body: unknown): string {
  const code = (body as { code?: string } | undefined)?.code;
  const said = code ? ` (${code})` : '';
  if (!authenticated) return `GET ${url} answered ${status}${said}: the source needs credentials; give --user LOGIN --app-password PASSWORD`;
  const https = url.startsWith('http://') ? ' WordPress accepts application passwords over HTTPS only (this URL is http://).' : '';
  return (
    `GET ${url} answered ${status}${said}: the credentials were refused. Check the login and the application password` +
    ` (Users → Profile → Application Passwords).${https} Many hosts strip the Authorization header before it reaches WordPress` +
    ` (Apache without "CGIPassAuth On" or a RewriteRule setting HTTP_AUTHORIZATION; some proxies and CDNs): if the credentials are right, that is the likely cause.`
  );
}

export function createSource(options: SourceOptions): Source {
  const authenticated = options.user !== undefined && options.password !== undefined;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'events-calendar-import' };
  if (authenticated) headers.authorization = 'Basic ' + Buffer.from(`${options.user}:${options.password}`).toString('base64');

  async function fetchWithRetry(url: string, accept: string, extra: Record<string, string> = {}): Promise<Response> {
    let attempt = 0;
    for (;;) {
      let res: Response | undefined;
      let failure: string;
      try {
        res = await guardedGet(url, { ...headers, ...extra, accept, 'accept-encoding': 'gzip, deflate, br' }, options.timeoutMs ?? 60_000, options.allowPrivate ?? false);
        if (res.status !== 429 && res.status < 500) return res;
        failure = `answered ${res.status}`;
        await res.arrayBuffer().catch(() => undefined);
      } catch (err) {
        if (err instanceof RefusedError) throw new RefusedTargetError(`GET ${url} ${err.message}`);
        failure = `failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
      }
      if (attempt >= options.retries) throw new ImportError(`GET ${url} ${failure} (${attempt + 1} attempt${attempt ? 's' : ''}); nothing more was imported. Run the same command again to resume.`);
      const retryAfter = Number(res?.headers.get('retry-after'));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 60_000) : options.retryDelayMs * 2 ** attempt;
      attempt++;
      await sleep(delay);
    }
  }

  return {
    authenticated,
    async getJson(url, accept = []) {
      const res = await fetchWithRetry(url, 'application/json');
      const text = await res.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.status === 401 || (res.status === 403 && !accept.includes(403))) {
        if (!accept.includes(res.status)) throw new ImportError(authMessage(url, res.status, authenticated, body));
      }
      if (!res.ok && !accept.includes(res.status)) {
        const code = (body as { code?: string; message?: string } | undefined)?.code;
        const message = (body as { message?: string } | undefined)?.message;
        throw new ImportError(`GET ${url} answered ${res.status}${code ? ` ${code}: ${message}` : ''}`);
      }
      if (res.ok && body === undefined) throw new ImportError(`GET ${url} did not answer JSON (${res.headers.get('content-type') ?? 'no content type'})`);
      return { status: res.status, headers: res.headers, body };
    },
    async home(url) {
      const res = await guardedGet(url, { accept: 'text/html, */*', 'user-agent': headers['user-agent']! }, Math.min(options.timeoutMs ?? 15_000, 15_000), options.allowPrivate ?? false);
      await res.arrayBuffer().catch(() => undefined);
      return { link: res.headers.get('link'), url: res.finalUrl };
    },
    async getText(url) {
      const res = await fetchWithRetry(url, 'text/calendar, */*');
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return res.text();
    },
    async getTextIfChanged(url, known) {
      const conditional: Record<string, string> = {};
      if (known.etag) conditional['if-none-match'] = known.etag;
      if (known.lastModified) conditional['if-modified-since'] = known.lastModified;
      const res = await fetchWithRetry(url, 'text/calendar, */*', conditional);
      if (res.status === 304) {
        await res.arrayBuffer().catch(() => undefined);
        return { status: 304, text: '', etag: known.etag, lastModified: known.lastModified };
      }
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return { status: 200, text: await res.text(), etag: res.headers.get('etag') ?? undefined, lastModified: res.headers.get('last-modified') ?? undefined };
    },
  };
}

/** Run `fn` over items with at most `limit` running at once; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
