/**
 * `npm run bench`: seed databases of several sizes, serve each from a child process
 * (`node dist/cli/main.js serve`, SQLite, and PostgreSQL when BENCH_POSTGRES_URL is set), load
 * every scenario with autocannon next to a bare-Fastify baseline answering the same body, and
 * write bench/RESULTS.md.
 *
 * Settings (environment):
 *   BENCH_SIZES          event counts, default "100,100000" (add 1000000 for the large run)
 *   BENCH_POSTGRES_URL   also run on PostgreSQL; a database `events_bench` is created there and dropped after
 *   BENCH_DURATION       seconds per measurement (10); BENCH_WARMUP seconds of warm-up (3)
 *   BENCH_CONNECTIONS    concurrent connections (10)
 *   BENCH_SCENARIOS      only these scenario keys (comma-separated; default all)
 *   BENCH_STORES         sqlite,postgres (default: sqlite, plus postgres when its URL is set)
 *   BENCH_DATA_DIR       where the SQLite databases go (./data/bench)
 *   BENCH_REUSE=1        reuse a SQLite database already seeded with the same size
 *   BENCH_NODE_ARGS      extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=prof"
 *   BENCH_OUT            report file (bench/RESULTS.md); BENCH_OUT=- prints only
 *
 * @example BENCH_SIZES=100,100000,1000000 BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 */
import { existsSync, rmSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { openStore } from '../store/db.js';
import { describeMachine } from './machine.js';
import { measure, type LoadResult, type LoadSpec } from './load.js';
import { BASELINE_PATH, CLI_PATH, runNode, sampleProcess, startChild, rssOf, type Child } from './processes.js';
import { renderReport, writeReport, type BenchRun, type Dataset, type ScenarioResult, type SizeRun, type StoreName } from './report.js';
import { SCENARIOS, discover, type Scenario, type ScenarioContext } from './scenarios.js';

const env = process.env;
const SIZES = (env.BENCH_SIZES ?? '100,100000').split(',').map((s) => Number(s.trim().replace(/_/g, ''))).filter((n) => Number.isInteger(n) && n > 0);
const SECONDS = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const PG_URL = env.BENCH_POSTGRES_URL;
const STORES: StoreName[] = (env.BENCH_STORES ?? (PG_URL ? 'sqlite,postgres' : 'sqlite')).split(',').map((s) => s.trim()) as StoreName[];
const ONLY = env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',').map((s) => s.trim())) : null;
const DATA_DIR = resolve(env.BENCH_DATA_DIR ?? 'data/bench');
const NODE_ARGS = (env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const OUT = env.BENCH_OUT ?? 'bench/RESULTS.md';
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const PG_DATABASE = 'events_bench';
// Rate limiting off: the load comes from one address, far above any per-client limit.
const SERVER_ENV = { LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', CALENDAR_TIMEZONE: 'UTC', CALENDAR_ADMIN_USER: ADMIN.login, CALENDAR_ADMIN_PASSWORD: ADMIN.password };

const scenarios = SCENARIOS.filter((s) => !ONLY || ONLY.has(s.key));
const log = (line: string) => console.log(line);

function commandLine(): string {
  const vars = Object.keys(env)
    .filter((k) => k.startsWith('BENCH_'))
    .sort()
    .map((k) => `${k}=${k === 'BENCH_POSTGRES_URL' ? env[k]!.replace(/:[^:@/]*@/, ':…@') : env[k]}`);
  const how = env.npm_lifecycle_event === 'bench' ? 'npm run bench' : `node ${process.argv.slice(1).join(' ')}`;
  return [...vars, how].join(' ');
}

function postgresUrlFor(database: string): string {
  const u = new URL(PG_URL!);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function countDataset(url: string): Promise<Dataset> {
  const store = await openStore(url, { poolSize: 1 });
  try {
    const db = store.db;
    const count = async (table: 'event_organizers' | 'event_terms' | 'images') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const posts = await db.selectFrom('posts').select(['type', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('type').execute();
    const terms = await db.selectFrom('terms').select(['taxonomy', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('taxonomy').execute();
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
    };
  } finally {
    await store.close();
  }
}

async function seed(url: string, events: number): Promise<number> {
  const started = Date.now();
  await runNode([CLI_PATH, 'seed', '--events', String(events), '--database-url', url], { ...SERVER_ENV, LOG_LEVEL: 'warn' });
  return (Date.now() - started) / 1000;
}

/** Prepare the database of one size on one store; returns its URL and the seeding time. */
async function prepare(store: StoreName, events: number): Promise<{ url: string; seconds: number | null }> {
  if (store === 'sqlite') {
    mkdirSync(DATA_DIR, { recursive: true });
    const file = resolve(DATA_DIR, `events-${events}.db`);
    const url = `sqlite:${file}`;
    if (env.BENCH_REUSE === '1' && existsSync(file)) {
      const d = await countDataset(url);
      if (d.events === events) {
        log(`  reusing ${file}`);
        return { url, seconds: null };
      }
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    return { url, seconds: await seed(url, events) };
  }
  await adminQuery(`drop database if exists ${PG_DATABASE} with (force)`);
  await adminQuery(`create database ${PG_DATABASE}`);
  const url = postgresUrlFor(PG_DATABASE);
  return { url, seconds: await seed(url, events) };
}

interface Target {
  origin: string;
  spec: (s: Scenario, ctx: ScenarioContext) => Omit<LoadSpec, 'connections' | 'seconds' | 'warmupSeconds'>;
}

function serviceSpec(s: Scenario, ctx: ScenarioContext): Omit<LoadSpec, 'connections' | 'seconds' | 'warmupSeconds'> {
  return { url: ctx.base + s.path(ctx), method: s.method, headers: s.headers?.(ctx), body: s.body?.(ctx) };
}

/** Time one GET, in ms (status must be 2xx). */
async function timeGet(url: string): Promise<number | null> {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status < 300 ? performance.now() - started : null;
}

/**
 * The cost of the uncached path: for each read scenario, create an event (a write invalidates
 * every cached result), then time the first request and the next one.
 */
async function measureCold(store: StoreName, ctx: ScenarioContext, size: SizeRun): Promise<void> {
  const create = SCENARIOS.find((s) => s.key === 'create')!;
  const body = create.body!(ctx);
  const cold: Record<string, { first: number; next: number }> = {};
  for (const s of scenarios.filter((x) => x.kind === 'read')) {
    const write = await fetch(ctx.base + create.path(ctx), { method: 'POST', headers: create.headers!(ctx), body: body() });
    await write.arrayBuffer();
    if (write.status !== 201) return;
    const first = await timeGet(ctx.base + s.path(ctx));
    const next = await timeGet(ctx.base + s.path(ctx));
    if (first !== null && next !== null) cold[s.key] = { first, next };
  }
  size.cold[store] = cold;
  log(`  ${store} cold (first request after a write / next, ms): ${Object.entries(cold).map(([k, c]) => `${k} ${c.first.toFixed(1)}/${c.next.toFixed(1)}`).join(', ')}`);
}

async function runScenarios(store: StoreName, server: Child, baseline: Child | null, baselines: Map<string, LoadResult>, size: SizeRun): Promise<void> {
  const authorization = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');
  const ctx = await discover(`${server.origin}/api/calendar/events/v1`, authorization);
  let coldDone = false;
  for (const s of scenarios) {
    if (s.kind === 'write' && !coldDone) {
      coldDone = true;
      await measureCold(store, ctx, size);
    }
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
      continue;
    }
    if (probe.status >= 300) {
      result.status = 'error';
      result.note = `HTTP ${probe.status}`;
      log(`  ${store} ${s.key}: HTTP ${probe.status} ${text.slice(0, 300)}`);
      continue;
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

    const key = `${size.events}:${s.key}`;
    if (baseline) {
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
  log(`sizes ${SIZES.join(', ')}; stores ${STORES.join(', ')}; ${CONNECTIONS} connections, ${SECONDS} s (+${WARMUP} s warm-up)`);
  if (STORES.includes('postgres') && !PG_URL) throw new Error('BENCH_STORES includes postgres but BENCH_POSTGRES_URL is not set');

  const baseline = await startChild('baseline', [BASELINE_PATH], {}, { readyPath: '/' });
  const baselines = new Map<string, LoadResult>();
  try {
    for (const events of SIZES) {
      const size: SizeRun = { events, seedSeconds: {}, rss: {}, results: [], cold: {}, load: { start: loadavg()[0]!, end: 0 } };
      run.sizes.push(size);
      for (const store of STORES) {
        log(`\n== ${events.toLocaleString('en-US')} events on ${store}`);
        const { url, seconds } = await prepare(store, events);
        size.seedSeconds[store] = seconds;
        if (seconds !== null) log(`  seeded in ${seconds.toFixed(1)} s`);
        if (!size.dataset) size.dataset = await countDataset(url);
        const server = await startChild(`server (${store})`, [CLI_PATH, 'serve'], { ...SERVER_ENV, DATABASE_URL: url }, { nodeArgs: NODE_ARGS, readyPath: '/api/' });
        try {
          size.rss[store] = { idle: rssOf(server.pid), peak: null };
          // The baseline is measured once per size and scenario (with the first store's body).
          await runScenarios(store, server, baselines.size && [...baselines.keys()].some((k) => k.startsWith(`${events}:`)) ? null : baseline, baselines, size);
        } finally {
          await server.stop();
        }
        if (store === 'postgres' && env.BENCH_KEEP !== '1') await adminQuery(`drop database if exists ${PG_DATABASE} with (force)`);
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
