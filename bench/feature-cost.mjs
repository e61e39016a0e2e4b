#!/usr/bin/env node
/**
 * What each cross-cutting feature costs on the hot reads (issue 27): the server's own CPU time per
 * request, and a CPU profile of the measured requests split by feature.
 *
 *   node bench/feature-cost.mjs CHECKOUT [REQUESTS=20000]
 *
 * CHECKOUT is a built checkout of this project (`node scripts/build.mjs`); its `dist/` is loaded in
 * this process and served on a free port with every feature at its default (rate limit, metrics,
 * ETags, request ids), over a fresh SQLite database seeded with 100 events. For each read (one
 * event; the same with its ETag in `If-None-Match`, a 304; the list of 10) it warms up, then sends REQUESTS anonymous requests from autocannon (a
 * separate process, 10 connections), then the same again while profiling. Last, a bare Fastify
 * route sending the single event's body and headers as the server sent them (the floor). Printed per read: CPU µs
 * per request of the unprofiled run (this process' user + system time, which other load on a shared
 * machine barely moves) and, from the profile's shares scaled to it, the µs per request spent in
 * each feature (samples attributed to the innermost frame
 * that belongs to a feature; the rest is the route itself, Fastify and Node's HTTP).
 *
 * `node bench/feature-cost.mjs --split FILE.cpuprofile REQUESTS` splits a profile taken elsewhere the
 * same way (e.g. `node --cpu-prof dist/cli/main.js serve` of an older checkout).
 *
 * Other settings: FEATURE_COST_ENV="RATE_LIMIT_MAX=0 METRICS=false" (environment of the server),
 * FEATURE_COST_PROFILE=dir (keep the .cpuprofile files there), FEATURE_COST_JSON=file (the figures
 * as JSON: { read: { cpu, features: { feature: µs } } }).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const checkout = resolve(process.argv[2] ?? '.');
const requests = Number(process.argv[3] ?? 20000);
const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const autocannon = join(here, 'node_modules', '.bin', 'autocannon');

/** Node's functions that validate, store and serialize response headers. */
const HEADER_WORK = new Set([
  'setHeader',
  'getHeader',
  'removeHeader',
  'hasHeader',
  '_storeHeader',
  'processHeader',
  'validateHeaderName',
  'validateHeaderValue',
  'checkInvalidHeaderChar',
  'checkIsHttpToken',
  'matchHeader',
  '_implicitHeader',
]);

/** Feature of a profile frame (undefined: not a cross-cutting feature). Checked innermost first. */
function featureOf(frame) {
  const { url, functionName: fn } = frame;
  // Fastify runs a hook's continuation inside the hook's call (callbacks): the continuation is
  // not the hook's cost.
  if (url.includes('fastify/lib/hooks.js') && (fn === 'next' || fn === 'hookIterator')) return 'rest (Fastify, Node http, sockets)';
  if (url.includes('fastify/lib/reply.js') && fn === 'onSendEnd') return 'send (Fastify, Node http write)';
  if (url.includes('@fastify/rate-limit') || url.includes('/web/rate-limit.js') || url.includes('/web/login-throttle.js')) return 'rate limit';
  if (fn === 'requestIdOf' || fn === 'randomUUID' || fn === 'genReqId' || url.includes('/web/request-id.js')) return 'request id';
  if (url.includes('/http/metrics.js') || url.includes('prom-client')) return 'metrics';
  if (url.includes('/http/versioning.js')) return 'ETag (versioning)';
  if (url.includes('/web/conditional.js')) return 'conditional + cache headers';
  if (url.includes('/http/register.js') && (fn === 'commonHeaders' || fn === '' || fn === 'apiRootOf' || fn === 'restRootOf' || fn === 'onSend')) return 'common headers (CORS, Link, Vary, RateLimit)';
  if (url.includes('/web/common-headers.js')) return 'common headers (CORS, Link, Vary, RateLimit)';
  if (url.includes('/web/loop-delay.js')) return 'loop-delay watch';
  if (url.includes('/web/query-string.js')) return 'query string';
  if (url.includes('@fastify/compress')) return 'compression (negotiation)';
  if (url.includes('/store/change-feed.js')) return 'feed look (store)';
  if (url === 'node:_http_outgoing' && HEADER_WORK.has(fn)) return 'node http: headers';
  if (url === 'node:_http_server' && fn === 'writeHead') return 'node http: headers';
  if (url.includes('/dist/store/')) return 'the read: store';
  if (url.includes('/dist/domain/')) return 'the read: domain';
  if (url.includes('/dist/http/routes/') || url.includes('/dist/http/pipeline.js') || url.includes('/dist/http/coerce.js')) return 'the read: route pipeline';
  return undefined;
}

/** µs per request of each feature in a profile (innermost feature frame of each sample). */
function splitProfile(profile, count) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const featureOfNode = new Map();
  const resolveNode = (id) => {
    if (featureOfNode.has(id)) return featureOfNode.get(id);
    const n = byId.get(id);
    let f = featureOf(n.callFrame);
    if (f === undefined) {
      const p = parent.get(id);
      f = p === undefined ? undefined : resolveNode(p);
    }
    featureOfNode.set(id, f);
    return f;
  };
  const totals = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    busy += dt;
    const f = name === '(garbage collector)' ? 'garbage collection' : (resolveNode(node.id) ?? 'rest (Fastify, Node http, sockets)');
    totals.set(f, (totals.get(f) ?? 0) + dt);
  }
  return { busy: busy / count, features: [...totals].map(([f, us]) => [f, us / count]).sort((a, b) => b[1] - a[1]) };
}

// `--split FILE.cpuprofile REQUESTS`: only split a profile taken elsewhere (e.g. `node --cpu-prof` on
// `dist/cli/main.js serve` of a checkout without this script's loader) by feature.
if (process.argv[2] === '--split') {
  const split = splitProfile(JSON.parse(readFileSync(process.argv[3], 'utf8')), Number(process.argv[4]));
  console.log(`profiled busy ${split.busy.toFixed(1)} µs/request`);
  for (const [f, us] of split.features) console.log(`  ${f.padEnd(46)} ${us.toFixed(1).padStart(6)} (${((us / split.busy) * 100).toFixed(1)}%)`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'feature-cost-'));
const databaseUrl = `sqlite:${join(work, 'db.sqlite')}`;
const seeded = spawnSync(process.execPath, ['dist/cli/main.js', 'seed', '--events', '100', '--no-progress'], {
  cwd: checkout,
  env: { ...process.env, DATABASE_URL: databaseUrl, CALENDAR_ADMIN_USER: 'admin', CALENDAR_ADMIN_PASSWORD: 'bench' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (seeded.status !== 0) throw new Error('seeding failed');

// The rate limit counts every request, at a limit the run does not reach (the default, 1200 a
// minute, would answer 429 to most of them).
const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000' };
for (const pair of (process.env.FEATURE_COST_ENV ?? '').split(/\s+/).filter(Boolean)) {
  const i = pair.indexOf('=');
  env[pair.slice(0, i)] = pair.slice(i + 1);
}
const { loadConfig } = await import(pathToFileURL(join(checkout, 'dist', 'config.js')).href);
const { buildApp } = await import(pathToFileURL(join(checkout, 'dist', 'app.js')).href);
const config = loadConfig(env);
const built = await buildApp(config, { logger: { level: 'warn' }, webhooks: false });
const address = await built.app.listen({ port: 0, host: '127.0.0.1' });

/** Send `amount` requests from autocannon (its own process: this one serves them meanwhile). */
function load(url, amount, headers = []) {
  return new Promise((ok, fail) => {
    const args = ['-c', '10', '-a', String(amount), '--json', ...headers.flatMap((h) => ['-H', h]), url];
    const child = spawn(autocannon, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('close', () => {
      const j = JSON.parse(out);
      // A 304 counts as an answer here (autocannon counts it as non-2xx).
      ok({ total: j.requests.total, non2xx: j.non2xx - (headers.length ? (j['3xx'] ?? 0) : 0) });
    });
  });
}

const base = `${address}/api/calendar/events/v1`;
const first = await (await fetch(`${base}/events?per_page=1`)).json();
const single = `${base}/events/${first.events[0].id}`;
const etag = (await fetch(single)).headers.get('etag');
const reads = [
  ['single event', single, []],
  ['single event, 304', single, [`If-None-Match: ${etag}`]],
  ['list of 10', `${base}/events?per_page=10`, []],
];
// CPU time first, unprofiled (an inspector session and the profiler's sampling cost CPU too).
const plain = {};
for (const [name, url, headers] of reads) {
  await load(url, Math.min(5000, requests), headers);
  const cpu0 = process.cpuUsage();
  const { total, non2xx } = await load(url, requests, headers);
  const cpu = process.cpuUsage(cpu0);
  plain[name] = { perRequest: (cpu.user + cpu.system) / total, non2xx };
}
// Then the same loads profiled.
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const results = {};
for (const [name, url, headers] of reads) {
  await session.post('Profiler.start');
  const { total, non2xx } = await load(url, requests, headers);
  const { profile } = await session.post('Profiler.stop');
  if (process.env.FEATURE_COST_PROFILE) writeFileSync(join(process.env.FEATURE_COST_PROFILE, `${name.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
  const split = splitProfile(profile, total);
  const { perRequest } = plain[name];
  // The profile's shares, scaled to the CPU time (a sample's interval also holds the time the
  // process waited for a core on a busy machine).
  console.log(`\n${name}: ${total} requests (${non2xx + plain[name].non2xx} non-2xx), CPU ${perRequest.toFixed(1)} µs/request (profile busy ${split.busy.toFixed(1)})`);
  results[name] = { cpu: perRequest, features: Object.fromEntries(split.features.map(([f, us]) => [f, (us / split.busy) * perRequest])) };
  for (const [f, us] of split.features) console.log(`  ${f.padEnd(46)} ${((us / split.busy) * perRequest).toFixed(1).padStart(6)}`);
}
session.disconnect();
// The floor: a bare Fastify route sending the single event's body and headers as they were sent.
{
  const answer = await fetch(single);
  const body = Buffer.from(await answer.arrayBuffer());
  const headers = [...answer.headers].filter(([k]) => !['content-length', 'date', 'connection', 'keep-alive'].includes(k));
  const { default: Fastify } = await import(pathToFileURL(join(checkout, 'node_modules', 'fastify', 'fastify.js')).href);
  const bare = Fastify({ logger: false });
  bare.get('/event', (_req, reply) => {
    for (const [k, v] of headers) reply.header(k, v);
    reply.send(body);
  });
  const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/event`;
  await load(bareUrl, Math.min(5000, requests));
  const cpu0 = process.cpuUsage();
  const plain = await load(bareUrl, requests);
  const cpu = process.cpuUsage(cpu0);
  const perRequest = (cpu.user + cpu.system) / plain.total;
  results['bare Fastify, same body and headers'] = { cpu: perRequest, features: {} };
  console.log(`\nbare Fastify route, the single event's body and ${headers.length} headers: CPU ${perRequest.toFixed(1)} µs/request`);
  await bare.close();
}
if (process.env.FEATURE_COST_JSON) writeFileSync(process.env.FEATURE_COST_JSON, JSON.stringify(results));
await built.close();
rmSync(work, { recursive: true, force: true });
