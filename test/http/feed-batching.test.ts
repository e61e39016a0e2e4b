import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORES, startServer, type TestServer } from '../support/harness.js';
import { storeMetricsOf } from '../../src/metrics.js';
import { openStore, type Store } from '../../src/store/db.js';
import { headOf as lastSeq } from '../../src/store/change-log.js';
import { noteChange } from '../../src/store/change-notes.js';
import { writeTransaction } from '../../src/store/changes.js';
import pg from 'pg';
import { updateEventDetails } from '../../src/store/events.js';

/**
 * Issue 27: the change feed looks for other connections' (SQLite) or instances' (PostgreSQL)
 * commits once per batch of requests the HTTP server reads in one poll of the event loop, not once
 * per request (app.ts). Requests sent together on many connections share a look; a request sent
 * after another connection's commit still sees it.
 */
for (const kind of STORES) {
  describe(`the change feed looks once per batch of requests [${kind.name}]`, () => {
    let t: TestServer;
    let other: Store;
    let dir: string | undefined;
    let id: number;
    before(async () => {
      if (kind.name === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'feed-batch-'));
        t = await startServer({ name: 'sqlite', url: `sqlite:${join(dir, 'calendar.db')}` });
        other = await openStore(`sqlite:${join(dir, 'calendar.db')}`);
      } else {
        t = await startServer(kind);
        // A second pool on the same schema stands for another instance.
        other = await openStore(t.storeUrl, { schema: t.built.store.schema, skipMigrations: true, poolSize: 1 });
      }
      const res = await t.api.post('/events', { as: 'admin', json: { title: 'Batch', status: 'publish', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' } });
      assert.equal(res.status, 201);
      id = res.body.id;
    });
    after(async () => {
      await other?.close();
      await t?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const looks = () => storeMetricsOf(t.built.store.db)!.feedLooks!();

    /** Open `n` keep-alive connections, then write one GET on each in the same turn; resolves with each answer's status line and body. */
    async function together(n: number, path: string): Promise<Array<{ status: string; body: string }>> {
      const { port } = new URL(t.origin);
      const sockets = await Promise.all(
        Array.from(
          { length: n },
          () =>
            new Promise<Socket>((resolve, reject) => {
              const s = connect(Number(port), '127.0.0.1', () => resolve(s));
              s.on('error', reject);
            }),
        ),
      );
      const answers = sockets.map(
        (s) =>
          new Promise<{ status: string; body: string }>((resolve, reject) => {
            let got = '';
            s.setEncoding('latin1');
            s.on('data', (d: string) => {
              got += d;
              const head = got.indexOf('\r\n\r\n');
              const length = /content-length: (\d+)/i.exec(got);
              if (head >= 0 && length && got.length >= head + 4 + Number(length[1])) {
                resolve({ status: got.slice(0, got.indexOf('\r\n')), body: got.slice(head + 4) });
                s.destroy();
              }
            });
            s.on('error', reject);
          }),
      );
      // Let the server accept every connection first, so that their requests are read in one poll.
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const s of sockets) s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      return Promise.all(answers);
    }

    it('answers requests read together after one look, not one look each', async () => {
      const path = `${new URL(t.base).pathname}/events/${id}`;
      await together(4, path); // connections and the read warmed
      const before = looks();
      const n = 40;
      const answers = await together(n, path);
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set(['HTTP/1.1 200 OK']));
      const used = looks() - before;
      assert.ok(used >= 1, 'the batch looked');
      assert.ok(used < n / 2, `${used} looks for ${n} requests read together`);
    });

    it('shows the looks in /metrics', async () => {
      const res = await fetch(`${t.origin}/metrics`);
      const text = await res.text();
      const m = /^calendar_feed_looks_total (\d+)$/m.exec(text);
      assert.ok(m, 'calendar_feed_looks_total reported');
      assert.ok(Number(m[1]) >= 1);
    });

    it('requests sent after another connection committed see the commit, batch after batch', async () => {
      const path = `${new URL(t.base).pathname}/events/${id}`;
      for (let i = 2; i <= 6; i++) {
        const start = `2031-01-0${i} 10:00:00`;
        await writeTransaction(other.db, (trx) => updateEventDetails(trx, id, { start_local: start, end_local: `2031-01-0${i} 11:00:00` }));
        const answers = await together(8, path);
        for (const a of answers) {
          assert.equal(a.status, 'HTTP/1.1 200 OK');
          assert.equal(JSON.parse(a.body).start_date, start);
        }
      }
    });
  });
}

/**
 * Issue 27, creates: on PostgreSQL a look reads the log's counter alone first (the cheaper
 * statement, enough when nothing moved), but after a look that found it moved, the next one reads
 * the log at once: under writes most looks find something, and the counter first would cost a
 * second round trip each time.
 */
for (const kind of STORES.filter((k) => k.name === 'postgres')) {
  describe(`the change feed under writes reads the log in one statement [${kind.name}]`, () => {
    let store: Store;
    let other: Store;
    const sent: string[] = [];
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    before(async () => {
      // Before the pools connect (their clients' query is wrapped when they do).
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const q = args[0];
        const text = typeof q === 'string' ? q : ((q as { text?: string }).text ?? '');
        if (text.includes('"change_counter"') && !/^\s*(update|with "start")/i.test(text)) sent.push(text.includes('"changes"') ? 'look' : 'counter');
        return query.apply(this, args);
      } as typeof pg.Client.prototype.query;
      store = await openStore(kind.url, { schema: `t_looks_${process.pid}`, dropSchemaOnClose: true, poolSize: 2 });
      other = await openStore(kind.url, { schema: `t_looks_${process.pid}`, skipMigrations: true, poolSize: 1 });
    });
    after(async () => {
      pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
      await other?.close();
      await store?.close();
    });

    /** Another instance commits a change (a reset of nothing: a row in the log). */
    const commitElsewhere = () => writeTransaction(other.db, (trx) => noteChange(trx, 'venue', 1, 'update'));
    /** A batch of requests arrives: the statements its look sends. */
    const look = async () => {
      sent.length = 0;
      store.feed.expectChanges();
      await store.feed.sync();
      return [...sent];
    };

    it('counter first when nothing moved; at once after a look that found a move', async () => {
      await store.feed.sync();
      assert.deepEqual(await look(), ['counter'], 'quiet: the counter alone');
      await commitElsewhere();
      assert.deepEqual(await look(), ['counter', 'look'], 'the first move: the counter, then the log');
      await commitElsewhere();
      assert.deepEqual(await look(), ['look'], 'moving: the log at once');
      assert.deepEqual(await look(), ['look'], 'nothing new this time (one statement all the same)');
      assert.deepEqual(await look(), ['counter'], 'quiet again: the counter alone');
      assert.equal(store.feed.seq(), await lastSeq(store.db));
    });
  });
}
