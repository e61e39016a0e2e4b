/**
 * A soak (issue 24): the service on SQLite under a steady load of reads and creates for a long
 * while, its resident set size sampled every `--sample` seconds, to tell a memory plateau from a
 * leak. Kept structures fill up to their bounds and then stay there; a leak keeps growing.
 *
 *   npm run bench:soak -- --minutes 30                 # 100 requests/s, a tenth of them creates
 *   node --import tsx bench/src/soak.ts --minutes 5 --rate 100 --creates 0.1 --events 2000 --json soak.json
 *
 * It seeds a SQLite database (`--events`, in a temporary directory), starts `serve` in a child
 * process and sends requests on an open-loop schedule (request i is due at start + i / rate, at
 * most `--in-flight` at once: a request due while that many are waiting is counted as skipped),
 * picking each one at random with a fixed seed: a create (`--creates`), or a read (a single event,
 * one of the recent creates or an older one, the event list, a filtered list, the categories or
 * the venues). Each sample reads the child's RSS from /proc and, from `/metrics`, the V8 heap in
 * use and the sizes of the kept structures (`calendar_kept_entries`).
 *
 * The report gives the RSS growth per minute over each half of the run (least squares over the
 * samples of that half) and says the RSS plateaued when the second half grew less than
 * `--plateau` MiB per minute (1 by default: 30 MiB in half an hour of a 30-minute run).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI_PATH, rssOf, runNode, startChild } from './processes.js';
import { prng as random } from '../../src/seed/common.js';

const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '30' },
    rate: { type: 'string', default: process.env.SOAK_RATE ?? '100' },
    creates: { type: 'string', default: process.env.SOAK_CREATES ?? '0.1' },
    /** what the write share does: `create` events, or `update` (the title and description of seeded events: the database stops growing) */
    writes: { type: 'string', default: 'create' },
    events: { type: 'string', default: process.env.SOAK_EVENTS ?? '2000' },
    sample: { type: 'string', default: '10' },
    'in-flight': { type: 'string', default: '200' },
    plateau: { type: 'string', default: '1' },
    seed: { type: 'string', default: '24' },
    json: { type: 'string' },
    markdown: { type: 'string' },
  },
  allowPositionals: true,
});

const MINUTES = Number(opts.minutes);
const RATE = Number(opts.rate);
const CREATE_SHARE = Number(opts.creates);
const UPDATES = opts.writes === 'update';
const EVENTS = Number(opts.events);
const SAMPLE_SECONDS = Number(opts.sample);
const MAX_IN_FLIGHT = Number(opts['in-flight']);
const PLATEAU_MIB_PER_MIN = Number(opts.plateau);
const MiB = 1024 * 1024;

const ADMIN = { login: 'soak-admin', password: 'soak-admin-password' };
const SERVER_ENV = { LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', CALENDAR_TIMEZONE: 'UTC', CALENDAR_ADMIN_USER: ADMIN.login, CALENDAR_ADMIN_PASSWORD: ADMIN.password };
const authorization = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');

export interface SoakSample {
  /** seconds since the load started */
  t: number;
  rssMiB: number;
  /** the database file and its write-ahead log (SQLite's page caches grow with what they hold, up to their bound) */
  dbMiB?: number;
  heapUsedMiB?: number;
  /** V8 heap reserved, and memory held outside it (Buffers: kept representations' JSON) */
  heapTotalMiB?: number;
  externalMiB?: number;
  /** `calendar_kept_entries` by kind, when the service exposes it */
  kept?: Record<string, number>;
  requests: number;
}

/** Least-squares slope of y over x (per unit of x); NaN with fewer than two points. */
export function slope(points: Array<[number, number]>): number {
  if (points.length < 2) return NaN;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** RSS growth in MiB per minute over the first and the second half of the samples, and the verdict. */
export function growth(samples: SoakSample[], plateauMiBPerMin: number): { firstHalf: number; secondHalf: number; lastQuarter: number; plateau: boolean } {
  const end = samples.length ? samples[samples.length - 1]!.t : 0;
  const perMinute = (from: number, to: number) => slope(samples.filter((s) => s.t >= from && s.t <= to).map((s) => [s.t / 60, s.rssMiB])) || 0;
  const secondHalf = perMinute(end / 2, end);
  return { firstHalf: perMinute(0, end / 2), secondHalf, lastQuarter: perMinute((end * 3) / 4, end), plateau: secondHalf < plateauMiBPerMin };
}

/** Metric values of a Prometheus text exposition: `name{labels}` -> value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'events-soak-'));
  const dbFile = join(dir, 'soak.db');
  const url = `sqlite:${dbFile}`;
  const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  log(`seeding ${EVENTS} events into ${url}`);
  await runNode([CLI_PATH, 'seed', '--events', String(EVENTS), '--database-url', url], { ...SERVER_ENV });
  const server = await startChild('service', [CLI_PATH, 'serve'], { ...SERVER_ENV, DATABASE_URL: url }, { readyPath: '/api/' });
  const base = `${server.origin}/api/calendar/events/v1`;
  try {
    const first = (await (await fetch(`${base}/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01`)).json()) as { events: Array<{ id: number }> };
    const older = first.events.map((e) => e.id);
    const categories = ((await (await fetch(`${base}/categories?per_page=20`)).json()) as { categories: Array<{ id: number }> }).categories.map((c) => c.id);
    const tags = ((await (await fetch(`${base}/tags?per_page=20`)).json()) as { tags: Array<{ id: number }> }).tags.map((c) => c.id);
    if (older.length === 0) throw new Error('the seeded calendar lists no events');
    const rnd = random(Number(opts.seed));
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    /** The latest creates (bounded: the load generator must not grow either). */
    const recent: number[] = [];
    const statuses = new Map<string, number>();
    let inFlight = 0;
    let sent = 0;
    let skipped = 0;
    let created = 0;

    const request = (): { url: string; init?: RequestInit } => {
      const r = rnd();
      if (r < CREATE_SHARE) {
        const day = 1 + Math.floor(rnd() * 28);
        const month = 1 + Math.floor(rnd() * 12);
        const date = `2030-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        const body = {
          title: `Soak event ${sent}`,
          description: `<p>Created by the soak, request ${sent}.</p>`,
          start_date: `${date} 19:00`,
          end_date: `${date} 21:00`,
          status: 'publish',
          categories: categories.length ? [pick(categories)] : [],
          tags: tags.length ? [pick(tags)] : [],
        };
        if (UPDATES) {
          const update = { title: body.title, description: body.description };
          return { url: `${base}/events/${pick(older)}`, init: { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(update) } };
        }
        return { url: `${base}/events`, init: { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) } };
      }
      const read = (r - CREATE_SHARE) / (1 - CREATE_SHARE);
      if (read < 0.25 && recent.length) return { url: `${base}/events/${pick(recent)}` };
      if (read < 0.45) return { url: `${base}/events/${pick(older)}` };
      if (read < 0.65) return { url: `${base}/events?page=${1 + Math.floor(rnd() * 3)}&start_date=2030-01-01&end_date=2030-12-31` };
      if (read < 0.8 && categories.length) return { url: `${base}/events?categories=${pick(categories)}&start_date=2000-01-01&end_date=2100-01-01` };
      if (read < 0.9) return { url: `${base}/categories?hide_empty=false` };
      return { url: `${base}/venues` };
    };

    const send = async (): Promise<void> => {
      const { url: target, init } = request();
      inFlight++;
      let key = 'error';
      try {
        const res = await fetch(target, { ...init, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        key = String(res.status);
        if (res.status === 201) {
          created++;
          const id = (JSON.parse(text) as { id?: number }).id;
          if (typeof id === 'number') {
            recent.push(id);
            if (recent.length > 1000) recent.splice(0, recent.length - 1000);
          }
        }
      } catch (err) {
        key = (err as Error).name;
      } finally {
        inFlight--;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };

    const samples: SoakSample[] = [];
    const started = performance.now();
    const takeSample = async (): Promise<void> => {
      const t = (performance.now() - started) / 1000;
      const rss = rssOf(server.pid);
      const fileBytes = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      const sample: SoakSample = {
        t: Math.round(t),
        rssMiB: rss === null ? NaN : Math.round((rss / MiB) * 10) / 10,
        dbMiB: Math.round(((fileBytes(dbFile) + fileBytes(`${dbFile}-wal`)) / MiB) * 10) / 10,
        requests: sent,
      };
      try {
        const metrics = parseMetrics(await (await fetch(`${server.origin}/metrics`)).text());
        const mib = (name: string) => {
          const v = metrics.get(name);
          return v === undefined ? undefined : Math.round((v / MiB) * 10) / 10;
        };
        sample.heapUsedMiB = mib('nodejs_heap_size_used_bytes');
        sample.heapTotalMiB = mib('nodejs_heap_size_total_bytes');
        sample.externalMiB = mib('nodejs_external_memory_bytes');
        const kept: Record<string, number> = {};
        for (const [key, value] of metrics) {
          const m = /^calendar_kept_entries\{kind="([^"]+)"\}$/.exec(key);
          if (m) kept[m[1]!] = value;
        }
        if (Object.keys(kept).length) sample.kept = kept;
      } catch {
        /* a scrape that failed leaves those figures out */
      }
      samples.push(sample);
      log(
        `t=${String(sample.t).padStart(5)} s  rss ${sample.rssMiB} MiB  db ${sample.dbMiB} MiB  heap ${sample.heapUsedMiB ?? '?'}/${sample.heapTotalMiB ?? '?'} MiB  external ${sample.externalMiB ?? '?'} MiB  requests ${sent} (skipped ${skipped}, created ${created})`,
      );
    };

    log(`load: ${RATE} requests/s for ${MINUTES} min, ${Math.round(CREATE_SHARE * 100)} % ${UPDATES ? 'updates' : 'creates'}; RSS sampled every ${SAMPLE_SECONDS} s`);
    await takeSample();
    const endAt = started + MINUTES * 60_000;
    const interval = 1000 / RATE;
    let nextSample = started + SAMPLE_SECONDS * 1000;
    for (let i = 0; ; i++) {
      const due = started + i * interval;
      if (due >= endAt) break;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (inFlight >= MAX_IN_FLIGHT) skipped++;
      else {
        sent++;
        void send();
      }
      if (performance.now() >= nextSample) {
        nextSample += SAMPLE_SECONDS * 1000;
        void takeSample();
      }
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
    await takeSample();

    const g = growth(samples, PLATEAU_MIB_PER_MIN);
    const seconds = (performance.now() - started) / 1000;
    const rssValues = samples.map((s) => s.rssMiB).filter((v) => !Number.isNaN(v));
    const lastKept = [...samples].reverse().find((s) => s.kept)?.kept;
    const lines = [
      `Soak on SQLite: ${MINUTES} min at ${RATE} requests/s (${Math.round(CREATE_SHARE * 100)} % event ${UPDATES ? 'updates' : 'creates'}, the rest reads), ${EVENTS} events seeded, RSS sampled every ${SAMPLE_SECONDS} s.`,
      '',
      `| | |`,
      `|---|---|`,
      `| requests sent | ${sent} (${(sent / seconds).toFixed(1)}/s), skipped ${skipped} (more than ${MAX_IN_FLIGHT} in flight) |`,
      `| answers | ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')} |`,
      `| events created | ${created} |`,
      `| database and WAL | ${samples[0]?.dbMiB} MiB at the start, ${samples[samples.length - 1]?.dbMiB} MiB at the end |`,
      `| RSS | ${samples[0]?.rssMiB} MiB at the start, ${samples[samples.length - 1]?.rssMiB} MiB at the end, peak ${Math.max(...rssValues)} MiB |`,
      `| V8 heap in use (reserved) | ${samples[0]?.heapUsedMiB ?? '?'} (${samples[0]?.heapTotalMiB ?? '?'}) MiB at the start, ${samples[samples.length - 1]?.heapUsedMiB ?? '?'} (${samples[samples.length - 1]?.heapTotalMiB ?? '?'}) MiB at the end |`,
      `| memory outside the heap (Buffers) | ${samples[0]?.externalMiB ?? '?'} MiB at the start, ${samples[samples.length - 1]?.externalMiB ?? '?'} MiB at the end |`,
      `| RSS growth, first half | ${g.firstHalf.toFixed(2)} MiB/min |`,
      `| RSS growth, second half | ${g.secondHalf.toFixed(2)} MiB/min |`,
      `| RSS growth, last quarter | ${g.lastQuarter.toFixed(2)} MiB/min |`,
      `| plateau (second half < ${PLATEAU_MIB_PER_MIN} MiB/min) | ${g.plateau ? 'yes' : 'no'} |`,
      ...(lastKept
        ? [
            `| kept entries at the end | ${Object.entries(lastKept)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')} |`,
          ]
        : []),
      '',
      'RSS by minute (MiB): ' +
        samples
          .filter((s, i) => i === 0 || Math.floor(s.t / 60) !== Math.floor(samples[i - 1]!.t / 60))
          .map((s) => s.rssMiB)
          .join(' '),
    ];
    console.log('\n' + lines.join('\n'));
    if (opts.markdown) writeFileSync(opts.markdown, lines.join('\n') + '\n');
    if (opts.json)
      writeFileSync(
        opts.json,
        JSON.stringify({ minutes: MINUTES, rate: RATE, creates: CREATE_SHARE, events: EVENTS, sent, skipped, created, statuses: Object.fromEntries(statuses), growth: g, samples }, null, 1),
      );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run only as a script (the tests import `growth` and `slope`).
if (process.argv[1] && /soak\.[jt]s$/.test(process.argv[1])) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
