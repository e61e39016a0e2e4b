/**
 * Federation's jobs as the face hands them to the composition root: their names (the `job` label
 * of the runner's metrics), schedules, backoff and one-at-a-time rule, and how each is woken by
 * name through the runner's `nudge` (deliveries queued, a commit in the change log), the change
 * log's subscription dropped when the outbox job stops. Run on a real runner: the specs register
 * and the nudges reach the jobs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FederationStore } from '../../src/domain/federation-store.js';
import { FEDERATION_JOBS, federationJobs } from '../../src/federation/jobs.js';
import { createJobRunner } from '../../src/jobs/runner.js';

function harness() {
  const nudged: string[] = [];
  const wakes: Array<() => void> = [];
  let unsubscribed = 0;
  let onDeliveriesQueued: () => void = () => {};
  let onOutboxQueued: () => void = () => {};
  let deliveriesNudged = 0;
  const store = {
    subscribeToChanges(wake: () => void, options: { pollMs: number }) {
      assert.equal(options.pollMs, 1_000);
      wakes.push(wake);
      return () => {
        unsubscribed++;
      };
    },
    claimMessages: async () => [],
  } as unknown as FederationStore;
  const specs = federationJobs({
    store,
    federation: {} as never,
    deliveries: {
      onQueued: (n: () => void) => {
        onDeliveriesQueued = n;
      },
      nudge: () => {
        deliveriesNudged++;
      },
      deliverDue: async () => false,
    } as never,
    outbox: {
      onQueued: (n: () => void) => {
        onOutboxQueued = n;
      },
      step: async () => false,
    } as never,
    kv: { purge: async () => 0 } as never,
    logger: { warn() {} },
    retrySchedule: [60_000, 300_000, 1_800_000],
    nudge: (name) => nudged.push(name),
  });
  return {
    specs,
    nudged,
    wakes,
    unsubscribed: () => unsubscribed,
    deliveriesQueued: () => onDeliveriesQueued(),
    outboxQueued: () => onOutboxQueued(),
    deliveriesNudged: () => deliveriesNudged,
  };
}

describe('federation jobs', () => {
  it('are three specs with the names, schedules and rules of before', () => {
    const { specs } = harness();
    assert.deepEqual(
      specs.map((s) => ({ name: s.name, everyMs: s.everyMs, singleton: s.singleton ?? false, backoff: s.backoff })),
      [
        { name: 'federation-delivery', everyMs: 5_000, singleton: false, backoff: { initialMs: 1_000, maxMs: 60_000 } },
        { name: 'federation-inbox', everyMs: 1_000, singleton: false, backoff: { initialMs: 1_000, maxMs: 60_000 } },
        { name: 'federation-outbox', everyMs: 1_000, singleton: true, backoff: { initialMs: 1_000, maxMs: 60_000 } },
      ],
    );
    assert.deepEqual(Object.values(FEDERATION_JOBS), ['federation-delivery', 'federation-inbox', 'federation-outbox']);
  });

  it('polls deliveries at half the shortest retry delay, between 100 ms and 5 s', () => {
    const short = federationJobs({
      store: { subscribeToChanges: () => () => {} } as unknown as FederationStore,
      federation: {} as never,
      deliveries: { onQueued() {}, nudge() {} } as never,
      outbox: { onQueued() {} } as never,
      kv: {} as never,
      logger: { warn() {} },
      retrySchedule: [50, 1_000],
      nudge() {},
    });
    assert.equal(short[0]!.everyMs, 100);
    const mid = federationJobs({
      store: { subscribeToChanges: () => () => {} } as unknown as FederationStore,
      federation: {} as never,
      deliveries: { onQueued() {}, nudge() {} } as never,
      outbox: { onQueued() {} } as never,
      kv: {} as never,
      logger: { warn() {} },
      retrySchedule: [3_000],
      nudge() {},
    });
    assert.equal(mid[0]!.everyMs, 1_500);
  });

  it('wakes each job by name: deliveries when one is queued, the outbox after a commit', () => {
    const h = harness();
    h.deliveriesQueued();
    assert.equal(h.wakes.length, 1);
    h.wakes[0]!();
    assert.deepEqual(h.nudged, ['federation-delivery', 'federation-outbox']);
    // What the outbox queued goes to the deliveries' own wake-up.
    h.outboxQueued();
    assert.equal(h.deliveriesNudged(), 1);
  });

  it('register on a runner, and the outbox job drops its subscription when it stops', async () => {
    const h = harness();
    const runner = createJobRunner({ logger: { warn() {} } });
    for (const spec of h.specs.filter((s) => !s.singleton)) runner.register(spec);
    const outbox = runner.register({ ...h.specs[2]!, singleton: false });
    assert.ok(runner.job('federation-delivery'));
    assert.ok(runner.job('federation-inbox'));
    assert.deepEqual(await runner.job('federation-inbox')!.runOnce(), {});
    assert.equal(h.unsubscribed(), 0);
    await outbox.stop();
    assert.equal(h.unsubscribed(), 1);
    await runner.stop();
  });
});
