/**
 * Issue 9: the hot statements of a SQLite write transaction run straight on the connection
 * (sqlite-direct.ts). Only a write transaction's handle has direct access, only while it runs; the
 * rows it writes are the rows the query builder writes; a write that fails in a group commit is
 * still undone alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/domain/services.js';
import { viewerOf } from '../../src/domain/permissions.js';
import { writeTransaction } from '../../src/store/changes.js';
import { openStore, type Store } from '../../src/store/db.js';
import { insertPost } from '../../src/store/posts.js';
import { findEventsByIds } from '../../src/store/events.js';
import { directOf } from '../../src/store/sqlite-direct.js';
import type { Executor, NewPost } from '../../src/store/schema.js';

describe('SQLite direct statements in write transactions', () => {
  let dir: string;
  let store: Store;
  let services: Services;
  const admin = viewerOf({ id: 1, login: 'admin', role: 'administrator' });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-direct-'));
    const url = `sqlite:${join(dir, 'calendar.db')}`;
    store = await openStore(url);
    services = createServices(loadConfig({ DATABASE_URL: url }), store);
    await services.users.ensureAdmin('admin', 'a long enough password');
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (title: string): NewPost => ({
    type: 'tribe_venue',
    author_id: 1,
    status: 'publish',
    title,
    content: 'Über <em>alles</em>',
    excerpt: '',
    slug: title.toLowerCase(),
    date_local: '2027-01-02 03:04:05',
    date_gmt: '2027-01-02 03:04:05',
    modified_local: '2027-01-02 03:04:05',
    modified_gmt: '2027-01-02 03:04:05',
  });

  it('is given to write transactions only, while they run', async () => {
    assert.equal(directOf(store.db), undefined, 'the root handle reads through the query builder');
    let inside: Executor | undefined;
    await writeTransaction(store.db, async (trx) => {
      inside = trx;
      assert.ok(directOf(trx), 'a write transaction has direct access');
    });
    assert.equal(directOf(inside!), undefined, 'not after it ended');
  });

  it('writes the rows the query builder writes', async () => {
    const direct = await writeTransaction(store.db, (trx) => insertPost(trx, post('Direct')));
    // Outside a transaction the same function goes through the query builder.
    const built = await insertPost(store.db, post('Built'));
    const rows = await store.db.selectFrom('posts').selectAll().where('id', 'in', [direct, built]).orderBy('id').execute();
    assert.equal(rows.length, 2);
    const strip = (r: Record<string, unknown>) => ({ ...r, id: 0, title: '', slug: '' });
    assert.deepEqual(strip(rows[0]!), strip(rows[1]!));
  });

  it('creates events whose records read back the same inside and outside the transaction', async () => {
    let inside: unknown;
    const created = await services.events.create(admin, { title: 'Jazz', start_date: '2027-03-05 20:00:00', end_date: '2027-03-05 22:00:00', status: 'publish', categories: ['music'] });
    await writeTransaction(store.db, async (trx) => {
      inside = (await findEventsByIds(trx, [Number(created.id)]))[0];
    });
    assert.deepEqual(inside, (await findEventsByIds(store.db, [Number(created.id)]))[0]);
    assert.deepEqual(created, inside);
  });

  it("answers with a write's own error when SQLite has already rolled its transaction back", async () => {
    // As after SQLITE_FULL or an I/O error: the ROLLBACK that follows fails too, and must not hide the cause.
    await assert.rejects(
      writeTransaction(store.db, async (trx) => {
        directOf(trx)!.run('rollback', []);
        throw new Error('the write failed');
      }),
      /the write failed/,
    );
    const id = await writeTransaction(store.db, (trx) => insertPost(trx, post('After')));
    assert.ok(id > 0, 'the connection serves on');
  });

  it('still undoes only the write that fails when writes share a commit', async () => {
    const ok = services.events.create(admin, { title: 'Kept', start_date: '2027-03-05 20:00:00', end_date: '2027-03-05 22:00:00', status: 'publish' });
    // A post with the id of an existing one fails on the primary key after its first statements.
    const failing = writeTransaction(store.db, async (trx) => {
      const id = await insertPost(trx, post('Undone'));
      await insertPost(trx, { ...post('Clash'), id } as NewPost);
    });
    const [kept, failed] = await Promise.allSettled([ok, failing]);
    assert.equal(kept.status, 'fulfilled');
    assert.equal(failed.status, 'rejected');
    const titles = (await store.db.selectFrom('posts').select('title').execute()).map((r) => r.title);
    assert.ok(titles.includes('Kept'));
    assert.ok(!titles.includes('Undone'), 'the failed write left nothing');
  });
});
