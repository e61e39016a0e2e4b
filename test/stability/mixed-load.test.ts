/**
 * The server survives a minute of mixed load with statement churn (issue 18): a real
 * `events-calendar serve` in a child process on a SQLite file, four clients for about 60 s
 * (`STABILITY_SECONDS`) sending reads of many distinct query shapes (an `include` list of varying
 * length is a new SQL text each time, so the statement cache keeps evicting), list totals (the
 * background worker), and creates, updates and deletes. The process must stay alive, answer
 * without 5xx, and exit 0 on SIGTERM, never by a signal (better-sqlite3 12.x on Node 24.19+
 * aborted here as the collector finalised evicted statements).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/src/processes.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const SECONDS = Number(process.env.STABILITY_SECONDS ?? 60);
const AUTH = 'Basic ' + Buffer.from('admin:admin-pw').toString('base64');

describe(`server under ${SECONDS} s of mixed load with statement churn`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-load-'));
  let child: ChildProcess;
  let base = '';
  let stderr = '';
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const exitInfo = () => `exit code ${child.exitCode}, signal ${child.signalCode}\n${stderr.slice(-2000)}`;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api/calendar/events/v1`;
    child = spawn(process.execPath, [...CLI_ENTRY, 'serve'], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(dir, 'load.db')}`,
        CALENDAR_ADMIN_USER: 'admin',
        CALENDAR_ADMIN_PASSWORD: 'admin-pw',
        LOG_LEVEL: 'warn',
        // On a machine this busy, closing may take a while: what is tested is a clean exit, not its speed.
        SHUTDOWN_TIMEOUT_MS: '60000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Logs (warnings and errors: LOG_LEVEL=warn) go to stdout; both streams explain an exit.
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exited()) throw new Error(`server ended at start-up: ${exitInfo()}`);
      try {
        if ((await fetch(`${base}/events`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error('server did not answer within 60 s');
      await sleep(200);
    }
  });

  after(async () => {
    if (child && !exited()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays alive, answers without 5xx, and exits 0 on SIGTERM', async () => {
    const ids: number[] = [];
    let requests = 0;
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      requests++;
      statuses.set(`${method} ${path.split('?')[0].replace(/\d+/g, 'N')} ${res.status}`, (statuses.get(`${method} ${path.split('?')[0].replace(/\d+/g, 'N')} ${res.status}`) ?? 0) + 1);
      if (res.status >= 500 && failures.length < 10) failures.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    };

    let n = 0;
    const step = async (client: number): Promise<void> => {
      const i = n++;
      switch (i % 8) {
        case 0: {
          const day = String(1 + (i % 28)).padStart(2, '0');
          const r = await call('POST', '/events', {
            title: `Load ${client}/${i}`,
            start_date: `2027-03-${day} 10:00`,
            end_date: `2027-03-${day} 12:00`,
            categories: [`cat-${i % 7}`],
            tags: [`tag-${i % 5}`],
            venue: { venue: `Hall ${i % 6}` },
          });
          if (r.status === 201) ids.push(r.json.id);
          break;
        }
        case 1:
          if (ids.length) await call('POST', `/events/${ids[i % ids.length]}`, { title: `Updated ${i}`, description: `<p>${i}</p>` });
          break;
        case 2:
          if (ids.length > 20) await call('DELETE', `/events/${ids.splice(i % ids.length, 1)[0]}`);
          break;
        case 3: {
          // A list of ids of varying length: a new SQL text (statement) for most lengths.
          const count = 1 + ((i * 7919) % 1500);
          await call('GET', `/events?include=${Array.from({ length: count }, (_, k) => k + 1).join(',')}`);
          break;
        }
        case 4:
          await call('GET', `/events?per_page=${1 + (i % 50)}&page=1&start_date=2027-03-${String(1 + (i % 20)).padStart(2, '0')}&end_date=2027-04-01`);
          break;
        case 5:
          await call('GET', `/events?search=Load%20${i % 11}&per_page=${1 + (i % 9)}`);
          break;
        case 6:
          await call('GET', i % 16 === 6 ? '/venues?per_page=20' : '/organizers?per_page=20');
          break;
        default:
          await call('GET', `/categories?per_page=${1 + (i % 30)}&hide_empty=${i % 2 ? 'true' : 'false'}`);
      }
    };

    const end = Date.now() + SECONDS * 1000;
    const clients = Array.from({ length: 4 }, async (_, client) => {
      while (Date.now() < end && !exited()) {
        try {
          await step(client);
        } catch (e) {
          if (exited()) return;
          if (failures.length < 10) failures.push(String(e));
        }
      }
    });
    let checks = 0;
    while (Date.now() < end) {
      await sleep(Math.min(5_000, Math.max(0, end - Date.now())));
      assert.ok(!exited(), `server died after ${requests} requests: ${exitInfo()}`);
      checks++;
    }
    await Promise.all(clients);

    assert.ok(!exited(), `server died after ${requests} requests: ${exitInfo()}`);
    if (process.env.STABILITY_DEBUG) console.log(statuses);
    assert.ok(checks >= 1);
    assert.ok(requests > SECONDS * 10, `only ${requests} requests in ${SECONDS} s`);
    assert.deepEqual(failures, [], 'no request failed or answered 5xx');
    const list = await fetch(`${base}/events`);
    assert.equal(list.status, 200, 'still answering');
    await list.arrayBuffer(); // an answer left unread keeps its request in flight

    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await done;
    assert.equal(child.signalCode, null, exitInfo());
    assert.equal(child.exitCode, 0, exitInfo());
  });
});
