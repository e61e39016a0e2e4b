/**
 * Issue 30: request sequences of real CalDAV clients replayed against the CalDAV face, from
 * test/fixtures/caldav/*.json (Apple Calendar on macOS, Thunderbird, DAVx5: their PROPFIND bodies on
 * the principal, home and calendars, sync-collection and multiget REPORTs, with their headers
 * `Depth`, `Brief`, `Prefer`, `User-Agent`). Each sequence runs anonymously and as an editor with
 * an application password, then again after a create, an edit and a deletion made through the
 * REST API: what each step expects (status, properties found or 404, minimal answers, the members
 * listed, the changes reported) is checked.
 *
 * A fixture step: `{ name, phase?, method, path, headers, body?, expect, capture? }`; `{principal}`,
 * `{home}`, `{calendar}` and `{token}` are replaced by what earlier steps captured, and
 * `{hrefs:…{href}…}` repeats its template for each captured event href.
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachStore, type TestServer } from '../support/harness.js';
import { dav, responses } from '../support/caldav.js';

interface Step {
  name: string;
  phase?: 'after-change';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  expect: {
    status: number;
    location?: string;
    dav?: string;
    found?: Record<string, string[]>;
    notFound?: Record<string, string[]>;
    minimal?: boolean;
    calendars?: boolean;
    objects?: 'all' | 'hrefs' | 'none' | 'changes';
    calendarData?: boolean;
    changedFrom?: 'token';
    error?: string;
  };
  capture?: { principal?: { href: string; prop: string }; home?: { href: string; prop: string }; token?: 'sync-token'; hrefs?: 'objects' };
}

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/caldav');
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { client: string; steps: Step[] }) }));

forEachStore('CalDAV: recorded client sequences replayed', (t: TestServer) => {
  const ids: Record<string, number> = {};
  let appPassword = '';
  before(async () => {
    const create = async (key: string, json: Record<string, unknown>) => {
      const res = await t.api.post('/events', { as: 'admin', json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.id;
    };
    await create('one', { title: 'Jazz Evening', start_date: '2031-03-10 20:00', end_date: '2031-03-10 22:00', categories: ['Jazz'] });
    await create('two', { title: 'Book Club', start_date: '2031-03-12 18:00', end_date: '2031-03-12 19:30' });
    await create('draft', { title: 'Unannounced', status: 'draft', start_date: '2031-03-13 18:00', end_date: '2031-03-13 19:30' });
    await t.user('editor');
    appPassword = (await t.built.services.users.addAppPassword('editor', 'Calendar app')).password;
  });

  it('has the three clients', () => {
    assert.deepEqual(FIXTURES.map((f) => f.file).sort(), ['apple-calendar-macos.json', 'davx5.json', 'thunderbird.json']);
  });

  for (const fixture of FIXTURES) {
    for (const who of ['anonymous', 'editor'] as const) {
      it(`${fixture.client.split(' (')[0]} (${who})`, async () => {
        const as = who === 'editor' ? `editor:${appPassword}` : null;
        // Anonymous clients use the public tree; the authenticated tree asks them for credentials.
        const root = who === 'editor' ? '/dav/' : '/dav/public/';
        const vars: Record<string, string> = { root, calendar: `${root}calendars/events/` };
        let hrefs: string[] = [];
        const visible = () => {
          const list = [ids.one!, ids.two!, ...(who === 'editor' ? [ids.draft!] : [])];
          return list.map((id) => `${root}calendars/events/${id}.ics`).sort();
        };
        let changes: { ok: string[]; gone: string[] } = { ok: [], gone: [] };
        const fill = (text: string) =>
          text
            .replace(/\{hrefs:([\s\S]*?\{href\}[\s\S]*?)\}(?=<|\n|$)/g, (_m, tpl: string) => hrefs.map((h) => tpl.replace('{href}', h)).join(''))
            .replace(/\{(root|principal|home|calendar|token)\}/g, (_m, k: string) => vars[k] ?? `{${k}}`);

        const run = async (step: Step) => {
          const label = `${fixture.file} ${step.name} (${who})`;
          const res = await dav(t, step.method, fill(step.path), step.body === undefined ? undefined : fill(step.body), step.headers, as);
          assert.equal(res.status, step.expect.status, `${label}: ${res.text.slice(0, 500)}`);
          if (step.expect.location) assert.equal(res.headers.get('location'), step.expect.location, label);
          if (step.expect.dav) assert.ok(res.headers.get('dav')?.includes(step.expect.dav), label);
          if (step.expect.error) assert.ok(step.expect.error in res.doc.error, label);
          if (res.status !== 207) return;
          const all = responses(res.doc);
          for (const [href, props] of Object.entries(step.expect.found ?? {})) {
            const r = all.get(fill(href));
            assert.ok(r, `${label}: ${fill(href)} in ${[...all.keys()].join(', ')}`);
            for (const p of props) assert.ok(p in r.ok, `${label}: ${p} found on ${fill(href)}`);
          }
          for (const [href, props] of Object.entries(step.expect.notFound ?? {})) {
            const r = all.get(fill(href))!;
            for (const p of props) assert.ok(r.missing.includes(p), `${label}: ${p} not found on ${fill(href)}`);
          }
          if (step.expect.minimal) {
            for (const [href, r] of all) assert.deepEqual(r.missing, [], `${label}: a minimal answer has no 404 propstat (${href})`);
            assert.equal(res.headers.get('preference-applied'), 'return=minimal', label);
          }
          if (step.expect.calendars) assert.ok(all.has(`${root}calendars/events/`) && all.has(`${root}calendars/category-jazz/`), label);
          const objects = [...all.keys()].filter((h) => h.endsWith('.ics'));
          const ok = objects.filter((h) => all.get(h)!.status === undefined).sort();
          const gone = objects.filter((h) => / 404 /.test(all.get(h)!.status ?? '')).sort();
          if (step.expect.objects === 'all') assert.deepEqual(ok, visible(), label);
          if (step.expect.objects === 'none') assert.deepEqual(objects, [], label);
          if (step.expect.objects === 'hrefs') assert.deepEqual(ok, [...hrefs].sort(), label);
          if (step.expect.objects === 'changes') {
            assert.deepEqual(ok, changes.ok, label);
            assert.deepEqual(gone, changes.gone, label);
          }
          if (step.expect.calendarData) for (const h of ok) assert.match(String(all.get(h)!.ok['calendar-data']), /BEGIN:VCALENDAR[\s\S]*BEGIN:VEVENT/, label);
          if (step.expect.changedFrom) assert.notEqual(all.get(fill('{calendar}'))!.ok['sync-token'], vars.token, `${label}: a change moves the token`);
          const c = step.capture ?? {};
          if (c.principal) vars.principal = all.get(fill(c.principal.href))!.ok[c.principal.prop].href[0];
          if (c.home) vars.home = all.get(fill(c.home.href))!.ok[c.home.prop].href[0];
          if (c.token) vars.token = res.doc.multistatus['sync-token'];
          if (c.hrefs) hrefs = ok;
        };

        for (const step of fixture.steps.filter((s) => s.phase === undefined)) await run(step);
        assert.equal(vars.principal, who === 'editor' ? '/dav/principals/users/editor/' : '/dav/public/principals/anonymous/');

        // Changes through the REST API: a new event, an edit, a deletion (and a draft, which only the editor sees).
        const created = await t.api.post('/events', { as: 'admin', json: { title: `Added for ${fixture.file}`, start_date: '2031-04-01 10:00', end_date: '2031-04-01 11:00' } });
        const draft = await t.api.post('/events', { as: 'admin', json: { title: 'Hidden draft', status: 'draft', start_date: '2031-04-02 10:00', end_date: '2031-04-02 11:00' } });
        await t.api.post(`/events/${ids.two}`, { as: 'admin', json: { title: `Book Club (${fixture.file})` } });
        await t.api.delete(`/events/${ids.one}`, { as: 'admin' });
        const ev = (id: number) => `${root}calendars/events/${id}.ics`;
        changes = {
          ok: [created.body.id, ids.two!, ...(who === 'editor' ? [draft.body.id] : [])].map(ev).sort(),
          gone: [ev(ids.one!)],
        };
        for (const step of fixture.steps.filter((s) => s.phase === 'after-change')) await run(step);
        // Restore the first event for the next replay (and forget the two new ones).
        await t.api.post(`/events/${ids.one}`, { as: 'admin', json: { status: 'publish' } });
        await t.api.delete(`/events/${created.body.id}`, { as: 'admin', query: { force: true } });
        await t.api.delete(`/events/${draft.body.id}`, { as: 'admin', query: { force: true } });
      });
    }
  }
});
