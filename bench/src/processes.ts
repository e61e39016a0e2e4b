/**
 * Child processes of the benchmark: the service under test (`node dist/cli/main.js serve`, the
 * compiled package as it ships), the bare-Fastify baseline, and the seeding command; plus RSS and CPU sampling of a child through
 * /proc (Linux), so the figures are the child's own and not the load generator's.
 *
 * @example
 *   const server = await startChild('service', [cliPath, 'serve'], { DATABASE_URL: 'sqlite:./x.db' });
 *   const sampler = sampleProcess(server.pid);
 *   …
 *   sampler.stop(); await server.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The service as built by `npm run build` (dist/cli/main.js): what is measured runs compiled, as it ships. */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/**
 * Node arguments that run the baseline server (baseline.ts) from its source through tsx, as the
 * benchmark itself runs: no build step of its own; the code Fastify runs is the same.
 */
export const BASELINE_ARGS = ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./baseline.ts', import.meta.url))];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Child {
  name: string;
  pid: number;
  origin: string;
  port: number;
  /** stderr collected so far (for error reports) */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start a Node child listening on a free port (passed as PORT) and wait until `readyPath` answers;
 * `onOutput` hears its standard output and error as they come (its log lines).
 */
export async function startChild(
  name: string,
  args: string[],
  env: Record<string, string>,
  options: { nodeArgs?: string[]; readyPath?: string; timeoutMs?: number; onOutput?: (chunk: string) => void } = {},
): Promise<Child> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    options.onOutput?.(chunk.toString());
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null = null;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code ?? -1;
      resolve();
    }),
  );
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before it was ready:\n${output}`);
    try {
      const res = await fetch(origin + (options.readyPath ?? '/'));
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer within the time limit:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    pid: child.pid!,
    origin,
    port,
    output: () => output,
    async stop() {
      if (exited !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** Run a Node script to completion with the terminal attached (for the seed progress bar). */
export async function runNode(args: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? -1)));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
}

/** Resident set size of a process in bytes (Linux /proc), or null elsewhere. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc), or null elsewhere. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime (clock ticks; 100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface Sampler {
  /** stop sampling; returns the peak RSS (bytes) and the CPU used since start (seconds) */
  stop(): { peakRss: number | null; lastRss: number | null; cpuSeconds: number | null };
}

/** Sample a process' RSS every 250 ms and measure its CPU use from now on. */
export function sampleProcess(pid: number): Sampler {
  const cpuStart = cpuSecondsOf(pid);
  let peak: number | null = rssOf(pid);
  let last: number | null = peak;
  const timer = setInterval(() => {
    last = rssOf(pid);
    if (last !== null && (peak === null || last > peak)) peak = last;
  }, 250);
  return {
    stop() {
      clearInterval(timer);
      const now = rssOf(pid);
      if (now !== null) {
        last = now;
        if (peak === null || now > peak) peak = now;
      }
      const cpuEnd = cpuSecondsOf(pid);
      return { peakRss: peak, lastRss: last, cpuSeconds: cpuStart !== null && cpuEnd !== null ? cpuEnd - cpuStart : null };
    },
  };
}
