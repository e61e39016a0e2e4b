/**
 * `events-calendar webhooks add|list|remove|deliveries|redeliver` (issue 11) on the database a
 * running server uses: endpoints added by the command are delivered to by the server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

describe('events-calendar webhooks [sqlite]', () => {
  let dir: string;
  let url: string;
  let t: TestServer;
  let r: Receiver;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'events-calendar-cli-webhooks-'));
    url = `sqlite:${join(dir, 'calendar.db')}`;
    t = await startServer({ name: 'sqlite', url }, { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '100ms' });
    r = await startReceiver();
  });
  after(async () => {
    await r?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds, lists, shows deliveries, redelivers and removes', { timeout: 180_000 }, async () => {
    const env = { DATABASE_URL: url, WEBHOOKS_ALLOW_PRIVATE: 'true' };
    const refused = await cli(['webhooks', 'add', r.url], { DATABASE_URL: url });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /refused/);
    const badEvents = await cli(['webhooks', 'add', r.url, '--events', 'event.exploded'], env);
    assert.equal(badEvents.code, 2);

    const added = await cli(['webhooks', 'add', r.url, '--events', 'event.created', '--description', 'from the CLI'], env);
    assert.equal(added.code, 0, added.stderr);
    const id = /added endpoint (\d+)/.exec(added.stdout)![1]!;
    r.secret = /secret: (whsec_\S+)/.exec(added.stdout)![1]!;
    const list = await cli(['webhooks', 'list'], env);
    assert.match(list.stdout, new RegExp(`${id}\\s+enabled\\s+${r.url.replace(/[.?/]/g, '\\$&')}\\s+event.created\\s+\\(from the CLI\\)`));

    const e = await t.api.post('/events', { as: 'admin', json: { title: 'From CLI hook', start_date: '2034-01-01 10:00', end_date: '2034-01-01 11:00', status: 'publish' } });
    const [m] = await r.waitFor((x) => x.body?.data?.id === e.body.id);
    assert.ok(m!.verified);

    let deliveries = '';
    for (let i = 0; i < 50 && !/succeeded/.test(deliveries); i++) {
      if (i) await new Promise((res) => setTimeout(res, 100));
      deliveries = (await cli(['webhooks', 'deliveries', id], env)).stdout;
    }
    assert.match(deliveries, new RegExp(`${m!.id}\\s+event.created\\s+succeeded\\s+attempts 1`));
    assert.match(deliveries, /succeeded\s+200\s+\d+ ms/);

    const redeliver = await cli(['webhooks', 'redeliver', id, m!.id], env);
    assert.equal(redeliver.code, 0, redeliver.stderr);
    await r.waitFor((x) => x.id === m!.id, 2);

    assert.equal((await cli(['webhooks', 'remove', id], env)).code, 0);
    assert.match((await cli(['webhooks', 'list'], env)).stdout, /no webhook endpoints/);
    assert.equal((await cli(['webhooks', 'remove', id], env)).code, 2);
  });
});
