/**
 * The authors of a TEC import, in a service of many calendars. Accounts are one login across every
 * calendar, and only a network administrator makes them: a calendar's own administrator may not
 * give `author_role` (403), and their import makes no account, each author being the account of that
 * login when it has a role in the calendar, else the importer; an import queued by a network
 * administrator who is no longer one when it runs makes none either. A network administrator's
 * import into another calendar makes the authors' accounts with `author_role` as their role there
 * (the account's own, the default calendar's, the least); into the default calendar, as the account's
 * own role, as it always did.
 *
 * The TEC site is a calendar of the same service (`south`, whose writers author its events), seen
 * at the root of a proxy (as a site of its own) that answers WordPress' `/wp/v2/users/ID` with the
 * login each test names.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachStore, type ApiResponse } from '../support/harness.js';

interface UserView {
  id: number;
  username: string;
  roles: string[];
}

forEachStore(
  'the authors of a TEC import into a calendar',
  (t) => {
    const rest = (c: string, ns: string, path: string) => `${t.origin}${c === 'default' ? '' : `/c/${c}`}${t.config.restRoot}/${ns}${path}`;
    const admin = (c: string, path: string) => rest(c, 'calendar/admin/v1', path);
    const network = (path: string) => rest('default', 'calendar/network/v1', path);
    const ok = async (r: Promise<ApiResponse>, status = 200) => {
      const res = await r;
      assert.equal(res.status, status, res.text.slice(0, 400));
      return res.body;
    };

    /** The login the source's `/wp/v2/users/ID` answers for each writer (none: 404, `author-ID`). */
    const names = new Map<number, string>();
    /** While set, the proxy holds every request until it resolves. */
    let hold: Promise<void> | undefined;
    let proxy: Server;
    let source = '';
    const calendars: Record<string, number> = {};
    const writers: number[] = [];
    let ann: { id: number };
    let northAdmin: { id: number };

    before(async () => {
      for (const slug of ['north', 'south', 'east', 'west']) calendars[slug] = (await ok(t.api.post(network('/calendars'), { as: 'admin', json: { slug, name: slug } }), 201)).id;
      // The source's writers, each the author of one published event of south.
      for (const n of [1, 2, 3]) {
        const writer = await t.user('subscriber', `south-writer-${n}`);
        await t.built.services.calendars.setRole(`south-writer-${n}`, 'south', 'author');
        writers.push(writer.id);
        const event = { title: `Written by ${n}`, start_date: `2031-05-0${n} 10:00`, end_date: `2031-05-0${n} 12:00`, status: 'publish' };
        await ok(t.api.post(rest('south', 'calendar/events/v1', '/events'), { as: `south-writer-${n}`, json: event }), 201);
      }
      // Here: ann, one of north's authors; bea, an account with no role in north; north's own administrator.
      ann = await t.user('subscriber', 'ann');
      await t.built.services.calendars.setRole('ann', 'north', 'author');
      await t.user('subscriber', 'bea');
      northAdmin = await t.user('subscriber', 'north-admin');
      await t.built.services.calendars.setRole('north-admin', 'north', 'administrator');

      const south = `${t.origin}/c/south`;
      proxy = createServer(async (req, res) => {
        if (hold) await hold;
        const user = /^\/api\/wp\/v2\/users\/(\d+)$/.exec(req.url!);
        if (user) {
          const login = names.get(Number(user[1]));
          if (login) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(user[1]), name: `Writer ${login}`, slug: login }));
          else res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"rest_no_route","message":"No route.","data":{"status":404}}');
          return;
        }
        const upstream = await fetch(south + req.url, { headers: { authorization: req.headers.authorization ?? '' } });
        const headers: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v.split(south).join(source);
        });
        res.writeHead(upstream.status, headers).end((await upstream.text()).split(south).join(source));
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      source = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    });
    after(() => {
      proxy?.closeAllConnections();
      proxy?.close();
    });

    const nameWriters = (logins: string[]) => {
      names.clear();
      logins.forEach((login, i) => names.set(writers[i]!, login));
    };
    const tecImport = (extra: Record<string, unknown> = {}) => ({ type: 'tec', from: `${source}/api`, namespace: 'calendar/events/v1', ...extra });
    const queue = (c: string, as: string, extra: Record<string, unknown> = {}) => t.api.post(admin(c, '/imports'), { as, json: tecImport(extra) });
    const until = async (c: string, id: number, as = 'admin', wanted = ['done', 'failed']) => {
      for (let i = 0; i < 600; i++) {
        const state = await ok(t.api.get(admin(c, `/imports/${id}`), { as }));
        if (wanted.includes(state.status)) return state;
        await sleep(50);
      }
      throw new Error(`import ${id} of ${c} did not end`);
    };
    /** Every account, as a network administrator lists them. */
    const users = async (): Promise<UserView[]> => ok(t.api.get(admin('default', '/users'), { as: 'admin', query: { per_page: 100 } }));
    const members = async (c: string): Promise<Array<{ login: string; role: string }>> => ok(t.api.get(network(`/calendars/${calendars[c]}/members`), { as: 'admin' }));
    /** Each imported event's author, by title. */
    const authors = async (c: string): Promise<Record<string, number>> => {
      const list = await ok(t.api.get(rest(c, 'calendar/events/v1', '/events'), { as: 'admin', query: { start_date: '2031-05-01', end_date: '2031-05-31' } }));
      return Object.fromEntries(list.events.map((e: { title: string; author: string }) => [e.title, Number(e.author)]));
    };
    const networkAdministrators = async () => (await users()).filter((u) => u.roles.includes('administrator')).map((u) => u.username);

    it('a calendar’s own administrator’s import makes no account: an author is the account of that login with a role in the calendar, else the importer', async () => {
      nameWriters(['ann', 'zed-north', 'bea']);
      const accounts = (await users()).map((u) => u.username).sort();
      const queued = await ok(queue('north', 'north-admin'), 202);
      const final = await until('north', queued.id, 'north-admin');
      assert.equal(final.status, 'done', JSON.stringify(final));
      assert.equal(final.counts.by_kind.event.created, 3, JSON.stringify(final.counts));
      assert.equal(final.counts.by_kind.user.created, 0, JSON.stringify(final.counts));
      assert.deepEqual((await users()).map((u) => u.username).sort(), accounts, 'no account was made');
      assert.deepEqual(await networkAdministrators(), ['admin']);
      // ann is one of north's; bea is nobody there, and zed-north no account at all.
      assert.deepEqual(await authors('north'), { 'Written by 1': ann.id, 'Written by 2': northAdmin.id, 'Written by 3': northAdmin.id });
      assert.deepEqual((await members('north')).map((m) => `${m.login}:${m.role}`).sort(), ['ann:author', 'north-admin:administrator']);
      const mapped = final.messages.filter((m: { type: string }) => m.type === 'mapped').map((m: { message: string }) => m.message);
      assert.ok(
        mapped.some((m: string) => m.startsWith(`user ${writers[1]} → ${northAdmin.id} (`) && /network administrator/.test(m)),
        JSON.stringify(final.messages),
      );
    });

    it('a calendar’s own administrator may not give author_role: 403, nothing queued', async () => {
      const before = (await ok(t.api.get(admin('north', '/imports'), { as: 'north-admin' }))).length;
      for (const role of ['administrator', 'subscriber']) {
        const res = await queue('north', 'north-admin', { author_role: role });
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.code, 'rest_forbidden');
        assert.match(res.body.data.params.author_role, /network administrator/);
      }
      assert.equal((await ok(t.api.get(admin('north', '/imports'), { as: 'north-admin' }))).length, before, 'nothing was queued');
    });

    it('an import queued by a network administrator who is no longer one when it runs makes no account', async () => {
      nameWriters(['ann', 'zed-demoted', 'bea']);
      const net = await t.user('administrator', 'net');
      const accounts = (await users()).map((u) => u.username).sort();
      // Another import holds the job (imports run one at a time) while net is demoted.
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      try {
        const first = await ok(queue('north', 'admin', { author: 'admin' }), 202);
        await until('north', first.id, 'admin', ['running', 'done', 'failed']);
        const queued = await ok(queue('east', 'net', { author_role: 'administrator' }), 202);
        await ok(t.api.post(admin('default', `/users/${net.id}`), { as: 'admin', json: { roles: ['subscriber'] } }));
        await ok(t.api.post(network(`/calendars/${calendars.east}/members`), { as: 'admin', json: { login: 'net', role: 'administrator' } }));
        hold = undefined;
        release();
        assert.equal((await until('north', first.id)).status, 'done');
        const final = await until('east', queued.id);
        assert.equal(final.status, 'done', JSON.stringify(final));
        assert.equal(final.counts.by_kind.event.created, 3, JSON.stringify(final.counts));
        assert.equal(final.counts.by_kind.user.created, 0, JSON.stringify(final.counts));
        // net is east’s administrator now, and none of the authors has an account with a role in east.
        assert.deepEqual(await authors('east'), { 'Written by 1': net.id, 'Written by 2': net.id, 'Written by 3': net.id });
      } finally {
        hold = undefined;
        release();
      }
      assert.deepEqual((await users()).map((u) => u.username).sort(), accounts, 'no account was made');
      assert.deepEqual(await networkAdministrators(), ['admin']);
    });

    it('a network administrator’s import into another calendar makes the authors’ accounts with author_role there, and the least of their own', async () => {
      nameWriters(['ann', 'zed-west', 'bea']);
      const accounts = (await users()).map((u) => u.username);
      const queued = await ok(queue('west', 'admin', { author_role: 'administrator' }), 202);
      const final = await until('west', queued.id);
      assert.equal(final.status, 'done', JSON.stringify(final));
      assert.equal(final.counts.by_kind.user.created, 1, JSON.stringify(final.counts));
      const made = (await users()).filter((u) => !accounts.includes(u.username));
      assert.deepEqual(
        made.map((u) => [u.username, u.roles]),
        [['zed-west', ['subscriber']]],
      );
      assert.deepEqual(await networkAdministrators(), ['admin']);
      // The accounts there were keep their roles: ann and bea are given none in west.
      assert.deepEqual(
        (await members('west')).map((m) => `${m.login}:${m.role}`),
        ['zed-west:administrator'],
      );
      const bea = (await users()).find((u) => u.username === 'bea')!;
      assert.deepEqual(await authors('west'), { 'Written by 1': ann.id, 'Written by 2': made[0]!.id, 'Written by 3': bea.id });
      // zed-west administers west, not north.
      assert.ok(!(await members('north')).some((m) => m.login === 'zed-west'));
    });

    it('a network administrator’s import into the default calendar makes the authors’ accounts of author_role, as before', async () => {
      nameWriters(['ann', 'zed-default']);
      const accounts = (await users()).map((u) => u.username);
      const queued = await ok(queue('default', 'admin', { author_role: 'contributor' }), 202);
      const final = await until('default', queued.id);
      assert.equal(final.status, 'done', JSON.stringify(final));
      const made = (await users()).filter((u) => !accounts.includes(u.username));
      assert.deepEqual(made.map((u) => [u.username, u.roles]).sort(), [
        [`author-${writers[2]}`, ['contributor']],
        ['zed-default', ['contributor']],
      ]);
      const byLogin = Object.fromEntries(made.map((u) => [u.username, u.id]));
      assert.deepEqual(await authors('default'), { 'Written by 1': ann.id, 'Written by 2': byLogin['zed-default'], 'Written by 3': byLogin[`author-${writers[2]}`] });
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: 'true' },
);
