/**
 * Whether a request holds the server's event loop: the request is sent while `/livez` is asked
 * again and again (one ping always in flight), and the server's own loop watch reports its longest
 * hold meanwhile, both in CPU time (a busy host delays pings by seconds of wall-clock time without
 * any hold). The server runs in the test's process, so the answer is received as bytes and only
 * decoded after the measurement. `STALL_LOG=1` prints each try's figures.
 *
 * @example
 *   await assertNoStall(t, 'month page', () => receive(`${t.origin}/events/month/2031-03/`), (r) => assert.equal(r.status, 200));
 */
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';

/** The bar: no hold of this much CPU time (ms). */
export const BAR_MS = 100;

/** An answer as it arrived: its body's bytes. */
export interface Received {
  status: number;
  headers: Headers;
  chunks: Uint8Array[];
}

export async function receive(url: string, init: RequestInit = {}): Promise<Received> {
  const res = await fetch(url, init);
  const chunks: Uint8Array[] = [];
  const reader = res.body?.getReader();
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    chunks.push(next.value);
  }
  return { status: res.status, headers: res.headers, chunks };
}

export const textOf = (r: Received): string => Buffer.concat(r.chunks).toString('utf8');

/** CPU time of this thread (the event loop's), in ms. */
function loopCpuMs(): number {
  const u = typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage() : process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface Try<T> {
  result: T;
  /** the longest /livez round trip while the request ran (wall-clock ms) */
  pingMs: number;
  /** … and the CPU time this thread spent meanwhile (ms) */
  pingCpuMs: number;
  /** the server's longest hold of the loop meanwhile, in CPU time (ms) */
  heldCpuMs: number;
}

/** Send a request while /livez is pinged: the longest ping and the server's longest hold meanwhile. */
export async function pinged<T>(t: TestServer, request: () => Promise<T>): Promise<Try<T>> {
  let done = false;
  let pingMs = 0;
  let pingCpuMs = 0;
  const pinger = (async () => {
    while (!done) {
      const started = performance.now();
      const cpu = loopCpuMs();
      const res = await fetch(`${t.origin}/livez`);
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      pingMs = Math.max(pingMs, performance.now() - started);
      pingCpuMs = Math.max(pingCpuMs, loopCpuMs() - cpu);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const started = performance.now();
  try {
    const result = await request();
    return { result, pingMs, pingCpuMs, heldCpuMs: t.built.loopWatch.heldSince(started).cpuMs };
  } finally {
    done = true;
    await pinger;
  }
}

/**
 * The request does not hold the loop BAR_MS or more: of three tries, one at least saw the /livez
 * ping answered and the server's loop watch see no hold within the bar, both in CPU time (a first
 * compilation or a garbage collection can fall into one try; a request whose own work holds the
 * loop does so every time). `before` runs before each try (outside the measurement), e.g. to
 * make it find nothing kept; each try's answer is checked.
 */
export async function assertNoStall(t: TestServer, label: string, request: () => Promise<Received>, check: (r: Received) => void, before?: () => Promise<void>): Promise<void> {
  const tries: string[] = [];
  for (let i = 0; i < 3; i++) {
    await before?.();
    const r = await pinged(t, request);
    check(r.result);
    tries.push(`/livez ${Math.round(r.pingMs)} ms (${Math.round(r.pingCpuMs)} ms CPU), loop held ${Math.round(r.heldCpuMs)} ms CPU`);
    if (process.env.STALL_LOG) console.log(`${label}: ${tries.at(-1)}`);
    if (r.pingCpuMs < BAR_MS && r.heldCpuMs < BAR_MS) return;
  }
  assert.fail(`${label}: ${BAR_MS} ms or more on every try: ${tries.join('; ')}`);
}
