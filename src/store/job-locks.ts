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
 * - SQLite: one process owns the file (the service does not share a SQLite file between
 *   processes), so a lock held in this process is enough; it is keyed by the file, so two stores
 *   open on one file in one process (tests) exclude each other as well. In-memory databases are
 *   each their own.
 *
 * @example
 *   const lock = await tryJobLock(store, 'change-log-pruning');
 *   if (lock) try { await step(); } finally { await lock.release(); }
 */
import { sql } from 'kysely';
import type { Store } from './db.js';

/** A held lock. `release` never rejects (a lost connection has released it already). */
export interface JobLock {
  release(): Promise<void>;
}

/** The first key of every job lock ("jobs" in ASCII), beside the job's own. */
const JOB_LOCK_CLASS = 0x6a6f6273;

/** SQLite: locks held in this process, by file (or by store, for in-memory databases). */
const heldByFile = new Map<string, Set<string>>();
const heldInMemory = new WeakMap<object, Set<string>>();

function sqliteHeld(store: Store): Set<string> {
  if (store.describe === 'sqlite::memory:') {
    let held = heldInMemory.get(store.db);
    if (!held) heldInMemory.set(store.db, (held = new Set()));
    return held;
  }
  let held = heldByFile.get(store.describe);
  if (!held) heldByFile.set(store.describe, (held = new Set()));
  return held;
}

/** Take the lock named `name` if no one (this server or another) holds it; undefined when one does. */
export async function tryJobLock(store: Pick<Store, 'db' | 'dialect' | 'describe'>, name: string): Promise<JobLock | undefined> {
  if (store.dialect !== 'postgres') {
    const held = sqliteHeld(store as Store);
    if (held.has(name)) return undefined;
    held.add(name);
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        held.delete(name);
        if (held.size === 0 && store.describe !== 'sqlite::memory:') heldByFile.delete(store.describe);
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
