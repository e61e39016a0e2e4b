/**
 * Child script of test/stability/native-binding.test.ts, run as
 * `node --expose-gc --import tsx test/support/statement-churn.ts DIR`: it does what made
 * better-sqlite3 12.x abort the process on Node 24.19+ (`Assertion failed: (env) != nullptr` in
 * `node::RemoveEnvironmentCleanupHook`, from `Statement::~Statement()`), i.e. statements
 * finalised by the garbage collector outside JavaScript. It prints `ok` and exits by itself; an
 * abort shows as the signal SIGABRT (or SIGSEGV) in the parent.
 *
 * * many distinct statements through the store's statement cache (500 kept), so most are evicted
 *   and left to the collector, which finalises them in collections V8 starts by itself (with
 *   12.x on Node 24.21 this aborts within the first round), then collections run as event-loop
 *   tasks (`execution: 'async'`) and from JavaScript;
 * * the list-totals worker (background reader, a connection of its own with its own statements)
 *   started, used and stopped, several times;
 * * a database closed and reopened, with statements of the closed one left to the collector;
 * * statements still referenced at exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { backgroundReaderOf } from '../../src/store/handle.js';

type Gc = (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void | Promise<void>;
const gc = (globalThis as { gc?: Gc }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const dir = process.argv[2];
if (!dir) throw new Error('usage: statement-churn.ts DIR');
const url = `sqlite:${join(dir, 'churn.db')}`;

/** Run `count` queries of distinct text: distinct statements, all but the last 500 evicted. */
async function churn(store: Store, round: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const r = await sql<{ n: number }>`select ${sql.raw(String(i))} + ${round} as n, count(*) as c from users where id > ${i}`.execute(store.db);
    if (r.rows[0]?.n !== i + round) throw new Error(`wrong answer at ${i}`);
  }
}

/**
 * Garbage collection outside JavaScript, as the idle collector does it: `execution: 'async'` runs
 * the collection as a task of the event loop, with no JavaScript on the stack (this is where 12.x
 * aborted on Node 24). Then a collection called from JavaScript, then an idle pause.
 */
async function idleCollect(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await gc!({ type: 'major', execution: 'async' });
    await gc!({ type: 'minor', execution: 'async' });
    gc!();
    await sleep(20);
  }
}

const kept: unknown[] = [];

for (let round = 0; round < 3; round++) {
  const store = await openStore(url);
  await churn(store, round, 6000);
  await idleCollect(5);

  const reader = backgroundReaderOf(store.db);
  if (!reader) throw new Error('no background reader on a SQLite file');
  for (let i = 0; i < 300; i++) {
    const rows = await reader.all<{ n: number }>(`select count(*) + ${i} as n from posts`, []);
    if (rows[0]?.n !== i) throw new Error('background reader answered wrongly');
  }
  await reader.close(); // the worker and its connection go, statements unfinalised
  const again = await reader.all<{ n: number }>('select count(*) as n from users', []); // restarts it
  if (again.length !== 1) throw new Error('background reader did not restart');
  await idleCollect(3);

  kept.push(store.db); // the closed database's handle stays reachable for a while
  await store.close();
  await idleCollect(5);
}

// Statements of an open store left for process exit (the reader's worker too).
const last = await openStore(url);
await churn(last, 9, 3000);
await backgroundReaderOf(last.db)!.all('select count(*) as n from posts', []);
kept.length = 0;
gc();
console.log('ok');
