/**
 * What a background job is (its name, its step, when it runs), apart from the runner that runs it
 * (jobs/runner.ts): a face that brings background work hands the composition root these specs, and
 * stands on no floor above the runner.
 *
 * @example
 *   const spec: JobSpec<number> = { name: 'federation-outbox', everyMs: 5000, run: async () => ({ value: 0 }) };
 */

/** The part of a pino/Fastify logger the runner uses. */
export interface JobLogger {
  warn(obj: object, msg: string): void;
}

/** What a step sees. */
export interface JobContext {
  /** True once the job or the runner is stopping: a step that loops returns early. */
  isStopped(): boolean;
}

/** What a step may answer (nothing: done for now, next run after `everyMs`). */
export interface JobStep<T = unknown> {
  /** Work is left: the next step runs at once (on the next turn of the event loop). */
  more?: boolean;
  /** The next step runs this many ms from now instead of after `everyMs`. */
  nextInMs?: number;
  /** What `runOnce()` resolves with (tests, the CLI). */
  value?: T;
}

export interface JobSpec<T = unknown> {
  /** Unique in the runner; the `job` label of the metrics and of the log lines. */
  name: string;
  /** Time from the end of a step to the next one, when nothing nudges it sooner (ms). */
  everyMs: number;
  /** Time from `start()` to the first step (ms; default `everyMs`). */
  firstMs?: number;
  /** How soon a nudge runs the step (ms; default 0). */
  nudgeMs?: number;
  /** Delay before retrying a failed step: `initialMs`, doubled per further failure, at most `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * One step at a time across the servers sharing the database (store/job-locks.ts). On PostgreSQL
   * the lock keeps one pooled connection for the length of the step, beside the ones it queries on.
   */
  singleton?: boolean;
  /** One step. Throwing is a failure (logged, counted, retried after the backoff). */
  run(ctx: JobContext): Promise<JobStep<T> | void>;
  /** Called once when the job stops (to drop subscriptions that nudge it). */
  onStop?(): void;
}
