/**
 * One-at-a-time locks for background jobs (`src/jobs/runner.ts`, a job declared `singleton`): a
 * job's step runs only while it holds its lock, so servers sharing one database never run that
 * step at the same time.
 *
 * - PostgreSQL: a session advisory lock, `pg_try_advisory_lock(classid, hashtext(schema:name))`,
 *   taken without waiting on a connection of the pool that is kept for the step and released by
 *   `pg_advisory_unlock` after it (a server that dies loses its connection, and the lock with it).
 *   The key includes the current schema, so stores in separate schemas of one database do not
 *   exclude each other. The two-key form is a key space of its own: it never meets the one-key
 *   transaction locks of `locks.ts`.
 * - SQLite: a lease, a row of `job_locks` (migration 040) taken by one atomic upsert that only
 *   replaces a row whose lease has run out, renewed every `RENEW_MS` while the step runs and
 *   deleted by its release. Several servers on one file (processes of their own) thus exclude
 *   each other, as do two stores open on one file in one process (tests); a server that dies
 *   holding one leaves it for at most `LEASE_MS`. Its writes are marked as the service's own state
 *   outside the change log (quiet-writes.ts): the other servers' kept results stay.
 *
 * @example
 *   const lock = await tryJobLock(store, 'change-log-pruning');
 *   if (lock) try { await step(); } finally { await lock.release(); }
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from './db.js';

/** A held lock. `release` never rejects (a lost connection has released it already). */
export interface JobLock {
  release(): Promise<void>;
}

/** The first key of every job lock ("jobs" in ASCII), beside the job's own. */
const JOB_LOCK_CLASS = 0x6a6f6273;

/** SQLite: how long a lease lasts without being renewed (a server that died held it), and how often a held one is renewed (ms). */
export const LEASE_MS = 60_000;
const RENEW_MS = 15_000;

type LockTables = { job_locks: { name: string; holder: string; expires_ms: number | string } };

/** Take the lock named `name` if no one (this server or another) holds it; undefined when one does. */
export async function tryJobLock(store: Pick<Store, 'db' | 'dialect'>, name: string): Promise<JobLock | undefined> {
  if (store.dialect !== 'postgres') {
    const db = store.db.withTables<LockTables>();
    const holder = randomUUID();
    const now = Date.now();
    // One statement: a new row, or the row of a lease that ran out; a live lease is left alone.
    const taken = await db
      .insertInto('job_locks')
      .values({ name, holder, expires_ms: now + LEASE_MS })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_ms: now + LEASE_MS })
          .where('job_locks.expires_ms', '<=', now),
      )
      .executeTakeFirst();
    if (Number(taken.numInsertedOrUpdatedRows ?? 0) === 0) return undefined;
    const renew = setInterval(() => {
      db.updateTable('job_locks')
        .set({ expires_ms: Date.now() + LEASE_MS })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .execute()
        // A closed store or a busy file: the lease runs out by itself (as a dead server's).
        .catch(() => {});
    }, RENEW_MS);
    renew.unref();
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        clearInterval(renew);
        await db
          .deleteFrom('job_locks')
          .where('name', '=', name)
          .where('holder', '=', holder)
          .execute()
          .catch(() => {});
      },
    };
  }
  // PostgreSQL: a connection is kept from the try to the unlock (a session lock belongs to it).
  return new Promise<JobLock | undefined>((resolve, reject) => {
    let unlock!: () => void;
    const releasing = new Promise<void>((r) => (unlock = r));
    let answered = false;
    const session = store.db
      .connection()
      .execute(async (conn) => {
        const got = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${JOB_LOCK_CLASS}, hashtext(current_schema() || ':' || ${name})) as locked`.execute(conn);
        answered = true;
        if (!got.rows[0]?.locked) {
          resolve(undefined);
          return;
        }
        resolve({
          async release() {
            unlock();
            await session;
          },
        });
        await releasing;
        await sql`select pg_advisory_unlock(${JOB_LOCK_CLASS}, hashtext(current_schema() || ':' || ${name}))`.execute(conn);
      })
      .catch((err: unknown) => {
        // Before the answer: the caller hears it. After: the connection is gone, and the lock with it.
        if (!answered) reject(err);
      });
  });
}
