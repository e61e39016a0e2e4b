#!/usr/bin/env node
/**
 * Run Node.js with these arguments on a supported Node (22 or later): the one that runs this
 * script when it is supported, else Node 24 LTS from the npm registry's `node` package, installed
 * once into a cache outside the repository. It is what `npm start`, `npm test` and `npm run bench`
 * call, so the README's commands also work on a machine whose system Node is older (Node 20, end of
 * life since April 2026).
 *
 *   node scripts/node.mjs dist/cli/main.js serve
 *   node scripts/node.mjs --test --import ./scripts/typescript.mjs test/unit/dates.test.ts
 *
 * Where the supported Node comes from, in this order:
 *   1. the Node running this script, when it is 22 or later;
 *   2. `EVENTS_CALENDAR_NODE`, the path of a Node 22+ binary;
 *   3. ${XDG_CACHE_HOME:-~/.cache}/events-calendar/node24, installed there on first use with
 *      `npm install node@24` (one line says so on stderr; about 30 MB, from the npm registry).
 *
 * Plain Node, no dependencies, no syntax newer than Node 18. Signals (Ctrl-C, SIGTERM from a
 * process manager) are passed on to the child, and the child's exit code or signal is this
 * script's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const MIN_MAJOR = 22;
const FALLBACK = 'node@24';

function majorOf(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** A Node 22+ binary: this one, the configured one, or the cached Node 24 (installed when missing). */
function supportedNode() {
  if (majorOf(process.versions.node) >= MIN_MAJOR) return process.execPath;
  const configured = process.env.EVENTS_CALENDAR_NODE;
  if (configured) {
    const v = versionOf(configured);
    if (v && majorOf(v) >= MIN_MAJOR) return configured;
    console.error(`error: EVENTS_CALENDAR_NODE=${configured} is not a Node.js 22 or later (${v ?? 'does not run'})`);
    process.exit(2);
  }
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'events-calendar', 'node24');
  const bin = join(cache, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(bin) && majorOf(versionOf(bin) ?? '0') >= MIN_MAJOR) return bin;
  console.error(`events-calendar needs Node.js 22 or later; this is ${process.version}. Installing ${FALLBACK} from the npm registry into ${cache} (once)…`);
  mkdirSync(cache, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', cache, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', FALLBACK], { stdio: ['ignore', 'ignore', 'inherit'] });
  const v = r.status === 0 && existsSync(bin) ? versionOf(bin) : undefined;
  if (!v) {
    console.error(`error: could not install ${FALLBACK}; install Node.js 22 or 24 LTS (https://nodejs.org, or your package manager) and run the command again`);
    process.exit(2);
  }
  console.error(`using Node.js ${v} from ${bin}`);
  return bin;
}

const child = spawn(supportedNode(), process.argv.slice(2), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
