/**
 * Issue 27, item 5: the server's memory under a mixed load on an already seeded database. The
 * server (`node dist/cli/main.js serve`) gets every read scenario of `npm run bench` at once
 * (single event, default, filtered, geo and deep lists, the pages, venues, organizers, categories,
 * a CalDAV sync whose client follows the token of each answer, as clients do) plus single events across the whole id range (so that the kept records meet their bounds) and
 * creates, for MEMORY_SECONDS; its RSS is sampled every 250 ms (from /proc: the server's own),
 * then what it is made of is read back: /proc/PID/status (anonymous, file-backed, shared), the
 * resident memory by kind of mapping at the start and at the end (smaps.ts),
 * `/metrics` (V8 heap, the worker threads, the SQLite caches' bounds, each kept structure's size
 * and bound).
 *
 * Usage: node --import tsx bench/src/memory.ts DATABASE_URL [DATABASE_URL…]
 * Settings: MEMORY_SECONDS (60), MEMORY_CONNECTIONS (connections per read, 2), MEMORY_CLI (the CLI to serve with),
 * MEMORY_MAX_ID (the largest post id the random single events ask for, 1,110,000: the seed's 1M events and their venues, organizers, images),
 * MEMORY_ONLY (a comma-separated list of the loads to send, to find which one the memory follows: read scenario keys,
 * `random` for the single events across the id range, `create`; all of them by default), MEMORY_CALDAV (`stale`: the
 * CalDAV sync scenario re-sends the token it started with instead of following its answers' tokens)
 *
 * @example node --import tsx bench/src/memory.ts sqlite:data/cold/1m.db
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CLI_PATH, rssOf, startChild } from './processes.js';
import { SCENARIOS, discover, scenarioUrl } from './scenarios.js';
import { smapsSummary } from './smaps.js';
import { followingSync } from './caldav.js';

const ADMIN = { login: 'bench-admin', password: 'bench-admin-password' };
const env = process.env;
const SECONDS = Number(env.MEMORY_SECONDS ?? 60);
const CONNECTIONS = Number(env.MEMORY_CONNECTIONS ?? 2);
const cli = env.MEMORY_CLI ?? CLI_PATH;
const authorization = 'Basic ' + Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64');
const MB = 2 ** 20;
const only = env.MEMORY_ONLY ? new Set(env.MEMORY_ONLY.split(',')) : null;
const sends = (key: string) => only === null || only.has(key);
const STALE_CALDAV = env.MEMORY_CALDAV === 'stale';

function status(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads):\s+(\d+)/.exec(line);
    if (m) out[m[1]!] = line.includes('kB') ? Number(m[2]) / 1024 : Number(m[2]);
  }
  return out;
}

/** The memory lines of a /metrics scrape. */
function memoryLines(text: string): string[] {
  return text
    .split('\n')
    .filter(
      (l) =>
        !l.startsWith('#') &&
        /^(nodejs_heap_size|nodejs_heap_space_size_total_bytes\{space="(new|old)"\}|nodejs_external_memory|process_resident_memory|calendar_memory_bound_bytes|calendar_memory_used_bytes|calendar_sqlite_wal|calendar_kept_(entries|bytes))/.test(
          l,
        ),
    )
    .filter((l) => !/ 0$/.test(l));
}

/** The resident memory by kind of mapping (smaps.ts), the kinds over 1 MB. */
function printSmaps(pid: number): void {
  const kinds = smapsSummary(pid);
  console.log(
    `  resident by mapping: ${kinds
      .filter(([, mb]) => mb >= 1)
      .map(([kind, mb]) => `${kind} ${mb.toFixed(0)}`)
      .join('; ')}`,
  );
}

for (const url of process.argv.slice(2)) {
  const label = url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  const server = await startChild(
    'service',
    [cli, 'serve'],
    {
      DATABASE_URL: url,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      CALENDAR_TIMEZONE: 'UTC',
      CALENDAR_ADMIN_USER: ADMIN.login,
      CALENDAR_ADMIN_PASSWORD: ADMIN.password,
    },
    { readyPath: '/readyz' },
  );
  try {
    for (;;) {
      const r = await fetch(server.origin + '/readyz');
      await r.arrayBuffer();
      if (r.status === 200) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    const base = `${server.origin}/api/calendar/events/v1`;
    const ctx = await discover(base, authorization);
    const started = rssOf(server.pid)! / MB;
    console.log(`${label}: RSS after start and warm-up ${started.toFixed(0)} MB`);
    printSmaps(server.pid);
    const maxId = Number(env.MEMORY_MAX_ID ?? 1_110_000);
    let peak = started;
    const sampler = setInterval(() => {
      const rss = rssOf(server.pid);
      if (rss !== null) peak = Math.max(peak, rss / MB);
    }, 250);
    const loads = SCENARIOS.filter((s) => s.kind === 'read' && s.expectStatus === undefined && sends(s.key)).map((s) => {
      // Each scenario's own method and body (the CalDAV REPORT sent as a GET would ask for the whole calendar).
      const body = s.body?.(ctx);
      const spec = { url: scenarioUrl(s.path(ctx), ctx), method: s.method, headers: s.headers?.(ctx) };
      return autocannon({
        url: spec.url,
        method: spec.method as 'GET',
        connections: CONNECTIONS,
        duration: SECONDS,
        timeout: 30,
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(s.key === 'caldav-sync-unchanged' && !STALE_CALDAV
          ? { requests: [followingSync(spec.method, ctx.caldavSyncToken ?? '')] }
          : body
            ? { requests: [{ method: spec.method as 'GET', setupRequest: (req) => ({ ...req, body: body() }) }] }
            : {}),
      });
    });
    // Single events across the whole id range (most kept-record churn).
    if (sends('random'))
      loads.push(
        autocannon({
          url: base,
          connections: CONNECTIONS,
          duration: SECONDS,
          timeout: 30,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/calendar/events/v1/events/${1 + Math.floor(Math.random() * maxId)}` }) }],
        }),
      );
    const create = SCENARIOS.find((s) => s.key === 'create')!;
    const body = (create.body as (c: typeof ctx) => () => string)(ctx);
    if (sends('create'))
      loads.push(
        autocannon({
          url: `${base}/events`,
          connections: 1,
          duration: SECONDS,
          timeout: 30,
          requests: [{ method: 'POST', headers: { authorization, 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: body() }) }],
        }),
      );
    const results = await Promise.all(loads);
    clearInterval(sampler);
    const requests = results.reduce((n, r) => n + r.requests.total, 0);
    const proc = status(server.pid);
    const metrics = await (await fetch(server.origin + '/metrics')).text();
    console.log(
      `${label}: ${requests} requests in ${SECONDS} s; RSS peak ${peak.toFixed(0)} MB, at the end ${proc.VmRSS?.toFixed(0)} MB (anonymous ${proc.RssAnon?.toFixed(0)}, files ${proc.RssFile?.toFixed(0)}, shared ${proc.RssShmem?.toFixed(0)}; threads ${proc.Threads})`,
    );
    for (const line of memoryLines(metrics)) console.log(`  ${line}`);
    printSmaps(server.pid);
  } finally {
    await server.stop();
  }
}
