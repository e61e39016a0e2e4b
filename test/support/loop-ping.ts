/**
 * A ping of this process' event loop and memory while a test runs something: a timer every 5 ms;
 * a tick that comes late means the loop was held. Each hold is also measured in the CPU time the
 * loop's thread used meanwhile (`process.threadCpuUsage`; the whole process' where it is missing),
 * so that a loaded host, which delays the timer without the loop doing anything, is told from work
 * that holds the loop. RSS is sampled at each tick; growth is the peak over the start.
 *
 * @example
 *   const ping = startLoopPing();
 *   await work();
 *   const { heldMs, cpuHeldMs, rssGrowthMiB } = ping.stop();
 */
const TICK_MS = 5;

const loopCpuMs: () => number =
  typeof process.threadCpuUsage === 'function'
    ? () => {
        const u = process.threadCpuUsage();
        return (u.user + u.system) / 1000;
      }
    : () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };

export interface LoopPing {
  /** Stop; the longest hold (wall clock, and the loop thread's CPU time during the hold the most CPU was used in), RSS growth. */
  stop(): { heldMs: number; cpuHeldMs: number; rssGrowthMiB: number };
}

export function startLoopPing(): LoopPing {
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  let heldMs = 0;
  let cpuHeldMs = 0;
  let last = performance.now();
  let lastCpu = loopCpuMs();
  const tick = () => {
    const now = performance.now();
    const cpu = loopCpuMs();
    const held = now - last - TICK_MS;
    if (held > heldMs) heldMs = held;
    const cpuHeld = Math.min(Math.max(held, 0), cpu - lastCpu);
    if (cpuHeld > cpuHeldMs) cpuHeldMs = cpuHeld;
    last = now;
    lastCpu = cpu;
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  };
  const timer = setInterval(tick, TICK_MS);
  return {
    stop() {
      // The span since the last tick counts too: work that ran until now (a chain of promises) never let the timer fire.
      tick();
      clearInterval(timer);
      return { heldMs, cpuHeldMs, rssGrowthMiB: (peak - rss0) / (1024 * 1024) };
    },
  };
}
