/**
 * The fair share between calendars (src/web/fair-share.ts): a calendar alone is never held back;
 * while another calendar asks, each works on at most `share` requests and its others wait, first
 * come first served; a request released while it waited never starts; a waiting request starts
 * in its own asynchronous context; an idle calendar is forgotten. The same share in turns of the
 * event loop: a busy calendar starts at most its share per turn while another asks, the rest in
 * later turns, in order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createFairShare, createTurnShare, type Ticket } from '../../src/web/fair-share.js';

/** A clock the test moves. */
function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('fair share between calendars', () => {
  it('never holds back a calendar alone, however many requests it has', () => {
    const c = clock();
    const fair = createFairShare({ share: 2, now: c.now });
    const started: number[] = [];
    for (let i = 0; i < 10; i++) fair.admit(1, () => started.push(i));
    assert.equal(started.length, 10);
    assert.deepEqual(fair.stats(), { calendars: 1, working: 10, waiting: 0, waited: 0, lanes: 1 });
  });

  it('holds a busy calendar to its share while another asks, and lets the other through at once', () => {
    const c = clock();
    const fair = createFairShare({ share: 2, now: c.now });
    const order: string[] = [];
    const tickets: Ticket[] = [];
    // The busy calendar's requests arrive while a quiet one's request is at work.
    const quiet = fair.admit(2, () => order.push('quiet 1'));
    for (let i = 1; i <= 5; i++) tickets.push(fair.admit(1, () => order.push(`busy ${i}`)));
    assert.deepEqual(order, ['quiet 1', 'busy 1', 'busy 2']);
    assert.equal(fair.stats().waiting, 3);
    // Another request of the quiet calendar does not wait behind the busy one's queue.
    fair.admit(2, () => order.push('quiet 2'));
    assert.equal(order.at(-1), 'quiet 2');
    // The busy calendar's next waits for one of its own to finish, in the order they came.
    tickets[0]!.release();
    assert.deepEqual(order.slice(-1), ['busy 3']);
    tickets[0]!.release(); // twice: nothing more
    assert.equal(order.length, 5);
    quiet.release();
    tickets[1]!.release();
    assert.deepEqual(order.slice(-1), ['busy 4']);
    assert.equal(fair.stats().waited, 3);
  });

  it('lets a calendar use every place once the others are quiet past the window', () => {
    const c = clock();
    const fair = createFairShare({ share: 1, windowMs: 1000, now: c.now });
    const order: string[] = [];
    fair.admit(2, () => order.push('other')).release();
    const first = fair.admit(1, () => order.push('a'));
    fair.admit(1, () => order.push('b'));
    // The other calendar asked a moment ago: b waits.
    assert.deepEqual(order, ['other', 'a']);
    c.advance(1500);
    // It has been quiet past the window: when a finishes, b starts, and c does not wait.
    first.release();
    fair.admit(1, () => order.push('c'));
    assert.deepEqual(order, ['other', 'a', 'b', 'c']);
    // The quiet calendar's lane is forgotten (no structure per calendar kept).
    assert.equal(fair.stats().calendars, 1);
  });

  it('drops a request released while it waited (its connection closed): it never starts', () => {
    const c = clock();
    const fair = createFairShare({ share: 1, now: c.now });
    const order: string[] = [];
    fair.admit(2, () => order.push('other'));
    const first = fair.admit(1, () => order.push('a'));
    const gone = fair.admit(1, () => order.push('gone'));
    fair.admit(1, () => order.push('c'));
    gone.release();
    assert.equal(fair.stats().waiting, 1);
    first.release();
    assert.deepEqual(order, ['other', 'a', 'c']);
  });

  it('starts a waiting request in its own context, not in the one of the request that made room', () => {
    const c = clock();
    const fair = createFairShare({ share: 1, now: c.now });
    const context = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    fair.admit(2, () => {});
    const first = context.run('first', () => fair.admit(1, () => seen.push(context.getStore())));
    context.run('second', () => fair.admit(1, () => seen.push(context.getStore())));
    context.run('releaser', () => first.release());
    assert.deepEqual(seen, ['first', 'second']);
  });

  it('holds nothing back with a share of 0', () => {
    const fair = createFairShare({ share: 0 });
    let n = 0;
    fair.admit(2, () => n++);
    for (let i = 0; i < 5; i++) fair.admit(1, () => n++);
    assert.equal(n, 6);
  });
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('fair share between calendars, in turns of the event loop', () => {
  it('starts every request of a calendar alone at once', () => {
    const turns = createTurnShare({ perTurn: 2 });
    let n = 0;
    for (let i = 0; i < 10; i++) turns.enter('busy', () => n++);
    assert.equal(n, 10);
    assert.equal(turns.stats().deferred, 0);
  });

  it("starts a busy calendar's share per turn while another asks, the other's request at once, the rest in later turns and in order", async () => {
    const turns = createTurnShare({ perTurn: 2 });
    const order: string[] = [];
    turns.enter('quiet', () => order.push('quiet 1'));
    for (let i = 1; i <= 5; i++) turns.enter('busy', () => order.push(`busy ${i}`));
    turns.enter('quiet', () => order.push('quiet 2'));
    assert.deepEqual(order, ['quiet 1', 'busy 1', 'busy 2', 'quiet 2']);
    assert.equal(turns.stats().deferred, 3);
    await turn();
    assert.deepEqual(order.slice(4), ['busy 3', 'busy 4']);
    await turn();
    assert.deepEqual(order.slice(6), ['busy 5']);
  });

  it('starts a deferred request in its own context', async () => {
    const turns = createTurnShare({ perTurn: 1 });
    const context = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    turns.enter('quiet', () => {});
    context.run('first', () => turns.enter('busy', () => seen.push(context.getStore())));
    context.run('second', () => turns.enter('busy', () => seen.push(context.getStore())));
    await turn();
    assert.deepEqual(seen, ['first', 'second']);
  });

  it('keeps no lane of the calendars asked once and quiet since (one request in each of thousands)', () => {
    let t = 0;
    const fair = createFairShare({ share: 2, windowMs: 1000, now: () => t });
    const turns = createTurnShare({ perTurn: 2, windowMs: 1000, now: () => t });
    for (let i = 0; i < 10_000; i++) {
      fair.admit(i, () => {}).release();
      turns.enter(`c${i}`, () => {});
      t += 10;
    }
    // Those of the last second at most (100 a second here), and a sweep's worth.
    assert.ok(fair.stats().lanes <= 100 + 64, String(fair.stats().lanes));
    assert.ok(turns.stats().calendars <= 100 + 64, String(turns.stats().calendars));
  });

  it('holds nothing back with a share of 0', () => {
    const turns = createTurnShare({ perTurn: 0 });
    let n = 0;
    turns.enter('quiet', () => n++);
    for (let i = 0; i < 5; i++) turns.enter('busy', () => n++);
    assert.equal(n, 6);
  });
});
