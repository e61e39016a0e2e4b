/**
 * Crash safety (issue 13, item 8): a real `events-calendar serve` child process takes concurrent
 * creates from 6 clients and is killed with SIGKILL in the middle of them, twice per store; after
 * each restart on the same database every acknowledged create (201) is there with its title, and
 * the database is consistent: SQLite's `PRAGMA integrity_check` is `ok` (and its foreign keys
 * hold); on PostgreSQL every event has its detail row and the change log's counter equals its
 * last entry. Writes that were not acknowledged may or may not be there, never half.
 *
 * PostgreSQL runs in a database of its own (`events_crash_<pid>`), dropped afterwards.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../../bench/src/processes.js';
import BetterSqlite3 from 'better-sqlite3';
import { CLI_ENTRY } from '../support/cli-entry.js';

const ROUNDS = 2;
const CLIENTS = 6;
const AUTH = 'Basic ' + Buffer.from('admin:admin-pw').toString('base64');

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startServe(databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...CLI_ENTRY, 'serve'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      CALENDAR_ADMIN_USER: 'admin',
      CALENDAR_ADMIN_PASSWORD: 'admin-pw',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const base = `http://127.0.0.1:${port}/api/calendar/events/v1`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server ended at start-up: ${output.slice(-2000)}`);
    try {
      if ((await fetch(`${base}/events`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not answer within 60 s: ${output.slice(-2000)}`);
    await sleep(100);
  }
  return { child, base, output: () => output };
}

async function kill(server: Server, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const done = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill(signal);
  await done;
}

/** Creates from several clients until the server dies; returns what was acknowledged. */
async function createUntilKilled(server: Server, round: number, killAfterAcks: number): Promise<Map<number, string>> {
  const acknowledged = new Map<number, string>();
  let n = 0;
  let killing: Promise<void> | undefined;
  const client = async (c: number) => {
    for (;;) {
      const i = n++;
      const title = `Crash ${round}/${c}/${i}`;
      let res: Response;
      try {
        res = await fetch(`${server.base}/events`, {
          method: 'POST',
          headers: { authorization: AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({
            title,
            description: `<p>${'text '.repeat(i % 50)}</p>`,
            start_date: `2030-06-${String(1 + (i % 28)).padStart(2, '0')} 10:00`,
            end_date: `2030-06-${String(1 + (i % 28)).padStart(2, '0')} 12:00`,
            categories: [`crash-cat-${i % 5}`],
            venue: { venue: `Crash hall ${i % 4}` },
          }),
        });
      } catch {
        return; // the server is gone
      }
      if (res.status !== 201) {
        const text = await res.text().catch(() => '');
        if (killing) return;
        throw new Error(`create answered ${res.status}: ${text.slice(0, 300)}`);
      }
      let body: { id: number; title: string };
      try {
        body = (await res.json()) as { id: number; title: string };
      } catch {
        return; // killed while the answer was on its way: not acknowledged
      }
      acknowledged.set(body.id, body.title);
      if (acknowledged.size >= killAfterAcks && !killing) killing = kill(server, 'SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  await (killing ?? kill(server, 'SIGKILL'));
  assert.equal(server.child.signalCode, 'SIGKILL');
  return acknowledged;
}

/** Every acknowledged event answers with its title. */
async function assertAllThere(server: Server, acknowledged: Map<number, string>): Promise<void> {
  const missing: string[] = [];
  const ids = [...acknowledged.keys()];
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const res = await fetch(`${server.base}/events/${id}`, { headers: { authorization: AUTH } });
        const body = (await res.json()) as { title?: string };
        if (res.status !== 200 || body.title !== acknowledged.get(id)) missing.push(`${id} (${res.status} ${body.title})`);
      }),
    );
  }
  assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.size} acknowledged creates lost`);
}

function crashRounds(name: string, databaseUrl: () => string, checkConsistency: () => Promise<void>): void {
  it(`keeps every acknowledged create through ${ROUNDS} SIGKILLs during concurrent writes [${name}]`, { timeout: 300_000 }, async () => {
    let total = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServe(databaseUrl());
      const acknowledged = await createUntilKilled(server, round, 40 + round * 20);
      assert.ok(acknowledged.size >= 40, `only ${acknowledged.size} creates before the kill`);
      total += acknowledged.size;
      const restarted = await startServe(databaseUrl());
      try {
        await assertAllThere(restarted, acknowledged);
      } finally {
        await kill(restarted, 'SIGTERM');
      }
      assert.equal(restarted.child.exitCode, 0, restarted.output().slice(-2000));
      await checkConsistency();
    }
    console.log(`crash [${name}]: ${ROUNDS} SIGKILLs, ${total} acknowledged creates, none lost`);
  });
}

describe('crash safety: SIGKILL during concurrent writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-crash-'));
  const file = join(dir, 'crash.db');
  after(() => rmSync(dir, { recursive: true, force: true }));

  crashRounds(
    'sqlite',
    () => `sqlite:${file}`,
    async () => {
      const db = new BetterSqlite3(file);
      try {
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
        assert.deepEqual(db.pragma('foreign_key_check'), []);
      } finally {
        db.close();
      }
    },
  );

  const pgUrl = process.env.TEST_POSTGRES_URL;
  if (pgUrl) {
    const database = `events_crash_${process.pid}`;
    const url = new URL(pgUrl);
    url.pathname = `/${database}`;
    const admin = async <T>(fn: (c: pg.Client) => Promise<T>, target = pgUrl): Promise<T> => {
      const c = new pg.Client({ connectionString: target });
      await c.connect();
      try {
        return await fn(c);
      } finally {
        await c.end();
      }
    };
    before(async () => {
      await admin((c) => c.query(`drop database if exists ${database} with (force)`));
      await admin((c) => c.query(`create database ${database}`));
    });
    after(async () => {
      await admin((c) => c.query(`drop database if exists ${database} with (force)`));
    });
    crashRounds(
      'postgres',
      () => url.toString(),
      async () =>
        admin(async (c) => {
          const orphans = await c.query(`select count(*)::int as n from posts p left join events e on e.post_id = p.id where p.type = 'tribe_events' and e.post_id is null`);
          assert.equal(orphans.rows[0].n, 0, 'every event has its detail row');
          const log = await c.query(`select (select value from change_counter where id = 1)::bigint as counter, (select coalesce(max(seq), 0) from changes)::bigint as last`);
          assert.equal(String(log.rows[0].counter), String(log.rows[0].last), 'the change log ends at its counter');
        }, url.toString()),
    );
  }
});
