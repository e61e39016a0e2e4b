/**
 * What a hostile review of the log's readers and the backups across calendars found, each a test
 * that failed before its fix: a calendar's paused webhook endpoint held every calendar's log from
 * pruning; a calendar administrator's TEC import could name an account of another calendar as
 * `author` (its row then in the export) and told which logins exist; an application password
 * limited to the default calendar exported every account; a change stream went on after its
 * viewer's role was taken away. The last test records what held.
 */
import { before, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachStore, type ApiResponse } from '../support/harness.js';
import { openChangeStream } from '../support/sse.js';
import { RECHECK_MS } from '../../src/domain/change-stream.js';
import { acrossCalendars } from '../../src/store/calendar-scope.js';
import { pruneChangeLog } from '../../src/jobs/change-log-pruning.js';

forEachStore(
  'calendars: the log’s readers, imports and exports across calendars',
  (t) => {
    const rest = (c: string, ns: string, path: string) => `${t.origin}${c === 'default' ? '' : `/c/${c}`}${t.config.restRoot}/${ns}${path}`;
    const v1 = (c: string, path: string) => rest(c, 'calendar/events/v1', path);
    const admin = (c: string, path: string) => rest(c, 'calendar/admin/v1', path);
    const ok = async (r: Promise<ApiResponse>, status = 201) => {
      const res = await r;
      assert.equal(res.status, status, res.text.slice(0, 400));
      return res.body;
    };
    let day = 0;
    const ev = (title: string, status = 'publish') => {
      const d = String(1 + (day++ % 28)).padStart(2, '0');
      return { title, status, start_date: `2031-03-${d} 10:00:00`, end_date: `2031-03-${d} 11:00:00` };
    };

    before(async () => {
      await t.built.services.calendars.create({ slug: 'alpha', name: 'Alpha' });
      await t.built.services.calendars.create({ slug: 'beta', name: 'Beta' });
      await t.user('subscriber', 'alpha-editor');
      await t.built.services.calendars.setRole('alpha-editor', 'alpha', 'editor');
      await t.user('subscriber', 'beta-admin');
      await t.built.services.calendars.setRole('beta-admin', 'beta', 'administrator');
      await t.user('subscriber', 'beta-editor');
      await t.built.services.calendars.setRole('beta-editor', 'beta', 'editor');
    });

    it('a change stream opened by an editor of beta stops showing beta’s changes once that role is removed', async () => {
      await t.user('subscriber', 'beta-leaver');
      await t.built.services.calendars.setRole('beta-leaver', 'beta', 'editor');
      const s = openChangeStream(t, 'beta-leaver:beta-leaver-pw', { prefix: '/c/beta', heartbeat: 1 });
      try {
        await s.opened;
        assert.equal(s.status, 200);
        const seen = await ok(t.api.post(v1('beta', '/events'), { as: 'admin', json: ev('Seen while an editor', 'draft') }));
        for (let i = 0; i < 40 && !s.text.includes(`"id":${seen.id}`); i++) await sleep(50);
        assert.ok(s.text.includes(`"id":${seen.id}`), s.text);
        // The network's administrators remove the role: the account is nobody in beta now.
        await t.built.services.calendars.setRole('beta-leaver', 'beta', '');
        const denied = await t.api.get(admin('beta', '/changes'), { as: 'beta-leaver' });
        assert.equal(denied.status, 403, denied.text);
        const secret = await ok(t.api.post(v1('beta', '/events'), { as: 'admin', json: ev('Beta draft after the removal', 'draft') }));
        await sleep(2500);
        assert.ok(!s.text.includes(`"id":${secret.id}`), `the stream of a user with no role in beta still shows beta's draft ${secret.id}: ${s.text}`);
      } finally {
        s.close();
      }
    });

    it('a change stream whose viewer changed where its calendar’s log does not show it (a network administrator demoted) ends within RECHECK_MS', async () => {
      await t.user('administrator', 'net-lead');
      const s = openChangeStream(t, 'net-lead:net-lead-pw', { prefix: '/c/beta', heartbeat: 1 });
      try {
        await s.opened;
        assert.equal(s.status, 200);
        const seen = await ok(t.api.post(v1('beta', '/events'), { as: 'admin', json: ev('Seen by the network', 'draft') }));
        for (let i = 0; i < 40 && !s.text.includes(`"id":${seen.id}`); i++) await sleep(50);
        assert.ok(s.text.includes(`"id":${seen.id}`), s.text);
        // Demoted in the default calendar: its log, not beta's, shows the change.
        await t.built.services.users.setRole('net-lead', 'subscriber');
        // RECHECK_MS later (the clock moved on; timers still real), the next write of beta is not sent and the stream ends.
        mock.timers.enable({ apis: ['Date'], now: Date.now() + RECHECK_MS + 1_000 });
        try {
          const secret = await ok(t.api.post(v1('beta', '/events'), { as: 'admin', json: ev('Beta draft after the demotion', 'draft') }));
          for (let i = 0; i < 40 && !s.ended; i++) await sleep(50);
          assert.ok(s.ended, 'the stream ended');
          assert.ok(!s.text.includes(`"id":${secret.id}`), s.text);
        } finally {
          mock.timers.reset();
        }
      } finally {
        s.close();
      }
    });

    it('a calendar administrator’s disabled webhook endpoint does not keep another calendar’s change log from being pruned', async () => {
      const db = t.built.store.db;
      const alphaId = (await t.built.services.calendars.get('alpha')).id;
      // beta's own administrator (not a network administrator) registers an endpoint and pauses it.
      const hook = await ok(t.api.post(admin('beta', '/webhooks'), { as: 'beta-admin', json: { url: 'http://127.0.0.1:9/hook' } }));
      await ok(t.api.patch(admin('beta', `/webhooks/${hook.id}`), { as: 'beta-admin', json: { enabled: false } }), 200);
      try {
        // alpha writes one event three times; the log keeps three rows of it.
        const made = await ok(t.api.post(v1('alpha', '/events'), { as: 'admin', json: ev('Alpha, often edited') }));
        for (const title of ['Alpha, edited', 'Alpha, edited again']) await ok(t.api.post(v1('alpha', `/events/${made.id}`), { as: 'admin', json: { title } }), 200);
        const rows = () =>
          acrossCalendars(() => db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', made.id).where('calendar_id', '=', alphaId).execute());
        assert.equal((await rows()).length, 3);
        // All of it is older than any calendar keeps (30 days by default).
        await acrossCalendars(() => db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute());
        await t.built.pruneJob.runOnce();
        // beta's endpoint reads beta's rows only: alpha's history is alpha's and is cut at its age.
        assert.equal((await rows()).length, 1, 'alpha’s old log rows were kept because of beta’s paused webhook endpoint');
        // beta's own rows after its endpoint's position stay for it, and the job says which reader holds them.
        const betaId = (await t.built.services.calendars.get('beta')).id;
        const own = await ok(t.api.post(v1('beta', '/events'), { as: 'admin', json: ev('Beta, often edited') }));
        await ok(t.api.post(v1('beta', `/events/${own.id}`), { as: 'admin', json: { title: 'Beta, edited' } }), 200);
        await acrossCalendars(() => db.updateTable('changes').set({ created_gmt: '2001-01-01 00:00:00' }).execute());
        const warned: string[] = [];
        await pruneChangeLog(t.built.services, { logger: { info: () => {}, warn: (_obj, msg) => warned.push(msg) } });
        const betaRows = await acrossCalendars(() =>
          db.selectFrom('changes').select('seq').where('record_type', '=', 'event').where('record_id', '=', own.id).where('calendar_id', '=', betaId).execute(),
        );
        assert.equal(betaRows.length, 2, 'beta’s rows its paused endpoint has not read are kept');
        assert.deepEqual(warned, [`change log pruning: calendar ${betaId}'s rows held back by a webhook endpoint cursor (a disabled endpoint? enable or remove it)`]);
      } finally {
        await t.api.delete(admin('beta', `/webhooks/${hook.id}`), { as: 'admin' });
      }
    });

    /** Wait for an import of calendar `c` to end. */
    const importEnded = async (c: string, id: number, as: string) => {
      for (let i = 0; i < 600; i++) {
        const state = await ok(t.api.get(admin(c, `/imports/${id}`), { as }), 200);
        if (state.status === 'done' || state.status === 'failed') return state;
        await sleep(50);
      }
      throw new Error(`import ${id} did not end`);
    };

    it('a calendar administrator’s TEC import cannot make an account of another calendar the author of its records (and so export its people)', async () => {
      // The source: a published event of the default calendar, read anonymously as a TEC site.
      await ok(t.api.post(v1('default', '/events'), { as: 'admin', json: { ...ev('Source fair'), start_date: '2031-09-09 10:00:00', end_date: '2031-09-09 11:00:00' } }));
      const tec = { type: 'tec', from: `${t.origin}${t.config.restRoot}`, namespace: 'calendar/events/v1' };
      // alpha-editor has no role in beta; beta-admin is beta's administrator only.
      const queued = await ok(t.api.post(admin('beta', '/imports'), { as: 'beta-admin', json: { ...tec, author: 'alpha-editor' } }), 202);
      const final = await importEnded('beta', queued.id, 'beta-admin');
      const exported = await ok(t.api.get(admin('beta', '/export'), { as: 'beta-admin', query: { format: 'json' } }), 200);
      const doc = typeof exported === 'string' ? JSON.parse(exported) : exported;
      const logins = (doc.tables.users as Array<{ login: string }>).map((u) => u.login);
      assert.ok(
        !logins.includes('alpha-editor'),
        `beta's export carries the account of alpha's editor (import ${final.status}, ${final.counts?.created} created): ${JSON.stringify(doc.tables.users)}`,
      );
    });

    it('a calendar administrator’s TEC import does not tell which logins exist in the network (author)', async () => {
      const tec = { type: 'tec', from: `${t.origin}${t.config.restRoot}`, namespace: 'calendar/events/v1', dry_run: true };
      const outcome = async (login: string) => {
        const queued = await ok(t.api.post(admin('beta', '/imports'), { as: 'beta-admin', json: { ...tec, author: login } }), 202);
        const final = await importEnded('beta', queued.id, 'beta-admin');
        return `${final.status} ${final.error ?? ''}`;
      };
      const existing = await outcome('alpha-editor');
      const missing = await outcome('nobody-at-all');
      assert.equal(existing.replace('alpha-editor', 'X'), missing.replace('nobody-at-all', 'X'), 'an account of another calendar is told apart from a login nobody has');
    });

    it('an application password limited to the default calendar, which may not list the accounts, does not get every account of the network in its export', async () => {
      const app = await t.built.services.users.addAppPassword('admin', 'default only');
      await t.built.services.calendars.limitAppPassword(app.uuid, 'default');
      const as = `admin:${app.password}`;
      // Managing (and listing) accounts is the network's: this password may not.
      const users = await t.api.get(admin('default', '/users'), { as });
      assert.equal(users.status, 403, users.text);
      const exported = await ok(t.api.get(admin('default', '/export'), { as, query: { format: 'json' } }), 200);
      const doc = typeof exported === 'string' ? JSON.parse(exported) : exported;
      const logins = (doc.tables.users as Array<{ login: string }>).map((u) => u.login);
      // beta-editor is an account of beta only, naming nothing of the default calendar.
      assert.ok(!logins.includes('beta-editor'), `the default calendar's export lists every account of the network: ${logins.join(', ')}`);
    });

    it('holds: beta’s change log, stream, imports, export and webhooks answer 401 anonymously and 403 to alpha’s editor and administrator', async () => {
      await t.user('subscriber', 'alpha-admin');
      await t.built.services.calendars.setRole('alpha-admin', 'alpha', 'administrator');
      for (const as of [null, 'alpha-editor', 'alpha-admin']) {
        for (const path of ['/changes', '/imports', '/export', '/webhooks']) {
          const r = await t.api.get(admin('beta', path), { as });
          assert.equal(r.status, as ? 403 : 401, `${as} ${path}: ${r.text}`);
          assert.equal(r.body.code, 'rest_forbidden');
        }
        const s = openChangeStream(t, as ? `${as}:${as}-pw` : 'nobody:nothing', { prefix: '/c/beta', heartbeat: 1 });
        await s.opened;
        s.close();
        assert.equal(s.status, as ? 403 : 401);
      }
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true' },
);
