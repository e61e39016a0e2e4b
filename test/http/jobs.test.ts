/**
 * The server's background jobs run on one runner (src/jobs/runner.ts): each job is counted in
 * /metrics by name, and stopping one job leaves the others running.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';

/** The value of a metric line with these labels (exact label text), or undefined. */
function metric(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

forEachStore(
  'background jobs on the runner',
  (t) => {
    it('/metrics counts each job’s runs, failures, durations and last success, by job name', async () => {
      assert.equal(await t.built.horizonJob.runOnce(), 0);
      assert.equal(await t.built.pruneJob.runOnce(), 0);
      await t.built.webhookWorker!.runOnce();
      assert.deepEqual(await t.built.sharedLimitsJob.runOnce(), { value: 0 });
      const text = await (await fetch(`${t.origin}/metrics`)).text();
      for (const job of ['occurrence-horizon', 'change-log-pruning', 'webhook-delivery', 'shared-limits-pruning']) {
        const labels = `job="${job}"`;
        assert.ok((metric(text, 'calendar_job_runs_total', labels) ?? 0) >= 1, `${job} runs\n${text.slice(0, 500)}`);
        assert.equal(metric(text, 'calendar_job_failures_total', labels) ?? 0, 0);
        assert.ok((metric(text, 'calendar_job_run_duration_seconds_count', labels) ?? 0) >= 1);
        const last = metric(text, 'calendar_job_last_success_timestamp_seconds', labels) ?? 0;
        assert.ok(Math.abs(last - Date.now() / 1000) < 60, `${job} last success ${last}`);
      }
    });

    it('stopping one job leaves the others on their schedule', async () => {
      await t.built.horizonJob.stop();
      const runs = async () => metric(await (await fetch(`${t.origin}/metrics`)).text(), 'calendar_job_runs_total', 'job="webhook-delivery"') ?? 0;
      const before = await runs();
      // The webhook worker polls every 50 ms under this retry schedule.
      const end = Date.now() + 10_000;
      while ((await runs()) <= before && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      assert.ok((await runs()) > before);
      // A stopped job's handle still runs a step on demand (tests and tools use it).
      assert.equal(await t.built.horizonJob.runOnce(), 0);
    });
  },
  { WEBHOOKS_RETRY_SCHEDULE: '100ms' },
);
