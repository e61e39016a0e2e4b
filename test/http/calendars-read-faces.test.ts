/**
 * Each calendar's read faces (pages, feeds, the embed, REST, MCP, CalDAV) answer with that
 * calendar's data and settings:
 *
 * - A visitor's search finds no password-protected event on any face (docs/api.md,
 *   "Password-protected records"): the words of its hidden content would be an oracle.
 * - CalDAV's object resources in a calendar other than the default one carry its name, time zone
 *   and host (its UIDs are its feed's): the options are read per request, in its configuration.
 * - A settings change in a calendar keeps its name (the settings applied put back the installation's
 *   default name; the calendar's own is put back with them).
 *
 * (The replayed answers on host names and MCP's tools per calendar: calendars-replay-mcp.test.ts.)
 */
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachStore } from '../support/harness.js';
import { viaHost } from '../support/raw-http.js';
import { dav } from '../support/caldav.js';

const when = { start_date: '2030-06-01 20:00', end_date: '2030-06-01 22:00' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachStore(
  'calendars: each calendar’s read faces answer with its data and settings',
  (t) => {
    /** A request to the test server with this Host (fetch may not set it). */
    const send = (path: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) => viaHost(t, path, host, options);
    const rest = (prefix: string, path: string) => `${t.origin}${prefix}${t.config.restRoot}/calendar/events/v1${path}`;
    const mcp = async (prefix: string, body: unknown, host?: string): Promise<{ status: number; text: string }> => {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (host) return send(`${prefix}/mcp`, host, { method: 'POST', headers, body: JSON.stringify(body) });
      const res = await fetch(`${t.origin}${prefix}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, text: await res.text() };
    };
    /** Wait until the service knows `host` as the calendar whose page shows `mark`. */
    const hostKnown = async (host: string, mark: string) => {
      for (let i = 0; i < 200; i++) {
        const page = await send('/events/list/', host);
        if (page.status === 200 && page.text.includes(mark)) return;
        await sleep(50);
      }
      assert.fail(`${host} never answered as the calendar showing ${mark}`);
    };

    before(async () => {
      await t.built.services.calendars.create({ slug: 'north', name: 'North side', host: 'events.north.example' });
      const home = await t.api.post('/events', { as: 'admin', json: { title: 'Home fair', ...when, status: 'publish' } });
      assert.equal(home.status, 201, home.text);
      const north = await t.api.post(rest('/c/north', '/events'), { as: 'admin', json: { title: 'Harbour lights', ...when, status: 'publish' } });
      assert.equal(north.status, 201, north.text);
    });

    it('never finds a password-protected event by the words of its protected content, anonymously, on any face', async () => {
      await t.built.services.calendars.create({ slug: 'locked', name: 'Locked' });
      const made = await t.api.post(rest('/c/locked', '/events'), {
        as: 'admin',
        json: { title: 'Board meeting', ...when, status: 'publish', password: 'sesame', description: 'Agenda: the quixotrenal merger' },
      });
      assert.equal(made.status, 201, made.text);
      // The event is listed to anonymous readers (its title is public)...
      const listed = await fetch(`${t.origin}/c/locked/events/list/`);
      assert.match(await listed.text(), /Board meeting/);
      // ...but a search for a word of its protected description finds nothing.
      const word = 'quixotrenal';
      const reads: Array<[string, string]> = [
        ['the list page', `/c/locked/events/list/?tribe-bar-search=${word}`],
        ['the list page, search=', `/c/locked/events/?search=${word}`],
        ['the iCalendar feed of a search', `/c/locked/events/?ical=1&tribe-bar-search=${word}`],
        ['the embed', `/c/locked/embed/?view=list&search=${word}`],
        ['REST', `/c/locked${t.config.restRoot}/calendar/events/v1/events?search=${word}&start_date=2030-01-01&end_date=2030-12-31`],
      ];
      const found: string[] = [];
      for (const [what, path] of reads) {
        const res = await fetch(t.origin + path);
        const text = await res.text();
        assert.equal(res.status, 200, `${what}: ${res.status}`);
        if (text.includes('Board meeting')) found.push(what);
      }
      const call = await mcp('/c/locked', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_events', arguments: { search: word, start_date: '2030-01-01', end_date: '2030-12-31' } },
      });
      assert.equal(call.status, 200, call.text);
      if (call.text.includes('Board meeting')) found.push('MCP search_events');
      assert.deepEqual(found, [], `a search of a protected description's word finds the event on: ${found.join(', ')}`);
    });

    it('writes a calendar’s CalDAV objects with its own name, time zone and UIDs, not the default calendar’s', async () => {
      const tz = await t.api.patch(`${t.origin}/c/north${t.config.restRoot}/calendar/admin/v1/settings`, { as: 'admin', json: { CALENDAR_TIMEZONE: 'Europe/Rome' } });
      assert.equal(tz.status, 200, tz.text);
      const made = await t.api.post(rest('/c/north', '/events'), { as: 'admin', json: { title: 'Quay market', ...when, timezone: 'Europe/Rome', status: 'publish' } });
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as number;
      await hostKnown('events.north.example', 'Harbour lights');
      // North's own feed of the event, on its host name: its name, its zone, its UID (waiting out the
      // seconds after a settings change when north's pages have another name: the last test).
      let feed = await send(`/event/${made.body.slug}/ical/`, 'events.north.example');
      for (let i = 0; i < 100 && !feed.text.includes('X-WR-CALNAME:North side'); i++) {
        await sleep(50);
        feed = await send(`/event/${made.body.slug}/ical/`, 'events.north.example');
      }
      assert.equal(feed.status, 200, feed.text);
      const uid = /\r\nUID:([^\r]+)\r\n/.exec(feed.text)?.[1];
      assert.ok(uid, feed.text);
      assert.match(feed.text, /X-WR-CALNAME:North side/);
      // The same event's CalDAV resource, on north's host name and under its prefix.
      for (const [where, res] of [
        ['its host name', await send(`/dav/public/calendars/events/${id}.ics`, 'events.north.example')],
        ['its prefix', await dav(t, 'GET', `/c/north/dav/public/calendars/events/${id}.ics`)],
      ] as const) {
        assert.equal(res.status, 200, res.text);
        assert.doesNotMatch(res.text, /X-WR-CALNAME:Events Calendar/, `through ${where}, north's CalDAV object carries the default calendar's name: ${res.text}`);
        assert.match(res.text, /X-WR-CALNAME:North side/, `through ${where}: ${res.text}`);
        assert.match(res.text, /X-WR-TIMEZONE:Europe\/Rome/, `through ${where}, north's time zone: ${res.text}`);
        if (where === 'its host name') assert.match(res.text, new RegExp(`\\r\\nUID:${uid!.replace(/[.]/g, '\\.')}\\r\\n`), `through ${where}, the feed's UID ${uid}: ${res.text}`);
      }
    });

    it('keeps a calendar’s name on its pages and feeds when its administrators change another of its settings', async () => {
      await t.built.services.calendars.create({ slug: 'west', name: 'West side' });
      const title = async () => /<title>([^<]*)<\/title>/.exec(await (await fetch(`${t.origin}/c/west/events/`)).text())?.[1];
      assert.match((await title()) ?? '', /West side/);
      const changed = await t.api.patch(`${t.origin}/c/west${t.config.restRoot}/calendar/admin/v1/settings`, { as: 'admin', json: { CALENDAR_TIMEZONE: 'Europe/Paris' } });
      assert.equal(changed.status, 200, changed.text);
      // Right after the change: still west's name (not the installation's default one).
      assert.match((await title()) ?? '', /West side/, 'west’s pages carry another name after a settings change');
      const feed = await (await fetch(`${t.origin}/c/west/events.ics`)).text();
      assert.match(feed, /X-WR-CALNAME:West side/, 'west’s feed carries another name after a settings change');
    });
  },
  { SUBMISSIONS: 'anyone', SUBMISSIONS_POW: 'true' },
);
