#!/usr/bin/env node
/**
 * Reads of several built checkouts side by side, in alternating rounds, with the floor beside them
 * (issue 27 item 2): every server is started once and warmed, then each round sends the same read
 * to each in turn (autocannon, 10 connections, a separate process), so that whatever else the
 * machine does falls on all of them. Per server: the server process' CPU time per request (user +
 * system from /proc, the figure other load moves least; min and median over the rounds) and
 * requests per second (median and best).
 *
 *   node bench/paired-reads.mjs [options] 'NAME=CHECKOUT[|DATABASE_URL[|K=V,K=V]]' ...
 *
 *   --read single|list|PATH   the read: one event (the list's first), the default list, or a path (default single)
 *   --not-modified            send the answer's ETag back (If-None-Match): the 304 path
 *   --both                    each server's 200 and 304 (If-None-Match), from the same process
 *   --bare                    add a bare Fastify route sending the first server's body and headers (as bytes;
 *                             with --not-modified, a 304 with those headers)
 *   --rounds N --seconds S    rounds (default 8) of S seconds (default 2) per server
 *   --env K=V                 environment of every server (repeatable); a server's own after its URL
 *
 * Each CHECKOUT is built (`node scripts/build.mjs`, or `npx tsc` for commits before it) and serves
 * `DATABASE_URL` (default: a SQLite file seeded here with 100 events by that checkout's own CLI).
 * Every feature is at its default (metrics, ETags, request ids, the rate limit counting every request
 * at a limit the run never reaches).
 *
 * @example
 *   git worktree add /tmp/bf22a9f bf22a9f && (cd /tmp/bf22a9f && npm ci && npx tsc -p tsconfig.json)
 *   node bench/paired-reads.mjs --bare bf22a9f=/tmp/bf22a9f head=.
 *   node bench/paired-reads.mjs --read list 'head=.|postgres://postgres@127.0.0.1:5432/bench'
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const autocannon = join(here, 'node_modules', '.bin', 'autocannon');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const read = option('--read', 'single');
const rounds = Number(option('--rounds', '8'));
const seconds = option('--seconds', '2');
const notModified = flag('--not-modified');
const both = flag('--both');
const bare = flag('--bare');
const sharedEnv = {};
for (let kv; (kv = option('--env')) !== undefined;) sharedEnv[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
if (args.length === 0 || args.some((a) => !a.includes('='))) {
  console.error("usage: node bench/paired-reads.mjs [--read single|list|PATH] [--not-modified] [--bare] [--rounds N] [--seconds S] 'NAME=CHECKOUT[|DATABASE_URL[|K=V,K=V]]' ...");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'paired-reads-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const cpuOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / ticks;
};
const API = '/api/calendar/events/v1';

const servers = [];
try {
  for (const [i, spec] of args.entries()) {
    const name = spec.slice(0, spec.indexOf('='));
    const [dir, url, envs = ''] = spec.slice(spec.indexOf('=') + 1).split('|');
    const checkout = resolve(dir);
    const database = url || `sqlite:${join(work, `db${i}.db`)}`;
    const env = {
      ...process.env,
      CALENDAR_ADMIN_USER: 'bench-admin',
      CALENDAR_ADMIN_PASSWORD: 'bench-admin-password',
      DATABASE_URL: database,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000000',
      ...sharedEnv,
    };
    for (const kv of envs.split(',').filter(Boolean)) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
    if (!url) execFileSync(process.execPath, ['dist/cli/main.js', 'seed', '--events', '100', '--no-progress'], { cwd: checkout, env, stdio: 'ignore' });
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/cli/main.js', 'serve'], { cwd: checkout, env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    servers.push({ name, port, child, cpu: [], rps: [] });
  }
  for (const s of servers) {
    for (
      let i = 0;
      i < 300 &&
      !(await fetch(`http://127.0.0.1:${s.port}${API}/`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    )
      await sleep(100);
    const first = await (await fetch(`http://127.0.0.1:${s.port}${API}/events?per_page=1`)).json();
    s.path = read === 'single' ? `${API}/events/${first.events[0].id}` : read === 'list' ? `${API}/events` : read;
    s.headers = [];
    if (notModified) {
      const etag = (await fetch(`http://127.0.0.1:${s.port}${s.path}`)).headers.get('etag');
      if (!etag) throw new Error(`${s.name} answers no ETag for ${s.path}`);
      s.headers = ['-H', `If-None-Match=${etag}`];
    }
  }
  if (both) {
    // Each server's 304 beside its 200, from the same process.
    for (const s of [...servers]) {
      const etag = (await fetch(`http://127.0.0.1:${s.port}${s.path}`)).headers.get('etag');
      if (!etag) throw new Error(`${s.name} answers no ETag for ${s.path}`);
      servers.push({ ...s, name: `${s.name} (304)`, headers: ['-H', `If-None-Match=${etag}`], cpu: [], rps: [], notModified: true });
    }
  }
  if (bare) {
    // The first server's answer, body and headers as it sent them, from a bare route (the floor).
    const res = await fetch(`http://127.0.0.1:${servers[0].port}${servers[0].path}`);
    const body = Buffer.from(await res.arrayBuffer());
    const headers = [...res.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k));
    const port = await freePort();
    const script = `import Fastify from 'fastify';
const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64'); const headers = ${JSON.stringify(Object.fromEntries(headers))};
const app = Fastify({ logger: false }); app.get('/*', (req, reply) => { ${notModified ? 'reply.code(304).headers(headers).send();' : 'reply.headers(headers).send(body);'} });
await app.listen({ port: ${port}, host: '127.0.0.1' });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: here, stdio: 'ignore' });
    const s = { name: 'bare Fastify', port, child, cpu: [], rps: [], path: servers[0].path, headers: [] };
    for (
      let i = 0;
      i < 100 &&
      !(await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      ));
      i++
    )
      await sleep(100);
    servers.push(s);
  }
  const load = (s, duration, json) =>
    execFileSync(autocannon, ['-c', '10', '-d', duration, ...(json ? ['--json'] : []), ...s.headers, `http://127.0.0.1:${s.port}${s.path}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  for (const s of servers) load(s, '2', false);
  for (let r = 0; r < rounds; r++) {
    for (const s of servers) {
      const t0 = cpuOf(s.child.pid);
      const out = JSON.parse(load(s, seconds, true).toString());
      const t1 = cpuOf(s.child.pid);
      const expected = notModified || s.notModified ? 304 : 200;
      if (out.non2xx && expected === 200) throw new Error(`${s.name}: ${out.non2xx} answers were not 2xx`);
      s.cpu.push(((t1 - t0) * 1e6) / out.requests.total);
      s.rps.push(out.requests.average);
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`${read}${notModified ? ' (If-None-Match: 304)' : ''}, ${rounds} rounds of ${seconds} s`);
  console.log('| server | CPU µs/request, min | median | req/s, median | best |');
  console.log('|---|---:|---:|---:|---:|');
  for (const s of servers) console.log(`| ${s.name} | ${Math.min(...s.cpu).toFixed(0)} | ${med(s.cpu).toFixed(0)} | ${med(s.rps).toFixed(0)} | ${Math.max(...s.rps).toFixed(0)} |`);
} finally {
  for (const s of servers) s.child.kill();
  rmSync(work, { recursive: true, force: true });
}
