/**
 * One load run with autocannon (closed loop: N connections, each sending its next request when
 * the previous answer arrived), after a warm-up run whose figures are thrown away. Latency
 * percentiles are computed here from every response time autocannon reports (float ms), since
 * its own histogram has whole-millisecond resolution.
 *
 * @example
 *   const r = await measure({ url: 'http://127.0.0.1:8080/api/calendar/events/v1/events', connections: 10, seconds: 10, warmupSeconds: 3 });
 *   r.rps; r.p50; r.p99
 */
import autocannon, { type AutocannonRequest } from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'REPORT';
  headers?: Record<string, string>;
  /** a fixed body, or one per request (e.g. unique titles for creates) */
  body?: string | (() => string);
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** a non-2xx status that counts as the expected answer (conditional GETs: 304) */
  expectStatus?: number;
}

export interface LoadResult {
  rps: number;
  /** ms */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** One run without warm-up (for callers that warm up themselves, e.g. with a writer running). */
export async function loadOnce(spec: Omit<LoadSpec, 'seconds' | 'warmupSeconds'>, seconds: number): Promise<LoadResult> {
  const { body } = spec;
  const request: AutocannonRequest = { method: spec.method ?? 'GET', headers: spec.headers };
  if (typeof body === 'string') request.body = body;
  else if (typeof body === 'function') request.setupRequest = (req) => ({ ...req, body: body() });
  const times: number[] = [];
  const instance = autocannon({ url: spec.url, connections: spec.connections, duration: seconds, requests: [request], timeout: 30 });
  let expected = 0;
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if ((statusCode >= 200 && statusCode < 300) || statusCode === spec.expectStatus) times.push(responseTime);
    if (statusCode === spec.expectStatus) expected++;
  });
  const result = await instance;
  const sorted = Float64Array.from(times).sort();
  const mean = sorted.length ? times.reduce((a, b) => a + b, 0) / sorted.length : NaN;
  return {
    rps: (result['2xx'] + expected) / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean,
    requests: result['2xx'] + expected,
    non2xx: result.non2xx - expected,
    errors: result.errors + result.timeouts,
  };
}

export async function measure(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmupSeconds > 0) await loadOnce(spec, spec.warmupSeconds);
  return loadOnce(spec, spec.seconds);
}
