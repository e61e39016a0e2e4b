/**
 * MCP, tec/v1 and the command line across calendars, probed as a hostile reviewer would. Those
 * marked "failed before its fix" did:
 *
 * - an MCP tool call waited forever for a second place of the fair share while its MCP request held
 *   the first (CALENDAR_FAIR_SHARE: every calendar's MCP hung while another calendar asked, and
 *   with it every request of its calendar queued behind) (failed before its fix);
 * - MCP's tools and resources ask the REST routes and pages in-process with `Host: localhost:80`: a
 *   calendar given that host name answered every other calendar's MCP (failed before its fix);
 * - a calendar slug of digits alone (`2`) read as calendar id 2 on the command line (`calendars
 *   set-role 2 ann --role administrator` made ann an administrator of another calendar) (failed
 *   before its fix);
 * - `seed --calendar` naming no calendar, or a bad `--events`, printed a stack trace (failed before
 *   its fix).
 *
 * What held is kept as tests: another calendar's ids through MCP's tools and tec/v1 (reads, writes,
 * links to its venues, organizers and categories), submission tools, a password limited to one
 * calendar on another's MCP, each calendar's requests_per_minute quota through MCP, and the
 * command line naming a calendar deleted or missing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStore, STORES, type TestServer } from '../support/harness.js';
import { viaHost } from '../support/raw-http.js';
import { EEA } from '../support/tec-v1.js';
import { OPEN } from '../support/submissions.js';
import { clearOfWindowEnd } from '../support/rate-window.js';
import { cli, cliEnv, cliTarget } from '../support/cli.js';

const WHEN = { start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00' };
const WINDOW = { start_date: '2030-01-01', end_date: '2030-12-31' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (credentials: string) => 'Basic ' + Buffer.from(credentials).toString('base64');

interface Rpc {
  status: number;
  text: string;
  /** The JSON-RPC answer. */
  body: any;
  /** A tool call's text (its JSON or its error). */
  tool: string;
  isError: boolean;
}

forEachStore(
  'probes: MCP and tec/v1 across calendars',
  (t) => {
    const rest = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
    const tec = (prefix: string, path: string) => `${t.origin}${prefix}/wp-json/tec/v1${path}`;
    const TEC = { 'x-tec-eea': EEA };
    let n = 0;
    /** One JSON-RPC request to a calendar's /mcp (prefix '' : the default calendar's), optionally on another Host. */
    const rpc = async (prefix: string, method: string, params: unknown, options: { as?: string; host?: string; timeoutMs?: number } = {}): Promise<Rpc> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (options.as) headers.authorization = basic(options.as);
      const payload = JSON.stringify({ jsonrpc: '2.0', id: ++n, method, params });
      let status: number;
      let text: string;
      if (options.host) ({ status, text } = await viaHost(t, `${prefix}/mcp`, options.host, { method: 'POST', headers, body: payload }));
      else {
        const res = await fetch(`${t.origin}${prefix}/mcp`, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(options.timeoutMs ?? 20_000) });
        status = res.status;
        text = await res.text();
      }
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        assert.fail(`${method} at ${prefix}/mcp answered ${status} ${text}`);
      }
      const content = (body.result?.content ?? []) as Array<{ text: string }>;
      return { status, text, body, tool: content.map((c) => c.text).join('\n'), isError: body.result?.isError === true };
    };
    const tool = (prefix: string, name: string, args: Record<string, unknown>, options: { as?: string; host?: string; timeoutMs?: number } = {}) =>
      rpc(prefix, 'tools/call', { name, arguments: args }, options);
    const titles = (answer: Rpc): string[] => (assert.equal(answer.isError, false, answer.text), JSON.parse(answer.tool) as { events: Array<{ title: string }> }).events.map((e) => e.title);
    const feed = (prefix: string, options: { host?: string; timeoutMs?: number } = {}) =>
      rpc(prefix, 'resources/read', { uri: `${options.host ? `http://${options.host}` : `${t.origin}${prefix}`}/events.ics` }, options);
    const feedText = (answer: Rpc): string => {
      assert.equal(answer.body.error, undefined, answer.text);
      return (answer.body.result.contents as Array<{ text: string }>).map((c) => c.text).join('\n');
    };

    const ids: Record<string, number> = {};
    /** An editor of north only (a subscriber of the default calendar), with an application password. */
    let nadia = '';
    /** The network administrator's application password limited to north. */
    let northOnly = '';
    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      const made = async (url: string, json: Record<string, unknown>) => {
        const res = await t.api.post(url, { as: 'admin', json });
        assert.equal(res.status, 201, res.text);
        return res.body.id as number;
      };
      ids.homeVenue = await made(rest('', '/venues'), { venue: 'Home hall', status: 'publish' });
      ids.homeOrganizer = await made(rest('', '/organizers'), { organizer: 'Home crew', status: 'publish' });
      ids.homeCategory = await made(rest('', '/categories'), { name: 'Home things' });
      ids.homeEvent = await made(rest('', '/events'), { title: 'Home fair', ...WHEN, status: 'publish', venue: ids.homeVenue });
      ids.homeDraft = await made(rest('', '/events'), { title: 'Home draft', ...WHEN, status: 'draft' });
      ids.homeTrashed = await made(rest('', '/events'), { title: 'Home trashed', ...WHEN, status: 'publish' });
      assert.equal((await t.api.delete(rest('', `/events/${ids.homeTrashed}`), { as: 'admin' })).status, 200);
      ids.northEvent = await made(rest('/c/north', '/events'), { title: 'Harbour lights', ...WHEN, status: 'publish' });
      ids.northVenue = await made(rest('/c/north', '/venues'), { venue: 'North quay', status: 'publish' });
      await t.user('subscriber', 'nadia');
      await t.built.services.calendars.setRole('nadia', 'north', 'editor');
      nadia = `nadia:${(await t.built.services.users.addAppPassword('nadia', 'assistant')).password}`;
      const limited = await t.built.services.users.addAppPassword('admin', 'north only');
      await t.built.services.calendars.limitAppPassword(limited.uuid, 'north');
      northOnly = `admin:${limited.password}`;
    });

    it('answers MCP tool calls and resource reads while another calendar asks (failed before its fix: they never answered)', async () => {
      // With CALENDAR_FAIR_SHARE=1, an MCP request holds its calendar's one place; its tool's REST
      // request waited for a second place in the same calendar, which it could never get.
      assert.equal((await fetch(rest('/c/north', '/events'))).status, 200);
      const home = await tool('', 'search_events', { search: 'fair', ...WINDOW }, { timeoutMs: 8_000 });
      assert.equal(home.isError, false, home.text);
      assert.deepEqual(titles(home), ['Home fair']);
      assert.equal((await fetch(rest('', '/events'))).status, 200);
      const north = await tool('/c/north', 'search_events', WINDOW, { timeoutMs: 8_000 });
      assert.deepEqual(titles(north), ['Harbour lights']);
      assert.match(feedText(await feed('/c/north', { timeoutMs: 8_000 })), /SUMMARY:Harbour lights/);
      // Many at once, in both calendars, each holding its calendar's place: every one answers.
      const calls = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2 ? tool('/c/north', 'search_events', WINDOW, { timeoutMs: 15_000 }) : tool('', 'search_events', WINDOW, { as: 'admin:admin-password', timeoutMs: 15_000 }),
        ),
      );
      for (const [i, call] of calls.entries()) assert.deepEqual(titles(call), i % 2 ? ['Harbour lights'] : ['Home fair', 'Home draft'], call.text);
    });

    it('answers another calendar’s ids through MCP’s tools as ids of nothing, and changes nothing', async () => {
      const missing = 99_999_999;
      for (const [name, args] of [
        ['get_event', { id: ids.homeEvent }],
        ['update_event', { id: ids.homeEvent, title: 'Taken over' }],
        ['trash_event', { id: ids.homeEvent }],
        ['restore_event', { id: ids.homeTrashed }],
        ['get_venue', { id: ids.homeVenue }],
        ['update_venue', { id: ids.homeVenue, venue: 'Taken over' }],
        ['trash_venue', { id: ids.homeVenue }],
        ['get_organizer', { id: ids.homeOrganizer }],
        ['update_organizer', { id: ids.homeOrganizer, organizer: 'Taken over' }],
      ] as const) {
        const theirs = await tool('/c/north', name, args, { as: nadia });
        const nothing = await tool('/c/north', name, { ...args, id: missing }, { as: nadia });
        assert.equal(theirs.isError, true, `${name}: ${theirs.text}`);
        // The same refusal as for an id no record has (its id in the message aside).
        assert.equal(theirs.tool.replaceAll(String(args.id), 'ID'), nothing.tool.replaceAll(String(missing), 'ID'), name);
      }
      // The network administrator's password limited to north is north's only, too.
      const limited = await tool('/c/north', 'update_event', { id: ids.homeEvent, title: 'Taken over' }, { as: northOnly });
      assert.match(limited.tool, /rest-event-not-found/);
      const event = await t.api.get(rest('', `/events/${ids.homeEvent}`), { as: 'admin' });
      assert.equal(event.body.title, 'Home fair');
      assert.equal(event.body.status, 'publish');
      const trashed = await t.api.get(rest('', `/events/${ids.homeTrashed}`), { as: 'admin' });
      // Still in the trash: its public answer is the trashed event's.
      assert.equal(trashed.body.code, 'event-no-longer-available', trashed.text);
      assert.equal((await t.api.get(rest('', `/venues/${ids.homeVenue}`), { as: 'admin' })).body.venue, 'Home hall');
      assert.equal((await t.api.get(rest('', `/organizers/${ids.homeOrganizer}`), { as: 'admin' })).body.organizer, 'Home crew');
      // North's editor is nobody in the default calendar: its MCP refuses her writes there.
      const there = await tool('', 'update_event', { id: ids.homeEvent, title: 'Taken over' }, { as: nadia });
      assert.match(there.tool, /rest_forbidden|rest-event-not-found/);
      assert.match((await tool('', 'create_event', { title: 'Nadia at home', ...WHEN }, { as: nadia })).tool, /rest_forbidden, HTTP 403/);
    });

    it('refuses an event of one calendar naming another calendar’s venue, organizer or category (MCP and tec/v1), storing nothing', async () => {
      const linked = await tool(
        '/c/north',
        'create_event',
        { title: 'Linked across', ...WHEN, status: 'publish', venue: ids.homeVenue, organizer: [ids.homeOrganizer], categories: [ids.homeCategory] },
        { as: nadia },
      );
      assert.equal(linked.isError, true, linked.text);
      assert.match(linked.tool, /rest_invalid_param/);
      for (const field of ['venue', 'organizer', 'categories']) assert.match(linked.tool, new RegExp(`- ${field}:`));
      const moved = await tool('/c/north', 'update_event', { id: ids.northEvent, venue: ids.homeVenue }, { as: nadia });
      assert.match(moved.tool, /rest_invalid_param/);
      const created = await t.api.post(tec('/c/north', '/events'), {
        as: nadia,
        headers: TEC,
        json: { title: 'Linked across', start_date: '2030-07-01 10:00:00', end_date: '2030-07-01 11:00:00', status: 'publish', venues: [ids.homeVenue], organizers: [ids.homeOrganizer] },
      });
      assert.equal(created.status, 400, created.text);
      assert.equal(created.body.code, 'rest_invalid_param');
      const updated = await t.api.put(tec('/c/north', `/events/${ids.northEvent}`), { as: nadia, headers: TEC, json: { venues: [ids.homeVenue] } });
      assert.equal(updated.status, 400, updated.text);
      const everything = await t.api.get(rest('/c/north', '/events'), { as: 'admin', query: { ...WINDOW, status: 'publish,draft,pending,private', search: 'Linked' } });
      assert.equal(everything.body.total, 0, everything.text);
      const north = await t.api.get(rest('/c/north', `/events/${ids.northEvent}`), { as: 'admin' });
      assert.deepEqual(north.body.venue, [], north.text);
    });

    it('answers another calendar’s ids through tec/v1 under a calendar’s prefix as ids of nothing', async () => {
      for (const [method, path, json] of [
        ['GET', `/events/${ids.homeEvent}`, undefined],
        ['PUT', `/events/${ids.homeEvent}`, { title: 'Taken over' }],
        ['DELETE', `/events/${ids.homeEvent}`, undefined],
        ['GET', `/venues/${ids.homeVenue}`, undefined],
        ['PUT', `/venues/${ids.homeVenue}`, { title: 'Taken over' }],
        ['DELETE', `/organizers/${ids.homeOrganizer}`, undefined],
      ] as const) {
        const options = { as: nadia, headers: TEC, ...(json ? { json } : {}) };
        const theirs = await t.api.request(method, tec('/c/north', path), options);
        const nothing = await t.api.request(method, tec('/c/north', path.replace(/\d+$/, '99999999')), options);
        assert.equal(theirs.status, nothing.status, `${method} ${path}: ${theirs.text}`);
        assert.equal(theirs.body.code, nothing.body.code, `${method} ${path}`);
      }
      // And the default calendar's tec/v1 knows nothing of north's event, even to the network administrator.
      const fromHome = await t.api.get(tec('', `/events/${ids.northEvent}`), { as: 'admin', headers: TEC });
      const nothing = await t.api.get(tec('', '/events/99999999'), { as: 'admin', headers: TEC });
      assert.equal(fromHome.status, nothing.status, fromHome.text);
      const list = await t.api.get(tec('/c/north', '/events'), { headers: TEC, query: { per_page: 50 } });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        (list.body as Array<{ title: { rendered: string } }>).map((e) => e.title.rendered),
        ['Harbour lights'],
      );
      assert.equal((await t.api.get(rest('', `/events/${ids.homeEvent}`), { as: 'admin' })).body.status, 'publish');
      assert.equal((await t.api.get(rest('', `/organizers/${ids.homeOrganizer}`), { as: 'admin' })).status, 200);
    });

    it('refuses a password limited to one calendar on every other calendar’s MCP and tec/v1', async () => {
      const home = await tool('', 'about_calendar', {}, { as: northOnly });
      assert.equal(home.status, 401, home.text);
      assert.equal(home.body.error.data.code, 'rest_invalid_credentials');
      const north = await tool('/c/north', 'about_calendar', {}, { as: northOnly });
      assert.equal(north.status, 200, north.text);
      assert.equal(JSON.parse(north.tool).name, 'North side');
      const write = await t.api.post(tec('', '/events'), { as: northOnly, headers: TEC, json: { title: 'Limited', start_date: '2030-07-01 10:00:00', end_date: '2030-07-01 11:00:00' } });
      assert.equal(write.status, 401, write.text);
    });

    it('reads no other calendar’s feed through a calendar’s MCP resources', async () => {
      const list = await rpc('/c/north', 'resources/list', {});
      assert.deepEqual(
        (list.body.result.resources as Array<{ uri: string }>).map((r) => r.uri),
        [`${t.origin}/c/north/events.ics`],
      );
      for (const uri of [`${t.origin}/events.ics`, `${t.origin}/c/north/../events.ics`, `${t.origin}/c/north/event/%2e%2e/%2e%2e/%2e%2e/event/home-fair/ical/`]) {
        const read = await rpc('/c/north', 'resources/read', { uri });
        assert.ok(read.body.error, `${uri}: ${read.text}`);
        assert.doesNotMatch(read.text, /Home fair/);
      }
      const own = feedText(await rpc('/c/north', 'resources/read', { uri: `${t.origin}/c/north/event/harbour-lights/ical/` }));
      assert.match(own, /SUMMARY:Harbour lights/);
    });

    it('keeps proposals and moderation through MCP in the calendar of the endpoint', async () => {
      const proposed = await tool('/c/north', 'propose_event', { title: 'Quay concert', ...WHEN, name: 'Sam', email: 'sam@example.org', venue: { venue: 'Pier 9' } });
      assert.equal(proposed.isError, false, proposed.text);
      // A venue id of another calendar is refused, as a missing one is.
      const across = await tool('/c/north', 'propose_event', { title: 'Hall concert', ...WHEN, name: 'Sam', email: 'sam@example.org', venue: ids.homeVenue });
      const nothing = await tool('/c/north', 'propose_event', { title: 'Hall concert', ...WHEN, name: 'Sam', email: 'sam@example.org', venue: 99_999_999 });
      assert.equal(across.isError, true, across.text);
      assert.equal(across.tool.replaceAll(String(ids.homeVenue), 'ID'), nothing.tool.replaceAll('99999999', 'ID'));
      const northQueue = await tool('/c/north', 'list_submissions', {}, { as: nadia });
      const queued = JSON.parse(northQueue.tool) as { submissions: Array<{ id: number; event: { title: string } }> };
      assert.deepEqual(
        queued.submissions.map((s) => s.event.title),
        ['Quay concert'],
      );
      const homeQueue = await tool('', 'list_submissions', {}, { as: 'admin:admin-password' });
      assert.deepEqual((JSON.parse(homeQueue.tool) as { submissions: unknown[] }).submissions, [], homeQueue.tool);
      // North's editor has no queue at home; home's moderators do not reach north's submission by id.
      assert.match((await tool('', 'list_submissions', {}, { as: nadia })).tool, /HTTP 403/);
      const id = queued.submissions[0]!.id;
      const approved = await tool('', 'approve_submission', { id }, { as: 'admin:admin-password' });
      assert.equal(approved.isError, true, approved.text);
      assert.match(approved.tool, /HTTP 404/);
      assert.match((await tool('', 'decline_submission', { id, reason: 'No.' }, { as: 'admin:admin-password' })).tool, /HTTP 404/);
      const still = JSON.parse((await tool('/c/north', 'list_submissions', {}, { as: nadia })).tool) as { submissions: Array<{ id: number; status: string }> };
      assert.deepEqual(
        still.submissions.map((s) => [s.id, s.status]),
        [[id, 'pending']],
      );
    });

    it('counts an MCP tool call and the REST request it makes in its calendar’s requests_per_minute quota, and no other’s', async () => {
      await t.built.services.calendars.update('north', { quotas: { requests_per_minute: 6 } });
      try {
        await clearOfWindowEnd(60, 15_000);
        // Each tool call is two requests of north (the MCP request, the REST request it makes).
        const answers: Rpc[] = [];
        for (let i = 0; i < 4; i++) answers.push(await tool('/c/north', 'search_events', WINDOW));
        assert.deepEqual(
          answers.map((a) => [a.status, a.isError]),
          [
            [200, false],
            [200, false],
            [200, false],
            [429, false],
          ],
          answers.map((a) => a.text).join('\n'),
        );
        // Answered as MCP answers every refusal before it reads the request: a JSON-RPC error, the REST code in `data`.
        assert.equal(answers[3]!.body.jsonrpc, '2.0', answers[3]!.text);
        assert.equal(answers[3]!.body.error?.data?.code, 'calendar_quota_exceeded', answers[3]!.text);
        assert.equal(answers[3]!.body.error?.data?.status, 429);
        // The default calendar's MCP is another calendar's count.
        assert.deepEqual(titles(await tool('', 'search_events', WINDOW)), ['Home fair']);
      } finally {
        await t.built.services.calendars.update('north', { quotas: {} });
      }
    });

    it('keeps every calendar’s MCP in its own calendar when a calendar has the host name of in-process requests (failed before its fix)', async () => {
      // An injected request's Host is localhost:80 (light-my-request's default): a calendar may take it.
      await t.built.services.calendars.create({ slug: 'local', name: 'Local', host: 'localhost:80' });
      const made = await t.api.post(rest('/c/local', '/events'), { as: 'admin', json: { title: 'Local only', ...WHEN, status: 'publish' } });
      assert.equal(made.status, 201, made.text);
      try {
        // The service learns host names in the background, within 2 seconds.
        let shown = false;
        for (let i = 0; i < 100 && !shown; i++) {
          shown = (await viaHost(t, `${t.config.restRoot}/calendar/events/v1/events?start_date=2030-01-01&end_date=2030-12-31`, 'localhost:80')).text.includes('Local only');
          if (!shown) await sleep(50);
        }
        assert.ok(shown, 'localhost:80 never answered as calendar local');
        await sleep(2_100);
        assert.deepEqual(titles(await tool('', 'search_events', WINDOW)), ['Home fair']);
        assert.deepEqual(titles(await tool('/c/north', 'search_events', WINDOW)), ['Harbour lights']);
        assert.deepEqual(titles(await tool('', 'search_events', WINDOW, { host: 'localhost:80' })), ['Local only']);
        const northFeed = feedText(await feed('/c/north'));
        assert.match(northFeed, /SUMMARY:Harbour lights/);
        assert.doesNotMatch(northFeed, /Local only/);
        assert.match(feedText(await feed('')), /SUMMARY:Home fair/);
        // A write through the default calendar's MCP is the default calendar's.
        const created = await tool('', 'create_event', { title: 'Made at home', ...WHEN, status: 'publish' }, { as: 'admin:admin-password' });
        assert.equal(created.isError, false, created.text);
        const id = JSON.parse(created.tool).id as number;
        assert.equal((await t.api.get(rest('', `/events/${id}`), { as: 'admin' })).status, 200);
        assert.equal((await t.api.get(rest('/c/local', `/events/${id}`), { as: 'admin' })).status, 404);
        assert.equal((await t.api.delete(rest('', `/events/${id}`), { as: 'admin', query: { force: 'true' } })).status, 200);
      } finally {
        await t.built.services.calendars.remove('local');
      }
    });
  },
  { ...OPEN, CALENDAR_FAIR_SHARE: '1' },
);

for (const kind of STORES) {
  describe(`probes: the command line naming calendars [${kind.name}]`, () => {
    let dir: string;
    let url: string;
    let t: TestServer;
    let env: Record<string, string>;
    const noStack = (res: { stderr: string }) => assert.doesNotMatch(res.stderr, /\n\s+at /, res.stderr);
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'events-calendar-cli-probes-'));
      ({ server: t, url } = await cliTarget(kind, dir, 'probes'));
      env = cliEnv(url, { LOG_LEVEL: 'silent', SITE_URL: t.origin });
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      await t.user('subscriber', 'ann');
    });
    after(async () => {
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses a slug of digits alone, which reads as another calendar’s id (failed before its fix)', { timeout: 120_000 }, async () => {
      const north = await t.built.services.calendars.get('north');
      const digits = String(north.id);
      const made = await cli(['calendars', 'create', digits, '--name', 'Digits'], env);
      assert.equal(made.code, 2, made.stdout + made.stderr);
      assert.match(made.stderr, /^error: .*slug.*letter/m);
      noStack(made);
      const renamed = await cli(['calendars', 'rename', 'north', '--slug', '12345'], env);
      assert.equal(renamed.code, 2, renamed.stdout + renamed.stderr);
      // Nor over HTTP.
      const http = await t.api.post(`${t.origin}${t.config.restRoot}/calendar/network/v1/calendars`, { as: 'admin', json: { slug: '777', name: 'Digits' } });
      assert.equal(http.status, 400, http.text);
      assert.equal(http.body.code, 'rest_invalid_param');
      // Whatever was tried, ann got no role in north.
      assert.deepEqual(await t.built.services.calendars.members('north'), []);
      assert.equal((await t.built.services.calendars.get('north')).slug, 'north');
    });

    it('names a calendar by its slug first: one made with digits alone (before they were refused) is that calendar, not the id', { timeout: 120_000 }, async () => {
      const north = await t.built.services.calendars.get('north');
      const other = await t.built.services.calendars.create({ slug: 'legacy', name: 'Legacy' });
      // A calendar whose slug is north's id, as an earlier version let one be made.
      await t.built.store.db
        .updateTable('calendars')
        .set({ slug: String(north.id) })
        .where('id', '=', other.id)
        .execute();
      try {
        const role = await cli(['calendars', 'set-role', String(north.id), 'ann', '--role', 'administrator'], env);
        assert.equal(role.code, 0, role.stderr);
        assert.deepEqual(
          (await t.built.services.calendars.members(other.id)).map((m) => [m.login, m.role]),
          [['ann', 'administrator']],
        );
        assert.deepEqual(await t.built.services.calendars.members(north.id), [], 'the role went to the calendar whose id the slug reads as');
      } finally {
        await t.built.services.calendars.remove(other.id);
      }
    });

    it('answers a missing or deleted calendar with one line and exit code 2, never a stack trace (seed failed before its fix)', { timeout: 240_000 }, async () => {
      const gone = await cli(['calendars', 'create', 'gone', '--name', 'Gone'], env);
      assert.equal(gone.code, 0, gone.stderr);
      assert.equal((await cli(['calendars', 'delete', 'gone', '--yes'], env)).code, 0);
      for (const args of [
        ['seed', '--events', '3', '--calendar', 'gone', '--no-progress'],
        ['seed', '--events', '3', '--calendar', 'no-such-calendar', '--no-progress'],
        ['seed', '--events', 'many', '--calendar', 'north', '--no-progress'],
        ['calendars', 'export', 'gone'],
        ['calendars', 'members', 'gone'],
        ['calendars', 'suspend', 'gone'],
        ['calendars', 'set-role', 'gone', 'ann', '--role', 'editor'],
        ['calendars', 'delete', 'gone', '--yes'],
        ['app-passwords', 'add', 'ann', '--calendar', 'gone'],
      ]) {
        const res = await cli(args, env);
        assert.equal(res.code, 2, `${args.join(' ')}: ${res.code} ${res.stdout}${res.stderr}`);
        assert.match(res.stderr, /^error: /, args.join(' '));
        noStack(res);
      }
      // Nothing was made for the calendar that is not there.
      assert.equal((await t.built.services.users.listAppPasswords('ann')).length, 0);
    });
  });
}
