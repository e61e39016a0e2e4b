/**
 * `events-calendar calendars …` on the database a running server uses: a calendar created by the
 * command answers on the server under /c/{slug}/; roles given by it hold there; suspend, resume,
 * export and delete do what they say; bad input exits 2 with a message.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliEnv, cliTarget } from '../support/cli.js';
import { STORES, type TestServer } from '../support/harness.js';
import { describe } from 'node:test';

for (const kind of STORES) {
  describe(`events-calendar calendars [${kind.name}]`, () => {
    let dir: string;
    let url: string;
    let t: TestServer;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'events-calendar-cli-calendars-'));
      ({ server: t, url } = await cliTarget(kind, dir, 'calendars'));
    });
    after(async () => {
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates, lists, gives roles, suspends, resumes, exports and deletes a calendar', { timeout: 240_000 }, async () => {
      const env = cliEnv(url, { LOG_LEVEL: 'silent', SITE_URL: t.origin });
      const made = await cli(['calendars', 'create', 'north', '--name', 'North side'], env);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /created calendar north \(id \d+\) at .*\/c\/north/);
      const again = await cli(['calendars', 'create', 'north', '--name', 'Again'], env);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /already has that slug/);
      const bad = await cli(['calendars', 'create', 'No Good', '--name', 'x'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /slug/);

      const list = await cli(['calendars', 'list'], env);
      assert.match(list.stdout, /default/);
      assert.match(list.stdout, /north .*active .*North side/);

      await t.user('subscriber', 'nina');
      const role = await cli(['calendars', 'set-role', 'north', 'nina', '--role', 'editor'], env);
      assert.equal(role.code, 0, role.stderr);
      assert.match((await cli(['calendars', 'members', 'north'], env)).stdout, /nina\s+editor/);
      const north = `${t.origin}/c/north${t.config.restRoot}/calendar/events/v1`;
      const created = await t.api.post(`${north}/events`, { as: 'nina', json: { title: 'Nina’s', start_date: '2027-03-01 10:00', end_date: '2027-03-01 11:00', status: 'publish' } });
      assert.equal(created.status, 201, created.text);

      assert.equal((await cli(['calendars', 'suspend', 'north'], env)).code, 0);
      // A running server reads the calendar again within seconds.
      let status = 0;
      for (let i = 0; i < 40 && status !== 503; i++) {
        status = (await t.api.get(`${north}/events`)).status;
        if (status !== 503) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 503);
      assert.equal((await cli(['calendars', 'resume', 'north'], env)).code, 0);

      const file = join(dir, 'north.json');
      const exported = await cli(['calendars', 'export', 'north', '--output', file], env);
      assert.equal(exported.code, 0, exported.stderr);
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { tables: Record<string, Array<Record<string, unknown>>> };
      assert.deepEqual(
        doc.tables.posts!.map((p) => p.title),
        ['Nina’s'],
      );
      // People: only those its records name; no row names a calendar.
      assert.deepEqual(
        doc.tables.users!.map((u) => u.login),
        ['nina'],
      );
      assert.ok(doc.tables.posts!.every((p) => !('calendar_id' in p)));
      // A file that cannot be written: one line saying so, not a stack trace.
      const unwritable = await cli(['calendars', 'export', 'north', '--output', join(dir, 'no-such-folder', 'north.json')], env);
      assert.equal(unwritable.code, 1, unwritable.stderr);
      assert.match(unwritable.stderr, /^error: cannot write .*no-such-folder.*ENOENT/m);
      assert.doesNotMatch(unwritable.stderr, /\n\s+at /);
      const ics = await cli(['calendars', 'export', 'north', '--format', 'ics'], env);
      assert.match(ics.stdout, /SUMMARY:Nina’s/);
      assert.doesNotMatch(ics.stdout, /BEGIN:VEVENT[\s\S]*BEGIN:VEVENT/);

      assert.equal((await cli(['calendars', 'delete', 'north'], env)).code, 2);
      const gone = await cli(['calendars', 'delete', 'north', '--yes'], env);
      assert.equal(gone.code, 0, gone.stderr);
      assert.doesNotMatch((await cli(['calendars', 'list'], env)).stdout, /north/);
      assert.equal((await cli(['calendars', 'delete', 'default', '--yes'], env)).code, 2);
    });

    it('seeds a calendar of its own (seed --calendar), and no other', { timeout: 240_000 }, async () => {
      const env = cliEnv(url, { LOG_LEVEL: 'silent', SITE_URL: t.origin });
      assert.equal((await cli(['calendars', 'create', 'seeded', '--name', 'Seeded'], env)).code, 0);
      const api = (prefix: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1`;
      const everything = 'start_date=2000-01-01&end_date=2100-01-01&per_page=50&status=publish,draft,pending,private,future';
      const before = (await t.api.get(`${api('')}/events?${everything}`, { as: 'admin' })).body.total;
      const seeded = await cli(['seed', '--events', '30', '--calendar', 'seeded', '--no-progress'], env);
      assert.equal(seeded.code, 0, seeded.stderr);
      const there = await t.api.get(`${api('/c/seeded')}/events?${everything}`, { as: 'admin' });
      assert.equal(there.status, 200, there.text);
      assert.equal(there.body.total, 30);
      // Its venues and terms are its own too.
      assert.ok((await t.api.get(`${api('/c/seeded')}/venues?per_page=50`)).body.venues.length > 0);
      assert.ok((await t.api.get(`${api('/c/seeded')}/categories?per_page=100`)).body.categories.length > 0);
      // The default calendar has none of them.
      assert.equal((await t.api.get(`${api('')}/events?${everything}`, { as: 'admin' })).body.total, before);
      assert.equal((await t.api.get(`${api('')}/events/${there.body.events[0].id}`, { as: 'admin' })).status, 404);
      const nowhere = await cli(['seed', '--events', '3', '--calendar', 'nowhere', '--no-progress'], env);
      assert.notEqual(nowhere.code, 0);
      assert.match(nowhere.stderr, /no calendar with slug "nowhere"/);
    });
  });
}
