/**
 * The write worker (WRITE_WORKER): the requests that write (POST, PUT, PATCH, DELETE) are answered
 * by a second instance of the app in a worker thread of this process, on a database connection of
 * its own, so that their work (statements, change log, representation, and the garbage they leave
 * for V8 to collect) is not done on the event loop that answers the reads. One calendar's writers
 * then no longer hold another calendar's reads: that loop only passes a write's bytes on and its
 * answer back. The write thread runs at a lower priority (WRITE_WORKER_NICE): when both threads
 * want the same core, the reads go first.
 *
 * It is the design of several instances on one database, inside one process: the worker commits,
 * and this thread's change feed finds the commit at the next request's look (the feed looks once
 * per batch of requests, and a write is answered after its commit), so a client that reads after
 * its write sees it, here and on every other instance. What the worker commits wakes this thread's
 * jobs as a local commit would (`committed`), and a job the worker nudges is nudged here (`nudge`):
 * the background jobs run in this thread only.
 *
 * Left here: reads (GET, HEAD, OPTIONS, CalDAV's PROPFIND and REPORT, and a POST that asks to be
 * read as a GET: an answer passed back whole cannot stream, as the admin app's change stream does),
 * the MCP face (whose tools reach the REST routes in-process, mostly to read), a body announced
 * larger than any route takes (Fastify answers it 413 without reading it), and any write while the
 * bodies read and not yet answered hold more than `maxBufferedBytes`. Until the worker is ready,
 * after it failed to start, while it restarts after a crash, and once the server is closing, writes
 * are answered here too: the service never depends on it. A worker that cannot start at first is
 * not tried again (its configuration or its database is wrong: the log says why); one that cannot
 * start again after a crash (its database away for a while) is tried again, 1 s later, then twice
 * as long each time up to a minute.
 * A write the worker was answering when it died gets 503 `rest_write_interrupted` (its transaction
 * was either committed before or rolled back: nothing half-written).
 *
 * @example
 *   const writes = startWriteWorker({ script, workerData, maxBodyBytes, log, ... });
 *   writes.install(app.server); // the outermost request listener
 *   await writes.close();       // after the server stopped answering
 */
import { Worker } from 'node:worker_threads';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { OpenOptions } from '../store/db.js';
import { apiError, type ApiError } from '../domain/errors.js';
import { requestErrorOf } from './hostile-input.js';

/** What the worker's entry is started with. */
export interface WriteWorkerData {
  config: Config;
  /** How to open the store (PostgreSQL: the main thread's schema; never migrated there). */
  storeOptions: OpenOptions;
  /** The worker's log level (false: it logs nothing); its lines come here (`logLine`). */
  logger: false | { level: string };
}

/** What this thread sends the worker. */
export type ToWorker = { type: 'request'; id: number; method: string; url: string; headers: IncomingMessage['headers']; body: Uint8Array | null; remoteAddress: string } | { type: 'close' };

/** What the worker sends back. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'answer'; id: number; status: number; headers: Record<string, string | string[]>; body: Uint8Array; route: string }
  | { type: 'error'; id: number; message: string }
  | { type: 'committed' }
  | { type: 'nudge'; name: string }
  | { type: 'log'; line: string }
  | { type: 'closed' };

export interface WriteWorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WriteWorkerOptions {
  /** The worker thread's entry (src/write-worker.ts). */
  script: URL;
  /** What the entry is started with (the configuration, the store, how to log). */
  workerData: WriteWorkerData;
  /** The largest body any route takes: a larger one is refused without being kept whole in memory. */
  maxBodyBytes: number;
  /** Requests that stay in this thread although they write (the MCP face). */
  stays?: (path: string) => boolean;
  /** The worker committed: wake what a local commit wakes. */
  committed(): void;
  /** The worker nudged a job by name: nudge it here, where the jobs run. */
  nudge(name: string): void;
  /** Count a request the worker answered (the app's /metrics). */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
  log: WriteWorkerLog;
  /** Write a log line of the worker where this thread's own go. */
  logLine?: (line: string) => void;
  /** Crashes within a minute after which the worker is left stopped (writes then stay here; default 5). */
  maxRestarts?: number;
  /** The wait before a restart that could not start is tried again (ms; default 1,000), doubled each time up to `retryMaxMs` (default 60,000). */
  retryFirstMs?: number;
  retryMaxMs?: number;
  /**
   * Bytes of bodies read here and not yet answered, past which further writes stay in this thread
   * (where Fastify refuses what a route does not take before reading it, and the rate limit comes
   * first); default four of the largest bodies.
   */
  maxBufferedBytes?: number;
}

export interface WriteWorkerStats {
  ready: boolean;
  /** writes waiting for the worker's answer */
  pending: number;
  /** bytes of bodies read and not answered yet */
  buffered: number;
  answered: number;
  restarts: number;
}

export interface WriteWorker {
  /** Put the forwarding in front of `server`'s request listeners (they answer what stays here). */
  install(server: Server): void;
  /** Resolves once the worker answers (or when it failed to start: writes then stay here). */
  ready: Promise<void>;
  /** The server is closing: new writes stay here (Fastify answers them 503); those under way are answered. */
  drain(): void;
  stats(): WriteWorkerStats;
  /** The thread answering now (undefined while none does): its `threadId`, or `terminate()` to see a crash handled. */
  thread(): Worker | undefined;
  /** Stop the worker: after the server stopped taking requests (the writes under way are answered first). */
  close(): Promise<void>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Hop-by-hop headers of the worker's answer: this thread's connection has its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);
/** How long `close` waits for the worker to close its store before it stops the thread. */
const CLOSE_WAIT_MS = 10_000;

/** The path of a request, without its query, its calendar's `/c/{slug}` prefix, repeated or trailing slashes. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(/\/{2,}/g, '/');
  const prefixed = /^\/c\/[^/]+(\/.*)?$/.exec(path);
  const bare = prefixed ? (prefixed[1] ?? '/') : path;
  return bare.length > 1 ? bare.replace(/\/$/, '') : bare;
}

/**
 * Whether a POST asks to be read as another method that does not write (`X-HTTP-Method-Override`
 * or `?_method=`, as the REST pipeline honours them): such a request is a read, and stays here (a
 * read may stream, which an answer passed back whole cannot).
 */
function overriddenToRead(req: IncomingMessage): boolean {
  const header = req.headers['x-http-method-override'];
  const query = /[?&]_method=([^&#]*)/i.exec(req.url ?? '')?.[1];
  const override = typeof header === 'string' && header !== '' ? header : query !== undefined ? decodeURIComponent(query.replace(/\+/g, ' ')) : undefined;
  return override !== undefined && override !== '' && !WRITES.has(override.trim().toUpperCase());
}

/** Answer `res` with an API error (the connection is closed after it when `close`). */
function refuse(res: ServerResponse, error: ApiError, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(error.toJSON());
  res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body), ...(close ? { connection: 'close' } : {}) });
  res.end(body);
}

interface Pending {
  res: ServerResponse;
  method: string;
  started: number;
  /** the body's bytes, counted in `buffered` until the answer */
  bytes: number;
}

export function startWriteWorker(options: WriteWorkerOptions): WriteWorker {
  const { log } = options;
  const maxRestarts = options.maxRestarts ?? 5;
  const maxBuffered = options.maxBufferedBytes ?? 4 * options.maxBodyBytes;
  const pending = new Map<number, Pending>();
  /** bytes of bodies read and not answered yet */
  let buffered = 0;
  let accepting = true;
  let worker: Worker | undefined;
  let ready = false;
  let closing = false;
  let nextId = 1;
  let answered = 0;
  let restarts = 0;
  const crashes: number[] = [];
  /** whether a worker was ready once: a start that fails after that is tried again */
  let everReady = false;
  let retryMs = 0;
  let retry: NodeJS.Timeout | undefined;
  let settleReady: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    settleReady = resolve;
  });
  let closed: (() => void) | undefined;

  const answer = (message: Extract<FromWorker, { type: 'answer' }>) => {
    const entry = pending.get(message.id);
    if (!entry) return;
    pending.delete(message.id);
    buffered -= entry.bytes;
    answered++;
    const { res } = entry;
    options.observe?.(entry.method, message.route, message.status, (performance.now() - entry.started) / 1000);
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(message.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const bodyless = message.status === 204 || message.status === 304 || entry.method === 'HEAD';
    if (!bodyless) headers['content-length'] = String(message.body.byteLength);
    else delete headers['content-length'];
    res.writeHead(message.status, headers);
    res.end(bodyless ? undefined : Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength));
  };

  /** The writes the worker was answering when it stopped: their answer will not come. */
  const interrupt = () => {
    for (const [id, entry] of pending) {
      pending.delete(id);
      buffered -= entry.bytes;
      options.observe?.(entry.method, '(write worker)', 503, (performance.now() - entry.started) / 1000);
      refuse(entry.res, apiError('rest_write_interrupted'));
    }
  };

  const spawn = () => {
    let wasReady = false;
    const thread = new Worker(options.script, { workerData: options.workerData });
    worker = thread;
    thread.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'ready':
          wasReady = true;
          everReady = true;
          retryMs = 0;
          ready = !closing;
          log.info({ restarts }, 'write worker ready: writes run in their own thread');
          settleReady();
          break;
        case 'failed':
          log.error({ err: message.message }, `the write worker could not start (${message.message}); writes run in the main thread`);
          // Whatever it opened before it failed may keep it alive: it is stopped (its exit settles `ready`).
          void thread.terminate();
          break;
        case 'answer':
          answer(message);
          break;
        case 'error': {
          const entry = pending.get(message.id);
          pending.delete(message.id);
          if (entry) {
            buffered -= entry.bytes;
            log.error({ err: message.message }, 'the write worker could not answer a request');
            options.observe?.(entry.method, '(write worker)', 500, (performance.now() - entry.started) / 1000);
            refuse(entry.res, apiError('rest_write_failed'));
          }
          break;
        }
        case 'committed':
          options.committed();
          break;
        case 'nudge':
          options.nudge(message.name);
          break;
        case 'log':
          options.logLine?.(message.line);
          break;
        case 'closed':
          closed?.();
          break;
      }
    });
    thread.on('error', (err) => log.error({ err }, 'the write worker failed'));
    thread.on('exit', (code) => {
      ready = false;
      if (worker === thread) worker = undefined;
      interrupt();
      closed?.();
      if (closing) return;
      if (!wasReady && !everReady) {
        // The first one never answered: starting it again would fail the same way. Writes stay here.
        settleReady();
        return;
      }
      if (!wasReady) {
        // A restart that could not start (its database away for a while): tried again, later each time.
        retryMs = Math.min(retryMs === 0 ? (options.retryFirstMs ?? 1_000) : retryMs * 2, options.retryMaxMs ?? 60_000);
        log.error({ code, retryInMs: retryMs }, `the write worker could not start again; tried again in ${retryMs / 1000} s, writes run in the main thread meanwhile`);
        retry = setTimeout(() => {
          retry = undefined;
          if (closing) return;
          restarts++;
          spawn();
        }, retryMs);
        retry.unref();
        return;
      }
      const now = Date.now();
      crashes.push(now);
      while (crashes.length > 0 && now - crashes[0]! > 60_000) crashes.shift();
      if (crashes.length >= maxRestarts) {
        log.error({ code, crashes: crashes.length }, 'the write worker stopped too often; writes run in the main thread from now on');
        return;
      }
      restarts++;
      log.error({ code }, 'the write worker stopped; writes run in the main thread while it starts again');
      spawn();
    });
  };
  spawn();

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    /** the body is no longer kept: refused, its client gone, or handed over */
    let done = false;
    const drop = () => {
      if (done) return;
      done = true;
      buffered -= size;
      chunks.length = 0;
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      buffered += chunk.length;
      if (size > options.maxBodyBytes) {
        drop();
        // Fastify's own answer to a body over its limit, as without the worker.
        refuse(res, requestErrorOf({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' })!, true);
        return;
      }
      chunks.push(chunk);
    });
    // A client gone before its body ended: nothing is sent on.
    req.on('close', () => {
      if (!req.complete) drop();
    });
    req.on('end', () => {
      // Without its address, the client's connection is gone (and the worker would take it for one
      // from this machine): nothing is sent on.
      if (done || res.destroyed || req.socket.remoteAddress === undefined) return drop();
      const thread = worker;
      if (!thread || !ready) {
        // The worker stopped while the body came: answered as if it had never been there is not
        // possible (the body is read), so the request is refused as a stopped write is.
        drop();
        return refuse(res, apiError('rest_write_interrupted'));
      }
      // A body of its own (never a slice of Node's shared pool), so that its memory moves to the
      // worker instead of being copied.
      let body: Uint8Array | null = null;
      if (size > 0) {
        const whole = Buffer.allocUnsafeSlow(size);
        let at = 0;
        for (const chunk of chunks) {
          chunk.copy(whole, at);
          at += chunk.length;
        }
        body = new Uint8Array(whole.buffer, 0, size);
      }
      // Counted in `buffered` until the answer (the pending entry's), no longer here.
      done = true;
      chunks.length = 0;
      const id = nextId++;
      pending.set(id, { res, method: req.method ?? 'POST', started: performance.now(), bytes: size });
      const message: ToWorker = { type: 'request', id, method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body, remoteAddress: req.socket.remoteAddress! };
      thread.postMessage(message, body ? [body.buffer as ArrayBuffer] : []);
    });
  };

  return {
    ready: readyPromise,
    install(server) {
      const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
      server.removeAllListeners('request');
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const here = () => {
          for (const listener of listeners) listener.call(server, req, res);
        };
        if (!ready || !accepting || !WRITES.has(req.method ?? '')) return here();
        if (req.method === 'POST' && overriddenToRead(req)) return here();
        if (options.stays?.(pathOf(req.url ?? '/'))) return here();
        const declared = Number(req.headers['content-length'] ?? 0);
        if (declared > options.maxBodyBytes || buffered + declared > maxBuffered) return here();
        forward(req, res);
      });
    },
    drain() {
      accepting = false;
    },
    stats: () => ({ ready, pending: pending.size, answered, restarts, buffered }),
    thread: () => (ready ? worker : undefined),
    async close() {
      const answering = ready;
      closing = true;
      ready = false;
      clearTimeout(retry);
      const thread = worker;
      if (!thread) return;
      if (answering) {
        // Its store closes first (PostgreSQL: its connections are given back); a thread still
        // starting has nothing to close and is stopped at once.
        const done = new Promise<void>((resolve) => {
          closed = resolve;
        });
        thread.postMessage({ type: 'close' } satisfies ToWorker);
        const timer = setTimeout(() => closed?.(), CLOSE_WAIT_MS);
        await done;
        clearTimeout(timer);
      }
      await thread.terminate();
    },
  };
}
