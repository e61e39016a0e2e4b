/**
 * The measurements of issue 9, "fast while the calendar changes":
 *
 * - reads under writes: autocannon reads (as the load scenarios) while one writer creates events
 *   at a fixed rate (20/s) that the filtered list must show, through the API with HTTP Basic;
 * - first read after a write: create one such event, then time one request each of the default
 *   list, the filtered list and page 100 of the default list; repeated;
 * - two instances on one PostgreSQL database: how long until an event created on instance A is
 *   visible on instance B (by id, in the default list's total, in the filtered list's total).
 *
 * Every measurement is bounded by the benchmark's duration setting.
 *
 * @example
 *   const writer = startWriter({ url, headers, body: matchingEventBody(ctx, 'w'), rate: 20 });
 *   await loadOnce(spec, 3); writer.mark(); const r = await loadOnce(spec, 10); const w = await writer.stop();
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadOnce, measure, type LoadResult } from './load.js';
import type { AfterWriteRun, ColdPair, PropagationRun, WriterStats } from './results.js';
import { SCENARIOS, matchingEventBody, scenarioUrl, type ScenarioContext } from './scenarios.js';
import { quantile } from './stats.js';

/** No single request of these measurements waits longer (as autocannon's time-out). */
const REQUEST_TIMEOUT_MS = 30_000;

/** The three reads issue 9 watches, as paths under the namespace. */
export function readPath(read: 'single' | 'list' | 'filtered' | 'page100', ctx: ScenarioContext): string {
  if (read === 'page100') return '/events?page=100';
  return SCENARIOS.find((s) => s.key === read)!.path(ctx);
}

export interface Writer {
  /** start counting: only creates acknowledged from now on are reported */
  mark(): void;
  /** stop writing (waits for the request in flight); figures since mark() */
  stop(): Promise<WriterStats>;
}

/**
 * One client creating events at `rate` per second, one request at a time on one keep-alive
 * connection. Request i is due at start + i / rate; when a create takes longer than the
 * interval, the next one is sent as soon as it returns (the writer catches up rather than
 * dropping creates), so "kept its rate" means the server acknowledged creates fast enough.
 */
export function startWriter(options: { url: string; headers: Record<string, string>; body: () => string; rate: number }): Writer {
  const interval = 1000 / options.rate;
  const records: Array<{ ackAt: number; status: number; latency: number; lag: number }> = [];
  let stopping = false;
  let markAt = performance.now();
  // The schedule: request i is due at base + i × interval; mark() starts it again (creates
  // missed during the warm-up are not made up inside the measured run).
  let base = markAt;
  let i = 0;
  const loop = (async () => {
    while (!stopping) {
      const due = base + i++ * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopping) break;
      const sentAt = performance.now();
      let status = 0;
      try {
        const res = await fetch(options.url, { method: 'POST', headers: options.headers, body: options.body(), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 0;
      }
      const ackAt = performance.now();
      records.push({ ackAt, status, latency: ackAt - sentAt, lag: sentAt - due });
    }
  })();
  return {
    mark() {
      markAt = performance.now();
      base = markAt;
      i = 0;
    },
    async stop() {
      const endAt = performance.now();
      stopping = true;
      await loop;
      const window = records.filter((r) => r.ackAt >= markAt && r.ackAt <= endAt);
      const ok = window.filter((r) => r.status === 201);
      const seconds = (endAt - markAt) / 1000;
      const latencies = ok.map((r) => r.latency);
      const achievedRate = ok.length / seconds;
      return {
        rate: options.rate,
        seconds,
        acknowledged: ok.length,
        failed: window.length - ok.length,
        failedStatuses: [...new Set(window.filter((r) => r.status !== 201).map((r) => r.status))],
        achievedRate,
        // one create of slack: the window's edges fall between two due times
        keptRate: ok.length + 1 >= 0.95 * options.rate * seconds,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: latencies.length ? Math.max(...latencies) : NaN,
        maxLag: window.length ? Math.max(...window.map((r) => r.lag)) : NaN,
      };
    },
  };
}

/**
 * Reads under writes: load `readUrl` with autocannon (warm-up, then the measured run) while the
 * writer creates matching events on `writeBase` (the same instance, or another one).
 */
export async function readsUnderWrites(options: {
  readUrl: string;
  writeBase: string;
  ctx: ScenarioContext;
  rate: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}): Promise<{ service: LoadResult; writer: WriterStats }> {
  const { ctx } = options;
  const writer = startWriter({
    url: `${options.writeBase}/events`,
    headers: { authorization: ctx.authorization, 'content-type': 'application/json' },
    body: matchingEventBody(ctx, 'uw'),
    rate: options.rate,
  });
  try {
    const spec = { url: options.readUrl, connections: options.connections };
    if (options.warmupSeconds > 0) await loadOnce(spec, options.warmupSeconds);
    writer.mark();
    const service = await loadOnce(spec, options.seconds);
    return { service, writer: await writer.stop() };
  } catch (err) {
    await writer.stop();
    throw err;
  }
}

/**
 * Wait until the work a measurement left behind is done (e.g. list totals still being counted
 * for revisions the writer made): until each URL answers twice in a row within `fastMs`, or
 * `maxSeconds` passed. Returns the seconds waited.
 */
export async function settle(urls: string[], fastMs = 50, maxSeconds = 30): Promise<number> {
  const started = performance.now();
  for (const url of urls) {
    let fast = 0;
    while (fast < 2 && performance.now() - started < maxSeconds * 1000) {
      const t = await timedGet(url);
      fast = t.status === 200 && t.ms <= fastMs ? fast + 1 : 0;
      if (fast < 2) await sleep(fast ? 0 : 100);
    }
  }
  return (performance.now() - started) / 1000;
}

/** A read-only figure of `url` when the load scenarios did not measure one in this run. */
export async function readOnly(url: string, connections: number, seconds: number, warmupSeconds: number): Promise<LoadResult> {
  return measure({ url, connections, seconds, warmupSeconds });
}

interface Timed {
  ms: number;
  status: number;
  total: number | null;
  body: string;
}

async function timedGet(url: string): Promise<Timed> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = await res.text();
    const total = res.headers.get('x-tec-total');
    return { ms: performance.now() - started, status: res.status, total: total === null ? null : Number(total), body };
  } catch (err) {
    // time-out or connection error: status 0
    return { ms: performance.now() - started, status: 0, total: null, body: String(err) };
  }
}

async function createMatching(base: string, ctx: ScenarioContext, body: () => string): Promise<{ id: number } | { error: string }> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${base}/events`, {
      method: 'POST',
      headers: { authorization: ctx.authorization, 'content-type': 'application/json' },
      body: body(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    return { error: String(err) };
  }
  if (res.status !== 201) return { error: `HTTP ${res.status} ${text.slice(0, 200)}` };
  return { id: (JSON.parse(text) as { id: number }).id };
}

/**
 * The old cold-path table (kept): for each read load scenario, create an event (the create
 * scenario's body) and time the first request after it and the next one.
 */
export async function coldPairs(ctx: ScenarioContext, readKeys: string[]): Promise<Record<string, ColdPair>> {
  const create = SCENARIOS.find((s) => s.key === 'create')!;
  const body = create.body!(ctx);
  const cold: Record<string, ColdPair> = {};
  for (const key of readKeys) {
    const s = SCENARIOS.find((x) => x.key === key)!;
    const write = await fetch(ctx.base + create.path(ctx), { method: 'POST', headers: create.headers!(ctx), body: body() });
    await write.arrayBuffer();
    if (write.status !== 201) break;
    const first = await timedGet(scenarioUrl(s.path(ctx), ctx));
    const next = await timedGet(scenarioUrl(s.path(ctx), ctx));
    if (first.status === 200 && next.status === 200) cold[key] = { first: first.ms, next: next.ms };
  }
  return cold;
}

const AFTER_WRITE_READS = ['list', 'filtered', 'page100'] as const;

/**
 * First read after a write: up to `rounds` times (and no longer than `seconds`, at least 3
 * rounds), create one event the filtered list shows, then time one request of the default list,
 * the filtered list and page 100 of the default list, one after the other.
 */
export async function firstReadAfterWrite(ctx: ScenarioContext, rounds: number, seconds: number): Promise<AfterWriteRun> {
  const body = matchingEventBody(ctx, 'aw');
  const out: AfterWriteRun = { rounds: 0, seconds: 0, reads: {} };
  for (const read of AFTER_WRITE_READS) out.reads[read] = { times: [], status: 'ok' };
  // Page 100 exists only when the default list has at least 991 events.
  if (ctx.listTotal < 991) {
    out.reads.page100 = { times: [], status: 'n/a', note: `the default list has ${ctx.listTotal} events (${Math.ceil(ctx.listTotal / 10)} pages)` };
  }
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    if (i >= 3 && performance.now() - started > seconds * 1000) break;
    const created = await createMatching(ctx.base, ctx, body);
    if ('error' in created) {
      out.writeError = created.error;
      break;
    }
    out.rounds++;
    for (const read of AFTER_WRITE_READS) {
      const r = out.reads[read]!;
      if (r.status !== 'ok') continue;
      const t = await timedGet(ctx.base + readPath(read, ctx));
      if (t.status === 0 || t.status >= 300) {
        r.status = 'error';
        r.note = `HTTP ${t.status} ${t.body.slice(0, 200)}`;
        continue;
      }
      r.times.push(t.ms);
    }
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

const PROPAGATION_READS = ['single', 'list', 'filtered'] as const;

/**
 * Two instances: up to `rounds` times (no longer than `seconds`, at least 3 rounds), create an
 * event on A, then poll B every `pollMs` until it shows it: GET /events/{id} answers 200, and
 * the default and filtered lists count one more event (X-TEC-Total) than just before the create.
 * The delay runs from A's 201 to the answer on B that shows the event; a read not showing it
 * within `timeoutMs` counts as not visible.
 */
export async function propagation(options: { ctx: ScenarioContext; baseA: string; baseB: string; rounds: number; seconds: number; pollMs: number; timeoutMs: number }): Promise<PropagationRun> {
  const { ctx, baseA, baseB } = options;
  const body = matchingEventBody(ctx, 'pr');
  const out: PropagationRun = { rounds: 0, seconds: 0, pollMs: options.pollMs, timeoutMs: options.timeoutMs, reads: {} };
  for (const read of PROPAGATION_READS) out.reads[read] = { delays: [], notVisible: 0 };
  const started = performance.now();
  for (let i = 0; i < options.rounds; i++) {
    if (i >= 3 && performance.now() - started > options.seconds * 1000) break;
    // Totals on B just before the write (the lists also get computed, as a reader's would be).
    const before = {
      list: (await timedGet(baseB + readPath('list', ctx))).total,
      filtered: (await timedGet(baseB + readPath('filtered', ctx))).total,
    };
    const created = await createMatching(baseA, ctx, body);
    const ackAt = performance.now();
    if ('error' in created) {
      out.writeError = created.error;
      break;
    }
    out.rounds++;
    await Promise.all(
      PROPAGATION_READS.map(async (read) => {
        const r = out.reads[read]!;
        const url = read === 'single' ? `${baseB}/events/${created.id}` : baseB + readPath(read, ctx);
        for (;;) {
          const t = await timedGet(url);
          const seen = read === 'single' ? t.status === 200 : t.status === 200 && t.total !== null && before[read] !== null && t.total > before[read]!;
          const now = performance.now();
          if (seen) {
            r.delays.push(now - ackAt);
            return;
          }
          if (now - ackAt > options.timeoutMs) {
            r.notVisible++;
            return;
          }
          await sleep(options.pollMs);
        }
      }),
    );
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}
