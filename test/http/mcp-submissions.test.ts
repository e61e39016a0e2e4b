/**
 * Community submissions through the MCP face: an anonymous caller proposes an event when
 * SUBMISSIONS=anyone (it waits, unseen, for a moderator), the REST limits apply to it, an editor
 * moderates the queue (list, approve, decline), a contributor may not; with SUBMISSIONS=off the
 * tools do not exist and a call is refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, startServer, STORES } from '../support/harness.js';
import { OPEN } from '../support/submissions.js';
import { appPasswordUser, call, connect } from '../support/mcp.js';

const proposal = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  start_date: '2032-06-01 18:00',
  end_date: '2032-06-01 21:00',
  description: 'Bring your own chair.',
  venue: { venue: 'Riverside Park', city: 'Nantes', country: 'France' },
  name: 'Pat Submitter',
  email: 'pat@example.org',
  ...extra,
});

forEachStore(
  'mcp submissions',
  (t) => {
    let anon: Awaited<ReturnType<typeof connect>>;
    let editor: Awaited<ReturnType<typeof connect>>;
    before(async () => {
      anon = await connect(t);
      editor = await connect(t, await appPasswordUser(t, 'editor', 'moddy'));
    });
    after(async () => {
      await anon?.close();
      await editor?.close();
    });

    it('an anonymous caller proposes an event; it waits unseen until an editor approves it from the queue', async () => {
      const names = (await anon.listTools()).tools.map((x) => x.name);
      assert.ok(names.includes('propose_event'));
      assert.ok((await anon.listPrompts()).prompts.some((p) => p.name === 'propose_event'));
      const made = await call(anon, 'propose_event', proposal('River picnic'));
      assert.equal(made.isError, false, made.text);
      assert.equal(made.json.status, 'pending');
      assert.match(made.json.link, /\/events\/submit\/status\//);
      const hidden = await call(anon, 'search_events', { search: 'River picnic', start_date: '2032-05-01', end_date: '2032-07-01' });
      assert.equal(hidden.json.total, 0);

      const queue = await call(editor, 'list_submissions');
      assert.equal(queue.isError, false, queue.text);
      const item = queue.json.submissions.find((s: any) => s.event?.title === 'River picnic');
      assert.ok(item, queue.text);
      assert.equal(queue.json.total, queue.json.submissions.length);
      const approved = await call(editor, 'approve_submission', { id: item.id });
      assert.equal(approved.isError, false, approved.text);
      assert.equal(approved.json.status, 'approved');
      const shown = await call(anon, 'search_events', { search: 'River picnic', start_date: '2032-05-01', end_date: '2032-07-01' });
      assert.equal(shown.json.total, 1);
      assert.equal(shown.json.events[0].venue.venue, 'Riverside Park');
    });

    it('an editor declines a proposal with a reason; a contributor may not moderate; anonymous callers see no queue', async () => {
      const made = await call(anon, 'propose_event', proposal('Dubious rave'));
      assert.equal(made.isError, false, made.text);
      const queue = await call(editor, 'list_submissions');
      const item = queue.json.submissions.find((s: any) => s.event?.title === 'Dubious rave');
      const contributor = await connect(t, await appPasswordUser(t, 'contributor', 'connie2'));
      try {
        const refused = await call(contributor, 'decline_submission', { id: item.id, reason: 'No.' });
        const rest = await t.api.post(`/api/calendar/admin/v1/submissions/${item.id}/reject`, { as: 'connie2:connie2-pw', json: { reason: 'No.' } });
        assert.equal(rest.status, 403);
        assert.equal(refused.isError, true);
        assert.ok(refused.text.startsWith(rest.body.message), refused.text);
      } finally {
        await contributor.close();
      }
      const anonQueue = await call(anon, 'list_submissions');
      assert.equal(anonQueue.isError, true);
      assert.match(anonQueue.text, /HTTP 401/);
      const declined = await call(editor, 'decline_submission', { id: item.id, reason: 'Not a public event.' });
      assert.equal(declined.isError, false, declined.text);
      assert.equal(declined.json.status, 'rejected');
      const view = await t.api.get(made.json.link.replace(/^.*\/events\/submit\/status\//, '/api/calendar/submissions/v1/submissions/'));
      assert.equal(view.body.status, 'rejected');
    });

    it('a proposal REST refuses is refused with the same message (a missing e-mail)', async () => {
      const bad = await call(anon, 'propose_event', proposal('No mail', { email: undefined }));
      const rest = await t.api.post('/api/calendar/submissions/v1/submissions', { json: proposal('No mail', { email: undefined }) });
      assert.equal(rest.status, 400, rest.text);
      assert.equal(bad.isError, true);
      assert.ok(bad.text.startsWith(rest.body.message), bad.text);
    });
  },
  OPEN,
);

describe('mcp submissions: SUBMISSIONS_POW=on', () => {
  for (const kind of STORES.slice(0, 1)) {
    it('a proposal without the solved proof of work is refused with the REST message', async () => {
      const t = await startServer(kind, { ...OPEN, SUBMISSIONS_POW: 'on' });
      const anon = await connect(t);
      try {
        const res = await call(anon, 'propose_event', proposal('Unproven'));
        const rest = await t.api.post('/api/calendar/submissions/v1/submissions', { json: proposal('Unproven') });
        assert.equal(rest.status, 400);
        assert.equal(res.isError, true);
        assert.ok(res.text.startsWith(rest.body.message), res.text);
        const tool = (await anon.listTools()).tools.find((x) => x.name === 'propose_event')!;
        assert.ok('altcha' in (tool.inputSchema.properties as object));
      } finally {
        await anon.close();
        await t.close();
      }
    });
  }
});

describe('mcp submissions: SUBMISSIONS=off', () => {
  for (const kind of STORES.slice(0, 1)) {
    it('no proposal or moderation tool; a call to one is refused', async () => {
      const t = await startServer(kind, {});
      const anon = await connect(t);
      try {
        const names = (await anon.listTools()).tools.map((x) => x.name);
        assert.ok(!names.includes('propose_event'));
        assert.ok(!names.includes('approve_submission'));
        const res = await call(anon, 'propose_event', proposal('Off'));
        assert.equal(res.isError, true);
        assert.match(res.text, /propose_event/);
      } finally {
        await anon.close();
        await t.close();
      }
    });
  }
});
