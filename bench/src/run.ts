/**
 * `npm run bench`: seed databases of several sizes, serve each from a child process
 * (`node dist/cli/main.js serve`, SQLite, and PostgreSQL when BENCH_POSTGRES_URL is set), load
 * every scenario with autocannon next to a bare-Fastify baseline answering the same body, and
 * write bench/RESULTS.md.
 *
 * Settings (environment):
 *   BENCH_SIZES          event counts, default "100,100000" (add 1000000 for the large run); a size
 *                        "100000+10000w" adds 10,000 recurring series (issue 15; w weekly, m monthly,
 *                        x or nothing mixed) after the events
 *   BENCH_SERIES         issue 15: after each size without series, the same size plus this many series
 *                        (e.g. 10000), same run; the report compares the two (target: within 1.5x)
 *   BENCH_SERIES_KIND    weekly, monthly or mixed (default weekly: issue 15's 10,000 weekly series)
 *   BENCH_POSTGRES_URL   also run on PostgreSQL; a database `events_bench_<pid>` is created there and dropped after
 *   BENCH_DURATION       seconds per measurement (10); BENCH_WARMUP seconds of warm-up (3)
 *   BENCH_CONNECTIONS    concurrent connections (10)
 *   BENCH_SCENARIOS      only these scenario keys (comma-separated; default all): single, list, filtered,
 *                        page-event, page-list (issue 10's pages), geo, venues, organizers, categories, create; issue 9's single-under-writes,
 *                        list-under-writes, filtered-under-writes, after-write, and on PostgreSQL
 *                        propagation, single-under-writes-b, list-under-writes-b, filtered-under-writes-b;
 *                        groups: under-writes, two-instances, issue9, pages (single, list and the two pages);
 *                        issue 24's big-writes (anonymous reads while the largest accepted writes run; group issue24)
 *                        issue 44's growing-reads (anonymous reads whose cost grows with the data: new searches,
 *                        filters, deep pages, ranges, month pages, FullCalendar, CalDAV)
 *   BENCH_WRITE_RATE     creates per second of the writer in the reads-under-writes scenarios (20)
 *   BENCH_ROUNDS         repetitions of after-write and propagation (30; each also stops after BENCH_DURATION s, at least 3)
 *   BENCH_POLL_MS        propagation: pause between polls of instance B (2 ms)
 *   BENCH_WEBHOOK_EVENTS webhooks: events created (one delivery each) to measure the delivery rate (500)
 *   BENCH_BIG_WRITES     big-writes (issue 24): term and body writes per kind (5); the recurrence write is one
 *   BENCH_GROWING_REQUESTS      growing-reads (issue 44): requests per kind (30), each new
 *   BENCH_GROWING_CONCURRENCY   growing-reads: requests of a kind in flight at once (1; the issue's "six at once": 6)
 *   BENCH_GROWING_KINDS         growing-reads: only these kinds (keys or prefixes: search, filter, caldav, …)
 *   BENCH_PAIRED=0       reads under writes: compare with the read-only scenario's figure instead of a
 *                        read-only run right before on the same instance (saves one measurement each)
 *   BENCH_STORES         sqlite,postgres (default: sqlite, plus postgres when its URL is set)
 *   BENCH_DATA_DIR       where the SQLite databases go (./data/bench)
 *   BENCH_REUSE=1        reuse a SQLite database already seeded with the same size
 *   BENCH_NODE_ARGS      extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=prof"
 *   BENCH_OUT            report file (bench/RESULTS.md); BENCH_OUT=- prints only
 *
 * @example BENCH_SIZES=100,100000,1000000 BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 * @example BENCH_SIZES=100000 BENCH_SERIES=10000 BENCH_SERIES_KIND=weekly npm run bench   # issue 15
 * @example BENCH_SIZES=1000000 BENCH_SCENARIOS=growing-reads npm run bench   # issue 44
 */
import { existsSync, rmSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { describeMachine } from './machine.js';
import { measure, type LoadResult, type LoadSpec } from './load.js';
import { adminQuery as pgAdminQuery, postgresUrlFor as postgresUrl } from './postgres.js';
import { BASELINE_ARGS, CLI_PATH, runNode, sampleProcess, startChild, rssOf, type Child } from './processes.js';
import { SERIES_KINDS, type SeriesKind } from '../../src/seed/series.js';
import { renderReport, sizeLabel, writeReport } from './report.js';
import type { BenchRun, ChurnResult, Dataset, ScenarioResult, SizeRun, StoreName } from './results.js';
import {
  AFTER_WRITE_KEY,
  BIG_WRITES_KEY,
  CHURN_SCENARIOS,
  GROWING_READS_KEY,
  PROPAGATION_KEY,
  SCENARIOS,
  WEBHOOKS_KEY,
  discover,
  scenarioUrl,
  selectKeys,
  type ChurnScenario,
  type Scenario,
  type ScenarioContext,
} from './scenarios.js';
import { webhookRate } from './webhooks.js';
import { bigWrites } from './big-writes.js';
import { GROWING_READS_ENV, growingReads, holdCollector } from './growing-reads.js';
import { coldPairs, firstReadAfterWrite, propagation, readOnly, readPath, readsUnderWrites, settle } from './churn.js';
import { quantile } from './stats.js';

const env = process.env;
/** A dataset to seed: events, and (issue 15) recurring series on top. */
interface SizeSpec {
  events: number;
  series?: { count: number; kind: SeriesKind };
}
const KIND_SUFFIX: Record<string, SeriesKind> = { w: 'weekly', m: 'monthly', x: 'mixed', '': 'mixed' };
const SERIES_KIND = (env.BENCH_SERIES_KIND ?? 'weekly') as SeriesKind;
if (!SERIES_KINDS.includes(SERIES_KIND)) throw new Error(`BENCH_SERIES_KIND must be one of ${SERIES_KINDS.join(', ')}`);
const SERIES = Number(env.BENCH_SERIES ?? 0);
const SIZES: SizeSpec[] = (env.BENCH_SIZES ?? '100,100000').split(',').flatMap((token): SizeSpec[] => {
  const m = /^(\d+)(?:\+(\d+)([wmx]?))?$/.exec(token.trim().replace(/_/g, ''));
  if (!m) throw new Error(`BENCH_SIZES: "${token}" is not a size (N, or N+Sw for N events and S weekly series)`);
  const events = Number(m[1]);
  if (m[2] !== undefined) return [{ events, series: { count: Number(m[2]), kind: KIND_SUFFIX[m[3] ?? '']! } }];
  return SERIES > 0 ? [{ events }, { events, series: { count: SERIES, kind: SERIES_KIND } }] : [{ events }];
});
/** The file name part and log label of a size: `100000`, `100000+10000w`. */
const sizeKey = (spec: { events: number; series?: { count: number; kind: string } }) =>
  spec.series ? `${spec.events}+${spec.series.count}${spec.series.kind === 'mixed' ? 'x' : spec.series.kind[0]}` : String(spec.events);
const SECONDS = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const PG_URL = env.BENCH_POSTGRES_URL;
const STORES: StoreName[] = (env.BENCH_STORES ?? (PG_URL ? 'sqlite,postgres' : 'sqlite')).split(',').map((s) => s.trim()) as StoreName[];
const ONLY = selectKeys(env.BENCH_SCENARIOS);
const WRITE_RATE = Number(env.BENCH_WRITE_RATE ?? 20);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 30);
const POLL_MS = Number(env.BENCH_POLL_MS ?? 2);
const WEBHOOK_EVENTS = Number(env.BENCH_WEBHOOK_EVENTS ?? 500);
const PAIRED = env.BENCH_PAIRED !== '0';
const GROWING_REQUESTS = Number(env.BENCH_GROWING_REQUESTS ?? 30);
const GROWING_CONCURRENCY = Number(env.BENCH_GROWING_CONCURRENCY ?? 1);
const GROWING_KINDS = env.BENCH_GROWING_KINDS?.split(',').map((k) => k.trim());
const DATA_DIR = resolve(env.BENCH_DATA_DIR ?? 'data/bench');
const NODE_ARGS = (env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const OUT = env.BENCH_OUT ?? 'bench/RESULTS.md';
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
/** unique per run: two benchmarks may share one PostgreSQL server */
const PG_DATABASE = `events_bench_${process.pid}`;
// Rate limiting off: the load comes from one address, far above any per-client limit.
// WEBHOOKS_ALLOW_PRIVATE: the webhook measurement's receiver listens on 127.0.0.1.
const SERVER_ENV = { LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', CALENDAR_TIMEZONE: 'UTC', CALENDAR_ADMIN_USER: ADMIN.login, CALENDAR_ADMIN_PASSWORD: ADMIN.password, WEBHOOKS_ALLOW_PRIVATE: 'true' };

const scenarios = SCENARIOS.filter((s) => ONLY.has(s.key));
const log = (line: string) => console.log(line);

function commandLine(): string {
  const vars = Object.keys(env)
    .filter((k) => k.startsWith('BENCH_'))
    .sort()
    .map((k) => `${k}=${k === 'BENCH_POSTGRES_URL' ? env[k]!.replace(/:[^:@/]*@/, ':…@') : env[k]}`);
  const how = env.npm_lifecycle_event === 'bench' ? 'npm run bench' : `node ${process.argv.slice(1).join(' ')}`;
  return [...vars, how].join(' ');
}

const postgresUrlFor = (database: string): string => postgresUrl(PG_URL!, database);
const adminQuery = async (text: string): Promise<void> => void (await pgAdminQuery(PG_URL!, text));

async function countDataset(url: string): Promise<Dataset> {
  const store = await openStore(url, { poolSize: 1 });
  try {
    const db = store.db;
    const count = async (table: 'event_organizers' | 'event_terms' | 'images') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const posts = await db
      .selectFrom('posts')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('type')
      .execute();
    const terms = await db
      .selectFrom('terms')
      .select(['taxonomy', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('taxonomy')
      .execute();
    const of = (rows: Array<Record<string, unknown>>, key: string, value: string) => Number(rows.find((r) => r[key] === value)?.n ?? 0);
    return {
      events: of(posts, 'type', 'tribe_events'),
      venues: of(posts, 'type', 'tribe_venue'),
      organizers: of(posts, 'type', 'tribe_organizer'),
      categories: of(terms, 'taxonomy', 'tribe_events_cat'),
      tags: of(terms, 'taxonomy', 'post_tag'),
      images: await count('images'),
      eventOrganizers: await count('event_organizers'),
      eventTerms: await count('event_terms'),
      series: of(posts, 'type', 'tribe_event_series'),
      occurrences: Number(
        (
          await db
            .selectFrom('event_occurrences')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    };
  } finally {
    await store.close();
  }
}

async function seed(url: string, spec: SizeSpec): Promise<number> {
  const started = Date.now();
  const series = spec.series ? ['--series', String(spec.series.count), '--series-kind', spec.series.kind] : [];
  await runNode([CLI_PATH, 'seed', '--events', String(spec.events), ...series, '--database-url', url], { ...SERVER_ENV, LOG_LEVEL: 'warn' });
  return (Date.now() - started) / 1000;
}

/** Prepare the database of one size on one store; returns its URL and the seeding time. */
async function prepare(store: StoreName, spec: SizeSpec): Promise<{ url: string; seconds: number | null }> {
  if (store === 'sqlite') {
    mkdirSync(DATA_DIR, { recursive: true });
    const file = resolve(DATA_DIR, `events-${sizeKey(spec)}.db`);
    const url = `sqlite:${file}`;
    if (env.BENCH_REUSE === '1' && existsSync(file)) {
      const d = await countDataset(url);
      if (d.events - (d.occurrences ?? 0) === spec.events && (d.series ?? 0) === (spec.series?.count ?? 0)) {
        log(`  reusing ${file}`);
        return { url, seconds: null };
      }
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    return { url, seconds: await seed(url, spec) };
  }
  await adminQuery(`drop database if exists ${PG_DATABASE} with (force)`);
  await adminQuery(`create database ${PG_DATABASE}`);
  const url = postgresUrlFor(PG_DATABASE);
  return { url, seconds: await seed(url, spec) };
}

function serviceSpec(s: Scenario, ctx: ScenarioContext): Omit<LoadSpec, 'connections' | 'seconds' | 'warmupSeconds'> {
  return { url: scenarioUrl(s.path(ctx), ctx), method: s.method, headers: s.headers?.(ctx), body: s.body?.(ctx), ...(s.expectStatus !== undefined ? { expectStatus: s.expectStatus } : {}) };
}

/** One load scenario: probe, measure with autocannon, and the baseline with the same body. */
async function runLoadScenario(s: Scenario, ctx: ScenarioContext, store: StoreName, server: Child, baseline: Child | null, baselines: Map<string, LoadResult>, size: SizeRun): Promise<void> {
  const result: ScenarioResult = { key: s.key, label: s.label, kind: s.kind, store, status: 'ok' };
  size.results.push(result);
  const spec = serviceSpec(s, ctx);
  // Probe once: does the route exist, and what does it answer?
  const bodyOf = typeof spec.body === 'function' ? spec.body() : spec.body;
  const probe = await fetch(spec.url, { method: spec.method, headers: spec.headers, body: bodyOf });
  const text = await probe.text();
  if (probe.status === 404 && text.includes('rest_no_route')) {
    result.status = 'n/a';
    result.note = 'route not implemented yet';
    log(`  ${store} ${s.key}: n/a (404 rest_no_route)`);
    return;
  }
  if (probe.status >= 300 && probe.status !== s.expectStatus) {
    result.status = 'error';
    result.note = `HTTP ${probe.status}`;
    log(`  ${store} ${s.key}: HTTP ${probe.status} ${text.slice(0, 300)}`);
    return;
  }
  result.bodyBytes = Buffer.byteLength(text);
  const sampler = sampleProcess(server.pid);
  const started = process.hrtime.bigint();
  result.service = await measure({ ...spec, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP });
  const cpu = sampler.stop();
  const peak = cpu.peakRss;
  const rss = (size.rss[store] ??= { idle: null, peak: null });
  if (peak !== null && (rss.peak === null || peak > rss.peak)) rss.peak = peak;
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  // CPU is measured over warm-up + run; so is the wall time.
  if (cpu.cpuSeconds !== null) result.serverCores = cpu.cpuSeconds / wall;
  if (result.service.non2xx || result.service.errors) result.note = `${result.service.non2xx} non-2xx, ${result.service.errors} errors`;
  if (s.expectStatus !== undefined) result.note = `answers ${s.expectStatus}${result.note ? `; ${result.note}` : ''}`;

  const key = `${sizeKey(size)}:${s.key}`;
  // The baseline answers JSON: HTML pages are compared with the API's answers instead (report.ts);
  // 304 scenarios have no body to compare.
  if (baseline && s.expectStatus === undefined && String(probe.headers.get('content-type')).startsWith('application/json')) {
    const put = await fetch(`${baseline.origin}/__body/${s.key}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: probe.status, body: JSON.parse(text) }),
    });
    if (put.status !== 200) throw new Error(`baseline refused the body: ${put.status}`);
    baselines.set(
      key,
      await measure({ url: `${baseline.origin}/b/${s.key}`, method: s.method, headers: spec.headers, body: spec.body, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP }),
    );
  }
  result.baseline = baselines.get(key);
  const r = result.service;
  const b = result.baseline;
  log(
    `  ${store} ${s.key.padEnd(10)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
      (b ? `   | baseline ${b.rps.toFixed(0)} req/s p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)}  (${(r.rps / b.rps).toFixed(2)}×)` : '') +
      (result.note ? `  [${result.note}]` : ''),
  );
}

const authorization = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');
const fmtMs = (n: number) => (Number.isNaN(n) ? '–' : n.toFixed(1));
const median = (v: number[]) => quantile(v, 0.5);

/** Reads under writes on one instance, or reads on `reader` while the writer writes to `writerCtx`. */
async function runUnderWrites(c: ChurnScenario, store: StoreName, ctx: ScenarioContext, readBase: string, size: SizeRun): Promise<void> {
  const result: ChurnResult = { key: c.key, label: c.label, read: c.read, instance: c.instance, store, status: 'ok' };
  size.underWrites.push(result);
  const readUrl = readBase + readPath(c.read, ctx);
  const probe = await fetch(readUrl);
  await probe.arrayBuffer();
  if (probe.status >= 300) {
    result.status = 'error';
    result.note = `HTTP ${probe.status}`;
    log(`  ${store} ${c.key}: HTTP ${probe.status}`);
    return;
  }
  // The reference: the same read without writes, measured right before on the same instance
  // (other work on a shared machine moves figures by minutes); BENCH_PAIRED=0 takes the read-only
  // scenario's figure of this run instead (instance A's for the B rows) and saves the time.
  const measured = PAIRED ? undefined : size.results.find((r) => r.store === store && r.key === c.read && r.status === 'ok' && r.service)?.service;
  const reference = measured ?? (await readOnly(readUrl, CONNECTIONS, SECONDS, WARMUP));
  result.readOnly = reference;
  result.readOnlySource = measured ? (c.instance === 'other' ? 'instance A, read-only scenario' : 'read-only scenario') : 'measured right before';
  const { service, writer } = await readsUnderWrites({ readUrl, writeBase: ctx.base, ctx, rate: WRITE_RATE, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP });
  result.service = service;
  result.writer = writer;
  // Let the service finish what the writes left (so the next measurement starts calm).
  const waited = await settle([...new Set([readUrl, ctx.base + readPath('list', ctx), ctx.base + readPath('filtered', ctx)])]);
  if (waited > 1) log(`  ${store} ${c.key}: waited ${waited.toFixed(1)} s for the service to settle`);
  if (service.non2xx || service.errors) result.note = `${service.non2xx} non-2xx, ${service.errors} errors`;
  if (writer.failed) result.note = `${result.note ? result.note + '; ' : ''}${writer.failed} creates failed (${writer.failedStatuses.join(', ')})`;
  log(
    `  ${store} ${c.key.padEnd(23)} ${service.rps.toFixed(0).padStart(6)} req/s  p50 ${service.p50.toFixed(2)} ms  p99 ${service.p99.toFixed(2)} ms  ` +
      `(${((service.rps / reference.rps) * 100).toFixed(0)}% of read-only ${reference.rps.toFixed(0)})  ` +
      `writer: ${writer.acknowledged} created, ${writer.achievedRate.toFixed(1)}/s, create p50 ${fmtMs(writer.p50)} p99 ${fmtMs(writer.p99)} ms` +
      (result.note ? `  [${result.note}]` : ''),
  );
}

async function runScenarios(store: StoreName, server: Child, baseline: Child | null, baselines: Map<string, LoadResult>, size: SizeRun, startOther: (() => Promise<Child>) | null): Promise<void> {
  const ctx = await discover(`${server.origin}/api/calendar/events/v1`, authorization);
  // Read-only load first (the reference of the reads under writes), then issue 9's
  // measurements, then the writes (they add thousands of events).
  for (const s of scenarios.filter((x) => x.kind === 'read')) await runLoadScenario(s, ctx, store, server, baseline, baselines, size);

  for (const c of CHURN_SCENARIOS.filter((x) => x.instance === 'same' && ONLY.has(x.key))) await runUnderWrites(c, store, ctx, ctx.base, size);

  if (ONLY.has(AFTER_WRITE_KEY)) {
    const cold = await coldPairs(
      ctx,
      SCENARIOS.filter((x) => x.kind === 'read').map((x) => x.key),
    );
    size.cold[store] = cold;
    log(
      `  ${store} cold (first request after a write / next, ms): ${Object.entries(cold)
        .map(([k, c]) => `${k} ${c.first.toFixed(1)}/${c.next.toFixed(1)}`)
        .join(', ')}`,
    );
    const aw = await firstReadAfterWrite({ ...ctx, listTotal: await listTotal(ctx) }, ROUNDS, SECONDS);
    size.afterWrite[store] = aw;
    log(
      `  ${store} after-write (${aw.rounds} rounds, ${aw.seconds.toFixed(1)} s; median / p90 / max ms): ` +
        Object.entries(aw.reads)
          .map(([k, r]) =>
            r.status === 'ok' ? `${k} ${fmtMs(median(r.times))} / ${fmtMs(quantile(r.times, 0.9))} / ${fmtMs(Math.max(...r.times))}` : `${k} ${r.status}${r.note ? ` (${r.note})` : ''}`,
          )
          .join(', ') +
        (aw.writeError ? `  [create failed: ${aw.writeError}]` : ''),
    );
  }

  const twoInstanceKeys = [PROPAGATION_KEY, ...CHURN_SCENARIOS.filter((x) => x.instance === 'other').map((x) => x.key)];
  if (startOther && twoInstanceKeys.some((k) => ONLY.has(k))) {
    const other = await startOther();
    try {
      const baseB = `${other.origin}/api/calendar/events/v1`;
      if (ONLY.has(PROPAGATION_KEY)) {
        const p = await propagation({ ctx, baseA: ctx.base, baseB, rounds: ROUNDS, seconds: SECONDS, pollMs: POLL_MS, timeoutMs: 5000 });
        size.propagation[store] = p;
        log(
          `  ${store} propagation A -> B (${p.rounds} rounds; median / max ms, not visible within ${p.timeoutMs} ms): ` +
            Object.entries(p.reads)
              .map(([k, r]) => `${k} ${fmtMs(median(r.delays))} / ${fmtMs(r.delays.length ? Math.max(...r.delays) : NaN)}${r.notVisible ? `, ${r.notVisible} not visible` : ''}`)
              .join('; ') +
            (p.writeError ? `  [create failed: ${p.writeError}]` : ''),
        );
      }
      for (const c of CHURN_SCENARIOS.filter((x) => x.instance === 'other' && ONLY.has(x.key))) await runUnderWrites(c, store, ctx, baseB, size);
    } finally {
      await other.stop();
    }
  }

  for (const s of scenarios.filter((x) => x.kind === 'write')) await runLoadScenario(s, ctx, store, server, baseline, baselines, size);

  if (ONLY.has(WEBHOOKS_KEY)) {
    const w = await webhookRate(ctx, WEBHOOK_EVENTS, Math.max(SECONDS * 3, 10));
    (size.webhooks ??= {})[store] = w;
    log(
      `  ${store} webhooks: ${w.deliveries}/${w.events} deliveries in ${w.seconds.toFixed(1)} s = ${w.rate.toFixed(1)}/s; create -> delivery p50 ${fmtMs(w.p50)} p90 ${fmtMs(w.p90)} max ${fmtMs(w.max)} ms` +
        (w.error ? `  [${w.error}]` : ''),
    );
  }

  if (ONLY.has(BIG_WRITES_KEY)) {
    const runs = await bigWrites(ctx, { connections: CONNECTIONS, rounds: Number(env.BENCH_BIG_WRITES ?? 5), referenceSeconds: Math.max(3, WARMUP) });
    (size.bigWrites ??= {})[store] = runs;
    for (const r of runs) {
      log(
        `  ${store} big write ${r.kind.padEnd(10)} ${r.writes} write(s), ${fmtMs(median(r.writeMs))} ms each (median), work ${r.seconds.toFixed(1)} s; ` +
          `reads during: ${r.reads}, p50 ${fmtMs(r.p50)} p99 ${fmtMs(r.p99)} max ${fmtMs(r.max)} ms (without: p50 ${fmtMs(r.reference.p50)} p99 ${fmtMs(r.reference.p99)} ms)` +
          (r.error ? `  [${r.error}]` : ''),
      );
    }
  }
}

/** Events in the default list now (X-TEC-Total). */
async function listTotal(ctx: ScenarioContext): Promise<number> {
  const res = await fetch(`${ctx.base}/events`);
  await res.arrayBuffer();
  return Number(res.headers.get('x-tec-total') ?? 0);
}

async function main(): Promise<void> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first (npm run bench does)`);
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    command: commandLine(),
    machine: describeMachine(),
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP,
    serverNote: `\`node ${NODE_ARGS.length ? NODE_ARGS.join(' ') + ' ' : ''}dist/cli/main.js serve\` with LOG_LEVEL=warn, CALENDAR_TIMEZONE=UTC`,
    sizes: [],
  };
  log(`machine: ${run.machine.cpu}, ${run.machine.cores} cores, ${run.machine.memoryGb} GB, node ${run.machine.node}`);
  log(`sizes ${SIZES.map(sizeKey).join(', ')}; stores ${STORES.join(', ')}; ${CONNECTIONS} connections, ${SECONDS} s (+${WARMUP} s warm-up)`);
  if (STORES.includes('postgres') && !PG_URL) throw new Error('BENCH_STORES includes postgres but BENCH_POSTGRES_URL is not set');

  const baseline = await startChild('baseline', BASELINE_ARGS, {}, { readyPath: '/' });
  const baselines = new Map<string, LoadResult>();
  try {
    for (const spec of SIZES) {
      const events = spec.events;
      const size: SizeRun = {
        events,
        ...(spec.series ? { series: spec.series } : {}),
        seedSeconds: {},
        rss: {},
        results: [],
        cold: {},
        underWrites: [],
        afterWrite: {},
        propagation: {},
        writeRate: WRITE_RATE,
        load: { start: loadavg()[0]!, end: 0 },
      };
      run.sizes.push(size);
      for (const store of STORES) {
        log(`\n== ${sizeLabel(size)} on ${store}`);
        const { url, seconds } = await prepare(store, spec);
        size.seedSeconds[store] = seconds;
        if (seconds !== null) log(`  seeded in ${seconds.toFixed(1)} s`);
        if (!size.dataset) size.dataset = await countDataset(url);
        try {
          // Issue 44's reads on a server of their own (it logs every hold of its loop), on the seeded data.
          if (ONLY.has(GROWING_READS_KEY)) {
            const holds = holdCollector();
            const reader = await startChild(
              `server for growing reads (${store})`,
              [CLI_PATH, 'serve'],
              { ...SERVER_ENV, ...GROWING_READS_ENV, DATABASE_URL: url },
              {
                nodeArgs: NODE_ARGS,
                readyPath: '/api/',
                onOutput: holds.onOutput,
              },
            );
            try {
              log(`  ${store} growing reads (${GROWING_REQUESTS} requests per kind, ${GROWING_CONCURRENCY} at once):`);
              (size.growingReads ??= {})[store] = await growingReads(
                reader.origin,
                holds,
                { requests: GROWING_REQUESTS, concurrency: GROWING_CONCURRENCY, ...(GROWING_KINDS ? { kinds: GROWING_KINDS } : {}) },
                log,
              );
            } finally {
              await reader.stop();
            }
          }
          const server = await startChild(`server (${store})`, [CLI_PATH, 'serve'], { ...SERVER_ENV, DATABASE_URL: url }, { nodeArgs: NODE_ARGS, readyPath: '/api/' });
          // A second instance on the same database (PostgreSQL only: SQLite is one machine's file).
          const startOther =
            store === 'postgres' ? () => startChild(`server B (${store})`, [CLI_PATH, 'serve'], { ...SERVER_ENV, DATABASE_URL: url }, { nodeArgs: NODE_ARGS, readyPath: '/api/' }) : null;
          try {
            size.rss[store] = { idle: rssOf(server.pid), peak: null };
            // The baseline is measured once per size and scenario (with the first store's body).
            await runScenarios(store, server, baselines.size && [...baselines.keys()].some((k) => k.startsWith(`${sizeKey(size)}:`)) ? null : baseline, baselines, size, startOther);
          } finally {
            await server.stop();
          }
        } finally {
          if (store === 'postgres' && env.BENCH_KEEP !== '1') await adminQuery(`drop database if exists ${PG_DATABASE} with (force)`);
        }
      }
      size.load!.end = loadavg()[0]!;
    }
  } finally {
    await baseline.stop();
  }
  run.finishedAt = new Date().toISOString();
  const report = renderReport(run);
  console.log('\n' + report);
  if (OUT !== '-') {
    await writeReport(OUT, report);
    log(`\nwrote ${OUT}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
