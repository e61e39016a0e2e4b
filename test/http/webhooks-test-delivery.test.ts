/**
 * "Send a test delivery" and "Redeliver" as the admin app uses them, against a receiver started
 * on loopback that checks each signature with the `standardwebhooks` package: a `webhook.test`
 * message sent now and how it went (a 2xx, an error answer, an unreachable target), a past
 * delivery sent again; the event types the form offers come from the server (submission.* too).
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const A = '/api/calendar/admin/v1';
const FAST = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_SCHEDULE: '150ms,150ms', WEBHOOKS_TIMEOUT: '2s' };

forEachStore(
  'webhook test deliveries and redelivery',
  (t) => {
    let r: Receiver;
    before(async () => {
      r = await startReceiver();
    });
    after(async () => {
      await r.close();
    });

    it('the event types come from the server, submission.* included; administrators only', async () => {
      const types = await t.api.get(`${A}/webhook-event-types`, { as: 'admin' });
      assert.equal(types.status, 200);
      for (const type of ['event.created', 'venue.trashed', 'tag.deleted', 'submission.received', 'submission.approved', 'submission.rejected', 'submission.changes_requested'])
        assert.ok(types.body.includes(type), type);
      assert.equal((await t.api.get(`${A}/webhook-event-types`)).status, 401);
      await t.user('editor', 'ed');
      assert.equal((await t.api.get(`${A}/webhook-event-types`, { as: 'ed' })).status, 403);
      // Each type the server lists is one an endpoint may ask for.
      const made = await t.api.post(`${A}/webhooks`, { as: 'admin', json: { url: `${r.url}/types`, events: types.body } });
      assert.equal(made.status, 201, made.text);
      await t.api.delete(`${A}/webhooks/${made.body.id}`, { as: 'admin' });
    });

    it('sends a signed webhook.test message now and answers how it went', async () => {
      const made = await t.api.post(`${A}/webhooks`, { as: 'admin', json: { url: `${r.url}/test-ok`, events: ['event.created'] } });
      r.secret = made.body.secret;
      const sent = await t.api.post(`${A}/webhooks/${made.body.id}/test`, { as: 'admin' });
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.ok, true);
      assert.equal(sent.body.response_code, 200);
      assert.equal(sent.body.type, 'webhook.test');
      const [got] = await r.waitFor((m) => m.id === sent.body.id);
      assert.equal(got!.verified, true, got!.verifyError);
      assert.equal(got!.body.type, 'webhook.test');
      assert.equal(got!.body.data.endpoint_id, made.body.id);
      const log = await t.api.get(`${A}/webhooks/${made.body.id}/deliveries`, { as: 'admin' });
      assert.equal(log.body.length, 0, 'a test is kept in no delivery log');

      r.respond = () => 503;
      const failing = await t.api.post(`${A}/webhooks/${made.body.id}/test`, { as: 'admin' });
      r.respond = () => 200;
      assert.equal(failing.body.ok, false);
      assert.equal(failing.body.response_code, 503);
      assert.match(failing.body.error, /503/);

      const gone = await t.api.post(`${A}/webhooks`, { as: 'admin', json: { url: 'http://127.0.0.1:9/nothing-listens' } });
      const unreachable = await t.api.post(`${A}/webhooks/${gone.body.id}/test`, { as: 'admin' });
      assert.equal(unreachable.status, 200);
      assert.equal(unreachable.body.ok, false);
      assert.equal(unreachable.body.response_code, null);
      assert.ok(unreachable.body.error);

      assert.equal((await t.api.post(`${A}/webhooks/999999/test`, { as: 'admin' })).status, 404);
      assert.equal((await t.api.post(`${A}/webhooks/${made.body.id}/test`)).status, 401);
      const index = await t.api.get(A);
      assert.ok(index.body.routes['/calendar/admin/v1/webhooks/(?P<id>\\d+)/test'], 'declared in the namespace index');
    });

    it('redelivers a past delivery: the same message arrives again, and the log shows the new attempt', async () => {
      const made = await t.api.post(`${A}/webhooks`, { as: 'admin', json: { url: `${r.url}/redeliver`, events: ['event.created'] } });
      r.secret = made.body.secret;
      const mine = (m: { path: string }) => m.path.endsWith('/redeliver');
      const ev = await t.api.post('/events', { as: 'admin', json: { title: 'Redeliver me', start_date: '2032-01-01 10:00:00', end_date: '2032-01-01 11:00:00', status: 'publish' } });
      assert.equal(ev.status, 201);
      const [first] = await r.waitFor(mine);
      let deliveries: any[] = [];
      for (let i = 0; i < 100 && !(deliveries[0]?.status === 'succeeded'); i++) {
        deliveries = (await t.api.get(`${A}/webhooks/${made.body.id}/deliveries`, { as: 'admin' })).body;
        await new Promise((res) => setTimeout(res, 50));
      }
      assert.equal(deliveries[0].status, 'succeeded');
      const again = await t.api.post(`${A}/webhooks/${made.body.id}/deliveries/${encodeURIComponent(deliveries[0].id)}/redeliver`, { as: 'admin' });
      assert.equal(again.status, 202, again.text);
      const both = await r.waitFor(mine, 2);
      assert.equal(both[1]!.id, first!.id, 'the same webhook-id: a receiver can tell a redelivery');
      assert.equal(both[1]!.verified, true);
      assert.equal((await t.api.post(`${A}/webhooks/${made.body.id}/deliveries/msg_nope/redeliver`, { as: 'admin' })).status, 404);
    });
  },
  FAST,
);
