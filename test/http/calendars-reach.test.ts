/**
 * What one calendar's work reaches of another through the change stream and the network:
 *
 * - The admin change stream's `editors` events (`changes/stream?editing=ID`) show the locks of the
 *   stream's calendar only. A lock's change is told in the request that made it, which may be
 *   another calendar's; the stream looks in its own.
 * - Work of the default calendar done from another calendar's (`calendars.within(1, …)`: a
 *   proposal to it, a follow of it, the network's usage of it) runs with the default calendar's
 *   configuration, quotas and links, not those of the calendar that asks.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse } from '../support/harness.js';
import { followEditors } from '../support/editors-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

forEachStore(
  'calendars: the change stream and the network keep to the calendar they are about',
  (t) => {
    const url = (c: string, path: string) => `${t.origin}${c === 'default' ? '' : `/c/${c}`}${path}`;
    const rest = (c: string, ns: string, path: string) => url(c, `${t.config.restRoot}/${ns}${path}`);
    const v1 = (c: string, path: string) => rest(c, 'calendar/events/v1', path);
    const admin = (c: string, path: string) => rest(c, 'calendar/admin/v1', path);
    const network = (c: string, path: string) => rest(c, 'calendar/network/v1', path);
    const ok = async (r: Promise<ApiResponse>, status = 201) => {
      const res = await r;
      assert.equal(res.status, status, res.text.slice(0, 400));
      return res.body;
    };
    let when = 0;
    /** A published event of calendar `c`, each on a day of its own. */
    const published = async (c: string, title: string, extra: Record<string, unknown> = {}) => {
      const day = String(1 + (when++ % 28)).padStart(2, '0');
      return ok(t.api.post(v1(c, '/events'), { as: 'admin', json: { title, start_date: `2027-06-${day} 10:00`, end_date: `2027-06-${day} 12:00`, status: 'publish', ...extra } }));
    };
    /** The default calendar's quotas, set by the network's administration (replacing its own). */
    const defaultQuotas = (quotas: Record<string, number>) => ok(t.api.patch(network('default', '/calendars/1'), { as: 'admin', json: { quotas } }), 200);

    before(async () => {
      await ok(t.api.post(network('default', '/calendars'), { as: 'admin', json: { slug: 'north', name: 'North side' } }));
      await t.user('subscriber', 'north-editor');
      await t.built.services.calendars.setRole('north-editor', 'north', 'editor');
    });

    it('a calendar’s change stream shows nothing of who edits an event of another calendar (editing=ID of another calendar’s draft)', async () => {
      const draft = await ok(t.api.post(v1('default', '/events'), { as: 'admin', json: { title: 'Home draft', start_date: '2027-03-01 10:00', end_date: '2027-03-01 12:00', status: 'draft' } }));
      // North's editor follows the id of the default calendar's draft through north's stream.
      const stream = followEditors(t, 'north-editor:north-editor-pw', draft.id, '&heartbeat=1', '/c/north');
      try {
        await stream.opened;
        assert.equal(stream.status, 200);
        await stream.until(0, () => true);
        // The default calendar's administrator opens the draft in the editor (takes its lock).
        const taken = await ok(t.api.post(admin('default', `/events/${draft.id}/editors`), { as: 'admin' }), 200);
        assert.equal(taken.editors.length, 1, 'the lock is taken in the default calendar');
        await sleep(600);
        const seen = stream.states.filter((s) => s.editors.length > 0 || s.last_editor !== null);
        assert.deepEqual(seen, [], `north's stream showed the default calendar's editors of event ${draft.id}: ${JSON.stringify(stream.states)}`);
      } finally {
        stream.close();
        await t.api.delete(admin('default', `/events/${draft.id}/editors`), { as: 'admin' });
      }
    });

    it('a proposal to the default calendar counts against the default calendar’s submissions_per_day quota, not the proposer’s calendar’s', async () => {
      await defaultQuotas({ submissions_per_day: 1 });
      try {
        const answers: ApiResponse[] = [];
        for (const n of [1, 2, 3]) {
          const event = await published('north', `North offer ${n}`);
          answers.push(await t.api.post(network('north', '/proposals'), { as: 'admin', json: { event: event.id, to: 'default' } }));
        }
        assert.equal(answers[0]!.status, 201, answers[0]!.text);
        for (const later of answers.slice(1)) {
          assert.equal(later.status, 429, `the default calendar took a proposal past its submissions_per_day quota of 1: ${later.text.slice(0, 300)}`);
          assert.equal(later.body.code, 'calendar_quota_exceeded');
          assert.equal(later.body.data.quota, 'submissions_per_day');
        }
      } finally {
        await defaultQuotas({});
      }
    });

    it('a proposal to the default calendar counts against the default calendar’s events quota', async () => {
      const usage = await ok(t.api.get(network('default', '/calendars/1/usage'), { as: 'admin' }), 200);
      await defaultQuotas({ events: usage.events.used });
      try {
        const event = await published('north', 'North offer past the events quota');
        const res = await t.api.post(network('north', '/proposals'), { as: 'admin', json: { event: event.id, to: 'default' } });
        assert.equal(res.status, 403, `the default calendar, full, took the proposal: ${res.text.slice(0, 300)}`);
        assert.equal(res.body.code, 'calendar_quota_exceeded');
        assert.equal(res.body.data.quota, 'events');
        const after = await ok(t.api.get(network('default', '/calendars/1/usage'), { as: 'admin' }), 200);
        assert.equal(after.events.used, usage.events.used, 'nothing was stored in the default calendar');
      } finally {
        await defaultQuotas({});
      }
    });

    it('a follow’s copy of a default-calendar event links to that event in the default calendar, not to a path of the follower', async () => {
      await ok(t.api.post(network('default', '/calendars'), { as: 'admin', json: { slug: 'east', name: 'East side' } }));
      const source = await published('default', 'Zephyr recital');
      const sourceUrl = (await ok(t.api.get(v1('default', `/events/${source.id}`)), 200)).url as string;
      assert.equal(sourceUrl, `${t.origin}/event/${source.slug}/`);
      await ok(t.api.post(network('east', '/follows'), { as: 'admin', json: { calendar: 'default' } }));
      const copies = await ok(t.api.get(v1('east', '/events'), { query: { search: 'Zephyr', start_date: '2027-01-01', end_date: '2027-12-31' } }), 200);
      assert.equal(copies.events.length, 1, JSON.stringify(copies));
      const copy = copies.events[0];
      assert.equal(copy.website, sourceUrl, `the copy's website is the source event's URL (it was ${copy.website})`);
      assert.ok(copy.description.includes(`href="${sourceUrl}"`), `the copy's "from:" line links to the source event: ${copy.description}`);
      assert.ok(!copy.description.includes('/c/east/'), `the copy's "from:" line links into the follower: ${copy.description}`);
    });

    it('the network’s usage of the default calendar answers the same under another calendar’s prefix', async () => {
      await defaultQuotas({ events: 1000, submissions_per_day: 7 });
      try {
        const atRoot = await ok(t.api.get(network('default', '/calendars/1/usage'), { as: 'admin' }), 200);
        const underNorth = await ok(t.api.get(network('north', '/calendars/1/usage'), { as: 'admin' }), 200);
        assert.equal(atRoot.events.limit, 1000);
        assert.deepEqual(underNorth, atRoot, 'the default calendar’s usage read under /c/north answered north’s limits');
      } finally {
        await defaultQuotas({});
      }
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true', SUBMISSIONS: 'anyone', SUBMISSIONS_MIN_FILL: '0', SUBMISSIONS_MAX_PER_ADDRESS: '0', SUBMISSIONS_MAX_PER_EMAIL: '0' },
);
