/**
 * `events-calendar export` and `events-calendar import json` (issue 12): the whole calendar (every
 * status, trashed and hidden events, links, terms, images, users without secrets) goes out as JSON
 * and comes back into an empty database exactly: the same API answers byte for byte (modulo host).
 * `export --format ics` writes the events as iCalendar that our own importer reads back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../support/cli.js';
import { STORES, startServer, type StoreKind, type TestServer } from '../support/harness.js';
import { buildCalendar, snapshot, type BuiltCalendar } from '../support/calendar-fixture.js';
import { parseIcs } from '../../src/import/ics-parse.js';

async function server(kind: StoreKind, dir: string, name: string): Promise<{ server: TestServer; url: string }> {
  if (kind.name === 'sqlite') {
    const url = `sqlite:${join(dir, `${name}.db`)}`;
    return { server: await startServer({ name: 'sqlite', url }), url };
  }
  const s = await startServer(kind);
  return { server: s, url: s.databaseUrl };
}
const env = (url: string) => ({ DATABASE_URL: url });

for (const kind of STORES) {
  describe(`export and import json [${kind.name}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-export-'));
    const servers: TestServer[] = [];
    let source: TestServer;
    let sourceUrl: string;
    let built: BuiltCalendar;
    let trashed: number;
    before(async () => {
      ({ server: source, url: sourceUrl } = await server(kind, dir, 'source'));
      servers.push(source);
      built = await buildCalendar(source);
      trashed = built.eventIds[2]!;
      assert.equal((await source.api.delete(`/events/${trashed}`, { as: 'admin' })).status, 200);
    });
    after(async () => {
      for (const s of servers) await s.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('export, then import json into an empty database, gives the same answers byte for byte', async () => {
      const file = join(dir, 'calendar.json');
      const out = await cli(['export', '--out', file], env(sourceUrl));
      assert.equal(out.code, 0, out.stderr);
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(doc.format, 'events-calendar-export');
      assert.ok(
        doc.tables.users.every((u: any) => !('password_hash' in u)),
        'no password hashes',
      );
      assert.ok(!('app_passwords' in doc.tables), 'no application passwords');
      assert.equal(doc.tables.posts.filter((p: any) => p.type === 'tribe_events').length, built.eventIds.length + 1);

      const { server: target, url } = await server(kind, dir, 'target');
      servers.push(target);
      // The target runs while the restore writes: it must show the restored calendar at once.
      assert.equal((await target.api.get('/events')).body.total, 0);
      const restore = await cli(['import', 'json', file], env(url));
      assert.equal(restore.code, 0, restore.stderr);
      assert.match(restore.stdout, /restored 2 users, 3 images, 5 terms, 14 posts, 10 events, 2 venues, 2 organizers/);

      const extra = { extraEventIds: [built.hiddenId, trashed] };
      assert.deepEqual(await snapshot(target, extra), await snapshot(source, extra));
      // Byte for byte, modulo host: anonymous lists and singles, the admin's lists.
      const host = (t: TestServer) => new URL(t.origin).host;
      for (const [path, as, query] of [
        ['/events', null, { start_date: '1900-01-01', end_date: '2200-12-31' }],
        ['/events', 'admin', { start_date: '1900-01-01', end_date: '2200-12-31', per_page: 50 }],
        [`/events/${built.eventIds[1]}`, null, {}],
        [`/events/${built.hiddenId}`, 'admin', {}],
        [`/events/${trashed}`, 'admin', {}],
        ['/venues', 'admin', {}],
        ['/organizers', null, {}],
        ['/categories', null, { hide_empty: false }],
        ['/tags', null, {}],
      ] as const) {
        const a = await source.api.get(path, { as, query: query as Record<string, string> });
        const b = await target.api.get(path, { as, query: query as Record<string, string> });
        assert.equal(b.status, a.status, path);
        assert.equal(b.text.split(host(target)).join('HOST'), a.text.split(host(source)).join('HOST'), `${path} as ${as ?? 'anonymous'}`);
      }
      // Restored users exist, without a password; new records get new ids after the restored ones.
      const users = await cli(['users', 'list'], env(url));
      assert.match(users.stdout, /eddie\s+editor/);
      const created = await target.api.post('/events', { as: 'admin', json: { title: 'After restore', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00' } });
      assert.equal(created.status, 201);
      assert.ok(created.body.id > Math.max(...doc.tables.posts.map((p: any) => p.id)));

      // Into a database that has a calendar: refused, nothing written.
      const again = await cli(['import', 'json', file], env(url));
      assert.equal(again.code, 1);
      assert.match(again.stderr, /the database is not empty/);
      const notExport = await cli(['import', 'json', join(dir, 'target.db-missing.json')], env(url));
      assert.equal(notExport.code, 1);
      assert.match(notExport.stderr, /no such file/);
    });

    it('a calendar’s follows go out by slug and come back where their calendar is (its copies once), the others reported', async () => {
      // An installation where north follows south (its music), west and the default calendar.
      const { server: a, url: aUrl } = await server(kind, dir, 'network-source');
      servers.push(a);
      const aEnv = { ...env(aUrl), SITE_URL: a.origin };
      for (const slug of ['south', 'west', 'north']) assert.equal((await cli(['calendars', 'create', slug, '--name', slug.toUpperCase()], aEnv)).code, 0);
      const at = (t: TestServer, slug: string, path: string) => `${t.origin}${slug === 'default' ? '' : `/c/${slug}`}${t.config.restRoot}/calendar/${path}`;
      const make = async (t: TestServer, slug: string, title: string, more: Record<string, unknown> = {}) => {
        const r = await t.api.post(at(t, slug, 'events/v1/events'), { as: 'admin', json: { title, start_date: '2027-05-01 20:00', end_date: '2027-05-01 23:00', status: 'publish', ...more } });
        assert.equal(r.status, 201, r.text);
      };
      const sourceCalendar = async (t: TestServer) => {
        const music = await t.api.post(at(t, 'south', 'events/v1/categories'), { as: 'admin', json: { name: 'Music' } });
        assert.equal(music.status, 201, music.text);
        await make(t, 'south', 'Jazz night', { categories: [music.body.id], venue: { venue: 'Blue Room' } });
        await make(t, 'south', 'Talk');
      };
      await sourceCalendar(a);
      await make(a, 'west', 'West fair');
      await make(a, 'north', 'North own');
      for (const [calendar, categories] of [
        ['south', ['music']],
        ['west', []],
        ['default', []],
      ] as const) {
        const followed = await a.api.post(at(a, 'north', 'network/v1/follows'), { as: 'admin', json: { calendar, categories } });
        assert.equal(followed.status, 201, followed.text);
      }
      const titles = async (t: TestServer, slug: string) =>
        ((await t.api.get(at(t, slug, 'events/v1/events'), { query: { start_date: '2027-01-01', per_page: '50' } })).body.events as Array<{ title: string }>).map((e) => e.title).sort();
      // An event west withdrew after north copied it: its copy is in north's trash, the network's (a
      // later follow restores it), and is left out of the export as the copies are.
      const gig = await a.api.post(at(a, 'west', 'events/v1/events'), {
        as: 'admin',
        json: { title: 'Cancelled gig', start_date: '2027-05-02 20:00', end_date: '2027-05-02 23:00', status: 'publish' },
      });
      assert.equal(gig.status, 201, gig.text);
      assert.equal((await a.built.networkJob.runOnce()).error, undefined);
      assert.ok((await titles(a, 'north')).includes('Cancelled gig'));
      assert.equal((await a.api.post(`${at(a, 'west', 'events/v1/events')}/${gig.body.id}`, { as: 'admin', json: { status: 'draft' } })).status, 200);
      assert.equal((await a.built.networkJob.runOnce()).error, undefined);
      assert.deepEqual(await titles(a, 'north'), ['Jazz night', 'North own', 'West fair']);

      const file = join(dir, 'north.json');
      const out = await cli(['calendars', 'export', 'north', '--output', file], aEnv);
      assert.equal(out.code, 0, out.stderr);
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      // By slug (ids differ between installations), with the categories followed.
      assert.deepEqual(doc.follows, [
        { calendar: 'south', categories: ['music'] },
        { calendar: 'west', categories: [] },
        { calendar: 'default', categories: [] },
      ]);
      // The copies, and the venue mirrored for them, are the follows' to make again: not in the tables.
      assert.deepEqual(
        doc.tables.posts.map((p: any) => p.title),
        ['North own'],
      );

      // Another installation, with a calendar south (other ids) and no west.
      const { server: b, url: bUrl } = await server(kind, dir, 'network-target');
      servers.push(b);
      const bEnv = { ...env(bUrl), SITE_URL: b.origin };
      assert.equal((await cli(['calendars', 'create', 'south', '--name', 'South here'], bEnv)).code, 0);
      await make(b, 'south', 'Here first');
      await sourceCalendar(b);
      const restored = await cli(['import', 'json', file], bEnv);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /follows south again/);
      assert.match(restored.stdout, /skipped follow of west: no calendar "west" here/);
      assert.match(restored.stdout, /skipped follow of default: it is the calendar restored into/);
      // One copy of each followed event: the follow made them again, none came from the file.
      assert.deepEqual(await titles(b, 'default'), ['Jazz night', 'North own']);
      assert.match(restored.stdout, /restored .*1 posts, 1 events/);
      const follows = await b.api.get(at(b, 'default', 'network/v1/follows'), { as: 'admin' });
      assert.deepEqual(
        (follows.body as Array<{ calendar: { slug: string }; categories: string[] }>).map((f) => [f.calendar.slug, f.categories]),
        [['south', ['music']]],
      );
      const venues = await b.api.get(at(b, 'default', 'events/v1/venues'), { as: 'admin' });
      assert.deepEqual(
        (venues.body.venues as Array<{ venue: string }>).map((v) => v.venue),
        ['Blue Room'],
      );
      // The terms count the copies once (the file's counts left the copies out).
      const terms = async (taxonomy: string) =>
        ((await b.api.get(at(b, 'default', `events/v1/${taxonomy}`), { query: { hide_empty: 'false' } })).body[taxonomy] as Array<{ slug: string; count: number }>).map((c) => [c.slug, c.count]);
      assert.deepEqual(await terms('categories'), [['music', 1]]);
      // The copies' tags of the file stay the calendar's terms, with nothing in them; the new copies' is named after south here.
      assert.deepEqual(await terms('tags'), [
        ['from-south', 0],
        ['from-south-here', 1],
        ['from-west', 0],
      ]);
      // Still followed: a new event of south is copied by the job.
      await make(b, 'south', 'Brass band', { categories: [(await b.api.get(at(b, 'south', 'events/v1/categories'), { query: { slug: 'music' } })).body.categories[0].id] });
      let seen: string[] = [];
      for (let i = 0; i < 100 && !seen.includes('Brass band'); i++) {
        seen = await titles(b, 'default');
        if (!seen.includes('Brass band')) await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(seen, ['Brass band', 'Jazz night', 'North own']);
    });

    it('export --format ics writes every event not in the trash, readable by the importer', async () => {
      const out = await cli(['export', '--format', 'ics'], { ...env(sourceUrl), SITE_URL: source.origin });
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /^BEGIN:VCALENDAR\r\n/);
      const { events } = parseIcs(out.stdout, 'UTC', 'publish', 'export');
      assert.equal(events.length, built.eventIds.length); // all but the trashed one, the hidden one included
      const full = events.find((e) => e.input.title === 'Full event')!;
      assert.equal(full.uid, `event-${built.eventIds[0]}@${new URL(source.origin).host}`);
      assert.equal(full.input.start_date, '2027-06-01 17:00:00'); // 19:00 in Paris, in UTC
      assert.equal((full.input.categories as string[]).length, 2);
      assert.ok((full.input.categories as string[]).includes('Music'));
      assert.equal(full.input.organizer && (full.input.organizer as any[])[0]?.organizer, 'Ann Smith');
      const fair = events.find((e) => e.input.title === 'All day fair')!;
      assert.equal(fair.input.all_day, true);
      assert.equal(fair.input.start_date, '2027-07-04 00:00:00');
      assert.equal(fair.input.end_date, '2027-07-05 23:59:59');
    });
  });
}
