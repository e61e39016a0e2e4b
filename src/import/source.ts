/**
 * Reading a remote REST API politely: JSON GETs with HTTP Basic credentials, retries with
 * exponential backoff on 429, 5xx and network errors (honouring `Retry-After`, capped), bounded
 * concurrency by the caller, and errors that say what went wrong in the operator's terms. Targets
 * on loopback, private, link-local or reserved addresses (IPv4 inside IPv6 included: the webhooks'
 * SSRF guard, `web/ssrf.ts`) are refused unless `allowPrivate` (`--allow-private`): every
 * address a name resolves to is checked and the connection goes to a checked one, and redirects
 * are followed hop by hop (at most 10), each hop checked the same way (credentials are sent to the
 * first origin only). Every answer is read within a size limit (`maxBytes`, IMPORT_MAX_BYTES): as
 * sent and once its content coding (gzip, deflate, br) is undone, by zlib's streaming API off the
 * event loop; an answer over it fails the import at once (`TooLargeError`), before it is all read.
 *
 * @example
 *   const source = createSource({ user: 'admin', password: 'xxxx xxxx', retries: 5, retryDelayMs: 1000 });
 *   const { body, headers } = await source.getJson('https://site/wp-json/tribe/events/v1/events?page=1');
 */

import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { DEFAULT_IMPORT_MAX_BYTES } from '../config.js';
import { checkTarget, guardedLookup } from '../web/ssrf.js';

/** A failure the operator must act on; the command prints the message and exits 1. */
export class ImportError extends Error {}

/** A target refused by the SSRF guard (a loopback, private or reserved address without `--allow-private`). */
export class RefusedTargetError extends ImportError {}

/**
 * An answer larger than the import limit (IMPORT_MAX_BYTES), as sent or decoded: not retried; the
 * import fails with this message.
 */
export class TooLargeError extends ImportError {}

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
  /** the most bytes of one answer, as sent and as decoded (IMPORT_MAX_BYTES; its default when unset) */
  maxBytes?: number;
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

/** `10485760` → `10 MiB` (whole MiB and KiB as such, else bytes). */
function sizeText(bytes: number): string {
  if (bytes % 1048576 === 0) return `${bytes / 1048576} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The import's failure: which answer, the limit and the setting that raises it. `answer` names it ("the answer, once gzip is undone,"). */
function tooLarge(url: string, maxBytes: number, answer: string): TooLargeError {
  return new TooLargeError(`GET ${url}: ${answer} is larger than the import limit, ${sizeText(maxBytes)} (IMPORT_MAX_BYTES); the import stopped. Raise IMPORT_MAX_BYTES if the source is right.`);
}

/**
 * The zlib stream that undoes a content coding (gzip, deflate, br: asked for as fetch does), or
 * undefined for none. `deflate` is the zlib format as RFC 9110 says, or raw deflate as some servers
 * send (told apart by the first byte, as browsers do).
 */
function decoderOf(coding: string, first: Buffer): Transform | undefined {
  // Output in steps of 64 KiB, each its own turn of the event loop: a bomb is stopped between two.
  const options = { chunkSize: 64 * 1024 };
  if (coding === '' || coding === 'identity') return undefined;
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip(options);
  if (coding === 'deflate') return first.length > 0 && (first[0]! & 0x0f) !== 0x08 ? createInflateRaw(options) : createInflate(options);
  if (coding === 'br') return createBrotliDecompress(options);
  throw new Error(`answered in an unknown content coding "${coding}"`);
}

/**
 * The body of an answer, its content coding undone, within `maxBytes` as sent and as decoded: a
 * `Content-Length` over it is refused before a byte is read; the bytes are counted as they arrive,
 * decoded by zlib's streaming API (its work in the thread pool, its output in 64 KiB steps) and
 * counted again; past the limit the connection is closed and nothing more is decoded. Never the
 * `*Sync` zlib calls: they hold the event loop for the whole body (256 MiB from a 255 KiB gzip
 * answer: seconds, and a gigabyte of memory). `incomplete` names a connection that ended early.
 */
function readBody(res: IncomingMessage, url: string, maxBytes: number, incomplete: () => Error): Promise<Buffer> {
  const coding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const declared = Number(res.headers['content-length']);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let kept = 0;
    let decoder: Transform | undefined;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      decoder?.destroy();
      res.destroy();
      reject(err);
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, kept));
    };
    const keep = (chunk: Buffer) => {
      if (settled) return;
      kept += chunk.length;
      if (kept > maxBytes) return fail(tooLarge(url, maxBytes, `the answer, once its ${coding} coding is undone,`));
      chunks.push(chunk);
    };
    if (Number.isFinite(declared) && declared > maxBytes) return fail(tooLarge(url, maxBytes, `the answer (its Content-Length: ${declared} bytes)`));
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > maxBytes) return fail(tooLarge(url, maxBytes, 'the answer'));
      if (!decoder) {
        try {
          decoder = decoderOf(coding, chunk);
        } catch (err) {
          return fail(err as Error);
        }
        if (!decoder) return keep(chunk);
        decoder.on('data', keep);
        decoder.on('end', finish);
        decoder.on('error', (err) => fail(new Error(`answered a ${coding} body that does not decode (${err.message})`)));
      }
      // The decoder's own pace: the answer waits while it works through what it has.
      if (!decoder.write(chunk)) {
        res.pause();
        decoder.once('drain', () => res.resume());
      }
    });
    res.on('end', () => (decoder ? decoder.end() : finish()));
    res.on('error', (err) => fail(err));
    res.on('close', () => {
      if (!res.complete) fail(incomplete());
    });
  });
}

/** An answer as the importers read it: its body decoded and within the limit. */
interface Answer {
  status: number;
  ok: boolean;
  headers: Headers;
  body: Buffer;
  /** where the redirects ended */
  finalUrl: string;
}

/** A body as text (UTF-8, a byte order mark dropped, as fetch's `text()`). */
const textOf = (body: Buffer) => new TextDecoder('utf-8').decode(body);

/**
 * One GET through the SSRF guard: the target checked (an IP literal directly, a name by resolving
 * it) and the connection pinned to a checked address; redirects followed by hand, each hop checked;
 * each answer read within `maxBytes` (readBody).
 */
async function guardedGet(url: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean, maxBytes: number): Promise<Answer> {
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
    const target = current;
    const answer = await new Promise<{ status: number; headers: Headers; body: Buffer }>((resolve, reject) => {
      const client = target.protocol === 'https:' ? https : http;
      const req = client.get(target, { headers: sent, signal, lookup: guardedLookup(allowPrivate, ALLOW_PRIVATE_HINT) as never }, (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
        const incomplete = () => new Error(signal.aborted ? `timed out after ${timeoutMs} ms` : 'the connection closed before the answer ended');
        readBody(res, target.href, maxBytes, incomplete).then((body) => {
          // The body is decoded: its coding and length are no longer those of the bytes sent.
          h.delete('content-encoding');
          h.delete('content-length');
          resolve({ status: res.statusCode ?? 0, headers: h, body });
        }, reject);
      });
      req.on('error', (err) => reject((err as { code?: string }).code === 'EWEBHOOKTARGET' ? new RefusedError(err.message) : err));
    });
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && answer.status !== 304 && location) {
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      current = new URL(location, current);
      continue;
    }
    const body = answer.status === 204 || answer.status === 304 ? Buffer.alloc(0) : answer.body;
    return { status: answer.status, ok: answer.status >= 200 && answer.status < 300, headers: answer.headers, body, finalUrl: current.href };
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

  const maxBytes = options.maxBytes ?? DEFAULT_IMPORT_MAX_BYTES;

  async function fetchWithRetry(url: string, accept: string, extra: Record<string, string> = {}): Promise<Answer> {
    let attempt = 0;
    for (;;) {
      let res: Answer | undefined;
      let failure: string;
      try {
        res = await guardedGet(url, { ...headers, ...extra, accept, 'accept-encoding': 'gzip, deflate, br' }, options.timeoutMs ?? 60_000, options.allowPrivate ?? false, maxBytes);
        if (res.status !== 429 && res.status < 500) return res;
        failure = `answered ${res.status}`;
      } catch (err) {
        if (err instanceof RefusedError) throw new RefusedTargetError(`GET ${url} ${err.message}`);
        // Too large is no accident of the network: asking again would read as much again.
        if (err instanceof TooLargeError) throw err;
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
      const text = textOf(res.body);
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
      const res = await guardedGet(url, { accept: 'text/html, */*', 'user-agent': headers['user-agent']! }, Math.min(options.timeoutMs ?? 15_000, 15_000), options.allowPrivate ?? false, maxBytes);
      return { link: res.headers.get('link'), url: res.finalUrl };
    },
    async getText(url) {
      const res = await fetchWithRetry(url, 'text/calendar, */*');
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return textOf(res.body);
    },
    async getTextIfChanged(url, known) {
      const conditional: Record<string, string> = {};
      if (known.etag) conditional['if-none-match'] = known.etag;
      if (known.lastModified) conditional['if-modified-since'] = known.lastModified;
      const res = await fetchWithRetry(url, 'text/calendar, */*', conditional);
      if (res.status === 304) {
        return { status: 304, text: '', etag: known.etag, lastModified: known.lastModified };
      }
      if (!res.ok) throw new ImportError(`GET ${url} answered ${res.status}`);
      return { status: 200, text: textOf(res.body), etag: res.headers.get('etag') ?? undefined, lastModified: res.headers.get('last-modified') ?? undefined };
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
