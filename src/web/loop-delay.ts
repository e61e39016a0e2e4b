/**
 * Which requests hold the event loop: a light watch of the loop, and a warning naming a
 * request during which the loop was held past SLOW_REQUEST_LOG_MS.
 *
 * The watch is a timer firing every {@link TICK_MS} (unref'd): a tick that comes late by `held`
 * milliseconds means nothing else could run for that long (synchronous code, a long GC pause, or
 * the process not being scheduled at all). Each late tick is kept (a bounded ring) with the
 * process' CPU time over the same span, so that a hold can be told from a machine that did not
 * give the process the CPU: `cpuMs` is `min(held, CPU time the process used meanwhile)`.
 *
 * A request's hold is the longest hold overlapping its time in the process, from the moment the
 * HTTP server hands it over (before the query string is parsed) to its response's end, a hold
 * still in progress at that moment included. Requests that arrive while the loop is held are not
 * blamed: they are not read until it is free. Requests already in flight (waiting on the database)
 * when another one holds the loop are named too; the log line says how many were in flight.
 *
 * @example
 *   const watch = watchLoop();
 *   registerSlowRequestLog(app, watch, 100);
 *   watch.slowRequests // Map { 'GET /api/…/events' => { method: 'GET', route: '/api/…/events', count: 1 } }
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

/** How often the watch's timer fires (ms): also the smallest hold it can see. */
export const TICK_MS = 10;

/** Holds kept (the newest); a request spanning more late ticks than this sees only the newest. */
const KEPT_HOLDS = 512;

/** Late ticks shorter than this are jitter, not kept (ms). */
const MIN_HOLD_MS = 1;

/** One hold of the loop: it ended at `end` (performance.now()) after `ms`, during which the process used `cpuMs` of CPU. */
interface Hold {
  end: number;
  ms: number;
  cpuMs: number;
}

/** The longest hold over a span: wall-clock milliseconds and the CPU the process used meanwhile. */
export interface HeldTime {
  /** the longest time the loop could not run anything else (ms) */
  ms: number;
  /** of that hold, the CPU time the event loop's thread used (ms; at most `ms`): low when the machine, not the process, was busy */
  cpuMs: number;
}

/** Slow requests counted by method and route pattern (a bounded set, like `http_requests_total`'s labels). */
export interface SlowRequestCount {
  method: string;
  route: string;
  count: number;
}

export interface LoopWatch {
  /**
   * The longest hold of the loop since `since` (a `performance.now()` time), one in progress included.
   * A hold in progress shorter than `minMs` is given without its CPU time (`cpuMs` 0): reading the
   * process' CPU time is a system call, and a caller that ignores holds under `minMs` need not pay it.
   */
  heldSince(since: number, minMs?: number): HeldTime;
  /** Requests during which the loop was held past the threshold, by `METHOD route`. */
  readonly slowRequests: Map<string, SlowRequestCount>;
  /** Stop the timer. */
  stop(): void;
}

/**
 * The CPU time of the event loop's thread (ms): what holds the loop is that thread's work, not the
 * worker threads' beside it. `process.threadCpuUsage` (Node 24, recent Node 22 releases; the whole
 * process's time where it is missing) asks the kernel for one thread's time, which costs about half of the whole
 * process's (read every 10 ms).
 */
const cpuUsageOfLoop: () => NodeJS.CpuUsage = typeof process.threadCpuUsage === 'function' ? () => process.threadCpuUsage() : () => process.cpuUsage();

function cpuNowMs(): number {
  const u = cpuUsageOfLoop();
  return (u.user + u.system) / 1000;
}

/** Start watching the loop. */
export function watchLoop(): LoopWatch {
  const holds: Hold[] = [];
  let next = 0;
  let lastTick = performance.now();
  let lastCpu = cpuNowMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuNowMs();
    const held = now - lastTick - TICK_MS;
    if (held >= MIN_HOLD_MS) {
      const hold = { end: now, ms: held, cpuMs: Math.min(held, Math.max(0, cpu - lastCpu)) };
      if (holds.length < KEPT_HOLDS) holds.push(hold);
      else holds[next] = hold;
      next = (next + 1) % KEPT_HOLDS;
    }
    lastTick = now;
    lastCpu = cpu;
  }, TICK_MS);
  timer.unref();
  return {
    heldSince(since: number, minMs = 0): HeldTime {
      const out: HeldTime = { ms: 0, cpuMs: 0 };
      const consider = (end: number, ms: number, cpuMs: number) => {
        // Only the part of the hold after `since` (a request that arrived during a hold was not read before its end).
        const overlap = end - Math.max(since, end - ms);
        if (overlap > out.ms) {
          out.ms = overlap;
          out.cpuMs = Math.min(overlap, cpuMs);
        }
      };
      // Newest first (a ring in time order): stop at the first hold that ended before the request came.
      for (let i = 1; i <= holds.length; i++) {
        const h = holds[(((next - i) % KEPT_HOLDS) + KEPT_HOLDS) % KEPT_HOLDS]!;
        if (h.end <= since) break;
        consider(h.end, h.ms, h.cpuMs);
      }
      // A hold still in progress: the timer has not fired since it began.
      const now = performance.now();
      const pending = now - lastTick - TICK_MS;
      if (pending >= MIN_HOLD_MS) {
        const overlap = now - Math.max(since, now - pending);
        if (overlap > out.ms) consider(now, pending, overlap >= minMs ? Math.max(0, cpuNowMs() - lastCpu) : 0);
      }
      return out;
    },
    slowRequests: new Map(),
    stop() {
      clearInterval(timer);
    },
  };
}

/** When the HTTP server handed a request over (performance.now()), stamped before routing and query parsing. */
const arrivals = new WeakMap<IncomingMessage, number>();

declare module 'fastify' {
  interface FastifyRequest {
    /** When the request reached the app (performance.now()): the start of its span for the loop watch. */
    arrivedAt?: number;
  }
}

/** URLs in log lines are cut to this many characters. */
const LOGGED_URL_CHARS = 300;

/**
 * Log (warn) and count every request during which the loop was held at least `thresholdMs`
 * (SLOW_REQUEST_LOG_MS; 0 names every request that saw any hold of a millisecond or more).
 */
export function registerSlowRequestLog(app: FastifyInstance, watch: LoopWatch, thresholdMs: number): void {
  let inFlight = 0;
  // The server's 'request' listener runs before Fastify's own (routing, query parsing); inject() has none.
  app.server.prependListener('request', (req: IncomingMessage) => arrivals.set(req, performance.now()));
  app.addHook('onRequest', (req, _reply, done) => {
    req.arrivedAt = arrivals.get(req.raw) ?? performance.now();
    inFlight++;
    done();
  });
  const finish = (req: FastifyRequest, status: number | undefined) => {
    const arrivedAt = req.arrivedAt;
    if (arrivedAt === undefined) return;
    req.arrivedAt = undefined;
    inFlight--;
    const minMs = Math.max(thresholdMs, MIN_HOLD_MS);
    const held = watch.heldSince(arrivedAt, minMs);
    if (held.ms < minMs) return;
    const route = req.routeOptions.url ?? '(unmatched)';
    const key = `${req.method} ${route}`;
    const counted = watch.slowRequests.get(key);
    if (counted) counted.count++;
    else watch.slowRequests.set(key, { method: req.method, route, count: 1 });
    req.log.warn(
      {
        method: req.method,
        url: req.url.length > LOGGED_URL_CHARS ? `${req.url.slice(0, LOGGED_URL_CHARS)}…` : req.url,
        urlLength: req.url.length,
        route,
        status,
        heldMs: Math.round(held.ms),
        cpuMs: Math.round(held.cpuMs),
        durationMs: Math.round(performance.now() - arrivedAt),
        inFlight: inFlight + 1,
      },
      'request held the event loop',
    );
  };
  app.addHook('onResponse', (req, reply, done) => {
    finish(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    finish(req, undefined);
    done();
  });
  app.addHook('onClose', async () => watch.stop());
}
