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
