/**
 * Answers replayed below Fastify: an anonymous `GET` that the REST pipeline
 * answered from versions (an item or a list with validators: `markReplayable`) is kept as the bytes
 * it was sent as, headers in their order and body, and the same request is answered again from
 * them by the HTTP server's `request` listener, before Fastify routes it, while the data revision
 * it was built at is current. What a request adds of its own is made again each time, in its place
 * among the kept headers: `X-Request-Id`, the rate limit's headers (the request is counted in the
 * same store as the plugin counts it, and one over the limit goes to Fastify, which answers 429),
 * and the headers a route renews (a list's `X-Sync-Token`, signed with the current second). Node
 * adds `Date`, `Connection` and `Keep-Alive` as it does for every answer. The request is counted in
 * `http_requests_total` and `http_request_duration_seconds` under its route, and logged as Fastify
 * logs a request when the log level shows them.
 *
 * What may be replayed, so that a replay is the answer the pipeline would give:
 * - `GET` only, with no header outside `REPLAYABLE_HEADERS` (credentials, cookies,
 *   `If-Modified-Since`, ... all go to Fastify); the URL and the headers that may change an answer
 *   (`Host`, `Accept`, `Accept-Encoding`, `Accept-Language`, `Origin`, `X-Forwarded-Proto`,
 *   `X-Forwarded-Host`) make the key; `If-None-Match` picks the kept 200 or the kept 304 with the same comparison as the
 *   pipeline's (conditional.ts);
 * - only what the pipeline marked (a compressed answer streamed in chunks is gathered, up to
 *   `MAX_CHUNKED_BYTES`, and replayed whole, in the same chunked framing: Node frames an answer
 *   whose head gives no length), with no `Set-Cookie` and no header of several values;
 * - admitted on the second identical answer: the first is kept aside, and the second must match it
 *   byte for byte outside the per-request headers (an answer with something else made per request
 *   is never admitted);
 * - kept while its calendar's data revision is the one it was built at (the change feed's, looked
 *   for once per batch of requests, as for every request: app.ts; another calendar's writes leave
 *   it be) and while the route's own condition holds (a list: its default date window's day); a
 *   replay seen stale is dropped and the request goes to Fastify;
 * - kept while the request is still of the calendar it was answered in (`ofCalendarNow`): a host
 *   name given to a calendar after the default calendar (or another calendar, under its prefix)
 *   answered on it moves the host's requests away without changing the revision of the calendar
 *   whose answers are kept. Told from the host names kept in memory (`isCalendarHost`), as the
 *   calendar routing tells it (web/calendars.ts), with no look-up per request;
 * - with `TRUST_PROXY`, the client's address (which the rate limit counts) is worked out from the
 *   forwarding headers as Fastify does (web/server.ts' `clientAddressOf`), and `X-Forwarded-Proto`
 *   and `X-Forwarded-Host` are in the key; `REPLAY_ANSWERS=false` turns it off.
 *
 * Bounded: `MAX_ENTRIES` keys and `MAX_BYTES` of kept answers (`/metrics`: `calendar_kept_entries`
 * and `calendar_kept_bytes`, kind `replayed_answers`); the oldest go first.
 *
 * @example
 *   const replay = createReplay({ revision: feed.calendarRevision, stamp: feed.stamp, revisionSince: feed.calendarRevisionSince, ... });
 *   replay.install(app.server); // after every face registered its routes
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ownBytes } from '../domain/serialized.js';
import { registerKept } from '../metrics.js';
import { parseEtags, weakMatch } from './conditional.js';
import { rateLimitField } from './rate-limit.js';

/** Request headers that leave an answer replayable; any other sends the request to Fastify. */
export const REPLAYABLE_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'origin',
  'referer',
  'if-none-match',
  'cache-control',
  'pragma',
  'dnt',
  'priority',
  'sec-fetch-site',
  'sec-fetch-mode',
  'sec-fetch-dest',
  'sec-fetch-user',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'x-request-id', // made again per request as Fastify makes it (the client's when sane)
  // A proxy's (TRUST_PROXY: the client's address, which the rate limit counts, comes from them).
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
  'via',
]);

/** The calendar of an answer whose mark names none (store/calendar-scope.ts' `DEFAULT_CALENDAR_ID`). */
const DEFAULT_CALENDAR = 1;

export const MAX_ENTRIES = 2000;
export const MAX_BYTES = 16 * 1024 * 1024;
/** The most of an answer sent in chunks (compressed) that is gathered to be kept. */
const MAX_CHUNKED_BYTES = 1024 * 1024;

/** What the pipeline says of an answer it may have replayed. */
export interface ReplayMark {
  /** the route pattern (`req.routeOptions.url`): the metrics' label */
  route: string;
  /** headers made again for each second (a list's `X-Sync-Token`), by lower-case name */
  renew?: Record<string, (nowMs: number) => string>;
  /** whether the answer still holds besides the data (a list: the same default window) */
  holds?: () => boolean;
  /** the calendar the answer is of (its revision keeps it; the default one when not said) */
  calendar?: number;
}

export interface ReplayDeps {
  /** a calendar's data revision now (`ChangeFeed.calendarRevision`); undefined while not known */
  revision(calendar: number): string | undefined;
  /** the change feed's position now (`ChangeFeed.stamp`), taken before a request is answered */
  stamp(): unknown;
  /** the calendar's revision when nothing of it changed since `stamp` (`ChangeFeed.calendarRevisionSince`), else undefined */
  revisionSince(calendar: number, stamp: unknown): string | undefined;
  /** a request arrived on a socket: the batch's look for others' commits (app.ts) */
  arrive(): void;
  /** whether the server still takes requests (Fastify answers 503 while it closes) */
  open(): boolean;
  /** bring the change feed up to the database (`ChangeFeed.sync`) */
  sync(): Promise<unknown>;
  /**
   * Whether a host name (lower-case) is a calendar's own now, as the calendar routing knows it
   * (`services.calendars.isCalendarHost`, kept in memory).
   */
  isCalendarHost(host: string): boolean;
  /** the client's address, as Fastify's `request.ip` (web/server.ts' `clientAddressOf`) */
  clientAddress(req: IncomingMessage): string;
  /** the request's id: the client's `X-Request-Id` when sane, else a fresh one (web/server.ts' `requestIdOf`, Fastify's `genReqId`) */
  requestId(req: IncomingMessage): string;
  /** count a request of this client's key (at once, or once the count is taken); undefined when it is over the limit (Fastify answers it) */
  rateLimit?: (ip: string) => Limit | undefined | Promise<Limit | undefined>;
  /** the metrics of an answered request */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
  /** Fastify's logger: whether it logs requests (`info`), and its `info` */
  log?: { requests(): boolean; info(obj: object, msg: string): void };
}

type Limit = { limit: number; remaining: number; reset: number };
type Slot = 'request-id' | 'limit' | 'remaining' | 'reset' | 'ratelimit' | 'renew';

interface Recorded {
  status: number;
  /** flat header list, names and values, as `writeHead` takes it; per-request values at `slots` */
  headers: string[];
  slots: Array<{ at: number; slot: Slot; name: string }>;
  /** in memory of its own (`ownBytes`) */
  body: Buffer;
  etag: string | undefined;
  bytes: number;
}

interface Entry {
  /** the key's own size (a URL may be long) */
  keyBytes: number;
  revision: string;
  mark: ReplayMark;
  ok?: Recorded;
  notModified?: Recorded;
  /** first answers, kept aside until a second identical one admits them */
  pendingOk?: Recorded;
  pendingNotModified?: Recorded;
  renewed?: { second: number; values: Record<string, string> };
}

const KEY = Symbol('replay.key');
const MARK = Symbol('replay.mark');
type Tagged = IncomingMessage & { [KEY]?: string; [MARK]?: ReplayMark };

/** The pipeline: this answer is built from versions and may be replayed (a no-op for other requests). */
export function markReplayable(req: IncomingMessage, mark: ReplayMark): void {
  const tagged = req as Tagged;
  if (tagged[KEY] !== undefined) tagged[MARK] = mark;
}

/**
 * This request's answer is never kept for replay (a no-op for other requests): a request counted
 * against its calendar's `requests_per_minute` quota (web/calendars.ts) must be counted again each
 * time, which a replay, answered before the calendar is known, would not do.
 */
export function neverReplay(req: IncomingMessage): void {
  const tagged = req as Tagged;
  delete tagged[KEY];
  delete tagged[MARK];
}

const SLOT_OF: Record<string, Slot> = {
  'x-request-id': 'request-id',
  'x-ratelimit-limit': 'limit',
  'x-ratelimit-remaining': 'remaining',
  'x-ratelimit-reset': 'reset',
  ratelimit: 'ratelimit',
};

export interface Replay {
  /** Put the replay in front of the server's `request` listeners (after every one was added). */
  install(server: Server): void;
  /** Answer the request from a kept answer, or call `fallback` for Fastify to (called by `install`'s listener). */
  handle(req: IncomingMessage, res: ServerResponse, fallback: () => void): void;
  stats(): { entries: number; bytes: number };
}

/** The key of a replayable request (undefined: Fastify answers it). */
function keyOf(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET') return undefined;
  const raw = req.rawHeaders;
  let host = '';
  let accept = '';
  let encoding = '';
  let language = '';
  let origin = '';
  let forwarded = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!REPLAYABLE_HEADERS.has(name)) return undefined;
    const value = raw[i + 1]!;
    // A header of the key sent twice: Fastify's to join.
    if (name === 'host') host = host === '' ? value : '\u0000';
    else if (name === 'accept') accept = accept === '' ? value : '\u0000';
    else if (name === 'accept-encoding') encoding = encoding === '' ? value : '\u0000';
    else if (name === 'accept-language') language = language === '' ? value : '\u0000';
    else if (name === 'origin') origin = origin === '' ? value : '\u0000';
    else if (name === 'x-forwarded-proto' || name === 'x-forwarded-host') forwarded += `${name}:${value}\u0001`;
  }
  if (host.includes('\u0000') || accept.includes('\u0000') || encoding.includes('\u0000') || language.includes('\u0000') || origin.includes('\u0000')) return undefined;
  return `${req.url}\n${host}\n${accept}\n${encoding}\n${language}\n${origin}\n${forwarded}`;
}

/** An answer as kept: its headers flat, the places of those made per request; undefined when it cannot be replayed. */
function recordedOf(mark: ReplayMark, status: number, headers: Record<string, unknown>, body: Buffer): Recorded | undefined {
  const flat: string[] = [];
  const slots: Recorded['slots'] = [];
  let etag: string | undefined;
  // The memory the body holds (in memory of its own: its length).
  let size = body.buffer.byteLength;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number') return undefined; // several values
    const lower = name.toLowerCase();
    if (lower === 'set-cookie' || lower === 'x-wp-nonce' || lower === 'transfer-encoding') return undefined;
    if (lower === 'etag') etag = String(value);
    const slot = SLOT_OF[lower] ?? (mark.renew?.[lower] ? 'renew' : undefined);
    if (slot) slots.push({ at: flat.length + 1, slot, name: lower });
    flat.push(name, String(value));
    size += name.length + String(value).length;
  }
  if (!slots.some((s) => s.slot === 'request-id')) return undefined;
  return { status, headers: flat, slots, body, etag, bytes: size + 64 };
}

/** Whether two answers are the same outside the headers made per request. */
function same(a: Recorded, b: Recorded): boolean {
  if (a.status !== b.status || a.headers.length !== b.headers.length || a.slots.length !== b.slots.length) return false;
  const perRequest = new Set(a.slots.map((s) => s.at));
  for (let i = 0; i < a.headers.length; i++) if (!perRequest.has(i) && a.headers[i] !== b.headers[i]) return false;
  return a.body.equals(b.body);
}

/** The values of the renewed headers for this second (made once a second per entry). */
function renewed(entry: Entry, now: number): Record<string, string> {
  const second = Math.floor(now / 1000);
  if (entry.renewed?.second === second) return entry.renewed.values;
  const values: Record<string, string> = {};
  for (const [name, make] of Object.entries(entry.mark.renew ?? {})) values[name] = make(now);
  entry.renewed = { second, values };
  return values;
}

/** Whether a recorded answer carries the rate limit's headers (then its request is counted). */
const limited = (rec: Recorded) => rec.slots.some((s) => s.slot === 'limit' || s.slot === 'remaining' || s.slot === 'ratelimit');

/** Send a kept answer; `limit`: the request's count, when the answer is `limited`. */
function send(deps: ReplayDeps, req: IncomingMessage, res: ServerResponse, entry: Entry, rec: Recorded, arrived: number, limit: Limit | undefined): boolean {
  if (limited(rec) && !limit) return false; // over the limit (or no limit to count in): Fastify answers
  const id = deps.requestId(req);
  const headers = rec.headers.slice();
  const renew = entry.mark.renew ? renewed(entry, Date.now()) : undefined;
  for (const { at, slot, name } of rec.slots) {
    if (slot === 'request-id') headers[at] = id;
    else if (slot === 'limit') headers[at] = String(limit!.limit);
    else if (slot === 'remaining') headers[at] = String(limit!.remaining);
    else if (slot === 'reset') headers[at] = String(limit!.reset);
    else if (slot === 'ratelimit') headers[at] = rateLimitField(limit!.remaining, limit!.reset);
    else headers[at] = renew![name]!;
  }
  const log = deps.log?.requests() ? deps.log : undefined;
  if (log) log.info({ reqId: id, req: { method: req.method, url: req.url, headers: req.headers, host: req.headers.host, ip: deps.clientAddress(req), socket: req.socket } }, 'incoming request');
  res.writeHead(rec.status, headers);
  if (rec.status === 304) res.end();
  else res.end(rec.body);
  const ms = performance.now() - arrived;
  deps.observe?.('GET', entry.mark.route, rec.status, ms / 1000);
  if (log) log.info({ reqId: id, res: { statusCode: rec.status }, responseTime: ms }, 'request completed');
  return true;
}

/**
 * Whether the request is still of the calendar `mark` says its kept answer is of, as the calendar
 * routing (web/calendars.ts) would tell it now: on a calendar's own host name, a path without a
 * `/c/{slug}` prefix is that calendar's and one with a prefix is not found; on any other host, a
 * path without a prefix is the default calendar's. Which calendar a prefix or a host name is
 * need not be told: a calendar whose slug or host name changes, or that is deleted, has its
 * revision moved, which drops its answers. What no revision tells is the rest: a host name given to
 * a calendar leaves the revision of the default calendar, which answered there before, as it was;
 * so does it leave that of a calendar whose prefixed paths were answered on that host name before.
 */
function ofCalendarNow(deps: ReplayDeps, req: IncomingMessage, mark: ReplayMark): boolean {
  const host = req.headers.host;
  const own = host !== undefined && deps.isCalendarHost(host.toLowerCase());
  if (req.url!.startsWith('/c/')) return !own;
  return own === ((mark.calendar ?? DEFAULT_CALENDAR) !== DEFAULT_CALENDAR);
}

/** The kept answer for this request now, if any (the feed synced). */
function answerOf(req: IncomingMessage, entry: Entry): Recorded | undefined {
  const inm = req.headers['if-none-match'];
  if (inm === undefined) return entry.ok;
  const etag = entry.ok?.etag ?? entry.notModified?.etag;
  if (etag === undefined) return undefined;
  return weakMatch(parseEtags(inm), etag) ? entry.notModified : entry.ok;
}

export function createReplay(deps: ReplayDeps): Replay {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  registerKept(undefined, 'replayed_answers', { entries: () => entries.size, maxEntries: MAX_ENTRIES, bytes: () => bytes, maxBytes: MAX_BYTES });

  const sizeOf = (e: Entry) => e.keyBytes + (e.ok?.bytes ?? 0) + (e.notModified?.bytes ?? 0) + (e.pendingOk?.bytes ?? 0) + (e.pendingNotModified?.bytes ?? 0);
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    bytes -= sizeOf(e);
    entries.delete(key);
  };
  const makeRoom = () => {
    for (const key of entries.keys()) {
      if (entries.size <= MAX_ENTRIES && bytes <= MAX_BYTES) return;
      drop(key);
    }
  };

  /** Kept answers go on recording the request's answer once the pipeline marked it. */
  function record(req: Tagged, res: ServerResponse, key: string): void {
    // Before anything of the answer is read: an answer is kept only when nothing of its calendar
    // changed since (its reads may have been of any moment after this).
    const stamp = deps.stamp();
    const writeHead = res.writeHead;
    const write = res.write;
    const end = res.end;
    let status = 0;
    let headers: Record<string, unknown> | undefined;
    let chunks: Buffer[] | undefined;
    let spoiled = false;
    res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
      status = code;
      const h = rest[rest.length - 1];
      if (h && typeof h === 'object' && !Array.isArray(h)) headers = h as Record<string, unknown>;
      else spoiled = true;
      return (writeHead as (...a: unknown[]) => ServerResponse).call(this, code, ...rest);
    } as ServerResponse['writeHead'];
    let chunkBytes = 0;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      // Only a marked answer's chunks are kept, up to MAX_CHUNKED_BYTES: a page, a feed or a
      // download streamed to this client is not copied.
      if (spoiled || !req[MARK]) spoiled = true;
      else if ((typeof chunk === 'string' && (rest.length === 0 || typeof rest[0] !== 'string' || rest[0] === 'utf8')) || Buffer.isBuffer(chunk)) {
        const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        chunkBytes += piece.length;
        if (chunkBytes > MAX_CHUNKED_BYTES) {
          spoiled = true;
          chunks = undefined;
        } else (chunks ??= []).push(piece);
      } else spoiled = true;
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      const mark = req[MARK];
      if (mark && !spoiled && headers && (status === 200 || status === 304) && (chunk === undefined || chunk === null || typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
        let body: string | Buffer = chunk === undefined || chunk === null ? '' : (chunk as string | Buffer);
        if (chunks) body = Buffer.concat([...chunks, ...(body === '' ? [] : [Buffer.isBuffer(body) ? body : Buffer.from(body)])]);
        const revision = deps.revisionSince(mark.calendar ?? DEFAULT_CALENDAR, stamp);
        if (revision !== undefined) keep(key, revision, mark, status, headers, body);
      }
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
  }

  function keep(key: string, revision: string, mark: ReplayMark, status: number, headers: Record<string, unknown>, body: string | Buffer): void {
    // A kept body in memory of its own: a slice of Node's shared slab (a list's `Buffer.concat`, a
    // short text's bytes) would keep the whole slab, 64 KiB on Node 24, alive.
    const recorded = recordedOf(mark, status, headers, ownBytes(body));
    if (!recorded) return;
    let entry = entries.get(key);
    // Another calendar's answer under the same key (its request moved: `ofCalendarNow`) starts anew.
    if (entry && (entry.revision !== revision || (entry.mark.calendar ?? DEFAULT_CALENDAR) !== (mark.calendar ?? DEFAULT_CALENDAR))) {
      drop(key);
      entry = undefined;
    }
    if (!entry) {
      entry = { keyBytes: key.length * 2 + 64, revision, mark };
      entries.set(key, entry);
      bytes += entry.keyBytes;
    }
    const before = sizeOf(entry);
    const kind = status === 200 ? 'Ok' : 'NotModified';
    const pending = entry[`pending${kind}`];
    if (pending && same(pending, recorded)) {
      entry[kind === 'Ok' ? 'ok' : 'notModified'] = recorded;
      entry[`pending${kind}`] = undefined;
      entry.mark = mark;
    } else entry[`pending${kind}`] = recorded;
    bytes += sizeOf(entry) - before;
    makeRoom();
  }

  const replay: Replay = {
    install(server) {
      const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
      server.removeAllListeners('request');
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        replay.handle(req, res, () => {
          for (const listener of listeners) listener.call(server, req, res);
        });
      });
    },
    handle(req, res, fallback) {
      const key = keyOf(req);
      if (key === undefined) return fallback();
      (req as Tagged)[KEY] = key;
      const entry = entries.get(key);
      if (!entry || (!entry.ok && !entry.notModified) || (entry.mark.holds && !entry.mark.holds()) || !deps.open()) {
        record(req as Tagged, res, key);
        return fallback();
      }
      if (!ofCalendarNow(deps, req, entry.mark)) {
        drop(key);
        record(req as Tagged, res, key);
        return fallback();
      }
      const arrived = performance.now();
      deps.arrive();
      const toFastify = () => {
        record(req as Tagged, res, key);
        fallback();
      };
      deps.sync().then(() => {
        const current = entries.get(key);
        const revision = current && deps.revision(current.mark.calendar ?? DEFAULT_CALENDAR);
        // Stale: its calendar changed, or the request is another calendar's now (the host names were read again meanwhile).
        const stale = current !== undefined && (current.revision !== revision || !ofCalendarNow(deps, req, current.mark));
        const rec = current && !stale ? answerOf(req, current) : undefined;
        const answer = (limit: Limit | undefined) => {
          try {
            if (current && rec && send(deps, req, res, current, rec, arrived, limit)) return;
          } catch (error) {
            // Nothing of a replay may take the process down: Fastify answers instead, or the answer is cut.
            drop(key);
            if (res.headersSent) return void res.destroy(error as Error);
          }
          if (stale) drop(key);
          toFastify();
        };
        // The request is counted before its answer is sent: at once when the instance holds a grant for its client.
        const counted = rec && limited(rec) && deps.rateLimit ? deps.rateLimit(deps.clientAddress(req)) : undefined;
        if (counted instanceof Promise) counted.then(answer, toFastify);
        else answer(counted);
      }, toFastify);
    },
    stats: () => ({ entries: entries.size, bytes }),
  };
  return replay;
}
