/**
 * Issue 27, item 3: the first anonymous requests after a start. For each read, a fresh server
 * process (`node dist/cli/main.js serve`, or another checkout's CLI) is started on an already
 * seeded database, the benchmark waits until `/readyz` answers 200 (what a load balancer waits
 * for), then times that read once (the cold request) and again (warm). Each read gets a server of
 * its own, so no read profits from another's warm-up.
 *
 * Usage:
 *   node --import tsx bench/src/cold-start.ts DATABASE_URL [DATABASE_URL…]
 * Settings (environment):
 *   COLD_CLI      the CLI to serve with (default dist/cli/main.js of this checkout)
 *   COLD_ROUNDS   restarts per read (3); the report gives each round's figure
 *   COLD_READS    comma-separated keys of the reads below (default all)
 *   COLD_JSON     also write the results as JSON to this file
 *
 * @example node --import tsx bench/src/cold-start.ts sqlite:data/cold/1m.db postgres://postgres@127.0.0.1:5432/cold_1m
 */
import { writeFileSync } from 'node:fs';
import { CLI_PATH, rssOf, startChild, type Child } from './processes.js';

const READS: Record<string, string> = {
  events: '/wp-json/tribe/events/v1/events',
  'events-page2': '/wp-json/tribe/events/v1/events?page=2',
  venues: '/wp-json/tribe/events/v1/venues',
  organizers: '/wp-json/tribe/events/v1/organizers',
  categories: '/wp-json/tribe/events/v1/categories',
  tags: '/wp-json/tribe/events/v1/tags',
  'list-page': '/events/',
  'past-page': '/events/list/?eventDisplay=past',
  embed: '/embed/?view=upcoming',
  'month-page': '/events/month/',
  feed: '/events.ics',
};

const env = process.env;
const cli = env.COLD_CLI ?? CLI_PATH;
const rounds = Number(env.COLD_ROUNDS ?? 3);
const keys = env.COLD_READS ? env.COLD_READS.split(',') : Object.keys(READS);
const urls = process.argv.slice(2);
if (urls.length === 0) {
  console.error('usage: cold-start.ts DATABASE_URL [DATABASE_URL…]');
  process.exit(2);
}

async function timed(origin: string, path: string): Promise<{ ms: number; status: number; total: string | null }> {
  const t = performance.now();
  const res = await fetch(origin + path);
  await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status, total: res.headers.get('x-wp-total') };
}

/** Wait until /readyz answers 200; the time from the process start, and the states it said meanwhile. */
async function ready(child: Child, started: number): Promise<{ ms: number; states: string[]; warmUpMs: number | null }> {
  const states: string[] = [];
  for (;;) {
    const res = await fetch(child.origin + '/readyz');
    const body = (await res.json().catch(() => ({}))) as { status?: string; checks?: { warm_up?: { ms?: number } } };
    if (states[states.length - 1] !== body.status) states.push(String(body.status));
    if (res.status === 200) return { ms: performance.now() - started, states, warmUpMs: body.checks?.warm_up?.ms ?? null };
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Row {
  database: string;
  read: string;
  round: number;
  /** from the process' start until it listened (/livez answered) */
  listenMs: number;
  readyMs: number;
  /** what /readyz said the warm-up took */
  warmUpMs: number | null;
  readyStates: string[];
  coldMs: number;
  warmMs: number;
  status: number;
  total: string | null;
  rssMb: number | null;
}
const rows: Row[] = [];
for (const url of urls) {
  const label = url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  for (const key of keys) {
    for (let round = 1; round <= rounds; round++) {
      const started = performance.now();
      const child = await startChild('service', [cli, 'serve'], { DATABASE_URL: url, LOG_LEVEL: 'warn', RATE_LIMIT: '1000000000' }, { readyPath: '/livez' });
      const listenMs = performance.now() - started;
      try {
        const r = await ready(child, started);
        const cold = await timed(child.origin, READS[key]!);
        const warm = await timed(child.origin, READS[key]!);
        const rss = rssOf(child.pid);
        const row: Row = {
          database: label,
          read: key,
          round,
          listenMs,
          readyMs: r.ms,
          warmUpMs: r.warmUpMs,
          readyStates: r.states,
          coldMs: cold.ms,
          warmMs: warm.ms,
          status: cold.status,
          total: cold.total,
          rssMb: rss === null ? null : rss / 2 ** 20,
        };
        rows.push(row);
        console.log(
          `${label} ${key} round ${round}: listening after ${listenMs.toFixed(0)} ms, ready after ${r.ms.toFixed(0)} ms (${r.states.join(' → ')}; warm-up ${r.warmUpMs ?? '-'} ms), first ${cold.ms.toFixed(1)} ms (${cold.status}, total ${cold.total ?? '-'}), next ${warm.ms.toFixed(1)} ms`,
        );
      } finally {
        await child.stop();
      }
    }
  }
}
if (env.COLD_JSON) writeFileSync(env.COLD_JSON, JSON.stringify(rows, null, 2));
console.log('\n| store | read | listening after (ms) | ready after (ms) | warm-up (ms) | first request (ms) | next (ms) |\n|---|---|---:|---:|---:|---:|---:|');
for (const url of urls) {
  const label = url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  for (const key of keys) {
    const mine = rows.filter((r) => r.database === label && r.read === key);
    const list = (f: (r: Row) => number) => mine.map((r) => f(r).toFixed(1)).join(', ');
    const ints = (f: (r: Row) => number | null) => mine.map((r) => (f(r) === null ? '-' : f(r)!.toFixed(0))).join(', ');
    console.log(`| ${label} | ${key} | ${ints((r) => r.listenMs)} | ${ints((r) => r.readyMs)} | ${ints((r) => r.warmUpMs)} | ${list((r) => r.coldMs)} | ${list((r) => r.warmMs)} |`);
  }
}
