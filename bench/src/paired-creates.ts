/**
 * Event creates of two checkouts side by side (issue 9's write target, between commits), in
 * alternating rounds (old, new, old, new, …) so that whatever else the machine does falls on both.
 * Each checkout serves its own database, seeded once with the same events by its own CLI (its own
 * migrations); every round starts a fresh server, warms it up, then runs the benchmark's create
 * scenario (10 connections, a new title per request). Per round: creates per second, and the CPU
 * time per create of the server process and, on PostgreSQL, of the database's backends (read from
 * /proc: what other load on the machine barely changes, unlike requests per second); then medians
 * and the ratio new/old; on PostgreSQL also the transactions committed per create in its database
 * (pg_stat_database: each statement sent outside a transaction is one, so about the statements per
 * create), and the change feed's looks and the commits per create (`/metrics`; SQLite commits
 * the writes waiting together at once).
 *
 * usage: npm run bench:paired-creates -- OLD_CHECKOUT NEW_CHECKOUT [ROUNDS=5] [SECONDS=8]
 *   each checkout built (npm ci); BENCH_STORES=sqlite|postgres (default sqlite), BENCH_POSTGRES_URL
 *   (a database per checkout is created next to it and dropped afterwards), BENCH_EVENTS (20000)
 *
 * @example
 *   git worktree add /tmp/old 12471e6 && (cd /tmp/old && npm ci)
 *   BENCH_STORES=postgres BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:paired-creates -- /tmp/old . 5 8
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { loadOnce } from './load.js';
import { cpuSecondsOf, runNode, startChild } from './processes.js';
import { discover, SCENARIOS, scenarioUrl } from './scenarios.js';

const [oldDir, newDir] = process.argv.slice(2, 4).map((d) => resolve(d ?? ''));
const ROUNDS = Number(process.argv[4] ?? 5);
const SECONDS = Number(process.argv[5] ?? 8);
const STORE = process.env.BENCH_STORES ?? 'sqlite';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
if (!oldDir || !newDir || !['sqlite', 'postgres'].includes(STORE)) {
  console.error('usage: npm run bench:paired-creates -- OLD_CHECKOUT NEW_CHECKOUT [ROUNDS] [SECONDS]  (BENCH_STORES=sqlite|postgres)');
  process.exit(2);
}
const ADMIN = { CALENDAR_ADMIN_USER: 'bench-admin', CALENDAR_ADMIN_PASSWORD: 'bench-admin-password' };
const authorization = 'Basic ' + Buffer.from('bench-admin:bench-admin-password').toString('base64');
const create = SCENARIOS.find((s) => s.key === 'create')!;

/** CPU seconds of the PostgreSQL server's processes (backends, WAL writer, checkpointer, …). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith('postgres')) continue;
      total += cpuSecondsOf(Number(entry)) ?? 0;
    } catch {
      /* gone */
    }
  }
  return total;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'paired-creates-'));
  const adminUrl = process.env.BENCH_POSTGRES_URL;
  if (STORE === 'postgres' && !adminUrl) throw new Error('BENCH_POSTGRES_URL is needed for BENCH_STORES=postgres');
  const urls: string[] = [];
  const dbNames = [`paired_old_${process.pid}`, `paired_new_${process.pid}`];
  const admin = STORE === 'postgres' ? new pg.Client({ connectionString: adminUrl }) : undefined;
  await admin?.connect();
  try {
    for (const [i, dir] of [oldDir, newDir].entries()) {
      let url = `sqlite:${join(work, `db${i}.db`)}`;
      if (admin) {
        await admin.query(`drop database if exists ${dbNames[i]}`);
        await admin.query(`create database ${dbNames[i]}`);
        const u = new URL(adminUrl!);
        u.pathname = `/${dbNames[i]}`;
        url = u.toString();
      }
      await runNode([join(dir!, 'dist/cli/main.js'), 'seed', '--events', String(EVENTS), '--no-progress'], { ...ADMIN, DATABASE_URL: url, LOG_LEVEL: 'warn' });
      urls.push(url);
    }
    type Round = { rps: number; serverUs: number; postgresUs: number; xacts: number; looks: number; commits: number };
    const results: Array<Array<Round>> = [[], []];
    // PostgreSQL: transactions committed in the checkout's database (each statement sent outside a
    // transaction is one: about the round trips per create), from pg_stat_database.
    const xactsOf = async (i: number) => (admin ? Number((await admin.query('select xact_commit from pg_stat_database where datname = $1', [dbNames[i]])).rows[0]?.xact_commit ?? 0) : 0);
    // The change feed's looks and the commits (`/metrics`), where the checkout reports them.
    const metricsOf = async (origin: string) => {
      const text = await (await fetch(`${origin}/metrics`)).text().catch(() => '');
      const read = (name: string) => {
        const m = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
        return m ? Number(m[1]) : NaN;
      };
      return { looks: read('calendar_feed_looks_total'), commits: read('calendar_write_commits_total') };
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, dir] of [oldDir, newDir].entries()) {
        const server = await startChild(
          i === 0 ? 'old' : 'new',
          [join(dir!, 'dist/cli/main.js'), 'serve'],
          { ...ADMIN, DATABASE_URL: urls[i]!, RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn' },
          { readyPath: '/api/calendar/events/v1/' },
        );
        try {
          const context = await discover(`${server.origin}/api/calendar/events/v1`, authorization);
          const spec = { url: scenarioUrl(create.path(context), context), method: 'POST' as const, headers: create.headers!(context), body: create.body!(context), connections: 10 };
          await loadOnce(spec, 2);
          const s0 = cpuSecondsOf(server.pid)!;
          const p0 = admin ? postgresCpuSeconds() : 0;
          if (admin) await admin.query('select pg_stat_clear_snapshot()');
          const x0 = await xactsOf(i);
          const m0 = await metricsOf(server.origin);
          const r = await loadOnce(spec, SECONDS);
          // The statistics collector reports a backend's counts at most every second or so.
          await new Promise((res) => setTimeout(res, 1500));
          if (admin) await admin.query('select pg_stat_clear_snapshot()');
          const xacts = ((await xactsOf(i)) - x0) / r.requests;
          const m1 = await metricsOf(server.origin);
          const looks = (m1.looks - m0.looks) / r.requests;
          // SQLite: writes waiting together commit together (group commit); PostgreSQL: one each.
          const commits = (m1.commits - m0.commits) / r.requests;
          const serverUs = ((cpuSecondsOf(server.pid)! - s0) * 1e6) / r.requests;
          const postgresUs = admin ? ((postgresCpuSeconds() - p0) * 1e6) / r.requests : 0;
          if (r.non2xx || r.errors) console.log(`  (${r.non2xx} non-2xx, ${r.errors} errors)`);
          results[i]!.push({ rps: r.rps, serverUs, postgresUs, xacts, looks, commits });
          console.log(
            `round ${round} ${i === 0 ? 'old' : 'new'}: ${Math.round(r.rps)} creates/s, server ${Math.round(serverUs)} µs/create${admin ? `, PostgreSQL ${Math.round(postgresUs)} µs/create, ${xacts.toFixed(2)} transactions/create` : ''}, ${looks.toFixed(2)} feed looks/create, ${commits.toFixed(2)} commits/create`,
          );
        } finally {
          await server.stop();
        }
      }
    }
    const row = (label: string, pick: (x: Round) => number, digits = 0) => {
      const a = median(results[0]!.map(pick));
      const b = median(results[1]!.map(pick));
      return `| ${label} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(b / a).toFixed(2)}× |`;
    };
    console.log(`\nMedians of ${ROUNDS} rounds of ${SECONDS} s, ${STORE}, ${EVENTS} events (old = ${oldDir}, new = ${newDir}):\n`);
    console.log('| per round | old | new | new/old |\n|---|---:|---:|---:|');
    console.log(row('creates/s', (x) => x.rps));
    console.log(row('server CPU µs/create', (x) => x.serverUs));
    if (admin) console.log(row('PostgreSQL CPU µs/create', (x) => x.postgresUs));
    if (admin) console.log(row('PostgreSQL transactions/create', (x) => x.xacts, 2));
    console.log(row('change feed looks/create', (x) => x.looks, 2));
    console.log(row('commits/create', (x) => x.commits, 2));
  } finally {
    if (admin) {
      for (const name of dbNames) await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    }
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
