/**
 * Write transactions: every store write runs in one (`writeTransaction`), which appends what it
 * noted to the change log (`change-notes.ts`) as its last statements and commits them together;
 * a write that lost a race to a concurrent one is run again; a precondition (`withWriteGuard`)
 * runs first inside it. On SQLite the writes waiting for the one connection commit as a group; on
 * PostgreSQL a create can be one statement (`writeStatement`).
 *
 * @example
 *   await writeTransaction(db, async (trx) => {
 *     await updatePost(trx, 42, { title: 'New' }); // notes ('event', 42, 'update') with its before state
 *   });
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Executor } from './schema.js';
import { partsOf, type GroupCommit, type StoreParts } from './handle.js';
import { CALENDAR_SCOPE, calendarIdNow, inCalendar } from './calendar-scope.js';
import { writeCommitCountersOf } from '../metrics.js';
import { importContextRestorer, inImportContext, runImportHook } from './import-context.js';
import { enterDirect, leaveDirect } from './sqlite-direct.js';
import { beginStatementWrite, dropNotes, flushChanges, hasPendingNotes } from './change-notes.js';

/**
 * A write that is one statement on PostgreSQL (an event create, say): `fn` reads what it needs
 * on a handle outside any transaction, notes term count moves, and ends with one store write that
 * writes its records and the change log in one statement (`insertEvent`, with `statementLog`),
 * which PostgreSQL runs and commits alone. That saves the BEGIN and COMMIT round trips, and the
 * log's counter row (which every writer locks, so commits keep the log's order) is held only while
 * the statement runs and commits, never across a round trip to this process: under concurrent
 * writes that hold, not the statements, bounded throughput. A write that lost a race (a slug taken
 * meanwhile: the unique index refused it) is run again as a `writeTransaction`, which locks the
 * slugs it looks at. On SQLite, within an import, or with a precondition to check first, it is a
 * `writeTransaction`.
 *
 * @example const record = await writeStatement(db, async (w) => insertEvent(w, post, details, [], []));
 */
export async function writeStatement<T>(db: Executor, fn: (w: Executor) => Promise<T>): Promise<T> {
  const guard = guards.getStore();
  if (partsOf(db)?.dialect !== 'postgres' || (guard !== undefined && !guard.done) || inImportContext()) return writeTransaction(db, fn);
  const w = db.withoutPlugins().withPlugin(CALENDAR_SCOPE);
  beginStatementWrite(w);
  try {
    const out = await fn(w);
    if (hasPendingNotes(w)) throw new Error('a one-statement write left notes unwritten (it must end with the statement that writes them)');
    const counters = writeCommitCountersOf(db);
    counters.commits++;
    counters.writes++;
    counters.statements++;
    return out;
  } catch (err) {
    if (!isLostRace(err)) throw err;
    countRetry(db, err);
  } finally {
    dropNotes(w);
  }
  return writeTransaction(db, fn);
}

/** How often a write that lost a race is run again before its error is let through. */
const WRITE_ATTEMPTS = 5;

/**
 * Whether an error is a race lost to a concurrent transaction, after which running the whole
 * write again gives the answer a sequential run gives: a unique constraint met (two creates took
 * the same slug: the retry finds it taken and numbers it), a deadlock or a serialization failure,
 * or a row to link to deleted meanwhile (a term deleted after the write's arguments were
 * validated: the retry checks them in its transaction and answers 400)
 * (PostgreSQL 23505, 40P01, 40001, 23503; SQLite, which runs writers one at a time, meets none of these).
 */
export function isLostRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01' || code === '40001' || code === '23503';
}

/**
 * Whether an error is a unique key met (an insert of a key another row holds): PostgreSQL's 23505,
 * SQLite's UNIQUE or PRIMARY KEY constraint; by its message too, for an error that lost its code
 * on the way (from the write thread).
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  return /unique|duplicate key/i.test(String((err as Error | null)?.message ?? ''));
}

function countRetry(db: Executor, err: unknown): void {
  const retries = writeCommitCountersOf(db).retries;
  const code = String((err as { code?: unknown }).code);
  retries[code] = (retries[code] ?? 0) + 1;
}

/** A check run as the first statement of the next write transaction (see `withWriteGuard`). */
const guards = new AsyncLocalStorage<{ check: (trx: Executor) => Promise<void>; done: boolean }>();

/**
 * Run `fn` so that the first write transaction it opens first runs `check` inside that
 * transaction (before any write): a precondition (`If-Match`) that holds atomically with the
 * write. A check that throws rolls the transaction back, so nothing is written.
 *
 * @example await withWriteGuard(async (trx) => assertVersion(trx, 42), () => events.update(viewer, record, input));
 */
export function withWriteGuard<T>(check: (trx: Executor) => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return guards.run({ check, done: false }, fn);
}

/**
 * Run a write in a transaction and log what it touched, in the same transaction. A write that
 * lost a race with a concurrent one (`isLostRace`) was rolled back whole; it is run again, up to
 * five times, so that concurrent requests get the answers sequential ones get (`fn` must not have
 * effects outside the transaction).
 *
 * @example const id = await writeTransaction(db, (trx) => insertPost(trx, post));
 */
export async function writeTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  // A precondition of the caller (`withWriteGuard`: If-Match) is checked by the first write
  // transaction it opens, as that transaction's first statement, on every attempt.
  const guard = guards.getStore();
  const checks = guard !== undefined && !guard.done;
  if (guard) guard.done = true;
  // The write with what runs inside its transaction on its behalf, in the caller's asynchronous
  // context (AsyncLocalStorage: an import's wanted ids and bookkeeping), wherever it runs: a
  // group commit runs it from the group's own turn of the event loop. (An AsyncResource run in its
  // scope, not `AsyncResource.bind` or `AsyncLocalStorage.snapshot`, which on Node 20 make a
  // deprecation wrapper on every call: 2 to 3 % of the CPU of an event create.)
  const callers = new AsyncResource('events-calendar:write');
  const write = async (trx: Executor): Promise<T> => {
    if (checks) await guard!.check(trx);
    const out = await fn(trx);
    // An import's bookkeeping (the import map) commits with the record it wrote (import-context.ts).
    await runImportHook(trx, out);
    return out;
  };
  const work = (trx: Executor): Promise<T> => callers.runInAsyncScope(write, undefined, trx);
  // SQLite runs one write at a time (group commit below): no races to lose there.
  const parts = partsOf(db);
  if (parts?.dialect === 'sqlite') return groupCommitOf(db, parts).run(work as (trx: Executor) => Promise<unknown>) as Promise<T>;
  // A write run again takes its import context's ids and bookkeeping again.
  const restoreImportContext = importContextRestorer();
  for (let attempt = 1; ; attempt++) {
    try {
      return await ownTransaction(db, work, attempt > 1);
    } catch (err) {
      if (attempt >= WRITE_ATTEMPTS || !isLostRace(err)) throw err;
      countRetry(db, err);
      restoreImportContext();
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

/** Transactions that repeat a write which lost a race (see `isRepeatedWrite`). */
const repeatedWrites = new WeakSet<object>();

/**
 * Whether this transaction runs a write again after it lost a race to a concurrent one: look-ups
 * that may race take their lock then (`isSlugTaken`), so that writes contending for one slug take
 * their numbers in turn instead of colliding again; a first attempt relies on the unique indexes.
 */
export function isRepeatedWrite(trx: Executor): boolean {
  return repeatedWrites.has(trx);
}

async function ownTransaction<T>(db: Executor, work: (trx: Executor) => Promise<T>, repeated = false): Promise<T> {
  // The write's own error is the one to answer with: after some errors (SQLITE_FULL, I/O errors)
  // SQLite has already rolled the transaction back, and the ROLLBACK sent after it fails too.
  let failure: { error: unknown } | undefined;
  const out = await db
    .transaction()
    .execute(async (trx) => {
      if (repeated) repeatedWrites.add(trx);
      enterDirect(partsOf(db)?.direct, trx);
      try {
        const out = await work(trx);
        await flushChanges(trx);
        return out;
      } catch (error) {
        failure = { error };
        throw error;
      } finally {
        leaveDirect(trx);
      }
    })
    .catch((error: unknown) => {
      throw failure ? failure.error : error;
    });
  const counters = writeCommitCountersOf(db);
  counters.commits++;
  counters.writes++;
  return out;
}

/** Writes committed together at most (a bound on how long the first of them waits for its answer). */
const GROUP_MAX = 32;

interface QueuedWrite {
  fn: (trx: Executor) => Promise<unknown>;
  /** the calendar of the write (its log rows are that calendar's; the group runs in its own turn) */
  calendar: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * SQLite group commit. A SQLite store has one connection, so writes that arrive while another runs
 * wait for it anyway; instead of one transaction each, the writes waiting when the connection
 * frees up run in one transaction, each in a savepoint of its own: a write that fails is rolled
 * back to its savepoint and answers its error alone, the others go on. One commit (its WAL
 * append, its page writes) then serves them all. Each write still gets its own change log entry
 * (its own sequence number), and none is answered before the commit: nothing acknowledged is
 * lost, and a failed commit fails every write of the group. A write alone runs as before.
 */
function groupCommitOf(db: Executor, parts: StoreParts): GroupCommit {
  let group = parts.groupCommit;
  if (group) return group;
  const queue: QueuedWrite[] = [];
  let draining = false;

  async function runGroup(batch: QueuedWrite[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [QueuedWrite];
      await inCalendar(only.calendar, () => ownTransaction(db, only.fn)).then(only.resolve, only.reject);
      return;
    }
    const done: Array<{ write: QueuedWrite; out: unknown }> = [];
    let trx;
    try {
      trx = await db.startTransaction().execute();
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    // Savepoints run straight on the connection (the transaction holds it): through the query
    // builder each costs as much JavaScript as a small insert. Each write gets a handle of its own
    // on the transaction (its notes and term counts are kept by handle).
    const direct = parts.direct!;
    try {
      for (const write of batch) {
        const point = trx.withoutPlugins().withPlugin(CALENDAR_SCOPE);
        direct.run('savepoint "w"', []);
        enterDirect(direct, point);
        try {
          const out = await write.fn(point);
          await inCalendar(write.calendar, () => flushChanges(point));
          leaveDirect(point);
          direct.run('release "w"', []);
          done.push({ write, out });
        } catch (error) {
          leaveDirect(point);
          dropNotes(point);
          // A statement error leaves the transaction usable: undo this write only. An error that
          // ended the transaction (SQLite rolls back by itself on some) fails the rest too.
          direct.run('rollback to "w"', []);
          direct.run('release "w"', []);
          write.reject(error);
        }
      }
      await trx.commit().execute();
      const counters = writeCommitCountersOf(db);
      counters.commits++;
      counters.writes += done.length;
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      for (const { write } of done) write.reject(error);
      for (const write of batch) if (!done.some((d) => d.write === write)) write.reject(error);
      return;
    }
    for (const { write, out } of done) write.resolve(out);
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length) await runGroup(queue.splice(0, GROUP_MAX));
    } finally {
      draining = false;
    }
  }

  group = {
    run(fn) {
      return new Promise((resolve, reject) => {
        queue.push({ fn, calendar: calendarIdNow(), resolve, reject });
        // Start on the next turn of the event loop: requests whose reads are queued on the
        // connection now reach their write meanwhile and join the group.
        if (!draining) {
          draining = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
  parts.groupCommit = group;
  return group;
}
