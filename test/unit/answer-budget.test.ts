import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAnswerBudget, SMALL_ANSWER_BYTES } from '../../src/domain/answer-budget.js';
import { ApiError } from '../../src/domain/errors.js';

const MB = 1024 * 1024;

describe('answer budget (RESPONSE_MEMORY_MB)', () => {
  it('lets answers through while they fit, queues the rest in order, and wakes them as memory comes back', async () => {
    const budget = createAnswerBudget(10 * MB);
    const first = await budget.acquire(6 * MB);
    const second = await budget.acquire(4 * MB);
    const order: string[] = [];
    const third = budget.acquire(3 * MB).then((r) => (order.push('third'), r));
    const fourth = budget.acquire(2 * MB).then((r) => (order.push('fourth'), r));
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(order, []);
    assert.equal(budget.usage().waiting, 2);
    first();
    (await third)();
    (await fourth)();
    second();
    assert.deepEqual(order, ['third', 'fourth']);
    assert.equal(budget.usage().bytes, 0);
    assert.ok(budget.usage().peakBytes <= 10 * MB);
  });
  it('runs an answer larger than the whole budget alone, and does not count small answers', async () => {
    const budget = createAnswerBudget(4 * MB);
    const small = await budget.acquire(SMALL_ANSWER_BYTES - 1);
    const huge = await budget.acquire(100 * MB);
    assert.deepEqual([budget.usage().bytes, budget.usage().holders], [4 * MB, 1]);
    let got = false;
    const next = budget.acquire(2 * MB).then((r) => ((got = true), r));
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(got, false);
    huge();
    huge(); // twice is harmless
    (await next)();
    small();
    assert.equal(budget.usage().bytes, 0);
  });
  it('answers 503 rest_server_busy with Retry-After to an answer that waited too long', async () => {
    const budget = createAnswerBudget(2 * MB, { waitMs: 20 });
    const held = await budget.acquire(2 * MB);
    await assert.rejects(budget.acquire(2 * MB), (e: unknown) => e instanceof ApiError && e.status === 503 && e.code === 'rest_server_busy' && e.headers['retry-after'] === '1');
    assert.equal(budget.usage().waiting, 0);
    held();
  });
});
