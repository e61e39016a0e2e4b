/**
 * `GET /metrics`: Prometheus text format (prom-client), one Registry per app (several apps in one
 * process count apart; the global registry is not used):
 *
 * * `http_requests_total{method,route,status}` and `http_request_duration_seconds{…}`: by route
 *   pattern (`/api/calendar/events/v1/events/:id`, `(unmatched)` for 404s without a route), so the
 *   number of series is bounded whatever URLs clients send;
 * * `calendar_db_connections{state}`: PostgreSQL pool `total`, `idle`, `waiting`; SQLite `total` 1;
 * * `calendar_memory_bound_bytes{part}`: what may be held outside the kept structures:
 *   the SQLite page caches and worker thread heaps (store/memory-bounds.ts) and V8's young
 *   generation (`v8_young_generation`, twice `--max-semi-space-size`, which `serve` sets);
 * * `calendar_memory_used_bytes{part}`: what the worker threads' heaps hold now (`worker_heap_background`,
 *   0 while the background reader is stopped; `worker_heap_checkpointer`);
 * * `calendar_kept_results_total{kind,result}`: hits and misses of kept results (src/metrics.ts);
 * * `calendar_sqlite_wal_frames` and `calendar_sqlite_wal_catch_ups_total` (SQLite files): the
 *   write-ahead log's length at its last checkpoint, and how often the main connection copied the
 *   rest of a long log so that it starts over (store/checkpointer.ts);
 * * `calendar_log_dropped_lines_total`, `calendar_log_dropped_bytes_total`, `calendar_log_buffered_bytes`:
 *   log lines a stalled stdout made the server drop, and what stdout holds (src/log-destination.ts);
 * * `calendar_event_loop_delay_seconds`: histogram of the event loop's delays, sampled every
 *   {@link LOOP_SAMPLE_MS} by `perf_hooks.monitorEventLoopDelay` (each sample: how late the loop
 *   ran a timer), cumulative since start;
 * * `calendar_slow_requests_total{method,route}`: requests during which the loop was held past
 *   SLOW_REQUEST_LOG_MS (each also logged, see loop-delay.ts);
 * * `calendar_kept_entries{kind}` and `calendar_kept_entries_max{kind}` (and `_bytes` for those bounded
 *   in bytes too): the size and bound of every structure kept across requests;
 * * Node's process metrics (`collectDefaultMetrics`).
 *
 * `METRICS=false`: no route (404). `METRICS_TOKEN`: `Authorization: Bearer TOKEN` or 401.
 *
 * @example registerMetrics(app, config, storeMetricsSource(store), watchLoop())
 */
import { timingSafeEqual } from 'node:crypto';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { logOutputCounters } from '../metrics.js';
import type { LoopWatch } from '../web/loop-delay.js';

export const METRICS_PATH = '/metrics';

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The sampling interval of `calendar_event_loop_delay_seconds` (ms; prom-client's own loop metrics use the same). */
export const LOOP_SAMPLE_MS = 10;

/** Buckets of `calendar_event_loop_delay_seconds`: 1 ms to 10 s. */
const LOOP_DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Move the samples `monitor` recorded since the last call into `into`, then reset it. A sample of
 * `monitorEventLoopDelay` is the time between two runs of its timer, so the delay is that less the
 * interval. The monitor keeps an HDR histogram (no single samples): each sample is observed at the
 * value of the percentile it falls under, so counts are exact and values within the monitor's
 * precision (about 1 %); `_sum` is a slight overestimate.
 */
export function drainLoopDelays(monitor: IntervalHistogram, into: Histogram, intervalMs: number): void {
  const total = monitor.count;
  if (total === 0) return;
  const intervalNs = intervalMs * 1e6;
  let done = 0;
  for (const [percentile, ns] of [...monitor.percentiles].sort((a, b) => a[0] - b[0])) {
    // Rounded down: a percentile just below 100 must not take the largest samples (rounded up it
    // could, with many samples, and a single long hold would be observed at a small value).
    const upTo = percentile >= 100 ? total : Math.min(total, Math.floor((total * percentile) / 100));
    const seconds = Math.max(0, ns - intervalNs) / 1e9;
    for (; done < upTo; done++) into.observe(seconds);
  }
  // Whatever the percentiles left are the largest samples: observed at the maximum.
  const max = Math.max(0, monitor.max - intervalNs) / 1e9;
  for (; done < total; done++) into.observe(max);
  monitor.reset();
}

/** The metrics' registry, and how a request answered outside Fastify's hooks is counted (web/replay.ts). */
export interface RegisteredMetrics {
  registry: Registry;
  /** A request answered outside Fastify's hooks: a replayed answer (web/replay.ts). */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** A request answered by the write worker's thread (web/write-worker.ts; `route`: the pattern it matched there). */
  observeWritten(method: string, route: string, status: number, seconds: number): void;
}

/**
 * The metrics of the store under the service (its memory, connections, kept results, commits,
 * SQLite's log, and the structures kept across requests), registered in that order around the
 * process's: store/metrics.ts, handed here by the composition root.
 */
export interface StoreMetricsSource {
  register(registry: Registry): void;
  registerKept(registry: Registry): void;
}

export function registerMetrics(app: FastifyInstance, config: Config, storeMetrics: StoreMetricsSource, loop?: LoopWatch): RegisteredMetrics | undefined {
  if (!config.metrics) return undefined;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  storeMetrics.register(registry);
  registerProcessMetrics(app, registry, config, loop);
  storeMetrics.registerKept(registry);

  app.addHook('onResponse', (req, reply, done) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? '(unmatched)', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  /** A request answered outside Fastify's hooks, by `way`: counted with the others, and by its way. */
  const answeredOutside = (name: string, help: string) => {
    const way = new Counter({ name, help, labelNames: ['status'], registers: [registry] });
    return (method: string, route: string, status: number, seconds: number) => {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
      way.inc({ status: labels.status });
    };
  };
  const observeRequest = answeredOutside(
    'calendar_replayed_answers_total',
    'Anonymous reads answered from the kept bytes of the same answer, below Fastify (REPLAY_ANSWERS; counted in http_requests_total too), by status',
  );
  const observeWritten = answeredOutside('calendar_write_worker_requests_total', 'Requests answered by the write worker thread (WRITE_WORKER; counted in http_requests_total too), by status');

  app.get(METRICS_PATH, async (req, reply) => {
    if (config.metricsToken !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7).trim(), config.metricsToken)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new ApiError('rest_forbidden', 'Sorry, you are not allowed to do that.', 401);
      }
    }
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
  });
  return { registry, observeRequest, observeWritten };
}

/** The process's metrics: log output dropped, the event loop's delays and the requests that held it. */
function registerProcessMetrics(app: FastifyInstance, registry: Registry, config: Config, loop: LoopWatch | undefined): void {
  // Log output (src/log-destination.ts): process-wide, as stdout is.
  new Counter({
    name: 'calendar_log_dropped_lines_total',
    help: 'Log lines dropped because stdout (a log pipe nobody read) already held the most it may',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(logOutputCounters.droppedLines);
    },
  });
  new Counter({
    name: 'calendar_log_dropped_bytes_total',
    help: 'Bytes of the log lines dropped (calendar_log_dropped_lines_total)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(logOutputCounters.droppedBytes);
    },
  });
  new Gauge({
    name: 'calendar_log_buffered_bytes',
    help: 'Log output waiting in memory for stdout to take it (bounded: past the bound lines are dropped)',
    registers: [registry],
    collect() {
      this.set(logOutputCounters.buffered());
    },
  });

  const monitor = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  monitor.enable();
  app.addHook('onClose', async () => monitor.disable());
  new Histogram({
    name: 'calendar_event_loop_delay_seconds',
    help: `Event loop delays: how late the loop ran a timer set every ${LOOP_SAMPLE_MS} ms (perf_hooks.monitorEventLoopDelay), since start`,
    buckets: LOOP_DELAY_BUCKETS,
    registers: [registry],
    collect() {
      drainLoopDelays(monitor, this, LOOP_SAMPLE_MS);
    },
  });
  if (loop) {
    new Counter({
      name: 'calendar_slow_requests_total',
      help: `Requests during which the event loop was held at least SLOW_REQUEST_LOG_MS (${config.slowRequestLogMs} ms), by method and route pattern; each is logged`,
      labelNames: ['method', 'route'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { method, route, count } of loop.slowRequests.values()) this.inc({ method, route }, count);
      },
    });
  }
}
