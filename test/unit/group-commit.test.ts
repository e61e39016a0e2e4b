/**
 * Issue 9: on SQLite, writes that wait together share one commit (group commit in
 * `writeTransaction`), each in a savepoint of its own: a write that fails undoes only itself, every
 * write keeps its own change log entry, and none is answered before the commit.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { viewerOf } from '../../src/domain/permissions.js';
import { writeCommitCountersOf } from '../../src/metrics.js';
import { headOf as lastSeq } from '../../src/store/change-log.js';
import { noteChange } from '../../src/store/change-notes.js';
import { writeTransaction } from '../../src/store/changes.js';
import { readChanges } from '../../src/store/change-log.js';
import { openStore, type Store } from '../../src/store/db.js';
import { insertPost } from '../../src/store/posts.js';
import { withImportContext } from '../../src/store/import-context.js';

describe('SQLite group commit', () => {
  let dir: string;
  let store: Store;
  let services: Services;
  const admin = viewerOf({ id: 1, login: 'admin', role: 'administrator' });
  const event = (title: string) => ({ title, start_date: '2027-03-05 20:00:00', end_date: '2027-03-05 22:00:00', status: 'publish' });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    const url = `sqlite:${join(dir, 'calendar.db')}`;
    store = await openStore(url);
    services = createServices(loadConfig({ DATABASE_URL: url }), store);
    await services.users.ensureAdmin('admin', 'a long enough password');
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits writes that arrive together once, undoing only the one that fails', async () => {
    const counters = writeCommitCountersOf(store.db);
    const before = { ...counters };
    const seq0 = await lastSeq(store.db);
    const failing = writeTransaction(store.db, async (trx) => {
      const id = await insertPost(trx, {
        type: 'tribe_events',
        author_id: 1,
        status: 'publish',
        title: 'Never written',
        content: '',
        excerpt: '',
        slug: 'never-written',
        date_local: '2027-01-01 00:00:00',
        date_gmt: '2027-01-01 00:00:00',
        modified_local: '2027-01-01 00:00:00',
        modified_gmt: '2027-01-01 00:00:00',
      });
      await noteChange(trx, 'event', id, 'create');
      throw new Error('boom');
    });
    const results = await Promise.allSettled([
      services.events.create(admin, event('First')),
      services.events.create(admin, event('Second')),
      failing,
      services.events.create(admin, event('Third')),
      services.events.create(admin, event('Fourth')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((results[2] as PromiseRejectedResult).reason), /boom/);
    assert.equal(counters.commits - before.commits, 1, 'one commit for the group');
    assert.equal(counters.writes - before.writes, 4, 'four writes answered by it');

    const titles = (await store.db.selectFrom('posts').select('title').where('type', '=', 'tribe_events').orderBy('id').execute()).map((r) => r.title);
    assert.deepEqual(titles, ['First', 'Second', 'Third', 'Fourth'], 'the failed write left nothing');
    const changes = (await readChanges(store.db, seq0, Number.MAX_SAFE_INTEGER, 100)).rows;
    const created = changes.filter((c) => c.type === 'event' && c.action === 'create');
    assert.equal(created.length, 4);
    assert.equal(new Set(created.map((c) => c.seq)).size, 4, 'each write has its own sequence number');
    const ids = (results.filter((r) => r.status === 'fulfilled') as Array<PromiseFulfilledResult<{ id: number }>>).map((r) => Number(r.value.id));
    assert.deepEqual(
      created.map((c) => c.id),
      ids,
      'in the order they were answered',
    );
  });

  it("runs each write of a group in its caller's asynchronous context (an import's wanted ids)", async () => {
    const counters = writeCommitCountersOf(store.db);
    const before = { ...counters };
    const [a, b] = await Promise.all([
      withImportContext({ wanted: { post: 5000 } }, () => services.events.create(admin, event('Wants 5000'))),
      withImportContext({ wanted: { post: 6000 } }, () => services.events.create(admin, event('Wants 6000'))),
    ]);
    assert.equal(counters.commits - before.commits, 1, 'one group');
    assert.deepEqual([Number(a.id), Number(b.id)], [5000, 6000]);
  });

  it('runs a write alone in a transaction of its own, as before', async () => {
    const counters = writeCommitCountersOf(store.db);
    const before = { ...counters };
    await services.events.create(admin, event('Alone'));
    await services.events.create(admin, event('Alone again'));
    assert.equal(counters.commits - before.commits, 2);
    assert.equal(counters.writes - before.writes, 2);
  });
});
