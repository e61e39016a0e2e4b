/**
 * What is kept for speed stays each calendar's when requests move between calendars:
 *
 * - Answers replayed below Fastify (web/replay.ts) are keyed by URL and Host and kept while their
 *   own calendar's revision holds. A host name given to a calendar, or taken from it, moves the
 *   host's requests to another calendar: what was kept there is never answered for the calendar
 *   that has the host now (the default calendar's list under a calendar's host name, a prefixed
 *   path that a calendar's own host name does not serve).
 * - MCP's tools are written with their calendar's settings (propose_event names the calendar's
 *   challenge URL), whichever calendar MCP was first asked in, and a refused sign-in names the
 *   calendar's realm.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore, type TestServer } from '../support/harness.js';
import { viaHost, type HostAnswer as Answer } from '../support/raw-http.js';

const when = { start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many answers this server replayed below Fastify so far. */
async function replays(t: TestServer): Promise<number> {
  const text = await (await fetch(`${t.origin}/metrics`)).text();
  return Number(/^calendar_replayed_answers_total\{status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

forEachStore(
  'calendars: replayed answers and MCP tools follow the calendar a request is of now',
  (t) => {
    /** A request to the test server with this Host (fetch may not set it). */
    const send = (path: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) => viaHost(t, path, host, options);
    const rest = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
    const list = () => `${t.config.restRoot}/calendar/events/v1/events?start_date=2030-05-01&end_date=2030-07-01`;
    /** Wait until the service answers `host`'s list page with `mark` in it (host names are read again in the background). */
    const hostShows = async (host: string, mark: string) => {
      for (let i = 0; i < 200; i++) {
        const page = await send('/events/list/', host);
        if (page.status === 200 && page.text.includes(mark)) return;
        await sleep(50);
      }
      assert.fail(`${host} never answered a page showing ${mark}`);
    };
    /** The same anonymous read three times: the third is replayed (kept from the second identical answer on). */
    const replayed = async (path: string, host: string, mark: RegExp) => {
      const before = await replays(t);
      for (let i = 0; i < 3; i++) {
        const res = await send(path, host);
        assert.equal(res.status, 200, res.text);
        assert.match(res.text, mark);
      }
      assert.ok((await replays(t)) > before, `${path} on ${host} was never replayed`);
    };
    const mcp = async (prefix: string, body: unknown, options: { host?: string; authorization?: string } = {}): Promise<Answer> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (options.authorization) headers.authorization = options.authorization;
      return send(`${prefix}/mcp`, options.host ?? new URL(t.origin).host, { method: 'POST', headers, body: JSON.stringify(body) });
    };
    const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    /** The description of `propose_event`'s `altcha` argument in a tools/list answer. */
    const challengeOf = (answer: Answer): string | undefined => {
      const tools = (JSON.parse(answer.text) as { result: { tools: Array<{ name: string; inputSchema: { properties: Record<string, { description?: string }> } }> } }).result.tools;
      return tools.find((tool) => tool.name === 'propose_event')?.inputSchema.properties.altcha?.description;
    };

    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side' });
      const home = await t.api.post('/events', { as: 'admin', json: { title: 'Home fair', ...when, status: 'publish' } });
      assert.equal(home.status, 201, home.text);
      const north = await t.api.post(rest('/c/north', '/events'), { as: 'admin', json: { title: 'Harbour lights', ...when, status: 'publish' } });
      assert.equal(north.status, 201, north.text);
    });

    it('never replays the default calendar’s answers on a host name once a calendar has it', async () => {
      const HOST = 'events.south.example';
      // No calendar has the host name yet: its requests are the default calendar's, and replayed.
      await replayed(list(), HOST, /Home fair/);
      // Calendar south is given the host name: its pages there are south's...
      await t.built.services.calendars.create({ slug: 'south', name: 'South side', host: HOST });
      const south = await t.api.post(rest('/c/south', '/events'), { as: 'admin', json: { title: 'Southern dunes', ...when, status: 'publish' } });
      assert.equal(south.status, 201, south.text);
      await hostShows(HOST, 'Southern dunes');
      // ...and so is its API, every time: not the default calendar's list, replayed under south's host.
      for (let i = 0; i < 3; i++) {
        const res = await send(list(), HOST);
        assert.equal(res.status, 200, res.text);
        assert.doesNotMatch(res.text, /Home fair/, `south's host answers the default calendar's events: ${res.text.slice(0, 300)}`);
        assert.match(res.text, /Southern dunes/);
      }
      // The service's own host name still answers (and replays) the default calendar's.
      await replayed(list(), new URL(t.origin).host, /Home fair/);
    });

    it('never replays a calendar’s prefixed answers on a host name once another calendar has it', async () => {
      const HOST = 'events.west.example';
      const path = `/c/north${list()}`;
      // North's path, on a host name no calendar has: north's events, replayed.
      await replayed(path, HOST, /Harbour lights/);
      // Once west has the host name, a prefix there is not found (it would serve north under west's name).
      await t.built.services.calendars.create({ slug: 'west', name: 'West side', host: HOST });
      await hostShows(HOST, 'West side');
      for (let i = 0; i < 3; i++) {
        const res = await send(path, HOST);
        assert.equal(res.status, 404, `north's answer replayed on west's host name: ${res.text.slice(0, 300)}`);
        assert.equal((JSON.parse(res.text) as { code: string }).code, 'calendar_not_found');
      }
    });

    it('gives a host name’s requests back to the default calendar when its calendar lets it go or is deleted', async () => {
      const HOST = 'events.east.example';
      await t.built.services.calendars.create({ slug: 'east', name: 'East side', host: HOST });
      const east = await t.api.post(rest('/c/east', '/events'), { as: 'admin', json: { title: 'Eastern market', ...when, status: 'publish' } });
      assert.equal(east.status, 201, east.text);
      await hostShows(HOST, 'Eastern market');
      await replayed(list(), HOST, /Eastern market/);
      // East lets the host name go: the host's requests are the default calendar's again.
      await t.built.services.calendars.update('east', { host: '' });
      await hostShows(HOST, 'Home fair');
      await replayed(list(), HOST, /Home fair/);
      // East takes it back, is replayed there, then is deleted.
      await t.built.services.calendars.update('east', { host: HOST });
      await hostShows(HOST, 'Eastern market');
      for (let i = 0; i < 3; i++) assert.match((await send(list(), HOST)).text, /Eastern market/);
      await t.built.services.calendars.remove('east');
      await hostShows(HOST, 'Home fair');
      const res = await send(list(), HOST);
      assert.equal(res.status, 200, res.text);
      assert.doesNotMatch(res.text, /Eastern market/, `a deleted calendar's events replayed on its former host name: ${res.text.slice(0, 300)}`);
      assert.match(res.text, /Home fair/);
    });

    it('lists in each calendar’s MCP its own tools, whichever calendar MCP was first asked in', async () => {
      await t.built.services.calendars.create({ slug: 'mcp-east', name: 'MCP east' });
      await t.built.services.calendars.create({ slug: 'mcp-host', name: 'MCP host', host: 'events.mcp.example' });
      const challenge = (site: string) => `${site}${t.config.restRoot}/calendar/submissions/v1/challenge`;
      // The first MCP request of this server is mcp-east's: its tools name its challenge.
      const east = await mcp('/c/mcp-east', toolsList);
      assert.equal(east.status, 200, east.text);
      assert.ok(challengeOf(east)?.includes(challenge(`${t.origin}/c/mcp-east`)), challengeOf(east));
      // The default calendar's MCP names its own challenge, and nothing of mcp-east.
      const home = await mcp('', toolsList);
      assert.equal(home.status, 200, home.text);
      assert.ok(!home.text.includes('/c/mcp-east'), `the default calendar's MCP tools name mcp-east's URLs: ${/[^"]*\/c\/mcp-east[^"]*/.exec(home.text)?.[0]}`);
      assert.ok(challengeOf(home)?.includes(challenge(t.origin)), challengeOf(home));
      // Another calendar, then mcp-east again: each keeps its own.
      const north = await mcp('/c/north', toolsList);
      assert.ok(challengeOf(north)?.includes(challenge(`${t.origin}/c/north`)), challengeOf(north));
      assert.ok(challengeOf(await mcp('/c/mcp-east', toolsList))?.includes(challenge(`${t.origin}/c/mcp-east`)));
      // A calendar on its own host name: its URLs are that host's.
      await hostShows('events.mcp.example', 'MCP host');
      const own = await mcp('', toolsList, { host: 'events.mcp.example' });
      assert.equal(own.status, 200, own.text);
      assert.ok(challengeOf(own)?.includes(challenge(`${new URL(t.config.siteUrl).protocol}//events.mcp.example`)), challengeOf(own));
    });

    it('keeps the tools of a bounded number of calendars, and writes anew those of a calendar asked again', async () => {
      const challenge = (slug: string) => `${t.origin}/c/${slug}${t.config.restRoot}/calendar/submissions/v1/challenge`;
      // More calendars than the tools kept (TOOL_SETS_KEPT, 32), each asked once.
      const slugs = Array.from({ length: 40 }, (_, i) => `many-${i}`);
      for (const slug of slugs) await t.built.services.calendars.create({ slug, name: `Many ${slug}` });
      for (const slug of slugs) assert.ok(challengeOf(await mcp(`/c/${slug}`, toolsList))?.includes(challenge(slug)), slug);
      const metrics = await (await fetch(`${t.origin}/metrics`)).text();
      const entries = Number(/^calendar_kept_entries\{kind="mcp_tool_sets"\} (\S+)$/m.exec(metrics)?.[1]);
      const max = Number(/^calendar_kept_entries_max\{kind="mcp_tool_sets"\} (\S+)$/m.exec(metrics)?.[1]);
      assert.ok(max > 0 && entries <= max, `mcp_tool_sets: ${entries} of ${max}`);
      // The first, whose tools went, is answered with its own again.
      assert.ok(challengeOf(await mcp(`/c/${slugs[0]}`, toolsList))?.includes(challenge(slugs[0]!)));
    });

    it('names the calendar in MCP’s WWW-Authenticate when credentials sign nobody in', async () => {
      const wrong = `Basic ${Buffer.from('nobody-at-all:wrong password').toString('base64')}`;
      const north = await mcp('/c/north', toolsList, { authorization: wrong });
      assert.equal(north.status, 401, north.text);
      assert.match(String(north.headers['www-authenticate']), /^Basic realm="North side"/);
      const home = await mcp('', toolsList, { authorization: wrong });
      assert.equal(home.status, 401, home.text);
      assert.match(String(home.headers['www-authenticate']), new RegExp(`^Basic realm="${t.config.siteName.replace(/["\\]/g, '')}"`));
      assert.doesNotMatch(String(home.headers['www-authenticate']), /North side/);
    });
  },
  { SUBMISSIONS: 'anyone', SUBMISSIONS_POW: 'true' },
);
