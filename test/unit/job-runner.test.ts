/**
 * The job runner (src/jobs/runner.ts): backoff after failures, nudges during a step, stopping
 * during a step (and never hanging), `more`, metrics, and singleton jobs on both stores (two
 * runners on one database never run a singleton step at once).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createJobRunner } from '../../src/jobs/runner.js';
import type { JobContext } from '../../src/job-spec.js';
import { openStore, type Store } from '../../src/store/db.js';
import { DEFAULT_CALENDAR_ID, acrossCalendars, calendarIdNow, inCalendar, isAcrossCalendars } from '../../src/store/calendar-scope.js';
import { STORES } from '../support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait (polling) until `cond` holds; fails after 10 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A promise to hold a step on, and its release. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

function logger() {
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return { lines, warn: (obj: object, msg: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }) };
}

describe('job runner', () => {
  it('with its jobs run elsewhere (the write worker): starts nothing, and hands every nudge over by name', async () => {
    const handed: string[] = [];
    let steps = 0;
    const runner = createJobRunner({ logger: logger(), elsewhere: (name) => handed.push(name) });
    const job = runner.register({ name: 'kept-elsewhere', everyMs: 10, firstMs: 0, run: async () => void steps++ });
    runner.start();
    job.nudge();
    runner.nudge('kept-elsewhere');
    runner.nudge('unknown');
    await sleep(60);
    assert.equal(steps, 0, 'no step ran here');
    assert.deepEqual(handed, ['kept-elsewhere', 'kept-elsewhere']);
    await runner.stop();
    job.nudge();
    assert.deepEqual(handed, ['kept-elsewhere', 'kept-elsewhere'], 'nothing is handed over once stopped');
  });

  it('retries a failing step after a backoff that doubles up to its cap, logs each failure with the job name, and a success resets it', async () => {
    const log = logger();
    const runner = createJobRunner({ logger: log });
    const starts: number[] = [];
    let fail = 4;
    runner.register({
      name: 'flaky',
      firstMs: 0,
      everyMs: 60_000,
      backoff: { initialMs: 40, maxMs: 100 },
      async run() {
        starts.push(Date.now());
        if (fail-- > 0) throw new Error('database away');
      },
    });
    const registry = new Registry();
    runner.registerMetrics(registry);
    runner.start();
    await until(() => starts.length === 5, 'five steps');
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // 40, 80, then capped at 100, 100 (timers fire late, never early).
    for (const [i, expected] of [40, 80, 100, 100].entries()) {
      assert.ok(gaps[i]! >= expected - 2 && gaps[i]! < expected + 400, `gap ${i}: ${gaps[i]} ms, expected about ${expected}`);
    }
    assert.equal(log.lines.length, 4);
    assert.deepEqual(
      log.lines.map((l) => [l.obj.job, l.obj.err, l.obj.failures, l.obj.retryInMs]),
      [
        ['flaky', 'database away', 1, 40],
        ['flaky', 'database away', 2, 80],
        ['flaky', 'database away', 3, 100],
        ['flaky', 'database away', 4, 100],
      ],
    );
    assert.match(log.lines[0]!.msg, /flaky/);
    // Succeeded: the next step is everyMs away, not a backoff.
    await sleep(250);
    assert.equal(starts.length, 5);
    const text = await registry.metrics();
    assert.match(text, /calendar_job_runs_total\{job="flaky"\} 5/);
    assert.match(text, /calendar_job_failures_total\{job="flaky"\} 4/);
    assert.match(text, /calendar_job_run_duration_seconds_count\{job="flaky"\} 5/);
    assert.match(text, /calendar_job_last_success_timestamp_seconds\{job="flaky"\} \d/);
    await runner.stop();
  });

  it('a nudge during a step runs one more step right after it, never two at once', async () => {
    const runner = createJobRunner({ logger: logger() });
    let active = 0;
    let most = 0;
    let steps = 0;
    let hold = gate();
    const job = runner.register({
      name: 'nudged',
      everyMs: 60_000,
      async run() {
        steps++;
        most = Math.max(most, ++active);
        await hold.wait;
        active--;
      },
    });
    // Before start a nudge does nothing.
    job.nudge();
    await sleep(30);
    assert.equal(steps, 0);
    runner.start();
    runner.nudge('nudged');
    await until(() => steps === 1, 'the nudged step');
    const first = hold;
    hold = gate();
    job.nudge();
    job.nudge();
    runner.nudge('nudged');
    await sleep(30);
    assert.equal(steps, 1, 'no second step while one runs');
    first.open();
    await until(() => steps === 2, 'the step after the nudges');
    hold.open();
    await sleep(50);
    assert.equal(steps, 2, 'the nudges during the step make one more step, not three');
    assert.equal(most, 1);
    // runOnce during a step waits for it, then runs its own.
    hold = gate();
    job.nudge();
    await until(() => steps === 3, 'a third step');
    const once = job.runOnce();
    await sleep(20);
    assert.equal(steps, 3);
    hold.open();
    await once;
    assert.equal(steps, 4);
    assert.equal(most, 1);
    await runner.stop();
  });

  it('a step that answers `more` runs again at once; `nextInMs` sets the next wake-up', async () => {
    const runner = createJobRunner({ logger: logger() });
    const starts: number[] = [];
    runner.register({
      name: 'batches',
      firstMs: 0,
      everyMs: 60_000,
      async run() {
        starts.push(Date.now());
        if (starts.length < 3) return { more: true };
        if (starts.length === 3) return { nextInMs: 60 };
        return undefined;
      },
    });
    runner.start();
    await until(() => starts.length === 4, 'four steps');
    assert.ok(starts[2]! - starts[0]! < 1000, 'the batches follow each other');
    assert.ok(starts[3]! - starts[2]! >= 58, 'then the wake-up the step asked for');
    await sleep(100);
    assert.equal(starts.length, 4);
    await runner.stop();
  });

  it('stop during a step waits for it (isStopped turns true), starts nothing after, and ignores nudges', async () => {
    const runner = createJobRunner({ logger: logger() });
    const hold = gate();
    let steps = 0;
    let sawStop: boolean | undefined;
    const job = runner.register({
      name: 'long',
      firstMs: 0,
      everyMs: 10,
      async run(ctx: JobContext) {
        steps++;
        await hold.wait;
        sawStop = ctx.isStopped();
        return { more: true };
      },
    });
    runner.start();
    await until(() => steps === 1, 'the step');
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await sleep(30);
    assert.equal(stopped, false, 'stop waits for the step under way');
    job.nudge();
    hold.open();
    await stopping;
    assert.equal(sawStop, true);
    await sleep(60);
    assert.equal(steps, 1, 'no step after the stop (nor for `more`, a nudge or the interval)');
  });

  it('stop never hangs: a step that never ends is waited for at most stopWaitMs, and logged', async () => {
    const log = logger();
    const runner = createJobRunner({ logger: log, stopWaitMs: 50 });
    let steps = 0;
    runner.register({
      name: 'stuck',
      firstMs: 0,
      everyMs: 60_000,
      run: () => {
        steps++;
        return new Promise<void>(() => {});
      },
    });
    runner.start();
    await until(() => steps === 1, 'the step');
    const began = Date.now();
    await runner.stop();
    assert.ok(Date.now() - began < 1000);
    assert.equal(log.lines.length, 1);
    assert.equal(log.lines[0]!.obj.job, 'stuck');
  });

  it('one job stops alone; the others go on', async () => {
    const runner = createJobRunner({ logger: logger() });
    let a = 0;
    let b = 0;
    const jobA = runner.register({ name: 'a', firstMs: 0, everyMs: 10, run: async () => void a++ });
    runner.register({ name: 'b', firstMs: 0, everyMs: 10, run: async () => void b++ });
    runner.start();
    await until(() => a > 0 && b > 0, 'both');
    await jobA.stop();
    const [a0, b0] = [a, b];
    await sleep(80);
    assert.equal(a, a0);
    assert.ok(b > b0);
    assert.throws(() => runner.register({ name: 'b', everyMs: 10, run: async () => {} }), /registered already/);
    await runner.stop();
  });

  it('a step runs outside any calendar, also when a request of one nudged it or ran it', async () => {
    const runner = createJobRunner({ logger: logger() });
    const seen: Array<[number, boolean]> = [];
    const job = runner.register({
      name: 'where',
      everyMs: 60_000,
      async run() {
        seen.push([calendarIdNow(), isAcrossCalendars()]);
      },
    });
    runner.start();
    inCalendar(7, () => job.nudge());
    await until(() => seen.length === 1, 'the nudged step');
    await inCalendar(7, () => job.runOnce());
    await acrossCalendars(() => job.runOnce());
    await runner.stop();
    assert.deepEqual(seen, [
      [DEFAULT_CALENDAR_ID, false],
      [DEFAULT_CALENDAR_ID, false],
      [DEFAULT_CALENDAR_ID, false],
    ]);
  });
});

for (const kind of STORES) {
  describe(`job runner: singleton jobs, two runners on one database [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-jobs-'));
    const stores: Store[] = [];
    after(async () => {
      for (const store of stores.reverse()) await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Two stores on one database (PostgreSQL: one schema; SQLite: one file), as two servers have. */
    async function twoStores(): Promise<[Store, Store]> {
      if (kind.name === 'postgres') {
        const schema = `t_jobs_${process.pid}_${randomBytes(3).toString('hex')}`;
        const a = await openStore(kind.url, { schema, dropSchemaOnClose: true, skipMigrations: true, poolSize: 3 });
        const b = await openStore(kind.url, { schema, skipMigrations: true, poolSize: 3 });
        stores.push(a, b);
        return [a, b];
      }
      const url = `sqlite:${join(dir, `jobs-${randomBytes(3).toString('hex')}.db`)}`;
      // The first migrates: SQLite's job locks are rows of `job_locks`.
      const a = await openStore(url);
      const b = await openStore(url, { skipMigrations: true });
      stores.push(a, b);
      return [a, b];
    }

    it('a singleton step held by one runner is skipped by the other, and runs once released', async () => {
      const [storeA, storeB] = await twoStores();
      const hold = gate();
      const runnerA = createJobRunner({ store: storeA, logger: logger() });
      const runnerB = createJobRunner({ store: storeB, logger: logger() });
      const registryB = new Registry();
      runnerB.registerMetrics(registryB);
      let ranB = 0;
      const jobA = runnerA.register({ name: 'sweep', singleton: true, everyMs: 60_000, run: async () => ({ value: await hold.wait.then(() => 'a') }) });
      const jobB = runnerB.register({ name: 'sweep', singleton: true, everyMs: 60_000, run: async () => ({ value: String(++ranB) }) });
      const first = jobA.runOnce();
      await sleep(50);
      assert.deepEqual(await jobB.runOnce(), { skipped: true });
      assert.equal(ranB, 0);
      // Another job name is another lock.
      const other = runnerB.register({ name: 'other', singleton: true, everyMs: 60_000, run: async () => ({ value: 'free' }) });
      assert.deepEqual(await other.runOnce(), { value: 'free' });
      hold.open();
      assert.deepEqual(await first, { value: 'a' });
      assert.deepEqual(await jobB.runOnce(), { value: '1' });
      assert.deepEqual(await jobA.runOnce(), { value: 'a' }, 'released after the step: the other runner takes it again');
      assert.match(await registryB.metrics(), /calendar_job_skipped_total\{job="sweep"\} 1/);
      await runnerA.stop();
      await runnerB.stop();
    });

    it('two runners on their schedules never run a singleton step at the same time', async () => {
      const [storeA, storeB] = await twoStores();
      let active = 0;
      let most = 0;
      const ran = { a: 0, b: 0 };
      const spec = (who: 'a' | 'b') => ({
        name: 'exclusive',
        singleton: true,
        firstMs: 0,
        everyMs: 5,
        async run() {
          most = Math.max(most, ++active);
          ran[who]++;
          await sleep(15);
          active--;
        },
      });
      const runnerA = createJobRunner({ store: storeA, logger: logger() });
      const runnerB = createJobRunner({ store: storeB, logger: logger() });
      runnerA.register(spec('a'));
      runnerB.register(spec('b'));
      runnerA.start();
      runnerB.start();
      await until(() => ran.a + ran.b >= 30, 'thirty steps');
      await Promise.all([runnerA.stop(), runnerB.stop()]);
      assert.equal(most, 1, 'never two steps at once');
      assert.ok(ran.a > 0 && ran.b > 0, `both runners ran steps (${ran.a}, ${ran.b})`);
    });
  });
}
