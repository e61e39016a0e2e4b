/**
 * Many calendars in one database, `npm run bench:calendars`: the targets of "Many calendars in one
 * service", measured on the compiled service (`node dist/cli/main.js serve`) with autocannon.
 *
 * Three databases per store:
 * - shared: the default calendar with BENCH_BIG events, plus BENCH_CALENDARS calendars of
 *   BENCH_CALENDAR_EVENTS events each (`c00001`, …; each seeded with its number as the seed);
 * - alone-big: the same default calendar alone (a copy taken before the small calendars are added;
 *   on PostgreSQL, a database seeded the same way);
 * - alone-probe: the probe calendar (`c{middle}`, the same seed and the same "today") alone.
 *
 * Measured:
 * 1. lists: a calendar's REST list and month page, in the shared database against the same
 *    calendar alone (target: >= 90 %), for the probe calendar and for the big one;
 * 2. creating a calendar: POST calendar/network/v1/calendars, one after another, in the shared
 *    database (target: under 50 ms);
 * 3. idle memory: the server's heap and RSS after one request in each of 0 … BENCH_CALENDARS
 *    calendars (target: bounded: no structure per calendar that grows without a bound);
 * 4. fairness: the probe calendar's p99 (one connection) quiet, then while the big calendar is
 *    read by BENCH_CONNECTIONS connections and written by BENCH_WRITERS; with CALENDAR_FAIR_SHARE
 *    as shipped and with it off (target: within 2x the quiet p99); then with the reads alone and
 *    the writes alone (BENCH_FAIR_MIX=0: not); then the writes in a thread of their own on the
 *    probe's instance, alone and with the reads (WRITE_WORKER; BENCH_FAIR_WORKER=0: not); then the
 *    writes sent to a second instance on the
 *    same database, alone and with the reads, and to a second instance of another database, which
 *    the probe's instance does not follow: what the machine's sharing alone costs the probe
 *    (BENCH_FAIR_ELSEWHERE=0: not). The second instance stands for another machine: pinned beside
 *    the load, at its lower priority.
 *
 * Settings: BENCH_CALENDARS (10000), BENCH_CALENDAR_EVENTS (100), BENCH_BIG (1000000),
 * BENCH_STORES (sqlite; add postgres with BENCH_POSTGRES_URL), BENCH_DURATION (10 s),
 * BENCH_WARMUP (3 s), BENCH_CONNECTIONS (10), BENCH_WRITERS (2), BENCH_FAIR_SHARES ("2,4,1,0"), BENCH_FAIR_MIX, BENCH_FAIR_WORKER, BENCH_FAIR_ELSEWHERE,
 * BENCH_DATA_DIR (./data/bench), BENCH_REUSE=1 (keep and reuse the seeded SQLite files and PostgreSQL
 * databases of the same sizes),
 * BENCH_SEED_ONLY=1 (seed the databases and stop: seeding needs no quiet machine),
 * BENCH_ONLY (some of lists,creates,memory,fairness), BENCH_PIN=0 (fairness: no CPU pinning),
 * BENCH_RATE_LIMIT_MAX (0: the rate limit off; 1000000000: on, never reached),
 * BENCH_OUT (bench/calendars-results.md; "-" prints only).
 *
 * @example npm run bench:calendars
 * @example BENCH_CALENDARS=1000 BENCH_BIG=100000 BENCH_STORES=postgres BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:calendars
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { adminQuery, postgresUrlFor } from './postgres.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { inCalendar } from '../../src/store/calendar-scope.js';
import { insertCalendar } from '../../src/store/calendars.js';
import { createUserService } from '../../src/domain/users.js';
import { seedCalendar } from '../../src/seed/calendar.js';
import { measure, loadOnce, type LoadResult } from './load.js';
import { CLI_PATH, rssOf, runNode, startChild, type Child } from './processes.js';

const env = process.env;
const CALENDARS = Number(env.BENCH_CALENDARS ?? 10_000);
const CALENDAR_EVENTS = Number(env.BENCH_CALENDAR_EVENTS ?? 100);
const BIG = Number(env.BENCH_BIG ?? 1_000_000);
const PG_URL = env.BENCH_POSTGRES_URL;
const STORES = (env.BENCH_STORES ?? 'sqlite').split(',').map((s) => s.trim());
const SECONDS = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const WRITERS = Number(env.BENCH_WRITERS ?? 2);
/** CALENDAR_FAIR_SHARE's default, as the service reads it: the reads-only and writes-only runs use it. */
const SHIPPED_FAIR_SHARE = loadConfig({}).calendarFairShare;
const FAIR_SHARES = (env.BENCH_FAIR_SHARES ?? `${SHIPPED_FAIR_SHARE},4,1,0`).split(',').map(Number);
const DATA_DIR = resolve(env.BENCH_DATA_DIR ?? 'data/bench');
const OUT = env.BENCH_OUT ?? 'bench/calendars-results.md';
/** Fairness: server, load and probe pinned to CPUs (Linux with taskset and 2 CPUs or more; BENCH_PIN=0 turns it off). */
const PIN =
  env.BENCH_PIN !== '0' &&
  availableParallelism() >= 2 &&
  (() => {
    try {
      execFileSync('taskset', ['-V'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
const ONLY = new Set((env.BENCH_ONLY ?? 'lists,creates,memory,fairness').split(',').map((s) => s.trim()));
const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const AUTH = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;
// The rate limit off unless asked (BENCH_RATE_LIMIT_MAX): the load's clients are one address, and
// a limit its rate passes costs a grant write in about a hundred requests (the main thread's writes).
const SERVER_ENV = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: env.BENCH_RATE_LIMIT_MAX ?? '0',
  CALENDAR_TIMEZONE: 'UTC',
  CALENDAR_ADMIN_USER: ADMIN.login,
  CALENDAR_ADMIN_PASSWORD: ADMIN.password,
  METRICS: 'true',
};
/** Every seed's "today": the same dates in every database. */
const NOW = new Date(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`);
const PROBE = Math.max(1, Math.ceil(CALENDARS / 2));
const slugOf = (n: number) => `c${String(n).padStart(5, '0')}`;
const PROBE_SLUG = slugOf(PROBE);

const lines: string[] = [];
const log = (line: string) => {
  console.log(line);
  lines.push(line);
};

const pgUrlFor = (database: string) => postgresUrlFor(PG_URL!, database);
const pgAdmin = async (text: string): Promise<void> => void (await adminQuery(PG_URL!, text));

/** The default calendar's BIG events, by the CLI as it ships. */
async function seedBig(url: string): Promise<void> {
  await runNode([CLI_PATH, 'seed', '--events', String(BIG), '--no-progress', '--database-url', url], SERVER_ENV);
}

/** Calendars `from`…`to`, each with CALENDAR_EVENTS events seeded with its number. */
async function seedSmall(url: string, numbers: number[]): Promise<number> {
  const started = performance.now();
  const store: Store = await openStore(url);
  try {
    const users = createUserService(store);
    await users.ensureAdmin(ADMIN.login, ADMIN.password);
    const admin = (await users.list()).find((u) => u.login === ADMIN.login)!;
    let done = 0;
    for (const n of numbers) {
      const row = await insertCalendar(store.db, { slug: slugOf(n), name: `Calendar ${n}`, host: null, quotas: '{}', created_gmt: new Date().toISOString().slice(0, 19).replace('T', ' ') });
      await inCalendar(Number(row.id), () => seedCalendar(store, { events: CALENDAR_EVENTS, authorId: Number(admin.id), timezone: 'UTC', seed: n, now: NOW }));
      if (++done % 500 === 0) console.log(`  ${done}/${numbers.length} calendars seeded (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
}

interface Databases {
  shared: string;
  aloneBig: string;
  aloneProbe: string;
}

/** The three databases of a store (SQLite files kept with BENCH_REUSE=1). */
async function prepare(store: string): Promise<Databases> {
  const all = Array.from({ length: CALENDARS }, (_, i) => i + 1);
  if (store === 'sqlite') {
    mkdirSync(DATA_DIR, { recursive: true });
    const name = (what: string) => resolve(DATA_DIR, `calendars-${what}.db`);
    const key = `${BIG}-${CALENDARS}x${CALENDAR_EVENTS}`;
    const files = { shared: name(`shared-${key}`), aloneBig: name(`alone-big-${BIG}`), aloneProbe: name(`alone-probe-${CALENDAR_EVENTS}-${PROBE}`) };
    const fresh = (file: string) => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    };
    const reuse = (file: string) => env.BENCH_REUSE === '1' && existsSync(file);
    if (!reuse(files.aloneBig) || !reuse(files.shared)) {
      fresh(files.aloneBig);
      fresh(files.shared);
      let t = performance.now();
      await seedBig(`sqlite:${files.aloneBig}`);
      log(`- seeded the default calendar's ${BIG.toLocaleString('en')} events in ${((performance.now() - t) / 1000).toFixed(0)} s`);
      for (const suffix of ['', '-wal']) if (existsSync(files.aloneBig + suffix)) copyFileSync(files.aloneBig + suffix, files.shared + suffix);
      t = performance.now();
      const s = await seedSmall(`sqlite:${files.shared}`, all);
      log(`- seeded ${CALENDARS.toLocaleString('en')} calendars of ${CALENDAR_EVENTS} events beside it in ${s.toFixed(0)} s (${((s * 1000) / CALENDARS).toFixed(0)} ms each)`);
    }
    if (!reuse(files.aloneProbe)) {
      fresh(files.aloneProbe);
      await seedSmall(`sqlite:${files.aloneProbe}`, [PROBE]);
    }
    return { shared: `sqlite:${files.shared}`, aloneBig: `sqlite:${files.aloneBig}`, aloneProbe: `sqlite:${files.aloneProbe}` };
  }
  const suffix = env.BENCH_REUSE === '1' ? `${BIG}_${CALENDARS}x${CALENDAR_EVENTS}` : String(process.pid);
  const names = { shared: `events_bench_cal_shared_${suffix}`, aloneBig: `events_bench_cal_big_${suffix}`, aloneProbe: `events_bench_cal_probe_${suffix}` };
  const urls = { shared: pgUrlFor(names.shared), aloneBig: pgUrlFor(names.aloneBig), aloneProbe: pgUrlFor(names.aloneProbe) };
  // Kept with BENCH_REUSE=1 (the names say the sizes; a database is reused only when all three are there).
  if (env.BENCH_REUSE === '1' && (await pgDatabasesExist(Object.values(names)))) return urls;
  for (const db of Object.values(names)) await pgAdmin(`drop database if exists ${db} with (force)`);
  await pgAdmin(`create database ${names.aloneBig}`);
  let t = performance.now();
  await seedBig(urls.aloneBig);
  log(`- seeded the default calendar's ${BIG.toLocaleString('en')} events in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  // A copy of it: PostgreSQL's template copy (no connection may be open to it).
  await pgAdmin(`create database ${names.shared} template ${names.aloneBig}`);
  t = performance.now();
  const s = await seedSmall(urls.shared, all);
  log(`- seeded ${CALENDARS.toLocaleString('en')} calendars of ${CALENDAR_EVENTS} events beside it in ${s.toFixed(0)} s (${((s * 1000) / CALENDARS).toFixed(0)} ms each)`);
  // The last of the three, made last: its presence says the others are complete.
  await pgAdmin(`create database ${names.aloneProbe}`);
  await seedSmall(urls.aloneProbe, [PROBE]);
  return urls;
}

async function pgDatabasesExist(names: string[]): Promise<boolean> {
  const rows = await adminQuery<{ n: number }>(PG_URL!, 'select count(*)::int as n from pg_database where datname = any($1)', [names]);
  return Number(rows[0]!.n) === names.length;
}

async function dropPostgres(): Promise<void> {
  // Kept for the next run with BENCH_REUSE=1.
  if (env.BENCH_REUSE === '1') return;
  for (const what of ['shared', 'big', 'probe']) await pgAdmin(`drop database if exists events_bench_cal_${what}_${process.pid} with (force)`);
}

const serve = (url: string, extra: Record<string, string> = {}): Promise<Child> =>
  startChild('service', [CLI_PATH, 'serve'], { ...SERVER_ENV, DATABASE_URL: url, ...extra }, { readyPath: '/readyz', timeoutMs: 600_000 });

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : 'n/a');
const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;

/** 1. Lists of a calendar in the shared database against the same calendar alone. */
async function lists(dbs: Databases, table: string[]): Promise<void> {
  const probeApi = `/c/${PROBE_SLUG}/api/calendar/events/v1/events`;
  const month = NOW.toISOString().slice(0, 7);
  const reads: Array<{ label: string; path: string; alone: string }> = [
    { label: `calendar ${PROBE_SLUG} (${CALENDAR_EVENTS} events): REST list`, path: probeApi, alone: dbs.aloneProbe },
    { label: `calendar ${PROBE_SLUG}: REST list, a search`, path: `${probeApi}?search=music`, alone: dbs.aloneProbe },
    { label: `calendar ${PROBE_SLUG}: month page`, path: `/c/${PROBE_SLUG}/events/month/${month}/`, alone: dbs.aloneProbe },
    { label: `default calendar (${BIG.toLocaleString('en')} events): REST list`, path: '/api/calendar/events/v1/events', alone: dbs.aloneBig },
    { label: 'default calendar: REST list, a search', path: '/api/calendar/events/v1/events?search=music', alone: dbs.aloneBig },
    { label: 'default calendar: month page', path: `/events/month/${month}/`, alone: dbs.aloneBig },
  ];
  const results = new Map<string, { alone?: LoadResult; shared?: LoadResult }>();
  for (const [where, url] of [
    ['alone', undefined],
    ['shared', dbs.shared],
  ] as const) {
    // The probe calendar's alone database holds only it; the big calendar's, only the default one.
    const servers = new Map<string, Child>();
    try {
      for (const r of reads) {
        const db = url ?? r.alone;
        let server = servers.get(db);
        if (!server) servers.set(db, (server = await serve(db)));
        const probe = await fetch(server.origin + r.path);
        await probe.arrayBuffer();
        if (probe.status !== 200) throw new Error(`${r.path} answered ${probe.status} (${where})`);
        const result = await measure({ url: server.origin + r.path, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP });
        const entry = results.get(r.label) ?? {};
        entry[where] = result;
        results.set(r.label, entry);
        console.log(`  ${where} ${r.label}: ${result.rps.toFixed(0)} req/s, p99 ${ms(result.p99)} ms`);
      }
    } finally {
      for (const s of servers.values()) await s.stop();
    }
  }
  table.push('| read | alone req/s (p99 ms) | among the others req/s (p99 ms) | shared / alone |', '|---|---:|---:|---:|');
  for (const r of reads) {
    const { alone, shared } = results.get(r.label)!;
    table.push(`| ${r.label} | ${alone!.rps.toFixed(0)} (${ms(alone!.p99)}) | ${shared!.rps.toFixed(0)} (${ms(shared!.p99)}) | ${pct(shared!.rps, alone!.rps)} |`);
  }
}

/** 2. Creating calendars one after another in the shared database. */
async function creates(server: Child, table: string[]): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const res = await fetch(`${server.origin}/api/calendar/network/v1/calendars`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: `bench-${process.pid}-${i}`, name: `Bench ${i}` }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`creating a calendar answered ${res.status}: ${text}`);
    times.push(performance.now() - started);
  }
  const sorted = times.slice(5).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  table.push('| creates | p50 ms | p90 ms | max ms |', '|---|---:|---:|---:|', `| 45 (after 5 of warm-up) | ${ms(at(0.5))} | ${ms(at(0.9))} | ${ms(sorted.at(-1)!)} |`);
}

const heapOf = async (server: Child): Promise<number> => {
  const text = await (await fetch(`${server.origin}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? NaN);
};

/** 3. The server's memory after one list request in each of more and more calendars. */
async function memory(server: Child, table: string[]): Promise<void> {
  table.push('| calendars asked once | heap used MB | RSS MB |', '|---:|---:|---:|');
  const mb = (b: number | null) => (b === null || !Number.isFinite(b) ? 'n/a' : (b / 2 ** 20).toFixed(0));
  const steps = [0, 100, 1000, 2500, 5000, 10_000].filter((n) => n <= CALENDARS);
  let asked = 0;
  for (const step of steps) {
    for (; asked < step; asked++) {
      const res = await fetch(`${server.origin}/c/${slugOf(asked + 1)}/api/calendar/events/v1/events`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`calendar ${slugOf(asked + 1)} answered ${res.status}`);
    }
    // Idle: a moment for what is dropped after a while to go.
    await new Promise((r) => setTimeout(r, 3000));
    table.push(`| ${step.toLocaleString('en')} | ${mb(await heapOf(server))} | ${mb(rssOf(server.pid))} |`);
  }
}

/** A load run by drive-load.ts in a child process: its result. */
function driveLoad(spec: Record<string, unknown>): Promise<LoadResult> {
  return new Promise((resolveRun, reject) => {
    const args = ['--import', 'tsx', fileURLToPath(new URL('./drive-load.ts', import.meta.url)), JSON.stringify(spec)];
    // Pinned: on the load's CPU, below the probe's priority (see `pin`).
    const child = PIN
      ? spawn('nice', ['-n', '10', 'taskset', '-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolveRun(JSON.parse(out.trim().split('\n').at(-1)!) as LoadResult) : reject(new Error(`drive-load exited with ${code}`))));
  });
}

/**
 * 4. The probe calendar's p99 quiet and while the big calendar is under load: read by `readers`
 * connections and written by `writers`, on a server with CALENDAR_FAIR_SHARE=`share`.
 */
async function fairnessRow(url: string, share: number, load: string, readers: number, writers: number, writesTo?: string, settings: Record<string, string> = {}): Promise<string> {
  const probePath = `/c/${PROBE_SLUG}/api/calendar/events/v1/events`;
  const server = await serve(url, { CALENDAR_FAIR_SHARE: String(share), ...settings });
  // The writes sent to a second instance of `writesTo`: on the same database the first only
  // follows them; on another, there is nothing to follow, and what is left is what the machine's
  // sharing costs the probe.
  const writer = writesTo === undefined ? undefined : await serve(writesTo, { CALENDAR_FAIR_SHARE: String(share) });
  try {
    if (PIN) {
      // On 2 cores the load generators would take the server's CPU from it, and the probe's
      // answers would wait on the operating system rather than on the server: the server has
      // CPU 0 to itself, the load and the probe share CPU 1, the load at a lower priority (and
      // the writing instance, when there is one, with them).
      execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' });
      execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
      // The second instance stands for another machine: it runs beside the load, at the load's
      // priority, so that the probe's answers do not wait on the operating system for it either.
      if (writer) {
        execFileSync('taskset', ['-a', '-p', '-c', '1', String(writer.pid)], { stdio: 'ignore' });
        reniceAll(writer.pid, 10);
      }
    }
    const probe = { url: server.origin + probePath, connections: 1 };
    const quiet = await measure({ ...probe, seconds: SECONDS, warmupSeconds: WARMUP });
    const busyRead = { url: `${server.origin}/api/calendar/events/v1/events?per_page=20`, connections: readers };
    const busyWrite = {
      url: `${(writer ?? server).origin}/api/calendar/events/v1/events`,
      method: 'POST' as const,
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      create: true,
      connections: writers,
    };
    // The load runs in processes of their own (drive-load.ts), starts first and runs past the
    // probe's measurement: the probe's answers are not delayed by the load generator's work.
    const reads = readers > 0 ? driveLoad({ ...busyRead, seconds: SECONDS + WARMUP + 2 }) : undefined;
    const writes = writers > 0 ? driveLoad({ ...busyWrite, seconds: SECONDS + WARMUP + 2 }) : undefined;
    await new Promise((r) => setTimeout(r, WARMUP * 1000));
    const loaded = await loadOnce(probe, SECONDS);
    const [r, w] = await Promise.all([reads, writes]);
    const busy = (x: LoadResult | undefined) => (x ? `${x.rps.toFixed(0)} (${ms(x.p99)})` : '–');
    // What the probe's instance found of the other's commits without log rows (SQLite): marked
    // ones it kept its results through, and the others, each of which dropped every calendar's.
    const unlogged = await unloggedOf(server);
    const resets = unlogged ? `${unlogged.unknown} / ${unlogged.marked}` : '–';
    console.log(`  share ${share}, ${load}: quiet p99 ${ms(quiet.p99)} ms, under load ${ms(loaded.p99)} ms, unlogged commits unknown / marked ${resets}`);
    return `| ${share || 'off (0)'} | ${load} | ${ms(quiet.p99)} | ${ms(loaded.p99)} | ${(loaded.p99 / quiet.p99).toFixed(1)}x | ${quiet.rps.toFixed(0)} / ${loaded.rps.toFixed(0)} | ${busy(r)} | ${busy(w)} | ${resets} |`;
  } finally {
    await writer?.stop();
    await server.stop();
  }
}

/** Others' commits without log rows the server's feed found, by kind (SQLite; undefined on PostgreSQL). */
async function unloggedOf(server: Child): Promise<{ unknown: number; marked: number } | undefined> {
  const text = await (await fetch(`${server.origin}/metrics`)).text();
  const of = (kind: string) => new RegExp(`^calendar_feed_unlogged_commits_total\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1];
  const unknown = of('unknown');
  const marked = of('marked');
  return unknown === undefined || marked === undefined ? undefined : { unknown: Number(unknown), marked: Number(marked) };
}

/**
 * 4. Fairness: the full load (reads and writes) with each CALENDAR_FAIR_SHARE of BENCH_FAIR_SHARES;
 * then, with the shipped share, the reads alone and the writes alone (BENCH_FAIR_MIX=0 leaves
 * them out), which tells what the probe waits on.
 */
async function fairness(url: string, table: string[]): Promise<void> {
  table.push(
    `| CALENDAR_FAIR_SHARE | the busy calendar's load | probe p99 quiet ms | probe p99 under load ms | ratio | probe req/s quiet / under load | busy calendar reads/s (p99 ms) | busy calendar writes/s (p99 ms) | probe's resets / marked commits seen |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  const full = `${CONNECTIONS} readers, ${WRITERS} writers`;
  for (const share of FAIR_SHARES) table.push(await fairnessRow(url, share, full, CONNECTIONS, WRITERS));
  if (env.BENCH_FAIR_MIX === '0') return;
  if (CONNECTIONS > 0) table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${CONNECTIONS} readers only`, CONNECTIONS, 0));
  if (WRITERS > 0) table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${WRITERS} writers only`, 0, WRITERS));
  // The writes in a thread of their own on the probe's instance (WRITE_WORKER; its nice value
  // WRITE_WORKER_NICE's default), on its CPU (BENCH_FAIR_WORKER=0 leaves these rows out).
  if (WRITERS > 0 && env.BENCH_FAIR_WORKER !== '0') {
    table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${WRITERS} writers only, WRITE_WORKER`, 0, WRITERS, undefined, { WRITE_WORKER: 'true' }));
    if (CONNECTIONS > 0) table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${full}, WRITE_WORKER`, CONNECTIONS, WRITERS, undefined, { WRITE_WORKER: 'true' }));
  }
  // The writes on a second instance on the same database: what the probe's instance then pays is
  // following them (BENCH_FAIR_ELSEWHERE=0 leaves these rows out).
  if (WRITERS > 0 && env.BENCH_FAIR_ELSEWHERE !== '0') {
    table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${WRITERS} writers only, on a second instance`, 0, WRITERS, url));
    if (CONNECTIONS > 0) table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${full}, the writers on a second instance`, CONNECTIONS, WRITERS, url));
    // The floor: the same writes on a second instance of another database, which the probe's
    // instance does not follow at all: a copy of the same one, so that the writes cost the same.
    const copy = await copyDatabase(url);
    try {
      table.push(await fairnessRow(url, SHIPPED_FAIR_SHARE, `${WRITERS} writers only, on a second instance of a copy of the database`, 0, WRITERS, copy));
    } finally {
      await dropCopy(copy);
    }
  }
}

/** A copy of a benchmark database (SQLite: its file; PostgreSQL: a database made from it as a template). */
async function copyDatabase(url: string): Promise<string> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const copy = `${file}.floor.db`;
    for (const suffix of ['', '-wal']) if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
    return `sqlite:${copy}`;
  }
  const name = `${new URL(url).pathname.slice(1)}_floor`;
  await pgAdmin(`drop database if exists ${name} with (force)`);
  await pgAdmin(`create database ${name} template ${new URL(url).pathname.slice(1)}`);
  return pgUrlFor(name);
}

async function dropCopy(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(url.slice('sqlite:'.length) + suffix, { force: true });
  } else await pgAdmin(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
}

/** Lower the priority of every thread of a process (`renice` of its pid alone leaves its other threads as they were). */
function reniceAll(pid: number, niceness: number): void {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    threads = [String(pid)];
  }
  execFileSync('renice', ['-n', String(niceness), '-p', ...threads], { stdio: 'ignore' });
}

async function main(): Promise<void> {
  if (!existsSync(CLI_PATH)) throw new Error('run `npm run build` first (bench:calendars runs the compiled service)');
  log(`## Many calendars in one database (${new Date().toISOString().slice(0, 10)})`);
  log('');
  log(
    `\`${Object.keys(env)
      .filter((k) => k.startsWith('BENCH_'))
      .sort()
      .map((k) => `${k}=${k === 'BENCH_POSTGRES_URL' ? 'postgres://…' : env[k]}`)
      .join(
        ' ',
      )} npm run bench:calendars\`: ${CALENDARS.toLocaleString('en')} calendars of ${CALENDAR_EVENTS} events beside a default calendar of ${BIG.toLocaleString('en')}; ${SECONDS} s per measurement after ${WARMUP} s of warm-up, ${CONNECTIONS} connections.`,
  );
  for (const store of STORES) {
    if (store === 'postgres' && !PG_URL) throw new Error('BENCH_STORES names postgres: set BENCH_POSTGRES_URL');
    log('');
    log(`### ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`);
    log('');
    const dbs = await prepare(store);
    // Seeding does not need the machine alone; the measurements do (run again with BENCH_REUSE=1).
    if (env.BENCH_SEED_ONLY === '1') continue;
    try {
      const table: string[] = [];
      if (ONLY.has('lists')) {
        log('**Lists**, the same calendar alone in a database and among the others (target: >= 90 %):');
        log('');
        await lists(dbs, table);
        table.splice(0).forEach(log);
      }
      if (ONLY.has('creates') || ONLY.has('memory')) {
        const server = await serve(dbs.shared);
        try {
          if (ONLY.has('creates')) {
            log('');
            log(`**Creating a calendar** (POST calendar/network/v1/calendars) among ${CALENDARS.toLocaleString('en')} (target: under 50 ms):`);
            log('');
            await creates(server, table);
            table.splice(0).forEach(log);
          }
          if (ONLY.has('memory')) {
            log('');
            log('**Idle memory**: one list request in each of more and more calendars, then 3 s idle (target: bounded):');
            log('');
            await memory(server, table);
            table.splice(0).forEach(log);
          }
        } finally {
          await server.stop();
        }
      }
      if (ONLY.has('fairness')) {
        log('');
        log(
          `**Fairness**: calendar ${PROBE_SLUG} read by one connection, quiet, then while the default calendar is read by ${CONNECTIONS} connections and written by ${WRITERS}, and by each alone (target: within 2x):`,
        );
        log('');
        await fairness(dbs.shared, table);
        table.splice(0).forEach(log);
      }
    } finally {
      if (store === 'postgres') await dropPostgres();
    }
  }
  if (OUT !== '-') {
    const previous = existsSync(OUT)
      ? readFileSync(OUT, 'utf8')
      : '# Many calendars: benchmark results\n\nWritten by `npm run bench:calendars` (bench/src/calendars.ts); each run adds its section at the top.\n';
    const [head, ...rest] = previous.split('\n## ');
    writeFileSync(OUT, [head!.trimEnd(), '', lines.join('\n'), ...rest.map((r) => `## ${r}`)].join('\n').trimEnd() + '\n');
    console.log(`written to ${OUT}`);
  }
}

await main();
