/**
 * The fair share between calendars over HTTP (CALENDAR_FAIR_SHARE, src/web/fair-share.ts): with
 * a share of 1, a calendar whose one place is held (a write whose body is still on its way) makes
 * its next request wait while another calendar asks, and the waiting request is answered, in its
 * own calendar, as soon as the first one's answer starts; the other calendar is never held back by
 * it. A stream (the admin change stream) holds no place while it streams. Health checks and
 * metrics never wait. In turns of the event loop: many requests of one calendar read at once, while
 * another calendar asks, start one per turn, and every one is answered. What is at work, waiting
 * and deferred is read from /metrics, so nothing here is timed.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ADMIN, forEachStore, type TestServer } from '../support/harness.js';

const EVENTS = '/api/calendar/events/v1/events';
const AUTH = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;

/** A POST whose body is sent in two parts: the first now, the rest by `finish`. */
function slowPost(t: TestServer, path: string, json: unknown) {
  const body = Buffer.from(JSON.stringify(json));
  const req = http.request(`${t.origin}${path}`, {
    method: 'POST',
    headers: { authorization: AUTH, 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
  });
  req.write(body.subarray(0, 10));
  return {
    answered,
    finish: () => req.end(body.subarray(10)),
  };
}

forEachStore(
  'calendars: the fair share of one instance',
  (t: TestServer) => {
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
    });

    const figures = async () => {
      const res = await fetch(`${t.origin}/metrics`);
      const text = await res.text();
      const figure = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
      return {
        working: figure('calendar_fair_share_working_requests'),
        waiting: figure('calendar_fair_share_waiting_requests'),
        waited: figure('calendar_fair_share_waited_requests_total'),
        deferred: figure('calendar_fair_share_deferred_requests_total'),
      };
    };
    /** Wait until /metrics shows what `test` wants (each look is a request of its own). */
    const until = async (test: (f: Awaited<ReturnType<typeof figures>>) => boolean, what: string) => {
      for (let i = 0; i < 500; i++) {
        const f = await figures();
        if (test(f)) return f;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.fail(`never ${what}: ${JSON.stringify(await figures())}`);
    };

    let held: Array<{ finish: () => void }> = [];
    after(() => held.forEach((h) => h.finish()));

    it('makes a calendar at its share wait while another asks, and answers it, in its calendar, once a place is free', async () => {
      const before = await figures();
      const defaultWrite = slowPost(t, EVENTS, { title: 'Default write', start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' });
      held.push(defaultWrite);
      await until((f) => f.working === 1, 'one request at work');
      const northWrite = slowPost(t, `/c/north${EVENTS}`, { title: 'North write', start_date: '2031-05-02 10:00:00', end_date: '2031-05-02 11:00:00' });
      held.push(northWrite);
      await until((f) => f.working === 2, 'two requests at work');

      // Each calendar has its one place taken: their next requests wait their turn.
      const order: string[] = [];
      const defaultRead = fetch(`${t.origin}${EVENTS}?start_date=2031-05-01&end_date=2031-05-03`).then(async (r) => {
        order.push('default read');
        return { status: r.status, body: (await r.json()) as { events: Array<{ title: string }> } };
      });
      await until((f) => f.waiting === 1, 'the default calendar read waiting');
      const northRead = fetch(`${t.origin}/c/north${EVENTS}?start_date=2031-05-01&end_date=2031-05-03`).then(async (r) => {
        order.push('north read');
        return { status: r.status, body: (await r.json()) as { events: Array<{ title: string }> } };
      });
      await until((f) => f.waiting === 2, "the north calendar's read waiting too");
      // Health checks do not wait.
      assert.equal((await fetch(`${t.origin}/livez`)).status, 200);

      // The default calendar's write ends: its read goes, in the default calendar; north's still waits.
      defaultWrite.finish();
      const written = await defaultWrite.answered;
      assert.equal(written.status, 201, written.text);
      order.push('default write');
      const read = await defaultRead;
      assert.equal(read.status, 200);
      assert.deepEqual(
        read.body.events.map((e) => e.title),
        ['Default write'],
      );
      assert.equal((await figures()).waiting, 1);
      assert.deepEqual(order, ['default write', 'default read']);

      northWrite.finish();
      assert.equal((await northWrite.answered).status, 201);
      const north = await northRead;
      assert.equal(north.status, 200);
      assert.deepEqual(
        north.body.events.map((e) => e.title),
        ['North write'],
      );
      held = [];
      const now = await until((f) => f.working === 0 && f.waiting === 0, 'every place free');
      assert.equal(now.waited - before.waited, 2);
    });

    it("starts a busy calendar's requests read at once one per turn while another calendar asks, and answers them all", async () => {
      // Twenty connections, open (each answered once), so that their next requests are read together.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
      const get = () =>
        new Promise<number>((resolve, reject) => {
          http
            .get(`${t.origin}${EVENTS}?per_page=1`, { agent }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            })
            .on('error', reject);
        });
      await Promise.all(Array.from({ length: 20 }, get));
      const before = (await figures()).deferred;
      // North asks; then twenty requests of the default calendar arrive together.
      assert.equal((await fetch(`${t.origin}/c/north${EVENTS}`)).status, 200);
      const answers = await Promise.all(Array.from({ length: 20 }, get));
      agent.destroy();
      assert.deepEqual(new Set(answers), new Set([200]));
      assert.ok((await figures()).deferred > before, 'some started in a later turn');
    });

    it('holds no place while a stream streams (its answer has started)', async () => {
      const stream = http.get(`${t.origin}/api/calendar/admin/v1/changes/stream`, { headers: { authorization: AUTH, accept: 'text/event-stream' } });
      try {
        await new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.on('response', (res) => {
            assert.equal(res.statusCode, 200);
            res.resume();
            resolve();
          });
        });
        // Its answer has started: it holds no place.
        assert.equal((await until((f) => f.working === 0, 'no request at work')).working, 0);
        // North asks (a write held), and the default calendar's requests are answered all the same.
        const northWrite = slowPost(t, `/c/north${EVENTS}`, { title: 'North again', start_date: '2031-05-03 10:00:00', end_date: '2031-05-03 11:00:00' });
        held.push(northWrite);
        await until((f) => f.working === 1, "north's write at work");
        for (let i = 0; i < 3; i++) assert.equal((await fetch(`${t.origin}${EVENTS}`)).status, 200);
        assert.equal((await figures()).waiting, 0);
        northWrite.finish();
        assert.equal((await northWrite.answered).status, 201);
        held = [];
      } finally {
        stream.destroy();
      }
    });
  },
  { CALENDAR_FAIR_SHARE: '1', METRICS: 'true' },
);
