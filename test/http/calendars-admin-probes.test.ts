/**
 * The admin API (`calendar/admin/v1`) across calendars, probed as a hostile reviewer would: two
 * calendars of their own (`alpha`, `beta`) beside the default one; `bea` administers beta only,
 * `ben` edits beta only, `ann` administers alpha only (each a subscriber of the default calendar).
 * Through beta's prefix (and alpha's, and the root), each probe tries to read or change alpha's
 * records by their ids, the accounts every calendar shares, the installation's settings, or to carry
 * a sign-in session's nonce from one calendar to another; and odd ids for a 500. Two failed before
 * their fixes: beta's administrator read the network administrator's login and address in GET
 * /settings, and the address of every author of beta's records (a network administrator's among
 * them) in beta's JSON export. The others held, and guard what they probe.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type ApiResponse } from '../support/harness.js';
import { authOf, plainImage } from '../support/media.js';

const WHEN = { start_date: '2031-05-01 10:00', end_date: '2031-05-01 11:00' };
const ALPHA = 'Alpha secret';
const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//probe//EN',
  'BEGIN:VEVENT',
  'UID:alpha-1@probe',
  'DTSTART:20310601T100000Z',
  'DTEND:20310601T110000Z',
  `SUMMARY:${ALPHA} import`,
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const formNonce = (html: string) => /name="_wpnonce" value="([^"]+)"/.exec(html)?.[1] ?? '';
const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

forEachStore(
  'probes: the admin API across calendars',
  (t) => {
    const rest = (prefix: string, ns: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/${ns}${path}`;
    const admin = (prefix: string, path: string) => rest(prefix, 'calendar/admin/v1', path);
    const v1 = (prefix: string, path: string) => rest(prefix, 'calendar/events/v1', path);
    const A = '/c/alpha';
    const B = '/c/beta';
    const ids = {} as { draft: number; series: number; occurrence: number; image: number; imageUrl: string; webhook: number; import: number; missing: number };
    const people = {} as Record<'bea' | 'ben' | 'ann' | 'root', { id: number }>;
    let betaId = 0;

    const ok = async (res: Promise<ApiResponse>, status = 201) => {
      const r = await res;
      assert.equal(r.status, status, r.text);
      return r.body;
    };
    /** The same request about a record that does not exist: the answer expected. */
    const asMissing = (res: ApiResponse, missing: ApiResponse, what: string) => {
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
      assert.deepEqual([res.status, res.body?.code], [missing.status, missing.body?.code], `${what}: ${res.text.slice(0, 300)} (a missing record: ${missing.text.slice(0, 200)})`);
      assert.ok(!res.text.includes(ALPHA), `${what} shows alpha's record: ${res.text.slice(0, 300)}`);
    };

    before(async () => {
      const calendars = t.built.services.calendars;
      await calendars.create({ slug: 'alpha', name: 'Alpha' });
      betaId = Number((await calendars.create({ slug: 'beta', name: 'Beta' })).id);
      people.root = { id: Number((await t.api.get(admin('', '/me'), { as: 'admin' })).body.id) };
      people.bea = await t.user('subscriber', 'bea');
      people.ben = await t.user('subscriber', 'ben');
      people.ann = await t.user('subscriber', 'ann');
      await calendars.setRole('bea', 'beta', 'administrator');
      await calendars.setRole('ben', 'beta', 'editor');
      await calendars.setRole('ann', 'alpha', 'administrator');
      ids.draft = (await ok(t.api.post(v1(A, '/events'), { as: 'ann', json: { title: `${ALPHA} draft`, ...WHEN, status: 'draft' } }))).id;
      const series = await ok(t.api.post(v1(A, '/events'), { as: 'ann', json: { title: `${ALPHA} series`, ...WHEN, status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] } }));
      ids.series = Number(series.recurring_event_id ?? series.id);
      const index = await ok(t.api.get(admin(A, '/events'), { as: 'ann' }), 200);
      ids.occurrence = index.find((e: { recurring_event_id?: number }) => e.recurring_event_id === ids.series)?.id ?? series.id;
      const upload = await fetch(admin(A, '/media'), { method: 'POST', headers: { 'content-type': 'image/png', ...authOf(t, 'ann') }, body: new Uint8Array(await plainImage(16, 16)) });
      assert.equal(upload.status, 201, await upload.clone().text());
      const image = (await upload.json()) as { id: number; url: string };
      ids.image = image.id;
      ids.imageUrl = image.url;
      ids.webhook = (await ok(t.api.post(admin(A, '/webhooks'), { as: 'ann', json: { url: 'http://127.0.0.1:9/hook', description: `${ALPHA} hook` } }))).id;
      ids.import = (await ok(t.api.post(admin(A, '/imports'), { as: 'ann', json: { file: ICS, filename: 'alpha.ics', dry_run: true } }), 202)).id;
      // An id no record has, beyond every id given so far.
      ids.missing = 987654;
    });

    it('gives a calendar’s administrator no hold on the accounts every calendar shares, under any prefix', async () => {
      for (const prefix of [B, A, '']) {
        const refusals: Array<[string, Promise<ApiResponse>]> = [
          ['list users', t.api.get(admin(prefix, '/users'), { as: 'bea' })],
          ['read an administrator', t.api.get(admin(prefix, `/users/${people.ann.id}`), { as: 'bea' })],
          ['change an alpha administrator’s e-mail', t.api.patch(admin(prefix, `/users/${people.ann.id}`), { as: 'bea', json: { email: 'taken@evil.example' } })],
          ['change a network administrator’s password', t.api.post(admin(prefix, `/users/${people.root.id}`), { as: 'bea', json: { password: 'Taken-over-pw-123456' } })],
          ['raise beta’s editor to administrator', t.api.patch(admin(prefix, `/users/${people.ben.id}`), { as: 'bea', json: { roles: ['administrator'] } })],
          ['remove an account', t.api.delete(admin(prefix, `/users/${people.ann.id}`), { as: 'bea', query: { force: 'true', reassign: people.bea.id } })],
          ['invite an administrator', t.api.post(admin(prefix, '/invitations'), { as: 'bea', json: { email: 'friend@evil.example', role: 'administrator' } })],
          ['list invitations', t.api.get(admin(prefix, '/invitations'), { as: 'bea' })],
          ['mint an application password for another', t.api.post(admin(prefix, `/users/${people.ann.id}/application-passwords`), { as: 'bea', json: { name: 'mine' } })],
          ['list another’s application passwords', t.api.get(admin(prefix, `/users/${people.root.id}/application-passwords`), { as: 'bea' })],
          ['list another’s sessions', t.api.get(admin(prefix, '/sessions'), { as: 'bea', query: { user: people.ann.id } })],
          ['end another’s sessions', t.api.delete(admin(prefix, '/sessions'), { as: 'bea', query: { user: people.root.id } })],
        ];
        for (const [what, res] of refusals) {
          const r = await res;
          assert.equal(r.status, 403, `${prefix || 'root'}: ${what}: ${r.status} ${r.text.slice(0, 200)}`);
        }
      }
      // Nothing changed: the accounts still sign in with their passwords, with their roles.
      const ann = await t.api.get(admin(A, '/me'), { as: 'ann' });
      assert.equal(ann.status, 200, ann.text);
      assert.equal(ann.body.email, '');
      assert.deepEqual((await t.api.get(admin('', `/users/${people.ben.id}`), { as: 'admin' })).body.roles, ['subscriber']);
      assert.equal((await t.api.get(admin('', '/me'), { as: 'admin' })).status, 200);
    });

    it('takes no role from PATCH /me, and gives none through the network namespace to a calendar’s administrator', async () => {
      const me = await t.api.patch(admin(B, '/me'), { as: 'bea', json: { roles: ['administrator'], role: 'administrator', name: 'Bea' } });
      assert.equal(me.status, 200, me.text);
      assert.deepEqual((await t.api.get(admin('', `/users/${people.bea.id}`), { as: 'admin' })).body.roles, ['subscriber'], 'bea is no network administrator');
      for (const prefix of [B, '']) {
        const member = await t.api.post(rest(prefix, 'calendar/network/v1', `/calendars/${betaId}/members`), { as: 'bea', json: { login: 'ben', role: 'administrator' } });
        assert.equal(member.status, 403, member.text);
        const alphaId = (await t.api.get(rest('', 'calendar/network/v1', '/calendars'), { as: 'admin', query: { search: 'alpha' } })).body.find((c: { slug: string }) => c.slug === 'alpha').id;
        const elsewhere = await t.api.post(rest(prefix, 'calendar/network/v1', `/calendars/${alphaId}/members`), { as: 'bea', json: { login: 'bea', role: 'administrator' } });
        assert.equal(elsewhere.status, 403, elsewhere.text);
      }
      assert.equal((await t.api.get(admin(A, '/settings'), { as: 'bea' })).status, 403, 'bea is nobody in alpha');
    });

    it('does not show a calendar’s own administrator the installation’s administrator account, nor its database or media folder (GET /settings)', async () => {
      const res = await t.api.get(admin(B, '/settings'), { as: 'bea' });
      assert.equal(res.status, 200, res.text);
      const value = (name: string) => res.body.find((s: { name: string }) => s.name === name)?.value;
      assert.notEqual(value('CALENDAR_ADMIN_EMAIL'), 'root@network.example', 'beta’s administrator is told the network administrator’s address');
      assert.notEqual(value('CALENDAR_ADMIN_USER'), 'admin', 'beta’s administrator is told the network administrator’s login');
      // Masked as secrets are: set, and not shown.
      assert.equal(value('CALENDAR_ADMIN_EMAIL'), '********');
      assert.equal(value('CALENDAR_ADMIN_USER'), '********');
      // Nor where the installation keeps its data: the database's host and user, the media folder.
      assert.equal(value('DATABASE_URL'), '********', `beta’s administrator is told the database: ${value('DATABASE_URL')}`);
      assert.equal(value('MEDIA_DIR'), '********');
      // Its own calendar's settings are shown as they are.
      assert.equal(value('SITE_NAME'), 'Beta');
      // So after a change (PATCH answers the list too).
      const patched = await t.api.patch(admin(B, '/settings'), { as: 'bea', json: { CALENDAR_WEEK_START: 1 } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.find((s: { name: string }) => s.name === 'CALENDAR_ADMIN_EMAIL')?.value, '********');
      // A network administrator is told them, in any calendar.
      for (const prefix of ['', B]) {
        const network = await t.api.get(admin(prefix, '/settings'), { as: 'admin' });
        assert.equal(network.body.find((s: { name: string }) => s.name === 'CALENDAR_ADMIN_EMAIL')?.value, 'root@network.example');
        assert.equal(network.body.find((s: { name: string }) => s.name === 'CALENDAR_ADMIN_USER')?.value, 'admin');
        assert.notEqual(network.body.find((s: { name: string }) => s.name === 'MEDIA_DIR')?.value, '********');
      }
    });

    it('keeps a calendar’s settings its own: beta’s change reaches neither alpha nor the default calendar', async () => {
      const changed = await t.api.patch(admin(B, '/settings'), { as: 'bea', json: { SITE_NAME: 'Beta renamed', CALENDAR_TIMEZONE: 'Asia/Tokyo' } });
      assert.equal(changed.status, 200, changed.text);
      const site = async (prefix: string) => (await t.api.get(admin(prefix, '/settings'), { as: 'admin' })).body.find((s: { name: string }) => s.name === 'SITE_NAME').value;
      assert.equal(await site(B), 'Beta renamed');
      assert.notEqual(await site(A), 'Beta renamed');
      assert.notEqual(await site(''), 'Beta renamed');
      const env = await t.api.patch(admin(B, '/settings'), { as: 'bea', json: { SUBMISSIONS: 'anyone', CORS_ORIGINS: '*' } });
      assert.equal(env.status, 400, env.text);
      assert.equal((await t.api.patch(admin(A, '/settings'), { as: 'bea', json: { SITE_NAME: 'Hijacked' } })).status, 403);
    });

    it('answers alpha’s event ids through beta as ids no event has, and changes nothing (locks, previews, trash, purge, send-back)', async () => {
      // Alpha's administrator has the draft open.
      assert.equal((await t.api.post(admin(A, `/events/${ids.draft}/editors`), { as: 'ann' })).status, 200);
      const cases: Array<[string, string, string, Record<string, unknown> | undefined]> = [
        ['GET', '/editors', 'read who edits', undefined],
        ['POST', '/editors', 'take a lock', undefined],
        ['DELETE', '/editors', 'release a lock', undefined],
        ['POST', '/preview', 'a preview link', undefined],
        ['POST', '/trash', 'trash', { scope: 'all' }],
        ['POST', '/restore', 'restore', { scope: 'all' }],
        ['POST', '/send-back', 'send back', { note: 'no' }],
        ['GET', '', 'the typed fields and password', undefined],
        ['DELETE', '', 'purge', undefined],
      ];
      for (const who of ['bea', 'ben', 'admin']) {
        for (const [method, tail, what, json] of cases) {
          for (const id of [ids.draft, ids.series, ids.occurrence]) {
            const res = await t.api.request(method, admin(B, `/events/${id}${tail}`), { as: who, ...(json ? { json } : {}) });
            const missing = await t.api.request(method, admin(B, `/events/${ids.missing}${tail}`), { as: who, ...(json ? { json } : {}) });
            asMissing(res, missing, `${who} through beta: ${what} of alpha's ${id}`);
          }
        }
      }
      // Alpha's records are as they were: the draft a draft, the series published, ann's lock alone.
      const state = await t.api.get(admin(A, `/events/${ids.draft}/editors`), { as: 'ann' });
      assert.deepEqual(
        state.body.editors.map((e: { id: number }) => e.id),
        [people.ann.id],
      );
      assert.equal((await t.api.get(v1(A, `/events/${ids.draft}`), { as: 'ann' })).body.status, 'draft');
      assert.equal((await t.api.get(v1(A, `/events/${ids.occurrence}`), { as: 'ann' })).body.status, 'publish');
    });

    it('holds no lock on alpha’s event, and tells nothing of it, from beta’s change stream', async () => {
      const ctl = new AbortController();
      const res = await fetch(`${admin(B, '/changes/stream')}?editing=${ids.draft}&hold=1&heartbeat=1`, { headers: authOf(t, 'bea'), signal: ctl.signal });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      let text = '';
      const until = Date.now() + 3000;
      while (!text.includes('event: editors') && Date.now() < until) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const state = await t.api.get(admin(A, `/events/${ids.draft}/editors`), { as: 'ann' });
      ctl.abort();
      await reader.cancel().catch(() => {});
      assert.ok(!state.body.editors.some((e: { id: number }) => e.id === people.bea.id), `beta's stream locked alpha's event: ${state.text}`);
      const editors = /event: editors\ndata: (.*)\n/.exec(text)?.[1];
      assert.ok(editors, `no editors event: ${text}`);
      const data = JSON.parse(editors);
      assert.deepEqual(data.editors, [], `beta's stream tells alpha's editors: ${editors}`);
      assert.equal(data.last_editor, null, `beta's stream tells alpha's last editor: ${editors}`);
      assert.ok(!text.includes(ALPHA));
    });

    it('shows none of alpha’s writes in beta’s change log, nor an account’s changes to beta’s administrator', async () => {
      const head = (await t.api.get(admin(B, '/changes'), { as: 'bea' })).body.head as number;
      await ok(t.api.post(v1(A, '/events'), { as: 'ann', json: { title: `${ALPHA} later`, ...WHEN, status: 'publish' } }));
      await ok(t.api.patch(admin('', `/users/${people.ben.id}`), { as: 'admin', json: { name: 'Ben B.' } }), 200);
      const log = await t.api.get(admin(B, '/changes'), { as: 'bea', query: { after: head } });
      assert.equal(log.status, 200, log.text);
      assert.deepEqual(log.body.events, [], `beta's log: ${log.text}`);
      assert.equal((await t.api.get(admin(A, '/changes'), { as: 'bea' })).status, 403);
      assert.equal((await t.api.get(admin(A, '/changes'), { as: 'ben' })).status, 403);
    });

    it('answers alpha’s import, image and webhook ids through beta as missing ones', async () => {
      const pairs: Array<[string, string, string, Record<string, unknown> | undefined]> = [
        ['GET', `/imports/${ids.import}`, `/imports/${ids.missing}`, undefined],
        ['POST', `/imports/${ids.import}/venues`, `/imports/${ids.missing}/venues`, {}],
        ['GET', `/media/${ids.image}`, `/media/${ids.missing}`, undefined],
        ['PATCH', `/media/${ids.image}`, `/media/${ids.missing}`, { alt_text: 'mine' }],
        ['DELETE', `/media/${ids.image}`, `/media/${ids.missing}`, undefined],
        ['GET', `/webhooks/${ids.webhook}`, `/webhooks/${ids.missing}`, undefined],
        ['PATCH', `/webhooks/${ids.webhook}`, `/webhooks/${ids.missing}`, { enabled: false }],
        ['POST', `/webhooks/${ids.webhook}/test`, `/webhooks/${ids.missing}/test`, undefined],
        ['GET', `/webhooks/${ids.webhook}/deliveries`, `/webhooks/${ids.missing}/deliveries`, undefined],
        ['DELETE', `/webhooks/${ids.webhook}`, `/webhooks/${ids.missing}`, undefined],
      ];
      for (const [method, path, missingPath, json] of pairs) {
        const res = await t.api.request(method, admin(B, path), { as: 'bea', ...(json ? { json } : {}) });
        const missing = await t.api.request(method, admin(B, missingPath), { as: 'bea', ...(json ? { json } : {}) });
        asMissing(res, missing, `${method} ${path}`);
      }
      const lists = await Promise.all([
        t.api.get(admin(B, '/imports'), { as: 'bea' }),
        t.api.get(admin(B, '/media'), { as: 'bea' }),
        t.api.get(admin(B, '/media'), { as: 'bea', query: { url: ids.imageUrl } }),
        t.api.get(admin(B, '/webhooks'), { as: 'bea' }),
      ]);
      for (const list of lists) {
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(list.body, [], `beta's list shows alpha's: ${list.text.slice(0, 300)}`);
      }
      // Alpha's still are.
      assert.equal((await t.api.get(admin(A, `/media/${ids.image}`), { as: 'ann' })).status, 200);
      assert.equal((await t.api.get(admin(A, `/webhooks/${ids.webhook}`), { as: 'ann' })).body.enabled, true);
      assert.equal((await t.api.get(admin(A, `/imports/${ids.import}`), { as: 'ann' })).status, 200);
    });

    it('exports beta alone from beta, with nothing of the network administrator’s account', async () => {
      // The network administrator sets up beta's first event (as network administrators do).
      await ok(t.api.post(v1(B, '/events'), { as: 'admin', json: { title: 'Beta opening', ...WHEN, status: 'publish' } }));
      await ok(t.api.post(v1(B, '/events'), { as: 'ben', json: { title: 'Beta workshop', ...WHEN, status: 'publish' } }));
      const res = await t.api.get(admin(B, '/export'), { as: 'bea' });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.ok(!res.text.includes(ALPHA), 'beta’s export holds alpha’s records');
      assert.ok(res.text.includes('Beta opening'));
      const users = (JSON.parse(res.text).tables.users ?? []) as Array<{ id: number; login: string; email: string; role: string }>;
      const root = users.find((u) => u.id === people.root.id);
      assert.ok(root, 'the author of beta’s event is in its export (a restore keeps who wrote what)');
      assert.equal(root.email, '', `beta’s administrator is given the network administrator’s address: ${JSON.stringify(root)}`);
      assert.equal(root.login, 'admin');
      // Each author's role is the one in beta (what a restore of beta gives), not the default calendar's.
      assert.equal(users.find((u) => u.id === people.ben.id)?.role, 'editor', `ben's role in beta's export: ${JSON.stringify(users)}`);
      assert.equal(root.role, 'administrator');
      // A network administrator's export of beta carries the address (as the command line's does).
      const network = await t.api.get(admin(B, '/export'), { as: 'admin' });
      const full = (JSON.parse(network.text).tables.users as Array<{ id: number; email: string }>).find((u) => u.id === people.root.id);
      assert.equal(full?.email, 'root@network.example');
      const ics = await t.api.get(admin(B, '/export'), { as: 'bea', query: { format: 'ics' } });
      assert.ok(!ics.text.includes(ALPHA));
      assert.equal((await t.api.get(admin(A, '/export'), { as: 'bea' })).status, 403);
    });

    it('carries a sign-in session’s nonce to another calendar only with the role it has there', async () => {
      const form0 = await fetch(`${t.origin}${B}/admin/login`, { redirect: 'manual' });
      const signIn = await fetch(`${t.origin}${B}/admin/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form0) },
        body: new URLSearchParams({ log: 'bea', pwd: 'bea-pw', _wpnonce: formNonce(await form0.text()), redirect_to: `${B}/admin/` }).toString(),
      });
      assert.equal(signIn.status, 303, await signIn.text());
      const cookie = cookieOf(signIn);
      const nonce = await (await fetch(`${t.origin}${B}/admin/rest-nonce`, { headers: { cookie } })).text();
      const withSession = (url: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { cookie, 'x-wp-nonce': nonce, ...(init.headers ?? {}) } });
      assert.equal((await withSession(admin(B, '/settings'))).status, 200, 'the session administers beta');
      for (const prefix of [A, '']) {
        const read = await withSession(admin(prefix, '/settings'));
        assert.equal(read.status, 403, `${prefix || 'root'}: ${await read.text()}`);
        const write = await withSession(v1(prefix, '/events'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Carried', ...WHEN }) });
        assert.equal(write.status, 403, `${prefix || 'root'}: ${await write.text()}`);
        const draft = await withSession(v1(prefix, `/events/${ids.draft}`));
        assert.notEqual(draft.status, 200);
      }
      // The app under alpha's prefix boots bea with no role there.
      const app = await fetch(`${t.origin}${A}/admin/`, { headers: { cookie } });
      const html = await app.text();
      if (app.status === 200) assert.ok(!/"roles":\["administrator"\]/.test(html), 'alpha’s admin app boots beta’s administrator as one');
      // Another session's nonce is no nonce of this one.
      const annForm = await fetch(`${t.origin}${A}/admin/login`, { redirect: 'manual' });
      const annIn = await fetch(`${t.origin}${A}/admin/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(annForm) },
        body: new URLSearchParams({ log: 'ann', pwd: 'ann-pw', _wpnonce: formNonce(await annForm.text()) }).toString(),
      });
      const annNonce = await (await fetch(`${t.origin}${A}/admin/rest-nonce`, { headers: { cookie: cookieOf(annIn) } })).text();
      const mixed = await fetch(admin(A, '/settings'), { headers: { cookie, 'x-wp-nonce': annNonce } });
      const mixedText = await mixed.text();
      assert.equal(mixed.status, 403, mixedText);
      assert.equal((JSON.parse(mixedText) as { code: string }).code, 'rest_cookie_invalid_nonce');
    });

    it('opens a preview link in its own calendar only, and limits an application password of beta to beta', async () => {
      const draft = await ok(t.api.post(v1(B, '/events'), { as: 'ben', json: { title: 'Beta surprise', ...WHEN, status: 'draft' } }));
      const link = await ok(t.api.post(admin(B, `/events/${draft.id}/preview`), { as: 'ben' }), 200);
      const url = new URL(link.url as string);
      assert.equal((await fetch(url)).status, 200, 'the link opens beta’s draft in beta');
      // The same token and path under alpha's prefix and at the root: the page any unknown address gets.
      for (const prefix of [A, '']) {
        const elsewhere = await fetch(`${t.origin}${url.pathname.replace(/^\/c\/beta/, prefix)}${url.search}`);
        const body = await elsewhere.text();
        assert.equal(elsewhere.status, 404, `${prefix || 'root'}: ${body.slice(0, 200)}`);
        assert.ok(!body.includes('Beta surprise'));
      }
      const made = await ok(t.api.post(admin(B, `/users/${people.bea.id}/application-passwords`), { as: 'bea', json: { name: 'beta tool' } }));
      assert.ok(made.password, made);
      // Limited to beta (as `app-passwords add bea --calendar beta` makes it).
      await t.built.services.calendars.limitAppPassword(made.uuid, 'beta');
      const key = `bea:${made.password}`;
      assert.equal((await t.api.get(admin(B, '/settings'), { as: key })).status, 200);
      for (const prefix of [A, '']) assert.equal((await t.api.get(admin(prefix, '/me'), { as: key })).status, 401, `${prefix || 'root'}: it proves nobody`);
      // In beta, it changes no credential of its account.
      assert.equal((await t.api.post(admin(B, `/users/${people.bea.id}/application-passwords`), { as: key, json: { name: 'unlimited' } })).status, 403);
      assert.equal((await t.api.patch(admin(B, '/me'), { as: key, json: { email: 'bea@evil.example' } })).status, 403);
    });

    it('answers odd ids with WordPress errors, never a 500', async () => {
      const huge = '99999999999999999999';
      const paths = [
        ['GET', `/imports/${huge}`],
        ['POST', `/imports/${huge}/venues`],
        ['GET', `/media/${huge}`],
        ['GET', `/webhooks/${huge}`],
        ['GET', `/events/${huge}/editors`],
        ['POST', `/events/${huge}/preview`],
        ['POST', `/events/${huge}/send-back`],
        ['GET', `/users/${huge}`],
        ['POST', `/invitations/${huge}`],
        ['DELETE', `/invitations/${huge}`],
        ['DELETE', `/sessions/${huge}`],
        ['GET', `/venues/${huge}`],
        ['GET', `/events/${huge}`],
        ['GET', `/changes?after=999999999999999`],
        ['GET', `/imports/-1`],
        ['GET', `/media/1e3`],
        ['DELETE', `/users/${people.bea.id}/application-passwords/${'x'.repeat(300)}`],
      ];
      for (const prefix of [B, '']) {
        for (const [method, path] of paths) {
          const res = await t.api.request(method!, admin(prefix, path!), { as: 'admin', json: method === 'GET' || method === 'DELETE' ? undefined : { note: 'x' } });
          assert.ok(res.status < 500, `${method} ${prefix}${path}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    });
  },
  { CALENDAR_ADMIN_EMAIL: 'root@network.example', WEBHOOKS_ALLOW_PRIVATE: 'true' },
);
