/**
 * Issue 28, the admin API's change stream: `GET changes?after=` (JSON polling) and
 * `GET changes/stream` (server-sent events, read with a real HTTP client): one event per committed
 * write with the records it changed, `user` records for administrators only, `Last-Event-ID`
 * resume, heartbeats, the stream ended when the server closes, HEAD answered (issue 44); editors
 * and administrators only.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { forEachStore, startServer, STORES, ADMIN, type TestServer } from '../support/harness.js';
import { sseReader, type SseMessage } from '../support/sse.js';

const A = '/api/calendar/admin/v1';
const basic = (cred: string) => 'Basic ' + Buffer.from(cred).toString('base64');

/** An SSE reader over node:http: the parsed messages as they come, and the end. */
function openStream(t: TestServer, cred: string, query = '', headers: Record<string, string> = {}, calendarPrefix = '') {
  const messages: SseMessage[] = [];
  let waiters: Array<() => void> = [];
  let ended = false;
  let status = 0;
  let contentType = '';
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const req = http.get(`${t.origin}${calendarPrefix}${A}/changes/stream${query}`, { headers: { authorization: basic(cred), accept: 'text/event-stream', ...headers } });
  const opened = new Promise<void>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers['content-type']);
      res.setEncoding('utf8');
      const read = sseReader((m) => messages.push(m));
      res.on('data', (chunk: string) => {
        read(chunk);
        notify();
      });
      res.on('end', () => {
        ended = true;
        notify();
      });
      res.on('close', () => {
        ended = true;
        notify();
      });
      resolve();
    });
  });
  return {
    messages,
    opened,
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    get ended() {
      return ended;
    },
    /** Wait until a message matching `test` arrived (or the stream ended). */
    async until(test: (m: SseMessage) => boolean): Promise<SseMessage> {
      for (;;) {
        const found = messages.find(test);
        if (found) return found;
        if (ended) throw new Error(`stream ended; got ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async untilEnded(): Promise<void> {
      while (!ended) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () => req.destroy(),
  };
}

const changeOf = (m: SseMessage) => (m.event === 'change' ? (JSON.parse(m.data!) as { seq: number; changes: Array<{ type: string; id: number; action: string }> }) : undefined);
const EVENT = (title: string) => ({ title, start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00', status: 'publish' });

forEachStore('admin change log', (t) => {
  it('editors and administrators only', async () => {
    assert.equal((await t.api.get(`${A}/changes`)).status, 401);
    await t.user('author', 'au');
    assert.equal((await t.api.get(`${A}/changes`, { as: 'au' })).status, 403);
    const s = openStream(t, 'au:au-pw');
    await s.opened;
    assert.equal(s.status, 403);
    s.close();
  });

  it('polls writes after a sequence number; user records for administrators only', async () => {
    await t.user('editor', 'ed');
    const start = (await t.api.get(`${A}/changes`, { as: 'admin', query: { after: 0, limit: 1000 } })).body.head;
    const made = await t.api.post('/events', { as: 'admin', json: EVENT('Polled') });
    await t.api.post(`${A}/users/1/application-passwords`, { as: 'admin', json: { name: 'poll' } });
    const admin = await t.api.get(`${A}/changes`, { as: 'admin', query: { after: start } });
    assert.equal(admin.status, 200);
    const types = admin.body.events.flatMap((e: { changes: Array<{ type: string; id: number }> }) => e.changes.map((c) => `${c.type}:${c.id}`));
    assert.ok(types.includes(`event:${made.body.id}`));
    assert.ok(types.includes('user:1'));
    assert.equal(admin.body.last_seq, admin.body.head);
    const editor = await t.api.get(`${A}/changes`, { as: 'ed', query: { after: start } });
    const edTypes = editor.body.events.flatMap((e: { changes: Array<{ type: string }> }) => e.changes.map((c) => c.type));
    assert.ok(edTypes.includes('event'));
    assert.ok(!edTypes.includes('user'), 'no user records for editors');
    const paged = await t.api.get(`${A}/changes`, { as: 'admin', query: { after: start, limit: 1 } });
    assert.ok(paged.body.last_seq < paged.body.head);
    assert.equal((await t.api.get(`${A}/changes`, { as: 'admin', query: { after: -1 } })).status, 400);
  });

  it('streams one event per write as server-sent events, with heartbeats', async () => {
    const s = openStream(t, 'ed:ed-pw', '?heartbeat=1');
    await s.opened;
    assert.equal(s.status, 200);
    assert.match(s.contentType, /^text\/event-stream/);
    await s.until((m) => m.comment?.startsWith('following') ?? false);
    const made = await t.api.post('/events', { as: 'admin', json: EVENT('Streamed') });
    const got = await s.until((m) => changeOf(m)?.changes.some((c) => c.type === 'event' && c.id === made.body.id) ?? false);
    assert.equal(got.id, String(changeOf(got)!.seq));
    assert.deepEqual(
      changeOf(got)!.changes.find((c) => c.type === 'event'),
      { type: 'event', id: made.body.id, action: 'create' },
    );
    await s.until((m) => m.comment === 'heartbeat');
    s.close();
  });

  it('shows a calendar’s stream its own writes only, whichever calendar’s write wakes it', async () => {
    for (const slug of ['stream-north', 'stream-south']) await t.built.services.calendars.create({ slug, name: slug });
    const events = (slug: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/events/v1/events`;
    const north = openStream(t, `${ADMIN.login}:${ADMIN.password}`, '', {}, '/c/stream-north');
    await north.opened;
    assert.equal(north.status, 200);
    await north.until((m) => m.comment?.startsWith('following') ?? false);
    // South's write wakes the stream (from South's request), then North's.
    const south = await t.api.post(events('stream-south'), { as: 'admin', json: EVENT('South only') });
    assert.equal(south.status, 201, south.text);
    const own = await t.api.post(events('stream-north'), { as: 'admin', json: EVENT('North only') });
    assert.equal(own.status, 201, own.text);
    await north.until((m) => changeOf(m)?.changes.some((c) => c.type === 'event' && c.id === own.body.id) ?? false);
    const seen = north.messages.flatMap((m) => changeOf(m)?.changes ?? []);
    assert.ok(!seen.some((c) => c.type === 'event' && c.id === south.body.id), `South's event is not in North's stream: ${JSON.stringify(seen)}`);
    north.close();
  });

  it('resumes after Last-Event-ID with the writes missed', async () => {
    const before = (await t.api.get(`${A}/changes`, { as: 'admin' })).body.head;
    const missed = await t.api.post('/events', { as: 'admin', json: EVENT('Missed') });
    const s = openStream(t, `${ADMIN.login}:${ADMIN.password}`, '', { 'last-event-id': String(before) });
    await s.opened;
    const got = await s.until((m) => changeOf(m)?.changes.some((c) => c.id === missed.body.id) ?? false);
    assert.ok(Number(got.id) > before);
    s.close();
  });

  it('HEAD of the stream answers its headers and ends (it hung: the headers waited for a body that HEAD never sends)', async () => {
    const res = await fetch(`${t.origin}${A}/changes/stream`, { method: 'HEAD', headers: { authorization: basic(`${ADMIN.login}:${ADMIN.password}`) }, signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(await res.text(), '');
  });
});

for (const kind of STORES) {
  it(`the stream ends when the server closes [${kind.name}]`, async () => {
    const t = await startServer(kind);
    const s = openStream(t, `${ADMIN.login}:${ADMIN.password}`);
    await s.opened;
    await s.until((m) => m.comment?.startsWith('following') ?? false);
    await t.close();
    await s.untilEnded();
    assert.equal(s.ended, true);
  });
}
