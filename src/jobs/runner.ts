/**
 * The job runner: every background task of a server (the occurrence horizon, webhook delivery,
 * change-log pruning, and the ones to come) is a job declared to one runner, which owns the
 * timers, nudges, stopping, failures, backoff, one-at-a-time across servers and metrics. A job is
 * a name, a step (`run`) and when to run it; it writes no timer or error handling of its own.
 *
 * Scheduling, per job:
 * - the first step runs `firstMs` after `start()` (default `everyMs`); after each step the next one
 *   runs `everyMs` after it ended, or `nextInMs` after it when the step says so, or at once when it
 *   says `more` (it left work it will do in its next step);
 * - `nudge(name)` (something happened that the job should see soon): the step runs within
 *   `nudgeMs` (default 0, the next turn of the event loop); a nudge while a step runs makes one
 *   more step run right after it (never two at once in a server);
 * - a step that throws is logged (`job <name>: run failed`, with the error and the job's name) and
 *   retried after a backoff: `backoff.initialMs`, doubled after each further failure up to
 *   `backoff.maxMs` (defaults: `everyMs`, and ten times that); a success resets it;
 * - `singleton`: across servers sharing the database, one step at a time
 *   (`store/job-locks.ts`: a PostgreSQL advisory lock, a lease row in the file on SQLite). A server
 *   finding the lock held skips that step (counted as skipped) and tries again at its next time;
 * - every step runs outside any request, whoever woke it (a nudge from a request of one calendar
 *   does not make the step that calendar's work): a job that works in calendars enters each itself;
 * - `stop()` (the runner's or one job's): no step starts any more, a nudge is ignored, and it waits
 *   for the steps under way (their `ctx.isStopped()` turns true, so a long step returns early),
 *   at most `stopWaitMs` (default 30 s; then it logs and returns: a stop never hangs).
 *
 * `runOnce()` of a job's handle runs one step now (after the one under way, if any) and resolves
 * with its outcome; it never rejects (a failure is in `error`, and logged and counted as usual).
 *
 * Metrics (`registerMetrics(registry)`, prom-client, the app's `/metrics` registry), by `job`:
 * `calendar_job_runs_total`, `calendar_job_failures_total`, `calendar_job_skipped_total` (a
 * singleton step another server held), `calendar_job_run_duration_seconds` (histogram) and
 * `calendar_job_last_success_timestamp_seconds`.
 *
 * @example
 *   const jobs = createJobRunner({ store, logger: app.log });
 *   const cleanup = jobs.register({
 *     name: 'session-cleanup',
 *     everyMs: 3_600_000,
 *     firstMs: 60_000,
 *     singleton: true, // one server at a time
 *     async run(ctx) {
 *       const deleted = await deleteExpiredSessions(store.db, { isStopped: ctx.isStopped });
 *       return { value: deleted, more: deleted === 1000 }; // a full batch: more is left
 *     },
 *   });
 *   jobs.start();
 *   cleanup.nudge(); // or jobs.nudge('session-cleanup')
 *   await cleanup.runOnce(); // { value: 12 }
 *   await jobs.stop();
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Store } from '../store/db.js';
import { tryJobLock, type JobLock } from '../store/job-locks.js';
import type { JobContext, JobLogger, JobSpec } from '../job-spec.js';

/** The outcome of one step, as `runOnce()` reports it. */
export interface JobRun<T = unknown> {
  /** The step's `value`, when it succeeded and gave one. */
  value?: T;
  /** The step failed with this. */
  error?: unknown;
  /** A singleton step another server (or runner) held: nothing ran. */
  skipped?: boolean;
}

/** A registered job. */
export interface JobHandle<T = unknown> {
  readonly name: string;
  /** Run one step now (after the one under way, if any). Never rejects. */
  runOnce(): Promise<JobRun<T>>;
  /** Run soon; a step under way runs once more after it. Ignored once stopped (or before start). */
  nudge(): void;
  /** Stop this job alone: no step starts any more; waits for the one under way. */
  stop(): Promise<void>;
}

export interface JobRunner {
  register<T>(spec: JobSpec<T>): JobHandle<T>;
  /** The handle of a registered job. */
  job(name: string): JobHandle | undefined;
  /** Start every job's schedule (jobs registered later start at once). */
  start(): void;
  /** Nudge a job by name (unknown names are ignored). */
  nudge(name: string): void;
  /** Stop every job and wait for the steps under way (bounded by `stopWaitMs`). */
  stop(): Promise<void>;
  /** Add the jobs' metrics to a registry (the app's `/metrics`). */
  registerMetrics(registry: Registry): void;
}

export interface JobRunnerOptions {
  /** The store singleton jobs lock in (required for `singleton` jobs). */
  store?: Pick<Store, 'db' | 'dialect' | 'describe'>;
  logger: JobLogger;
  /** The longest `stop()` waits for a step under way (ms; default 30,000). */
  stopWaitMs?: number;
  /**
   * The jobs run in another thread (the write worker's: its main thread runs them): `start()`
   * schedules nothing here, and a nudge (by name or by a handle) is handed to `elsewhere`.
   */
  elsewhere?: (name: string) => void;
}

const DURATION_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10, 60, 300];

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The jobs' metrics, registered in a registry by `registerMetrics`. */
function createJobMetrics() {
  const labelNames = ['job'] as const;
  const runs = new Counter({ name: 'calendar_job_runs_total', help: 'Steps of background jobs run (succeeded or failed), by job', labelNames, registers: [] });
  const failures = new Counter({ name: 'calendar_job_failures_total', help: 'Steps of background jobs that failed (each logged, retried after a backoff), by job', labelNames, registers: [] });
  const skipped = new Counter({
    name: 'calendar_job_skipped_total',
    help: 'Steps of one-at-a-time (singleton) jobs skipped because another server held the job, by job',
    labelNames,
    registers: [],
  });
  const duration = new Histogram({ name: 'calendar_job_run_duration_seconds', help: 'Time a step of a background job took, by job', labelNames, buckets: DURATION_BUCKETS, registers: [] });
  const lastSuccess = new Gauge({
    name: 'calendar_job_last_success_timestamp_seconds',
    help: 'When a step of each background job last succeeded (Unix time, seconds)',
    labelNames,
    registers: [],
  });
  return { runs, failures, skipped, duration, lastSuccess };
}

/**
 * Wait for `promise`, at most `ms`; whether it settled in time. The timer keeps the process
 * alive (not unref'd): whoever awaits a stop must get its answer, also when nothing else is left
 * to run (Node 22 ends a test whose only pending timer is unref'd).
 */
const within = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/** What a runner's jobs share: its options, its registered jobs, its state and its metrics. */
interface RunnerState {
  options: JobRunnerOptions;
  logger: JobLogger;
  stopWaitMs: number;
  jobs: Map<string, JobHandle<unknown>>;
  started: boolean;
  stopping: boolean;
  starters: Array<() => void>;
  stoppers: Array<() => Promise<void>>;
  metrics: ReturnType<typeof createJobMetrics>;
  /**
   * Run in the context the runner was made in (outside any request): a step woken by a nudge or run
   * by `runOnce` would otherwise inherit its caller's async context, a request's calendar and its
   * configuration among it. Each job names the calendars it works in itself.
   */
  outside: <R>(fn: () => R) => R;
}

/** Register a job with a runner: its schedule, its steps (locked when a singleton), retries and stop. */
function registerJob<T>(runner: RunnerState, spec: JobSpec<T>): JobHandle<T> {
  const { name } = spec;
  if (runner.jobs.has(name)) throw new Error(`job ${name} is registered already`);
  if (spec.singleton && !runner.options.store) throw new Error(`job ${name} is a singleton: the runner needs the store`);
  const labels = { job: name };
  const backoff = spec.backoff ?? { initialMs: spec.everyMs, maxMs: spec.everyMs * 10 };
  let timer: NodeJS.Timeout | undefined;
  let due = Infinity;
  let running: Promise<JobRun<T>> | undefined;
  let again = false;
  let stopped = false;
  let failed = 0;
  const ctx: JobContext = { isStopped: () => stopped || runner.stopping };

  /** Wake in `delay` ms, replacing the wake-up set. */
  const schedule = (delay: number) => {
    if (stopped || runner.stopping) return;
    if (timer) clearTimeout(timer);
    due = Date.now() + delay;
    timer = setTimeout(() => void execute(), delay);
    timer.unref();
  };
  /** Wake within `delay` ms: sooner than the wake-up set, never later. */
  const wake = (delay: number) => {
    if (Date.now() + delay < due) schedule(delay);
  };

  /** A step's outcome, and when the next one runs ('more': at once; a number: that many ms from now). */
  type Done = { run: JobRun<T>; next?: 'more' | number };

  const step = async (): Promise<Done> => {
    let lock: JobLock | undefined;
    if (spec.singleton) {
      lock = await tryJobLock(runner.options.store!, name);
      if (!lock) {
        runner.metrics.skipped.inc(labels);
        return { run: { skipped: true } };
      }
    }
    const end = runner.metrics.duration.startTimer(labels);
    try {
      const answer = (await spec.run(ctx)) ?? {};
      runner.metrics.runs.inc(labels);
      runner.metrics.lastSuccess.set(labels, Date.now() / 1000);
      failed = 0;
      const next = answer.more ? 'more' : answer.nextInMs;
      return { run: answer.value !== undefined ? { value: answer.value } : {}, ...(next !== undefined ? { next } : {}) };
    } finally {
      end();
      await lock?.release();
    }
  };

  const retryDelay = () => Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failed - 1));

  const after = (done: Done) => {
    running = undefined;
    // Not started (a `runOnce` before `start()`): no schedule yet.
    if (stopped || runner.stopping || !runner.started) return;
    const soon = again || done.next === 'more';
    again = false;
    if (soon) schedule(0);
    else if (done.run.error !== undefined) schedule(retryDelay());
    else schedule(typeof done.next === 'number' ? done.next : spec.everyMs);
  };

  const execute = (): Promise<JobRun<T>> => {
    if (running) return running;
    if (timer) clearTimeout(timer);
    timer = undefined;
    due = Infinity;
    running = runner
      .outside(step)
      .catch((err: unknown): Done => {
        failed++;
        runner.metrics.runs.inc(labels);
        runner.metrics.failures.inc(labels);
        const retryInMs = retryDelay();
        runner.logger.warn({ job: name, err: errorText(err), failures: failed, retryInMs }, `job ${name}: run failed (retried in ${retryInMs} ms)`);
        return { run: { error: err } };
      })
      .then((done) => {
        after(done);
        return done.run;
      });
    return running;
  };

  const handle: JobHandle<T> = {
    name,
    async runOnce() {
      await running;
      return execute();
    },
    nudge() {
      if (runner.options.elsewhere) {
        if (!stopped && !runner.stopping) runner.options.elsewhere(name);
        return;
      }
      if (stopped || runner.stopping || !runner.started) return;
      if (running) again = true;
      else wake(spec.nudgeMs ?? 0);
    },
    async stop() {
      if (!stopped) {
        stopped = true;
        if (timer) clearTimeout(timer);
        timer = undefined;
        spec.onStop?.();
      }
      const under = running;
      if (under && !(await within(under, runner.stopWaitMs))) runner.logger.warn({ job: name, waitedMs: runner.stopWaitMs }, `job ${name}: a step still runs after the stop's wait (left to finish)`);
    },
  };
  runner.jobs.set(name, handle as JobHandle<unknown>);
  const begin = () => {
    if (!stopped) schedule(spec.firstMs ?? spec.everyMs);
  };
  runner.starters.push(begin);
  runner.stoppers.push(() => handle.stop());
  if (runner.started && !runner.stopping) begin();
  return handle;
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const runner: RunnerState = {
    options,
    logger: options.logger,
    stopWaitMs: options.stopWaitMs ?? 30_000,
    jobs: new Map(),
    started: false,
    stopping: false,
    starters: [],
    stoppers: [],
    metrics: createJobMetrics(),
    outside: AsyncLocalStorage.snapshot(),
  };
  const { jobs, starters, stoppers } = runner;
  const { runs, failures, skipped, duration, lastSuccess } = runner.metrics;

  return {
    register: (spec) => registerJob(runner, spec),
    job: (name) => jobs.get(name),
    start() {
      if (runner.started || runner.stopping || options.elsewhere) return;
      runner.started = true;
      for (const begin of starters) begin();
    },
    nudge(name) {
      jobs.get(name)?.nudge();
    },
    async stop() {
      runner.stopping = true;
      await Promise.all(stoppers.map((stop) => stop()));
    },
    registerMetrics(registry) {
      for (const metric of [runs, failures, skipped, duration, lastSuccess]) registry.registerMetric(metric);
    },
  };
}
