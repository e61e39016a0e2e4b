/**
 * Issue 11, webhooks that survive: the server killed with SIGKILL while a delivery is in flight,
 * and a write made while no server runs, are both delivered after a restart (the outbox is the
 * change log, written in the write's transaction); two instances on one PostgreSQL deliver each
 * change once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/src/processes.js';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/domain/services.js';
import { viewerOf } from '../../src/domain/permissions.js';
import { openStore } from '../../src/store/db.js';
import { startServer, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const ADMIN = 'admin:admin-password';
const auth = { authorization: 'Basic ' + Buffer.from(ADMIN).toString('base64'), 'content-type': 'application/json' };
const ev = (title: string) => ({ title, start_date: '2033-01-01 10:00:00', end_date: '2033-01-01 11:00:00', status: 'publish' });

async function startChild(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...CLI_ENTRY, 'serve'], {
    cwd: process.cwd(),
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  // Compiling in the child (tsx) takes a while on a busy machine.
  for (let i = 0; i < 900; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) return child;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${stderr}`);
}

describe('webhooks survive a SIGKILL and writes made while no server runs [sqlite]', () => {
  let dir: string;
  let receiver: Receiver;
  let child: ChildProcess | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'events-calendar-webhooks-'));
    receiver = await startReceiver();
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers after a restart', { timeout: 240_000 }, async () => {
    const url = `sqlite:${join(dir, 'calendar.db')}`;
    const env = {
      DATABASE_URL: url,
      CALENDAR_ADMIN_USER: 'admin',
      CALENDAR_ADMIN_PASSWORD: 'admin-password',
      LOG_LEVEL: 'silent',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_TIMEOUT: '1s',
      WEBHOOKS_RETRY_SCHEDULE: '200ms,200ms,200ms',
      RATE_LIMIT_MAX: '0',
    };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/api`;
    child = await startChild(env, port);
    const endpoint = await (await fetch(`${base}/calendar/admin/v1/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url, events: ['event.created'] }) })).json();
    receiver.secret = endpoint.secret;
    // The first delivery is left hanging: written and committed, not yet delivered.
    receiver.respond = (n) => (n === 1 ? 'hang' : 200);
    const first = await (await fetch(`${base}/calendar/events/v1/events`, { method: 'POST', headers: auth, body: JSON.stringify(ev('Before the crash')) })).json();
    const [inFlight] = await receiver.waitFor((m) => m.body?.data?.id === first.id);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    // A write while no server runs: only the change log knows of it.
    const store = await openStore(url);
    const services = createServices(loadConfig({ DATABASE_URL: url }), store);
    const second = await services.events.create(viewerOf({ id: 1, login: 'admin', role: 'administrator' }), ev('While down'));
    await store.close();

    child = await startChild(env, port);
    const again = await receiver.waitFor((m) => m.body?.data?.id === first.id, 2, 60_000);
    assert.equal(again[1]!.id, inFlight!.id, 'the same message, sent again');
    assert.ok(again[1]!.verified);
    const [down] = await receiver.waitFor((m) => m.body?.data?.id === Number(second.id), 1, 60_000);
    assert.ok(down!.verified);
    assert.equal(down!.body.type, 'event.created');
    assert.equal(down!.body.data.title, 'While down');
  });
});

const PG_URL = process.env.TEST_POSTGRES_URL;

describe('webhooks: two instances on one PostgreSQL deliver each change once [postgres]', { skip: !PG_URL }, () => {
  let a: TestServer;
  let b: TestServer;
  let receiver: Receiver;
  const env = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '100ms,100ms', RATE_LIMIT_MAX: '0' };
  before(async () => {
    const kind = { name: 'postgres' as const, url: PG_URL! };
    a = await startServer(kind, env);
    b = await startServer(kind, env, { peerOf: a });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await b?.close();
    await a?.close();
  });

  it('no double delivery', { timeout: 120_000 }, async () => {
    const endpoint = (await a.api.post('/api/calendar/admin/v1/webhooks', { as: 'admin', json: { url: receiver.url, events: ['event.created', 'event.updated'] } })).body;
    receiver.secret = endpoint.secret;
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const server = i % 2 ? b : a;
      const e = (await server.api.post('/events', { as: 'admin', json: ev(`Twice? ${i}`) })).body;
      ids.push(e.id);
      await (i % 2 ? a : b).api.post(`/events/${e.id}`, { as: 'admin', json: { title: `Once ${i}` } });
    }
    await receiver.waitFor(() => true, ids.length * 2, 60_000);
    await new Promise((r) => setTimeout(r, 1500)); // time for a duplicate to show up
    const byId = new Map<string, number>();
    for (const m of receiver.received) byId.set(m.id, (byId.get(m.id) ?? 0) + 1);
    assert.equal(receiver.received.length, ids.length * 2, JSON.stringify([...byId]));
    assert.ok(
      [...byId.values()].every((n) => n === 1),
      JSON.stringify([...byId]),
    );
    assert.ok(receiver.received.every((m) => m.verified));
    for (const id of ids) {
      const types = receiver.received.filter((m) => m.body.data.id === id).map((m) => m.body.type);
      assert.deepEqual(types, ['event.created', 'event.updated'], `event ${id} in order`);
    }
  });
});
