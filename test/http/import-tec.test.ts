/**
 * `events-calendar import tec` (issue 12) from a second instance of this service started by the
 * test (it speaks the original's API): every record arrives field by field with its id, a second
 * run after changes at the source updates and adds without duplicating, an interrupted import
 * resumes, and bad inputs (not a calendar, wrong credentials, a source failing halfway) end with a
 * clear message, a non-zero exit and nothing half-written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { ADMIN, STORES, startServer, type TestServer } from '../support/harness.js';
import { addEvents, buildCalendar, snapshot, type BuiltCalendar } from '../support/calendar-fixture.js';
import { CLI_ENTRY } from '../support/cli-entry.js';

const target = cliTarget;

const env = (url: string) => cliEnv(url);

function tecArgs(source: TestServer, ...more: string[]): string[] {
  return [
    'import',
    'tec',
    '--from',
    `${source.origin}/api`,
    '--namespace',
    'calendar/events/v1',
    '--user',
    ADMIN.login,
    '--app-password',
    ADMIN.password,
    '--no-progress',
    '--allow-private',
    '--retry-delay',
    '5',
    ...more,
  ];
}

/** A proxy in front of the source; `intercept` may answer a request itself. */
async function proxy(to: string, intercept: (url: string) => 'pass' | 'fail' | 'hang'): Promise<{ origin: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url!);
    const what = intercept(req.url!);
    if (what === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"code":"internal_server_error","message":"boom","data":{"status":500}}');
      return;
    }
    if (what === 'hang') return; // never answers
    const upstream = await fetch(to + req.url, { headers: { authorization: req.headers.authorization ?? '' } });
    const body = Buffer.from(await upstream.arrayBuffer());
    const headers: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v;
    });
    res.writeHead(upstream.status, headers).end(
      body
        .toString('utf8')
        .split(new URL(to).host)
        .join(`127.0.0.1:${(server.address() as { port: number }).port}`),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, requests };
}

for (const kind of STORES) {
  describe(`import tec [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-import-'));
    let source: TestServer;
    let built: BuiltCalendar;
    const servers: TestServer[] = [];
    before(async () => {
      source = await startServer(kind);
      built = await buildCalendar(source);
    });
    after(async () => {
      for (const s of servers) await s.close();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports every record with its id, field by field, and a second run after changes updates without duplicating', async () => {
      const { server, url } = await target(kind, dir, 'main');
      servers.push(server);
      const mapping = join(dir, 'map.json');
      const run = await cli(tecArgs(source, '--author', ADMIN.login, '--mapping', mapping), env(url));
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.match(run.stdout, /categories: 3 created, 0 updated, 0 skipped, 0 failed/);
      assert.match(run.stdout, /tags: 2 created/);
      assert.match(run.stdout, /venues: 2 created/);
      assert.match(run.stdout, /organizers: 2 created/);
      // The hidden event too (issue 25): found through the source's event index (calendar/admin/v1/events).
      assert.match(run.stdout, /events: 10 created, 0 updated, 0 skipped, 0 failed/);
      assert.doesNotMatch(run.stderr, /hidden from listings/);
      const map = JSON.parse(readFileSync(mapping, 'utf8'));
      assert.equal(map.event[String(built.eventIds[0])], built.eventIds[0]);

      // --author admin: every record is the local admin's; everything else is as at the source.
      const expected = await snapshot(source, { omit: ['author'] });
      assert.deepEqual(await snapshot(server, { omit: ['author'] }), expected);
      const authors = JSON.stringify(await snapshot(server)).match(/"author":"\d+"/g)!;
      assert.ok(authors.length > 10 && authors.every((a) => a === '"author":"1"'), 'every record is authored by the local admin');
      const hidden = await server.api.get(`/events/${built.hiddenId}`, { as: 'admin' });
      assert.equal(hidden.status, 200);
      assert.equal(hidden.body.hide_from_listings, true);

      // Nothing changed: everything is skipped.
      const again = await cli(tecArgs(source, '--author', ADMIN.login), env(url));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /events: 0 created, 0 updated, 10 skipped, 0 failed/);

      // Changes at the source arrive; new records are added; nothing is duplicated.
      const first = built.eventIds[0]!;
      assert.equal(
        (await source.api.post(`/events/${first}`, { as: 'admin', json: { title: 'Full event (moved)', start_date: '2027-06-02 19:00:00', end_date: '2027-06-02 23:00:00', tags: [] } })).status,
        200,
      );
      const venueId = (await source.api.get('/venues', { as: 'admin' })).body.venues.find((v: any) => v.venue === 'Town Hall').id;
      assert.equal((await source.api.post(`/venues/${venueId}`, { as: 'admin', json: { city: 'Shelbyville' } })).status, 200);
      const newTag = (await source.api.post('/tags', { as: 'admin', json: { name: 'late addition' } })).body;
      await source.api.post('/events', { as: 'admin', json: { title: 'Added later', start_date: '2027-11-01 10:00', end_date: '2027-11-01 11:00', status: 'publish', tags: [newTag.id] } });
      const sync = await cli(tecArgs(source, '--author', ADMIN.login), env(url));
      assert.equal(sync.code, 0, sync.stderr);
      assert.match(sync.stdout, /tags: 1 created/);
      assert.match(sync.stdout, /events: 1 created, [1-9]\d* updated/);
      assert.deepEqual(await snapshot(server, { omit: ['author'] }), await snapshot(source, { omit: ['author'] }));
    });

    it('creates authors as users without a password, and maps ids that are taken', async () => {
      const { server, url } = await target(kind, dir, 'authors');
      servers.push(server);
      // An event here already holds the first source event's id… unless ids differ: take it first.
      const run = await cli(tecArgs(source, '--author-role', 'contributor'), env(url));
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /users: 2 created/);
      // The source's admin is user 1, taken here by our admin: mapped, and printed.
      assert.match(run.stdout, /mapped user 1 → \d+ \(the id is taken here\)/);
      const list = await cli(['users', 'list'], env(url));
      assert.match(list.stdout, /author-1\s+contributor/);
      assert.match(list.stdout, /author-2\s+contributor/);
      const login = await server.api.get('/events', { as: 'author-1:' });
      assert.equal(login.headers.get('allow'), 'GET', 'a user without a password cannot log in');
      const ev = (await server.api.get(`/events/${built.eventIds[0]}`, { as: 'admin' })).body;
      const sourceEv = (await source.api.get(`/events/${built.eventIds[0]}`, { as: 'admin' })).body;
      assert.notEqual(ev.author, sourceEv.author);
      assert.equal(ev.title, sourceEv.title);
    });

    it("finds events hidden from listings and names authors through WordPress' /wp/v2 when it answers", async () => {
      const { server, url } = await target(kind, dir, 'wpv2');
      servers.push(server);
      // In front of the source, answer what WordPress' core API would: the ids of every event, and authors.
      const p = await proxy(source.origin, () => 'pass');
      const wp = createServer(async (req, res) => {
        // An instance without the event index (issue 25): WordPress' /wp/v2 names the hidden events.
        if (req.url!.startsWith('/api/calendar/admin/v1')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}');
          return;
        }
        if (req.url!.startsWith('/api/wp/v2/tribe_events?')) {
          assert.match(req.url!, /status=any/);
          const ids = [...built.eventIds, built.hiddenId].map((id) => ({ id }));
          res.writeHead(200, { 'content-type': 'application/json', 'x-wp-total': String(ids.length), 'x-wp-totalpages': '1' }).end(JSON.stringify(ids));
          return;
        }
        const user = /^\/api\/wp\/v2\/users\/(\d+)$/.exec(req.url!);
        if (user) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(user[1]), name: `Writer ${user[1]}`, slug: `writer-${user[1]}` }));
          return;
        }
        const upstream = await fetch(p.origin + req.url, { headers: { authorization: req.headers.authorization ?? '' } });
        const headers: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v;
        });
        res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
      });
      await new Promise<void>((r) => wp.listen(0, '127.0.0.1', r));
      try {
        const origin = `http://127.0.0.1:${(wp.address() as { port: number }).port}`;
        const run = await cli(
          ['import', 'tec', '--from', `${origin}/api`, '--namespace', 'calendar/events/v1', '--user', ADMIN.login, '--app-password', ADMIN.password, '--no-progress', '--allow-private'],
          env(url),
        );
        assert.equal(run.code, 0, run.stderr);
        assert.doesNotMatch(run.stderr, /hidden from listings/);
        // Every listed event (earlier tests may have added some at the source) and the hidden one.
        const listed = (await source.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } })).body.total;
        assert.match(run.stdout, new RegExp(`events: ${listed + 1} created, 0 updated, 0 skipped, 0 failed`));
        assert.match(run.stdout, /users: 2 created/);
        const hidden = await server.api.get(`/events/${built.hiddenId}`, { as: 'admin' });
        assert.equal(hidden.status, 200);
        assert.equal(hidden.body.hide_from_listings, true);
        const users = await cli(['users', 'list'], env(url));
        assert.match(users.stdout, /writer-1\s+subscriber/);
        assert.match(users.stdout, /writer-2\s+subscriber/);
      } finally {
        wp.closeAllConnections();
        wp.close();
        p.server.closeAllConnections();
        p.server.close();
      }
    });

    it('--dry-run reports and writes nothing', async () => {
      const { server, url } = await target(kind, dir, 'dry');
      servers.push(server);
      const run = await cli(tecArgs(source, '--author', ADMIN.login, '--dry-run'), env(url));
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /dry run: nothing was written/);
      assert.match(run.stdout, /events: \d+ would be created, \d+ would be updated, \d+ would be skipped/, 'every count says what would happen');
      assert.equal((await server.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } })).body.total, 0);
      assert.equal((await server.api.get('/venues', { as: 'admin' })).body.total, 0);
    });

    it('refuses a URL that is not a calendar, and wrong credentials, with a clear message and nothing written', async () => {
      const { server, url } = await target(kind, dir, 'bad');
      servers.push(server);
      const notApi = await cli(['import', 'tec', '--from', `${source.origin}/nothing-here`, '--no-progress', '--allow-private'], env(url));
      assert.equal(notApi.code, 1);
      assert.match(notApi.stderr, /is not a The Events Calendar REST API/);
      const badUrl = await cli(['import', 'tec', '--from', 'ftp://example.org', '--no-progress', '--allow-private'], env(url));
      assert.equal(badUrl.code, 1);
      assert.match(badUrl.stderr, /must be an http:\/\/ or https:\/\/ URL/);
      const wrong = await cli(
        ['import', 'tec', '--from', `${source.origin}/api`, '--namespace', 'calendar/events/v1', '--user', 'admin', '--app-password', 'wrong', '--no-progress', '--allow-private'],
        env(url),
      );
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /Authorization header/);
      assert.equal((await server.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } })).body.total, 0);
      assert.equal((await server.api.get('/categories', { as: 'admin', query: { hide_empty: false } })).body.total, 0);
    });

    it('refuses a source on a loopback or private address, by IP, by name or IPv4 inside IPv6, unless --allow-private (issue 24)', async () => {
      const { server, url } = await target(kind, dir, 'private');
      servers.push(server);
      const port = new URL(source.origin).port;
      for (const from of [`${source.origin}/api`, `http://localhost:${port}/api`, `http://[::ffff:7f00:1]:${port}/api`, `http://[::127.0.0.1]:${port}/api`, `http://[64:ff9b::7f00:1]:${port}/api`]) {
        const run = await cli(
          ['import', 'tec', '--from', from, '--namespace', 'calendar/events/v1', '--user', ADMIN.login, '--app-password', ADMIN.password, '--no-progress', '--retry-delay', '5'],
          env(url),
        );
        assert.equal(run.code, 1, from);
        assert.match(run.stderr, /^error: GET \S+ refused: \S+ (?:is|resolves to \S+,) a loopback, private or reserved address \(give --allow-private to import from it\)$/m, from);
      }
      assert.equal((await server.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } })).body.total, 0);
      const help = await cli(['import', 'tec', '--help'], env(url));
      assert.match(help.stdout, /--allow-private/);
    });

    it('a source answering 500 halfway fails clearly after retries; the next run resumes without duplicates', async () => {
      const big = await startServer(kind);
      servers.push(big);
      await addEvents(big, 60);
      const { server, url } = await target(kind, dir, 'halfway');
      servers.push(server);
      let failing = true;
      const p = await proxy(big.origin, (u) => (failing && u.includes('/events?') && u.includes('page=2') ? 'fail' : 'pass'));
      try {
        const args = [
          'import',
          'tec',
          '--from',
          `${p.origin}/api`,
          '--namespace',
          'calendar/events/v1',
          '--user',
          ADMIN.login,
          '--app-password',
          ADMIN.password,
          '--author',
          ADMIN.login,
          '--no-progress',
          '--allow-private',
          '--retries',
          '2',
          '--retry-delay',
          '5',
        ];
        const broken = await cli(args, env(url));
        assert.equal(broken.code, 1);
        assert.match(broken.stderr, /page=2 answered 500 \(3 attempts\).*Run the same command again to resume/);
        assert.equal(p.requests.filter((r) => r.includes('page=2') && r.includes('/events?')).length, 3, 'retried twice');
        failing = false;
        const resumed = await cli(args, env(url));
        assert.equal(resumed.code, 0, resumed.stderr);
        assert.match(resumed.stdout, /events: 10 created, 0 updated, 50 skipped, 0 failed/);
        const list = await server.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } });
        assert.equal(list.body.total, 60);
      } finally {
        p.server.closeAllConnections();
        p.server.close();
      }
    });

    it('an import killed midway resumes where it stopped', async () => {
      const big = await startServer(kind);
      servers.push(big);
      await addEvents(big, 55, 'Resume');
      const { server, url } = await target(kind, dir, 'killed');
      servers.push(server);
      let hang = true;
      let sawHang!: () => void;
      const hung = new Promise<void>((r) => (sawHang = r));
      const p = await proxy(big.origin, (u) => {
        if (hang && /\/events\?.*\bpage=2\b/.test(u)) {
          sawHang();
          return 'hang';
        }
        return 'pass';
      });
      try {
        const args = [
          'import',
          'tec',
          '--from',
          `${p.origin}/api`,
          '--namespace',
          'calendar/events/v1',
          '--user',
          ADMIN.login,
          '--app-password',
          ADMIN.password,
          '--author',
          ADMIN.login,
          '--no-progress',
          '--allow-private',
          '--concurrency',
          '1',
        ];
        // Page 1 of events is read before page 2; kill the command while page 2 hangs, then run it again.
        const child = spawn(process.execPath, [...CLI_ENTRY, ...args], { env: { ...process.env, ...env(url) }, stdio: 'ignore' });
        const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
        await hung;
        child.kill('SIGKILL');
        assert.notEqual(await exited, 0);
        hang = false;
        const resumed = await cli(args, env(url));
        assert.equal(resumed.code, 0, resumed.stderr);
        // The first page was written before the kill: it is skipped, the rest is added.
        assert.match(resumed.stdout, /events: 5 created, 0 updated, 50 skipped, 0 failed/);
        assert.equal((await server.api.get('/events', { as: 'admin', query: { start_date: '1900-01-01', end_date: '2200-12-31' } })).body.total, 55);
      } finally {
        p.server.closeAllConnections();
        p.server.close();
      }
    });
  });
}
