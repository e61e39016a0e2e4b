/**
 * SQLite: a statement that finds the write lock taken by another connection (another server or a
 * CLI command on the same file, or this process's write worker) waits for it without holding the
 * event loop. SQLite's own wait (`busy_timeout`) sleeps in the thread that runs the statement: the
 * whole server stopped with it, 1, 2, 5, 10 ms at a time, for as long as the other connection's
 * transaction lasted (a write of the worker's held every read of the main thread so). So the
 * connection's `busy_timeout` is 0 and the statement is tried again after 1, 2, 4, … ms (at most
 * 16 between two tries) until `timeoutMs` have passed, when its SQLITE_BUSY is the caller's, as
 * SQLite's would have been; meanwhile the connection serves the statements of others (Kysely's
 * one connection is given up while it waits, and taken again for the next try).
 *
 * Only a statement outside a transaction waits so: a `begin immediate` (every write transaction's
 * first statement, db.ts) or a statement on its own. One that could not take its lock changed
 * nothing and may be sent again. Inside a transaction, which holds the write lock from its begin,
 * a statement is not refused for the lock in WAL mode; one that is fails at once.
 *
 * What giving the connection up while waiting means: work of others may run between two
 * statements of one `db.connection()` session that are outside a transaction (the migrator's, the
 * bulk load's: `seed.ts` sets `pragma synchronous = OFF` on the connection for its load, which
 * then holds for what runs between, on a command-line load only), and of two writes sent at once
 * the second may be committed first. The time spent waiting for the connection after a try counts
 * in `timeoutMs`. Statements run on the connection directly (the change feed's reads, read-only
 * in WAL mode) and streamed reads are not tried again; reads find no lock in WAL mode.
 *
 * @example new StoreDb({ dialect: new SqliteInListDialect({ database }, { timeoutMs: 3000, inTransaction: () => connection.inTransaction }) })
 */
import { setTimeout as pause } from 'node:timers/promises';
import { SqliteDriver, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import { storeFault } from './faults.js';

export interface LockWait {
  /** how long a statement waits for the lock in all, in ms */
  timeoutMs: number;
  /** whether the connection is in a transaction now (better-sqlite3's `inTransaction`) */
  inTransaction(): boolean;
  /** told of each wait that ended, with its length in ms and whether the statement then ran (metrics, tests) */
  waited?(ms: number, ran: boolean): void;
}

/** One holder of the connection at a time (as Kysely's own driver has), given up while a statement waits. */
class Turn {
  private held: Promise<void> | undefined;
  private free: (() => void) | undefined;

  async take(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise((resolve) => {
      this.free = resolve;
    });
  }

  give(): void {
    const free = this.free;
    this.held = undefined;
    this.free = undefined;
    free?.();
  }
}

/** Kysely's SQLite driver whose connection waits for another connection's lock as the file's comment says. */
export class LockWaitingSqliteDriver extends SqliteDriver {
  private readonly turn = new Turn();
  private connection: DatabaseConnection | undefined;
  private readonly wait: LockWait;

  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], wait: LockWait) {
    super(config);
    this.wait = wait;
  }

  override async init(): Promise<void> {
    await super.init();
    // The driver's one connection, taken once from the parent (whose own turn is then never used).
    const inner = await super.acquireConnection();
    await super.releaseConnection();
    const { turn, wait } = this;
    this.connection = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        let deadline: number | undefined;
        let started = 0;
        for (let delay = 1; ; delay = Math.min(delay * 2, 16)) {
          try {
            const result = await inner.executeQuery<R>(query);
            if (deadline !== undefined) wait.waited?.(performance.now() - started, true);
            return result;
          } catch (error) {
            if (storeFault(error) !== 'busy' || wait.inTransaction()) {
              // It got past the lock and failed for another reason: the wait is counted as ended.
              if (deadline !== undefined) wait.waited?.(performance.now() - started, true);
              throw error;
            }
            if (deadline === undefined) {
              started = performance.now();
              deadline = started + wait.timeoutMs;
            }
            if (performance.now() >= deadline) {
              wait.waited?.(performance.now() - started, false);
              throw error;
            }
          }
          turn.give();
          try {
            await pause(delay);
          } finally {
            await turn.take();
          }
        }
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.turn.take();
    return this.connection!;
  }

  override async releaseConnection(): Promise<void> {
    this.turn.give();
  }
}
