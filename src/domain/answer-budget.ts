/**
 * A bound on the memory held by list answers being built and sent at the same time
 * (RESPONSE_MEMORY_MB): each large list reserves its estimated size before it loads and builds
 * its records, and gives it back when its answer has been sent (or the client went away). When
 * the budget is spent, further large lists wait their turn (first come, first served); one that
 * waits longer than 30 s is answered 503 `rest_server_busy` with `Retry-After`. A list larger
 * than the whole budget runs alone. Small answers (estimated under {@link SMALL_ANSWER_BYTES})
 * are not counted, so they never wait behind large ones.
 *
 * Without it, 40 parallel `GET /events?per_page=50` over events with 2 MB descriptions held
 * about 800 MB at once; with it, such answers are built a few at a time.
 *
 * @example
 *   const budget = createAnswerBudget(256 * 1024 * 1024);
 *   const release = await budget.acquire(estimatedBytes); // …build and send…; release();
 */
import { ApiError } from './errors.js';

/** Answers estimated under this size are not counted against the budget. */
export const SMALL_ANSWER_BYTES = 1024 * 1024;

export interface AnswerBudget {
  /** Reserve `bytes` (waiting while the budget is spent); call the returned function to give them back. */
  acquire(bytes: number): Promise<() => void>;
  /** What is reserved now, and the most ever reserved at once / by how many answers at once. */
  usage(): { bytes: number; holders: number; peakBytes: number; peakHolders: number; waiting: number };
}

export function createAnswerBudget(limitBytes: number, { waitMs = 30_000 } = {}): AnswerBudget {
  let used = 0;
  let holders = 0;
  let peakBytes = 0;
  let peakHolders = 0;
  const queue: Array<{ want: number; grant: () => void }> = [];

  const take = (want: number): (() => void) => {
    used += want;
    holders++;
    peakBytes = Math.max(peakBytes, used);
    peakHolders = Math.max(peakHolders, holders);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      used -= want;
      holders--;
      // Wake the waiting answers that now fit, in order.
      while (queue.length && used + queue[0]!.want <= limitBytes) queue.shift()!.grant();
    };
  };

  return {
    acquire(bytes) {
      if (bytes < SMALL_ANSWER_BYTES) return Promise.resolve(() => {});
      // An answer larger than the whole budget waits for everything else and then runs alone.
      const want = Math.min(bytes, limitBytes);
      if (queue.length === 0 && used + want <= limitBytes) return Promise.resolve(take(want));
      return new Promise((resolve, reject) => {
        const entry = {
          want,
          grant: () => {
            clearTimeout(timer);
            resolve(take(want));
          },
        };
        const timer = setTimeout(() => {
          queue.splice(queue.indexOf(entry), 1);
          const error = new ApiError('rest_server_busy', 'The server is busy sending other large answers. Please try again shortly.', 503);
          error.headers = { 'retry-after': '1' };
          reject(error);
        }, waitMs);
        queue.push(entry);
      });
    },
    usage: () => ({ bytes: used, holders, peakBytes, peakHolders, waiting: queue.length }),
  };
}
