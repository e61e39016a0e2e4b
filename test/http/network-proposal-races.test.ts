/**
 * Proposals of one event to a calendar at the same time (docs/calendars.md, "Proposals"): the look
 * for an earlier copy and the making are two steps, so proposals sent together all passed the look
 * and all landed in the target's queue, each taking a place in its quotas. A proposal now holds its
 * place under a key while it is made (domain/network.ts `claimProposal`): one lands, the others
 * answer 409 `network_already_proposed`; a place left by a server that stopped mid-proposal is taken
 * over after a minute.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { OPEN } from '../support/submissions.js';
import { inCalendar } from '../../src/calendar-now.js';
import { insertSource, proposalClaimId } from '../../src/store/network.js';

const REST = '/api/calendar/events/v1';
const ADMIN = '/api/calendar/admin/v1';
const NET = '/api/calendar/network/v1';
const at = (t: TestServer, slug: string | null, path: string) => `${t.origin}${slug ? `/c/${slug}` : ''}${path}`;

forEachStore(
  'network: proposals of one event at the same time',
  (t) => {
    it('stores it once in the target’s queue; the others answer 409 network_already_proposed', async () => {
      await t.built.services.calendars.create({ slug: 'source', name: 'Source' });
      await t.built.services.calendars.create({ slug: 'target', name: 'Target' });
      // An editor of the source calendar only: no role in the target.
      await t.user('subscriber', 'source-editor');
      await t.built.services.calendars.setRole('source-editor', 'source', 'editor');
      const made = await t.api.post(at(t, 'source', `${REST}/events`), {
        as: 'source-editor',
        json: { title: 'Proposed once', start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00', status: 'publish' },
      });
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as number;

      const answers = await Promise.all(Array.from({ length: 6 }, () => t.api.post(at(t, 'source', `${NET}/proposals`), { as: 'source-editor', json: { event: id, to: 'target' } })));
      const statuses = answers.map((a) => `${a.status}${a.body?.code ? ` ${a.body.code}` : ''}`);
      assert.equal(answers.filter((a) => a.status === 201).length, 1, `one proposal stored, the others refused: ${statuses.join(', ')}`);
      for (const a of answers.filter((x) => x.status !== 201)) {
        assert.equal(a.status, 409, a.text);
        assert.equal(a.body.code, 'network_already_proposed');
      }
      // The target's queue holds the event once.
      const queue = await t.api.get(at(t, 'target', `${ADMIN}/submissions`), { as: 'admin', query: { status: 'any', per_page: 100 } });
      assert.equal(queue.status, 200, queue.text);
      const copies = (queue.body as Array<{ source?: { event_id?: number } }>).filter((s) => s.source?.event_id === id);
      assert.equal(copies.length, 1, `the target's queue holds ${copies.length} copies of the proposed event`);
    });
    it('a place left by a server that stopped mid-proposal holds for a minute, then is taken over', async () => {
      const made = await t.api.post(at(t, 'source', `${REST}/events`), {
        as: 'source-editor',
        json: { title: 'Proposed after a crash', start_date: '2031-05-02 10:00', end_date: '2031-05-02 11:00', status: 'publish' },
      });
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as number;
      const targetId = (await t.built.services.calendars.get('target')).id;
      const claim = (created_gmt: string) =>
        inCalendar(targetId, () =>
          insertSource(t.built.store.db, {
            post_id: proposalClaimId(id),
            kind: 'proposal',
            follow_id: 0,
            source_calendar_id: 0,
            source_event_id: id,
            source_url: '',
            source_modified: '',
            created_gmt,
          }),
        );
      const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      await claim(gmt(Date.now() - 5_000));
      const held = await t.api.post(at(t, 'source', `${NET}/proposals`), { as: 'source-editor', json: { event: id, to: 'target' } });
      assert.equal(held.status, 409, held.text);
      assert.equal(held.body.code, 'network_already_proposed');
      await inCalendar(targetId, () => t.built.store.db.deleteFrom('network_sources').where('post_id', '=', proposalClaimId(id)).execute());
      await claim(gmt(Date.now() - 120_000));
      const taken = await t.api.post(at(t, 'source', `${NET}/proposals`), { as: 'source-editor', json: { event: id, to: 'target' } });
      assert.equal(taken.status, 201, taken.text);
      // The place is let go once the proposal is made: the next answer is the queue's own.
      const again = await t.api.post(at(t, 'source', `${NET}/proposals`), { as: 'source-editor', json: { event: id, to: 'target' } });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.code, 'network_already_proposed');
      const left = await inCalendar(targetId, () => t.built.store.db.selectFrom('network_sources').select('post_id').where('post_id', '<', 0).execute());
      assert.deepEqual(left, []);
    });
  },
  OPEN,
);
