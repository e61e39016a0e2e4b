/**
 * WRITE_WORKER: the writes answered by a second instance of the app in a thread of its own, on the
 * same database (SQLite: a file; PostgreSQL: the same schema), both stores. What a client sees must
 * not change: its write is answered the same way (successes, errors in the API's shape, cookies),
 * a read right after it sees it, the jobs its write wakes run at once, a body over the limits is
 * refused, and a write thread that dies is replaced without taking the service down.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { STORES, startServer, type StoreKind, type TestServer } from '../support/harness.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { parseRaw, raw } from '../support/raw-http.js';
import type { SessionsTable } from '../../src/store/sessions.js';

const A = '/api/calendar/admin/v1';
/** Days from now (YYYY-MM-DD): within the lists' default window. */
const soon = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** `/metrics`' count of requests the write worker answered with `status`. */
async function written(t: TestServer, status: number): Promise<number> {
  const text = await (await fetch(`${t.origin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`calendar_write_worker_requests_total{status="${status}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The nice values of this process' threads (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
}

for (const kind of STORES) {
  describe(`write worker [${kind.name}]`, () => {
    let t: TestServer;
    let smtp: TestSmtp;
    let dir: string | undefined;
    before(async () => {
      smtp = await startSmtp();
      let shared: StoreKind = kind;
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'write-worker-'));
        shared = { name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` };
      }
      t = await startServer(shared, { WRITE_WORKER: 'true', SMTP_URL: smtp.url, SMTP_FROM: 'calendar@example.org' });
      await t.built.writeWorker!.ready;
    });
    after(async () => {
      await t?.close();
      await smtp?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers a write in its own thread, at a lower priority, and a read right after it sees it', async () => {
      assert.equal(t.built.writeWorker!.stats().ready, true);
      const metrics = await (await fetch(`${t.origin}/metrics`)).text();
      assert.match(metrics, /^calendar_write_worker_ready 1$/m);
      assert.ok(Number(/^calendar_write_worker_heap_bytes (\d+)$/m.exec(metrics)?.[1]) > 1_000_000, "the worker's heap is counted");
      assert.ok(threadNices().includes(10), `a thread at nice 10 (WRITE_WORKER_NICE): ${threadNices().join(' ')}`);
      const before = await t.api.get('/events');
      const etag = before.headers.get('etag');
      const createdBefore = await written(t, 201);
      const made = await t.api.post('/events', { as: 'admin', json: { title: 'Written elsewhere', start_date: `${soon(10)} 10:00:00`, end_date: `${soon(10)} 11:00:00` } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.title, 'Written elsewhere');
      assert.match(made.headers.get('x-request-id') ?? '', /./);
      assert.equal(await written(t, 201), createdBefore + 1, 'the create was answered by the write worker');
      // Read right after the write, in this thread: the list, its ETag, the event itself.
      const list = await t.api.get('/events');
      assert.ok(
        list.body.events.some((e: { id: number }) => e.id === made.body.id),
        'the list read right after the write shows it',
      );
      assert.notEqual((await t.api.get('/events')).headers.get('etag'), etag);
      assert.equal((await t.api.get(`/events/${made.body.id}`)).body.title, 'Written elsewhere');
      // Updates and deletes too.
      const updated = await t.api.post(`/events/${made.body.id}`, { as: 'admin', json: { title: 'Renamed elsewhere' } });
      assert.equal(updated.status, 200);
      assert.equal((await t.api.get(`/events/${made.body.id}`)).body.title, 'Renamed elsewhere');
      const deleted = await t.api.delete(`/events/${made.body.id}`, { as: 'admin' });
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.status, 'trash');
      assert.equal((await t.api.get(`/events/${made.body.id}`)).status, 403);
      assert.equal(await written(t, 200), 2);
    });

    it("gives a write's errors in the API's shape", async () => {
      const anonymous = await t.api.post('/events', { json: { title: 'No one', start_date: `${soon(10)} 10:00:00`, end_date: `${soon(10)} 11:00:00` } });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.data.status, 401);
      assert.match(anonymous.body.code, /^rest_/);
      const invalid = await fetch(`${t.base}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64') },
        body: '{"title":',
      });
      assert.equal(invalid.status, 400);
      const problem = (await invalid.json()) as { code: string; message: string; data: { status: number } };
      assert.equal(problem.code, 'rest_invalid_json');
      assert.equal(problem.message, 'Invalid JSON body passed.');
      assert.equal(problem.data.status, 400);
      assert.ok((await written(t, 400)) >= 1);
    });

    it('refuses a body over every limit without keeping it whole, chunked or announced', async () => {
      const auth = 'Basic ' + Buffer.from('admin:admin-password').toString('base64');
      // 12 MB in chunks, without a Content-Length: over the largest body a route takes (10 MB uploads).
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const chunks: Array<string | Buffer> = [
        `POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      ];
      for (let i = 0; i < 192; i++) chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
      chunks.push('0\r\n\r\n');
      const chunked = parseRaw((await raw(t, chunks)).text);
      assert.equal(chunked.status, 413, JSON.stringify(chunked.body));
      assert.equal(chunked.body.code, 'rest_payload_too_large');
      assert.equal(chunked.body.data.status, 413);
      // Announced too large: refused before it is read, as without the worker.
      const announced = parseRaw(
        (await raw(t, [`POST /api/calendar/events/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${40 * 1024 * 1024}\r\n\r\n{`])).text,
      );
      assert.equal(announced.status, 413);
      assert.equal(announced.body.code, 'rest_payload_too_large');
      // A JSON body over its own limit (2 MB) is the worker's to refuse, in the same shape.
      const json = await fetch(`${t.base}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) }),
      });
      assert.equal(json.status, 413);
      assert.equal(((await json.json()) as { code: string }).code, 'rest_payload_too_large');
      // The service still answers, and holds no body of these any more.
      assert.equal((await t.api.get('/events')).status, 200);
      assert.equal(t.built.writeWorker!.stats().buffered, 0);
    });

    it('keeps a POST that asks to be read (X-HTTP-Method-Override, ?_method=) in this thread: a read, which may stream', async () => {
      const before = await written(t, 200);
      const auth = { authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64') };
      const list = await fetch(`${t.base}/events`, { method: 'POST', headers: { ...auth, 'x-http-method-override': 'GET' } });
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(((await list.json()) as { events: unknown[] }).events));
      const viaQuery = await fetch(`${t.base}/events?_method=get`, { method: 'POST', headers: auth });
      assert.equal(viaQuery.status, 200);
      await viaQuery.arrayBuffer();
      assert.equal(await written(t, 200), before, 'neither was answered by the worker');
      // The admin app's change stream, asked for by a POST read as a GET, streams its first bytes.
      const aborted = new AbortController();
      const stream = await fetch(`${t.origin}/api/calendar/admin/v1/changes/stream`, { method: 'POST', headers: { ...auth, 'x-http-method-override': 'GET' }, signal: aborted.signal });
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
      aborted.abort();
      await stream.body?.cancel().catch(() => undefined);
    });

    it("wakes this thread's jobs at once: an invitation's mail is sent although the write ran in the worker", async () => {
      // The outbox's first step after the start is past: its next one is a minute away unless woken.
      const until = Date.now() + 10_000;
      while (!/^calendar_job_runs_total\{job="mail-outbox"\} [1-9]/m.test(await (await fetch(`${t.origin}/metrics`)).text())) {
        assert.ok(Date.now() < until, 'the mail outbox ran its first step');
        await new Promise((r) => setTimeout(r, 100));
      }
      const made = await t.api.post(`${A}/invitations`, { as: 'admin', json: { email: 'wendy@example.org', roles: ['editor'], name: 'Wendy Worker' } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      // The mail outbox runs here every minute; the worker's nudge (or commit) makes it run now.
      const [mail] = await smtp.waitFor((m) => m.to.includes('wendy@example.org'), 1, 5000);
      assert.ok(mail);
    });

    it("wakes what this thread's commits wake with the worker's commits (the webhook worker's wake among them)", async () => {
      // A server without mail, whose jobs commit nothing of their own after a write, and a
      // subscriber without a poll: only a commit of this process, or the worker's passed on, wakes
      // it. (On SQLite nothing else does; on PostgreSQL this thread's own job steps may too.)
      const quiet = await startServer(kind.name === 'sqlite' ? { name: 'sqlite', url: `sqlite:${join(dir!, 'wake.db')}` } : kind, { WRITE_WORKER: 'true' });
      await quiet.built.writeWorker!.ready;
      let woken = 0;
      const stop = quiet.built.store.changes.subscribe(() => void woken++);
      try {
        await new Promise((r) => setTimeout(r, 300));
        woken = 0;
        const made = await quiet.api.post('/events', { as: 'admin', json: { title: 'Wakes', start_date: `${soon(14)} 10:00:00`, end_date: `${soon(14)} 11:00:00` } });
        assert.equal(made.status, 201);
        const until = Date.now() + 5000;
        while (woken === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        assert.ok(woken > 0, "the worker's commit woke this thread's subscriber");
      } finally {
        stop();
        await quiet.close();
      }
    });

    it('signs in with a cookie through the worker, and the cookie needs its nonce for writes', async () => {
      // As a browser: the login form (read here), then its POST (answered by the worker).
      const form0 = await fetch(`${t.origin}/admin/login`, { redirect: 'manual' });
      const loginNonce = /name="_wpnonce" value="([^"]+)"/.exec(await form0.text())?.[1] ?? '';
      const signedIn = await fetch(`${t.origin}/admin/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: (form0.headers.get('set-cookie') ?? '').split(';')[0]! },
        body: new URLSearchParams({ log: 'admin', pwd: 'admin-password', _wpnonce: loginNonce }).toString(),
      });
      assert.equal(signedIn.status, 303, await signedIn.clone().text());
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      assert.match(cookie, /=./);
      const html = await (await fetch(`${t.origin}/admin/account`, { headers: { cookie } })).text();
      const nonce = /name="calendar-rest-nonce" content="([^"]*)"/.exec(html)![1]!;
      const event = JSON.stringify({ title: 'Cookie and nonce', start_date: `${soon(11)} 10:00:00`, end_date: `${soon(11)} 11:00:00` });
      const wrong = await fetch(`${t.base}/events`, { method: 'POST', headers: { cookie, 'x-wp-nonce': 'not-the-nonce', 'content-type': 'application/json' }, body: event });
      assert.equal(wrong.status, 403);
      assert.equal(((await wrong.json()) as { code: string }).code, 'rest_cookie_invalid_nonce');
      const ok = await fetch(`${t.base}/events`, { method: 'POST', headers: { cookie, 'x-wp-nonce': nonce, 'content-type': 'application/json' }, body: event });
      assert.equal(ok.status, 201, await ok.clone().text());
      // The session keeps the client's User-Agent and address (the worker's injection has its own).
      const [session] = await t.built.store.db.withTables<{ sessions: SessionsTable }>().selectFrom('sessions').select(['user_agent', 'ip']).orderBy('id', 'desc').limit(1).execute();
      assert.equal(session!.user_agent, 'node');
      assert.equal(session!.ip, '127.0.0.1');
      const bare = parseRaw(
        (
          await raw(t, [
            `POST /admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nCookie: ${(form0.headers.get('set-cookie') ?? '').split(';')[0]!}\r\nContent-Length: ${Buffer.byteLength(new URLSearchParams({ log: 'admin', pwd: 'admin-password', _wpnonce: loginNonce }).toString())}\r\nConnection: close\r\n\r\n${new URLSearchParams({ log: 'admin', pwd: 'admin-password', _wpnonce: loginNonce }).toString()}`,
          ])
        ).text,
      );
      assert.equal(bare.status, 303);
      const [without] = await t.built.store.db.withTables<{ sessions: SessionsTable }>().selectFrom('sessions').select(['user_agent']).orderBy('id', 'desc').limit(1).execute();
      assert.equal(without!.user_agent, '', 'a client without a User-Agent is recorded without one');
    });

    it('replaces a write thread that dies, and the service keeps answering meanwhile', async () => {
      const writes = t.built.writeWorker!;
      const first = writes.thread()!;
      const id = first.threadId;
      await first.terminate();
      // Meanwhile the writes are answered in the main thread.
      const meanwhile = await t.api.post('/events', { as: 'admin', json: { title: 'While it restarts', start_date: `${soon(12)} 10:00:00`, end_date: `${soon(12)} 11:00:00` } });
      assert.equal(meanwhile.status, 201);
      const until = Date.now() + 20_000;
      while (!writes.stats().ready && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      assert.equal(writes.stats().ready, true, 'a new write thread is ready');
      assert.equal(writes.stats().restarts, 1);
      assert.notEqual(writes.thread()!.threadId, id);
      const before = await written(t, 201);
      const after = await t.api.post('/events', { as: 'admin', json: { title: 'After the restart', start_date: `${soon(13)} 10:00:00`, end_date: `${soon(13)} 11:00:00` } });
      assert.equal(after.status, 201);
      assert.equal(await written(t, 201), before + 1);
    });
  });
}

describe('write worker log', () => {
  it("writes the worker's log lines where the main thread's go", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-worker-log-'));
    const lines: string[] = [];
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'calendar.db')}`,
      WRITE_WORKER: 'true',
      CALENDAR_ADMIN_USER: 'admin',
      CALENDAR_ADMIN_PASSWORD: 'admin-password',
      PORT: '0',
      WARM_UP: 'false',
    });
    const built = await buildApp(config, { logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } });
    try {
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      await built.writeWorker!.ready;
      const { port } = built.app.server.address() as AddressInfo;
      const made = await fetch(`http://127.0.0.1:${port}/api/calendar/events/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Basic ' + Buffer.from('admin:admin-password').toString('base64'), 'x-request-id': 'written-in-the-worker' },
        body: JSON.stringify({ title: 'Logged', start_date: `${soon(20)} 10:00:00`, end_date: `${soon(20)} 11:00:00` }),
      });
      assert.equal(made.status, 201);
      const until = Date.now() + 5000;
      while (!lines.some((l) => l.includes('written-in-the-worker') && l.includes('"statusCode":201')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      assert.ok(
        lines.some((l) => l.includes('written-in-the-worker') && l.includes('"statusCode":201')),
        `the worker's "request completed" line, in the main thread's stream: ${lines.length} lines`,
      );
      assert.ok(lines.some((l) => l.includes('write worker ready')));
    } finally {
      await built.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('write worker settings', () => {
  it('is off unless asked for; refuses it on a database in memory and a nice value out of range', async () => {
    const plain = loadConfig({ DATABASE_URL: 'sqlite:./x.db' });
    assert.equal(plain.writeWorker, false);
    assert.equal(plain.writeWorkerNice, 10);
    const on = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, { writeWorker: 'true', writeWorkerNice: '0' });
    assert.equal(on.writeWorker, true);
    assert.equal(on.writeWorkerNice, 0);
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'sqlite::memory:', WRITE_WORKER: 'true' }),
      (err: unknown) => err instanceof ConfigError && /WRITE_WORKER needs a database file/.test(err.message),
    );
    assert.throws(() => loadConfig({ DATABASE_URL: 'sqlite:./x.db', WRITE_WORKER: 'true', WRITE_WORKER_NICE: '20' }), ConfigError);
  });
});
